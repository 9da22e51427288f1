# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The Gateway API ``HTTPRoute`` router (``HTTPRouteRouter``, router.py's interface): an HTTPRoute
as a traffic canary reads and writes it (gateway-api ``apis/v1/httproute_types.go``): the rules
holding two named backends, the JSON patch that sets their weights and nothing else, the header
route (a rule of its own, added and removed by name), and what the route's ``status.parents[]``
says about a generation. The routers of the other Gateway API route kinds share this code and
differ where the kinds differ (grpcroute.py: GRPCRoute, whose matches have no path;
mesh_httproute.py: an HTTPRoute whose parents are Services, as a mesh serves it): the route's kind
and path, the parents it must have, the header route's match, the judge's name in messages.

Pure: no request is made here. Custom resources take no strategic merge patch, and ``backendRefs``
is an atomic list (a merge patch would replace it whole, with every backend this code does not
own): every write is a JSON patch whose ``test`` ops pin each value it replaces.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

from ansible_collections.kubeops.rollout.plugins.module_utils.api.client import path_quote
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers.router import RouteProblem, Router

GROUP = 'gateway.networking.k8s.io'
# The match a rule without matches has, per kind: HTTPRoute's API default; a GRPCRoute's rule without
# matches matches every request, and its matches have no path.
DEFAULT_MATCH = {'HTTPRoute': {'path': {'type': 'PathPrefix', 'value': '/'}}, 'GRPCRoute': {}}
# What a route's parent must say of the route's generation before a step counts as taken.
CONDITIONS = ('Accepted', 'ResolvedRefs')
DEFAULT_WEIGHT = 1  # the API's default of backendRefs[].weight


def label(namespace, name, kind='HTTPRoute'):
    return '%s %s/%s' % (kind, namespace, name)


def kind_of(route):
    return route.get('kind') or 'HTTPRoute'


def route_label(route):
    return label(route['metadata'].get('namespace'), route['metadata'].get('name'), kind_of(route))


def parent_kind(ref):
    """'Gateway', 'Service' (a mesh parent: the core group, kind Service) or None for another."""
    group, kind = ref.get('group', GROUP), ref.get('kind') or 'Gateway'
    if (group, kind) == (GROUP, 'Gateway'):
        return 'Gateway'
    if (group or '', kind) == ('', 'Service'):
        return 'Service'
    return None


def parent_text(ref, namespace):
    """How messages name a parent: 'Gateway shop/public (http)', 'Service shop/web (mesh)'."""
    where = '%s/%s' % (ref.get('namespace') or namespace, ref.get('name'))
    section = ' (%s)' % ref['sectionName'] if ref.get('sectionName') else ''
    if parent_kind(ref) == 'Service':
        return 'Service %s%s (mesh)' % (where, section)
    if parent_kind(ref) is None:
        return '%s %s%s' % (ref.get('kind'), where, section)
    return 'Gateway %s%s' % (where, section)


def foreign_parents(route, wanted):
    """The parentRefs of ``route`` of a kind other than ``wanted`` ('Gateway' or 'Service')."""
    return [ref for ref in (route.get('spec') or {}).get('parentRefs') or [] if parent_kind(ref) != wanted]


def _is_service(ref, name, namespace):
    """Whether ``ref`` is the core Service ``name`` of ``namespace`` (the route's: a backendRef
    without a namespace is in the route's), by group, kind, namespace and name."""
    return (ref.get('name') == name and (ref.get('group') or '') == ''
            and (ref.get('kind') or 'Service') == 'Service'
            and (ref.get('namespace') or namespace) == namespace)


def backend_index(rule, name, namespace=None):
    """The index of the backendRef to the Service ``name`` in ``namespace`` (the route's) in
    ``rule``, or None; with no namespace given, only a backendRef without one matches."""
    for i, ref in enumerate(rule.get('backendRefs') or []):
        if _is_service(ref, name, namespace):
            return i
    return None


def rule_label(index, rule):
    return 'rule %d%s' % (index, ' (%s)' % rule['name'] if rule.get('name') else '')


def select_rules(route, rule, stable, canary, header_route=None):
    """[(index, rule)] whose weights the change sets: the rule named or indexed by ``rule``, else
    every rule holding both backends (the header route's rule is never one)."""
    namespace = route['metadata'].get('namespace')
    where = route_label(route)
    rules = (route.get('spec') or {}).get('rules') or []
    candidates = [(i, r) for i, r in enumerate(rules) if not header_route or r.get('name') != header_route]
    if rule is not None:
        text = str(rule)
        found = [(i, r) for i, r in candidates if r.get('name') == text]
        if not found and text.isdigit() and int(text) < len(rules):
            found = [(int(text), rules[int(text)])]
        if not found:
            names = [r.get('name') for _i, r in candidates if r.get('name')]
            raise RouteProblem('%s has no rule %r (it has %d rules%s): give a rule name or an index from 0'
                               % (where, text, len(rules), ', named %s' % ', '.join(names) if names else ''))
        i, r = found[0]
        missing = [n for n in (stable, canary) if backend_index(r, n, namespace) is None]
        if missing:
            raise RouteProblem('%s %s has no backendRef to the Service %s: add it (the canary with weight 0) '
                               'before shifting traffic' % (where, rule_label(i, r), ' nor '.join(missing)))
        return [(i, r)]
    found = [(i, r) for i, r in candidates
             if None not in (backend_index(r, stable, namespace), backend_index(r, canary, namespace))]
    if not found:
        raise RouteProblem('%s has no rule with backendRefs to both Services %s and %s: add the canary '
                           'Service with weight 0 beside the stable one in the rules to shift'
                           % (where, stable, canary))
    return found


def weights_of(rule, stable, canary, namespace=None):
    """(stable weight, canary weight) of ``rule`` as stored (the API's default when absent)."""
    refs = rule.get('backendRefs') or []
    return tuple(refs[backend_index(rule, n, namespace)].get('weight', DEFAULT_WEIGHT)
                 for n in (stable, canary))


def target_weights(percent):
    """The weights of the pair for the canary's ``percent``: on a scale of 100, so that the pair's
    weights read as the split."""
    return (100 - percent, percent)


def canary_shares(route, rules, stable, canary, percent):
    """Per rule of ``rules``, (the canary's weight, the rule's total weight) once the pair carries
    ``percent``: the pair's weights beside those of the rule's other backendRefs, as stored, which
    take their share of the traffic too."""
    namespace = route['metadata'].get('namespace')
    want = target_weights(percent)
    out = []
    for _i, rule in rules:
        refs = rule.get('backendRefs') or []
        pair = {backend_index(rule, n, namespace) for n in (stable, canary)}
        others = sum(ref.get('weight', DEFAULT_WEIGHT) for j, ref in enumerate(refs) if j not in pair)
        out.append((want[1], sum(want) + others))
    return out


def rule_identity_ops(i, rule):
    """The ``test`` ops that pin rule ``i`` as read: its name, or (without one) its matches; and
    every backendRef it holds (an inserted or reordered rule fails them: never a rule not ours)."""
    base = '/spec/rules/%d' % i
    if rule.get('name'):
        ops = [{'op': 'test', 'path': base + '/name', 'value': rule['name']}]
    elif 'matches' in rule:
        ops = [{'op': 'test', 'path': base + '/matches', 'value': copy.deepcopy(rule['matches'])}]
    else:
        ops = []
    return ops + [{'op': 'test', 'path': base + '/backendRefs', 'value': copy.deepcopy(rule['backendRefs'])}]


def weight_ops(route, rules, stable, canary, percent):
    """The JSON patch ops setting the pair's weights in ``rules`` of ``route`` (as read): tests of
    the route's resourceVersion and of each rule's identity, then the writes; [] when they are
    already as asked."""
    namespace = route['metadata'].get('namespace')
    tests, writes = [], []
    want = target_weights(percent)
    for i, rule in rules:
        if weights_of(rule, stable, canary, namespace) == want:
            continue
        tests.extend(rule_identity_ops(i, rule))
        for name, weight in zip((stable, canary), want):
            j = backend_index(rule, name, namespace)
            writes.append({'op': 'add' if 'weight' not in rule['backendRefs'][j] else 'replace',
                           'path': '/spec/rules/%d/backendRefs/%d/weight' % (i, j), 'value': weight})
    if writes:
        tests.insert(0, {'op': 'test', 'path': '/metadata/resourceVersion',
                         'value': route['metadata'].get('resourceVersion')})
    return tests + writes


def weights_written(route, rules, stable, canary, percent):
    """Why ``route`` (the write's answer, or read back) does not carry the weights asked in the
    rules selected as ``rules`` were, or None."""
    namespace = route['metadata'].get('namespace')
    want = target_weights(percent)
    found = (route.get('spec') or {}).get('rules') or []
    for i, rule in rules:
        now = found[i] if i < len(found) else None
        if now is None or now.get('name') != rule.get('name') or \
                None in (backend_index(now, stable, namespace), backend_index(now, canary, namespace)):
            return '%s is no longer at index %d' % (rule_label(i, rule), i)
        have = weights_of(now, stable, canary, namespace)
        if have != want:
            return ('%s has weights %d/%d, not the %d/%d written'
                    % (rule_label(i, rule), have[0], have[1], want[0], want[1]))
    return None


def header_rule_index(route, name):
    for i, r in enumerate((route.get('spec') or {}).get('rules') or []):
        if r.get('name') == name:
            return i
    return None


def header_rule(source, canary, header_route, namespace=None, kind='HTTPRoute'):
    """The rule of a header route: the matches of ``source`` (the rule it is a route beside), each
    with the header added (``matches[].headers[]``, the same shape in an HTTPRoute and a GRPCRoute),
    and every request to the canary alone."""
    header = {'type': header_route.get('type') or 'Exact', 'name': header_route['header'],
              'value': header_route['value']}
    matches = copy.deepcopy(source.get('matches') or [DEFAULT_MATCH[kind]])
    for match in matches:
        kept = [h for h in match.get('headers') or [] if h.get('name') != header['name']]
        match['headers'] = kept + [header]
    ref = copy.deepcopy(source['backendRefs'][backend_index(source, canary, namespace)])
    ref['weight'] = DEFAULT_WEIGHT
    rule = {'name': header_route['name'], 'matches': matches, 'backendRefs': [ref]}
    if source.get('filters'):
        rule['filters'] = copy.deepcopy(source['filters'])
    return rule


def header_ops(route, rules, canary, header_route, present):
    """The JSON patch ops adding (``present``) or removing the header route, [] when it is as asked.
    An addition is guarded by the generation read (no rule added since); a removal tests the name
    at its index."""
    if not header_route:
        return []
    index = header_rule_index(route, header_route['name'])
    if present:
        if index is not None:
            return []
        count = len(route['spec'].get('rules') or [])
        if count >= 16:
            raise RouteProblem('%s has 16 rules, the most a route takes: the header route %s cannot be added'
                               % (route_label(route), header_route['name']))
        return [{'op': 'test', 'path': '/metadata/generation', 'value': route['metadata']['generation']},
                {'op': 'add', 'path': '/spec/rules/-',
                 'value': header_rule(rules[0][1], canary, header_route,
                                      route['metadata'].get('namespace'), kind_of(route))}]
    if index is None:
        return []
    return [{'op': 'test', 'path': '/spec/rules/%d/name' % index, 'value': header_route['name']},
            {'op': 'remove', 'path': '/spec/rules/%d' % index}]


def order_ops(ops):
    """Every test first, then the writes; a removal of a rule last, so the indexes of the weights'
    paths stay right."""
    tests = [o for o in ops if o['op'] == 'test']
    removes = [o for o in ops if o['op'] == 'remove']
    return tests + [o for o in ops if o['op'] not in ('test', 'remove')] + removes


def _same_parent(ref, entry_ref, namespace):
    keys = (('kind', 'Gateway'), ('namespace', namespace), ('name', None), ('sectionName', None),
            ('port', None))
    return parent_kind(ref) == parent_kind(entry_ref) and \
        all((ref.get(k) or d) == (entry_ref.get(k) or d) for k, d in keys)


def parent_verdicts(route):
    """Per parentRef of the route's spec: (parent text, None) when every condition of CONDITIONS is
    True at the route's generation; (parent text, 'pending') while its controller has not judged
    this generation; (parent text, problem) when a condition is False at it."""
    meta = route['metadata']
    generation = meta.get('generation')
    verdicts = []
    parents = (route.get('status') or {}).get('parents') or []
    for ref in (route.get('spec') or {}).get('parentRefs') or []:
        text = parent_text(ref, meta['namespace'])
        entry = next((p for p in parents
                      if _same_parent(ref, p.get('parentRef') or {}, meta['namespace'])), None)
        if entry is None:
            verdicts.append((text, 'pending'))
            continue
        conditions = {c.get('type'): c for c in entry.get('conditions') or []}
        verdict = None
        for kind in CONDITIONS:
            c = conditions.get(kind)
            if c is None or c.get('observedGeneration') != generation:
                verdict = verdict or 'pending'
                continue
            if c.get('status') != 'True':
                verdict = '%s is %s (reason %s%s)' % (kind, c.get('status'), c.get('reason'),
                                                      ': %s' % c['message'] if c.get('message') else '')
                break
        verdicts.append((text, verdict))
    return verdicts


def backends_view(route, rules, stable, canary):
    """What diff mode shows: per rule, the pair's weights."""
    namespace = route['metadata'].get('namespace')
    return {rule_label(i, r): dict(zip((stable, canary), weights_of(r, stable, canary, namespace)))
            for i, r in rules}


class HTTPRouteRouter(Router):
    """The interface of router.py over the functions above, for a route of ``kind`` (its API
    collection ``plural``) whose parents are all of the kind ``parents``; ``elsewhere``: for the
    other kind of parent, the router that takes such a route (or None)."""

    kind = 'HTTPRoute'
    name = 'httproute'
    plural = 'httproutes'
    parents = 'Gateway'
    elsewhere = {'Service': 'mesh_httproute'}
    accepted_text = 'Accepted and ResolvedRefs'

    def path(self, namespace, name):
        return '%s/%s' % (self.collection(namespace), path_quote(name))

    def collection(self, namespace):
        return '/apis/%s/v1/namespaces/%s/%s' % (GROUP, path_quote(namespace), self.plural)

    def check_parents(self, route):
        """RouteProblem when the route has a parent of another kind than this router's."""
        foreign = foreign_parents(route, self.parents)
        if not foreign:
            return
        namespace = route['metadata'].get('namespace')
        texts = ', '.join(parent_text(ref, namespace) for ref in foreign)
        other = parent_kind(foreign[0])
        if other in self.elsewhere:
            hint = 'use the router %s for it' % self.elsewhere[other]
        else:
            hint = 'the router %s takes %ss whose parents are %ss' % (self.name, self.kind, self.parents)
        raise RouteProblem('%s has the parent %s, not a %s: %s'
                           % (route_label(route), texts, self.parents, hint))

    def managed(self, route, rule, stable, canary, header_route=None):
        self.check_parents(route)
        return select_rules(route, rule, stable, canary, header_route and header_route['name'])

    def weights(self, route, part, stable, canary):
        return weights_of(part[1], stable, canary, route['metadata'].get('namespace'))

    def plan(self, route, managed, stable, canary, percent, header_route=None, header_present=False):
        ops = weight_ops(route, managed, stable, canary, percent)
        ops += header_ops(route, managed, canary, header_route, header_present)
        if ops and not any(o['path'] == '/metadata/resourceVersion' for o in ops):
            ops.insert(0, {'op': 'test', 'path': '/metadata/resourceVersion',
                           'value': route['metadata'].get('resourceVersion')})
        return order_ops(ops)

    def written(self, route, managed, stable, canary, percent):
        return weights_written(route, managed, stable, canary, percent)

    def header_present(self, route, header_route):
        return bool(header_route) and header_rule_index(route, header_route['name']) is not None

    def verdicts(self, route):
        return parent_verdicts(route)

    def view(self, route, managed, stable, canary):
        return backends_view(route, managed, stable, canary)

    def shares(self, route, managed, stable, canary, percent):
        return canary_shares(route, managed, stable, canary, percent)

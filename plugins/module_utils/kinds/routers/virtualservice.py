# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The Istio ``VirtualService`` router (``VirtualServiceRouter``, router.py's interface): a
VirtualService as a traffic canary reads and writes it (istio/api ``networking/v1alpha3/
virtual_service.proto``): the one ``http[]`` route holding the two destinations, the JSON patch that
sets their weights and nothing else, the header route (an http route of its own, inserted before the
managed one, since Istio matches the routes in order), and the ``Reconciled`` condition istiod writes
when its status feature is on.

Two layouts. Host level: the destinations are two Services (``stable_service``, ``canary_service``),
each host the Service's short name or ``<name>.<namespace>.svc.cluster.local`` (how istiod resolves a
host: a name with a dot is taken as written). Subset level (``destination_rule``): one host, the
``stable_service``, and the DestinationRule's two subsets, whose labels tell the tracks apart (the
rule is read, never written); the pair's keys are then ``<service>/<subset>``.

Weights are relative: a destination gets weight / the route's total (an omitted weight is 0), so
the other destinations of the managed route keep theirs and take their share. istiod's webhook
refuses a negative weight and a total of 0; the pair is always written on a scale of 100.

Pure: no request is made here. A VirtualService takes no strategic merge patch and its lists are
atomic to a merge patch: every write is a JSON patch whose ``test`` ops pin what it relies on.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

from ansible_collections.kubeops.rollout.plugins.module_utils.api.client import path_quote
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers.router import (
    OWN_OPTIONS, RouteProblem, Router, Track)

GROUP = 'networking.istio.io'
VIRTUALSERVICES = '/apis/networking.istio.io/v1/namespaces/%s/virtualservices'
DESTINATIONRULES = '/apis/networking.istio.io/v1/namespaces/%s/destinationrules'
DOMAIN = 'svc.cluster.local'
CONDITION = 'Reconciled'  # istiod's status feature: every proxy has the generation
HEADER_MATCH = {'Exact': 'exact', 'RegularExpression': 'regex'}


def label(namespace, name):
    return 'VirtualService %s/%s' % (namespace, name)


def split_key(key):
    """A pair key -> (Service, subset or None)."""
    service, _sep, subset = key.partition('/')
    return service, subset or None


def is_destination(destination, key, namespace):
    """Whether ``destination`` (an http route's ``route[].destination``) is the one of ``key``: its host
    the Service by short name or full name in ``namespace`` (the VirtualService's), and its subset."""
    service, subset = split_key(key)
    host = destination.get('host')
    return host in (service, '%s.%s.%s' % (service, namespace, DOMAIN)) and \
        (destination.get('subset') or None) == subset


def destination_index(route, key, namespace):
    """The index in ``route['route']`` of the destination of ``key``, or None."""
    for i, item in enumerate(route.get('route') or []):
        if is_destination(item.get('destination') or {}, key, namespace):
            return i
    return None


def route_label(index, route):
    return 'http route %d%s' % (index, ' (%s)' % route['name'] if route.get('name') else '')


def select_route(vs, rule, stable, canary, header_route=None):
    """[(index, http route)]: the route named ``rule``, else the one route holding both destinations
    (the header route never is one)."""
    namespace = vs['metadata'].get('namespace')
    where = label(namespace, vs['metadata'].get('name'))
    routes = (vs.get('spec') or {}).get('http') or []
    candidates = [(i, r) for i, r in enumerate(routes) if not header_route or r.get('name') != header_route]

    def missing(r):
        return [k for k in (stable, canary) if destination_index(r, k, namespace) is None]

    if rule is not None:
        found = [(i, r) for i, r in candidates if r.get('name') == str(rule)]
        if not found:
            names = [r.get('name') for _i, r in candidates if r.get('name')]
            raise RouteProblem('%s has no http route named %r (%s): give the name of an http route as rule'
                               % (where, str(rule), 'its names: %s' % ', '.join(names) if names
                                  else 'none of its %d http routes has a name' % len(routes)))
        i, r = found[0]
        if missing(r):
            raise RouteProblem('%s %s has no destination %s: add it (the canary with weight 0) before '
                               'shifting traffic' % (where, route_label(i, r), ' nor '.join(missing(r))))
        return [(i, r)]
    found = [(i, r) for i, r in candidates if not missing(r)]
    if not found:
        raise RouteProblem('%s has no http route with both destinations %s and %s: add the canary with '
                           'weight 0 beside the stable one in the http route to shift'
                           % (where, stable, canary))
    if len(found) > 1:
        raise RouteProblem('%s has %d http routes with both destinations %s and %s (%s): name the one to '
                           'shift with rule' % (where, len(found), stable, canary,
                                                ', '.join(route_label(i, r) for i, r in found)))
    return found


def weights_of(route, stable, canary, namespace):
    """(stable weight, canary weight) of ``route`` as stored (an omitted weight is 0)."""
    items = route.get('route') or []
    return tuple(int(items[destination_index(route, k, namespace)].get('weight') or 0)
                 for k in (stable, canary))


def target_weights(percent):
    """The pair's weights for the canary's ``percent``, on a scale of 100."""
    return (100 - percent, percent)


def canary_shares(vs, managed, stable, canary, percent):
    """Per managed route, (the canary's weight, the route's total weight) once the pair carries
    ``percent``: the other destinations keep their weights and their share."""
    namespace = vs['metadata'].get('namespace')
    want = target_weights(percent)
    out = []
    for _i, route in managed:
        pair = {destination_index(route, k, namespace) for k in (stable, canary)}
        others = sum(int(d.get('weight') or 0)
                     for j, d in enumerate(route.get('route') or []) if j not in pair)
        out.append((want[1], sum(want) + others))
    return out


def identity_ops(i, route):
    """The ``test`` ops pinning http route ``i`` as read: its name, or (unnamed) its match, and its
    destinations: a route inserted or moved since the read fails them."""
    base = '/spec/http/%d' % i
    if route.get('name'):
        ops = [{'op': 'test', 'path': base + '/name', 'value': route['name']}]
    elif 'match' in route:
        ops = [{'op': 'test', 'path': base + '/match', 'value': copy.deepcopy(route['match'])}]
    else:
        ops = []
    return ops + [{'op': 'test', 'path': base + '/route', 'value': copy.deepcopy(route.get('route') or [])}]


def weight_ops(vs, managed, stable, canary, percent):
    """The ops setting the pair's weights (after the tests of each route's identity); [] when they
    are as asked."""
    namespace = vs['metadata'].get('namespace')
    want = target_weights(percent)
    tests, writes = [], []
    for i, route in managed:
        if weights_of(route, stable, canary, namespace) == want:
            continue
        tests.extend(identity_ops(i, route))
        for key, weight in zip((stable, canary), want):
            j = destination_index(route, key, namespace)
            writes.append({'op': 'add' if 'weight' not in route['route'][j] else 'replace',
                           'path': '/spec/http/%d/route/%d/weight' % (i, j), 'value': weight})
    return tests + writes


def _same_route(now, route, stable, canary, namespace):
    """Whether ``now`` is ``route`` as read (its name, or unnamed its match) with both destinations."""
    if now.get('name') != route.get('name'):
        return False
    if not route.get('name') and now.get('match') != route.get('match'):
        return False
    return None not in (destination_index(now, stable, namespace), destination_index(now, canary, namespace))


def weights_written(vs, managed, stable, canary, percent):
    """Why ``vs`` (the write's answer, or read back) does not carry the weights asked in the routes
    chosen as ``managed`` were, or None."""
    namespace = vs['metadata'].get('namespace')
    want = target_weights(percent)
    found = (vs.get('spec') or {}).get('http') or []
    for i, route in managed:
        # the header route inserted before it (or removed) in the same write moves it by one
        now = next((found[j] for j in (i, i + 1, i - 1)
                    if 0 <= j < len(found) and _same_route(found[j], route, stable, canary, namespace)), None)
        if now is None:
            return '%s is no longer at index %d' % (route_label(i, route), i)
        have = weights_of(now, stable, canary, namespace)
        if have != want:
            return ('%s has weights %d/%d, not the %d/%d written'
                    % (route_label(i, route), have[0], have[1], want[0], want[1]))
    return None


def header_index(vs, name):
    for i, r in enumerate((vs.get('spec') or {}).get('http') or []):
        if r.get('name') == name:
            return i
    return None


def header_http_route(source, canary, header_route, namespace):
    """The header route: the managed route's matches (or none), each also matching the header, and
    every request to the canary's destination alone; the route's other settings (timeouts, retries,
    rewrites, headers) as the managed route has them."""
    kind = HEADER_MATCH.get(header_route.get('type') or 'Exact', 'exact')
    matches = copy.deepcopy(source.get('match') or [{}])
    for match in matches:
        headers = dict(match.get('headers') or {})
        headers[header_route['header']] = {kind: header_route['value']}
        match['headers'] = headers
    destination = copy.deepcopy(source['route'][destination_index(source, canary, namespace)])
    destination.pop('weight', None)  # a route's only destination gets everything
    out = {k: copy.deepcopy(v) for k, v in source.items() if k not in ('name', 'match', 'route')}
    out.update(name=header_route['name'], match=matches, route=[destination])
    return out


def header_ops(vs, managed, canary, header_route, present):
    """The ops inserting (``present``) the header route before the managed route, guarded by the
    generation and that route's identity, or removing it by name; [] when it is as asked."""
    if not header_route:
        return []
    index = header_index(vs, header_route['name'])
    if present:
        if index is not None:
            return []
        i, route = managed[0]
        added = header_http_route(route, canary, header_route, vs['metadata'].get('namespace'))
        return ([{'op': 'test', 'path': '/metadata/generation', 'value': vs['metadata'].get('generation')}]
                + identity_ops(i, route) + [{'op': 'add', 'path': '/spec/http/%d' % i, 'value': added}])
    if index is None:
        return []
    return [{'op': 'test', 'path': '/spec/http/%d/name' % index, 'value': header_route['name']},
            {'op': 'remove', 'path': '/spec/http/%d' % index}]


def order_ops(ops):
    """Every test first (each once), then the weights, then the header route's insertion or removal,
    so the weights' paths are the indexes as read."""
    tests = []
    for o in ops:
        if o['op'] == 'test' and o not in tests:
            tests.append(o)
    moves = [o for o in ops if o['op'] == 'remove' or (o['op'] == 'add' and o['path'].count('/') == 3)]
    return tests + [o for o in ops if o['op'] != 'test' and o not in moves] + moves


def reconciled_verdicts(vs):
    """istiod's verdict where its status feature writes one: [] without a ``Reconciled`` condition
    (nothing to wait for); else [('istiod', None)] once it is True at the generation, 'pending' before
    (False means proxies have not all taken the generation yet)."""
    status = vs.get('status') or {}
    found = [c for c in status.get('conditions') or [] if c.get('type') == CONDITION]
    if not found:
        return []
    condition = found[0]
    observed = condition.get('observedGeneration', status.get('observedGeneration'))
    try:
        observed = int(observed)
    except (TypeError, ValueError):
        observed = None
    at_generation = observed == vs['metadata'].get('generation')
    return [('istiod', None if at_generation and condition.get('status') == 'True' else 'pending')]


def weights_view(vs, managed, stable, canary):
    namespace = vs['metadata'].get('namespace')
    return {route_label(i, r): dict(zip((stable, canary), weights_of(r, stable, canary, namespace)))
            for i, r in managed}


def subset_tracks(rule, namespace, options):
    """The tracks of a subset-level VirtualService from its DestinationRule ``rule`` as read."""
    wanted = options['destination_rule']
    service = options['stable_service']
    where = 'DestinationRule %s/%s' % (namespace, wanted['name'])
    host = (rule.get('spec') or {}).get('host')
    if host not in (service, '%s.%s.%s' % (service, namespace, DOMAIN)):
        raise RouteProblem('%s is for the host %s, not the Service %s (stable_service): give the rule of '
                           'that Service\'s host' % (where, host, service))
    subsets = {s.get('name'): s for s in (rule.get('spec') or {}).get('subsets') or []}
    out = {}
    for track in ('stable', 'canary'):
        name = wanted.get('%s_subset' % track) or track
        if name not in subsets:
            raise RouteProblem('%s has no subset %s (%s_subset): add it with the labels of the %s '
                               'track\'s pods' % (where, name, track, track))
        labels = dict(subsets[name].get('labels') or {})
        out[track] = Track(service, labels, 'destination_rule.%s_subset' % track)
    return out


class VirtualServiceRouter(Router):
    """The interface of router.py over the functions above."""

    kind = 'VirtualService'
    name = 'virtualservice'
    judge = 'mesh'
    verdict_required = False  # no acceptance condition unless istiod's status feature is on
    accepted_text = 'Reconciled True'
    # istiod pushes an accepted write to the proxies after its debounce (100 ms by default) and the push
    # itself, which nothing shows without its status feature: a step waits this long after its write, so
    # that a canary is scaled down once the proxies send it nothing.
    settle_seconds = 1
    create_hint = ('create the VirtualService (with the canary destination at weight 0 beside the stable one '
                   'in the http route to shift) before shifting traffic')

    def check(self, options):
        subsets = options.get('destination_rule')
        if not subsets:
            return Router.check(self, options)
        problems = ['traffic option %s is for the router %s, not %s' % (option, ' or '.join(names), self.name)
                    for option, names in sorted(OWN_OPTIONS.items())
                    if options.get(option) is not None and self.name not in names]
        if options.get('canary_service') and options['canary_service'] != options.get('stable_service'):
            problems.append('with destination_rule both subsets are of the stable_service host %s: leave '
                            'canary_service out (it names %s)' % (options.get('stable_service'),
                                                                  options['canary_service']))
        stable, canary = subsets.get('stable_subset') or 'stable', subsets.get('canary_subset') or 'canary'
        if stable == canary:
            problems.append('destination_rule.stable_subset and canary_subset name the same subset (%s): '
                            'give two subsets' % stable)
        return problems

    def pair(self, options):
        subsets = options.get('destination_rule')
        if not subsets:
            return Router.pair(self, options)
        return tuple('%s/%s' % (options['stable_service'], subsets.get('%s_subset' % t) or t)
                     for t in ('stable', 'canary'))

    def related(self, namespace, options):
        subsets = options.get('destination_rule')
        if not subsets:
            return []
        return [('%s/%s' % (DESTINATIONRULES % path_quote(namespace), path_quote(subsets['name'])),
                 'DestinationRule %s/%s' % (namespace, subsets['name']))]

    def tracks(self, namespace, options, related):
        if not options.get('destination_rule'):
            return Router.tracks(self, namespace, options, related)
        return subset_tracks(related[0], namespace, options)

    def path(self, namespace, name):
        return '%s/%s' % (VIRTUALSERVICES % path_quote(namespace), path_quote(name))

    def collection(self, namespace):
        return VIRTUALSERVICES % path_quote(namespace)

    def managed(self, route, rule, stable, canary, header_route=None):
        return select_route(route, rule, stable, canary, header_route and header_route['name'])

    def weights(self, route, part, stable, canary):
        return weights_of(part[1], stable, canary, route['metadata'].get('namespace'))

    def plan(self, route, managed, stable, canary, percent, header_route=None, header_present=False):
        ops = weight_ops(route, managed, stable, canary, percent)
        ops += header_ops(route, managed, canary, header_route, header_present)
        if ops:
            ops.insert(0, {'op': 'test', 'path': '/metadata/resourceVersion',
                           'value': route['metadata'].get('resourceVersion')})
        return order_ops(ops)

    def written(self, route, managed, stable, canary, percent):
        return weights_written(route, managed, stable, canary, percent)

    def header_present(self, route, header_route):
        return bool(header_route) and header_index(route, header_route['name']) is not None

    def verdicts(self, route):
        return reconciled_verdicts(route)

    def view(self, route, managed, stable, canary):
        return weights_view(route, managed, stable, canary)

    def shares(self, route, managed, stable, canary, percent):
        return canary_shares(route, managed, stable, canary, percent)

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The OpenShift ``Route`` router (``OpenShiftRouteRouter``, router.py's interface): a
``route.openshift.io/v1`` Route as a traffic canary reads and writes it (openshift/api
``route/v1/types.go``): ``spec.to`` is the stable Service, one ``alternateBackends`` entry the
canary; other alternate backends are kept as they are and take their share. Weights are 0-256
(default 100) and relative (share = weight / sum); the pair is written on a scale of 100, so a
route without other backends carries the canary's percent exactly.

A Route has one set of backends and no header matches: ``rule`` and ``header_route`` are refused
before any request. Its status has no observedGeneration: the verdict is, per router in
``status.ingress[]``, its ``Admitted`` condition for the spec's host (see ``router_verdicts``).

Pure: no request is made here. Every write is one JSON patch whose ``test`` ops pin the route's
resourceVersion and each backend it replaces.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

from ansible_collections.kubeops.rollout.plugins.module_utils.api.client import path_quote
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers.router import RouteProblem, Router

GROUP = 'route.openshift.io'
ROUTES = '/apis/route.openshift.io/v1/namespaces/%s/routes'
DEFAULT_WEIGHT = 100  # the API's default of a backend's weight
MAX_WEIGHT = 256
MAX_ALTERNATE_BACKENDS = 3
SCALE = 100  # the pair's weights for a percent: (SCALE - percent, percent)


def route_path(namespace, name):
    return '%s/%s' % (ROUTES % path_quote(namespace), path_quote(name))


def label(namespace, name):
    return 'Route %s/%s' % (namespace, name)


def _where(route):
    return label(route['metadata'].get('namespace'), route['metadata'].get('name'))


def _is_service(ref, name):
    return isinstance(ref, dict) and ref.get('name') == name and (ref.get('kind') or 'Service') == 'Service'


def weight_of(ref):
    weight = ref.get('weight')
    return DEFAULT_WEIGHT if weight is None else weight


def canary_index(spec, canary):
    """The index of the canary's entry in ``alternateBackends``, or None."""
    for i, ref in enumerate(spec.get('alternateBackends') or []):
        if _is_service(ref, canary):
            return i
    return None


def options_problems(rule=None, header_route=None):
    """What a Route cannot take among a traffic step's options (before any request)."""
    problems = []
    if rule not in (None, ''):
        problems.append('rule %r: an OpenShift Route has one set of backends (spec.to and '
                        'alternateBackends), no rules to choose from; leave rule out' % (rule,))
    if header_route:
        problems.append('header_route: an OpenShift Route has no header matches; leave header_route out '
                        '(or route by header with a Gateway API HTTPRoute, router httproute)')
    return problems


def select(route, stable, canary):
    """[(the canary's index in alternateBackends, spec)]: the one managed part of ``route``; a
    RouteProblem when spec.to is not the stable Service or no alternate backend is the canary."""
    spec = route.get('spec') or {}
    to = spec.get('to') or {}
    where = _where(route)
    if not _is_service(to, stable):
        if _is_service(to, canary):
            raise RouteProblem('%s sends spec.to to the canary Service %s: spec.to must be the stable '
                               'Service %s and the canary an alternateBackends entry'
                               % (where, canary, stable))
        raise RouteProblem('%s has spec.to %s %s, not the stable Service %s: point spec.to at the stable '
                           'Service before shifting traffic'
                           % (where, to.get('kind') or 'Service', to.get('name'), stable))
    j = canary_index(spec, canary)
    if j is None:
        count = len(spec.get('alternateBackends') or [])
        room = ('add it with weight 0' if count < MAX_ALTERNATE_BACKENDS else
                'it already has %d, the most a Route takes: replace one with the canary at weight 0' % count)
        raise RouteProblem('%s has no alternateBackends entry for the Service %s: %s before shifting traffic'
                           % (where, canary, room))
    return [(j, spec)]


def weights_of(spec, j):
    """(stable weight, canary weight) as stored (the API's default 100 when absent)."""
    return weight_of(spec.get('to') or {}), weight_of(spec['alternateBackends'][j])


def target_weights(percent):
    """The pair's weights for the canary's ``percent``: on a scale of 100, so that the pair reads as
    the split (within 0-256)."""
    return (SCALE - percent, percent)


def others_weight(spec, j):
    """The weights of the alternate backends that are not the canary (kept as they are)."""
    return sum(weight_of(ref) for i, ref in enumerate(spec.get('alternateBackends') or []) if i != j)


def canary_shares(managed, percent):
    """[(the canary's weight, the total weight)] once the pair carries ``percent``: other alternate
    backends take their share too, so the canary's real share is percent / (100 + theirs)."""
    j, spec = managed[0]
    want = target_weights(percent)
    return [(want[1], sum(want) + others_weight(spec, j))]


def weight_ops(route, managed, percent):
    """The JSON patch setting the pair's weights: tests of the route's resourceVersion, of spec.to
    and of the canary's entry as read, then the writes; [] when they are as asked."""
    j, spec = managed[0]
    want = target_weights(percent)
    if weights_of(spec, j) == want:
        return []
    entry = spec['alternateBackends'][j]
    base = '/spec/alternateBackends/%d' % j
    version = route['metadata'].get('resourceVersion')
    return [
        {'op': 'test', 'path': '/metadata/resourceVersion', 'value': version},
        {'op': 'test', 'path': '/spec/to', 'value': copy.deepcopy(spec['to'])},
        {'op': 'test', 'path': base, 'value': copy.deepcopy(entry)},
        {'op': 'replace' if 'weight' in spec['to'] else 'add', 'path': '/spec/to/weight', 'value': want[0]},
        {'op': 'replace' if 'weight' in entry else 'add', 'path': base + '/weight', 'value': want[1]},
    ]


def weights_written(route, managed, stable, canary, percent):
    """Why ``route`` (the write's answer, or read back) does not carry the weights asked, or None."""
    j = managed[0][0]
    spec = route.get('spec') or {}
    alternates = spec.get('alternateBackends') or []
    if not _is_service(spec.get('to'), stable):
        return 'spec.to is no longer the Service %s' % stable
    if j >= len(alternates) or not _is_service(alternates[j], canary):
        return 'alternateBackends[%d] is no longer the Service %s' % (j, canary)
    have, want = weights_of(spec, j), target_weights(percent)
    if have != want:
        return 'the weights are %d/%d, not the %d/%d written' % (have + want)
    return None


def _admitted(entry):
    return next((c for c in entry.get('conditions') or [] if c.get('type') == 'Admitted'), None)


def router_verdicts(route):
    """Per router of ``status.ingress[]``: (text, None) when it admits the route for the spec's host,
    (text, 'pending') while it has not judged that host, (text, problem) when it refuses the route.

    A Route has no observedGeneration and a router writes its entry only when the entry would change
    (openshift/router ``status.go``): new weights it admits write nothing. Its verdict depends on the
    host, path, wildcard policy, namespace and age of routes, never on the backends, so ``Admitted``
    True in an entry for the spec's host holds for a spec that changed only its weights; a refusal
    is written with its reason. No entry at all: no router has judged the route yet (pending)."""
    spec = route.get('spec') or {}
    entries = (route.get('status') or {}).get('ingress') or []
    if not entries:
        return [('its routers', 'pending')]
    verdicts = []
    for entry in entries:
        text = 'router %s' % (entry.get('routerName') or '(unnamed)')
        condition = _admitted(entry)
        if condition is None or (spec.get('host') and entry.get('host') != spec.get('host')):
            verdicts.append((text, 'pending'))
        elif condition.get('status') == 'True':
            verdicts.append((text, None))
        elif condition.get('status') == 'False':
            verdicts.append((text, 'Admitted is False (reason %s%s)' % (
                condition.get('reason'), ': %s' % condition['message'] if condition.get('message') else '')))
        else:
            verdicts.append((text, 'pending'))
    return verdicts


def backends_view(managed, stable, canary):
    """What diff mode shows: the pair's weights."""
    j, spec = managed[0]
    return {'backends': dict(zip((stable, canary), weights_of(spec, j)))}


class OpenShiftRouteRouter(Router):
    """The interface of router.py over the functions above."""

    kind = 'Route'
    name = 'openshift_route'
    judge = 'router'
    accepted_text = 'Admitted for its host'
    # HAProxy reloads at most once per RELOAD_INTERVAL (5 s by default, openshift/router): a new
    # weight is served within it, and nothing in the Route says when.
    settle_seconds = 5
    create_hint = ('create the Route (spec.to the stable Service, the canary Service an alternateBackends '
                   'entry of weight 0) before shifting traffic')

    def check(self, options):
        """The defaults' problems, and ``rule`` and ``header_route``, which a Route cannot take."""
        own = options_problems(options.get('rule'), options.get('header_route'))
        return Router.check(self, options) + own

    def path(self, namespace, name):
        return route_path(namespace, name)

    def collection(self, namespace):
        return ROUTES % path_quote(namespace)

    def managed(self, route, rule, stable, canary, header_route=None):
        problems = options_problems(rule, header_route)
        if problems:
            raise RouteProblem('%s: %s' % (_where(route), '; '.join(problems)))
        return select(route, stable, canary)

    def weights(self, route, part, stable, canary):
        return weights_of(part[1], part[0])

    def plan(self, route, managed, stable, canary, percent, header_route=None, header_present=False):
        if header_route:
            raise RouteProblem('%s: %s' % (_where(route), options_problems(header_route=header_route)[0]))
        return weight_ops(route, managed, percent)

    def written(self, route, managed, stable, canary, percent):
        return weights_written(route, managed, stable, canary, percent)

    def header_present(self, route, header_route):
        return False

    def verdicts(self, route):
        return router_verdicts(route)

    def view(self, route, managed, stable, canary):
        return backends_view(managed, stable, canary)

    def shares(self, route, managed, stable, canary, percent):
        return canary_shares(managed, percent)

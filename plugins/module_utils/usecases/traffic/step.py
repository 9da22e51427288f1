# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""``rollout_traffic``: one traffic step on a route of the router chosen (kinds/routers/: an HTTPRoute
by default). The weights of the two destinations (the stable and the canary Service, or their
subsets) in the parts of the route chosen, and optionally a header route, in one JSON patch that
tests every value it replaces; nothing else of the route is touched.

Before the write the destination gaining a share must have enough ready endpoints for it (a router
answers 503 for a destination without one); after it, every judge of the route (a gateway's
``status.parents[]``, a router's ``status.ingress[]``, a mesh's condition where it writes one) must
accept it at the new generation, and the destination must still have its endpoints. In check mode
the patch is sent with dryRun=All and nothing is waited for: a judge that refuses the route as it is
now fails the step as the real run's verdict would, and a destination short of ready endpoints is a
warning (only the wait can tell whether they come).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.kubeops.rollout.plugins.module_utils.api.client import retry_on_conflict
from ansible_collections.kubeops.rollout.plugins.module_utils.api.shared_lists import SharedLists
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError, error_text
from ansible_collections.kubeops.rollout.plugins.module_utils.common.fields import REQUIRED, Fields
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers.router import RouteProblem
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.pods import selector_string
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers.table import router
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import services as endpoints
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.patches import JSON_PATCH


class TrafficFailed(Exception):
    """The step failed: ``message`` says why and what is in place; ``fields`` is the result so far."""

    def __init__(self, message, fields=None, refused=False):
        super(TrafficFailed, self).__init__(message)
        self.message = message
        self.fields = fields or {}
        self.refused = refused  # a parent of the route refused it: its next write would be refused too


class TrafficOptions(Fields):
    FIELDS = (
        ('namespace', REQUIRED),
        ('route', REQUIRED),
        ('stable', REQUIRED),
        ('canary', REQUIRED),
        ('weight', REQUIRED),
        ('rule', None),
        ('header_route', None),  # None, or {name, header, value, type, state}
        ('timeout', 300),
        ('check_mode', False),
        ('router_name', None),  # the traffic option's router (None: the HTTPRoute)
        ('destination_rule', None),  # a subset-level VirtualService's {name, stable_subset, canary_subset}
        ('settle_seconds', None),  # None: the router's
    )

    @property
    def settle(self):
        """Seconds to wait after an accepted write for the data plane to serve it."""
        return self.router.settle_seconds if self.settle_seconds is None else self.settle_seconds

    @property
    def router(self):
        """The traffic router (kinds/routers/) named by ``router_name``."""
        return router(self.router_name)

    @property
    def names(self):
        """The options as the router's methods read them (router.py)."""
        return {'route': {'namespace': self.namespace, 'name': self.route}, 'rule': self.rule,
                'stable_service': self.stable, 'canary_service': self.canary,
                'header_route': self.header_route, 'destination_rule': self.destination_rule}

    @property
    def label(self):
        return self.router.label(self.namespace, self.route)

    @property
    def header_present(self):
        return bool(self.header_route) and self.header_route.get('state', 'present') == 'present'


def _percent(weights):
    stable, canary = weights
    return 100.0 * canary / (stable + canary) if stable + canary else 0.0


class Shift:
    """One traffic step with ``options`` (TrafficOptions)."""

    def __init__(self, client, options, progress=None, clock=time.monotonic, sleep=time.sleep):
        self.client = client
        self.o = options
        self.progress = progress or (lambda line: None)
        self.clock = clock
        self.sleep = sleep
        self.warnings = []
        self.router = options.router
        self.path = self.router.path(options.namespace, options.route)
        self.pair = self.router.pair(options.names)  # the destinations' keys in the router's methods
        self.tracks = None  # per track, where its requests go (router.Track), from the related objects
        self.deadline = None
        self.sent = False  # a weight patch was sent (its answer may have been lost)
        self.reader = None  # while a step runs: its EndpointSlices and routes, watched (SharedLists)

    # -- reads
    def read_route(self):
        try:
            return self.client.get(self.path)
        except ApiError as e:
            if e.status == 404:
                raise TrafficFailed('%s not found: %s' % (self.o.label, self.router.create_hint))
            raise

    def read_tracks(self):
        """Per track, where its requests go (router.Track), from the related objects as read now."""
        related = []
        for path, label in self.router.related(self.o.namespace, self.o.names):
            try:
                related.append(self.client.get(path))
            except ApiError as e:
                if e.status == 404:
                    raise TrafficFailed('%s not found: the route %s needs it' % (label, self.o.label))
                raise
        try:
            return self.router.tracks(self.o.namespace, self.o.names, related)
        except RouteProblem as e:
            raise TrafficFailed(str(e))

    def ready(self, track):
        """The ready endpoints of the track ``track`` (stable, canary)."""
        if self.tracks is None:
            self.tracks = self.read_tracks()
        where = self.tracks[track]
        reader = self.reader or self.client
        answer = reader.list(endpoints.slices_path(self.o.namespace),
                             label_selector=endpoints.selector_of(where.service))
        pods = None
        if where.labels:
            found = reader.list(endpoints.pods_path(self.o.namespace),
                                label_selector=selector_string(where.labels)).get('items') or []
            pods = {p['metadata']['name'] for p in found}
        return endpoints.ready_endpoints(answer.get('items') or [], pods)

    def _watched_route(self):
        """The route as the reader's watched copy of its collection has it (None: gone)."""
        items = self.reader.list(self.router.collection(self.o.namespace),
                                 field_selector='metadata.name=%s' % self.o.route).get('items') or []
        return items[0] if items else None

    def _wait(self):
        """Until the namespace's EndpointSlices or routes change (watches), at most until the
        deadline; never a poll."""
        self.reader.wait_until(self.deadline)

    def _plan(self, route):
        try:
            rules = self._managed(route)
            ops = self.router.plan(route, rules, self.pair[0], self.pair[1], self.o.weight,
                                   self.o.header_route, self.o.header_present)
        except RouteProblem as e:
            raise TrafficFailed(str(e))
        return rules, ops

    def _managed(self, route):
        return self.router.managed(route, self.o.rule, self.pair[0], self.pair[1], self.o.header_route)

    # -- the endpoints a share needs
    def _gaining(self, route, rules):
        """(track gaining a share, its new percent, the track it takes it from), or None."""
        before = _percent(self.router.weights(route, rules[0], self.pair[0], self.pair[1]))
        if self.o.weight > before or (self.o.header_present and self.o.weight > 0):
            return 'canary', self.o.weight, 'stable'
        if self.o.header_present:
            return 'canary', 1, 'stable'
        if self.o.weight < before:
            return 'stable', 100 - self.o.weight, 'canary'
        return None

    def _endpoints_need(self, gaining):
        service, percent, other = gaining
        need = endpoints.needed_endpoints(percent, self.ready(other))
        return service, need

    def await_endpoints(self, gaining):
        """Wait until the track gaining a share has the ready endpoints it needs."""
        track, need = self._endpoints_need(gaining)
        where = self.tracks[track].text(self.o.namespace)
        have = self.ready(track)
        while have < need:
            if self.o.check_mode:
                self.warnings.append('%s has %d ready endpoints, %d needed for its share: a real run would '
                                     'wait for them' % (where, have, need))
                return have
            if self.clock() >= self.deadline:
                raise TrafficFailed(
                    '%s has %d ready endpoints, %d needed before it takes %d%% of %s: nothing was changed; '
                    'scale up or fix its pods (kubectl get endpointslices -n %s -l %s)'
                    % (where, have, need, gaining[1], self.o.label, self.o.namespace,
                       endpoints.selector_of(self.tracks[track].service)))
            self.progress('Waiting for %s: %d of %d ready endpoints' % (where, have, need))
            self._wait()
            have = self.ready(track)
        return have

    # -- the write
    def write(self, route):
        """The guarded patch (planned again from a fresh read after a conflict); the answer is read
        back: the weights must be the ones asked, in the rules this run planned them for."""
        latest = [route]

        def attempt(conflicted):
            if conflicted:
                latest[0] = self.read_route()
            rules, ops = self._plan(latest[0])
            if not ops:
                return latest[0]  # a lost answer's write found in place, or nothing to do
            self.progress('%s: setting %s to %d%%' % (self.o.label, self.pair[1], self.o.weight))
            self.sent = True
            answer = self.client.patch(self.path, ops, JSON_PATCH, dry_run=self.o.check_mode, retry=True)
            wrong = self.router.written(answer, rules, self.pair[0], self.pair[1], self.o.weight)
            if wrong:
                raise TrafficFailed('%s: the weights read back are not the ones written: %s; check the route '
                                    '(an admission webhook or another controller may rewrite it)'
                                    % (self.o.label, wrong))
            return answer

        return retry_on_conflict(attempt)

    # -- after the write
    def await_parents(self, route):
        """Wait until every judge of the route (a gateway, a router, a mesh) accepts its generation.
        The route is read from the watched copy of its collection before the first wait (a verdict
        written since the write is there, and the wait then wakes on the route's next change)."""
        looked = False
        while True:
            verdicts = self.router.verdicts(route)
            if not verdicts:
                if not self.router.verdict_required:
                    return verdicts
                raise TrafficFailed(self.router.no_verdict_text(self.o.label))
            for parent, verdict in verdicts:
                if verdict not in (None, 'pending'):
                    raise self._refused(route, parent, verdict, self._fields(route, None))
            pending = [p for p, v in verdicts if v == 'pending']
            if not pending:
                return verdicts
            if self.clock() >= self.deadline:
                raise TrafficFailed('%s at generation %s: %s did not judge it (%s at that generation) within '
                                    '%s seconds: is its %s controller running?'
                                    % (self.o.label, route['metadata']['generation'], ', '.join(pending),
                                       self.router.accepted_text, self.o.timeout, self.router.judge),
                                    self._fields(route, None))
            if looked:
                self._wait()
            looked = True
            route = self._watched_route()
            if route is None:
                raise TrafficFailed('%s was deleted while its step was being verified' % self.o.label)

    def _refused(self, route, parent, verdict, fields=None):
        return TrafficFailed('%s at generation %s: %s: %s; the %s keeps serving what it accepted before'
                             % (self.o.label, route['metadata']['generation'], parent, verdict,
                                self.router.judge),
                             fields, refused=True)

    def _fields(self, route, before_rules, counts=None):
        rules = self._managed(route)
        out = {
            'route': {'namespace': self.o.namespace, 'name': self.o.route,
                      'generation': route['metadata'].get('generation')},
            'weight': self.o.weight,
            'rules': [{'index': i, 'name': r.get('name'),
                       'weights': dict(zip(('stable', 'canary'),
                                           self.router.weights(route, (i, r), self.pair[0], self.pair[1])))}
                      for i, r in rules],
        }
        if self.o.header_route:
            name = self.o.header_route['name']
            out['header_route'] = {'name': name,
                                   'present': self.router.header_present(route, self.o.header_route)}
        if counts:
            out['endpoints'] = counts
        return out

    def run(self):
        """The step; a TrafficFailed says in its ``fields['changed']`` whether a write was sent."""
        self.reader = SharedLists.waiting(self.client, clock=self.clock)
        try:
            return self._run()
        except TrafficFailed as e:
            e.fields['changed'] = self.sent
            raise
        finally:
            self.reader.close()
            self.reader = None

    def _run(self):
        self.deadline = self.clock() + self.o.timeout
        route = read = self.read_route()
        self.tracks = self.read_tracks()
        rules, ops = self._plan(route)
        before = self.router.view(route, rules, self.pair[0], self.pair[1])
        if self.o.header_route:
            before['header route %s' % self.o.header_route['name']] = self.router.header_present(
                route, self.o.header_route)
        gaining = self._gaining(route, rules) if ops else None
        if gaining:
            self.await_endpoints(gaining)
        if ops:
            try:
                route = self.write(route)
            except ApiError as e:
                if e.is_conflict:
                    raise TrafficFailed('%s kept changing while its weights were written (%s): run again'
                                        % (self.o.label, error_text(e)), {'next_step': 'rerun'})
                raise TrafficFailed('%s: the API server refused the change: %s'
                                    % (self.o.label, error_text(e)))
        if not self.o.check_mode:
            parents = self.await_parents(route)
            if self.sent and self.o.settle > 0:
                self.progress('%s: waiting %g s for the %s to serve it' % (self.o.label, self.o.settle,
                                                                           self.router.judge))
                self.sleep(self.o.settle)
        else:  # the dry run's answer is a generation no gateway judged: the route as read
            parents = self.router.verdicts(read)
            refused = [(p, v) for p, v in parents if v not in (None, 'pending')]
            if ops and refused:  # a gateway refusing the route now refuses its next generation too
                raise self._refused(read, refused[0][0], refused[0][1])
        counts = {'stable': self.ready('stable'), 'canary': self.ready('canary')}
        if gaining and not self.o.check_mode:
            track, need = self._endpoints_need(gaining)
            have = counts[track]
            if have < need:
                raise TrafficFailed('%s: %s has %d ready endpoints after the step, %d needed for its share'
                                    % (self.o.label, self.tracks[track].text(self.o.namespace), have, need),
                                    self._fields(route, rules, counts))
        out = self._fields(route, rules, counts)
        out['parents'] = [{'parent': p, 'accepted': v is None} for p, v in parents]
        after = self.router.view(route, self._managed(route), self.pair[0], self.pair[1])
        if self.o.header_route:
            after['header route %s' % self.o.header_route['name']] = self.o.header_present
        out['changed'] = self.sent
        out['diff'] = {'before': before, 'after': after, 'before_header': self.o.label,
                       'after_header': self.o.label}
        return out

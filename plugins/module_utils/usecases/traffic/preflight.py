# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What a traffic canary refuses before any write (``Preflight``, the part of ``TrafficCanary`` that
reads): the stable Deployment and the canary template, each Service selecting its track only, the
route and the rules it manages (the router's ``managed``), a canary Deployment of another release or
with an unsealed record, and the analysis checks that cannot be measured."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.kubeops.rollout.plugins.module_utils.common.vocabulary import setting
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import (
    ApiError,
    KubeError,
    error_text,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.engine import lease as lease_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.engine import records
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers.router import RouteProblem
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import services as endpoints
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.patches import UnknownContainer
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workloads import Deployment
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import record as release_record
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.traffic import record as rec


class Preflight:
    """Reads and refusals of a traffic canary (mixed into ``TrafficCanary``, whose attributes it
    uses: client, t, targets, cfg, router, route, route_namespace, namespace, canary_path,
    canary_name, id, options; it sets stable, template, route_read, canary, record)."""

    def preflight(self):
        t = self.t
        if len(self.targets) != 1 or not t.kind.traffic_canary:
            return ['a traffic canary releases one Deployment (got %s)'
                    % ', '.join(x.label() for x in self.targets)]
        try:
            self.stable = self.client.get(Deployment.object_path(self.namespace, t.name))
        except ApiError as e:
            return ['%s: %s' % (t.label(), 'not found' if e.status == 404 else error_text(e))]
        t.read(Deployment(self.stable))
        problems = []
        try:
            self.template = rec.canary_template(t.workload.template, t.images, self.cfg['track_label'])
        except UnknownContainer as e:
            return ['%s: %s' % (t.label(), e)]
        problems.extend(self._track_problems(self.template['metadata']['labels']))
        try:
            route = self.client.get(self.router.path(self.route_namespace, self.route['name']))
            managed = self.router.managed(route, self.cfg.get('rule'), self.pair[0], self.pair[1],
                                          self.cfg.get('header_route'))
            self.route_read = route, managed
        except RouteProblem as e:
            problems.append(str(e))
        except ApiError as e:
            problems.append('%s: %s' % (self.router.label(self.route_namespace, self.route['name']),
                                        'not found' if e.status == 404 else error_text(e)))
        try:
            self.canary = self.client.get(self.canary_path)
        except ApiError as e:
            if e.status != 404:
                raise
        if self.canary is not None:
            problems.extend(self._canary_problems())
        analysis = self.options.gates.analysis
        if analysis is not None and not problems:
            problems.extend('analysis %s' % p for p in analysis.probe())
        return problems

    def _tracks(self):
        """Per track, where the router sends its requests (router.Track), or a problem."""
        related = []
        for path, label in self.router.related(self.route_namespace, self.names):
            try:
                related.append(self.client.get(path))
            except ApiError as e:
                return None, '%s: %s' % (label, 'not found' if e.status == 404 else error_text(e))
        try:
            return self.router.tracks(self.route_namespace, self.names, related), None
        except RouteProblem as e:
            return None, str(e)

    def _track_problems(self, labels):
        """Each track's Service (and, for a subset, its labels) must select that track's pods only:
        the canary's pods carry ``labels``."""
        tracks, problem = self._tracks()
        if problem:
            return [problem]
        problems = []
        for track in ('stable', 'canary'):
            where = tracks[track]
            try:
                found = self.client.get(endpoints.service_path(self.namespace, where.service))
                selector = (found.get('spec') or {}).get('selector') or {}
            except ApiError as e:
                why = 'not found' if e.status == 404 else error_text(e)
                problems.append('Service %s/%s (%s): %s' % (self.namespace, where.service, where.option, why))
                continue
            chosen = dict(selector, **(where.labels or {}))
            if endpoints.selects(chosen, labels) != (track == 'canary'):
                problems.append(
                    '%s (%s) %s the canary\'s pods (labels %s; its selector %s): the %s %s must select the '
                    '%s track only, by the label %s' % (
                        where.text(self.namespace), where.option,
                        'selects' if track == 'stable' else 'does not select', _labels(labels),
                        _labels(chosen), track, 'subset' if where.labels else 'Service', track,
                        self.cfg['track_label']))
        return problems

    def _canary_problems(self):
        where = 'Deployment %s/%s' % (self.namespace, self.canary_name)
        want = rec.canary_selector((self.stable.get('spec') or {}).get('selector'), self.cfg['track_label'])
        if (self.canary.get('spec') or {}).get('selector') != want:
            return ['%s exists with another selector than the canary\'s (%s): delete it or rename the stable '
                    'Deployment' % (where, _labels(want.get('matchLabels') or {}))]
        record, problem = rec.parse(self.canary)
        how = release_record.clear_command(Deployment(self.canary), release_record.TRAFFIC_ANNOTATION)
        if problem:
            self.suggest(how)
            return ['%s carries a %s record that is not acted on (%s): check the route and the canary, then '
                    'remove it with %s' % (where, release_record.TRAFFIC_ANNOTATION, problem, how)]
        if record is not None and record['id'] != self.id and self.options.recover is None:
            self.suggest(setting('recover', 'rollback'))
            return ['%s carries the traffic canary of release %s (started %s by %s, %s): run that task '
                    'again to go on, or this one with %s to roll it back (or remove the record with %s)'
                    % (where, record['id'], record.get('started'), lease_mod.runner_text(record),
                       rec.step_text(record['step']), setting('recover', 'rollback'), how)]
        if record is not None and record['id'] == self.id and self.options.recover is None:
            # Its step decides where this run goes on: only from a record the operator sealed.
            try:
                lease = self._lease_of().read()
            except KubeError as e:
                return ['%s: the seal of its %s record could not be read (%s)'
                        % (where, release_record.TRAFFIC_ANNOTATION, error_text(e))]
            text = self.canary['metadata']['annotations'][release_record.TRAFFIC_ANNOTATION]
            unsealed = records.unsealed(lease, self.canary, release_record.TRAFFIC_ANNOTATION, text)
            if unsealed:
                self.suggest(setting('recover', 'rollback'))
                return ['%s carries a %s record that is not acted on: %s. No step is taken from it: roll '
                        'the canary back (%s), or check the route and the canary and remove the record '
                        'with %s' % (where, release_record.TRAFFIC_ANNOTATION, unsealed,
                                     setting('recover', 'rollback'), how)]
        self.record = record
        return []


def _labels(labels):
    return ','.join('%s=%s' % kv for kv in sorted(labels.items())) or '(none)'

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A canary measured in traffic: ``rollout_release`` with ``traffic``, a release strategy.

For each step (``{weight, pause, analysis}``): the canary Deployment (``traffic/record.py``) scaled
to ceil(weight x replicas / 100) and rolled out, then the weight (``traffic.Shift``: one guarded
patch of the route, the gateway's verdict, the endpoints), then the pause (seconds, or ``next_run``:
the task ends there and the next run of the same task goes on, an AWX approval node between them),
during which the analysis checks are measured.

Promotion, as Flagger does it but as one release: the canary at full size and weight 100, the stable
Deployment given the new images through the plain release (``release.Release``: preflight, wait,
soak, put back on failure), the weight back to the stable Service, the canary scaled to 0 with its
record removed. Rollback (a failed step, or ``recover: rollback``): weight 0 and the header route
removed in one patch first, so the traffic is back at once, then the canary scaled to 0 with its
record removed; if the gateway does not confirm the route, the canary keeps its pods.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

from ansible_collections.kubeops.rollout.plugins.module_utils.common.vocabulary import setting
from ansible_collections.kubeops.rollout.plugins.module_utils.common import times
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import (
    ApiError,
    KubeError,
    error_text,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.engine import lease as lease_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.engine import records
from ansible_collections.kubeops.rollout.plugins.module_utils.engine.rollouts import Engine, Rollout
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import patches, revisions
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers.table import router
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.patches import (
    JSON_PATCH,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workloads import Deployment
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import record as release_record
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.traffic import record as rec
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.traffic.preflight import Preflight
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.lifecycle import Lifecycle
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release.release import Release
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release.targets import (
    ROLLED_BACK,
    UNCHANGED,
    UNTOUCHED,
    UPGRADED,
    RERUN,
    WAIT,
    ReleaseResult,
    Target,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.traffic.step import (
    Shift,
    TrafficFailed,
    TrafficOptions,
)

NEXT_RUN = 'next_run'
# The Lease one run of a traffic canary holds while it works (then the release's own, for the promotion).
LEASE_PREFIX = 'kubeops-traffic-'


class StepFailed(Exception):
    pass


class TrafficCanary(Preflight, Lifecycle):
    """The traffic canary of one Deployment target (release_targets.Target) with ``options``
    (ReleaseOptions, whose ``traffic`` is the task's option)."""

    def __init__(self, client, targets, options, progress=None, note=None, clock=None, sleep=None):
        import time
        self.client = client
        self.targets = targets
        self.t = targets[0]
        self.options = options
        self.cfg = options.traffic
        self.progress = progress or (lambda line: None)
        self.note = note or (lambda line: None)
        self.clock = clock or time.monotonic
        self.sleep = sleep or time.sleep
        self.warnings = []
        self.lines = []
        self.namespace = self.t.namespace
        self.route = self.cfg['route']
        self.route_namespace = self.route.get('namespace') or self.namespace
        self.router = router(self.cfg.get('router'))  # the traffic router (kinds/routers/)
        # The traffic option as the router reads it (router.py), and the keys of its two destinations.
        self.names = {'route': {'namespace': self.route_namespace, 'name': self.route['name']},
                      'rule': self.cfg.get('rule'), 'stable_service': self.cfg['stable_service'],
                      'canary_service': self.cfg.get('canary_service') or self.cfg['stable_service'],
                      'header_route': self.cfg.get('header_route'),
                      'destination_rule': self.cfg.get('destination_rule')}
        self.pair = self.router.pair(self.names)
        self.id = options.release_id or release_record.release_id(targets)
        if options.gates.analysis is not None:  # job checks label their Jobs with the release
            options.gates.analysis.label(self.id)
        self.runner = lease_mod.holder_identity()
        self.started = times.rfc3339_now()
        self.canary_name = rec.canary_name(self.t.name)
        self.canary_path = Deployment.object_path(self.namespace, self.canary_name)
        self.route_read = None  # (the route as the preflight read it, its managed rules)
        self.engine = Engine(client, options.gates, self.progress, clock=self.clock, sleep=self.sleep,
                             note=note)
        self.stable = None  # the stable Deployment as read
        self.canary = None  # the canary Deployment as last read or written (None: none yet)
        self.record = None
        self.lease = None
        self.unsealed = set()  # seal keys of the records this run removed
        self.wrote = False  # something was written (in check mode: would be)
        self.steps = []  # what each step did (the result's traffic.steps)
        self.route_diff = None  # the route before this run's first shift and after its last (--diff)
        self.traffic = {'canary': self.canary_name, 'route': {'namespace': self.route_namespace,
                                                              'name': self.route['name']},
                        'steps': self.steps, 'phase': None}

    # -- reads and checks before any write
    def _released(self):
        template = self.t.workload.template
        return revisions.templates_equal(patches.imaged_template(template, self.t.images), template)

    # -- the canary Deployment
    def _record(self, step, passed=False):
        route = '%s/%s' % (self.route_namespace, self.route['name'])
        return rec.record_text(self.id, self.t.images, step, route, self.runner, self.started, passed)

    def scale(self, replicas, step, passed=False, done=False):
        """The canary's template, ``replicas`` and record (removed with ``done``) in one request;
        then wait for its rollout."""
        record = None if done else self._record(step, passed)
        check = self.options.check_mode
        if self.canary is not None:
            self._seal(self.canary, record)
        if self.canary is None:
            if done:
                return
            body = rec.canary_body(self.stable, self.namespace, replicas, self.t.images,
                                   self.cfg['track_label'], record)
            try:
                answer = self.client.create(Deployment.collection_path(self.namespace), body, dry_run=check,
                                            retry=True)
            except ApiError as e:
                if e.status != 409:
                    raise
                # A repeat after a lost answer: the canary is this run's when it carries this record.
                answer = self.client.get(self.canary_path)
                if rec.parse(answer)[0] is None or rec.parse(answer)[0]['id'] != self.id:
                    raise StepFailed('Deployment %s/%s was created by someone else meanwhile: check it, then '
                                     'run again' % (self.namespace, self.canary_name))
            if not check:
                # Its uid is known only now: sealed at once (a kill in between leaves a record whose
                # way out is named: recover: rollback)
                self._seal(answer, record)
        else:
            ops = rec.canary_patch(self.canary, self.template, replicas, record)
            if not ops:
                return self._await(self.canary, replicas)
            try:
                answer = self.client.patch(self.canary_path, ops, JSON_PATCH, dry_run=check, retry=True)
            except ApiError as e:
                if not e.is_conflict:
                    raise
                # A lost answer's write is in place, or someone else changed the canary: decide again.
                self.canary = self.client.get(self.canary_path)
                if rec.canary_patch(self.canary, self.template, replicas, record):
                    raise StepFailed('Deployment %s/%s changed while this run wrote it: run again'
                                     % (self.namespace, self.canary_name))
                answer = self.canary
        self.wrote = True
        if not check:
            self.canary = answer
        self.progress('Deployment %s/%s: %d replicas' % (self.namespace, self.canary_name, replicas))
        return self._await(answer, replicas)

    def _await(self, obj, replicas):
        if self.options.check_mode or replicas == 0:
            return
        w = Deployment(obj)
        status = self.engine.watch(Rollout(w, obj, written=True), w.rollout_status, self.options.timeout)
        if not status.done:
            raise StepFailed('Deployment %s/%s did not roll out its %d replicas: %s'
                             % (self.namespace, self.canary_name, replicas, status.message))
        self.canary = self.engine_last(obj)

    def engine_last(self, obj):
        try:
            return self.client.get(self.canary_path)
        except KubeError:
            return obj

    # -- the route
    def shift(self, weight, header=True):
        header_route = self.cfg.get('header_route')
        if header_route:
            header_route = dict(header_route, state='present' if header and weight > 0 else 'absent')
        options = TrafficOptions(self.route_namespace, self.route['name'], self.names['stable_service'],
                                 self.names['canary_service'], weight, self.cfg.get('rule'), header_route,
                                 self.options.timeout, self.options.check_mode, self.router.name,
                                 self.cfg.get('destination_rule'), self.cfg.get('settle_seconds'))
        step = Shift(self.client, options, progress=self.progress, clock=self.clock, sleep=self.sleep)
        out = step.run()
        self.warnings.extend(step.warnings)
        self.wrote = self.wrote or out['changed']
        # Each shift sets the weights and the header route whole: in check mode, each planned from the
        # route as read, the last one's "after" is the route as the real run leaves it.
        if self.route_diff is None:
            self.route_diff = dict(out['diff'])
        self.route_diff['after'] = out['diff']['after']
        return out

    # -- steps
    def replicas(self):
        return int((self.stable.get('spec') or {}).get('replicas', 1))

    def first_step(self):
        if self.record is None or self.record['id'] != self.id:
            return 0
        if self.record['step'] == rec.PROMOTE:
            return len(self.cfg['steps'])
        return self.record['step'] + (1 if self.record.get('passed') else 0)

    def share_text(self, weight):
        """The canary's share of the route's traffic at ``weight``: ``10%``, or, where a rule has other
        backends beside the pair, the weight of the total, with the share it is (``weight 50 of 120
        (42%)``), as the route read at the start holds them."""
        if self.route_read is None:
            return '%d%%' % weight
        route, managed = self.route_read
        texts = []
        for mine, total in self.router.shares(route, managed, self.pair[0], self.pair[1], weight):
            text = '%d%%' % weight if total == 100 else 'weight %d of %d (%d%%)' % (
                mine, total, int(round(100.0 * mine / total)))
            if text not in texts:
                texts.append(text)
        return ', '.join(texts) or '%d%%' % weight

    def take(self, index, step):
        weight = step['weight']
        replicas = rec.replicas_for(weight, self.replicas())
        entry = {'step': index + 1, 'weight': weight, 'replicas': replicas}
        self.steps.append(entry)
        where = self.router.label(self.route_namespace, self.route['name'])
        self.note('%sstep %d: %s to %d replicas, %s of %s' % (
            'would take ' if self.options.check_mode else '', index + 1, self.canary_name, replicas,
            self.share_text(weight), where))
        self.scale(replicas, index)
        shifted = self.shift(weight)
        entry['changed'] = shifted['changed']
        pause = step.get('pause')
        if self.options.check_mode:  # the analysis is measured by the real run only
            entry['outcome'] = 'planned'
            return pause != NEXT_RUN
        seconds = 0 if pause in (None, NEXT_RUN) else float(pause)
        gate = self.options.gates.analysis
        if gate is not None and step.get('analysis', True):
            if not gate.run(seconds, sleep=self.sleep):
                entry['outcome'] = 'failed'
                raise StepFailed('step %d (%d%%): %s' % (index + 1, weight, gate.message))
        elif seconds:
            self.sleep(seconds)
        entry['outcome'] = 'passed'
        if pause == NEXT_RUN:
            self.scale(replicas, index, passed=True)
            return False
        return True

    def promote(self):
        self.note('%s: %s at full size and 100%%, then %s' % (
            'would promote' if self.options.check_mode else 'promotion', self.canary_name, self.t.label()))
        self.scale(self.replicas(), rec.PROMOTE)
        self.shift(100, header=False)
        if self.options.check_mode:
            self.shift(0, header=False)  # where the real run leaves the route: back on the stable Service
            return None
        options = copy.copy(self.options)
        options.traffic = None
        release = Release(self.client, self.targets, options, progress=self.progress, note=self.note)
        result = release.run()
        self.warnings.extend(result.warnings)
        self.wrote = self.wrote or result.changed
        if result.failed:
            return result
        self.shift(0, header=False)
        self.scale(0, rec.PROMOTE, done=True)
        return result

    def rollback(self, cause, refused=None):
        """Traffic back first (weight 0, header route gone, one patch), then the canary scaled down.
        Returns (done, message). ``refused``: in check mode, the gateway's refusal of the route that
        failed the step (its weight would be written, so the weight back would be refused too)."""
        verb = 'would roll back' if self.options.check_mode else 'rollback'
        self.note('%s: traffic back to Service %s/%s' % (verb, self.namespace, self.cfg['stable_service']))
        self.traffic['phase'] = 'aborted'
        try:
            if refused is not None:
                raise refused
            self.shift(0, header=False)
        except (TrafficFailed, KubeError) as e:
            text = e.message if isinstance(e, TrafficFailed) else error_text(e)
            self.suggest(setting('recover', 'rollback'))
            return False, ('%s; the rollback could not confirm the traffic back (%s): Deployment %s/%s keeps '
                           'its pods so that what the gateway still serves has endpoints; fix the route, '
                           'then run again with %s'
                           % (cause, text, self.namespace, self.canary_name, setting('recover', 'rollback')))
        try:
            self.scale(0, 'rollback', done=True)
        except (StepFailed, KubeError) as e:
            self.suggest(setting('recover', 'rollback'))
            return False, ('%s; traffic is back, but Deployment %s/%s could not be scaled down: %s; run '
                           'again with %s' % (cause, self.namespace, self.canary_name, e,
                                              setting('recover', 'rollback')))
        return True, '%s; %s: traffic back to Service %s/%s, %s scaled to 0' % (
            cause, verb if self.options.check_mode else 'rolled back', self.namespace,
            self.cfg['stable_service'], self.canary_name)

    def _put_back_promotion(self, message):
        """The promotion's release of the stable Deployment, written and not finished (its run
        died), put back as its sealed record says: the plain release with recover: rollback."""
        options = copy.copy(self.options)
        options.traffic, options.recover = None, 'rollback'
        targets = [Target(Deployment, self.t.name, self.namespace, dict(self.t.images), self.t.change_cause)]
        result = Release(self.client, targets, options, progress=self.progress, note=self.note).run()
        self.warnings.extend(result.warnings)
        self.wrote = self.wrote or result.changed
        if result.failed or targets[0].outcome != ROLLED_BACK:
            return False, ('%s; the promotion of %s was not put back: %s'
                           % (message, self.t.label(), result.message))
        return True, ('%s; the promotion of %s (interrupted after its release wrote it) was put back: it '
                      'runs what it ran before' % (message, self.t.label()))

    def _seal(self, canary, record):
        """The seal of ``record`` (None: the record goes) on ``canary`` (as read), on the Lease, before
        the write that carries it."""
        if self.lease is None or self.options.check_mode:
            return
        key = records.seal_key(canary)
        if record is None:
            self.unsealed.add(key)
            return
        self.unsealed.discard(key)
        self.lease.seal({key: records.digest(canary, release_record.TRAFFIC_ANNOTATION, record)})

    def _lease_of(self):
        return lease_mod.Lease(self.client, self.namespace, LEASE_PREFIX + self.id[2:],
                               'traffic canary %s' % self.id,
                               self.options.lease_seconds or release_record.LEASE_SECONDS,
                               identity=self.runner)

    def _acquire(self):
        """One runner at a time: the Lease ``kubeops-traffic-<id>`` beside the canary (it keeps the
        seal of the canary's record while there is one); a problem when another live run holds it."""
        self.lease = self._lease_of()
        try:
            self.lease.acquire(wait=False, timeout=0)
        except lease_mod.LeaseHeld as e:
            self.lease = None
            self.suggest(WAIT)
            return 'traffic canary %s is running elsewhere (%s): wait for it to end' % (self.id, e)
        except KubeError as e:  # refused (RBAC) or unreachable: the run is refused before any write
            lease, self.lease = self.lease, None
            return ('traffic canary %s could not take its Lease %s/%s (one run at a time): %s'
                    % (self.id, lease.namespace, lease.name, error_text(e)))
        self.lease.start_renewing()
        return None

    def _release_lease(self):
        self.lease = lease_mod.let_go(self.lease, 'traffic canary %s' % self.id, self.warnings,
                                      sorted(self.unsealed))

    # -- the whole (usecases/lifecycle.py runs it)
    def _interrupted(self):
        self.suggest(RERUN)
        self.t.outcome = UNTOUCHED
        where = 'step %d' % self.steps[-1]['step'] if self.steps else 'its start'
        message = ('traffic canary %s interrupted at %s; its record stays on Deployment %s/%s: '
                   'run the same task again to resume it, or with %s to roll it back '
                   '(traffic back to the stable Service first)'
                   % (self.id, where, self.namespace, self.canary_name, setting('recover', 'rollback')))
        return self._result(True, message, interrupted=True)

    def _run(self):
        problems = self.preflight()
        if problems:
            self.t.outcome = UNTOUCHED
            return self._result(True, 'release refused before any write: %s' % '; '.join(problems))
        nothing_to_do = self.record is None and (self.canary is None if self.options.recover == 'rollback'
                                                 else self._released())
        if not (self.options.check_mode or nothing_to_do):
            problem = self._acquire()
            if problem:
                self.t.outcome = UNTOUCHED
                return self._result(True, 'release refused before any write: %s' % problem)
        if self.options.recover == 'rollback':
            # A promotion interrupted after its release wrote the stable Deployment: put back too.
            promotion = release_record.text_of(self.stable) is not None
            if self.canary is None and not promotion:
                self.t.outcome = UNCHANGED
                return self._result(False, 'no traffic canary of %s to roll back' % self.t.label())
            cause = 'traffic canary of %s %s as asked: its images (%s) %s NOT released' % (
                self.t.label(), 'would be rolled back' if self.options.check_mode else 'rolled back',
                ', '.join('%s=%s' % kv for kv in sorted(self.t.images.items())),
                'would be' if self.options.check_mode else 'were')
            done, message = self.rollback(cause) if self.canary is not None else (True, cause)
            if done and promotion:
                done, message = self._put_back_promotion(message)
            self.t.outcome = ROLLED_BACK
            return self._result(not done, message)
        if self.record is None and self._released():
            self.t.outcome = UNCHANGED
            self.traffic['phase'] = 'released'
            return self._result(False, '%s runs the images already, no traffic canary in progress: nothing '
                                       'to do' % self.t.label())
        steps = self.cfg['steps']
        first = self.first_step()
        if first:
            self.note('%s traffic canary %s at step %d' % (
                'would resume' if self.options.check_mode else 'resuming', self.id, first + 1))
        try:
            for index in range(first, len(steps)):
                self.traffic['phase'] = 'step %d' % (index + 1)
                if not self.take(index, steps[index]):
                    self.t.outcome = UNCHANGED
                    self.traffic['phase'] = 'paused'
                    share = '%s to %s' % (self.share_text(steps[index]['weight']), self.pair[1])
                    if self.options.check_mode:
                        text = ('traffic canary %s: step %d of %d would be taken, then paused (%s); run the '
                                'same task again to go on' % (self.id, index + 1, len(steps), share))
                        self.note('canary would pause at step %d of %d until the next run'
                                  % (index + 1, len(steps)))
                    else:
                        text = ('traffic canary %s: paused at step %d of %d (%s, passed); run the same task '
                                'again to go on' % (self.id, index + 1, len(steps), share))
                        self.note('canary paused at step %d of %d until the next run'
                                  % (index + 1, len(steps)))
                    return self._result(False, text)
            self.traffic['phase'] = 'promotion'
            result = self.promote()
        except (StepFailed, TrafficFailed) as e:
            self.t.outcome = ROLLED_BACK
            refused = e if self.options.check_mode and getattr(e, 'refused', False) else None
            return self._result(True, self.rollback(getattr(e, 'message', None) or str(e), refused)[1])
        if self.options.check_mode:
            self.t.outcome = UPGRADED
            return self._result(False, 'traffic canary %s: would take %d steps, then promote'
                                % (self.id, len(steps) - first))
        if result.failed:
            self.t.outcome = ROLLED_BACK
            cause = 'promotion of %s failed: %s' % (self.t.label(), result.message)
            return self._result(True, self.rollback(cause)[1])
        self.traffic['phase'] = 'promoted'
        self.t.outcome = UPGRADED
        self.t.written = self.t.written or result.targets[0].written
        return self._result(False, 'traffic canary %s promoted: %s runs %s' % (
            self.id, self.t.label(), ', '.join('%s=%s' % kv for kv in sorted(self.t.images.items()))))

    def _result(self, failed, message, interrupted=False):
        if failed and self.t.cause is None and not interrupted:
            self.t.cause = message
        lines = ['step %d: %s to the canary, %d replicas: %s' % (
            s['step'], self.share_text(s['weight']), s['replicas'], s.get('outcome', 'interrupted'))
            for s in self.steps] + [message]
        return ReleaseResult(self.targets, failed, message, lines, self.warnings, self.options.check_mode,
                             interrupted, wrote=self.wrote,
                             fields={'traffic': self.traffic, 'route_diff': self._route_diff(),
                                     'next_step': self.next_step if failed else None})

    def _route_diff(self):
        """The route's before and after (each a view of the weights and the header route), when the
        run changes it (or, in check mode, would)."""
        d = self.route_diff
        return [d] if d is not None and d['before'] != d['after'] else None

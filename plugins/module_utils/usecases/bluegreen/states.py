# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Blue/green without a controller: two Deployments per app, one per color, and a live Service whose
selector names the color (``color_label``). ``BlueGreen(client, apps, options).run()`` brings every
app to the ``state`` asked, each state safe to repeat:

- ``prepared``: the idle color gets the live color's template with the new images, scaled to the
  live color's replicas (or ``preview_replicas``), the preview Service selects it; through the
  release's preflight, dry run, wait, soak and analysis (bluegreen/prepare.py). Live traffic untouched.
- ``switched``: prepared if needed; then, app by app in order, the checks (the new color complete
  with at least the live color's replicas, the preview's EndpointSlices ready with the Service's
  ports, the live selector as read), the switch (one guarded JSON patch of the selector and the
  record, switch.py), the wait until the live EndpointSlices route to exactly the new
  color's Ready pods, the HPA retargeted; then the soak and analysis of the new colors. Any failure
  switches back what this run switched (all with ``atomic``), in reverse order.
- ``finished``: once the record's ``scaleDownAt`` has passed, the color the Service left scaled to 0.
- ``rolled_back``: the Service back to the color it left (scaled up first when it has too few Ready
  pods: then not instant), the HPA back.
- ``adopted``: an app with one Deployment gets the color label on its pods (a rollout), the second
  color (0 replicas) and the color in its Service's selector, never without ready endpoints.

The state lives on the objects: the record on each live Service (bluegreen/record.py), the
release record on a preview being prepared (release/record.py), the release's Lease while a run works.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import threading
import time

from ansible_collections.kubeops.rollout.plugins.module_utils.common.vocabulary import setting
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import KubeError
from ansible_collections.kubeops.rollout.plugins.module_utils.engine import lease as lease_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.engine import records
from ansible_collections.kubeops.rollout.plugins.module_utils.engine.rollouts import Engine, Rollout
from ansible_collections.kubeops.rollout.plugins.module_utils.gates import health
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import revisions
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.services import (
    Service,
    colored_template,
    deployment_complete,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workloads import Deployment
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen import (
    adopt as bluegreen_adopt,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen import back as bluegreen_back
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen import (
    finish as bluegreen_finish,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen import record as record_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import record as release_record
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen.apps import (
    PREPARED, REFUSED, ROLLBACK_FAILED, ROLLED_BACK, SWITCHED, UNCHANGED, BlueGreenResult, images_text,
    judged, read_app, words,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen.prepare import Prepare
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.lifecycle import Lifecycle
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen.switch import (
    ChangedElsewhere, Stop, Traffic, check_switch, describe_routes,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release.record import take_lease
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release.targets import (
    RERUN,
    WAIT,
    ROLLBACK_FAILED as PUT_BACK_FAILED, ROLLED_BACK as PUT_BACK, UNTOUCHED, ReleaseOptions, Target,
    diff_of, managers,
)


class BlueGreen(Lifecycle):
    def __init__(self, client, apps, options, progress=None, note=None, clock=time.monotonic,
                 sleep=time.sleep, now=time.time, step=None):
        """``step``: what the state does (strategies.bluegreen_state; default: STATES[options.state])."""
        self.client = client
        self.apps = apps
        self.options = options
        self.progress = progress or (lambda line: None)
        self.note = note or (lambda line: None)
        self.clock, self.sleep, self.now = clock, sleep, now
        self.step = step or STATES[options.state]
        self.id = options.release_id or record_mod.release_id(apps)
        if options.gates.analysis is not None:  # job checks label their Jobs with the release
            options.gates.analysis.label(self.id)
        self.runner = lease_mod.holder_identity()
        self._stop = threading.Event()
        self.engine = Engine(client, options.gates, self.progress, clock=clock, sleep=sleep,
                             stopped=self._stop.is_set, note=note)
        self.lease_name = lease_mod.lease_name(release_record.LEASE_PREFIX, self.id)
        self.traffic = Traffic(client, options, self.id, self.runner, self._seal, clock=clock,
                               sleep=sleep, now=now, stopped=self._stop.is_set, note=note)
        self.warnings = []
        self.lines = []
        self.lease = None
        self.replaced = []  # (release, seal key): seals of records this run's records replaced
        self.interrupted = False

    @property
    def label(self):
        return self.options.color_label

    # -- the whole (usecases/lifecycle.py runs it)
    def _stopping(self):
        self._stop.set()
        self.interrupted = True
        self.suggest(RERUN)

    def _interrupted(self):
        return self._result()

    def _run(self):
        try:
            self._state()
        except Stop:
            pass
        except (KubeError, ChangedElsewhere) as e:  # a request that failed where no app could take it
            for a in self.apps:
                if a.outcome is None:
                    a.outcome = SWITCHED if a.switched else REFUSED
                    a.cause = a.cause or words(e)
        return self._result()

    def _state(self):
        problems = self.read_all()
        if problems:
            for a in self.apps:
                a.outcome = REFUSED
                a.cause = a.cause or 'refused before any write: see the other apps'
            self.lines = ['refused before any write, nothing was changed:'] + ['  ' + p for p in problems]
            self.refusal = 'blue/green refused before any write: ' + '; '.join(problems)
            return
        self.step(self)

    def read_all(self):
        problems = []
        adopting = self.options.state == 'adopted'
        for a in self.apps:
            found = read_app(self.client, a, self.label, adopting)
            problems.extend(found)
            if found or a.service is None:
                continue
            for manager in managers(a.service.obj):
                self.warnings.append(
                    '%s is managed by %s: its next sync or upgrade will put its selector back and send the '
                    'traffic to the color it names; switch through %s instead, or expect the switch to be '
                    'undone' % (a.label(), manager, manager.split(' (')[0]))
            if a.active is None and not adopting:
                problems.append('%s selects no color (its selector has no %s): adopt the app first (%s)'
                                % (a.label(), self.label, setting('state', 'adopted')))
                continue
            a.record, problem = record_mod.check(a.service, self.label)
            if a.record is not None:
                problem = release_record.verify(self.client, self.apps[0].namespace, a.service,
                                                a.record['release'], record_mod.ANNOTATION)
                a.record = None if problem else a.record
            if problem:
                self.suggest(record_mod.clear(a.service))
                problems.append('%s carries a %s record that is not acted on: %s. Check the Service selects '
                                'what you want, then remove the record: %s'
                                % (a.label(), record_mod.ANNOTATION, problem, record_mod.clear(a.service)))
            elif a.record is not None and a.record['phase'] == record_mod.SWITCHING:
                problems.extend(self._in_flight(a))
        return problems

    def _in_flight(self, a):
        """An app whose switch was not verified: resumed by the same release (or ``recover``), else
        refused."""
        record = a.record
        holder = release_record.live_holder(
            self.client, self.apps[0].namespace, record['release'],
            self.options.lease_seconds or release_record.LEASE_SECONDS)
        if holder is not None:
            self.suggest(WAIT)
            return ['%s: the switch of release %s is in progress (%s): wait for it to end' % (
                a.label(), record['release'], holder)]
        if self.options.state == 'rolled_back' or self.options.recover is not None \
                or record['release'] == self.id:
            a.resumed = True
            return []
        self.suggest(setting('recover', 'rollback'))
        return ['%s: the switch of release %s to %s (at %s) was not verified: its runner stopped. Resume '
                'it (%s with %s) or switch back (%s, or %s)'
                % (a.label(), record['release'], record['to'], record['switchedAt'],
                   setting('state', 'switched'), setting('recover', 'resume'),
                   setting('state', 'rolled_back'), setting('recover', 'rollback'))]

    # -- prepared
    def prepared(self):
        todo = self._to_release()
        self._prepare(todo)
        for a in todo:
            if a.outcome is None:
                a.outcome = PREPARED if a.changed else UNCHANGED

    def _to_release(self):
        """The apps whose live color does not run the images yet (the others: unchanged)."""
        todo = []
        for a in self.apps:
            if a.resumed:
                continue
            if a.runs_images(a.active):
                a.outcome = UNCHANGED
                self.lines.append('%s: the live color %s runs these images already' % (a.label(), a.active))
            else:
                todo.append(a)
        return todo

    def _prepare(self, todo):
        """The previews of ``todo``: preview Services select the idle color, then the Prepare release.
        Raises Stop when it fails (the previews are put back; live traffic was never touched)."""
        refused = [(a, bluegreen_back.way_back_refusal(a)) for a in todo]
        refused = [(a, why) for a, why in refused if why]
        if refused:
            self.suggest(setting('state', 'finished'))
            for a, why in refused:
                a.outcome, a.cause = REFUSED, why
            self.lines.extend(why for _a, why in refused)
            self.not_reached('not prepared: another app was refused')
            raise Stop()
        for a in todo:
            if a.preview is not None and a.preview.color(self.label) != a.idle:
                wanted = dict(a.preview.selector, **{self.label: a.idle})
                a.preview_before = self.traffic.select_preview(a, wanted)
        targets = []
        for a in todo:
            active = a.deployment(a.active)
            cause = self.options.change_cause or 'rollout_bluegreen: ' + ', '.join(
                '%s=%s' % kv for kv in sorted(a.images.items()))
            t = Target(Deployment, a.names[a.idle], a.namespace, a.images, cause)
            t.app, t.base = a, colored_template(active.template, self.label, a.idle)
            t.replicas = self.options.preview_replicas if self.options.preview_replicas is not None \
                else (active.replicas or 0)
            targets.append(t)
        if not targets:
            return
        o = self.options
        options = ReleaseOptions(o.atomic, o.timeout, gates=o.gates, check_mode=o.check_mode,
                                 release_id=self.id, recover=o.recover, lease_seconds=o.lease_seconds)
        prepare = Prepare(self.client, targets, options, progress=self.progress, note=self.note,
                          clock=self.clock, sleep=self.sleep)
        prepare.runner = self.runner
        result = prepare.run()
        if result.failed:
            self.suggest(result.fields.get('next_step'))
        judged([t.app for t in targets], o.gates.analysis, 'preview')
        self.warnings.extend(result.warnings)
        for t in targets:
            a = t.app
            if t.patch is not None and t.workload is not None:
                before, after = diff_of(t, hidden=(release_record.RECORD_ANNOTATION,))
                before['spec']['replicas'], after['spec']['replicas'] = t.workload.replicas, t.replicas
                a.diffs.append(('preview %s' % t.label(), before, after))
                a.step('%s: the live template with %s and %d replicas' % (
                    t.label(), ', '.join('%s=%s' % kv for kv in sorted(a.images.items())), t.replicas))
            a.changed = a.changed or bool(t.write_sent or t.would_change)
            a.preview_status = t.status
            a.preview_written = t.written is not None or t.resumed
            if t.written is not None:
                a.judged = Deployment(t.written)
            elif t.workload is not None and not t.resumed:
                a.preview_read = t.workload  # read by the preview's preflight just now
            if t.cause:
                a.cause = 'preview %s: %s' % (t.label(), t.cause)
                a.outcome = {PUT_BACK: ROLLED_BACK, PUT_BACK_FAILED: ROLLBACK_FAILED, UNTOUCHED: REFUSED}.get(
                    t.outcome, REFUSED)
        if result.interrupted:
            raise KeyboardInterrupt()
        if result.failed:
            for t in targets:  # a preview put back: its Service too, to what it selected before
                if t.outcome == PUT_BACK and t.app.preview_before is not None:
                    self.traffic.put_back_preview(t.app, self.warnings)
            self.lines.extend(result.lines)
            refused = [p.strip() for p in result.lines[1:]] if result.lines[:1] == [
                'preflight failed, nothing was changed:'] else []
            for t in targets:  # refused before any write: the preview's own cause, never "another"
                mine = [p for p in refused if t.label() in p]
                # A problem naming no preview (another run holds the release's Lease) is every one's.
                mine = mine or [p for p in refused if not any(x.label() in p for x in targets)]
                if t.app.cause is None and mine:
                    t.app.outcome, t.app.cause = REFUSED, 'preview ' + '; '.join(
                        p if p.startswith(t.label()) else '%s: %s' % (t.label(), p) for p in mine)
            self.not_reached('not switched: another preview failed')
            raise Stop()

    # -- switched
    def switched(self):
        resumed = [a for a in self.apps if a.resumed]
        if self.options.recover == 'rollback':
            for a in self.apps:
                if a not in resumed:
                    a.outcome = UNCHANGED
            self.take_lease()
            self._switch_back(list(resumed), 'put back as asked (%s)' % setting('recover', 'rollback'))
            for a in resumed:
                if a.outcome == ROLLED_BACK:
                    a.detail = bluegreen_back.not_released(a, self.options.check_mode)
            return
        todo = self._to_release()
        self._prepare(todo)
        if self.options.check_mode:
            self.take_lease()
            for a in todo:
                self._check_switch(a)
            for a in resumed:
                a.outcome = SWITCHED
            return
        self.take_lease()
        gated = [a for a in todo if not getattr(a, 'preview_written', False)]
        self._gate(gated, 'the preview', switched=False)
        for a in resumed:
            a.active_before = a.record['from']
            self.note('%s: resuming the switch of release %s to %s'
                      % (a.label(), a.record['release'], a.active))
            if a.record['release'] != self.id and a.images and not a.runs_images(a.active):
                self.warnings.append(
                    '%s: the switch of release %s to %s was resumed as it was; the images of this task (%s) '
                    'were not released: run the task again (without recover) to release them'
                    % (a.label(), a.record['release'], a.active,
                       ', '.join('%s=%s' % kv for kv in sorted(a.images.items()))))
        failed = None
        done = list(resumed)
        for a in todo:
            try:
                self._switch_one(a)
            except (KubeError, ChangedElsewhere) as e:
                a.cause = a.cause or words(e)
                a.outcome = a.outcome or (None if a.switched else REFUSED)
            if a.switched:
                done.append(a)
            if a.cause:
                failed = a
                break
        if failed is None:
            for a in resumed:  # a switch an earlier run made: its traffic and its HPA
                self._await(a, a.active, self._needed(a))
                if a.cause is None and a.hpa is not None and a.hpa.target == a.names[a.active_before]:
                    self.traffic.retarget(a, a.names[a.active_before], a.names[a.active])
            failed = next((a for a in done if a.cause), None)
        if failed is None:
            self._gate(done, 'the switched traffic', switched=True)
            failed = next((a for a in done if a.cause), None)
        if failed is not None:
            chosen = done if self.options.atomic else [a for a in done if a.cause]
            self.not_reached('not switched: %s failed first' % failed.label())
            self._switch_back(chosen, 'switched back because the release failed')
            return
        for a in done:
            self.traffic.mark(a, record_mod.SWITCHED)
            a.outcome = SWITCHED
            a.changed = True
            a.scale_down_at = record_mod.check(a.service, self.label)[0]['scaleDownAt']
            self.note('%s: switched to %s; %s may be scaled down from %s (%s)' % (
                a.label(), a.active, a.active_before, a.scale_down_at, setting('state', 'finished')))

    def _needed(self, a):
        """The live color's current replicas: how many Ready pods the new color must have."""
        live = Deployment(self.client.get(a.deployment(a.active_before).path))
        return live.replicas or 0

    def unsafe(self, a, new, needed=None, preview_seen=None, fresh_service=True):
        """Why ``a`` must not switch to ``new`` now, as a list; empty: safe. The new color is read
        fresh (it must be the template its preview judged); ``needed`` (the live color's replicas)
        and ``preview_seen`` (what the preview routes to) when just measured; the live Service read
        again with ``fresh_service`` (check mode: the real run's patch is guarded by it instead)."""
        reasons = []
        if fresh_service:
            live = Service(self.client.get(a.service.path))
            if live.selector != a.service.selector or live.annotations.get(record_mod.ANNOTATION) != \
                    a.service.annotations.get(record_mod.ANNOTATION):
                reasons.append('the live Service changed since it was read (selector %s)' % live.selector)
        needed = self._needed(a) if needed is None else needed
        d = Deployment(self.client.get(a.deployment(new).path))
        a.deployments[new] = d
        why = deployment_complete(d.obj, needed)
        blocked = health.blocked_now(self.client, d) if why else None
        if why:  # a cause its pods cannot get past (the early stop's) is named; else the wait may tell
            reasons.append(blocked or '%s is not ready: %s' % (d.label(), why))
            a.waiting.extend([] if blocked else reasons[-1:])
        judged = getattr(a, 'judged', None)
        if judged is not None and not revisions.templates_equal(judged.template, d.template):
            reasons.append('%s is no longer what its preview judged: its pod template changed since (images '
                           '%s, judged %s); prepare it again'
                           % (d.label(), images_text(d), images_text(judged)))
        if a.preview is not None:
            seen = preview_seen or self.traffic.routes(a.preview, new, needed)
            a.preview_endpoints = seen
            if not seen['exact']:
                reasons.append('the preview %s does not route to exactly %d Ready %s pods: %s' % (
                    a.preview.label(), needed, new, describe_routes(seen)))
                a.waiting.append(reasons[-1])
        if a.hpa is not None and a.hpa.target not in (a.names[a.active], a.names[new]):
            reasons.append('HPA %s scales %s, neither color' % (a.hpa_name, a.hpa.target))
        return reasons

    def hpa_record(self, a, to_color):
        if a.hpa is None:
            return None
        return {'name': a.hpa_name, 'from': a.hpa.target, 'to': a.names[to_color]}

    def _switch_one(self, a):
        new = a.idle
        needed = self._needed(a)
        d = a.deployment(new)
        if (d.replicas or 0) < needed:  # a smaller preview grows to the live color's size first
            self.traffic.scale(a, new, needed)
            result = self.engine.wait_one(Rollout(a.deployment(new), label=a.deployment(new).label()),
                                          self.options.timeout)
            if not result.done:
                a.cause = '%s did not scale up to %d: %s' % (
                    a.deployment(new).label(), needed, result.message)
                return
        # A Deployment's annotations bump its generation (the record's removal too): the controller
        # observes it, then the preview's endpoints follow after the endpoint lag. Waited for from
        # the newest copy this run has (the preview's write or the gate's read), by a watch.
        d = getattr(a, 'judged', None) or Deployment(self.client.get(a.deployment(new).path))
        result = self.engine.wait_one(Rollout(d, label=d.label()), self.options.timeout)
        if not result.done:
            a.outcome, a.cause = REFUSED, 'not switched: %s is not ready: %s' % (d.label(), result.message)
            return
        seen = None
        if a.preview is not None:
            seen, _why = self.traffic.await_routes(a, new, needed, self.options.timeout, service=a.preview)
        # The live Service is not read again: the switch's patch is guarded by it as read.
        reasons = self.unsafe(a, new, needed, preview_seen=seen, fresh_service=False)
        if reasons:
            a.outcome, a.cause = REFUSED, 'not switched: ' + '; '.join(reasons)
            return
        self.traffic.switch(a, new, record_mod.SWITCHING, hpa=self.hpa_record(a, new))
        a.switched, a.active = True, new
        self.note('%s: selector switched to %s=%s' % (a.label(), self.label, new))
        self._await(a, new, needed)
        if a.cause is None and a.hpa is not None:
            self.traffic.retarget(a, a.names[a.active_before], a.names[new])

    def _await(self, a, color, needed):
        seen, why = self.traffic.await_routes(a, color, needed, self.options.timeout)
        a.endpoints = seen
        judged = getattr(a, 'judged', None)
        if not why and judged is not None:
            # The pods behind the live EndpointSlices run the template that was judged, no other.
            want = revisions.container_images(judged.template)[0]
            other = sorted(name for name, images in seen.get('images', {}).items() if images != want)
            if other:
                why = ('the pods it routes to do not all run the judged images (%s): %s'
                       % (images_text(judged), ', '.join(other[:5])))
        if why:
            a.cause = a.cause or '%s: after the switch to %s, %s' % (a.label(), color, why)
        else:
            self.note('%s: routes to exactly the %d Ready %s pods (%.2f s after the switch)' % (
                a.label(), len(seen['ready']), color, seen['seconds']))

    def _gate(self, apps, what, switched):
        """The soak and analysis of each app's active (``switched``) or idle color; a failure is the
        app's cause."""
        if not apps or not (self.options.gates.soaks or not switched):
            return
        rollouts = []
        for a in apps:
            color = a.active if switched else a.idle
            fresh = None if switched else getattr(a, 'preview_read', None)
            d = fresh or Deployment(self.client.get(a.deployment(color).path))
            if not switched:
                a.judged = d
            rollouts.append(Rollout(d, written=switched, label='%s (%s, %s)' % (d.label(), color, what)))
        self.engine.watch_all(rollouts, self.options.timeout)
        judged(apps, self.options.gates.analysis, 'live' if switched else 'preview')
        for a, r in zip(apps, rollouts):
            if not r.result.done:
                a.cause = a.cause or '%s: %s' % (r.label, r.result.message)

    def _check_switch(self, a):
        check_switch(self, a)

    # -- back (usecases/bluegreen/back.py)
    def _switch_back(self, apps, cause):
        bluegreen_back.switch_back(self, apps, cause)

    # -- the Lease and the result
    def _seal(self, obj, annotation, *texts):
        """Before a record is written on ``obj``: the seals of its ``texts`` (the record, and the
        phase it will be marked in next) on this release's Lease (taken if need be), in one write
        unless they are there already; the seal of the record it replaces, of another release, goes
        when this run ends."""
        if self.options.check_mode:
            return
        self.take_lease()
        key = records.seal_key(obj)
        digests = [records.digest(obj, annotation, text) for text in texts]
        if set(digests) - set(records.seals_of(self.lease.obj).get(key, [])):
            self.lease.seal({key: digests})
        old = ((obj.get('metadata') or {}).get('annotations') or {}).get(annotation)
        replaced = record_mod.parse(old)[0] if old else None
        if replaced is not None and replaced['release'] != self.id:
            self.replaced.append((replaced['release'], records.seal_key(obj)))

    def take_lease(self):
        """This release's Lease (in check mode, read only: refused as the real run is refused)."""
        if self.lease is not None:
            return
        namespace = self.apps[0].namespace
        if self.options.check_mode:
            problem = release_record.held_problem(self.client, namespace, self.lease_name, self.id,
                                                  self.options.lease_seconds, self.runner)
        else:
            self.lease, problem = take_lease(self.client, namespace, self.lease_name, self.id,
                                             self.options.lease_seconds, self.runner)
        if problem:
            if problem.endswith(release_record.WAIT_WORDS):
                self.suggest(WAIT)
            for a in self.apps:
                a.outcome, a.cause = REFUSED, problem
            raise Stop()

    def _release_lease(self):
        self.lease = lease_mod.let_go(self.lease, 'release %s' % self.id, self.warnings)
        for release, key in self.replaced:
            release_record.drop_seal(self.client, self.apps[0].namespace, release, key, self.warnings)
        self.replaced = []

    def not_reached(self, cause):
        for a in self.apps:
            if a.outcome is None:
                a.outcome, a.cause = UNCHANGED, a.cause or cause

    def _result(self):
        return BlueGreenResult(self)


# What each state does (a function of the run), as canary.PHASES are the canary's phases;
# strategies.bluegreen_state chooses one.
STATES = {
    'prepared': BlueGreen.prepared,
    'switched': BlueGreen.switched,
    'rolled_back': bluegreen_back.rolled_back,
    'finished': bluegreen_finish.finish,
    'adopted': bluegreen_adopt.adopt_all,
}

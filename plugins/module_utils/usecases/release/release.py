# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A release: new images for several workloads as one transaction, on the rollout engine.

1. Preflight, before any write: each workload is read, is a rollout kind, not paused, has the
   containers named, and its patch passes a server-side dry run (Helm or Argo CD owners: a warning).
   Any failure: no write, one message listing every problem.
2. Write all (guarded, safe to repeat), keeping each template and change-cause as read in 1.
3. Wait for all at once (engine/rollouts.py), then, if anything was written, soak and analyse.
4. On any failure in 2-3: put back (every written workload with ``atomic``, else the failed ones)
   the exact template and change-cause read in 1, by a JSON patch guarded by the generation of the
   release's own write; a repeat after a lost answer finds the template back and stops, a write by
   anyone else since is never overwritten. Stuck StatefulSet pods are replaced.

``Release`` is the plain strategy; a canary's phases (usecases/release/canary.py) are strategies too, each a
subclass that answers the hooks (``refusal``, ``patch_of``, ``owns``, ``rollout_of``, ``restore_patch``,
``restored``, ``finish``, ``words``); ``strategies.strategy(options)`` chooses one, once.
``Release(client, targets, options).run()`` returns a ``ReleaseResult``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import threading
import time

from ansible_collections.kubeops.rollout.plugins.module_utils.common.vocabulary import setting
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import (
    ApiError, KubeError, error_text)
from ansible_collections.kubeops.rollout.plugins.module_utils.common import times
from ansible_collections.kubeops.rollout.plugins.module_utils.engine import lease as lease_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.engine import records
from ansible_collections.kubeops.rollout.plugins.module_utils.engine.rollouts import Engine, Rollout, fan_out
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import patches, revisions
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import status as status_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.patches import (
    CHANGE_CAUSE_ANNOTATION,
    UnknownContainer,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import predict
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import record as release_record
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.lifecycle import Lifecycle
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release.targets import (
    CHANGED_ELSEWHERE,
    NOT_COMING_UP,
    ROLLBACK_FAILED,
    ROLLED_BACK,
    STILL_RECORDED,
    UNCHANGED,
    UNTOUCHED,
    UPGRADED,
    RERUN,
    WAIT,
    ReleaseResult,
    changed_since_read,
    read_again,
    finishing_step,
    refused_result,
    failure_message,
    how_to_finish,
    interrupted_message,
    managers,
    outcome_text,
    read_targets,
    still_to_do,
)


class Release(Lifecycle):
    """The plain release of ``targets`` (release_targets.Target) with ``options`` (ReleaseOptions)."""
    record_fields = None  # more fields of each record this strategy writes (a fleet's: fleet.py)

    def __init__(self, client, targets, options, progress=None, clock=time.monotonic, sleep=time.sleep,
                 note=None):
        self.client = client
        self.targets = targets
        self.options = options
        self.progress = progress or (lambda line: None)  # kubectl's lines, at -v
        self.note = note or (lambda line: None)  # what an operator follows, at every verbosity
        self.clock = clock
        self.sleep = sleep
        self.warnings = []
        self._stop = threading.Event()
        self.engine = Engine(client, options.gates, self.progress, clock=clock, sleep=sleep,
                             stopped=self._stop.is_set, note=note)
        self._rollouts = {}  # id(target) -> the Rollout of its wait
        self.id = options.release_id or release_record.release_id(targets)
        getattr(options.gates.analysis, 'label', lambda release: None)(self.id)  # Jobs carry the release id
        self.runner = lease_mod.holder_identity()
        self.started = times.rfc3339_now()
        self.lease = None  # the Lease this run holds while it works (not in check mode)
        self.seals = {}  # the seals of the records this run writes (engine/records.py)
        self.unverified = None  # why the gates did not run over a release that wrote nothing

    # -- 1. preflight
    def preflight(self):
        problems = []
        read = read_targets(self.client, self.targets)
        for t in self.targets:
            obj = read[id(t)]
            if isinstance(obj, ApiError):
                problems.append('%s: %s' % (t.label(), 'not found' if obj.status == 404 else error_text(obj)))
                continue
            t.read(t.kind(obj))
            w = t.workload
            for manager in managers(w.obj):
                self.warnings.append(
                    '%s is managed by %s: its next sync or upgrade will revert this release; '
                    'release through %s instead, or expect the change to be undone'
                    % (t.label(), manager, manager.split(' (')[0])
                )
            problem = self.refusal(t)
            if problem:
                problems.append(problem)
                continue
            try:
                t.patch = self.patch_of(t)
            except UnknownContainer as e:
                problems.append('%s: %s' % (t.label(), e))
                continue
            if t.patch is None:
                continue
            self.warnings.extend(release_record.put_back_before(w, self.id, self.options.recover))
            try:
                t.dry_run = self.client.patch(w.path, t.patch[1], t.patch[0], dry_run=True, retry=True)
            except ApiError as e:
                if e.status == 403:
                    self.warnings.append(
                        '%s: the API server refused a dry run of the change (403 Forbidden); '
                        'it was not validated before the write' % t.label()
                    )
                    continue
                problems.append('%s: the API server refused the change in a dry run: %s'
                                % (t.label(), error_text(e)))
        analysis = self.options.gates.analysis
        if analysis is not None and not problems:
            # A check that could never be measured would fail the release only after its rollout.
            problems.extend('analysis %s; fix it, or the release would be put back after its rollout'
                            % p for p in analysis.probe())
        return problems

    def refusal(self, t):
        """Why ``t`` (as read) cannot be released, or None. A release record on it is checked: one of
        this release is resumed; another is refused unless ``recover`` says what to do with it."""
        w = t.workload
        problem = w.release_refusal() or release_record.hold_refusal(w, t.label())
        if problem:
            return problem
        record, problem = release_record.check(w)
        if problem:
            self.suggest(release_record.clear_command(w))
            return ('%s carries a %s record that is not acted on: %s. Check the workload is as you want it, '
                    'then remove the record: %s' % (t.label(), release_record.RECORD_ANNOTATION, problem,
                                                    release_record.clear_command(w)))
        if record is None:
            return None
        unsealed = release_record.verify(self.client, self._lease_namespace(), w, record['id'])
        if unsealed:
            self.suggest(release_record.clear_command(w))
            return ('%s carries a %s record of release %s that is not acted on: %s. Nothing was written '
                    'from it. Check the workload is as you want it, then remove the record: %s'
                    % (t.label(), release_record.RECORD_ANNOTATION, record['id'], unsealed,
                       release_record.clear_command(w)))
        t.seal_key = records.seal_key(w.obj)
        holder = release_record.live_holder(self.client, self._lease_namespace(), record['id'],
                                            self.options.lease_seconds or release_record.LEASE_SECONDS)
        if holder is not None:
            self.suggest(WAIT)
            return ('%s: release %s is in progress (started %s by %s; %s): wait for it to end'
                    % (t.label(), record['id'], record.get('started'), lease_mod.runner_text(record), holder))
        if record['id'] != self.id and self.options.recover is None:
            self.suggest(setting('recover', 'rollback'))
            return ('%s: release %s (started %s by %s) did not finish: its runner stopped. Resume it '
                    '(%s) or put it back (%s), then release again'
                    % (t.label(), record['id'], record.get('started'), lease_mod.runner_text(record),
                       setting('recover', 'resume'), setting('recover', 'rollback')))
        t.record, t.resumed = record, True
        t.original_template, t.original_cause = record['template'], record.get('changeCause')
        if self.options.recover == 'resume' or record['id'] == self.id:
            t.images = dict(record['images'])
        return None

    def patch_of(self, t):
        """The write of ``t``: a JSON patch of the template with the new images, the change-cause and
        the release record, guarded by the generation and annotations the preflight read (a change in
        between fails it); None when it has its images already (or resumes a release)."""
        w = t.workload
        if t.resumed or w.image_patch(t.images) is None or self.options.recover == 'rollback':
            return None  # resumed, there already, or only put back (recover: rollback writes no images)
        generation = (w.metadata.get('generation') or 0) + 1  # a spec write bumps it by one
        record = release_record.record_text(self.id, w, t.images, generation, self.runner, self.started,
                                            extra=self.record_fields)
        self.sealed(t, release_record.RECORD_ANNOTATION, record)
        template = patches.imaged_template(w.template, t.images)
        return patches.JSON_PATCH, patches.template_write_patch(
            w.obj, template, {patches.CHANGE_CAUSE_ANNOTATION: t.change_cause,
                              release_record.RECORD_ANNOTATION: record,
                              release_record.PUT_BACK_ANNOTATION: None})

    def sealed(self, t, annotation, text):
        """Keep the seal of the record ``text`` that ``t``'s write carries in ``annotation``: the
        Lease gets it when taken, before any write (engine/records.py)."""
        seal = release_record.seal_of(t.workload, annotation, text)
        self.seals.update(seal)
        t.seal_key = next(iter(seal))

    def unsealed(self):
        """The seal keys of the records this run removed (dropped from the Lease when it ends)."""
        return [t.seal_key for t in self.targets if t.record_gone and t.seal_key]

    def _lease_namespace(self):
        return self.targets[0].namespace

    def _lease_name(self):
        return lease_mod.lease_name(release_record.LEASE_PREFIX, self.id)

    # -- 2. write
    def write_all(self):
        """Write every change; stops at the first refused write. Returns the failed target or None."""
        for t in self.targets:
            if t.patch is None:
                continue
            if self.lease is not None:
                self.lease.check()
            t.write_sent = True
            try:
                # Guarded by the preflight's read: a repeat after a lost answer fails its test and the
                # read below finds this release's own write.
                t.written = self.client.patch(t.workload.path, t.patch[1], t.patch[0], retry=True)
            except KubeError as e:
                current = read_again(self.client, t)
                if current is not None and self.owns(t, current):
                    t.written = current  # applied: the answer was lost
                elif changed_since_read(t, current):
                    # The guard refused it: nothing of this run is on the workload, and what is there
                    # (another release's record, say) is not this run's to put back or to advise on.
                    t.write_sent = False
                    self.suggest(RERUN)
                    t.cause = ('not written: it was changed by someone else since the preflight read it '
                               '(generation %s, now %s); release it again to decide from what it is now'
                               % (t.workload.metadata.get('generation'),
                                  ((current or {}).get('metadata') or {}).get('generation')))
                    return t
                else:
                    t.write_sent = current is None  # unreadable: it may have applied
                    t.cause = 'the write was refused: %s' % error_text(e)
                    return t
            self.note('%s: new images written (generation %s)'
                      % (t.label(), (t.written.get('metadata') or {}).get('generation')))
        return None

    def owns(self, t, current):
        """Whether ``current`` (``t`` read again) carries this run's write of ``t``: the record of this
        release with the template it wrote (the write was applied, its answer lost)."""
        record, _problem = release_record.check(t.kind(current))
        return record is not None and record['id'] == self.id

    # -- 3. wait
    def rollout_of(self, t):
        """What the wait of ``t`` waits for (changed or not: one asked to be released should be
        healthy); a written workload is judged by its own rollout, and fails if anyone else changes
        its spec in the meantime."""
        if t.written is None and not t.resumed:
            return Rollout(t.workload, label=t.label())
        start = t.written if t.written is not None else t.workload.obj
        predicate = status_mod.after_change(t.workload.rollout_status, t.workload.obj, start)
        generation = (start.get('metadata') or {}).get('generation')
        return Rollout(t.workload, start, status_mod.unchanged_since(predicate, generation), written=True,
                       label=t.label())

    def wait_all(self):
        rollouts = [self.rollout_of(t) for t in self.targets]
        for t, rollout in zip(self.targets, rollouts):
            self._rollouts[id(t)] = rollout
        self.engine.wait(rollouts, self.options.timeout)
        for t, rollout in zip(self.targets, rollouts):
            self._judged(t, rollout)

    def _judged(self, t, rollout):
        """``t``'s status and cause from its rollout's result (the diagnosis lines in the cause)."""
        t.deleted_pods.extend(p for p in rollout.deleted_pods if p not in t.deleted_pods)
        result = t.status = rollout.result
        if result.done:
            return
        t.cause = result.message
        if result.reason in status_mod.UNFINISHED_REASONS and result.diagnosis and result.diagnosis['lines']:
            t.cause = '; '.join([t.cause] + result.diagnosis['lines'])

    # -- 3. gate
    def gate(self):
        rollouts = [self._rollouts[id(t)] for t in self.targets]
        self.engine.soak(rollouts)
        for t, rollout in zip(self.targets, rollouts):
            if rollout.result is not t.status:
                t.status, t.cause = rollout.result, rollout.result.message

    # -- 4. put back
    def _put_back_one(self, t):
        """Put ``t``'s template and change-cause back as read in the preflight; wait for it.
        Returns (ok, text, what a failure left), or None when the workload was never changed (a
        refused write)."""
        original, cause = t.original_template, t.original_cause
        for attempt in range(5):
            current = self.client.get(t.workload.path)
            meta = current.get('metadata') or {}
            same_template = revisions.templates_equal((current.get('spec') or {}).get('template'), original)
            if same_template and (meta.get('annotations') or {}).get(CHANGE_CAUSE_ANNOTATION) == cause \
                    and self.restored(current):
                if attempt == 0 and t.written is None and not self.recorded(t):
                    return None  # the refused write did not apply: nothing to put back
                written = current  # back already: an earlier attempt's answer was lost
                break
            ours = t.written or t.dry_run
            if ours is not None and not revisions.templates_equal(
                    (current.get('spec') or {}).get('template'), (ours.get('spec') or {}).get('template')):
                return False, ('not put back: its template was changed by someone else since this release '
                               'wrote it (generation %s)' % meta.get('generation')), CHANGED_ELSEWHERE
            body = self.restore_patch(t, current)
            t.put_back_sent = True
            try:
                written = self.client.patch(t.workload.path, body, patches.JSON_PATCH, retry=True)
                break
            except ApiError as e:
                if e.is_conflict:
                    continue  # read again: back already, or changed by someone else
                return False, 'the put-back was refused: %s' % error_text(e), STILL_RECORDED
        else:
            return (False, 'not put back: the workload kept changing while it was being put back',
                    STILL_RECORDED)
        workload = t.kind(written)
        if workload.replaces_stuck_pods() and not workload.rolled_out_by_deleting_pods(written):
            # Pods stuck on the broken revision would hold an OrderedReady StatefulSet forever.
            result = self._replace_stuck(t, written)
        else:
            # A progress deadline the failed rollout exceeded is not the put-back's.
            result = self.engine.wait_one(Rollout(
                workload, written, status_mod.after_change(workload.rollout_status, current, written),
                label=t.label()), self.options.rollback_timeout)
        if not result.done:
            return False, 'put back, but its rollout did not complete: %s' % result.message, NOT_COMING_UP
        return True, 'put back to the template it had before the release', None

    def restore_patch(self, t, current):
        """The guarded JSON patch that puts ``t`` back, from ``current`` (as just read), and removes
        its release record."""
        return (patches.template_restore_patch(current, t.original_template, t.original_cause)
                + patches.annotation_removal(current, release_record.RECORD_ANNOTATION)
                + release_record.put_back_mark(current, self.id, t.cause))

    def restored(self, current):
        """Whether ``current``, whose template and change-cause are back, needs nothing more."""
        return release_record.text_of(current) is None

    def recorded(self, t):
        """Whether ``t`` carries a record of a change made before this run."""
        return t.resumed

    def _replace_stuck(self, t, written):
        """A StatefulSet stuck on the broken revision: replace its stuck pods, then wait again."""
        from ansible_collections.kubeops.rollout.plugins.module_utils.engine import forced_rollback
        workload = t.kind(written)
        timeout = self.options.rollback_timeout
        current = revisions.current(workload.history(self.client), t.original_template)
        if current is not None:
            error, replaced = forced_rollback.replace_stuck(
                self.client, workload, current.name, timeout=timeout, clock=self.clock)
            t.deleted_pods.extend(replaced)
            if error:
                return status_mod.RolloutStatus(False, error, 'StuckPods', failed=True)
            workload = t.kind(self.client.get(t.workload.path))
        return self.engine.wait_one(Rollout(workload, label=t.label()), timeout)

    def put_back(self, failed, chosen=None):
        """Put back what this run changed (all when atomic, else the ``failed``), or the ``chosen``."""
        if chosen is None:
            chosen = [
                t
                for t in self.targets
                if (t.write_sent or t.deleted_pods) and (self.options.atomic or t in failed)
            ]
        if not chosen:
            return
        self.note('putting back %s' % ', '.join(t.label() for t in chosen))
        results = fan_out([lambda t=t: self._put_back_one(t) for t in chosen],
                          on_error=lambda e: (False, 'the put-back failed: ' + error_text(e), STILL_RECORDED))
        for t, done in zip(chosen, results):
            if done is None:
                continue
            ok, text, left = done
            text = text if ok else how_to_finish(t, text, left)
            if not ok:
                self.suggest(finishing_step(t, left))
            self.note('%s: %s' % (t.label(), text))
            t.rollback = text
            t.outcome = ROLLED_BACK if ok else ROLLBACK_FAILED
            t.record_gone = t.record_gone or ok
            if t.cause is None:
                t.cause = 'put back because the release failed'

    # -- the whole (usecases/lifecycle.py runs it)
    def _stopping(self):
        self._stop.set()

    def _interrupted(self):
        return self._summary(interrupted=True)

    def _acquire(self):
        """Take this release's Lease (one runner at a time); a problem when another live run holds it."""
        self.lease, problem = release_record.take_lease(
            self.client, self._lease_namespace(), self._lease_name(), self.id, self.options.lease_seconds,
            self.runner, seals=self.seals)
        if problem and problem.endswith(release_record.WAIT_WORDS):
            self.suggest(WAIT)
        return problem

    def _release_lease(self):
        self.lease = lease_mod.let_go(self.lease, 'release %s' % self.id, self.warnings, self.unsealed())

    def _run(self):
        problems = self.preflight()
        if problems:
            return self._refused(problems)
        if self.options.check_mode:  # what the real run would do, from what is there (predict.py)
            problem = predict.lease_problem(self)
            if problem:
                return self._refused([problem])
            predict.outcomes(self)
            return self._summary()
        if any(t.patch is not None or t.resumed for t in self.targets):
            problem = self._acquire()
            if problem:
                return self._refused([problem])
        if self.options.recover == 'rollback':
            return self._put_back_recorded()
        for t in self.targets:
            if t.resumed:
                t.write_sent = True  # written by the run that stopped: this one finishes or puts it back
                self.note('%s: resuming release %s' % (t.label(), t.record['id']))
        refused = self.write_all()
        if refused is None:
            self.wait_all()
            if all(t.status.done for t in self.targets):
                if any(t.written is not None or t.resumed or t.deleted_pods for t in self.targets):
                    self.gate()
                elif self.options.gates.soaks:
                    self.unverified = 'no soak or analysis: nothing was written, nothing new to verify'
        failed = [t for t in self.targets if t.cause is not None]
        if failed and self.options.rollback:
            self.put_back(failed)
        for t in self.targets:
            if t.outcome is not None:
                continue
            if t.written is not None or t.deleted_pods or t.resumed:
                t.outcome = UPGRADED
            elif t.patch is None and t.cause is None:
                t.outcome = UNCHANGED
            else:
                t.outcome = UNTOUCHED
        if failed:
            for t in self.targets:
                if t.outcome == UNTOUCHED and t.cause is None:
                    t.cause = 'not changed: the release stopped before writing it'
        else:
            self.finish()
        return self._summary()

    def _put_back_recorded(self):
        """``recover: rollback``: every workload with a release record put back as the record says."""
        return self.put_back_as_asked([t for t in self.targets if t.resumed])

    def put_back_as_asked(self, chosen):
        """Put back the ``chosen`` targets (the others are unchanged), as the task asked: a success."""
        for t in self.targets:
            if t not in chosen:
                t.outcome = UNCHANGED
        self.put_back([], chosen=chosen)
        for t in chosen:
            t.write_sent = t.outcome in (ROLLED_BACK, ROLLBACK_FAILED)
            if t.outcome == ROLLED_BACK:
                t.cause = None  # put back as asked: not a failure
        return self._summary()

    def finish(self):
        """After a release that passed every gate: each release record goes, all at once, guarded by
        its text as written (no read: a record changed since is someone else's to remove)."""
        done = [t for t in self.targets if t.written is not None or t.resumed]
        fan_out([lambda t=t: self._remove_record(t) for t in done], on_error=lambda e: None)

    def _remove_record(self, t):
        written = t.written if t.written is not None else t.workload.obj
        removal = patches.annotation_removal(written, release_record.RECORD_ANNOTATION)
        if not removal:
            t.record_gone = True
            return
        try:
            self.client.patch(t.workload.path, removal, patches.JSON_PATCH, retry=True)
            t.record_gone = True
        except KubeError as e:
            if not (isinstance(e, ApiError) and e.is_conflict):  # a conflict: removed already
                how = release_record.clear_command(t.workload)
                self.warnings.append('%s: released, but its %s record could not be removed: %s; remove '
                                     'it with %s' % (t.label(), release_record.RECORD_ANNOTATION,
                                                     error_text(e), how))

    def _refused(self, problems):
        """The result of a failed preflight: nothing was written."""
        return refused_result(self.targets, problems, self.warnings, self.options.check_mode, self.next_step)

    def words(self):
        """How the summary names each outcome."""
        back, check = self.options.recover == 'rollback', self.options.check_mode
        return {
            UPGRADED: 'Would upgrade' if check else 'Upgraded',
            UNCHANGED: 'Nothing to put back (no release record)' if back else 'Already up to date',
            ROLLED_BACK: ('Would put back' if check else 'Put back') if back else 'ROLLED BACK',
            ROLLBACK_FAILED: 'ROLLBACK FAILED',
            UNTOUCHED: 'Not changed',
        }

    def _summary(self, interrupted=False):
        if interrupted:
            for t in self.targets:
                if t.outcome is None:
                    t.outcome = UPGRADED if t.write_sent else UNTOUCHED
                    t.cause = 'interrupted before the release was judged'
        failed = interrupted or any(t.cause is not None for t in self.targets)
        words = self.words()
        lines = []
        for t in self.targets:
            cause = ' (%s)' % t.cause if t.cause else ''
            if not cause and t.outcome == ROLLED_BACK and self.options.recover == 'rollback' and t.resumed:
                cause = ' - %s' % predict.put_back_text(t, self.options.check_mode)
            lines.append('%s: %s%s%s' % (outcome_text(t, words), t.label(), cause, still_to_do(t)))
        if interrupted:
            message = interrupted_message(self.id, self.targets)
        elif failed:
            message = failure_message(self.targets, words)
        else:
            lines.extend([self.unverified] if self.unverified else [])
            message = '; '.join(lines)
        if interrupted:
            self.suggest(RERUN)
        return ReleaseResult(self.targets, failed, message, lines, self.warnings, self.options.check_mode,
                             interrupted, fields={'next_step': self.next_step if failed else None})

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A release: new images for several workloads as one transaction, on the rollout engine.

1. Preflight, before any write: each workload is read (it exists, its kind is a rollout kind), is
   not paused, has the containers named, and its patch passes a server-side dry run. Workloads owned
   by Helm or Argo CD get a warning. Any failure: no write, one message listing every problem.
2. Write all (absolute-value patches, safe to repeat), keeping each workload's template and
   change-cause exactly as read in the preflight.
3. Wait for all at once (engine/rollouts.py: kubectl's rules, progress lines, early stop for every
   kind, OnDelete StatefulSets' pods replaced, a diagnosis of what did not finish).
4. Health gate once every rollout is complete: soak (pods stay Ready, restarts bounded) and the
   analysis checks.
5. On any failure in 2-4: put back (every written workload with ``atomic``, else only the failed
   ones) the exact template and change-cause read in 1, by a JSON patch guarded by the generation
   of the release's own write; a repeat after a lost answer finds the template back and stops, a
   write by anyone else since is never overwritten. Stuck StatefulSet pods are replaced.

``Release`` is the plain strategy; a canary's phases (usecases/canary.py) are strategies too, each a
subclass that answers the hooks (``refusal``, ``patch_of``, ``rollout_of``, ``restore_patch``,
``restored``, ``finish``, ``words``); ``strategies.strategy(options)`` chooses one, once.
``Release(client, targets, options).run()`` returns a ``ReleaseResult``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import threading
import time

from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import (
    ApiError,
    KubeError,
    error_text,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.engine.rollouts import Engine, Rollout, fan_out
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import patches, revisions
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import status as status_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.patches import (
    CHANGE_CAUSE_ANNOTATION,
    UnknownContainer,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release_targets import (
    ROLLBACK_FAILED,
    ROLLED_BACK,
    UNCHANGED,
    UNTOUCHED,
    UPGRADED,
    ReleaseResult,
    managers,
)


class Release:
    """The plain release of ``targets`` (release_targets.Target) with ``options`` (ReleaseOptions)."""

    def __init__(self, client, targets, options, progress=None, clock=time.monotonic, sleep=time.sleep):
        self.client = client
        self.targets = targets
        self.options = options
        self.progress = progress or (lambda line: None)
        self.clock = clock
        self.sleep = sleep
        self.warnings = []
        self._stop = threading.Event()
        self.engine = Engine(client, options.gates, self.progress, clock=clock, sleep=sleep,
                             stopped=self._stop.is_set)
        self._rollouts = {}  # id(target) -> the Rollout of its wait

    # -- 1. preflight
    def preflight(self):
        problems = []
        for t in self.targets:
            try:
                t.read(t.kind(self.client.get(t.kind.object_path(t.namespace, t.name))))
            except ApiError as e:
                problems.append('%s: %s' % (t.label(), 'not found' if e.status == 404 else error_text(e)))
                continue
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
        return problems

    def refusal(self, t):
        """Why ``t`` (as read) cannot be released, or None."""
        return t.workload.release_refusal()

    def patch_of(self, t):
        """The write of ``t``: (content type, body), or None when it has its images already. The
        change-cause is written with new images only."""
        if t.workload.image_patch(t.images) is None:
            return None
        return t.workload.image_patch(t.images, t.change_cause)

    # -- 2. write
    def write_all(self):
        """Write every change; stops at the first refused write. Returns the failed target or None."""
        for t in self.targets:
            if t.patch is None:
                continue
            t.write_sent = True
            try:
                # Absolute values (images, change-cause): a repeat after a lost answer changes nothing.
                t.written = self.client.patch(t.workload.path, t.patch[1], t.patch[0], retry=True)
            except KubeError as e:
                t.cause = 'the write was refused: %s' % error_text(e)
                return t
            self.progress(
                '%s: new images written (generation %s)'
                % (t.label(), (t.written.get('metadata') or {}).get('generation'))
            )
        return None

    # -- 3. wait
    def rollout_of(self, t):
        """What the wait of ``t`` waits for (changed or not: one asked to be released should be
        healthy); a written workload is judged by its own rollout."""
        if t.written is None:
            return Rollout(t.workload, label=t.label())
        predicate = status_mod.after_change(t.workload.rollout_status, t.workload.obj, t.written)
        return Rollout(t.workload, t.written, predicate, written=True, label=t.label())

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

    # -- 4. gate
    def gate(self):
        rollouts = [self._rollouts[id(t)] for t in self.targets]
        self.engine.soak(rollouts)
        for t, rollout in zip(self.targets, rollouts):
            if rollout.result is not t.status:
                t.status, t.cause = rollout.result, rollout.result.message

    # -- 5. put back
    def _put_back_one(self, t):
        """Put ``t``'s template and change-cause back as read in the preflight; wait for it.
        Returns (ok, text), or None when the workload was never changed (a refused write)."""
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
                (current.get('spec') or {}).get('template'), (ours.get('spec') or {}).get('template')
            ):
                return False, (
                    'not put back: its template was changed by someone else since this release '
                    'wrote it (generation %s)' % meta.get('generation')
                )
            body = self.restore_patch(t, current)
            try:
                written = self.client.patch(t.workload.path, body, patches.JSON_PATCH, retry=True)
                break
            except ApiError as e:
                if e.is_conflict:
                    continue  # read again: back already, or changed by someone else
                return False, 'the put-back was refused: %s' % error_text(e)
        else:
            return False, 'not put back: the workload kept changing while it was being put back'
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
            return False, 'put back, but its rollout did not complete: %s' % result.message
        return True, 'put back to the template it had before the release'

    def restore_patch(self, t, current):
        """The guarded JSON patch that puts ``t`` back, from ``current`` (as just read)."""
        return patches.template_restore_patch(current, t.original_template, t.original_cause)

    def restored(self, current):
        """Whether ``current``, whose template and change-cause are back, needs nothing more."""
        return True

    def recorded(self, t):
        """Whether ``t`` carries a record of a change made before this run (a canary's)."""
        return False

    def _replace_stuck(self, t, written):
        """A StatefulSet stuck on the broken revision: replace its stuck pods, then wait again."""
        from ansible_collections.kubeops.rollout.plugins.module_utils.engine import forced_rollback
        workload = t.kind(written)
        timeout = self.options.rollback_timeout
        current = revisions.current(workload.history(self.client), t.original_template)
        if current is not None:
            error, replaced = forced_rollback.replace_stuck(
                self.client, workload, current.name, timeout=timeout, clock=self.clock, sleep=self.sleep)
            t.deleted_pods.extend(replaced)
            if error:
                return status_mod.RolloutStatus(False, error, 'StuckPods', failed=True)
            workload = t.kind(self.client.get(t.workload.path))
        return self.engine.wait_one(Rollout(workload, label=t.label()), timeout)

    def put_back(self, failed, chosen=None):
        """Put back the workloads this run changed (all of them when atomic, else the ``failed``),
        or the ``chosen`` ones."""
        if chosen is None:
            chosen = [
                t
                for t in self.targets
                if (t.write_sent or t.deleted_pods) and (self.options.atomic or t in failed)
            ]
        if not chosen:
            return
        self.progress('putting back %s' % ', '.join(t.label() for t in chosen))
        results = fan_out([lambda t=t: self._put_back_one(t) for t in chosen],
                          on_error=lambda e: (False, 'the put-back failed: %s' % error_text(e)))
        for t, done in zip(chosen, results):
            if done is None:
                continue
            ok, text = done
            t.rollback = text
            t.outcome = ROLLED_BACK if ok else ROLLBACK_FAILED
            if t.cause is None:
                t.cause = 'put back because the release failed'

    # -- the whole
    def run(self):
        try:
            return self._run()
        except KeyboardInterrupt:
            self._stop.set()
            return self._summary(interrupted=True)

    def _run(self):
        problems = self.preflight()
        if problems:
            return self._refused(problems)
        if self.options.check_mode:
            for t in self.targets:
                t.outcome = UPGRADED if t.patch else UNCHANGED
                t.would_change = t.patch is not None
            return self._summary()
        refused = self.write_all()
        if refused is None:
            self.wait_all()
            if all(t.status.done for t in self.targets):
                self.gate()
        failed = [t for t in self.targets if t.cause is not None]
        if failed and self.options.rollback:
            self.put_back(failed)
        for t in self.targets:
            if t.outcome is not None:
                continue
            if t.written is not None or t.deleted_pods:
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

    def finish(self):
        """After a release that passed every gate."""

    def _refused(self, problems):
        """The result of a failed preflight: nothing was written."""
        for t in self.targets:
            t.outcome = UNTOUCHED
        lines = ['preflight failed, nothing was changed:'] + ['  %s' % p for p in problems]
        return ReleaseResult(
            self.targets,
            True,
            ' '.join(['release refused before any write:'] + [p + ';' for p in problems]).rstrip(';'),
            lines,
            self.warnings,
            self.options.check_mode,
        )

    def words(self):
        """How the summary names each outcome."""
        return {
            UPGRADED: 'Would upgrade' if self.options.check_mode else 'Upgraded',
            UNCHANGED: 'Already up to date',
            ROLLED_BACK: 'ROLLED BACK',
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
            text = words[t.outcome]
            if t.cause and t.outcome in (UPGRADED, UNCHANGED):
                text = 'FAILED, left as it is'
            line = '%s: %s' % (text, t.label())
            if t.cause:
                line += ' (%s)' % t.cause
            if t.rollback and t.outcome == ROLLBACK_FAILED:
                line += ' => %s' % t.rollback
            lines.append(line)
        if interrupted:
            message = 'release interrupted; written so far: %s' % (
                ', '.join(t.label() for t in self.targets if t.write_sent) or 'nothing'
            )
        elif failed:
            message = 'release failed: %s' % '; '.join(lines)
        else:
            message = '; '.join(lines)
        return ReleaseResult(self.targets, failed, message, lines, self.warnings, self.options.check_mode)

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A release: new images for several workloads as one transaction.

1. Preflight, before any write: each workload is read (it exists, its kind is a rollout kind), is
   not paused, has the containers named, and its patch passes a server-side dry run. Workloads owned
   by Helm or Argo CD get a warning. Any failure: no write, one message listing every problem.
2. Write all (absolute-value patches, safe to repeat), keeping each workload's template and
   change-cause exactly as read in the preflight.
3. Wait for all at once (kubectl's rules, progress lines, early stop for every kind); OnDelete
   StatefulSets have their pods replaced, highest ordinal first.
4. Health gate once every rollout is complete: soak (pods stay Ready, restarts bounded) and the
   analysis checks.
5. On any failure in 2-4: put back (every written workload with ``atomic``, else only the failed
   ones) the exact template and change-cause read in 1, by a JSON patch guarded by the generation
   of the release's own write; a repeat after a lost answer finds the template back and stops, a
   write by anyone else since is never overwritten. Stuck StatefulSet pods are replaced.

``Release(client, targets, options).run()`` returns a ``ReleaseResult``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import threading
import time

from ansible_collections.kubeops.rollout.plugins.module_utils.gates import health
from ansible_collections.kubeops.rollout.plugins.module_utils.engine import ondelete
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import patches, revisions
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import status as status_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError, KubeError
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.patches import CHANGE_CAUSE_ANNOTATION
from ansible_collections.kubeops.rollout.plugins.module_utils.common.validation import (
    label_problem,
    subdomain_problem,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.wait_options import (
    DEFAULT_TIMEOUT,
    GateOptions,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workloads import UnknownKind, rollout_kind

# Outcomes, one per workload.
UPGRADED = 'upgraded'
UNCHANGED = 'unchanged'
ROLLED_BACK = 'rolled_back'
ROLLBACK_FAILED = 'rollback_failed'
UNTOUCHED = 'untouched'
OUTCOMES = (UPGRADED, UNCHANGED, ROLLED_BACK, ROLLBACK_FAILED, UNTOUCHED)

HELM_MANAGED_BY = ('app.kubernetes.io/managed-by', 'Helm')
HELM_RELEASE_ANNOTATION = 'meta.helm.sh/release-name'
ARGO_TRACKING_ANNOTATION = 'argocd.argoproj.io/tracking-id'
ARGO_INSTANCE_LABEL = 'argocd.argoproj.io/instance'


class Target:
    """One workload of the release: what was asked, what was read and written, how it ended."""

    def __init__(self, kind, name, namespace, images, change_cause):
        self.kind = kind  # the Workload class
        self.name = name
        self.namespace = namespace
        self.images = images
        self.change_cause = change_cause
        self.workload = None  # as read in the preflight
        self.patch = None  # (content type, body), or None when nothing changes
        self.dry_run = None  # the dry run's answer
        self.written = None  # the write's answer
        self.write_sent = False  # a write was sent (its answer may have been lost)
        self.would_change = False  # check mode: a write would be sent
        self.status = None  # RolloutStatus of the wait, soak or put-back
        self.outcome = None
        self.cause = None
        self.deleted_pods = []
        self.rollback = None  # what the put-back did
        # A canary's record of what the workload had before it started (canary.py), or None.
        self.record = None

    def label(self):
        return '%s %s/%s' % (self.kind.kind, self.namespace, self.name)

    @property
    def original_template(self):
        return self.record['template'] if self.record else self.workload.template

    @property
    def original_cause(self):
        if self.record:
            return self.record.get('changeCause')
        return self.workload.annotations.get(CHANGE_CAUSE_ANNOTATION)

    def entry(self):
        images_before = revisions.container_images(self.workload.template)[0] if self.workload else None
        after = self.written or self.dry_run
        images_after = (
            revisions.container_images((after.get('spec') or {}).get('template') or {})[0]
            if after
            else images_before
        )
        out = {
            'kind': self.kind.kind,
            'name': self.name,
            'namespace': self.namespace,
            'outcome': self.outcome,
            'cause': self.cause,
            'changed': bool(self.write_sent or self.deleted_pods or self.would_change),
            'images_before': images_before,
            'images': images_after,
        }
        if self.status is not None:
            out['status'] = self.status.as_dict()
            if self.status.diagnosis is not None:
                out['diagnosis'] = self.status.diagnosis
        if self.deleted_pods:
            out['deleted_pods'] = list(self.deleted_pods)
        if self.rollback is not None:
            out['rollback'] = self.rollback
        return out


class ReleaseOptions:
    def __init__(
        self, atomic=True, timeout=DEFAULT_TIMEOUT, rollback_timeout=None, gates=None,
        check_mode=False, rollback=True, canary=None, canary_ordinals=1,
    ):
        self.canary = canary  # None, or the phase of a canary (canary.py)
        self.canary_ordinals = canary_ordinals
        self.atomic = atomic
        self.rollback = rollback
        self.timeout = timeout
        self.rollback_timeout = rollback_timeout or timeout
        self.gates = gates or GateOptions()
        self.check_mode = check_mode


class ReleaseResult:
    def __init__(self, targets, failed, message, lines, warnings, interrupted=False, check_mode=False):
        self.check_mode = check_mode
        self.targets = targets
        self.failed = failed
        self.message = message
        self.lines = lines
        self.warnings = warnings
        self.interrupted = interrupted

    @property
    def changed(self):
        if self.check_mode:
            return any(t.patch is not None for t in self.targets)
        return any(t.write_sent or t.deleted_pods for t in self.targets)


class PreflightFailed(Exception):
    pass


def build_targets(entries, namespace, default_cause=None):
    """Targets from the module's ``workloads`` entries; raises PreflightFailed for entries that cannot
    be read as workloads (unknown kind, empty name or images)."""
    targets, problems = [], []
    for i, entry in enumerate(entries):
        where = 'workloads[%d]' % i
        name = (entry.get('name') or '').strip()
        try:
            kind = rollout_kind(entry.get('kind'))
        except UnknownKind as e:
            problems.append('%s (%s): %s' % (where, name or '?', e))
            continue
        if not name:
            problems.append('%s: name is empty' % where)
            continue
        bad_name = subdomain_problem(entry.get('name'))
        bad_namespace = label_problem(entry.get('namespace') or namespace)
        if bad_name or bad_namespace:
            problems.append('%s: %s' % (where, '; '.join(
                p for p in ('name ' + bad_name if bad_name else None,
                            'namespace ' + bad_namespace if bad_namespace else None) if p)))
            continue
        images = entry.get('images') or {}
        bad = sorted(k for k, v in images.items() if v is None or not str(v).strip())
        if not images or bad:
            problems.append(
                '%s %s/%s: %s'
                % (
                    kind.kind,
                    entry.get('namespace') or namespace,
                    name,
                    'images is empty' if not images else 'no image given for container %s' % ', '.join(bad),
                )
            )
            continue
        cause = entry.get('change_cause') or default_cause or default_change_cause(images)
        targets.append(Target(kind, name, entry.get('namespace') or namespace, dict(images), cause))
    seen = set()
    for t in targets:
        if t.label() in seen:
            problems.append('%s: listed twice' % t.label())
        seen.add(t.label())
    if problems:
        raise PreflightFailed(problems)
    return targets


def default_change_cause(images):
    return 'rollout_release: ' + ', '.join('%s=%s' % (k, images[k]) for k in sorted(images))


def managers(obj):
    """Who else owns this object: ``Helm release x``, ``Argo CD``, from labels, annotations and
    managedFields."""
    meta = obj.get('metadata') or {}
    labels, annotations = meta.get('labels') or {}, meta.get('annotations') or {}
    found = []
    field_managers = {(m.get('manager') or '').lower() for m in meta.get('managedFields') or []}
    if (
        labels.get(HELM_MANAGED_BY[0]) == HELM_MANAGED_BY[1]
        or HELM_RELEASE_ANNOTATION in annotations
        or 'helm' in field_managers
    ):
        release = annotations.get(HELM_RELEASE_ANNOTATION)
        found.append('Helm (release %s)' % release if release else 'Helm')
    if (
        ARGO_TRACKING_ANNOTATION in annotations
        or ARGO_INSTANCE_LABEL in labels
        or any('argocd' in m for m in field_managers)
    ):
        app = annotations.get(ARGO_TRACKING_ANNOTATION, '').split(':', 1)[0] or labels.get(
            ARGO_INSTANCE_LABEL
        )
        found.append('Argo CD (application %s)' % app if app else 'Argo CD')
    return found


def _text(err):
    from ansible_collections.kubeops.rollout.plugins.module_utils.adapter.module import describe_error

    if isinstance(err, KubeError):
        return describe_error(err, 'request failed').split(': ', 1)[1]
    return str(err)


class Release:
    def __init__(self, client, targets, options, progress=None, clock=time.monotonic, sleep=time.sleep):
        self.client = client
        self.targets = targets
        self.options = options
        self.progress = progress or (lambda line: None)
        self.clock = clock
        self.sleep = sleep
        self.warnings = []
        self._stop = threading.Event()

    # -- 1. preflight
    def preflight(self):
        from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.patches import UnknownContainer

        problems = []
        for t in self.targets:
            try:
                t.workload = t.kind(self.client.get(t.kind.object_path(t.namespace, t.name)))
            except ApiError as e:
                problems.append('%s: %s' % (t.label(), 'not found' if e.status == 404 else _text(e)))
                continue
            w = t.workload
            for manager in managers(w.obj):
                self.warnings.append(
                    '%s is managed by %s: its next sync or upgrade will revert this release; '
                    'release through %s instead, or expect the change to be undone'
                    % (t.label(), manager, manager.split(' (')[0])
                )
            problem = self._refusal(t)
            if problem:
                problems.append(problem)
                continue
            try:
                t.patch = self._patch_of(t)
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
                problems.append(
                    '%s: the API server refused the change in a dry run: %s' % (t.label(), _text(e))
                )
        return problems

    def _refusal(self, t):
        """Why ``t`` (as read) cannot be released, or None."""
        w = t.workload
        if w.paused:
            return ('%s is paused: a paused Deployment does not roll out; resume it first '
                    '(rollout_pause with state=resumed)' % t.label())
        if w.strategy_type() == 'OnDelete' and not w.rolls_out_on_delete:
            return ('%s uses the OnDelete update strategy: its pods would keep the old images; '
                    'switch it to RollingUpdate' % t.label())
        return None

    def _patch_of(self, t):
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
                t.cause = 'the write was refused: %s' % _text(e)
                return t
            self.progress(
                '%s: new images written (generation %s)'
                % (t.label(), (t.written.get('metadata') or {}).get('generation'))
            )
        return None

    # -- 3. wait
    def _probe(self, kind):
        gates = self.options.gates
        if not gates.fail_fast_seconds:
            return None
        early = health.EarlyStop(self.client, gates.fail_fast_seconds, clock=self.clock)
        return lambda obj: early(dict(obj, kind=kind))

    def _report(self, label):
        def report(obj, result):
            self.progress('%s: %s' % (label, result.message))

        return report

    def _wait_one(self, t, obj, timeout, fresh_predicate=None):
        """The rollout of ``t`` from ``obj`` (an object just read or written): RolloutStatus."""
        probe = self._probe(t.kind.kind)
        interval = self.options.gates.probe_interval
        if ondelete.on_delete(dict(obj, kind=t.kind.kind)):
            result, deleted = ondelete.roll(
                self.client,
                dict(obj, kind=t.kind.kind),
                timeout,
                probe,
                interval,
                clock=self.clock,
                sleep=self.sleep,
                progress=self._report(t.label()),
                stopped=self._stop.is_set,
            )
            t.deleted_pods.extend(deleted)
            return result
        predicate = fresh_predicate or t.kind(obj).rollout_status
        return status_mod.wait_for(
            self.client,
            t.kind.collection_path(t.namespace),
            obj,
            predicate,
            timeout,
            clock=self.clock,
            progress=self._report(t.label()),
            probe=probe,
            probe_interval=interval,
            stopped=self._stop.is_set,
        )

    def _parallel(self, calls):
        """Run ``calls`` (functions returning a RolloutStatus) at once; KubeErrors become failures."""
        results = [None] * len(calls)

        def run(i, call):
            try:
                results[i] = call()
            except KubeError as e:
                results[i] = status_mod.RolloutStatus(False, _text(e), 'RequestFailed', failed=True)
            except Exception as e:  # a bug in one wait must not hide the others
                results[i] = status_mod.RolloutStatus(
                    False, 'unexpected error: %s: %s' % (type(e).__name__, e), 'Error', failed=True
                )

        if len(calls) == 1:
            run(0, calls[0])
            return results
        threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
        for thread in threads:
            thread.daemon = True
            thread.start()
        for thread in threads:
            while thread.is_alive():
                thread.join(0.2)  # short joins: a signal reaches the main thread at once
        return results

    def wait_all(self):
        """Wait for every workload (changed or not: one asked to be released should be healthy)."""
        calls = []
        for t in self.targets:
            obj = t.written or t.workload.obj
            predicate = None
            if t.written is not None:
                predicate = status_mod.after_change(t.kind(obj).rollout_status, t.workload.obj, t.written)
            calls.append(
                lambda t=t, obj=obj, predicate=predicate: self._wait_one(
                    t, obj, self.options.timeout, predicate
                )
            )
        for t, result in zip(self.targets, self._parallel(calls)):
            t.status = result
            if not result.done:
                t.cause = result.message
                if (
                    result.reason in (status_mod.DEADLINE_EXCEEDED, status_mod.TIMEOUT)
                    and result.diagnosis is None
                ):
                    self._explain(t, result)

    def _explain(self, t, result):
        """Why a rollout that did not finish did not: the diagnosis of its pods, in its cause."""
        from ansible_collections.kubeops.rollout.plugins.module_utils.gates import diagnosis

        found = diagnosis.read_diagnosis(
            self.client, dict(self.client.get(t.workload.path), kind=t.kind.kind)
        )
        result.diagnosis = found
        if found['lines']:
            t.cause = '; '.join([t.cause] + found['lines'])

    # -- 4. gate
    def gate(self):
        gates = self.options.gates
        if not gates.soaks:
            return
        soak = health.Soak(
            self.client,
            gates,
            clock=self.clock,
            sleep=self.sleep,
            progress=self.progress,
            stopped=self._stop.is_set,
        )
        targets = [
            (dict(t.written or t.workload.obj, kind=t.kind.kind), t.written is not None) for t in self.targets
        ]
        try:
            verdicts, analysis_failure = soak.run(targets)
        except KubeError as e:
            verdicts, analysis_failure = [health.soak_error(e, obj) for obj, _fresh in targets], None
        for t, verdict in zip(self.targets, verdicts):
            if verdict is not None:
                t.status, t.cause = verdict, verdict.message
        if analysis_failure is not None:
            for t in self.targets:
                if t.cause is None:
                    t.status, t.cause = analysis_failure, analysis_failure.message

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
                    and self._restored(current):
                if attempt == 0 and t.written is None and t.record is None:
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
            body = self._restore_patch(t, current)
            try:
                written = self.client.patch(t.workload.path, body, patches.JSON_PATCH, retry=True)
                break
            except ApiError as e:
                if e.is_conflict:
                    continue  # read again: back already, or changed by someone else
                return False, 'the put-back was refused: %s' % _text(e)
        else:
            return False, 'not put back: the workload kept changing while it was being put back'
        if t.kind.replaces_stuck_pods and not ondelete.on_delete(dict(written, kind=t.kind.kind)):
            # Pods stuck on the broken revision would hold an OrderedReady StatefulSet forever.
            result = self._replace_stuck(t, written)
        else:
            # A progress deadline the failed rollout exceeded is not the put-back's.
            predicate = status_mod.after_change(t.kind(written).rollout_status, current, written)
            result = self._wait_one(t, written, self.options.rollback_timeout, predicate)
        if not result.done:
            return False, 'put back, but its rollout did not complete: %s' % result.message
        return True, 'put back to the template it had before the release'

    def _restore_patch(self, t, current):
        """The guarded JSON patch that puts ``t`` back, from ``current`` (as just read)."""
        return patches.template_restore_patch(current, t.original_template, t.original_cause)

    def _restored(self, current):
        """Whether ``current``, whose template and change-cause are back, needs nothing more."""
        return True

    def _replace_stuck(self, t, written):
        """A StatefulSet stuck on the broken revision: replace its stuck pods, then wait again."""
        from ansible_collections.kubeops.rollout.plugins.module_utils.engine.forced_rollback import (
            replace_stuck,
        )
        from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.verbs import Outcome

        workload = t.kind(written)
        current = revisions.current(workload.history(self.client), t.original_template)
        if current is None:
            return self._wait_one(t, written, self.options.rollback_timeout)
        outcome = replace_stuck(
            self.client,
            Outcome(workload, True, obj=written),
            current.name,
            timeout=self.options.rollback_timeout,
            clock=self.clock,
            sleep=self.sleep,
        )
        t.deleted_pods.extend(outcome.fields.get('replaced_pods') or [])
        if outcome.error:
            return status_mod.RolloutStatus(False, outcome.error, 'StuckPods', failed=True)
        return self._wait_one(t, self.client.get(t.workload.path), self.options.rollback_timeout)

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
        calls = [lambda t=t: self._put_back_one(t) for t in chosen]
        results = [None] * len(calls)

        def run(i):
            try:
                results[i] = calls[i]()
            except KubeError as e:
                results[i] = (False, 'the put-back failed: %s' % _text(e))

        threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
        for thread in threads:
            thread.daemon = True
            thread.start()
        for thread in threads:
            while thread.is_alive():
                thread.join(0.2)
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
        return self._summary()

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
        )

    def _words(self):
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
        words = self._words()
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
        return ReleaseResult(
            self.targets, failed, message, lines, self.warnings, interrupted, self.options.check_mode
        )


def diff_of(t):
    """before/after of a target's change (diff mode): the part of the object a release may change."""
    from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.verbs import _view

    after = t.dry_run or t.written
    before = _view(t.workload.template, t.workload.annotations)
    if after is None:
        local = patches.imaged_template(t.workload.template, t.images)
        annotations = patches.annotated(t.workload.annotations, t.patch[1])
        return before, _view(local, annotations)
    return before, _view(
        copy.deepcopy((after.get('spec') or {}).get('template') or {}),
        (after.get('metadata') or {}).get('annotations') or {},
    )


def result_fields(entries, summary):
    """The release's result (the module's, which the roles register as their result fact): the
    entries, each with its label C(workload) (``Kind namespace/name``), the summary lines, and the
    labels grouped by outcome (``upgraded``: written and kept)."""
    out = {'workloads': [], 'summary': list(summary)}
    for outcome in OUTCOMES:
        out[outcome] = []
    for entry in entries:
        label = '%s %s/%s' % (entry['kind'], entry['namespace'], entry['name'])
        out['workloads'].append(dict(entry, workload=label))
        if entry['outcome'] == UPGRADED and not entry['changed']:
            out[UNCHANGED].append(label)  # OnDelete pods replaced only: no new template
        else:
            out[entry['outcome']].append(label)
    return out

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Judging a rollout by what its pods do, beyond kubectl's rollout status rules.

Two gates, used by every wait (the modules' ``wait: true``, ``rollout_status`` and the release):

- **Early stop** (``EarlyStop``): while a rollout is not done, the pods of the revision being rolled
  out are looked at every few seconds (``diagnosis.read_diagnosis``, none while the rollout progresses
  quickly: the first look is one interval after the wait began). Its reads go through a reader of
  ``probe_scopes``: the workload's pods and revisions and the Warning events are each LISTed once and
  kept by a WATCH, so a look sends no request. A cause
  that means the rollout cannot finish by itself (``BLOCKING``: image pull errors, crash loops,
  container configuration errors, unschedulable pods, pods the controller may not create) that is
  seen for ``fail_fast_seconds`` ends the wait at once, naming the cause, the pods and what to do,
  however long the timeout and the progress deadline.
- **Soak** (``Soak``): once the rollout is complete, for ``soak_seconds`` the pods of the new
  revision must stay Ready and restart at most ``max_restarts`` times (all containers of one pod
  together); the analysis checks, when given, are measured during the same window. A container
  restart that comes with a change of its resources (an in-place resize: seen changing during the
  soak, or already differing from the pod template at the first look) is not counted.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.kubeops.rollout.plugins.module_utils.gates import diagnosis
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.causes import (
    CRASH_LOOP,
    UNSCHEDULABLE,
    FAILED_CREATE,
    resized_containers,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.api.client import RETRIABLE_STATUS, path_quote
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import (
    ConnectionFailure,
    KubeError,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.status import (
    CHANGED_ELSEWHERE,
    RolloutStatus,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.pods import pod_ready

# Reasons a wait reports (beside status.py's kubectl reasons).
STUCK = 'RolloutStuck'
SOAK_NOT_READY = 'SoakPodNotReady'
SOAK_RESTARTS = 'SoakRestarts'
SOAK_NO_PODS = 'SoakNoPods'
SOAK_UNREADABLE = 'SoakApiUnreachable'
ANALYSIS_FAILED = 'AnalysisFailed'

# What to do about each cause a rollout cannot get past by itself.
NEXT_STEPS = {
    'ImagePullBackOff': 'check the image name and tag, and that the nodes may pull it (imagePullSecrets)',
    'ErrImagePull': 'check the image name and tag, and that the nodes may pull it (imagePullSecrets)',
    'ErrImageNeverPull': 'the image is not on the node and imagePullPolicy is Never: pre-load it or change '
    'the policy',
    'InvalidImageName': 'fix the image reference',
    CRASH_LOOP: "read the container's logs (kubectl logs --previous <pod> -c <container>)",
    'CreateContainerConfigError': 'create the ConfigMap, Secret or key the container refers to',
    'CreateContainerError': "fix the container's command or configuration (kubectl describe pod)",
    'RunContainerError': "fix the container's command or configuration (kubectl describe pod)",
    UNSCHEDULABLE: "free or add node capacity, or fix the pod's requests, node selector, affinity or "
    'tolerations',
    FAILED_CREATE: 'fix what refuses the pods (ResourceQuota, LimitRange, admission policy)',
}
BLOCKING = frozenset(NEXT_STEPS)

# Seconds between two looks at the pods during a soak.
SOAK_POLL_SECONDS = 1.0
# The least time a soak keeps reading through API errors before they are its verdict.
READ_RETRY_SECONDS = 10.0


def transient(err):
    """Whether an API error may be answered otherwise next time: what the client retries (a server
    error, 429), or no answer."""
    if isinstance(err, ConnectionFailure):
        return True
    status = getattr(err, 'status', None)
    return status == 429 or status in RETRIABLE_STATUS


# ---- early stop ------------------------------------------------------------------------------


class EarlyStop:
    """The probe of one wait: ``__call__(workload)`` looks at the pods of the revision ``workload``
    (a Workload around the newest object the wait saw) rolls out and returns a failed RolloutStatus once a
    blocking cause has been seen for ``fail_fast_seconds``, else None."""

    def __init__(self, client, fail_fast_seconds, clock=time.monotonic, read=diagnosis.read_diagnosis,
                 on_cause=None):
        self.client = client
        self.fail_fast_seconds = fail_fast_seconds
        self.clock = clock
        self.read = read
        self.on_cause = on_cause or (lambda text: None)  # hears a blocking cause seen, or cleared
        self.first_seen = {}  # blocking reason -> when it was first seen (continuously since)

    def __call__(self, workload):
        found = self.read(self.client, workload)
        now = self.clock()
        blocking = [c for c in found['causes'] if c['reason'] in BLOCKING]
        reasons = {c['reason'] for c in blocking}
        for reason in list(self.first_seen):
            if reason not in reasons:
                del self.first_seen[reason]
                self.on_cause('%s cleared' % reason)
        for cause in blocking:
            if cause['reason'] not in self.first_seen:
                self.first_seen[cause['reason']] = now
                self.on_cause(cause_seen(cause, self.fail_fast_seconds))
        stuck = [c for c in blocking if now - self.first_seen[c['reason']] >= self.fail_fast_seconds]
        if not stuck:
            return None
        return stuck_status(found, stuck, self.fail_fast_seconds)


def probe_scopes(workload):
    """What the looks at ``workload`` read, as ``SharedLists`` scopes (path -> (label selector, field
    selector)): its pods and its revisions (ReplicaSets, ControllerRevisions) by its selector, and the
    namespace's Warning events; each LIST ``diagnosis.read_diagnosis`` sends is within one of them."""
    ns = path_quote(workload.namespace or 'default')
    scopes = {diagnosis.PODS_PATH % ns: (workload.selector, None),
              diagnosis.EVENTS_PATH % ns: (None, diagnosis.WARNING_EVENTS)}
    if workload.history_kind:
        scopes[workload.history_path(workload.namespace or 'default')] = (workload.selector, None)
    return scopes


def cause_seen(cause, seconds):
    """The line of a blocking cause seen for the first time: what, on which pods, and when the
    rollout stops unless it clears."""
    count, pods = cause.get('count') or 0, cause.get('pods') or []
    where = ' on %d pod%s' % (count, '' if count == 1 else 's') if count else ''
    if pods:
        where += ' (%s%s)' % (', '.join(pods[:3]), ', ...' if len(pods) > 3 else '')
    return '%s%s, stopping in %d s unless it clears' % (cause['reason'], where, seconds)


def stuck_status(found, stuck, seconds):
    """The failed status of a rollout stopped early: the diagnosis lines of ``stuck`` causes, each
    with the pods it was seen on and its next step."""
    message = ('%s; stopped early: the rollout cannot finish while this lasts (seen for %ds or more). '
               'Next: %s' % (blocking_text(found, stuck), seconds, '; '.join(_next_steps(stuck))))
    result = RolloutStatus(False, message, STUCK, failed=True)
    result.diagnosis = found
    return result


def blocking_text(found, stuck):
    """The diagnosis lines of the ``stuck`` causes of ``found`` (read_diagnosis), with their pods."""
    lines = [line for line in found['lines'] if any(c['reason'] in line for c in stuck)] or found['lines'][:1]
    pods = []
    for cause in stuck:
        pods.extend(p for p in cause.get('pods') or [] if p not in pods)
    if pods:
        lines[-1] += ' (pod%s %s%s)' % ('' if len(pods) == 1 else 's', ', '.join(pods[:5]),
                                        ', ...' if len(pods) > 5 else '')
    return '; '.join(lines)


def _next_steps(stuck):
    steps = []
    for cause in stuck:
        step = NEXT_STEPS.get(cause['reason'])
        if step and step not in steps:
            steps.append(step)
    return steps


def blocked_now(client, workload, read=diagnosis.read_diagnosis):
    """One look at the pods of the revision ``workload`` (a Workload as read) rolls out: the text of
    each blocking cause seen now (its pods, containers, restarts) and what to do, else None. Where a
    run cannot wait ``fail_fast_seconds`` (check mode, a check before a write), a cause that is there
    now is the verdict the early stop gives once it has lasted."""
    found = read(client, workload)
    stuck = [c for c in found['causes'] if c['reason'] in BLOCKING]
    if not stuck:
        return None
    return '%s; it cannot become ready while this lasts. Next: %s' % (
        blocking_text(found, stuck), '; '.join(_next_steps(stuck)))


# ---- soak ------------------------------------------------------------------------------------


def _restarts(pod):
    """Container name -> restartCount."""
    return {
        cs.get('name'): int(cs.get('restartCount') or 0)
        for cs in (pod.get('status') or {}).get('containerStatuses') or []
    }


def _resources(pod):
    """Container name -> the resources it asks for (the pod's spec, which the ``resize`` subresource
    changes) and runs with (as the kubelet reports them): a change is an in-place resize."""
    out = {}
    for c in (pod.get('spec') or {}).get('containers') or []:
        out[c.get('name')] = [c.get('resources'), None, None]
    for cs in (pod.get('status') or {}).get('containerStatuses') or []:
        view = out.setdefault(cs.get('name'), [None, None, None])
        view[1], view[2] = cs.get('resources'), cs.get('allocatedResources')
    return out


def _last_state(pod):
    for cs in (pod.get('status') or {}).get('containerStatuses') or []:
        waiting = (cs.get('state') or {}).get('waiting') or {}
        last = (cs.get('lastState') or {}).get('terminated') or {}
        if waiting.get('reason') or last:
            parts = ['container %s' % cs.get('name')]
            if waiting.get('reason'):
                parts.append(waiting['reason'])
            if last:
                parts.append(('last exit %s %s' % (last.get('exitCode'), last.get('reason') or '')).strip())
            return ', '.join(parts)
    return None


class _SoakTarget:
    """One workload during a soak: the selector of its new revision's pods and what they did."""

    def __init__(self, workload, fresh):
        self.workload = workload
        self.fresh = fresh  # its new pods were created by this run's change: every restart counts
        self.selector = None
        self.observed = False  # a look at its pods succeeded
        self.error = None  # the API error of its last read, while its reads fail
        self.failing_since = None
        self.failed_reads = 0
        self.baseline = {}  # pod uid -> {container: restarts not counted}
        self.resources = {}  # pod uid -> {container: resources last seen}
        self.pods = 0


class Soak:
    """Watch the new revision's pods of complete rollouts for ``options.soak_seconds`` (and measure
    ``options.analysis``). ``run(targets)``: ``targets`` a list of (Workload, fresh);
    returns a list of RolloutStatus or None per target (None: it passed), and the analysis failure
    (a RolloutStatus) or None."""

    def __init__(self, client, options, clock=time.monotonic, sleep=time.sleep, progress=None, stopped=None):
        self.client = client
        self.options = options
        self.clock = clock
        self.sleep = sleep
        self.progress = progress or (lambda line: None)
        self.stopped = stopped or (lambda: False)

    def _select(self, target):
        """Read the workload again (its status names the revision now rolled out) and the selector of
        that revision's pods."""
        w = target.workload = type(target.workload)(self.client.get(target.workload.path))
        history = None
        if w.revision_needs_history:
            history = self.client.list(w.history_path(w.namespace or 'default'),
                                       label_selector=w.selector).get('items') or []
        target.selector = w.revision_pod_selector(w.rolled_out_revision(history))

    def _look(self, target):
        """A failed RolloutStatus when a pod of the new revision is not Ready or restarted too often."""
        w = target.workload
        ns = path_quote(w.namespace or 'default')
        pods = self.client.list(diagnosis.PODS_PATH % ns, label_selector=target.selector).get('items') or []
        pods = [p for p in pods if not (p.get('metadata') or {}).get('deletionTimestamp')]
        target.pods = len(pods)
        wanted = w.replicas
        if wanted is None:  # a DaemonSet: the nodes that should run one
            wanted = (w.obj.get('status') or {}).get('desiredNumberScheduled')
        if wanted and not pods:
            return RolloutStatus(False, '%s: no pod of the new revision is running during the soak: it was '
                                 'changed or scaled by someone else, or its pods were deleted' % w.label(),
                                 SOAK_NO_PODS, failed=True)
        for pod in sorted(pods, key=lambda p: (p.get('metadata') or {}).get('name') or ''):
            meta = pod.get('metadata') or {}
            uid = meta.get('uid')
            restarts = _restarts(pod)
            resources = _resources(pod)
            baseline = target.baseline.get(uid)
            if baseline is None:
                # A container already resized in place (it differs from the template) has restarted
                # for its resize policy: those restarts are not counted, even in a fresh pod.
                resized = resized_containers(pod, w.spec.get('template'))
                baseline = target.baseline[uid] = {
                    name: count if (not target.fresh or name in resized) else 0
                    for name, count in restarts.items()
                }
            seen = target.resources.get(uid) or {}
            for name, count in restarts.items():
                if name in seen and resources.get(name) != seen[name]:
                    # Restarts that come with new resources are an in-place resize, not a crash.
                    baseline[name] = max(baseline.get(name, 0), count)
            target.resources[uid] = resources
            counted = sum(max(0, count - baseline.get(name, 0)) for name, count in restarts.items())
            if counted > self.options.max_restarts:
                state = _last_state(pod)
                return RolloutStatus(
                    False,
                    '%s: pod %s restarted %d time%s during the soak (max_restarts %d)%s'
                    % (
                        w.label(),
                        meta.get('name'),
                        counted,
                        '' if counted == 1 else 's',
                        self.options.max_restarts,
                        ': %s' % state if state else '',
                    ),
                    SOAK_RESTARTS,
                    failed=True,
                )
            if not pod_ready(pod):
                state = _last_state(pod)
                return RolloutStatus(
                    False,
                    '%s: pod %s is not Ready during the soak%s'
                    % (w.label(), meta.get('name'), ': %s' % state if state else ''),
                    SOAK_NOT_READY,
                    failed=True,
                )
        return None

    def _read(self, target, results, i, now):
        """One look at ``target`` (its revision's selector first); an API error the server may
        answer differently next time (5xx, 429, a dropped connection) is remembered, not a verdict:
        the look is tried again at the next round, until the soak's deadline."""
        try:
            if not target.selector:
                self._select(target)
            if target.selector:
                results[i] = self._look(target)
            target.observed = True  # read (a revision without a selector of its pods has none to look at)
            target.error, target.failing_since, target.failed_reads = None, None, 0
        except KubeError as e:
            if not transient(e):
                raise
            target.error = e
            target.failed_reads += 1
            target.failing_since = now if target.failing_since is None else target.failing_since

    def _unread(self, target, now):
        """The verdict on ``target`` whose reads still fail at the deadline, or that was never
        observed: an API cause (attempts, seconds), never a pod's; None when it was read."""
        if target.error is None and target.observed:
            return None
        seconds = now - target.failing_since if target.failing_since is not None else 0
        return RolloutStatus(
            False, '%s: the soak could not read the API server (%d attempts over %.1f s, until the end of '
                   'the soak): %s; nothing was observed to pass the gate' % (
                       target.workload.label(), target.failed_reads, seconds,
                       getattr(target.error, 'message', target.error) or 'no answer'),
            SOAK_UNREADABLE, failed=True)

    def run(self, targets):
        """``targets``: list of (Workload, fresh). Returns (list of RolloutStatus|None, analysis
        failure|None)."""
        items = [_SoakTarget(workload, fresh) for workload, fresh in targets]
        results = [None] * len(items)
        analysis = self.options.analysis
        start = self.clock()
        for i, target in enumerate(items):
            self._read(target, results, i, start)
        # Reads that fail keep being tried (the client backs off within each) until the soak's end,
        # and for at least READ_RETRY_SECONDS: one flaky minute of the API server is no verdict.
        deadline = start + self.options.soak_seconds
        read_deadline = max(deadline, start + READ_RETRY_SECONDS)
        if self.options.soak_seconds:
            self.progress(
                'soaking %d workload%s for %ss'
                % (len(items), '' if len(items) == 1 else 's', self.options.soak_seconds)
            )
        measured = False
        first = True
        while True:
            now = self.clock()
            if not first:
                for i, target in enumerate(items):
                    if results[i] is None:
                        self._read(target, results, i, now)
            first = False
            if any(results):
                return results, None
            if analysis is not None and (analysis.due() or not measured):
                analysis.measure()
                measured = True
                if analysis.failed:
                    return results, RolloutStatus(False, analysis.message, ANALYSIS_FAILED, failed=True)
            now = self.clock()
            unread = any(t.error is not None or not t.observed for t in items)
            remaining = (read_deadline if unread else deadline) - now
            if remaining <= 0 or self.stopped():
                verdicts = [self._unread(t, now) for t in items]
                if any(verdicts):
                    return [v or r for v, r in zip(verdicts, results)], None
                return self._still_as_soaked(items, results), None
            self.sleep(min(SOAK_POLL_SECONDS, remaining))

    def _still_as_soaked(self, items, results):
        """At the end of the soak, each workload is read again: one whose spec changed since the soak
        began (someone else's edit, a revert) did not pass it."""
        for i, target in enumerate(items):
            if results[i] is not None:
                continue
            fresh = self.client.get(target.workload.path)
            before = target.workload.metadata.get('generation')
            now = (fresh.get('metadata') or {}).get('generation')
            if before is not None and now != before:
                results[i] = RolloutStatus(False, '%s: changed by someone else during the soak (generation '
                                           '%s, now %s)' % (target.workload.label(), before, now),
                                           CHANGED_ELSEWHERE, failed=True)
        return results


def soak_error(err, workload):
    """A soak that could not read is a failed gate, not a pass."""
    return RolloutStatus(
        False,
        '%s: the soak could not read the pods: %s' % (workload.label(), getattr(err, 'message', err)),
        SOAK_UNREADABLE,
        failed=True,
    )


__all__ = [
    'EarlyStop',
    'Soak',
    'BLOCKING',
    'STUCK',
    'SOAK_NOT_READY',
    'SOAK_RESTARTS',
    'SOAK_UNREADABLE',
    'ANALYSIS_FAILED',
    'KubeError',
]

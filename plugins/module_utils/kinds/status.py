# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Rollout status: one predicate per kind (kubectl's rollout_status.go rules and messages) and a
waiter that follows the object with a WATCH (no polling), for one or several workloads at once."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import threading
import time

from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError, KubeError
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workloads import observed

# Reasons reported next to kubectl's message; stable strings for playbooks to test.
COMPLETE = 'Complete'
SPEC_NOT_OBSERVED = 'SpecNotObserved'
UPDATING = 'UpdatingReplicas'
OLD_REPLICAS_PENDING = 'OldReplicasPendingTermination'
UNAVAILABLE = 'ReplicasUnavailable'
PODS_NOT_READY = 'PodsNotReady'
REVISION_PENDING = 'RevisionPending'
DEADLINE_EXCEEDED = 'ProgressDeadlineExceeded'
PAUSED = 'Paused'
UNSUPPORTED_STRATEGY = 'UnsupportedStrategy'
TIMEOUT = 'Timeout'
DELETED = 'Deleted'
OBSERVED = 'Observed'

# Server-side timeout of one watch request; the waiter re-watches until its own deadline.
WATCH_CHUNK_SECONDS = 290


class RolloutStatus:
    """``done``: the rollout finished. ``failed``: it cannot finish (waiting is pointless)."""

    def __init__(self, done, message, reason, failed=False, counts=None):
        self.done = done
        self.message = message
        self.reason = reason
        self.failed = failed
        self.counts = counts  # replicas / updated / ready / available, from the object judged
        self.diagnosis = None  # why it failed, when a look at the pods ended the wait early

    def as_dict(self):
        out = {'done': self.done, 'message': self.message, 'reason': self.reason}
        out.update(self.counts or {})
        return out

    def __repr__(self):
        return 'RolloutStatus(done=%r, reason=%r, message=%r)' % (self.done, self.reason, self.message)


def _waiting(message, reason):
    return RolloutStatus(False, message, reason)


def _num(value):
    return value if isinstance(value, int) else 0


def _counted(counts):
    """Decorates a kind's status predicate: its result carries the replica counts of the object."""
    def decorate(predicate):
        def judged(obj):
            result = predicate(obj)
            if result.counts is None:
                result.counts = counts(obj.get('spec') or {}, obj.get('status') or {})
            return result
        judged.__name__ = predicate.__name__
        judged.__doc__ = predicate.__doc__
        return judged
    return decorate


def _replica_counts(spec, status):
    """Deployments and StatefulSets: desired replicas and how many are updated, ready, available."""
    return {'replicas': _num(spec.get('replicas', 1)), 'updated': _num(status.get('updatedReplicas')),
            'ready': _num(status.get('readyReplicas')), 'available': _num(status.get('availableReplicas'))}


def _daemon_counts(_spec, status):
    """DaemonSets: nodes that should run a pod, and how many pods are updated, ready, available."""
    return {'replicas': _num(status.get('desiredNumberScheduled')),
            'updated': _num(status.get('updatedNumberScheduled')),
            'ready': _num(status.get('numberReady')), 'available': _num(status.get('numberAvailable'))}


@_counted(_replica_counts)
def deployment_status(obj):
    """kubectl's DeploymentStatusViewer, plus: a paused Deployment that is not done fails at once
    (it would never finish) instead of waiting out the timeout."""
    name = obj['metadata']['name']
    spec = obj.get('spec') or {}
    status = obj.get('status') or {}
    if not observed(obj):
        return _waiting('Waiting for deployment spec update to be observed...', SPEC_NOT_OBSERVED)
    for cond in status.get('conditions') or []:
        if cond.get('type') == 'Progressing' and cond.get('reason') == DEADLINE_EXCEEDED:
            return RolloutStatus(False, 'deployment "%s" exceeded its progress deadline' % name,
                                 DEADLINE_EXCEEDED, failed=True)
    replicas = spec.get('replicas')
    updated = _num(status.get('updatedReplicas'))
    if replicas is not None and updated < replicas:
        result = _waiting('Waiting for deployment "%s" rollout to finish: %d out of %d new replicas have '
                          'been updated...' % (name, updated, replicas), UPDATING)
    elif _num(status.get('replicas')) > updated:
        old = _num(status.get('replicas')) - updated
        result = _waiting('Waiting for deployment "%s" rollout to finish: %d old replicas are pending '
                          'termination...' % (name, old), OLD_REPLICAS_PENDING)
    elif _num(status.get('availableReplicas')) < updated:
        available = _num(status.get('availableReplicas'))
        result = _waiting('Waiting for deployment "%s" rollout to finish: %d of %d updated replicas are '
                          'available...' % (name, available, updated), UNAVAILABLE)
    else:
        return RolloutStatus(True, 'deployment "%s" successfully rolled out' % name, COMPLETE)
    if spec.get('paused'):
        return RolloutStatus(False, 'deployment "%s" is paused, so its rollout cannot finish (%s). Resume it '
                             'first (rollout_pause with state=resumed).' % (name, result.message.rstrip('.')),
                             PAUSED, failed=True)
    return result


def _strategy(obj):
    return ((obj.get('spec') or {}).get('updateStrategy') or {})


def _unsupported_strategy():
    return RolloutStatus(False, 'rollout status is only available for RollingUpdate strategy type',
                         UNSUPPORTED_STRATEGY, failed=True)


@_counted(_daemon_counts)
def daemonset_status(obj):
    """kubectl's DaemonSetStatusViewer."""
    name = obj['metadata']['name']
    status = obj.get('status') or {}
    if _strategy(obj).get('type', 'RollingUpdate') != 'RollingUpdate':
        return _unsupported_strategy()
    if not observed(obj):
        return _waiting('Waiting for daemon set spec update to be observed...', SPEC_NOT_OBSERVED)
    desired = _num(status.get('desiredNumberScheduled'))
    updated = _num(status.get('updatedNumberScheduled'))
    available = _num(status.get('numberAvailable'))
    if updated < desired:
        return _waiting('Waiting for daemon set "%s" rollout to finish: %d out of %d new pods have been '
                        'updated...' % (name, updated, desired), UPDATING)
    if available < desired:
        return _waiting('Waiting for daemon set "%s" rollout to finish: %d of %d updated pods are '
                        'available...' % (name, available, desired), UNAVAILABLE)
    return RolloutStatus(True, 'daemon set "%s" successfully rolled out' % name, COMPLETE)


@_counted(_replica_counts)
def statefulset_status(obj):
    """kubectl's StatefulSetStatusViewer (the API server always defaults rollingUpdate.partition,
    so a RollingUpdate StatefulSet is judged by the partition rule)."""
    spec = obj.get('spec') or {}
    status = obj.get('status') or {}
    strategy = _strategy(obj)
    if strategy.get('type', 'RollingUpdate') != 'RollingUpdate':
        return _unsupported_strategy()
    if not _num(status.get('observedGeneration')) or not observed(obj):
        return _waiting('Waiting for statefulset spec update to be observed...', SPEC_NOT_OBSERVED)
    replicas = spec.get('replicas')
    ready = _num(status.get('readyReplicas'))
    if replicas is not None and ready < replicas:
        return _waiting('Waiting for %d pods to be ready...' % (replicas - ready), PODS_NOT_READY)
    rolling = strategy.get('rollingUpdate')
    updated = _num(status.get('updatedReplicas'))
    if rolling is not None:
        partition = rolling.get('partition')
        if replicas is not None and partition is not None and updated < replicas - partition:
            return _waiting('Waiting for partitioned roll out to finish: %d out of %d new pods have been '
                            'updated...' % (updated, replicas - partition), UPDATING)
        return RolloutStatus(True, 'partitioned roll out complete: %d new pods have been updated...'
                             % updated, COMPLETE)
    if status.get('updateRevision') != status.get('currentRevision'):
        return _waiting('waiting for statefulset rolling update to complete %d pods at revision %s...'
                        % (updated, status.get('updateRevision')), REVISION_PENDING)
    return RolloutStatus(True, 'statefulset rolling update complete %d pods at revision %s...'
                         % (_num(status.get('currentReplicas')), status.get('currentRevision')), COMPLETE)


def observed_status(obj):
    """Done once the controller has observed the latest spec (e.g. a pause took effect)."""
    if observed(obj):
        return RolloutStatus(True, 'spec update observed (generation %s)' % obj['metadata'].get('generation'),
                             OBSERVED)
    return _waiting('Waiting for spec update to be observed...', SPEC_NOT_OBSERVED)


def _deadline_condition(obj):
    for cond in ((obj or {}).get('status') or {}).get('conditions') or []:
        if cond.get('type') == 'Progressing' and cond.get('reason') == DEADLINE_EXCEEDED:
            return cond
    return None


TERMINATING = 'Terminating'


def until_terminated(predicate):
    """``predicate``, and a Deployment it judges done is not done while ``status.terminatingReplicas``
    (Kubernetes 1.35+) counts old pods that have not gone yet: for a release whose old and new pods
    must not overlap. kubectl's rollout status does not wait for them; a server that does not report
    the field is taken at its word."""
    def judge(obj):
        result = predicate(obj)
        terminating = _num((obj.get('status') or {}).get('terminatingReplicas'))
        if result.done and terminating:
            name = (obj.get('metadata') or {}).get('name')
            return RolloutStatus(False, 'Waiting for deployment "%s" rollout to finish: %d old replicas are '
                                 'terminating...' % (name, terminating), TERMINATING, counts=result.counts)
        return result
    return judge


def after_change(predicate, before, written=None):
    """``predicate`` for the wait that follows this task's change of the workload (``before``: the
    object as read before the write; ``written``: the write's answer).

    A Deployment whose rollout exceeded its progress deadline keeps that Progressing condition,
    unchanged, until the controller sees the next rollout progress; when the first sync of the new
    generation sees none (an undo to a ReplicaSet that already runs, while the failed one's pods
    are still there), the controller writes the old condition back together with the new
    observedGeneration, and kubectl's rule would fail the new rollout at once. So a deadline
    condition the workload had before the write (as read, or as the write's answer shows it: the
    controller may have written a newer one in between) is the previous rollout's and is not
    judged; a deadline this rollout exceeds carries a new lastUpdateTime and fails the wait as usual.
    """
    stale = [c for c in (_deadline_condition(before), _deadline_condition(written)) if c is not None]
    if not stale:
        return predicate

    def judge(obj):
        if _deadline_condition(obj) in stale:
            status = dict(obj.get('status') or {})
            status['conditions'] = [c for c in status.get('conditions') or [] if c not in stale]
            obj = dict(obj, status=status)
        return predicate(obj)
    return judge


# ---- waiting ---------------------------------------------------------------------------------

class _Reporter:
    """Calls ``progress(obj, status)`` when a workload's status message changes (not on every event)."""

    def __init__(self, progress):
        self.progress = progress
        self.last = None

    def __call__(self, obj, result):
        if self.progress and result.message != self.last:
            self.last = result.message
            self.progress(obj, result)
        return result


def wait_for(client, collection_path, obj, predicate, timeout, clock=time.monotonic, progress=None,
             probe=None, probe_interval=None, stopped=None):
    """Follow one object with WATCH until ``predicate`` says done or failed, or ``timeout`` passes.

    Starts from ``obj`` (a fresh GET or write response) and watches from its resourceVersion with a
    metadata.name field selector; re-watches when the server ends the stream, re-reads on 410 Gone.
    Returns the last RolloutStatus (reason Timeout / Deleted when those end the wait).
    ``progress(obj, status)``, if given, hears each change of the status message as it happens.
    ``probe(obj)``, if given, is called every ``probe_interval`` seconds while the rollout is not
    done (the first time one interval after the start; each watch request then lasts at most one
    interval) with the newest object; a RolloutStatus it returns ends the wait (early stop).
    ``stopped()``, if given and true, ends the wait at the next event or interval (reason Timeout).
    """
    name = obj['metadata']['name']
    path = collection_path.rstrip('/')
    report = _Reporter(progress)
    result = report(obj, predicate(obj))
    if result.done or result.failed:
        return result
    start = clock()
    deadline = start + timeout
    next_probe = [start + probe_interval if probe else None]
    latest = [obj]
    rv = obj['metadata'].get('resourceVersion')

    def probed():
        """The probe's verdict when one is due, else None."""
        if probe is None or clock() < next_probe[0]:
            return None
        verdict = probe(latest[0])
        next_probe[0] = clock() + probe_interval
        return verdict

    while True:
        remaining = deadline - clock()
        if remaining <= 0 or (stopped is not None and stopped()):
            return RolloutStatus(False, 'timed out after %ss waiting for the rollout: %s'
                                 % (timeout, result.message), TIMEOUT, counts=result.counts)
        verdict = probed()
        if verdict is not None:
            return verdict
        try:
            chunk = min(WATCH_CHUNK_SECONDS, max(1, int(remaining + 0.999)))
            if probe is not None:
                chunk = min(chunk, max(1, int(next_probe[0] - clock() + 0.999)))
            events = client.watch(path, resource_version=rv, field_selector='metadata.name=%s' % name,
                                  timeout_seconds=chunk)
            for event_type, event_obj in events:
                meta = event_obj.get('metadata') or {}
                rv = meta.get('resourceVersion') or rv
                if event_type == 'BOOKMARK' or meta.get('name') != name:
                    if clock() >= deadline:  # a stream of noise must not outlast the deadline
                        break
                    continue
                if event_type == 'DELETED':
                    return RolloutStatus(False, '%s was deleted while waiting for its rollout' % name,
                                         DELETED, failed=True)
                latest[0] = event_obj
                result = report(event_obj, predicate(event_obj))
                if result.done or result.failed:
                    return result
                if clock() >= deadline or (probe is not None and clock() >= next_probe[0]):
                    break
                if stopped is not None and stopped():
                    break
        except ApiError as e:
            if e.status != 410:
                raise
            fresh = client.get('%s/%s' % (path, name))
            rv = fresh['metadata'].get('resourceVersion')
            latest[0] = fresh
            result = report(fresh, predicate(fresh))
            if result.done or result.failed:
                return result


def settled(obj, predicate):
    """Whether ``predicate`` already judges ``obj`` done or failed: ``wait_for`` then answers at once,
    without a request. A predicate that raises is not settled (the wait reports its error)."""
    try:
        result = predicate(obj)
    except Exception:
        return False
    return bool(result.done or result.failed)


def wait_all(client, jobs, timeout, progress=None, probes=None, probe_interval=None, stopped=None):
    """Wait for several workloads at once (threads): total time is the slowest one's. A workload
    already done (or failed) in the object given is answered in the calling thread, so a task
    over many settled workloads starts no thread.

    ``jobs``: list of (collection_path, obj, predicate). Returns a list of RolloutStatus or KubeError
    (an error in one wait does not stop the others), in the same order. ``progress``: as for
    ``wait_for``, called from each wait's thread. ``probes``: None, or one probe (or None) per job,
    called every ``probe_interval`` seconds as ``wait_for`` says.
    """
    probes = probes or [None] * len(jobs)

    def one(i, path, obj, predicate):
        return wait_for(client, path, obj, predicate, timeout, progress=progress, probe=probes[i],
                        probe_interval=probe_interval, stopped=stopped)

    if len(jobs) == 1:
        try:
            return [one(0, *jobs[0])]
        except KubeError as e:
            return [e]
    results = [None] * len(jobs)

    def run(i, path, obj, predicate):
        try:
            results[i] = one(i, path, obj, predicate)
        except KubeError as e:
            results[i] = e
        except Exception as e:  # keep one broken wait from killing the others silently
            results[i] = KubeError('waiting for %s failed: %s' % (obj['metadata']['name'], e))

    threads = []
    for i, job in enumerate(jobs):
        if settled(job[1], job[2]):  # answered by the object already read: no request, no thread
            run(i, *job)
        else:
            threads.append(threading.Thread(target=run, args=(i,) + tuple(job)))
    for t in threads:
        t.daemon = True
        t.start()
    for t in threads:
        t.join()
    return results

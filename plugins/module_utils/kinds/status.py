# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Rollout status: one predicate per kind (kubectl's rollout_status.go rules and messages), and the
predicates built on them (after a change, until old pods are gone, a canary's). Pure: the waiting
itself is the engine's (engine/watch.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.kubeops.rollout.plugins.module_utils.common.vocabulary import setting


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
CANARY_STARTING = 'CanaryStarting'
CANARY_STARTED = 'CanaryStarted'
CANARY_NOT_READY = 'CanaryNotReady'
CANARY_READY = 'CanaryReady'

# Rollouts that ended on these did not progress: their pods say why.
UNFINISHED_REASONS = (DEADLINE_EXCEEDED, TIMEOUT)


class RolloutStatus:
    """``done``: the rollout finished. ``failed``: it cannot finish (waiting is pointless)."""

    def __init__(self, done, message, reason, failed=False, counts=None):
        self.done = done
        self.message = message
        self.reason = reason
        self.failed = failed
        self.counts = counts  # replicas / updated / ready / available, from the object judged
        self.diagnosis = None  # why it failed, when a look at the pods ended the wait early
        self.error = None  # the KubeError that ended the wait, if one did

    def as_dict(self):
        out = {'done': self.done, 'message': self.message, 'reason': self.reason}
        out.update(self.counts or {})
        return out

    def __repr__(self):
        return 'RolloutStatus(done=%r, reason=%r, message=%r)' % (self.done, self.reason, self.message)


def observed(obj):
    """Whether the controller has seen the object's current spec (``status.observedGeneration`` at
    least ``metadata.generation``)."""
    meta, status = obj.get('metadata') or {}, obj.get('status') or {}
    generation, seen = meta.get('generation'), status.get('observedGeneration')
    return (seen if isinstance(seen, int) else 0) >= (generation if isinstance(generation, int) else 0)


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
        resume = setting('state', 'resumed', module='rollout_pause')
        return RolloutStatus(False, 'deployment "%s" is paused, so its rollout cannot finish (%s). Resume it '
                             'first (rollout_pause with %s).' % (name, result.message.rstrip('.'), resume),
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


CHANGED_ELSEWHERE = 'ChangedElsewhere'


def unchanged_since(predicate, generation):
    """``predicate``, failed once the workload's spec moved past ``generation`` (the one this run's
    write produced): someone else changed it, and this run's rollout is no longer what runs."""
    def judge(obj):
        now = (obj.get('metadata') or {}).get('generation')
        if generation is not None and isinstance(now, int) and now > generation:
            return RolloutStatus(False, 'changed by someone else since the release wrote it (generation %s, '
                                 'now %s)' % (generation, now), CHANGED_ELSEWHERE, failed=True)
        return predicate(obj)
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


# ---- a canary held by a Deployment's pause --------------------------------------------------

def deployment_canary_status(obj):
    """A paused Deployment's canary: the controller has seen the pause, the new ReplicaSet has pods,
    and every pod is available."""
    spec, st = obj.get('spec') or {}, obj.get('status') or {}
    if not spec.get('paused') or not observed(obj):
        return RolloutStatus(False, 'Waiting for the pause to be observed...', SPEC_NOT_OBSERVED)
    updated, unavailable = st.get('updatedReplicas') or 0, st.get('unavailableReplicas') or 0
    if updated < 1 or unavailable > 0:
        return RolloutStatus(
            False, 'Waiting for the canary: %d new pods, %d pods unavailable...' % (updated, unavailable),
            CANARY_NOT_READY)
    return RolloutStatus(True, 'canary of %d pods ready' % updated, CANARY_READY)


def deployment_canary_started(before, written):
    """The predicate of a Deployment's first new pods after ``written``."""
    generation = (written.get('metadata') or {}).get('generation') or 0

    def predicate(obj):
        st = obj.get('status') or {}
        if (st.get('observedGeneration') or 0) < generation:
            return RolloutStatus(False, 'Waiting for the new template to be observed...', SPEC_NOT_OBSERVED)
        # A progress deadline or a failure of the new revision ends it as a rollout would end.
        verdict = after_change(deployment_status, before, written)(obj)
        if verdict.failed or verdict.done:
            return verdict
        if (st.get('updatedReplicas') or 0) >= 1:
            return RolloutStatus(True, 'the new ReplicaSet has pods', CANARY_STARTED)
        return RolloutStatus(False, 'Waiting for the first new pods...', CANARY_STARTING)
    return predicate

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import status

pytestmark = pytest.mark.unit


def dep(generation=2, observed=2, spec_replicas=3, paused=False, conditions=None, **st):
    """A Deployment with ``spec.replicas=spec_replicas``; keyword arguments are status fields."""
    d = {'metadata': {'name': 'web', 'generation': generation},
         'spec': {'replicas': spec_replicas},
         'status': dict({'observedGeneration': observed}, **st)}
    if paused:
        d['spec']['paused'] = True
    if conditions:
        d['status']['conditions'] = conditions
    return d


def test_until_terminated_waits_for_terminating_replicas_only_once_kubectls_rule_is_done():
    judge = status.until_terminated(status.deployment_status)
    done = {'updatedReplicas': 3, 'replicas': 3, 'availableReplicas': 3}
    result = judge(dep(terminatingReplicas=2, **done))
    assert (result.done, result.reason) == (False, status.TERMINATING)
    assert result.message == ('Waiting for deployment "web" rollout to finish: 2 old replicas are '
                              'terminating...')
    assert status.deployment_status(dep(terminatingReplicas=2, **done)).done  # kubectl's rule alone: done
    assert judge(dep(terminatingReplicas=0, **done)).done and judge(dep(**done)).done
    # an unfinished rollout keeps its own reason
    assert judge(dep(updatedReplicas=1, replicas=3, terminatingReplicas=1)).reason == 'UpdatingReplicas'


@pytest.mark.parametrize('obj, done, reason, message', [
    (dep(generation=3, observed=2), False, 'SpecNotObserved',
     'Waiting for deployment spec update to be observed...'),
    (dep(updatedReplicas=1, replicas=3), False, 'UpdatingReplicas',
     'Waiting for deployment "web" rollout to finish: 1 out of 3 new replicas have been updated...'),
    (dep(updatedReplicas=3, replicas=4), False, 'OldReplicasPendingTermination',
     'Waiting for deployment "web" rollout to finish: 1 old replicas are pending termination...'),
    (dep(updatedReplicas=3, replicas=3, availableReplicas=2), False, 'ReplicasUnavailable',
     'Waiting for deployment "web" rollout to finish: 2 of 3 updated replicas are available...'),
    (dep(updatedReplicas=3, replicas=3, availableReplicas=3), True, 'Complete',
     'deployment "web" successfully rolled out'),
])
def test_deployment_rules(obj, done, reason, message):
    result = status.deployment_status(obj)
    assert (result.done, result.reason, result.message, result.failed) == (done, reason, message, False)


def test_deployment_progress_deadline_fails():
    obj = dep(updatedReplicas=1, conditions=[
        {'type': 'Available', 'status': 'True', 'reason': 'MinimumReplicasAvailable'},
        {'type': 'Progressing', 'status': 'False', 'reason': 'ProgressDeadlineExceeded'}])
    result = status.deployment_status(obj)
    assert result.failed and not result.done
    assert result.message == 'deployment "web" exceeded its progress deadline'


def test_paused_deployment_fails_at_once_unless_complete():
    stuck = status.deployment_status(dep(paused=True, updatedReplicas=0))
    assert stuck.failed and stuck.reason == 'Paused' and 'resume' in stuck.message.lower()
    complete = status.deployment_status(dep(paused=True, updatedReplicas=3, replicas=3, availableReplicas=3))
    assert complete.done


def test_deployment_zero_replicas_is_done():
    assert status.deployment_status(dep(spec_replicas=0)).done


def ds(generation=1, observed=1, strategy='RollingUpdate', **st):
    return {'metadata': {'name': 'agent', 'generation': generation},
            'spec': {'updateStrategy': {'type': strategy}},
            'status': dict({'observedGeneration': observed}, **st)}


def test_daemonset_rules():
    assert status.daemonset_status(ds(2, 1)).reason == 'SpecNotObserved'
    r = status.daemonset_status(ds(desiredNumberScheduled=3, updatedNumberScheduled=1))
    assert r.message == ('Waiting for daemon set "agent" rollout to finish: 1 out of 3 new pods have been '
                         'updated...')
    r = status.daemonset_status(ds(desiredNumberScheduled=3, updatedNumberScheduled=3, numberAvailable=2))
    assert r.message == ('Waiting for daemon set "agent" rollout to finish: 2 of 3 updated pods are '
                         'available...')
    r = status.daemonset_status(ds(desiredNumberScheduled=3, updatedNumberScheduled=3, numberAvailable=3))
    assert r.done and r.message == 'daemon set "agent" successfully rolled out'


def test_on_delete_strategy_is_unsupported():
    r = status.daemonset_status(ds(strategy='OnDelete'))
    assert r.failed and r.message == 'rollout status is only available for RollingUpdate strategy type'
    sts = {'metadata': {'name': 'db', 'generation': 1}, 'spec': {'updateStrategy': {'type': 'OnDelete'}},
           'status': {}}
    assert status.statefulset_status(sts).reason == 'UnsupportedStrategy'


def sts(partition=0, rolling=True, replicas=3, generation=2, **st):
    strategy = {'type': 'RollingUpdate'}
    if rolling:
        strategy['rollingUpdate'] = {'partition': partition}
    return {'metadata': {'name': 'db', 'generation': generation},
            'spec': {'replicas': replicas, 'updateStrategy': strategy},
            'status': dict({'observedGeneration': 2}, **st)}


def test_statefulset_rules():
    assert status.statefulset_status(sts(generation=3)).reason == 'SpecNotObserved'
    r = status.statefulset_status(sts(readyReplicas=1))
    assert r.message == 'Waiting for 2 pods to be ready...'
    r = status.statefulset_status(sts(readyReplicas=3, updatedReplicas=1))
    assert r.message == 'Waiting for partitioned roll out to finish: 1 out of 3 new pods have been updated...'
    r = status.statefulset_status(sts(partition=2, readyReplicas=3, updatedReplicas=1))
    assert r.done and r.message == 'partitioned roll out complete: 1 new pods have been updated...'
    r = status.statefulset_status(sts(rolling=False, readyReplicas=3, updatedReplicas=1,
                                      currentRevision='db-1', updateRevision='db-2'))
    assert not r.done
    assert r.message == 'waiting for statefulset rolling update to complete 1 pods at revision db-2...'
    r = status.statefulset_status(sts(rolling=False, readyReplicas=3, currentReplicas=3,
                                      currentRevision='db-2', updateRevision='db-2'))
    assert r.done and r.message == 'statefulset rolling update complete 3 pods at revision db-2...'


def test_statefulset_never_observed_waits():
    obj = sts(readyReplicas=3)
    obj['status'].pop('observedGeneration')
    assert status.statefulset_status(obj).reason == 'SpecNotObserved'


def test_observed_compares_generations():
    assert status.observed({'metadata': {'generation': 3}, 'status': {'observedGeneration': 3}})
    assert not status.observed({'metadata': {'generation': 4}, 'status': {'observedGeneration': 3}})
    assert not status.observed({'metadata': {'generation': 1}, 'status': {}})
    assert status.observed({'metadata': {}, 'status': {}})
    assert not status.observed({'metadata': {'generation': 2}, 'status': {'observedGeneration': '2'}})


def test_observed_status():
    assert status.observed_status(dep(generation=2, observed=2)).done
    assert not status.observed_status(dep(generation=3, observed=2)).done


def _deadline(updated_at):
    return {'type': 'Progressing', 'status': 'False', 'reason': 'ProgressDeadlineExceeded',
            'lastUpdateTime': updated_at, 'lastTransitionTime': updated_at,
            'message': 'ReplicaSet "web-2" has timed out progressing.'}


def test_after_change_ignores_the_deadline_the_previous_rollout_left():
    # Shaped as the Deployment controller leaves it after an undo whose first sync saw no progress:
    # the new generation observed, the old condition written back unchanged.
    before = dep(generation=2, observed=2, updatedReplicas=1, replicas=2, conditions=[_deadline('T1')])
    judge = status.after_change(status.deployment_status, before)
    after_undo = dep(generation=3, observed=3, spec_replicas=1, updatedReplicas=1, replicas=2,
                     conditions=[_deadline('T1')])
    result = judge(after_undo)
    assert (result.done, result.failed, result.reason) == (False, False, 'OldReplicasPendingTermination')
    assert after_undo['status']['conditions'] == [_deadline('T1')]  # the object itself is untouched
    # A deadline this rollout exceeds has a new lastUpdateTime: it fails as kubectl says.
    again = dep(generation=3, observed=3, updatedReplicas=1, replicas=2, conditions=[_deadline('T2')])
    assert judge(again).failed and judge(again).reason == 'ProgressDeadlineExceeded'
    # kubectl's rule alone fails the rollback at once.
    assert status.deployment_status(after_undo).failed


def test_after_change_keeps_the_predicate_when_nothing_was_exceeded():
    before = dep(conditions=[{'type': 'Progressing', 'status': 'True', 'reason': 'NewReplicaSetAvailable'}])
    assert status.after_change(status.deployment_status, before) is status.deployment_status


def test_after_change_also_ignores_a_deadline_written_between_the_read_and_the_write():
    # The read saw the old rollout still progressing; the controller then declared its deadline
    # exceeded, and the write's answer carries that condition: it too is the previous rollout's.
    before = dep(generation=2, observed=2, updatedReplicas=1, replicas=2, conditions=[
        {'type': 'Progressing', 'status': 'True', 'reason': 'ReplicaSetUpdated', 'lastUpdateTime': 'T0'}])
    written = dep(generation=3, observed=2, updatedReplicas=1, replicas=2, conditions=[_deadline('T1')])
    judge = status.after_change(status.deployment_status, before, written)
    after_undo = dep(generation=3, observed=3, spec_replicas=1, updatedReplicas=1, replicas=2,
                     conditions=[_deadline('T1')])
    assert not judge(after_undo).failed
    assert status.after_change(status.deployment_status, before) is status.deployment_status
    again = dep(generation=3, observed=3, updatedReplicas=1, replicas=2, conditions=[_deadline('T2')])
    assert judge(again).failed and judge(again).reason == 'ProgressDeadlineExceeded'

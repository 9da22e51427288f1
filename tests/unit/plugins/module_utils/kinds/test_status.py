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


def test_observed_status():
    assert status.observed_status(dep(generation=2, observed=2)).done
    assert not status.observed_status(dep(generation=3, observed=2)).done


class FakeWatchClient:
    """Plays back watch streams; records the watch requests."""

    def __init__(self, streams, fresh=None):
        self.streams = list(streams)
        self.calls = []
        self.fresh = fresh

    def watch(self, path, resource_version=None, field_selector=None, timeout_seconds=None, **_):
        self.calls.append((path, resource_version, field_selector, timeout_seconds))
        stream = self.streams.pop(0) if self.streams else []
        for ev in stream:
            if isinstance(ev, Exception):
                raise ev
            yield ev

    def get(self, path):
        return self.fresh


def with_rv(obj, rv):
    obj['metadata']['resourceVersion'] = rv
    return obj


def test_wait_for_watches_from_resource_version_and_rewatches_after_stream_end():
    start = with_rv(dep(updatedReplicas=1), '10')
    streams = [
        [('MODIFIED', with_rv(dep(updatedReplicas=2), '11'))],  # server ends the stream
        [('BOOKMARK', {'metadata': {'resourceVersion': '15'}}),
         ('MODIFIED', with_rv(dep(updatedReplicas=3, replicas=3, availableReplicas=3), '16'))],
    ]
    client = FakeWatchClient(streams)
    result = status.wait_for(client, '/apis/apps/v1/namespaces/default/deployments', start,
                             status.deployment_status, timeout=30)
    assert result.done
    assert [c[1] for c in client.calls] == ['10', '11']
    assert client.calls[0][0] == '/apis/apps/v1/namespaces/default/deployments'
    assert client.calls[0][2] == 'metadata.name=web'
    assert client.calls[0][3] <= 30


def test_wait_for_times_out():
    clock = iter([0, 0, 5, 11, 11, 11]).__next__
    client = FakeWatchClient([[('MODIFIED', with_rv(dep(updatedReplicas=1), '11'))], []])
    result = status.wait_for(client, '/p', with_rv(dep(updatedReplicas=0), '10'), status.deployment_status,
                             timeout=10, clock=clock)
    assert result.reason == 'Timeout' and not result.done
    assert 'timed out after 10s' in result.message and '1 out of 3' in result.message


def test_wait_for_deleted_and_gone():
    from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError
    client = FakeWatchClient([[('DELETED', with_rv(dep(), '12'))]])
    r = status.wait_for(client, '/p', with_rv(dep(updatedReplicas=0), '10'), status.deployment_status, 30)
    assert r.reason == 'Deleted' and r.failed
    fresh = with_rv(dep(updatedReplicas=3, replicas=3, availableReplicas=3), '99')
    client = FakeWatchClient([[ApiError(410, 'Expired', 'too old resource version')]], fresh=fresh)
    r = status.wait_for(client, '/p', with_rv(dep(updatedReplicas=0), '10'), status.deployment_status, 30)
    assert r.done


def test_wait_all_runs_concurrently_and_keeps_order():
    import threading
    import time

    barrier = threading.Barrier(3, timeout=5)

    class SlowClient(FakeWatchClient):
        def watch(self, path, **kw):
            barrier.wait()  # only passes if all three waits run at the same time
            time.sleep(0.01)
            yield ('MODIFIED', with_rv(dep(updatedReplicas=3, replicas=3, availableReplicas=3), '20'))

    jobs = [('/p', with_rv(dep(updatedReplicas=0), str(i)), status.deployment_status) for i in range(3)]
    results = status.wait_all(SlowClient([]), jobs, timeout=10)
    assert [r.done for r in results] == [True, True, True]


def test_wait_all_answers_settled_workloads_in_the_calling_thread_and_waits_for_the_rest():
    import threading

    threads = []

    class RecordingClient(FakeWatchClient):
        def watch(self, path, **kw):
            threads.append(threading.current_thread())
            return super(RecordingClient, self).watch(path, **kw)

    complete = {'updatedReplicas': 3, 'replicas': 3, 'availableReplicas': 3}
    deadline = [_deadline('2026-01-01T00:00:00Z')]

    def broken(obj):
        raise ValueError('no status')

    jobs = [('/p', with_rv(dep(**complete), '1'), status.deployment_status),
            ('/p', with_rv(dep(updatedReplicas=1), '2'), status.deployment_status),
            ('/p', with_rv(dep(conditions=deadline), '3'), status.deployment_status),
            ('/p', with_rv(dep(**complete), '4'), broken)]
    client = RecordingClient([[('MODIFIED', with_rv(dep(**complete), '5'))]])
    seen = []
    results = status.wait_all(client, jobs, timeout=10,
                              progress=lambda obj, res: seen.append((obj['metadata']['resourceVersion'],
                                                                     threading.current_thread())))
    assert results[0].done and results[1].done
    assert results[2].failed and results[2].reason == status.DEADLINE_EXCEEDED
    assert 'no status' in str(results[3])
    # One watch, for the one workload not yet done, from a thread of its own; the settled ones were
    # judged (and reported) in the calling thread without a request.
    assert [c[1] for c in client.calls] == ['2']
    assert threads and threads[0] is not threading.current_thread()
    main = threading.current_thread()
    assert ('1', main) in seen and ('3', main) in seen
    assert all(t is not main for rv, t in seen if rv in ('2', '5'))


def test_settled_says_whether_the_object_already_answers_the_wait():
    assert status.settled(dep(updatedReplicas=3, replicas=3, availableReplicas=3), status.deployment_status)
    assert status.settled(dep(conditions=[_deadline('2026-01-01T00:00:00Z')]), status.deployment_status)
    assert not status.settled(dep(updatedReplicas=1), status.deployment_status)

    def broken(obj):
        raise KeyError('status')

    assert not status.settled(dep(), broken)


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

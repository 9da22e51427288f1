"""The rollout engine: several rollouts waited for at once, settled ones judged without a request,
a diagnosis for a rollout that did not progress, the soak over those that completed, one fan-out."""

import re
import threading
import time

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError
from ansible_collections.kubeops.rollout.plugins.module_utils.engine import rollouts as engine_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.engine.rollouts import (
    Engine,
    Rollout,
    fan_out,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.wait_options import GateOptions
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import status
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workloads import Deployment

from tests.unit.plugins.module_utils.engine.test_watch import FakeWatchClient, with_rv
from tests.unit.plugins.module_utils.kinds.test_status import _deadline, dep

pytestmark = pytest.mark.unit

COMPLETE = {'updatedReplicas': 3, 'replicas': 3, 'availableReplicas': 3}


def deployment(rv, **st):
    obj = with_rv(dep(**st), rv)
    obj['metadata']['namespace'] = 'shop'
    return Deployment(obj)


def test_fan_out_keeps_order_runs_at_once_and_turns_exceptions_into_failures():
    barrier = threading.Barrier(3, timeout=5)

    def call(i):
        barrier.wait()  # passes only if the three run at the same time
        if i == 1:
            raise ApiError(500, 'InternalError', 'boom')
        return i

    results = fan_out([lambda i=i: call(i) for i in range(3)])
    assert results[0] == 0 and results[2] == 2
    assert results[1].failed and results[1].reason == engine_mod.REQUEST_FAILED
    assert results[1].error.status == 500 and 'boom' in results[1].message


def test_fan_out_of_one_call_stays_in_the_calling_thread():
    assert fan_out([threading.current_thread]) == [threading.current_thread()]


def test_wait_runs_the_rollouts_concurrently_and_keeps_order():
    barrier = threading.Barrier(3, timeout=5)

    class SlowClient(FakeWatchClient):
        def watch(self, path, **kw):
            barrier.wait()
            time.sleep(0.01)
            yield ('MODIFIED', with_rv(dep(**COMPLETE), '20'))

    rollouts = [Rollout(deployment(str(i), updatedReplicas=0)) for i in range(3)]
    results = Engine(SlowClient([]), GateOptions(fail_fast_seconds=0)).wait(rollouts, timeout=10)
    assert [r.done for r in results] == [True, True, True]
    assert all(r.result is res for r, res in zip(rollouts, results))
    assert rollouts[0].last['metadata']['resourceVersion'] == '20'


def test_settled_rollouts_are_judged_in_the_calling_thread_and_the_rest_waited_for():
    threads, lines = [], []

    class RecordingClient(FakeWatchClient):
        def watch(self, path, **kw):
            threads.append(threading.current_thread())
            return super(RecordingClient, self).watch(path, **kw)

    def broken(obj):
        raise ValueError('no status')

    client = RecordingClient([[('MODIFIED', with_rv(dep(**COMPLETE), '5'))]])
    rollouts = [Rollout(deployment('1', **COMPLETE)),
                Rollout(deployment('2', updatedReplicas=1)),
                Rollout(deployment('3', conditions=[_deadline('2026-01-01T00:00:00Z')]), gated=False),
                Rollout(deployment('4', **COMPLETE), predicate=broken)]
    engine = Engine(client, GateOptions(fail_fast_seconds=0),
                    progress=lambda line: lines.append((line, threading.current_thread())))
    results = engine.wait(rollouts, timeout=10)
    assert results[0].done and results[1].done
    assert results[2].failed and results[2].reason == status.DEADLINE_EXCEEDED
    assert results[3].failed and 'no status' in results[3].message and results[3].reason == engine_mod.ERROR
    # One watch, for the one workload not yet done, from a thread of its own.
    assert [c[1] for c in client.calls] == ['2']
    assert threads and threads[0] is not threading.current_thread()
    main = threading.current_thread()
    assert any(t is main and 'successfully rolled out' in line for line, t in lines)
    assert all(line.startswith('Deployment shop/web: ') for line, _t in lines)


class DiagnosisClient(FakeWatchClient):
    """Answers the LISTs of a diagnosis: one pod of the new ReplicaSet in an image pull back-off."""

    def __init__(self, streams, fail_lists=False):
        super(DiagnosisClient, self).__init__(streams)
        self.fail_lists = fail_lists
        self.lists = []

    def list(self, path, **kw):
        self.lists.append(path)
        if self.fail_lists:
            raise ApiError(500, 'InternalError', 'etcd is down')
        if path.endswith('/replicasets'):
            meta = {'name': 'web-abc', 'uid': 'rs1', 'labels': {'pod-template-hash': 'abc'},
                    'ownerReferences': [{'uid': 'd1', 'controller': True}]}
            return {'items': [{'metadata': meta, 'spec': {'template': {}, 'replicas': 1}}]}
        if path.endswith('/pods'):
            waiting = {'reason': 'ImagePullBackOff', 'message': 'Back-off pulling image'}
            container = {'name': 'app', 'image': 'bad', 'state': {'waiting': waiting}}
            return {'items': [{'metadata': {'name': 'web-abc-1', 'labels': {'pod-template-hash': 'abc'}},
                               'status': {'phase': 'Pending', 'containerStatuses': [container]}}]}
        return {'items': []}


def test_a_rollout_that_times_out_is_diagnosed_and_a_diagnosis_that_cannot_be_read_says_so():
    for fail_lists in (False, True):
        clock = iter([0, 0, 5, 11, 11, 11, 11, 11]).__next__
        later = deployment('11', updatedReplicas=1).obj
        for obj in (later,):
            obj['metadata']['uid'] = 'd1'
            obj['spec']['template'] = {}
        client = DiagnosisClient([[('MODIFIED', later)], []], fail_lists)
        rollout = Rollout(deployment('10', updatedReplicas=0))
        (result,) = Engine(client, GateOptions(fail_fast_seconds=0), clock=clock).wait([rollout], timeout=10)
        assert result.reason == status.TIMEOUT
        assert client.lists, 'the pods were looked at'
        lines = result.diagnosis['lines']
        if fail_lists:
            assert 'etcd is down' in ' '.join(lines), lines
        else:
            assert any('ImagePullBackOff' in line for line in lines), lines


def test_a_custom_wait_is_not_diagnosed():
    clock = iter([0, 0, 5, 11, 11, 11]).__next__
    client = DiagnosisClient([[('MODIFIED', with_rv(dep(updatedReplicas=1), '11'))], []])
    rollout = Rollout(deployment('10', updatedReplicas=0), gated=False)
    (result,) = Engine(client, GateOptions(fail_fast_seconds=0), clock=clock).wait([rollout], timeout=10)
    assert result.reason == status.TIMEOUT and result.diagnosis is None and client.lists == []


def test_a_drive_replaces_the_watch():
    seen = []

    def drive(engine, rollout, timeout):
        seen.append((rollout.label, timeout))
        return status.RolloutStatus(True, 'driven', 'Driven')

    rollout = Rollout(deployment('1', updatedReplicas=0), drive=drive)
    (result,) = Engine(FakeWatchClient([])).wait([rollout], 7)
    assert result.reason == 'Driven' and seen == [('Deployment shop/web', 7)]


def test_the_probes_of_five_gated_rollouts_of_a_namespace_share_a_reader_the_wait_closes(monkeypatch):
    made, seen = [], []

    class Reader:
        def __init__(self, client, ttl, clock=None, watch_seconds=None):
            self.ttl, self.watch_seconds, self.closed = ttl, watch_seconds, False
            made.append(self)

        def close(self):
            self.closed = True

    def drive(engine, rollout, timeout):
        seen.append(engine._readers.get('shop'))
        return status.RolloutStatus(True, 'driven', 'Driven')

    monkeypatch.setattr(engine_mod, 'SharedLists', Reader)
    engine = Engine(FakeWatchClient([]), GateOptions(fail_fast_seconds=15))
    many = [Rollout(deployment(str(i), updatedReplicas=0), drive=drive)
            for i in range(engine_mod.SHARED_READS_FROM)]
    engine.wait(many, 10)
    assert len(made) == 1 and seen == made * len(many) and made[0].ttl == 5
    # Its watches last long: a watch is sent again when the server ends it, not at every probe.
    assert made[0].watch_seconds == engine_mod.WAIT_WATCH_SECONDS
    assert made[0].closed and engine._readers == {}  # its watches end with the wait
    del seen[:]
    engine.wait(many[1:], 10)  # fewer: each probe reads through the client with its own selectors
    assert len(made) == 1 and seen == [None] * (len(many) - 1)


def test_soak_without_gates_changes_nothing_and_runs_nothing():
    engine = Engine(FakeWatchClient([]), GateOptions(soak_seconds=0))
    rollout = Rollout(deployment('1', **COMPLETE))
    rollout.result = status.RolloutStatus(True, 'ok', status.COMPLETE)
    assert engine.soak([rollout]) == [rollout.result] and not engine.soaked


def test_notes_say_what_is_waited_for_each_end_and_a_heartbeat_while_it_lasts():
    release = threading.Event()

    class SlowClient(FakeWatchClient):
        def watch(self, path, **kw):
            release.wait(5)  # until the heartbeat has spoken
            yield ('MODIFIED', with_rv(dep(**COMPLETE), '20'))

    notes = []

    def note(line):
        notes.append(line)
        if line.startswith('still waiting'):
            release.set()

    rollouts = [Rollout(deployment('1', updatedReplicas=1), label='Deployment shop/a'),
                Rollout(deployment('2', updatedReplicas=1), label='Deployment shop/b')]
    engine = Engine(SlowClient([]), GateOptions(fail_fast_seconds=0), note=note, heartbeat=0.05)
    assert [r.done for r in engine.wait(rollouts, timeout=100)] == [True, True]
    assert notes[0] == 'waiting for 2 rollouts (up to 100 s): Deployment shop/a, Deployment shop/b'
    beat = [n for n in notes if n.startswith('still waiting')][0]
    assert re.match(r'still waiting for 2 of 2 rollouts: Deployment shop/a, Deployment shop/b '
                    r'\(0 s so far, at most (99|100) s more\)$', beat), beat
    assert sorted(notes[-2:]) == ['Deployment shop/a: rolled out', 'Deployment shop/b: rolled out']


def test_without_notes_no_heartbeat_thread_is_started():
    engine = Engine(FakeWatchClient([[('MODIFIED', with_rv(dep(**COMPLETE), '5'))]]),
                    GateOptions(fail_fast_seconds=0))
    names = []
    engine.wait([Rollout(deployment('1', updatedReplicas=1))], timeout=10)
    names.extend(t.name for t in threading.enumerate())
    assert engine.heartbeat is None and 'heartbeat' not in names

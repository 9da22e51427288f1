"""The waiter: one object followed by WATCH until a predicate says done or failed."""

import threading
import time

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.engine import watch
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import status

from tests.unit.plugins.module_utils.kinds.test_status import _deadline, dep

pytestmark = pytest.mark.unit


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
    result = watch.wait_for(client, '/apis/apps/v1/namespaces/default/deployments', start,
                             status.deployment_status, timeout=30)
    assert result.done
    assert [c[1] for c in client.calls] == ['10', '11']
    assert client.calls[0][0] == '/apis/apps/v1/namespaces/default/deployments'
    assert client.calls[0][2] == 'metadata.name=web'
    assert client.calls[0][3] <= 30


def test_wait_for_times_out():
    clock = iter([0, 0, 5, 11, 11, 11]).__next__
    client = FakeWatchClient([[('MODIFIED', with_rv(dep(updatedReplicas=1), '11'))], []])
    result = watch.wait_for(client, '/p', with_rv(dep(updatedReplicas=0), '10'), status.deployment_status,
                             timeout=10, clock=clock)
    assert result.reason == 'Timeout' and not result.done
    assert 'timed out after 10s' in result.message and '1 out of 3' in result.message


def test_wait_for_deleted_and_gone():
    from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError
    client = FakeWatchClient([[('DELETED', with_rv(dep(), '12'))]])
    r = watch.wait_for(client, '/p', with_rv(dep(updatedReplicas=0), '10'), status.deployment_status, 30)
    assert r.reason == 'Deleted' and r.failed
    fresh = with_rv(dep(updatedReplicas=3, replicas=3, availableReplicas=3), '99')
    client = FakeWatchClient([[ApiError(410, 'Expired', 'too old resource version')]], fresh=fresh)
    r = watch.wait_for(client, '/p', with_rv(dep(updatedReplicas=0), '10'), status.deployment_status, 30)
    assert r.done


def test_settled_says_whether_the_object_already_answers_the_wait():
    assert watch.settled(dep(updatedReplicas=3, replicas=3, availableReplicas=3), status.deployment_status)
    assert watch.settled(dep(conditions=[_deadline('2026-01-01T00:00:00Z')]), status.deployment_status)
    assert not watch.settled(dep(updatedReplicas=1), status.deployment_status)

    def broken(obj):
        raise KeyError('status')

    assert not watch.settled(dep(), broken)


class HeldClient(FakeWatchClient):
    """Each watch request: its ``events`` (``pause`` seconds apart), then a quiet stream held open
    until ``release`` (or 5 s)."""

    def __init__(self, events, pause=0.0):
        super().__init__([])
        self.events = list(events)
        self.pause = pause
        self.sent = []  # when each event was sent
        self.release = threading.Event()

    def watch(self, path, **kw):
        self.calls.append(kw)
        for event in self.events:
            time.sleep(self.pause)
            self.sent.append(time.monotonic())
            yield event
        self.events = []
        self.release.wait(5)


def test_the_probe_looks_at_a_rollout_only_once_it_stops_moving():
    client = HeldClient([('MODIFIED', with_rv(dep(updatedReplicas=n), str(10 + n))) for n in (1, 2, 3)],
                        pause=0.02)
    looked = []

    def probe(obj):
        looked.append((time.monotonic(), obj['status']['updatedReplicas']))
        return status.RolloutStatus(False, 'stuck', 'RolloutStuck', failed=True)

    start = with_rv(dep(updatedReplicas=0), '10')
    result = watch.wait_for(client, '/p', start, status.deployment_status, 30, probe=probe,
                            probe_interval=0.5)
    client.release.set()
    # Three moves 0.02 s apart (each within the interval): no look; then no move for 0.5 s: one look.
    assert result.reason == 'RolloutStuck'
    assert len(looked) == 1 and looked[0][1] == 3
    assert looked[0][0] - client.sent[-1] >= 0.5


def test_the_watch_stays_open_across_the_probes_looks():
    """A rollout that does not move is looked at every interval while one WATCH request stays open:
    the looks send no watch again."""
    client = HeldClient([('MODIFIED', with_rv(dep(updatedReplicas=1), '11'))])
    verdicts = [None, None, status.RolloutStatus(False, 'stuck', 'RolloutStuck', failed=True)]
    looked = []

    def probe(obj):
        looked.append(obj['status']['updatedReplicas'])
        return verdicts.pop(0)

    start = with_rv(dep(updatedReplicas=0), '10')
    result = watch.wait_for(client, '/p', start, status.deployment_status, 30, probe=probe,
                            probe_interval=0.05)
    client.release.set()
    assert result.reason == 'RolloutStuck'
    assert looked == [1, 1, 1]
    assert len(client.calls) == 1 and client.calls[0]['resource_version'] == '10'


def test_a_stopped_wait_with_a_probe_ends_without_an_event():
    client = HeldClient([])
    stop = threading.Event()
    threading.Timer(0.1, stop.set).start()
    began = time.monotonic()
    result = watch.wait_for(client, '/p', with_rv(dep(updatedReplicas=0), '10'), status.deployment_status,
                            30, probe=lambda obj: None, probe_interval=5, stopped=stop.is_set)
    client.release.set()
    assert result.reason == 'Timeout'
    assert time.monotonic() - began < watch.STOP_CHECK_SECONDS + 1
    assert len(client.calls) == 1

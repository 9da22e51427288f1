"""Which pods a ReplicaSet scale-down deletes, through a real socket.

With `LogarithmicScaleDown` (on by default) the ReplicaSet controller does not simply delete the
most recently ready pods: it compares how long two ready pods have been ready by the base-2
logarithm of that time in nanoseconds, measured from one `now` per sort and from the Ready
condition's `lastTransitionTime` (whole seconds), and within one such bucket deletes the pod with
the smaller UID first.

The scenario: four pods of a bare ReplicaSet (no owner, so no pod counts as doubled up with
related pods on its node), each ready in a later second than the one before, all Running, ready,
never restarted and without a deletion cost, so that the ready-time rule alone orders them. The
test reads the pods, picks a moment at which that rule and "most recently ready first" disagree
on the two victims of a scale-down to 2 (and at which no pod crosses a bucket boundary for a
second), scales down then, and checks the deleted pods against its own reading of the rule over
the whole time the controller may have sorted in. UIDs are random: when no moment in the next
ten seconds tells the two rules apart, the scenario starts over with a new ReplicaSet.
"""

import datetime
import math
import time

import pytest

from .conftest import wait_for

pytestmark = pytest.mark.kubesim

RSS = '/apis/apps/v1/namespaces/default/replicasets'
PODS = '/api/v1/namespaces/default/pods'
PODS_BEFORE, PODS_AFTER = 4, 2
ATTEMPTS = 5
# The controller must not see a pod change bucket between our reading and its sort.
STABLE_FOR = 1.0
HORIZON = 10.0
SECOND = 10**9


def replicaset(name):
    labels = {'app': name}
    return {'apiVersion': 'apps/v1', 'kind': 'ReplicaSet', 'metadata': {'name': name},
            'spec': {'replicas': 1, 'selector': {'matchLabels': labels},
                     'template': {'metadata': {'labels': labels},
                                  'spec': {'containers': [{'name': 'app', 'image': 'nginx:1.25'}]}}}}


def live_pods(http, name):
    status, _, body = http.get(f'{PODS}?labelSelector=app%3D{name}')
    assert status == 200, body
    return [p for p in body['items'] if not p['metadata'].get('deletionTimestamp')]


def ready_since(pod):
    """The Ready condition's lastTransitionTime in nanoseconds since the epoch (None if not ready)."""
    for cond in (pod.get('status') or {}).get('conditions') or []:
        if cond['type'] == 'Ready' and cond['status'] == 'True':
            stamp = datetime.datetime.strptime(cond['lastTransitionTime'], '%Y-%m-%dT%H:%M:%SZ')
            return int(stamp.replace(tzinfo=datetime.timezone.utc).timestamp()) * SECOND
    return None


def ready_pods(http, name, count):
    pods = live_pods(http, name)
    return pods if len(pods) == count and all(ready_since(p) for p in pods) else None


def bucket(since, now):
    """floor(log2(age in ns)), or -1 for an age that is not positive."""
    age = now - since
    return math.floor(math.log2(age)) if age > 0 else -1


def expected_victims(pods, now):
    """The pods deleted first at ``now``. All the pods are alike up to their ready times, which all
    differ: the smaller ready-age bucket goes first, the smaller UID within a bucket."""
    ranked = sorted(pods, key=lambda p: (bucket(ready_since(p), now), p['metadata']['uid']))
    return {p['metadata']['name'] for p in ranked[:PODS_BEFORE - PODS_AFTER]}


def most_recently_ready(pods):
    ranked = sorted(pods, key=ready_since, reverse=True)
    return {p['metadata']['name'] for p in ranked[:PODS_BEFORE - PODS_AFTER]}


def buckets_hold(pods, start, end):
    return all(bucket(ready_since(p), start) == bucket(ready_since(p), end) for p in pods)


def telling_moment(pods, earliest):
    """The first time from ``earliest`` on (ns) at which the two rules pick different victims and
    no pod's bucket changes for STABLE_FOR seconds; None if there is none within HORIZON."""
    step = SECOND // 20
    for at in range(earliest, earliest + int(HORIZON * SECOND), step):
        if (buckets_hold(pods, at, at + int(STABLE_FOR * SECOND))
                and expected_victims(pods, at) != most_recently_ready(pods)):
            return at
    return None


def four_pods_ready_in_different_seconds(http, name):
    status, _, body = http.post(RSS, replicaset(name))
    assert status == 201, body
    pods = wait_for(lambda: ready_pods(http, name, 1), what='the first pod to be ready', interval=0.02)
    for count in range(2, PODS_BEFORE + 1):
        # The next pod becomes ready in a later second than every pod so far.
        latest = max(ready_since(p) for p in pods)
        time.sleep(max(0.0, (latest + SECOND - time.time_ns()) / SECOND))
        status, _, body = http.patch(f'{RSS}/{name}', {'spec': {'replicas': count}},
                                     content_type='application/merge-patch+json')
        assert status == 200, body
        pods = wait_for(lambda count=count: ready_pods(http, name, count), what=f'{count} ready pods',
                        interval=0.02)
    return pods


def scale_down_at(http, name, pods, moment):
    """Scale down at ``moment``; returns (deleted pod names, sent, seen): the controller sorted at
    some time between sent and seen."""
    time.sleep(max(0.0, (moment - time.time_ns()) / SECOND))
    assert {p['metadata']['name'] for p in live_pods(http, name)} == {p['metadata']['name'] for p in pods}
    sent = time.time_ns()
    status, _, body = http.patch(f'{RSS}/{name}', {'spec': {'replicas': PODS_AFTER}},
                                 content_type='application/merge-patch+json')
    assert status == 200, body
    survivors = wait_for(lambda: (lambda left: left if len(left) == PODS_AFTER else None)(
        live_pods(http, name)), what='the scale-down', interval=0.02)
    seen = time.time_ns()
    return {p['metadata']['name'] for p in pods} - {p['metadata']['name'] for p in survivors}, sent, seen


def test_scale_down_ranks_ready_times_by_log2_buckets_then_uid(kubesim, http):
    for attempt in range(ATTEMPTS):
        name = f'ranked-{attempt}'
        pods = four_pods_ready_in_different_seconds(http, name)
        assert len({ready_since(p) for p in pods}) == PODS_BEFORE, 'ready times must all differ'
        for pod in pods:
            assert pod['spec'].get('nodeName') and pod['status']['phase'] == 'Running'
            assert all(c.get('restartCount', 0) == 0 for c in pod['status'].get('containerStatuses', []))
        moment = telling_moment(pods, time.time_ns() + SECOND // 5)
        if moment is None:
            continue  # these UIDs order the pods as their ready times do in every bucket
        deleted, sent, seen = scale_down_at(http, name, pods, moment)
        if not buckets_hold(pods, sent, seen):
            continue  # the scale-down outlasted the quiet second: the expectation is ambiguous
        expected = expected_victims(pods, sent)
        assert expected != most_recently_ready(pods)
        assert deleted == expected, {
            p['metadata']['name']: (p['metadata']['uid'], bucket(ready_since(p), sent),
                                    (sent - ready_since(p)) / SECOND) for p in pods}
        return
    pytest.fail(f'no conclusive scale-down in {ATTEMPTS} tries: the UIDs never set the ready-time '
                'buckets against "most recently ready first", or every scale-down was too slow')


# ---- the comparator itself, on hand-made pods -------------------------------------------------
def ranked_pod(uid, ready_at=None, created_at='2030-01-01T00:00:00Z', restarts=0):
    conditions = [{'type': 'Ready', 'status': 'True'}]
    if ready_at:
        conditions[0]['lastTransitionTime'] = ready_at
    return {'metadata': {'name': f'pod-{uid}', 'uid': uid, 'creationTimestamp': created_at},
            'spec': {'nodeName': 'node-1'},
            'status': {'phase': 'Running', 'conditions': conditions,
                       'containerStatuses': [{'name': 'app', 'restartCount': restarts}]}}


NOW = int(datetime.datetime(2030, 1, 1, 0, 1, 0, tzinfo=datetime.timezone.utc).timestamp()) * SECOND


@pytest.mark.parametrize('a, b, a_first', [
    # Ready 20 s and 30 s ago share bucket 34: the smaller UID goes first, restarts do not count.
    (ranked_pod('b', '2030-01-01T00:00:40Z', restarts=5), ranked_pod('a', '2030-01-01T00:00:30Z'), False),
    (ranked_pod('a', '2030-01-01T00:00:40Z'), ranked_pod('b', '2030-01-01T00:00:30Z', restarts=5), True),
    # 10 s (bucket 33) against 20 s (bucket 34): the more recently ready goes first, whatever the UIDs.
    (ranked_pod('z', '2030-01-01T00:00:50Z'), ranked_pod('a', '2030-01-01T00:00:40Z'), True),
    # The same ready time: restarts decide.
    (ranked_pod('z', '2030-01-01T00:00:40Z', restarts=1), ranked_pod('a', '2030-01-01T00:00:40Z'), True),
    # No transition time is a zero time: it goes first.
    (ranked_pod('z'), ranked_pod('a', '2030-01-01T00:00:59Z'), True),
    # Creation times: 60 s (bucket 35) against 10 s (bucket 33); 40 s and 35 s (bucket 35): the UID.
    (ranked_pod('a', created_at='2030-01-01T00:00:00Z'), ranked_pod('z', created_at='2030-01-01T00:00:50Z'),
     False),
    (ranked_pod('a', created_at='2030-01-01T00:00:20Z'), ranked_pod('z', created_at='2030-01-01T00:00:25Z'),
     True),
])
def test_less_useful_compares_times_by_log2_buckets_then_uid(a, b, a_first):
    from tests.kubesim.controllers.replicaset import less_useful

    assert less_useful(a, b, {}, NOW) is a_first
    assert less_useful(b, a, {}, NOW) is not a_first

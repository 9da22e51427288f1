"""kubectl against StatefulSets: ordinal pods, ControllerRevision history, undo, restart, partition,
OnDelete, scale, delete."""

import time

import pytest

from .conftest import eventually, image_of, is_kubesim, workload

pytestmark = pytest.mark.conformance

HASH = 'controller-revision-hash'


def revisions(kube, app='db'):
    """{revision number: ControllerRevision} of one StatefulSet."""
    return {cr['revision']: cr for cr in kube.items('controllerrevisions', '-l', f'app={app}')}


def pod_revisions(kube, app='db'):
    return {
        p['metadata']['name']: p['metadata']['labels'][HASH] for p in kube.items('pods', '-l', f'app={app}')
    }


def three_revisions(kube):
    kube.apply(workload('StatefulSet', 'db', 'redis:7.0'))
    kube.status('sts/db')
    for image in ('redis:7.2', 'redis:7.4'):
        kube('set', 'image', 'sts/db', f'app={image}')
        kube.status('sts/db')


def test_apply_creates_ordinal_pods_and_a_revision(kube):
    assert kube.apply(workload('StatefulSet', 'db', 'redis:7.0')) == 'statefulset.apps/db created\n'
    out = kube.status('sts/db').stdout
    # apps/v1 defaults the partition to 0, so kubectl reports a partitioned roll out.
    assert out.endswith('partitioned roll out complete: 3 new pods have been updated...\n')
    sts = kube.json('sts/db')
    [cr] = revisions(kube).values()
    assert cr['metadata']['ownerReferences'][0]['uid'] == sts['metadata']['uid']
    template = dict(sts['spec']['template'], **{'$patch': 'replace'})
    assert cr['data'] == {'spec': {'template': template}}
    assert pod_revisions(kube) == {f'db-{i}': cr['metadata']['name'] for i in range(3)}
    status = sts['status']
    assert status['currentRevision'] == status['updateRevision'] == cr['metadata']['name']
    counts = {k: status[k] for k in ('replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas')}
    assert counts == {'replicas': 3, 'readyReplicas': 3, 'currentReplicas': 3, 'updatedReplicas': 3}


def test_set_image_history_and_undo(kube):
    three_revisions(kube)
    assert [rev for rev, _cause in kube.history('sts/db')] == [1, 2, 3]
    detail = kube('rollout', 'history', 'sts/db', '--revision=2').stdout
    assert detail.startswith('statefulset.apps/db with revision #2\nPod Template:\n')
    assert 'Image:\tredis:7.2' in detail
    second = revisions(kube)[2]['metadata']['name']

    assert kube('rollout', 'undo', 'sts/db', '--to-revision=2').stdout == 'statefulset.apps/db rolled back\n'
    kube.status('sts/db')
    eventually(lambda: set(pod_revisions(kube).values()) == {second}, 'every pod at revision 2')
    assert [rev for rev, _cause in kube.history('sts/db')] == [1, 3, 4]
    assert revisions(kube)[4]['metadata']['name'] == second  # the old revision, renumbered
    assert image_of(kube.json('sts/db')) == 'redis:7.2'

    out = kube('rollout', 'undo', 'sts/db', '--to-revision=4')
    assert (
        out.stdout == 'statefulset.apps/db skipped rollback (current template already matches revision 4)\n'
    )
    assert kube('rollout', 'undo', 'sts/db').stdout == 'statefulset.apps/db rolled back\n'
    kube.status('sts/db')
    assert [rev for rev, _cause in kube.history('sts/db')] == [1, 4, 5]
    assert image_of(kube.json('sts/db')) == 'redis:7.4'
    out = kube('rollout', 'undo', 'sts/db', '--to-revision=42', ok=False)
    assert 'unable to find specified revision 42 in history' in out.stderr


def test_rolling_update_replaces_pods_from_the_highest_ordinal(kube, cluster):
    kube.apply(workload('StatefulSet', 'db', 'redis:7.0'))
    kube.status('sts/db')
    before = {p['metadata']['name']: p['metadata']['uid'] for p in kube.items('pods', '-l', 'app=db')}
    start = time.monotonic()  # the readiness log's clock
    kube('set', 'image', 'sts/db', 'app=redis:7.2')
    eventually(
        lambda: (
            (s := kube.json('sts/db')['status']).get('currentRevision') == s['updateRevision']
            and s.get('readyReplicas') == 3
            and s.get('observedGeneration') == 2
        ),
        'the update to complete',
    )
    after = {p['metadata']['name']: p for p in kube.items('pods', '-l', 'app=db')}
    assert sorted(after) == ['db-0', 'db-1', 'db-2']
    assert all(after[n]['metadata']['uid'] != before[n] for n in after)
    assert {p['spec']['containers'][0]['image'] for p in after.values()} == {'redis:7.2'}
    if is_kubesim(cluster):
        log = [e for e in cluster.readiness_log if e['namespace'] == kube.namespace and e['t'] >= start]
        assert [e['pod'] for e in log if e['event'] == 'deleted'] == ['db-2', 'db-1', 'db-0']
        # One at a time: each pod is back and ready before the next one goes; a pod of the same
        # name can only be created once the old one is gone (its containers stopped).
        assert [(e['event'], e['pod']) for e in log] == [
            (event, f'db-{i}') for i in (2, 1, 0) for event in ('deleted', 'removed', 'created', 'ready')
        ]


def test_partition_holds_back_lower_ordinals(kube):
    kube.apply(
        workload(
            'StatefulSet',
            'db',
            'redis:7.0',
            updateStrategy={'type': 'RollingUpdate', 'rollingUpdate': {'partition': 2}},
        )
    )
    kube.status('sts/db')
    old = kube.json('sts/db')['status']['currentRevision']
    kube('set', 'image', 'sts/db', 'app=redis:7.2')
    out = kube.status('sts/db').stdout
    assert out.endswith('partitioned roll out complete: 1 new pods have been updated...\n')
    new = kube.json('sts/db')['status']['updateRevision']
    assert new != old
    assert pod_revisions(kube) == {'db-0': old, 'db-1': old, 'db-2': new}
    status = kube.json('sts/db')['status']
    assert (status['currentRevision'], status['currentReplicas'], status['updatedReplicas']) == (old, 2, 1)

    kube('patch', 'sts/db', '-p', '{"spec":{"updateStrategy":{"rollingUpdate":{"partition":0}}}}')
    eventually(lambda: set(pod_revisions(kube).values()) == {new}, 'the rest of the pods to update')
    eventually(
        lambda: kube.json('sts/db')['status'].get('currentRevision') == new, 'currentRevision to advance'
    )


def test_on_delete_and_client_side_refusals(kube):
    kube.apply(workload('StatefulSet', 'db', 'redis:7.0', replicas=2, updateStrategy={'type': 'OnDelete'}))
    eventually(lambda: kube.json('sts/db').get('status', {}).get('readyReplicas') == 2, 'two ready pods')
    out = kube.status('sts/db', ok=False)
    assert 'rollout status is only available for RollingUpdate strategy type' in out.stderr
    assert 'pausing is not supported' in kube('rollout', 'pause', 'sts/db', ok=False).stderr
    assert 'resuming is not supported' in kube('rollout', 'resume', 'sts/db', ok=False).stderr
    old = kube.json('sts/db')['status']['currentRevision']
    kube('set', 'image', 'sts/db', 'app=redis:7.2')
    eventually(lambda: kube.json('sts/db')['status'].get('observedGeneration') == 2, 'the new generation')
    new = kube.json('sts/db')['status']['updateRevision']
    assert pod_revisions(kube) == {'db-0': old, 'db-1': old}
    kube('delete', 'pod', 'db-0')
    eventually(
        lambda: (
            pod_revisions(kube).get('db-0') == new and kube.json('sts/db')['status'].get('readyReplicas') == 2
        ),
        'db-0 recreated at the new revision',
    )
    assert pod_revisions(kube)['db-1'] == old


def test_restart_replaces_every_pod(kube):
    kube.apply(workload('StatefulSet', 'db', 'redis:7.0', replicas=2))
    kube.status('sts/db')
    first = kube.json('sts/db')['status']['currentRevision']
    assert kube('rollout', 'restart', 'sts/db').stdout == 'statefulset.apps/db restarted\n'
    sts = kube.json('sts/db')
    assert 'kubectl.kubernetes.io/restartedAt' in sts['spec']['template']['metadata']['annotations']
    eventually(
        lambda: (
            (s := kube.json('sts/db')['status']).get('currentRevision') == s['updateRevision'] != first
            and s.get('readyReplicas') == 2
        ),
        'the restart',
    )
    assert [rev for rev, _cause in kube.history('sts/db')] == [1, 2]


def test_scale_up_and_down_by_ordinal(kube):
    kube.apply(workload('StatefulSet', 'db', 'redis:7.0', replicas=1))
    kube.status('sts/db')
    assert kube('scale', 'sts/db', '--replicas=3').stdout == 'statefulset.apps/db scaled\n'
    kube.status('sts/db')
    assert sorted(pod_revisions(kube)) == ['db-0', 'db-1', 'db-2']
    kube('scale', 'sts/db', '--replicas=1')
    eventually(lambda: sorted(pod_revisions(kube)) == ['db-0'], 'the scale-down to db-0')
    assert kube.history('sts/db') == [(1, '<none>')]


def test_delete_removes_pods_and_revisions(kube):
    kube.apply(workload('StatefulSet', 'db', 'redis:7.0', replicas=2))
    kube.status('sts/db')
    assert kube('delete', 'sts/db').stdout.startswith('statefulset.apps "db" deleted')
    eventually(lambda: kube.items('pods', '-l', 'app=db') == [], 'the pods to go')
    assert kube.items('controllerrevisions', '-l', 'app=db') == []

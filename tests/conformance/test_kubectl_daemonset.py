"""kubectl against DaemonSets: one pod per node, ControllerRevision history, undo, restart, delete."""

import json
import time

import pytest

from .conftest import eventually, image_of, is_kubesim, workload

pytestmark = pytest.mark.conformance

HASH = 'controller-revision-hash'


def revisions(kube, app='agent'):
    return {cr['revision']: cr for cr in kube.items('controllerrevisions', '-l', f'app={app}')}


def nodes(kube):
    proc = kube.runner('get', 'nodes', '-o', 'json', check=True)
    return sorted(n['metadata']['name'] for n in json.loads(proc.stdout)['items'])


def pods_by_node(kube, app='agent'):
    return {p['spec']['nodeName']: p for p in kube.live_pods('-l', f'app={app}')}


def test_one_pod_per_node(kube):
    assert kube.apply(workload('DaemonSet', 'agent', 'fluentd:1.0')) == 'daemonset.apps/agent created\n'
    assert kube.status('ds/agent').stdout.endswith('daemon set "agent" successfully rolled out\n')
    all_nodes = nodes(kube)
    assert sorted(pods_by_node(kube)) == all_nodes
    ds = kube.json('ds/agent')
    [cr] = revisions(kube).values()
    rev_hash = cr['metadata']['labels'][HASH]
    assert cr['metadata']['name'] == f'agent-{rev_hash}'
    assert {p['metadata']['labels'][HASH] for p in pods_by_node(kube).values()} == {rev_hash}
    status = ds['status']
    n = len(all_nodes)
    assert (
        status['desiredNumberScheduled'],
        status['currentNumberScheduled'],
        status['numberReady'],
        status['updatedNumberScheduled'],
        status['numberAvailable'],
        status['numberMisscheduled'],
    ) == (n, n, n, n, n, 0)


def test_set_image_history_and_undo(kube):
    # Each new pod counts as available 5 s after it is ready (0.5 s on kubesim's faster clock), so a
    # rollout lasts long enough for kubectl to start watching it, whatever the machine's load.
    kube.apply(workload('DaemonSet', 'agent', 'fluentd:1.0', minReadySeconds=5))
    kube.status('ds/agent')
    for image in ('fluentd:1.1', 'fluentd:1.2'):
        kube('set', 'image', 'ds/agent', f'app={image}')
        out = kube.status('ds/agent').stdout
        # Which progress line kubectl sees first depends on how far the rollout got before it looked.
        assert 'Waiting for daemon set "agent" rollout to finish: ' in out
        assert out.endswith('daemon set "agent" successfully rolled out\n')
    assert [rev for rev, _cause in kube.history('ds/agent')] == [1, 2, 3]
    assert 'Image:\tfluentd:1.1' in kube('rollout', 'history', 'ds/agent', '--revision=2').stdout
    second = revisions(kube)[2]['metadata']['labels'][HASH]

    assert (
        kube('rollout', 'undo', 'ds/agent', '--to-revision=2').stdout == 'daemonset.apps/agent rolled back\n'
    )
    kube.status('ds/agent')
    assert [rev for rev, _cause in kube.history('ds/agent')] == [1, 3, 4]
    assert revisions(kube)[4]['metadata']['labels'][HASH] == second
    assert image_of(kube.json('ds/agent')) == 'fluentd:1.1'
    eventually(
        lambda: {p['metadata']['labels'][HASH] for p in pods_by_node(kube).values()} == {second},
        'every pod at revision 2',
    )
    out = kube('rollout', 'undo', 'ds/agent', '--to-revision=4')
    assert (
        out.stdout == 'daemonset.apps/agent skipped rollback (current template already matches revision 4)\n'
    )
    assert (
        'unable to find specified revision 7 in history'
        in kube('rollout', 'undo', 'ds/agent', '--to-revision=7', ok=False).stderr
    )


def test_rolling_update_keeps_all_but_max_unavailable(kube, cluster):
    kube.apply(workload('DaemonSet', 'agent', 'fluentd:1.0'))
    kube.status('ds/agent')
    start = time.monotonic()  # the readiness log's clock
    kube('set', 'image', 'ds/agent', 'app=fluentd:1.1')
    kube.status('ds/agent')
    assert {p['spec']['containers'][0]['image'] for p in pods_by_node(kube).values()} == {'fluentd:1.1'}
    if is_kubesim(cluster):
        from tests.kubesim.timeline import extremes, workload_timeline

        n = len(nodes(kube))
        timeline = workload_timeline(cluster.readiness_log, kube.namespace, 'DaemonSet', 'agent', since=start)
        assert extremes(timeline) == (n, n - 1)  # maxUnavailable 1, maxSurge 0


def test_restart_and_client_side_refusals(kube):
    kube.apply(workload('DaemonSet', 'agent', 'fluentd:1.0'))
    kube.status('ds/agent')
    before = {p['metadata']['uid'] for p in pods_by_node(kube).values()}
    assert kube('rollout', 'restart', 'ds/agent').stdout == 'daemonset.apps/agent restarted\n'
    kube.status('ds/agent')
    after = {p['metadata']['uid'] for p in pods_by_node(kube).values()}
    assert len(after) == len(before) and not before & after
    ds = kube.json('ds/agent')
    assert 'kubectl.kubernetes.io/restartedAt' in ds['spec']['template']['metadata']['annotations']
    assert 'pausing is not supported' in kube('rollout', 'pause', 'ds/agent', ok=False).stderr
    assert 'resuming is not supported' in kube('rollout', 'resume', 'ds/agent', ok=False).stderr


def test_delete_removes_pods_and_revisions(kube):
    kube.apply(workload('DaemonSet', 'agent', 'fluentd:1.0'))
    kube.status('ds/agent')
    assert kube('delete', 'ds/agent').stdout.startswith('daemonset.apps "agent" deleted')
    eventually(lambda: kube.items('pods', '-l', 'app=agent') == [], 'the pods to go')
    assert kube.items('controllerrevisions', '-l', 'app=agent') == []


# rand.SafeEncodeString maps each character to "bcdfghjklmnpqrstvwxz2456789"[code % 27]: the
# decimal digits of the hash's uint32 become these ten characters.
_SAFE_DIGITS = dict(zip('456789bcdf', '0123456789'))


def _hash_value(text):
    """The uint32 a revision hash encodes; fails unless it is SafeEncodeString of its decimal."""
    digits = ''.join(_SAFE_DIGITS[ch] for ch in text)
    assert digits == str(int(digits)) and int(digits) < 2 ** 32, text
    return int(digits)


def test_revision_names_are_the_safe_encoded_hash_and_a_collision_bumps_the_count(kube):
    # The controller names a revision <daemonset>-<ComputeHash(template, collisionCount)>; when
    # that name is taken by a revision with other data it bumps status.collisionCount, which
    # changes the hash.
    def daemonset(name):
        ds = workload('DaemonSet', name, 'nginx:1.25')
        ds['spec']['selector'] = {'matchLabels': {'app': 'agent'}}
        ds['spec']['template']['metadata']['labels'] = {'app': 'agent'}
        return ds

    kube.apply(daemonset('probe'))
    kube.status('ds/probe')
    [probe] = revisions(kube).values()
    taken = probe['metadata']['labels'][HASH]
    assert probe['metadata']['name'] == f'probe-{taken}'
    _hash_value(taken)
    kube('delete', 'ds', 'probe', '--wait=true')
    eventually(lambda: not kube.items('pods', '-l', 'app=agent'), 'the probe pods to go')
    kube.apply({'apiVersion': 'apps/v1', 'kind': 'ControllerRevision',
                'metadata': {'name': f'agent-{taken}', 'labels': {'squatter': 'yes'}},
                'data': {'unrelated': True}, 'revision': 1})
    kube.apply(daemonset('agent'))
    kube.status('ds/agent')
    ds = kube.json('ds/agent')
    assert ds['status']['collisionCount'] == 1
    [revision] = [cr for cr in revisions(kube).values() if cr['metadata']['name'] != f'agent-{taken}']
    fresh = revision['metadata']['labels'][HASH]
    assert revision['metadata']['name'] == f'agent-{fresh}' and fresh != taken
    _hash_value(fresh)
    assert {p['metadata']['labels'][HASH] for p in kube.items('pods', '-l', 'app=agent')} == {fresh}
    squatter = kube.json('controllerrevision', f'agent-{taken}')
    assert squatter['data'] == {'unrelated': True} and 'ownerReferences' not in squatter['metadata']

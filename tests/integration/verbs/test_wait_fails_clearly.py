"""Waiting: watch-based, fails clearly on timeout, progress deadline and unsupported strategies."""

import pytest

from ..conftest import Kube, entry, read_log, task, workload

pytestmark = pytest.mark.integration


def test_wait_timeout_deadline_and_strategy(kubesim_factory, play, tmp_path):
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(fail_image='^broken', request_log=log)
    kube = Kube(sim.kubeconfig)
    kube.create(workload('Deployment', 'web', image='app:1'))
    deadline = workload('Deployment', 'slow', image='app:1')
    deadline['spec']['progressDeadlineSeconds'] = 6  # outlasts the next task's start on a busy machine
    kube.create(deadline)
    kube.create(workload('StatefulSet', 'db', image='app:1'))
    on_delete = workload('DaemonSet', 'agent', image='app:1')
    on_delete['spec']['updateStrategy'] = {'type': 'OnDelete'}
    kube.create(on_delete)
    for kind, name in (('Deployment', 'web'), ('Deployment', 'slow'), ('StatefulSet', 'db')):
        kube.rolled_out(kind, name)
    start = len(read_log(log))

    tasks = [
        task('image timeout', 'rollout_image', kind='Deployment', name='web', images={'app': 'broken:1'},
             wait=True, wait_timeout=3),
        task('status no wait', 'rollout_status', kind='Deployment', name='web', wait=False),
        task('status timeout', 'rollout_status', kind='Deployment', name='web', wait_timeout=2),
        task('deadline image', 'rollout_image', kind='Deployment', name='slow', images={'app': 'broken:2'}),
        task('status deadline', 'rollout_status', kind='Deployment', name='slow', wait_timeout=120),
        task('on delete', 'rollout_status', kind='DaemonSet', name='agent'),
        task('sts image', 'rollout_image', kind='StatefulSet', name='db', images={'app': 'app:2'}),
        task('sts status', 'rollout_status', kind='StatefulSet', name='db', wait_timeout=60),
    ]
    res = play(sim, tasks)

    timeout = res.failed('image timeout')
    assert timeout['changed'] is True
    assert entry(timeout)['status']['reason'] == 'Timeout'
    assert 'timed out after 3s' in timeout['msg'] and 'Deployment default/web' in timeout['msg']
    assert 3 <= timeout['_duration'] < 15
    nowait = entry(res.ok('status no wait'))
    assert nowait['done'] is False
    assert nowait['reason'] in ('UpdatingReplicas', 'OldReplicasPendingTermination', 'ReplicasUnavailable')
    assert entry(res.failed('status timeout'))['reason'] == 'Timeout'
    deadline = res.failed('status deadline')
    assert entry(deadline)['reason'] == 'ProgressDeadlineExceeded'
    assert 'deployment "slow" exceeded its progress deadline' in deadline['msg']
    assert deadline['_duration'] < 60
    assert 'only available for RollingUpdate strategy type' in res.failed('on delete')['msg']
    sts = entry(res.ok('sts status'))
    assert sts['done'] is True and sts['message'].startswith('partitioned roll out complete')

    # Waiting is a watch on the one object from the resourceVersion just read, not polling.
    requests = read_log(log)[start:]
    watches = [r for r in requests if 'watch=true' in r['query'] and r['path'].endswith('/deployments')]
    assert {q for r in watches for q in r['query'].split('&') if q.startswith('fieldSelector')} == {
        'fieldSelector=metadata.name%3Dweb', 'fieldSelector=metadata.name%3Dslow'}
    assert all('resourceVersion=' in r['query'] and 'timeoutSeconds=' in r['query'] for r in watches)
    gets = [r for r in requests if r['method'] == 'GET' and r['path'].endswith('/deployments/web')]
    assert len(gets) == 3  # one per task naming it, although two of them waited for seconds

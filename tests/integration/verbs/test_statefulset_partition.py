"""StatefulSet partitions through real ansible-playbook runs against kubesim: rollout_image with a
partition updates only the highest ordinals, rollout_status reports the partitioned rollout done as
kubectl does; check mode, diff and second-run idempotence."""

import pytest

from ..conftest import Kube, entry, task, workload

pytestmark = pytest.mark.integration

PARTITIONED = 'partitioned roll out complete: %d new pods have been updated...'  # kubectl's words


def pod_images(kube, app):
    pods = kube.list('Pod', selector=f'app={app}')
    return {p['metadata']['name']: p['spec']['containers'][0]['image'] for p in pods}


def partition_of(obj):
    return obj['spec']['updateStrategy']['rollingUpdate']['partition']


def test_image_with_partition_updates_only_the_highest_ordinals(kubesim, play):
    kube = Kube(kubesim.kubeconfig)
    kube.create(workload('Deployment', 'web', replicas=1))
    kube.create(workload('StatefulSet', 'db', image='nginx:1.25', replicas=3))
    kube.rolled_out('StatefulSet', 'db')
    S = {'kind': 'StatefulSet', 'name': 'db'}
    canary = dict(S, images={'app': 'nginx:1.26'}, partition=2)
    res = play(kubesim, [
        task('canary check', 'rollout_image', **canary, check_mode=True, diff=True),
        task('canary', 'rollout_image', **canary, diff=True, wait=True, wait_timeout=60),
        task('canary again', 'rollout_image', **canary),
        task('status', 'rollout_status', **S, wait=False),
        task('deployment partition', 'rollout_image', kind='Deployment', name='web', partition=1,
             images={'app': 'x'}),
        task('release check', 'rollout_image', **S, partition=0, check_mode=True, diff=True),
        task('release', 'rollout_image', **S, partition=0, diff=True, wait=True, wait_timeout=60),
        task('release again', 'rollout_image', **S, partition=0),
        task('negative', 'rollout_image', **S, partition=-1),
    ])
    check, real = res.ok('canary check'), res.ok('canary')
    assert check['changed'] and real['changed']
    assert check['diff'] == real['diff'], 'check mode must report the diff a real run makes'
    def partition(side):
        return side['spec']['updateStrategy']['rollingUpdate']['partition']

    assert partition(real['diff'][0]['before']) == 0 and partition(real['diff'][0]['after']) == 2
    assert entry(real)['partition'] == 2
    assert entry(real)['status']['done'] is True
    assert entry(real)['status']['message'] == PARTITIONED % 1
    again = res.ok('canary again')
    assert again['changed'] is False and entry(again)['partition'] == 2
    status = entry(res.ok('status'))
    assert status['done'] is True and status['reason'] == 'Complete'

    failed = res.failed('deployment partition')
    assert 'no update partition' in failed['msg'] and 'Traceback' not in failed['msg']
    assert 'must be 0 or more' in res.failed('negative')['msg']

    release_check, release = res.ok('release check'), res.ok('release')
    assert release_check['diff'] == release['diff']
    assert partition(release['diff'][0]['before']) == 2 and partition(release['diff'][0]['after']) == 0
    # Only the partition moved: the images were already in place.
    assert release['diff'][0]['before']['spec']['template'] == release['diff'][0]['after']['spec']['template']
    assert entry(release)['status']['message'] == PARTITIONED % 3
    assert res.ok('release again')['changed'] is False
    assert pod_images(kube, 'db') == {'db-0': 'nginx:1.26', 'db-1': 'nginx:1.26', 'db-2': 'nginx:1.26'}
    assert partition_of(kube.get('StatefulSet', 'db')) == 0


def test_partitioned_rollout_waits_only_for_the_canary_pods(kubesim, play):
    """Between the canary and the release: the lower ordinals keep the old template, and
    rollout_status reports the partitioned rollout done, as kubectl does."""
    kube = Kube(kubesim.kubeconfig)
    kube.create(workload('StatefulSet', 'db', image='nginx:1.25', replicas=3))
    kube.rolled_out('StatefulSet', 'db')
    S = {'kind': 'StatefulSet', 'name': 'db'}
    res = play(kubesim, [
        task('canary', 'rollout_image', **S, images={'app': 'nginx:1.26'}, partition=1),
        task('status', 'rollout_status', **S, wait=True, wait_timeout=60),
    ])
    res.ok('canary')
    status = entry(res.ok('status'))
    assert status['done'] is True and status['reason'] == 'Complete'
    assert status['message'] == PARTITIONED % 2
    sts = kube.get('StatefulSet', 'db')
    assert sts['status']['updatedReplicas'] == 2 and partition_of(sts) == 1
    assert pod_images(kube, 'db') == {'db-0': 'nginx:1.25', 'db-1': 'nginx:1.26', 'db-2': 'nginx:1.26'}


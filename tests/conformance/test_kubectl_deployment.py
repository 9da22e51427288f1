"""kubectl against Deployments: apply, set image, rollout history/undo/pause/resume/restart/status,
scale, delete. Each test asserts what kubectl prints and the objects it leaves behind."""

import pytest

import time

from .conftest import FAIL_IMAGE_PREFIX, eventually, image_of, is_kubesim, time_scale, workload

pytestmark = pytest.mark.conformance

REVISION = 'deployment.kubernetes.io/revision'
UNDO_WARNING = "previously managed with 'kubectl apply'"


def replicasets(kube, app='web'):
    """{revision: ReplicaSet} of one Deployment."""
    return {int(rs['metadata']['annotations'][REVISION]): rs for rs in kube.items('rs', '-l', f'app={app}')}


def condition(obj, cond_type):
    return next(c for c in obj['status']['conditions'] if c['type'] == cond_type)


def three_revisions(kube):
    """Revisions 1, 2, 3 of deploy/web (nginx 1.25, 1.26, 1.27), each rolled out."""
    kube.apply(workload('Deployment', 'web', 'nginx:1.25'))
    kube.status('deploy/web')
    for image in ('nginx:1.26', 'nginx:1.27'):
        kube('set', 'image', 'deploy/web', f'app={image}')
        kube('annotate', 'deploy/web', '--overwrite', f'kubernetes.io/change-cause=image {image}')
        kube.status('deploy/web')


def test_apply_and_status_report_a_complete_rollout(kube):
    assert kube.apply(workload('Deployment', 'web', 'nginx:1.25')) == 'deployment.apps/web created\n'
    out = kube.status('deploy/web').stdout
    assert out.endswith('deployment "web" successfully rolled out\n')
    d = kube.json('deploy/web')
    assert d['metadata']['generation'] == 1 and d['metadata']['annotations'][REVISION] == '1'
    status = d['status']
    assert {
        k: status.get(k)
        for k in ('observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas')
    } == {
        'observedGeneration': 1,
        'replicas': 3,
        'updatedReplicas': 3,
        'readyReplicas': 3,
        'availableReplicas': 3,
    }
    assert condition(d, 'Available')['reason'] == 'MinimumReplicasAvailable'
    assert condition(d, 'Progressing')['reason'] == 'NewReplicaSetAvailable'
    [rs] = replicasets(kube).values()
    pod_hash = rs['metadata']['labels']['pod-template-hash']
    assert rs['metadata']['name'] == f'web-{pod_hash}'
    assert rs['spec']['selector']['matchLabels'] == {'app': 'web', 'pod-template-hash': pod_hash}
    assert rs['metadata']['ownerReferences'][0]['uid'] == d['metadata']['uid']
    pods = kube.items('pods', '-l', f'pod-template-hash={pod_hash}')
    assert len(pods) == 3 and all(p['status']['phase'] == 'Running' for p in pods)
    # Applying the same manifest again changes nothing.
    assert kube.apply(workload('Deployment', 'web', 'nginx:1.25')) == 'deployment.apps/web unchanged\n'
    assert kube.json('deploy/web')['metadata']['generation'] == 1


def test_set_image_history_and_undo(kube):
    three_revisions(kube)
    # Each change cause was annotated after its `set image`: it reaches the newest ReplicaSet.
    assert kube.history('deploy/web') == [(1, '<none>'), (2, 'image nginx:1.26'), (3, 'image nginx:1.27')]
    detail = kube('rollout', 'history', 'deploy/web', '--revision=2').stdout
    assert detail.startswith('deployment.apps/web with revision #2\nPod Template:\n')
    assert 'Image:\tnginx:1.26' in detail

    out = kube('rollout', 'undo', 'deploy/web', '--to-revision=2')
    assert out.stdout == 'deployment.apps/web rolled back\n' and UNDO_WARNING in out.stderr
    kube.status('deploy/web')
    assert [rev for rev, _cause in kube.history('deploy/web')] == [1, 3, 4]
    by_rev = replicasets(kube)
    assert image_of(kube.json('deploy/web')) == 'nginx:1.26' == image_of(by_rev[4])
    assert by_rev[4]['metadata']['annotations']['deployment.kubernetes.io/revision-history'] == '2'
    assert kube.json('deploy/web')['metadata']['annotations'][REVISION] == '4'
    assert (by_rev[4]['spec']['replicas'], by_rev[3]['spec']['replicas'], by_rev[1]['spec']['replicas']) == (
        3,
        0,
        0,
    )

    # Plain undo goes to the previous revision (3, nginx 1.27), which becomes 5.
    assert kube('rollout', 'undo', 'deploy/web').stdout == 'deployment.apps/web rolled back\n'
    kube.status('deploy/web')
    assert [rev for rev, _cause in kube.history('deploy/web')] == [1, 4, 5]
    assert image_of(kube.json('deploy/web')) == 'nginx:1.27'

    out = kube('rollout', 'undo', 'deploy/web', '--to-revision=5')
    assert (
        out.stdout == 'deployment.apps/web skipped rollback (current template already matches revision 5)\n'
    )
    out = kube('rollout', 'undo', 'deploy/web', '--to-revision=99', ok=False)
    assert 'error: unable to find specified revision 99 in history' in out.stderr


def test_revision_history_limit_removes_the_oldest_replicasets(kube):
    kube.apply(workload('Deployment', 'web', 'nginx:1.0', replicas=1, revisionHistoryLimit=2))
    kube.status('deploy/web')
    for minor in range(1, 5):
        kube('set', 'image', 'deploy/web', f'app=nginx:1.{minor}')
        kube.status('deploy/web')
    # The cleanup runs once the rollout is complete; give the controller a moment.
    eventually(lambda: sorted(replicasets(kube)) == [3, 4, 5], 'the history cleanup')
    assert [rev for rev, _cause in kube.history('deploy/web')] == [3, 4, 5]
    out = kube('rollout', 'undo', 'deploy/web', '--to-revision=1', ok=False)
    assert 'unable to find specified revision 1 in history' in out.stderr


def test_pause_and_resume(kube):
    kube.apply(workload('Deployment', 'web', 'nginx:1.25'))
    kube.status('deploy/web')
    assert kube('rollout', 'pause', 'deploy/web').stdout == 'deployment.apps/web paused\n'
    assert 'is already paused' in kube('rollout', 'pause', 'deploy/web', ok=False).stderr
    d = kube.json('deploy/web')
    assert d['spec']['paused'] is True
    kube('set', 'image', 'deploy/web', 'app=nginx:1.26')
    out = kube.status('deploy/web', timeout='1s', ok=False)
    assert (
        'Waiting for deployment "web" rollout to finish: 0 out of 3 new replicas have been updated...'
        in out.stdout
    )
    assert 'error: timed out waiting for the condition' in out.stderr
    assert sorted(replicasets(kube)) == [1]  # no rollout while paused
    progressing = condition(kube.json('deploy/web'), 'Progressing')
    assert (progressing['status'], progressing['reason']) == ('Unknown', 'DeploymentPaused')
    # Scaling still works while paused.
    assert kube('scale', 'deploy/web', '--replicas=4').stdout == 'deployment.apps/web scaled\n'
    kube('wait', '--for=jsonpath={.status.availableReplicas}=4', 'deploy/web', '--timeout=20s')
    assert replicasets(kube)[1]['spec']['replicas'] == 4
    out = kube('rollout', 'restart', 'deploy/web', ok=False)
    assert "can't restart paused deployment (run rollout resume first)" in out.stderr

    assert kube('rollout', 'resume', 'deploy/web').stdout == 'deployment.apps/web resumed\n'
    assert 'is not paused' in kube('rollout', 'resume', 'deploy/web', ok=False).stderr
    assert kube.status('deploy/web').stdout.endswith('deployment "web" successfully rolled out\n')
    assert sorted(replicasets(kube)) == [1, 2]
    assert replicasets(kube)[2]['spec']['replicas'] == 4
    assert condition(kube.json('deploy/web'), 'Progressing')['reason'] == 'NewReplicaSetAvailable'


def test_undo_of_a_paused_deployment_is_refused(kube):
    kube.apply(workload('Deployment', 'web', 'nginx:1.25', replicas=1))
    kube.status('deploy/web')
    kube('set', 'image', 'deploy/web', 'app=nginx:1.26')
    kube.status('deploy/web')
    kube('rollout', 'pause', 'deploy/web')
    out = kube('rollout', 'undo', 'deploy/web', ok=False)
    assert 'you cannot rollback a paused deployment' in out.stderr
    assert image_of(kube.json('deploy/web')) == 'nginx:1.26'


def test_restart_rolls_out_a_new_revision(kube):
    kube.apply(workload('Deployment', 'web', 'nginx:1.25'))
    kube.status('deploy/web')
    before = {p['metadata']['name'] for p in kube.live_pods('-l', 'app=web')}
    assert kube('rollout', 'restart', 'deploy/web').stdout == 'deployment.apps/web restarted\n'
    kube.status('deploy/web')
    d = kube.json('deploy/web')
    assert 'kubectl.kubernetes.io/restartedAt' in d['spec']['template']['metadata']['annotations']
    assert sorted(replicasets(kube)) == [1, 2]
    after = {p['metadata']['name'] for p in kube.live_pods('-l', 'app=web')}
    assert len(after) == 3 and not before & after


def test_scale_is_not_a_revision(kube):
    kube.apply(workload('Deployment', 'web', 'nginx:1.25', replicas=2))
    kube.status('deploy/web')
    assert kube('scale', 'deploy/web', '--replicas=5').stdout == 'deployment.apps/web scaled\n'
    kube.status('deploy/web')
    d = kube.json('deploy/web')
    assert d['status']['availableReplicas'] == 5 and d['metadata']['generation'] == 2
    assert len(kube.live_pods('-l', 'app=web')) == 5
    assert kube.history('deploy/web') == [(1, '<none>')]
    rs = replicasets(kube)[1]
    assert rs['spec']['replicas'] == 5
    assert rs['metadata']['annotations']['deployment.kubernetes.io/desired-replicas'] == '5'
    kube('scale', 'deploy/web', '--replicas=1')
    kube.status('deploy/web')
    # The controller computes the Deployment's status from its ReplicaSet's status, which may still
    # count the pods being scaled away: rollout status can pass before they are deleted, on a
    # cluster too.
    eventually(lambda: len(kube.live_pods('-l', 'app=web')) == 1, 'the scale-down to 1 pod')


def test_a_stalled_rollout_exceeds_its_progress_deadline(kube, cluster):
    kube.apply(workload('Deployment', 'stall', 'nginx:1.25', progressDeadlineSeconds=10))
    kube.status('deploy/stall')
    kube('set', 'image', 'deploy/stall', f'app={FAIL_IMAGE_PREFIX}nginx:404')
    out = kube.status('deploy/stall', timeout=f'{int(60 / time_scale(cluster)) + 20}s', ok=False)
    assert (
        'Waiting for deployment "stall" rollout to finish: 1 out of 3 new replicas have been updated...'
        in out.stdout
    )
    assert out.stderr.strip() == 'error: deployment "stall" exceeded its progress deadline'
    d = kube.json('deploy/stall')
    progressing = condition(d, 'Progressing')
    assert (progressing['status'], progressing['reason']) == ('False', 'ProgressDeadlineExceeded')
    new_rs = replicasets(kube, 'stall')[2]['metadata']['name']
    assert progressing['message'] == f'ReplicaSet "{new_rs}" has timed out progressing.'
    # 25% of 3: surge 1, unavailable 0. The old pods keep serving.
    assert (d['status']['availableReplicas'], d['status']['updatedReplicas'], d['status']['replicas']) == (
        3,
        1,
        4,
    )
    [stuck] = kube.items('pods', '-l', f'pod-template-hash={new_rs.rsplit("-", 1)[1]}')
    assert stuck['status']['phase'] == 'Pending'
    assert stuck['status']['containerStatuses'][0]['state']['waiting']['reason'] in (
        'ImagePullBackOff',
        'ErrImagePull',
    )
    # Undo recovers: back to revision 1's template, and the rollout completes.
    assert kube('rollout', 'undo', 'deploy/stall').stdout == 'deployment.apps/stall rolled back\n'
    kube.status('deploy/stall')
    assert condition(kube.json('deploy/stall'), 'Progressing')['reason'] == 'NewReplicaSetAvailable'
    assert kube.live_pods('-l', f'pod-template-hash={new_rs.rsplit("-", 1)[1]}') == []


def test_delete_collects_replicasets_and_pods(kube):
    kube.apply(workload('Deployment', 'web', 'nginx:1.25'))
    kube.status('deploy/web')
    out = kube('delete', 'deploy/web')
    assert out.stdout.startswith('deployment.apps "web" deleted')
    kube('wait', '--for=delete', 'pods', '-l', 'app=web', '--timeout=20s')
    assert kube.items('rs', '-l', 'app=web') == [] and kube.items('pods', '-l', 'app=web') == []


@pytest.mark.parametrize(
    'strategy,max_pods,min_available',
    [
        ({'type': 'RollingUpdate', 'rollingUpdate': {'maxSurge': '25%', 'maxUnavailable': '25%'}}, 13, 8),
        ({'type': 'RollingUpdate', 'rollingUpdate': {'maxSurge': 0, 'maxUnavailable': 1}}, 10, 9),
    ],
)
def test_rolling_update_bounds_seen_by_kubectl_and_the_readiness_log(
    kube, cluster, strategy, max_pods, min_available
):
    if not is_kubesim(cluster):
        pytest.skip("the readiness log is kubesim's")
    from tests.kubesim.timeline import extremes, workload_timeline

    kube.apply(workload('Deployment', 'big', 'nginx:1.25', replicas=10, strategy=strategy))
    kube.status('deploy/big')
    start = time.monotonic()  # the readiness log's clock
    kube('set', 'image', 'deploy/big', 'app=nginx:1.26')
    kube.status('deploy/big')
    timeline = workload_timeline(cluster.readiness_log, kube.namespace, 'Deployment', 'big', since=start)
    most, fewest = extremes(timeline)
    # The surge is always taken; how far availability dips depends on how many new pods are Ready
    # when the controller scales the old ReplicaSet down (a timing matter, on a cluster too), but
    # never below what maxUnavailable allows.
    assert most == max_pods and fewest >= min_available, (most, fewest)
    assert timeline[-1][1:] == (10, 10)


def test_recreate_strategy(kube, cluster):
    kube.apply(workload('Deployment', 'web', 'nginx:1.25', replicas=2, strategy={'type': 'Recreate'}))
    kube.status('deploy/web')
    kube('set', 'image', 'deploy/web', 'app=nginx:1.26')
    assert kube.status('deploy/web').stdout.endswith('deployment "web" successfully rolled out\n')
    by_rev = replicasets(kube)
    assert (by_rev[1]['spec']['replicas'], by_rev[2]['spec']['replicas']) == (0, 2)
    if is_kubesim(cluster):
        from tests.kubesim.timeline import workload_timeline

        old = workload_timeline(
            cluster.readiness_log, kube.namespace, 'ReplicaSet', by_rev[1]['metadata']['name']
        )
        new = workload_timeline(
            cluster.readiness_log, kube.namespace, 'ReplicaSet', by_rev[2]['metadata']['name']
        )
        last_old_pod_gone = max(t for t, pods, _a in old if pods == 0)
        first_new_pod = min(t for t, pods, _a in new if pods > 0)
        assert first_new_pod >= last_old_pod_gone


def test_the_new_revision_and_its_progressing_condition_arrive_in_one_status_write(kube):
    # The Deployment controller records a new revision (SetDeploymentRevision) and the
    # NewReplicaSetCreated condition in the same UpdateStatus: a watcher never sees one without
    # the other.
    kube.apply(workload('Deployment', 'web', 'nginx:1.25', replicas=2))
    kube.status('deploy/web')
    fields = ('{.type}|{.object.metadata.annotations.deployment\\.kubernetes\\.io/revision}|'
              '{.object.status.conditions[?(@.type=="Progressing")].reason}|'
              '{.object.status.conditions[?(@.type=="Progressing")].message}{"\\n"}')
    watch = kube.watch('deployments', '--output-watch-events', '-o', f'jsonpath={fields}')
    seen = []
    try:
        first = watch.stdout.readline()  # the watch is open once the current state is printed
        assert first.startswith('ADDED|1|'), first + watch.stderr.read()
        kube('set', 'image', 'deploy/web', 'app=nginx:1.26')
        while True:
            line = watch.stdout.readline()
            assert line, 'the watch ended: ' + watch.stderr.read()
            seen.append(line.rstrip('\n').split('|'))
            if seen[-1][1] == '2':
                break
    finally:
        watch.terminate()
        watch.wait(timeout=10)
    new_rs = replicasets(kube)[2]['metadata']['name']
    kind, revision, reason, message = seen[-1]
    assert (kind, reason, message) == ('MODIFIED', 'NewReplicaSetCreated',
                                       f'Created new replica set "{new_rs}"'), seen
    assert all(row[1] == '1' for row in seen[:-1]), seen

"""The upgrade role rolls back a Deployment whose rollout exceeded its progress deadline, and the
rollback's own wait judges the rollback, not the deadline the failed rollout left behind.

The Deployment controller keeps a ProgressDeadlineExceeded condition until it sees progress. With
one replica (maxSurge 1, maxUnavailable 0) the undo's target ReplicaSet already runs its pod and the
failed one still has its own, so the first sync of the undone generation measures no progress and
writes the old condition back with the new observedGeneration: kubectl's rule alone would call the
rollback failed at once. With three replicas the target ReplicaSet has more pods than the failed
one, which the controller counts as progress: the ordinary path.
"""

import re

import pytest

from ..conftest import Kube, task, workload

pytestmark = pytest.mark.integration

# Controller time 10x faster: a 20 s progress deadline passes in 2 s.
SIM = {'nodes': 2, 'ready_delay': 0.05, 'fail_image': r'^broken/', 'time_scale': 10}


@pytest.mark.parametrize('replicas', [1, 3])
def test_upgrade_role_rolls_back_a_deployment_past_its_progress_deadline(kubesim_factory, play, replicas):
    sim = kubesim_factory(**SIM)
    kube = Kube(sim.kubeconfig)
    web = workload('Deployment', 'web', image='app:1', replicas=replicas)
    web['spec']['progressDeadlineSeconds'] = 20
    kube.create_rolled_out([web])

    res = play(sim, [{'name': 'role', 'vars': {
        'rollout_upgrade_timeout': 30,
        # The progress deadline ends this rollout, not the early stop of its pull error.
        'rollout_upgrade_fail_fast_seconds': 0,
        'rollout_upgrade_workloads': [
            {'kind': 'Deployment', 'name': 'web', 'images': {'app': 'broken/app:2'}}]},
        'ansible.builtin.include_role': {'name': 'kubeops.rollout.rollout_upgrade'}}])

    summary = res.failed('kubeops.rollout.rollout_upgrade : Release the new images')['summary']
    failed = [ln for ln in summary if ln.startswith('ROLLED BACK: Deployment default/web')]
    assert len(failed) == 1, summary
    # The upgrade failed on its deadline, for the cause the pods show; the rollback succeeded.
    assert 'exceeded its progress deadline' in failed[0]
    assert re.search(r'ImagePullBackOff \(broken/app:2: not found\)', failed[0]), failed[0]
    assert not any('ROLLBACK FAILED' in ln for ln in summary), summary

    # The Deployment is back on the old image and done rolling out.
    back = kube.rolled_out('Deployment', 'web')
    assert back['spec']['template']['spec']['containers'][0]['image'] == 'app:1'
    progressing = [c for c in back['status']['conditions'] if c['type'] == 'Progressing']
    assert progressing[0]['reason'] == 'NewReplicaSetAvailable', progressing


def test_undo_waits_out_the_deadline_a_failed_rollout_left(kubesim_factory, play):
    """The module alone: an image update that hits its deadline, then ``rollout_undo`` with
    ``wait: true`` reports the rollback complete."""
    sim = kubesim_factory(**SIM)
    kube = Kube(sim.kubeconfig)
    web = workload('Deployment', 'web', image='app:1', replicas=1)
    web['spec']['progressDeadlineSeconds'] = 20
    kube.create_rolled_out([web])
    d = {'kind': 'Deployment', 'name': 'web'}
    res = play(sim, [task('upgrade', 'rollout_image', **d, images={'app': 'broken/app:2'}, wait=True,
                          wait_timeout=30),
                     task('undo', 'rollout_undo', **d, wait=True, wait_timeout=30)])
    assert res.failed('upgrade')['workloads'][0]['status']['reason'] == 'ProgressDeadlineExceeded'
    undo = res.ok('undo')
    assert undo['changed'] is True
    assert undo['workloads'][0]['status']['reason'] == 'Complete', undo['workloads'][0]


def test_rollback_role_after_a_deadline_failure_reports_success(kubesim_factory, play):
    """The rollback role right after a rollout that hit its deadline: the Deployment still carries
    that ProgressDeadlineExceeded condition when the role starts waiting, and the role judges the
    rollback, not the condition the failed rollout left."""
    sim = kubesim_factory(**SIM)
    kube = Kube(sim.kubeconfig)
    web = workload('Deployment', 'web', image='app:1', replicas=1)
    web['spec']['progressDeadlineSeconds'] = 20
    kube.create_rolled_out([web])
    d = {'kind': 'Deployment', 'name': 'web'}
    res = play(sim, [
        task('upgrade', 'rollout_image', **d, images={'app': 'broken/app:2'}, wait=True, wait_timeout=30),
        {'name': 'role', 'ansible.builtin.include_role': {'name': 'kubeops.rollout.rollout_rollback'},
         'vars': {'rollout_rollback_timeout': 30, 'rollout_rollback_show_history': False,
                  'rollout_rollback_workloads': [d]}},
        {'name': 'show', 'ansible.builtin.debug': {'var': 'rollout_rollback_result'}}])
    assert res.failed('upgrade')['workloads'][0]['status']['reason'] == 'ProgressDeadlineExceeded'
    assert res.rc == 0, res.stdout[-3000:]
    result = res.ok('show')['rollout_rollback_result']
    assert result['failed'] == [], result
    assert [(w['kind'], w['name'], w['to_revision']) for w in result['rolled_back']] == [
        ('Deployment', 'web', 1)], result
    # Judged by a wait that saw the rollback complete.
    assert result['rolled_back'][0]['status']['reason'] == 'Complete', result
    back = kube.rolled_out('Deployment', 'web')
    assert back['spec']['template']['spec']['containers'][0]['image'] == 'app:1'

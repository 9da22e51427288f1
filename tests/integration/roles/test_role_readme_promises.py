"""What the upgrade and rollback role READMEs promise: a second upgrade run changes nothing, the
default change-cause, what the recap of a failed release counts, a rejected canary puts every
workload back as it was, and a re-run of a rollback does what the rollback README says for each
kind."""

import pytest

from ..conftest import Kube, caught, image_of, include, workload

pytestmark = pytest.mark.integration


def test_upgrade_twice_changes_nothing_the_second_time(kubesim_factory, play):
    sim = kubesim_factory(ready_delay=0.05)
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web'), workload('StatefulSet', 'db')])
    upgrade = include('rollout_upgrade', rollout_upgrade_timeout=60, rollout_upgrade_workloads=[
        {'kind': 'Deployment', 'name': 'web', 'images': {'app': 'nginx:2'}},
        {'kind': 'StatefulSet', 'name': 'db', 'images': {'app': 'nginx:2'}}])
    first = play(sim, caught(upgrade, 'rollout_upgrade_result'))
    second = play(sim, caught(upgrade, 'rollout_upgrade_result'))
    assert first.ok('show')['rollout_upgrade_result']['upgraded'] == ['Deployment default/web',
                                                                      'StatefulSet default/db']
    again = second.ok('show')['rollout_upgrade_result']
    assert (again['upgraded'], again['unchanged'], again['failed'], again['changed']) == (
        [], ['Deployment default/web', 'StatefulSet default/db'], False, False), again
    assert [w['outcome'] for w in again['workloads']] == ['unchanged', 'unchanged']
    assert 'changed=0' in second.stdout.split('PLAY RECAP')[-1]


def test_default_change_cause_and_the_recap_of_a_release_put_back(kubesim_factory, play):
    sim = kubesim_factory(ready_delay=0.05, fail_image=r'^broken/')
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web'), workload('Deployment', 'api')])
    ok = play(sim, [include('rollout_upgrade', rollout_upgrade_soak_seconds=0, rollout_upgrade_workloads=[
        {'kind': 'Deployment', 'name': 'web', 'images': {'app': 'nginx:2'}}])])
    assert ok.rc == 0, ok.stdout[-3000:]
    # No rollout_upgrade_change_cause: "rollout_release: <container>=<image>".
    annotations = kube.get('Deployment', 'web')['metadata']['annotations']
    assert annotations['kubernetes.io/change-cause'] == 'rollout_release: app=nginx:2', annotations

    broken = [{'kind': 'Deployment', 'name': 'api', 'images': {'app': 'broken/nginx:2'}}]
    failed = play(sim, caught(include(
        'rollout_upgrade', rollout_upgrade_soak_seconds=0, rollout_upgrade_fail_fast_seconds=1,
        rollout_upgrade_timeout=60, rollout_upgrade_workloads=broken), 'rollout_upgrade_result'))
    release = failed.failed('kubeops.rollout.rollout_upgrade : Release the new images')
    # Written, then put back: the result says changed, the recap counts the task as failed, not changed.
    assert release['changed'] is True and release['rolled_back'] == ['Deployment default/api'], release
    recap = failed.stdout.split('PLAY RECAP')[-1]
    assert 'changed=0' in recap and 'rescued=1' in recap, recap
    assert image_of(kube.rolled_out('Deployment', 'api')) == 'nginx:1.25'


def test_a_rejected_canary_puts_every_workload_back(kubesim_factory, play, tmp_path):
    sim = kubesim_factory(ready_delay=0.05)
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', name) for name in ('a', 'b', 'c')])
    kube.patch('Deployment', 'c', {'spec': {'template': {'spec': {'containers': [
        {'name': 'app', 'image': 'nginx:2'}]}}}})
    kube.rolled_out('Deployment', 'c')
    before = {name: kube.get('Deployment', name)['spec']['template'] for name in ('a', 'b')}
    verify = tmp_path / 'verify.yml'
    verify.write_text(
        '- name: The canary is held with its new pods\n'
        '  ansible.builtin.assert:\n'
        '    that: rollout_upgrade_result.upgraded == ["Deployment default/a", "Deployment default/b"]\n'
        '- name: Reject the canary\n  ansible.builtin.fail:\n    msg: not approved\n')
    res = play(sim, caught(include(
        'rollout_upgrade', rollout_upgrade_canary=True, rollout_upgrade_canary_verify_tasks=str(verify),
        rollout_upgrade_timeout=60, rollout_upgrade_workloads=[
            {'kind': 'Deployment', 'name': name, 'images': {'app': 'nginx:2'}} for name in ('a', 'b', 'c')]),
        'rollout_upgrade_result'))
    res.ok('failed')
    result = res.ok('show')['rollout_upgrade_result']
    assert result['rolled_back'] == ['Deployment default/a', 'Deployment default/b'], result
    assert result['unchanged'] == ['Deployment default/c'], result
    assert result['summary'][:2] == ['Canary rolled back: Deployment default/a',
                                     'Canary rolled back: Deployment default/b']
    for name in ('a', 'b'):
        back = kube.rolled_out('Deployment', name)
        assert back['spec']['template'] == before[name] and not back['spec'].get('paused'), back['spec']
        assert 'kubeops.rollout/canary' not in back['metadata'].get('annotations', {})
    assert image_of(kube.get('Deployment', 'c')) == 'nginx:2'


@pytest.mark.parametrize('kind, name, second_run_fails', [
    ('Deployment', 'web', False), ('StatefulSet', 'db', True), ('DaemonSet', 'agent', True)])
def test_rollback_rerun_per_kind(kubesim_factory, play, kind, name, second_run_fails):
    sim = kubesim_factory(ready_delay=0.05)
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload(kind, name)])
    for image in ('nginx:2', 'nginx:3'):
        kube.patch(kind, name, {'spec': {'template': {'spec': {'containers': [
            {'name': 'app', 'image': image}]}}}})
        kube.rolled_out(kind, name)
    rollback = include('rollout_rollback', rollout_rollback_timeout=60, rollout_rollback_show_history=False,
                       rollout_rollback_workloads=[{'kind': kind, 'name': name, 'to_revision': 2}])
    first = play(sim, caught(rollback, 'rollout_rollback_result'))
    second = play(sim, caught(rollback, 'rollout_rollback_result'))
    assert [w['name'] for w in first.ok('show')['rollout_rollback_result']['rolled_back']] == [name]
    again = second.ok('show')['rollout_rollback_result']
    if second_run_fails:
        (line,) = again['failed']
        # named as "Kind namespace/name", never as a printed dict
        assert line.startswith(f'{kind} default/{name}: ') and '{' not in line, line
        assert 'unable to find specified revision 2' in line and 'existing revisions: 1, 3, 4' in line
    else:
        assert again['failed'] == [] and again['rolled_back'] == []
        assert [w['message'] for w in again['unchanged']] == [
            'skipped rollback (current template already matches revision 4)']
    assert image_of(kube.get(kind, name)) == 'nginx:2'

"""A StatefulSet's broken upgrade put back: with OrderedReady the pod stuck on the broken image is never
replaced by the controller after an undo; `replace_stuck_pods` (on in the upgrade role) replaces it."""

import pytest

from ..conftest import Kube, entry, include, read_log, task, workload

pytestmark = pytest.mark.integration

REVISION_LABEL = 'controller-revision-hash'


def pods(kube, name='db'):
    return sorted(kube.list('Pod', selector=f'app={name}'), key=lambda p: p['metadata']['name'])


def image_of(pod):
    return pod['spec']['containers'][0]['image']


def ready(pod):
    conditions = pod.get('status', {}).get('conditions', [])
    return any(c['type'] == 'Ready' and c['status'] == 'True' for c in conditions)


def stuck_statefulset(kube, replicas=3):
    """A rolled-out StatefulSet whose upgrade to a broken image is stuck on its last pod."""
    kube.create_rolled_out([workload('StatefulSet', 'db', replicas=replicas)])
    kube.patch('StatefulSet', 'db', {'spec': {'template': {'spec': {'containers': [
        {'name': 'app', 'image': 'broken:1'}]}}}})
    kube.wait('StatefulSet', 'db', lambda o: any(image_of(p) == 'broken:1' for p in pods(kube)))


def test_upgrade_role_rolls_a_broken_ordered_ready_statefulset_back(kubesim_factory, play):
    sim = kubesim_factory(fail_image='^broken', ready_delay=0.1)
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('StatefulSet', 'db', replicas=3)])
    before = {p['metadata']['name']: p['metadata']['uid'] for p in pods(kube)}
    res = play(sim, [{'block': [
        include('rollout_upgrade', rollout_upgrade_timeout=20, rollout_upgrade_workloads=[
            {'kind': 'StatefulSet', 'name': 'db', 'images': {'app': 'broken:1'}}])],
        'rescue': [{'name': 'show', 'ansible.builtin.debug': {'var': 'rollout_upgrade_result'}}]}],
        timeout=240)
    result = res.ok('show')['rollout_upgrade_result']
    (failure,) = result['workloads']
    assert failure['workload'] == 'StatefulSet default/db'
    assert failure['outcome'] == 'rolled_back', failure
    assert result['rolled_back'] == ['StatefulSet default/db'], result
    sts = kube.rolled_out('StatefulSet', 'db', timeout=5)  # already done when the role returned
    assert sts['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1.25'
    now = pods(kube)
    assert [image_of(p) for p in now] == ['nginx:1.25'] * 3 and all(ready(p) for p in now)
    # Only the stuck pod was replaced: the Ready pods on the restored revision are the same pods.
    assert {p['metadata']['name']: p['metadata']['uid'] for p in now if p['metadata']['name'] != 'db-2'} == \
        {k: v for k, v in before.items() if k != 'db-2'}
    # The rollback took the change-cause back too (revision 1 had none).
    assert 'kubernetes.io/change-cause' not in (sts['metadata'].get('annotations') or {})


def test_check_mode_lists_the_pods_it_would_delete_and_deletes_none(kubesim_factory, play):
    sim = kubesim_factory(fail_image='^broken', ready_delay=0.1)
    kube = Kube(sim.kubeconfig)
    stuck_statefulset(kube)
    uids = {p['metadata']['uid'] for p in pods(kube)}
    res = play(sim, [task('undo', 'rollout_undo', kind='sts', name='db', replace_stuck_pods=True,
                          check_mode=True)])
    e = entry(res.ok('undo'))
    assert e['kind'] == 'StatefulSet' and e['changed'] and e['replaced_pods'] == ['db-2'], e
    assert {p['metadata']['uid'] for p in pods(kube)} == uids
    assert kube.get('StatefulSet', 'db')['spec']['template']['spec']['containers'][0]['image'] == 'broken:1'


def test_without_the_option_the_stuck_pod_stays_and_a_rerun_with_it_repairs(kubesim_factory, play):
    sim = kubesim_factory(fail_image='^broken', ready_delay=0.1)
    kube = Kube(sim.kubeconfig)
    stuck_statefulset(kube)
    res = play(sim, [
        task('plain undo', 'rollout_undo', kind='StatefulSet', name='db', wait=True, wait_timeout=3),
        task('forced undo', 'rollout_undo', kind='StatefulSet', name='db', to_revision=3,
             replace_stuck_pods=True, wait=True, wait_timeout=30),
        task('again', 'rollout_undo', kind='StatefulSet', name='db', to_revision=3,
             replace_stuck_pods=True, wait=True, wait_timeout=30),
    ])
    plain = res.failed('plain undo')
    # The template is back (revision 1 renumbered 3) but the controller waits for db-2 forever.
    assert 'timed out' in plain['msg'] and 'StatefulSet default/db' in plain['msg'], plain['msg']
    assert entry(plain)['changed'] and entry(plain)['status']['reason'] == 'Timeout'
    forced = entry(res.ok('forced undo'))
    assert forced['changed'] and forced['replaced_pods'] == ['db-2']
    assert forced['message'].startswith('skipped rollback'), forced
    again = entry(res.ok('again'))
    assert not again['changed'] and again['replaced_pods'] == []
    assert [image_of(p) for p in pods(kube)] == ['nginx:1.25'] * 3


def test_several_stuck_pods_are_replaced_one_at_a_time_lowest_ordinal_first(kubesim_factory, play, tmp_path):
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(fail_image='^broken', ready_delay=0.3, request_log=log)
    kube = Kube(sim.kubeconfig)
    sts = workload('StatefulSet', 'db', replicas=3)
    # OnDelete: the controller replaces no pod by itself, so both stuck pods are the module's to replace.
    sts['spec']['podManagementPolicy'] = 'Parallel'
    sts['spec']['updateStrategy'] = {'type': 'OnDelete'}
    kube.create_rolled_out([sts])
    kube.patch('StatefulSet', 'db', {'spec': {'template': {'spec': {'containers': [
        {'name': 'app', 'image': 'broken:1'}]}}}})
    kube.wait('StatefulSet', 'db', lambda o: o['status'].get('observedGeneration') == 2)
    for name in ('db-1', 'db-2'):
        kube.request('DELETE', kube.path('Pod', name))
    kube.wait('StatefulSet', 'db', lambda o: sum(image_of(p) == 'broken:1' for p in pods(kube)) == 2)
    start = len(read_log(log))
    res = play(sim, [task('undo', 'rollout_undo', kind='StatefulSet', name='db', replace_stuck_pods=True,
                          wait_timeout=60)])
    e = entry(res.ok('undo'))
    assert e['replaced_pods'] == ['db-1', 'db-2'], e
    kube.wait('StatefulSet', 'db', lambda o: o['status'].get('readyReplicas') == 3)
    assert [image_of(p) for p in pods(kube)] == ['nginx:1.25'] * 3 and all(ready(p) for p in pods(kube))
    # db-2 was deleted only after db-1's replacement was seen Ready, on the copy of the pods a
    # WATCH keeps current: no request polls between the two deletions, however long it took.
    requests = read_log(log)[start:]
    deletes = [i for i, r in enumerate(requests) if r['method'] == 'DELETE']
    assert [requests[i]['path'].rsplit('/', 1)[-1] for i in deletes] == ['db-1', 'db-2']
    between = requests[deletes[0] + 1:deletes[1]]
    assert len(between) <= 2, between

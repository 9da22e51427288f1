"""StatefulSets numbered from `spec.ordinals.start` and updated `maxUnavailable` pods at a time
(Kubernetes 1.35+): the modules reason about pod ordinals and partitions as the controller does,
and their status agrees with kubectl's `rollout status` on the same object."""

import pytest

from tests.kubesim.timeline import workload_timeline

from ..conftest import Kube, entry, image_of, task, workload

pytestmark = pytest.mark.integration

NEW = 'nginx:1.26'
REVISION_LABEL = 'controller-revision-hash'


def numbered_from(name, start, replicas=3, **spec):
    obj = workload('StatefulSet', name, replicas=replicas)
    obj['spec']['ordinals'] = {'start': start}
    obj['spec'].update(spec)
    return obj


def pods(kube, name):
    return {p['metadata']['name']: p for p in kube.list('Pod', selector=f'app={name}')}


def pod_image(pod):
    return pod['spec']['containers'][0]['image']


def test_partition_counts_from_start_and_status_matches_kubectl(kubesim_factory, play, kubectl):
    sim = kubesim_factory(ready_delay=0.05)
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([numbered_from('db', 3)])
    assert sorted(pods(kube, 'db')) == ['db-3', 'db-4', 'db-5']

    res = play(sim, [
        task('canary', 'rollout_image', kind='StatefulSet', name='db', images={'app': NEW}, partition=2,
             wait=True, wait_timeout=60),
        task('status', 'rollout_status', kind='StatefulSet', name='db', wait_timeout=60),
    ])
    assert res.ok('canary')['changed'] is True
    status = res.ok('status')['workloads'][0]
    # partition 2 of 3 replicas numbered from 3: only the highest ordinal, db-5, takes the update.
    assert {n: pod_image(p) for n, p in pods(kube, 'db').items()} == {
        'db-3': 'nginx:1.25', 'db-4': 'nginx:1.25', 'db-5': NEW}
    assert status['done'] is True
    out = kubectl.using(sim)('rollout', 'status', 'statefulset/db', '--timeout=60s', check=True)
    assert out.stdout.strip() == status['message'] == (
        'partitioned roll out complete: 1 new pods have been updated...')

    # Releasing the canary: the status waits for all three, as kubectl's.
    res = play(sim, [task('release', 'rollout_image', kind='StatefulSet', name='db', images={'app': NEW},
                          partition=0, wait=True, wait_timeout=60)])
    assert res.ok('release')['workloads'][0]['status']['done'] is True
    assert {pod_image(p) for p in pods(kube, 'db').values()} == {NEW}
    assert sorted(pods(kube, 'db')) == ['db-3', 'db-4', 'db-5']
    out = kubectl.using(sim)('rollout', 'status', 'statefulset/db', '--timeout=60s', check=True)
    assert out.stdout.strip() == 'partitioned roll out complete: 3 new pods have been updated...'


def test_ondelete_release_replaces_the_pods_from_the_highest_ordinal(kubesim_factory, play, kubectl):
    sim = kubesim_factory(ready_delay=0.05)
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([numbered_from('legacy', 3, updateStrategy={'type': 'OnDelete'})])
    res = play(sim, [task('release', 'rollout_release', timeout=60,
                          workloads=[{'kind': 'StatefulSet', 'name': 'legacy', 'images': {'app': NEW}}])])
    r = res.ok('release')['workloads'][0]
    assert r['outcome'] == 'upgraded'
    assert r['deleted_pods'] == ['legacy-5', 'legacy-4', 'legacy-3']
    assert {n: pod_image(p) for n, p in pods(kube, 'legacy').items()} == dict.fromkeys(
        ('legacy-3', 'legacy-4', 'legacy-5'), NEW)
    # kubectl has no rollout status for OnDelete; the module says the same.
    out = kubectl.using(sim)('rollout', 'status', 'statefulset/legacy', '--timeout=10s')
    assert out.returncode != 0 and 'only available for RollingUpdate strategy type' in out.stderr
    res = play(sim, [task('status', 'rollout_status', kind='StatefulSet', name='legacy', wait=False)])
    assert 'only available for RollingUpdate strategy type' in res.failed('status')['msg']


def test_undo_replaces_the_stuck_pods_of_a_set_numbered_from_start(kubesim_factory, play):
    sim = kubesim_factory(fail_image='^broken', ready_delay=0.1)
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([numbered_from('db', 3, podManagementPolicy='Parallel',
                                          updateStrategy={'type': 'OnDelete'})])
    kube.patch('StatefulSet', 'db', {'spec': {'template': {'spec': {'containers': [
        {'name': 'app', 'image': 'broken:1'}]}}}})
    kube.wait('StatefulSet', 'db', lambda o: o['status'].get('observedGeneration') == 2)
    for name in ('db-5', 'db-4'):
        kube.request('DELETE', kube.path('Pod', name))
    kube.wait('StatefulSet', 'db',
              lambda o: sum(pod_image(p) == 'broken:1' for p in pods(kube, 'db').values()) == 2)

    res = play(sim, [task('undo', 'rollout_undo', kind='StatefulSet', name='db', replace_stuck_pods=True,
                          wait_timeout=60)])
    e = entry(res.ok('undo'))
    # Lowest ordinal first, as an OrderedReady set creates them: ordinals 4 and 5, not 1 and 2.
    assert e['replaced_pods'] == ['db-4', 'db-5'], e
    kube.wait('StatefulSet', 'db', lambda o: o['status'].get('readyReplicas') == 3, timeout=60)
    assert {n: pod_image(p) for n, p in pods(kube, 'db').items()} == dict.fromkeys(
        ('db-3', 'db-4', 'db-5'), 'nginx:1.25')


def test_max_unavailable_updates_pods_in_batches_and_waiting_agrees_with_kubectl(kubesim_factory, play,
                                                                                    kubectl):
    sim = kubesim_factory(ready_delay=0.3)
    kube = Kube(sim.kubeconfig)
    strategy = {'type': 'RollingUpdate', 'rollingUpdate': {'maxUnavailable': 2}}
    kube.create_rolled_out([numbered_from('db', 1, replicas=4, updateStrategy=strategy),
                            numbered_from('twin', 1, replicas=4, updateStrategy=strategy)])

    kube.patch('StatefulSet', 'twin', {'spec': {'template': {'spec': {'containers': [
        {'name': 'app', 'image': NEW}]}}}})
    kubectl.using(sim)('rollout', 'status', 'statefulset/twin', '--timeout=60s', check=True)
    twin = kube.get('StatefulSet', 'twin')['status']

    start = sim.controllers.clock()
    res = play(sim, [task('image', 'rollout_image', kind='StatefulSet', name='db', images={'app': NEW},
                          wait=True, wait_timeout=60)])
    status = res.ok('image')['workloads'][0]['status']
    assert status['done'] is True
    obj = kube.get('StatefulSet', 'db')
    # Done means what kubectl's done means: every pod updated and ready.
    for s in (obj['status'], twin):
        assert (s['replicas'], s['readyReplicas'], s['updatedReplicas']) == (4, 4, 4), s
    assert {image_of(obj)} | {pod_image(p) for p in pods(kube, 'db').values()} == {NEW}
    # Two pods at a time, never more: two of the four are unavailable at some instant.
    timeline = workload_timeline(sim.readiness_log, 'default', 'StatefulSet', 'db', since=start)
    assert min(available for _t, _pods, available in timeline) == 2

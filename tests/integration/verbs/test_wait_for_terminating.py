"""wait_for_terminating: a Deployment's wait also outlasts its old pods (status.terminatingReplicas,
Kubernetes 1.35+), where kubectl's rollout status (and the default) stops once the new pods are
available."""

import pytest

from ..conftest import Kube, task, workload

pytestmark = pytest.mark.integration

NEW_IMAGE = {'spec': {'template': {'spec': {'containers': [{'name': 'app', 'image': 'app:2'}]}}}}


def terminating(kube, name):
    return kube.get('Deployment', name)['status'].get('terminatingReplicas', 0)


def test_wait_for_terminating_outlasts_the_old_pods_kubectl_does_not(kubesim_factory, play, kubectl):
    sim = kubesim_factory(nodes=1, ready_delay=0.05, stop_delay=3)  # old pods take 3 s to go
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', name, image='app:1', replicas=2)
                            for name in ('by-kubectl', 'by-default', 'by-module')])

    kube.patch('Deployment', 'by-kubectl', NEW_IMAGE)
    kubectl.using(sim)('rollout', 'status', 'deployment/by-kubectl', '--timeout=60s', check=True)
    assert terminating(kube, 'by-kubectl') > 0  # kubectl is done while old pods are still terminating

    res = play(sim, [task('default', 'rollout_image', kind='Deployment', name='by-default',
                          images={'app': 'app:2'}, wait=True, wait_timeout=60)])
    assert res.ok('default')['workloads'][0]['status']['done'] is True
    assert terminating(kube, 'by-default') > 0  # as kubectl

    res = play(sim, [task('terminated', 'rollout_image', kind='Deployment', name='by-module',
                          images={'app': 'app:2'}, wait=True, wait_timeout=60, wait_for_terminating=True),
                     task('status', 'rollout_status', kind='Deployment', name='by-default',
                          wait_for_terminating=True, wait_timeout=60)])
    assert res.ok('terminated')['workloads'][0]['status']['done'] is True
    assert res.ok('status')['workloads'][0]['done'] is True
    for name in ('by-module', 'by-default'):
        obj = kube.get('Deployment', name)
        assert obj['status'].get('terminatingReplicas', 0) == 0, obj['status']
        pods = kube.list('Pod', selector=f'app={name}')
        assert not [p for p in pods if p['metadata'].get('deletionTimestamp')]

"""The official `kubernetes` Python client (and raw HTTP) against volumes, APIServices and the pod
subresources that need a container runtime (the kubectl side is
tests/conformance/test_kubectl_volumes.py)."""

import json
import urllib.error
import urllib.request

import pytest

from .conftest import wait_for

pytestmark = pytest.mark.kubesim


@pytest.fixture
def api(kubesim):
    import kubernetes

    return kubernetes.config.new_client_from_config(str(kubesim.kubeconfig))


def claim_body(name='data', storage='1Gi', **spec):
    return {'apiVersion': 'v1', 'kind': 'PersistentVolumeClaim', 'metadata': {'name': name},
            'spec': {'accessModes': ['ReadWriteOnce'], 'resources': {'requests': {'storage': storage}},
                     **spec}}


def bound(core, name='data'):
    wait_for(lambda: core.read_namespaced_persistent_volume_claim(name, 'default').status.phase == 'Bound',
             f'claim {name} bound')
    return core.read_namespaced_persistent_volume_claim(name, 'default')


def test_claim_is_provisioned_and_bound(api):
    import kubernetes

    core = kubernetes.client.CoreV1Api(api)
    core.create_namespaced_persistent_volume_claim('default', claim_body())
    claim = bound(core)
    assert claim.spec.storage_class_name == 'standard'  # DefaultStorageClass
    assert claim.status.capacity == {'storage': '1Gi'} and claim.status.access_modes == ['ReadWriteOnce']
    [listed] = core.list_namespaced_persistent_volume_claim('default').items
    assert listed.spec.volume_name == f'pvc-{claim.metadata.uid}'
    pv = core.read_persistent_volume(claim.spec.volume_name)
    assert (pv.status.phase, pv.spec.claim_ref.uid, pv.spec.capacity) == ('Bound', claim.metadata.uid,
                                                                          {'storage': '1Gi'})
    assert pv.metadata.finalizers == ['kubernetes.io/pv-protection']
    # The DELETE answers the claim (ReturnDeletedObject), still there with its finalizer being worked.
    gone = core.delete_namespaced_persistent_volume_claim('data', 'default')
    assert gone.metadata.name == 'data'
    wait_for(lambda: not core.list_persistent_volume().items, 'the released volume to be deleted')


def test_retain_policy_keeps_the_released_volume(api):
    import kubernetes

    storage = kubernetes.client.StorageV1Api(api)
    core = kubernetes.client.CoreV1Api(api)
    storage.create_storage_class({'apiVersion': 'storage.k8s.io/v1', 'kind': 'StorageClass',
                                  'metadata': {'name': 'keep'}, 'provisioner': 'kubesim.io/hostpath',
                                  'reclaimPolicy': 'Retain', 'allowVolumeExpansion': True})
    names = {sc.metadata.name: sc for sc in storage.list_storage_class().items}
    assert names['standard'].metadata.annotations == {'storageclass.kubernetes.io/is-default-class': 'true'}
    assert names['keep'].volume_binding_mode == 'Immediate'
    core.create_namespaced_persistent_volume_claim('default', claim_body(storageClassName='keep'))
    claim = bound(core)
    # Expansion: allowed by the class, the volume and the capacity follow.
    core.patch_namespaced_persistent_volume_claim('data', 'default',
                                                  {'spec': {'resources': {'requests': {'storage': '2Gi'}}}})
    wait_for(lambda: core.read_namespaced_persistent_volume_claim('data', 'default').status.capacity
             == {'storage': '2Gi'}, 'the claim to grow')
    assert core.read_persistent_volume(claim.spec.volume_name).spec.capacity == {'storage': '2Gi'}
    core.delete_namespaced_persistent_volume_claim('data', 'default')
    wait_for(lambda: core.read_persistent_volume(claim.spec.volume_name).status.phase == 'Released',
             'the volume to be released')


def test_expansion_needs_a_class_that_allows_it(api):
    import kubernetes

    core = kubernetes.client.CoreV1Api(api)
    core.create_namespaced_persistent_volume_claim('default', claim_body())
    bound(core)
    with pytest.raises(kubernetes.client.ApiException) as err:
        core.patch_namespaced_persistent_volume_claim(
            'data', 'default', {'spec': {'resources': {'requests': {'storage': '2Gi'}}}})
    assert err.value.status == 403
    assert json.loads(err.value.body)['message'] == (
        'persistentvolumeclaims "data" is forbidden: only dynamically provisioned pvc can be resized and the '
        'storageclass that provisions the pvc must support resize')


def test_claim_validation(api):
    import kubernetes

    core = kubernetes.client.CoreV1Api(api)
    with pytest.raises(kubernetes.client.ApiException) as err:
        core.create_namespaced_persistent_volume_claim('default', {'metadata': {'name': 'x'}, 'spec': {
            'accessModes': ['Sometimes'], 'resources': {'requests': {'storage': '0'}}}})
    causes = {(c['field'], c['message']) for c in json.loads(err.value.body)['details']['causes']}
    assert ('spec.accessModes', 'Unsupported value: "Sometimes": supported values: "ReadOnlyMany", '
            '"ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"') in causes
    assert ('spec.resources[storage]', 'Invalid value: "0": must be greater than zero') in causes


def test_apiservices_through_the_client(api):
    import kubernetes

    registration = kubernetes.client.ApiregistrationV1Api(api)
    services = {s.metadata.name: s for s in registration.list_api_service().items}
    assert {'v1.', 'v1.apps', 'v1.autoscaling', 'v2.autoscaling', 'v1.batch', 'v1.storage.k8s.io',
            'v1.coordination.k8s.io'} <= set(services)
    core = services['v1.']
    assert (core.spec.group, core.spec.version, core.spec.group_priority_minimum,
            core.spec.version_priority, core.spec.service) == (None, 'v1', 18000, 1, None)  # group omitempty
    [available] = core.status.conditions
    assert (available.type, available.status, available.reason) == ('Available', 'True', 'Local')
    assert services['v2.autoscaling'].spec.version_priority == 30


def _get(sim, path):
    try:
        with urllib.request.urlopen(sim.url + path) as resp:
            return resp.status, resp.headers['Content-Type'], resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers['Content-Type'], err.read()


def test_runtime_subresources(kubesim, api):
    import kubernetes

    core = kubernetes.client.CoreV1Api(api)
    core.create_namespaced_pod('default', {'metadata': {'name': 'web'}, 'spec': {
        'containers': [{'name': 'app', 'image': 'nginx'}, {'name': 'side', 'image': 'busybox'}]}})
    wait_for(lambda: core.read_namespaced_pod('web', 'default').status.phase == 'Running', 'the pod to run')
    assert core.read_namespaced_pod_log('web', 'default', container='app') == ''
    status, _, body = _get(kubesim, '/api/v1/namespaces/default/pods/web/log')
    assert (status, json.loads(body)['message']) == (
        400, 'a container name must be specified for pod web, choose one of: [app side]')
    node = core.read_namespaced_pod('web', 'default').spec.node_name
    address = next(a.address for a in core.read_node(node).status.addresses if a.type == 'InternalIP')
    status, _, body = _get(kubesim, '/api/v1/namespaces/default/pods/web/exec?container=app&command=ls')
    assert status == 500
    assert json.loads(body) == {'kind': 'Status', 'apiVersion': 'v1', 'metadata': {}, 'status': 'Failure',
                                'message': f'error dialing backend: dial tcp {address}:10250: connect: '
                                           'connection refused', 'code': 500}
    entries = {r.name: r for r in core.get_api_resources().resources}
    assert entries['pods/exec'].verbs == ['create', 'get'] and entries['pods/exec'].kind == 'PodExecOptions'
    assert entries['pods/log'].verbs == ['get']
    assert entries['persistentvolumeclaims'].short_names == ['pvc']

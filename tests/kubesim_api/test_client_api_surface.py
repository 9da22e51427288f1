"""The official `kubernetes` Python client (and raw HTTP) against the API surface every client
expects: DELETE answers per kind, bodies as Go's encoder ends them, managedFields on every write,
batch/v1 Jobs and CronJobs, storage, APIServices, and the answers of the kubelet-backed
subresources (the kubectl side is tests/conformance/test_kubectl_api_surface.py)."""

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


def http(sim, method, path, body=None, headers=None):
    """(status, Content-Type, body bytes) of one request."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(sim.url + path, data=data, method=method,
                                     headers={'Content-Type': 'application/json', **(headers or {})})
    try:
        with urllib.request.urlopen(request) as resp:
            return resp.status, resp.headers['Content-Type'], resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers['Content-Type'], err.read()


# ---- DELETE answers ---------------------------------------------------------------------------------
def test_deleting_a_service_answers_the_service(api):
    from kubernetes import client

    core = client.CoreV1Api(api)
    core.create_namespaced_service('default', client.V1Service(
        metadata=client.V1ObjectMeta(name='web'),
        spec=client.V1ServiceSpec(selector={'app': 'web'}, ports=[client.V1ServicePort(port=80)])))
    # The service store sets ReturnDeletedObject: the client reads a V1Service back.
    answer = core.delete_namespaced_service('web', 'default')
    assert isinstance(answer, client.V1Service) and answer.metadata.name == 'web'
    core.create_namespaced_service_account('default', client.V1ServiceAccount(
        metadata=client.V1ObjectMeta(name='robot')))
    answer = core.delete_namespaced_service_account('robot', 'default')
    assert isinstance(answer, client.V1ServiceAccount) and answer.metadata.name == 'robot'
    # A ConfigMap's store does not: a Success Status naming it.
    core.create_namespaced_config_map('default', client.V1ConfigMap(metadata=client.V1ObjectMeta(name='c')))
    answer = core.delete_namespaced_config_map('c', 'default')
    assert answer['status'] == 'Success' and answer['details']['kind'] == 'configmaps'  # left a dict


def test_delete_collection_answers_the_list_of_what_went(kubesim):
    for name in ('a', 'b'):
        http(kubesim, 'POST', '/api/v1/namespaces/default/configmaps', {'metadata': {'name': name,
                                                                                     'labels': {'x': 'y'}}})
    status, _, body = http(kubesim, 'DELETE', '/api/v1/namespaces/default/configmaps?labelSelector=x%3Dy')
    answer = json.loads(body)
    assert status == 200 and answer['kind'] == 'ConfigMapList'
    assert [i['metadata']['name'] for i in answer['items']] == ['a', 'b']


# ---- bodies as Go's encoder writes them ----------------------------------------------------------------
def test_every_api_body_ends_with_the_encoders_newline(kubesim):
    cm = {'metadata': {'name': 'cm'}, 'data': {'k': 'v'}}
    status, _, created = http(kubesim, 'POST', '/api/v1/namespaces/default/configmaps', cm)
    assert status == 201 and created.endswith(b'}\n') and created.count(b'\n') == 1
    stale = dict(cm, metadata={'name': 'cm', 'resourceVersion': '1'})
    status, ctype, body = http(kubesim, 'PUT', '/api/v1/namespaces/default/configmaps/cm', stale)
    assert status == 409 and ctype == 'application/json'
    assert body == (b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":'
                    b'"Operation cannot be fulfilled on configmaps \\"cm\\": the object has been modified; '
                    b'please apply your changes to the latest version and try again","reason":"Conflict",'
                    b'"details":{"name":"cm","kind":"configmaps"},"code":409}\n')
    for path in ('/api/v1/namespaces/default/configmaps/cm', '/api/v1/namespaces/default/configmaps',
                 '/api', '/apis', '/api/v1', '/apis/apps/v1'):
        status, _, body = http(kubesim, 'GET', path)
        assert status == 200 and body.endswith(b'}\n'), path
    status, _, body = http(kubesim, 'DELETE', '/api/v1/namespaces/default/configmaps/cm')
    assert body.endswith(b'}\n')
    # /version is written by WriteRawJSON: indented by two spaces, no final newline.
    status, _, body = http(kubesim, 'GET', '/version')
    assert body.startswith(b'{\n  "major": "1",\n') and body.endswith(b'"\n}')


# ---- managedFields on every write --------------------------------------------------------------------
def _managers(obj):
    return [(e['manager'], e['operation'], e.get('subresource', '')) for e in obj['metadata']['managedFields']]


def test_every_write_records_its_manager(kubesim):
    base = '/api/v1/namespaces/default/configmaps'
    status, _, body = http(kubesim, 'POST', base, {'metadata': {'name': 'cm'}, 'data': {'a': '1'}},
                           headers={'User-Agent': 'deployer/2.1 (linux/amd64)'})
    created = json.loads(body)
    assert status == 201 and _managers(created) == [('deployer', 'Update', '')]
    assert created['metadata']['managedFields'][0]['fieldsV1'] == {'f:data': {'.': {}, 'f:a': {}}}
    created['data']['b'] = '2'
    _, _, body = http(kubesim, 'PUT', f'{base}/cm?fieldManager=editor', created)
    assert _managers(json.loads(body)) == [('deployer', 'Update', ''), ('editor', 'Update', '')]
    _, _, body = http(kubesim, 'PATCH', f'{base}/cm', {'data': {'c': '3'}},
                      headers={'Content-Type': 'application/merge-patch+json', 'User-Agent': 'patcher'})
    patched = json.loads(body)
    assert ('patcher', 'Update', '') in _managers(patched)
    owned = {e['manager']: e['fieldsV1'] for e in patched['metadata']['managedFields']}
    assert owned['patcher'] == {'f:data': {'f:c': {}}}
    _, _, body = http(kubesim, 'PATCH', f'{base}/cm', [{'op': 'add', 'path': '/data/d', 'value': '4'}],
                      headers={'Content-Type': 'application/json-patch+json', 'User-Agent': 'jsonpatch/1'})
    assert ('jsonpatch', 'Update', '') in _managers(json.loads(body))


def test_controllers_and_kubelet_write_as_themselves(api):
    from kubernetes import client

    apps = client.AppsV1Api(api)
    core = client.CoreV1Api(api)
    labels = {'app': 'web'}
    apps.create_namespaced_deployment('default', client.V1Deployment(
        metadata=client.V1ObjectMeta(name='web'), spec=client.V1DeploymentSpec(
            replicas=1, selector=client.V1LabelSelector(match_labels=labels),
            template=client.V1PodTemplateSpec(metadata=client.V1ObjectMeta(labels=labels), spec=client.V1PodSpec(
                containers=[client.V1Container(name='app', image='nginx:1.25')])))))
    deployment = wait_for(lambda: (d := apps.read_namespaced_deployment('web', 'default')).status.ready_replicas
                          and d, 'the deployment to be ready')
    managers = {(e.manager, e.operation, e.subresource) for e in deployment.metadata.managed_fields}
    assert ('kube-controller-manager', 'Update', 'status') in managers
    assert any(m[0] == 'OpenAPI-Generator' for m in managers)  # the client's User-Agent prefix
    pod = core.list_namespaced_pod('default').items[0]
    managers = {(e.manager, e.subresource) for e in pod.metadata.managed_fields}
    assert managers >= {('kube-controller-manager', None), ('kubelet', 'status')}

"""The real kubectl against kubesim's API layer: discovery, OpenAPI and the write verbs work without
extra flags. (The rollout behaviour itself is covered by the conformance suite.)"""

import json

import pytest

from .conftest import deployment

pytestmark = pytest.mark.kubesim


def apply(kubectl, tmp_path, obj):
    manifest = tmp_path / f'{obj["metadata"]["name"]}.json'
    manifest.write_text(json.dumps(obj))
    return kubectl('apply', '-f', manifest, check=True)


def get(kubectl, *what):
    return json.loads(kubectl('get', *what, '-o', 'json', check=True).stdout)


def test_get_namespaces_and_api_resources(kubectl):
    out = kubectl('get', 'ns', check=True).stdout
    assert {'default', 'kube-system', 'kube-public'} <= {line.split()[0] for line in out.splitlines()[1:]}
    resources = kubectl('api-resources', '--no-headers', check=True).stdout
    assert 'deploy' in resources and 'replicationcontrollers' in resources
    assert kubectl('version', check=True).stdout.count('Server Version: v1.') == 1


def test_apply_twice_then_patch_and_delete(kubectl, tmp_path):
    assert 'created' in apply(kubectl, tmp_path, deployment()).stdout
    changed = deployment(image='nginx:1.26')
    changed['spec']['template']['spec']['containers'].append({'name': 'side', 'image': 'busybox'})
    assert 'configured' in apply(kubectl, tmp_path, changed).stdout
    assert 'unchanged' in apply(kubectl, tmp_path, changed).stdout
    obj = get(kubectl, 'deploy', 'web')
    assert [(c['name'], c['image']) for c in obj['spec']['template']['spec']['containers']] == [
        ('app', 'nginx:1.26'), ('side', 'busybox')]
    assert 'kubectl.kubernetes.io/last-applied-configuration' in obj['metadata']['annotations']
    # Apply with the sidecar removed: kubectl's three-way patch deletes it.
    assert 'configured' in apply(kubectl, tmp_path, deployment(image='nginx:1.26')).stdout
    containers = get(kubectl, 'deploy', 'web')['spec']['template']['spec']['containers']
    assert [c['name'] for c in containers] == ['app']

    kubectl('patch', 'deploy', 'web', '-p', '{"spec":{"replicas":4}}', check=True)
    kubectl('patch', 'deploy', 'web', '--type=merge', '-p', '{"metadata":{"labels":{"x":"y"}}}', check=True)
    kubectl('patch', 'deploy', 'web', '--type=json',
            '-p', '[{"op":"add","path":"/spec/minReadySeconds","value":3}]', check=True)
    obj = get(kubectl, 'deploy', 'web')
    assert obj['spec']['replicas'] == 4 and obj['spec']['minReadySeconds'] == 3
    assert obj['metadata']['labels']['x'] == 'y'
    failed = kubectl('patch', 'deploy', 'web', '--type=json',
                     '-p', '[{"op":"test","path":"/spec/replicas","value":1}]')
    # The API server's patch handler drops the JSON-patch library's text: kubectl shows the generic 422.
    assert failed.returncode != 0
    assert ('The request is invalid: the server rejected our request due to an error in our request'
            in failed.stderr)

    assert 'deleted' in kubectl('delete', 'deploy', 'web', check=True).stdout
    missing = kubectl('get', 'deploy', 'web')
    assert missing.returncode != 0 and 'NotFound' in missing.stderr


def test_create_scale_set_image_and_rollout_verbs(kubectl, tmp_path):
    manifest = tmp_path / 'web.json'
    manifest.write_text(json.dumps(deployment(replicas=0)))
    kubectl('create', '-f', manifest, check=True)
    kubectl('scale', 'deploy/web', '--replicas=3', check=True)
    kubectl('set', 'image', 'deploy/web', 'app=nginx:1.27', check=True)
    obj = get(kubectl, 'deploy', 'web')
    assert obj['spec']['replicas'] == 3
    assert obj['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1.27'
    assert obj['metadata']['generation'] == 3

    kubectl('rollout', 'pause', 'deploy/web', check=True)
    assert get(kubectl, 'deploy', 'web')['spec']['paused'] is True
    refused = kubectl('rollout', 'restart', 'deploy/web')
    assert refused.returncode != 0 and "can't restart paused deployment" in refused.stderr
    kubectl('rollout', 'resume', 'deploy/web', check=True)
    kubectl('rollout', 'restart', 'deploy/web', check=True)
    annotations = get(kubectl, 'deploy', 'web')['spec']['template']['metadata']['annotations']
    assert 'kubectl.kubernetes.io/restartedAt' in annotations


def test_get_watch_sees_a_change(kubesim, kubectl, tmp_path):
    import subprocess
    import threading
    import time

    apply(kubectl, tmp_path, deployment(replicas=0))

    def scale_soon():
        time.sleep(1.0)
        kubectl('scale', 'deploy/web', '--replicas=5', check=True)

    thread = threading.Thread(target=scale_soon)
    thread.start()
    try:
        result = kubectl('get', 'deploy', 'web', '--watch', '--output-watch-events',
                         '-o', 'jsonpath={.type} {.object.spec.replicas}{"\\n"}', '--request-timeout=3s')
    except subprocess.TimeoutExpired:  # pragma: no cover - only when the watch never ends
        pytest.fail('kubectl get --watch did not end')
    finally:
        thread.join()
    lines = result.stdout.split('\n')
    assert lines[0] == 'ADDED 0' and 'MODIFIED 5' in lines


def test_server_side_apply_conflicts_and_force(kubectl, tmp_path):
    manifest = tmp_path / 'web.json'
    manifest.write_text(json.dumps(deployment(replicas=2)))
    assert kubectl('apply', '--server-side', '-f', manifest, check=True).stdout == \
        'deployment.apps/web serverside-applied\n'
    kubectl('scale', 'deploy/web', '--replicas=4', check=True)
    result = kubectl('apply', '--server-side', '-f', manifest)
    assert result.returncode != 0
    assert ('Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using apps/v1: '
            '.spec.replicas') in result.stderr
    kubectl('apply', '--server-side', '--force-conflicts', '-f', manifest, check=True)
    assert kubectl('get', 'deploy/web', '-o', 'jsonpath={.spec.replicas}', check=True).stdout == '2'


def test_describe_and_events(kubectl, tmp_path):
    """describe lists the object's events with involvedObject field selectors."""
    apply(kubectl, tmp_path, deployment(replicas=0))
    result = kubectl('describe', 'deploy', 'web', check=True)
    assert 'Name:' in result.stdout and 'Events:' in result.stdout
    kubectl('get', 'events', '--field-selector', 'involvedObject.kind=Deployment', check=True)


def test_get_prints_server_side_tables(kubectl, http, tmp_path):
    apply(kubectl, tmp_path, deployment(replicas=0))
    lines = kubectl('get', 'deploy', check=True).stdout.splitlines()
    assert lines[0].split() == ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']
    assert lines[1].split()[:2] == ['web', '0/0']
    wide = kubectl('get', 'deploy', 'web', '-o', 'wide', check=True).stdout.splitlines()
    assert wide[0].split()[-3:] == ['CONTAINERS', 'IMAGES', 'SELECTOR']
    assert wide[1].split()[-3:] == ['app', 'nginx:1.25', 'app=web']
    status, _, table = http.get('/apis/apps/v1/namespaces/default/deployments',
                                headers={'Accept': 'application/json;as=Table;v=v1;g=meta.k8s.io'})
    assert status == 200 and table['kind'] == 'Table' and table['rows'][0]['cells'][0] == 'web'
    namespaces = kubectl('get', 'ns', check=True).stdout.splitlines()
    assert namespaces[0].split() == ['NAME', 'STATUS', 'AGE']


def test_protobuf_bodies_are_decoded_and_scale_works(kubectl):
    # kubectl sends built-in kinds in protobuf for `create <kind>` and asks for protobuf answers;
    # `kubectl scale` patches the scale subresource in JSON.
    for args, kind in ((('deployment', 'web', '--image=nginx'), 'deployment.apps'),
                       (('configmap', 'settings', '--from-literal=a=b'), 'configmap')):
        proc = kubectl('create', *args, check=True)
        assert proc.stdout == f'{kind}/{args[1]} created\n'
    assert kubectl('get', 'configmap', 'settings', '-o', 'jsonpath={.data.a}', check=True).stdout == 'b'
    assert kubectl('scale', 'deploy/web', '--replicas=2', check=True).stdout == 'deployment.apps/web scaled\n'
    assert kubectl('get', 'deploy/web', '-o', 'jsonpath={.spec.replicas}', check=True).stdout == '2'


def test_bad_protobuf_bodies_are_refused(http):
    for body, message in ((b'not protobuf', 'the magic prefix is missing'),
                          (b'k8s\x00\x12\xff', 'truncated')):
        status, _, answer = http.post('/api/v1/namespaces/default/configmaps', body,
                                      content_type='application/vnd.kubernetes.protobuf')
        assert status == 400 and answer['message'].startswith('ConfigMap in version "v1" cannot be handled')
        assert message in answer['message']
    status, _, answer = http.post('/api/v1/namespaces/default/configmaps', b'\xa0',
                                  content_type='application/cbor')
    accepted = 'application/json, application/yaml, application/vnd.kubernetes.protobuf'
    assert status == 415 and answer['message'].endswith(f'accepted media types include: {accepted}')

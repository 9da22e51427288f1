"""The basics through a real socket: discovery, CRUD, kubectl."""

import json

import pytest

from .conftest import deployment

pytestmark = pytest.mark.kubesim

DEPLOYS = '/apis/apps/v1/namespaces/default/deployments'


def test_version_and_discovery(http):
    status, _, version = http.get('/version')
    assert status == 200 and version['major'] == '1' and version['gitVersion'].startswith('v1.')
    status, _, core = http.get('/api/v1')
    names = {r['name'] for r in core['resources']}
    assert {'pods', 'pods/status', 'replicationcontrollers/scale', 'namespaces', 'nodes'} <= names
    _, _, apps = http.get('/apis/apps/v1')
    by_name = {r['name']: r for r in apps['resources']}
    assert by_name['deployments']['shortNames'] == ['deploy']
    assert 'all' in by_name['deployments']['categories']
    assert by_name['deployments/scale']['group'] == 'autoscaling'
    assert by_name['deployments/scale']['kind'] == 'Scale'
    _, _, groups = http.get('/apis')
    assert [g['name'] for g in groups['groups']] == ['apiextensions.k8s.io', 'apiregistration.k8s.io', 'apps',
                                                     'authorization.k8s.io', 'autoscaling', 'batch',
                                                     'certificates.k8s.io', 'coordination.k8s.io',
                                                     'discovery.k8s.io', 'metrics.k8s.io',
                                                     'networking.k8s.io', 'policy',
                                                     'rbac.authorization.k8s.io', 'storage.k8s.io']
    autoscaling = next(g for g in groups['groups'] if g['name'] == 'autoscaling')
    assert autoscaling['preferredVersion'] == {'groupVersion': 'autoscaling/v2', 'version': 'v2'}
    assert [v['version'] for v in autoscaling['versions']] == ['v2', 'v1']


def test_crud_round_trip(http):
    status, _, created = http.post(DEPLOYS, deployment())
    assert status == 201
    assert created['metadata']['namespace'] == 'default'
    assert created['metadata']['generation'] == 1
    rv = created['metadata']['resourceVersion']
    status, _, got = http.get(f'{DEPLOYS}/web')
    assert status == 200 and got['metadata']['uid'] == created['metadata']['uid']
    status, _, listed = http.get(DEPLOYS)
    assert listed['kind'] == 'DeploymentList' and [i['metadata']['name'] for i in listed['items']] == ['web']
    got['spec']['replicas'] = 3
    # Unconditional update: the controllers may have written status since the GET.
    del got['metadata']['resourceVersion']
    status, _, updated = http.put(f'{DEPLOYS}/web', got)
    assert status == 200 and updated['metadata']['resourceVersion'] != rv
    assert updated['metadata']['generation'] == 2
    status, _, _ = http.delete(f'{DEPLOYS}/web')
    assert status == 200
    status, _, err = http.get(f'{DEPLOYS}/web')
    assert status == 404 and err['reason'] == 'NotFound'


def test_kubectl_basics(kubesim, kubectl, tmp_path):
    assert 'kube-system' in kubectl('get', 'ns', check=True).stdout
    manifest = tmp_path / 'web.json'
    manifest.write_text(json.dumps(deployment()))
    assert 'created' in kubectl('apply', '-f', manifest, check=True).stdout
    manifest.write_text(json.dumps(deployment(image='nginx:1.26')))
    assert 'configured' in kubectl('apply', '-f', manifest, check=True).stdout
    obj = json.loads(kubectl('get', 'deploy', 'web', '-o', 'json', check=True).stdout)
    assert obj['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1.26'
    kubectl('patch', 'deploy', 'web', '-p', '{"spec":{"replicas":4}}', check=True)
    kubectl('delete', 'deploy', 'web', check=True)
    assert kubectl('get', 'deploy', 'web').returncode != 0

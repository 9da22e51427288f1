"""kubectl against what the API server serves beside the objects: the discovery documents'
`storageVersionHash`, server-side printing with `--sort-by` (the Table's rows carry the objects
kubectl sorts) and `--subresource=status` (the resource's columns), and the namespaces the
NamespaceLifecycle admission keeps. Meaningful against a real cluster too."""

import base64
import hashlib
import json

import pytest
import yaml

from .conftest import eventually

pytestmark = pytest.mark.conformance


def expected_hash(group, version, kind):
    """storageversionhash.go: base64 of the first 8 bytes of sha256("group/version/kind")."""
    return base64.b64encode(hashlib.sha256(f'{group}/{version}/{kind}'.encode()).digest()[:8]).decode()


def resources(kube, path):
    return {r['name']: r for r in json.loads(kube('get', '--raw', path).stdout)['resources']}


def test_discovery_lists_the_storage_version_hash(kube):
    core = resources(kube, '/api/v1')
    assert core['pods']['storageVersionHash'] == expected_hash('', 'v1', 'Pod') == 'xPOwRZ+Yhw8='
    assert core['configmaps']['storageVersionHash'] == expected_hash('', 'v1', 'ConfigMap')
    assert 'storageVersionHash' not in core['pods/status']
    assert 'storageVersionHash' not in core['pods/log']
    apps = resources(kube, '/apis/apps/v1')
    assert apps['deployments']['storageVersionHash'] == expected_hash('apps', 'v1', 'Deployment')
    assert 'storageVersionHash' not in apps['deployments/scale']
    # Both versions of HorizontalPodAutoscaler name the version they are stored in.
    stored = expected_hash('autoscaling', 'v2', 'HorizontalPodAutoscaler')
    assert resources(kube, '/apis/autoscaling/v1')['horizontalpodautoscalers']['storageVersionHash'] == stored
    assert resources(kube, '/apis/autoscaling/v2')['horizontalpodautoscalers']['storageVersionHash'] == stored
    # Reviews are answered, never stored.
    reviews = resources(kube, '/apis/authorization.k8s.io/v1')
    assert 'storageVersionHash' not in reviews['selfsubjectaccessreviews']
    # kubectl api-resources reads these documents (it prints no hash, -o wide neither).
    wide = kube('api-resources', '-o', 'wide', '--api-group=apps').stdout.splitlines()
    assert wide[0].split() == ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND', 'VERBS',
                               'CATEGORIES']
    assert any(line.split()[0] == 'deployments' for line in wide[1:])


def test_custom_resources_name_the_crds_storage_version(kube):
    group = f'{kube.namespace}.example.com'
    schema = {'openAPIV3Schema': {'type': 'object', 'x-kubernetes-preserve-unknown-fields': True}}
    kube.apply({
        'apiVersion': 'apiextensions.k8s.io/v1', 'kind': 'CustomResourceDefinition',
        'metadata': {'name': f'gadgets.{group}'},
        'spec': {'group': group, 'scope': 'Namespaced',
                 'names': {'plural': 'gadgets', 'singular': 'gadget', 'kind': 'Gadget'},
                 'versions': [{'name': 'v1', 'served': True, 'storage': False, 'schema': schema},
                              {'name': 'v2', 'served': True, 'storage': True, 'schema': schema,
                               'subresources': {'status': {}}}]}})
    try:
        kube('wait', '--for', 'condition=established', f'crd/gadgets.{group}', '--timeout=30s')
        stored = expected_hash(group, 'v2', 'Gadget')
        eventually(lambda: kube('get', '--raw', f'/apis/{group}/v1', ok=None).returncode == 0, 'v1 served')
        assert resources(kube, f'/apis/{group}/v1')['gadgets']['storageVersionHash'] == stored
        v2 = resources(kube, f'/apis/{group}/v2')
        assert v2['gadgets']['storageVersionHash'] == stored
        assert 'storageVersionHash' not in v2['gadgets/status']
    finally:
        kube('delete', 'crd', f'gadgets.{group}', '--ignore-not-found', '--wait=false', ok=None)


def deployment(name, replicas):
    labels = {'app': name}
    return {'apiVersion': 'apps/v1', 'kind': 'Deployment', 'metadata': {'name': name, 'labels': labels},
            'spec': {'replicas': replicas, 'selector': {'matchLabels': labels},
                     'template': {'metadata': {'labels': labels},
                                  'spec': {'containers': [{'name': 'c', 'image': 'nginx:1.25'}]}}}}


def names(out):
    return [line.split()[0] for line in out.splitlines()[1:]]


def test_get_sort_by_with_server_side_printing(kube):
    kube.apply({'apiVersion': 'v1', 'kind': 'List',
                'items': [deployment('cherry', 0), deployment('apple', 2), deployment('banana', 1)]})
    proc = kube('get', 'deploy', '--sort-by=.metadata.name')
    assert 'No resources found' not in proc.stderr
    assert proc.stdout.splitlines()[0].split()[:4] == ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE']
    assert names(proc.stdout) == ['apple', 'banana', 'cherry']
    assert names(kube('get', 'deploy', '--sort-by=.spec.replicas').stdout) == ['cherry', 'banana', 'apple']
    wide = kube('get', 'deploy', '--sort-by={.spec.replicas}', '-o', 'wide').stdout
    assert names(wide) == ['cherry', 'banana', 'apple'] and 'IMAGES' in wide.splitlines()[0]
    # The same rows in the same order as the client-side sort of the full objects.
    listed = kube.items('deploy', '--sort-by=.metadata.name')
    assert [d['metadata']['name'] for d in listed] == ['apple', 'banana', 'cherry']


def test_get_subresource_status_prints_the_resources_columns(kube):
    kube.apply({'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': 'solo'},
                'spec': {'containers': [{'name': 'c', 'image': 'nginx:1.25'}]}})
    out = kube('get', 'pod', 'solo', '--subresource=status').stdout.splitlines()
    assert out[0].split() == ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']
    assert out[1].split()[0] == 'solo'
    kube.apply(deployment('web', 1))
    out = kube('get', 'deploy', 'web', '--subresource=status').stdout.splitlines()
    assert out[0].split() == ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']
    status = yaml.safe_load(kube('get', 'deploy', 'web', '--subresource=status', '-o', 'yaml').stdout)
    assert status['kind'] == 'Deployment' and status['metadata']['name'] == 'web'


@pytest.mark.parametrize('namespace', ['kube-system', 'default', 'kube-public'])
def test_the_namespaces_the_server_keeps_may_not_be_deleted(kube, namespace):
    for extra in (['--dry-run=server'], []):
        proc = kube('delete', 'namespace', namespace, *extra, ok=False)
        assert (f'Error from server (Forbidden): namespaces "{namespace}" is forbidden: '
                'this namespace may not be deleted') in proc.stderr
    phase = kube.json('namespace', namespace)['status']['phase']
    assert phase == 'Active'

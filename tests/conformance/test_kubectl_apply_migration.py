"""`kubectl apply --server-side` on objects `kubectl apply` (client-side) made: the API server lets
the manager `kubectl` take the fields the last-applied annotation still holds with their live
values (no conflict with `kubectl-client-side-apply`), keeps the annotation up to date, and kubectl
then moves client-side apply's fields to its own apply entry and applies again, so the managed
fields end with `kubectl` owning exactly its configuration and `kubectl-last-applied` the
annotation. A field another manager changed since still conflicts, and so does any field for a
manager other than `kubectl`."""

import json

import pytest

pytestmark = pytest.mark.conformance

LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration'


def settings(**data):
    meta = {'name': 'settings', 'labels': {'tier': 'web'}}
    return {'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': meta, 'data': data}


def entries(obj):
    """{(manager, operation): fieldsV1} of the main resource."""
    return {(e['manager'], e['operation']): e['fieldsV1'] for e in obj['metadata']['managedFields']
            if not e.get('subresource')}


def test_server_side_apply_takes_over_what_client_side_apply_wrote(kube):
    kube('apply', '-f', '-', input=json.dumps(settings(a='1', b='2')))
    out = kube('apply', '--server-side', '-f', '-', input=json.dumps(settings(a='1', b='3'))).stdout
    assert out == 'configmap/settings serverside-applied\n'
    live = kube.json('configmap', 'settings', '--show-managed-fields')
    assert live['data'] == {'a': '1', 'b': '3'} and live['metadata']['labels'] == {'tier': 'web'}
    assert entries(live) == {
        ('kubectl', 'Apply'): {'f:data': {'f:a': {}, 'f:b': {}}, 'f:metadata': {'f:labels': {'f:tier': {}}}},
        ('kubectl-last-applied', 'Apply'): {'f:metadata': {'f:annotations': {f'f:{LAST_APPLIED}': {}}}},
    }
    # The annotation now holds the configuration applied server-side, as Go's encoder writes it.
    assert live['metadata']['annotations'][LAST_APPLIED] == (
        '{"apiVersion":"v1","data":{"a":"1","b":"3"},"kind":"ConfigMap","metadata":{"labels":{"tier":"web"},'
        f'"name":"settings","namespace":"{kube.namespace}"}}}}\n')
    # From now on the apply prunes what it no longer applies, the label included.
    kube('apply', '--server-side', '-f', '-',
         input=json.dumps({**settings(a='1'), 'metadata': {'name': 'settings'}}))
    live = kube.json('configmap', 'settings')
    assert live['data'] == {'a': '1'} and 'labels' not in live['metadata']


def test_an_unchanged_deployment_moves_to_server_side_apply_as_it_is(kube):
    deploy = {'apiVersion': 'apps/v1', 'kind': 'Deployment', 'metadata': {'name': 'web'},
              'spec': {'replicas': 2, 'selector': {'matchLabels': {'app': 'web'}},
                       'template': {'metadata': {'labels': {'app': 'web'}},
                                    'spec': {'containers': [{'name': 'app', 'image': 'nginx:1.25'}]}}}}
    kube('apply', '-f', '-', input=json.dumps(deploy))
    before = kube.json('deploy/web')
    out = kube('apply', '--server-side', '-f', '-', input=json.dumps(deploy)).stdout
    assert out == 'deployment.apps/web serverside-applied\n'
    after = kube.json('deploy/web', '--show-managed-fields')
    # The defaults client-side apply owned by creating the object are pruned and defaulted again.
    assert after['spec'] == before['spec']
    mine = entries(after)
    container = {'.': {}, 'f:image': {}, 'f:name': {}}
    assert mine[('kubectl', 'Apply')] == {'f:spec': {
        'f:replicas': {}, 'f:selector': {},
        'f:template': {'f:metadata': {'f:labels': {'f:app': {}}},
                       'f:spec': {'f:containers': {'k:{"name":"app"}': container}}}}}
    assert ('kubectl-client-side-apply', 'Update') not in mine
    assert ('kubectl-last-applied', 'Apply') in mine


def test_a_field_changed_since_by_another_manager_still_conflicts(kube):
    kube('apply', '-f', '-', input=json.dumps(settings(a='1', b='2')))
    kube('patch', 'configmap', 'settings', '--type=merge', '-p', '{"data":{"b":"patched"}}')
    proc = kube('apply', '--server-side', '-f', '-', input=json.dumps(settings(a='1', b='3')), ok=False)
    assert 'Apply failed with 1 conflict: conflict with "kubectl-patch" using v1: .data.b' in proc.stderr
    live = kube.json('configmap', 'settings', '--show-managed-fields')
    assert live['data'] == {'a': '1', 'b': 'patched'}
    assert ('kubectl-client-side-apply', 'Update') in entries(live)


def test_only_the_manager_kubectl_takes_client_side_apply_fields(kube):
    kube('apply', '-f', '-', input=json.dumps(settings(a='1', b='2')))
    proc = kube('apply', '--server-side', '--field-manager=deployer', '-f', '-',
                input=json.dumps(settings(a='1', b='3')), ok=False)
    assert 'conflict with "kubectl-client-side-apply" using v1: .data.b' in proc.stderr
    assert kube.json('configmap', 'settings')['data'] == {'a': '1', 'b': '2'}

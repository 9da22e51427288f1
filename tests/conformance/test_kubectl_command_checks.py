"""kubectl against what kube-apiserver answers to the requests of Kubernetes' own kubectl command
checks (pods, apply, namespaces, events, storage classes, impersonation, authorization, sort-by):
the messages and objects those checks read. Meaningful against a real cluster too."""

import json

import pytest

pytestmark = pytest.mark.conformance


def pod(name, **spec):
    return {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': name, 'labels': {'name': name}},
            'spec': {'containers': [{'name': 'app', 'image': 'nginx:1.25'}], **spec}}


@pytest.mark.parametrize('patch, message', [
    ({'metadata': {'labels': 'invalid'}}, 'cannot restore map from string'),
    ({'spec': {'containers': {'name': 'x'}}}, 'cannot restore slice from map'),
    ({'spec': 'x'}, 'cannot restore struct from: string'),
    ({'spec': {'nodeName': 3}}, 'cannot convert int64 to string'),
    ({'spec': {'priority': '3'}}, 'unrecognized type: int32'),
])
def test_a_strategic_merge_patch_of_the_wrong_type_names_the_converters_error(kube, patch, message):
    kube.apply(pod('valid-pod'))
    proc = kube('patch', 'pod', 'valid-pod', '-p', json.dumps(patch), ok=False)
    assert proc.returncode == 1
    assert proc.stderr.startswith('The request is invalid: patch: Invalid value: "map[')
    assert proc.stderr.rstrip().endswith(f'": {message}')


def test_replace_with_resource_version_0_is_unconditional(kube):
    cm = {'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': 'cfg'}, 'data': {'a': '1'}}
    kube('create', '-f', '-', input=json.dumps(cm))
    stored = kube.json('cm/cfg')['metadata']['resourceVersion']
    cm['metadata']['resourceVersion'] = '0'
    cm['data']['a'] = '2'
    kube('replace', '-f', '-', input=json.dumps(cm))
    after = kube.json('cm/cfg')
    assert after['data'] == {'a': '2'}
    assert after['metadata']['resourceVersion'] != stored
    cm['metadata']['resourceVersion'] = stored  # now stale
    proc = kube('replace', '-f', '-', input=json.dumps(cm), ok=False)
    assert 'Operation cannot be fulfilled on configmaps "cfg": the object has been modified' in proc.stderr

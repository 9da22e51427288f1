"""kubectl against what the API server itself decides when it decodes, admits and stores an object:
Secret conversion, status on create, ServiceAccount admission, delete answers and validation.
Meaningful against a real cluster too."""

import base64
import json

import pytest

pytestmark = pytest.mark.conformance


def b64(text):
    return base64.b64encode(text.encode()).decode()


def test_secret_string_data_is_folded_into_data(kube):
    kube.apply({'apiVersion': 'v1', 'kind': 'Secret', 'metadata': {'name': 'creds'},
                'data': {'user': b64('old'), 'kept': b64('same')},
                'stringData': {'user': 'admin', 'password': 'hunter2'}})
    secret = kube.json('secret', 'creds')
    assert 'stringData' not in secret
    assert secret['type'] == 'Opaque'
    assert secret['data'] == {'user': b64('admin'), 'kept': b64('same'), 'password': b64('hunter2')}
    kube('patch', 'secret', 'creds', '--type=merge', '-p', json.dumps({'stringData': {'token': 't0k'}}))
    secret = kube.json('secret', 'creds')
    assert 'stringData' not in secret and secret['data']['token'] == b64('t0k')
    assert kube('get', 'secret', 'creds').stdout.split('\n')[1].split()[:3] == ['creds', 'Opaque', '4']


def test_secret_data_must_be_base64_and_type_is_immutable(kube):
    bad = {'apiVersion': 'v1', 'kind': 'Secret', 'metadata': {'name': 'bad'}, 'data': {'k': 'abc'}}
    proc = kube('create', '-f', '-', input=json.dumps(bad), ok=False)
    assert 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 0' \
        in proc.stderr
    tls = {'apiVersion': 'v1', 'kind': 'Secret', 'metadata': {'name': 'cert'}, 'type': 'kubernetes.io/tls',
           'stringData': {'tls.crt': 'c'}}
    proc = kube('create', '-f', '-', input=json.dumps(tls), ok=False)
    assert 'The Secret "cert" is invalid: data[tls.key]: Required value' in proc.stderr
    kube.apply({'apiVersion': 'v1', 'kind': 'Secret', 'metadata': {'name': 'plain'},
                'stringData': {'a': 'b'}, 'immutable': True})
    proc = kube('patch', 'secret', 'plain', '--type=merge', '-p', '{"stringData":{"a":"c"}}', ok=False)
    assert 'data: Forbidden: field is immutable when `immutable` is set' in proc.stderr
    proc = kube('patch', 'secret', 'plain', '--type=merge', '-p', '{"type":"other"}', ok=False)
    assert 'type: Invalid value: "other": field is immutable' in proc.stderr


# ---- status on create -----------------------------------------------------------------------------
def _with_status(kind, name, status):
    spec = {'selector': {'matchLabels': {'app': name}},
            'template': {'metadata': {'labels': {'app': name}},
                         'spec': {'containers': [{'name': 'app', 'image': 'nginx:1.25'}]}}}
    if kind != 'DaemonSet':
        spec['replicas'] = 0
    if kind == 'StatefulSet':
        spec['serviceName'] = name
    return {'apiVersion': 'apps/v1', 'kind': kind, 'metadata': {'name': name}, 'spec': spec, 'status': status}


@pytest.mark.parametrize('kind, expected', [
    ('Deployment', {}),
    ('ReplicaSet', {'replicas': 0}),
    ('StatefulSet', {'replicas': 0, 'availableReplicas': 0}),
    ('DaemonSet', {'currentNumberScheduled': 0, 'numberMisscheduled': 0, 'desiredNumberScheduled': 0,
                   'numberReady': 0}),
])
def test_a_status_sent_on_create_is_dropped(kube, kind, expected):
    # The answer to the create shows the stored object before any controller wrote to it: the
    # strategy's PrepareForCreate resets the status, and Go prints its fields without omitempty.
    made_up = {'numberReady': 7, 'desiredNumberScheduled': 7} if kind == 'DaemonSet' else {
        'replicas': 7, 'readyReplicas': 7}
    sent = _with_status(kind, 'made-up', {**made_up, 'observedGeneration': 9})
    created = json.loads(kube('create', '-f', '-', '-o', 'json', input=json.dumps(sent)).stdout)
    assert created['status'] == expected


def test_a_new_pod_is_pending_with_its_qos_class(kube):
    def pod(name, resources, status=None):
        body = {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': name},
                'spec': {'containers': [{'name': 'app', 'image': 'nginx:1.25', 'resources': resources}]}}
        if status:
            body['status'] = status
        return json.loads(kube('create', '-f', '-', '-o', 'json', input=json.dumps(body)).stdout)

    best = pod('best', {}, status={'phase': 'Running', 'podIP': '10.9.9.9'})
    assert best['status'] == {'phase': 'Pending', 'qosClass': 'BestEffort'}
    # Limits alone: the requests default to them (for pods, not templates), so both are equal.
    guaranteed = pod('guaranteed', {'limits': {'cpu': '100m', 'memory': '64Mi'}})
    assert guaranteed['spec']['containers'][0]['resources']['requests'] == {'cpu': '100m', 'memory': '64Mi'}
    assert guaranteed['status'] == {'phase': 'Pending', 'qosClass': 'Guaranteed'}
    assert pod('burstable', {'requests': {'cpu': '100m'}})['status']['qosClass'] == 'Burstable'


def test_a_new_namespace_is_active_and_labelled_with_its_name(kube):
    name = f'x-{kube.namespace}'[:63].rstrip('-')
    sent = {'apiVersion': 'v1', 'kind': 'Namespace', 'metadata': {'name': name},
            'status': {'phase': 'Terminating'}}
    created = json.loads(kube('create', '-f', '-', '-o', 'json', input=json.dumps(sent)).stdout)
    try:
        assert created['status'] == {'phase': 'Active'}
        assert created['spec'] == {'finalizers': ['kubernetes']}
        assert created['metadata']['labels'] == {'kubernetes.io/metadata.name': name}
    finally:
        kube('delete', 'namespace', name, '--wait=false')

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

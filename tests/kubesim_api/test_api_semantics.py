"""The official `kubernetes` Python client against what kubesim's API server decides when it
decodes, admits and stores an object (the kubectl side is tests/conformance/test_api_semantics.py)."""

import base64

import pytest

pytestmark = pytest.mark.kubesim


@pytest.fixture
def core(kubesim):
    import kubernetes

    return kubernetes.client.CoreV1Api(kubernetes.config.new_client_from_config(str(kubesim.kubeconfig)))


def b64(text):
    return base64.b64encode(text.encode()).decode()


def test_secret_string_data_is_folded_into_data(core):
    from kubernetes import client

    created = core.create_namespaced_secret('default', client.V1Secret(
        metadata=client.V1ObjectMeta(name='creds'), data={'user': b64('old')},
        string_data={'user': 'admin', 'password': 'hunter2'}))
    assert created.string_data is None and created.type == 'Opaque'
    assert created.data == {'user': b64('admin'), 'password': b64('hunter2')}
    read = core.read_namespaced_secret('creds', 'default')
    assert read.string_data is None and read.data == created.data
    patched = core.patch_namespaced_secret('creds', 'default', {'stringData': {'user': 'root'}})
    assert patched.string_data is None and patched.data['user'] == b64('root')
    with pytest.raises(client.ApiException) as err:
        core.create_namespaced_secret('default', {'metadata': {'name': 'bad'}, 'data': {'k': 'YWJj!'}})
    assert err.value.status == 400
    assert 'illegal base64 data at input byte 4' in err.value.body

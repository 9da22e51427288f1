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


def test_a_new_statefulset_reads_back_through_the_typed_client(kubesim):
    # The client's V1StatefulSetStatus requires `replicas`: a StatefulSet read before its
    # controller's first status write must still carry it, as the API server prints it.
    import kubernetes
    from kubernetes import client

    apps = client.AppsV1Api(kubernetes.config.new_client_from_config(str(kubesim.kubeconfig)))
    labels = {'app': 'db'}
    template = client.V1PodTemplateSpec(metadata=client.V1ObjectMeta(labels=labels), spec=client.V1PodSpec(
        containers=[client.V1Container(name='db', image='postgres:16')]))
    body = client.V1StatefulSet(metadata=client.V1ObjectMeta(name='db'), spec=client.V1StatefulSetSpec(
        replicas=0, service_name='db', selector=client.V1LabelSelector(match_labels=labels),
        template=template), status=client.V1StatefulSetStatus(replicas=5, ready_replicas=5))
    created = apps.create_namespaced_stateful_set('default', body)
    assert (created.status.replicas, created.status.ready_replicas, created.status.available_replicas) == (
        0, None, 0)
    assert apps.read_namespaced_stateful_set('db', 'default').status.replicas == 0


@pytest.mark.kubesim_options(tls=True, token='s3cret')
def test_the_root_ca_configmap_carries_the_servers_ca_and_pods_mount_it(kubesim, core):
    from kubernetes import client

    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name='shop')))
    ca = core.read_namespaced_config_map('kube-root-ca.crt', 'shop')
    assert ca.data == {'ca.crt': kubesim.ca_pem.decode()}
    assert core.read_namespaced_service_account('default', 'shop').metadata.name == 'default'
    pod = core.create_namespaced_pod('shop', client.V1Pod(
        metadata=client.V1ObjectMeta(name='web'),
        spec=client.V1PodSpec(containers=[client.V1Container(name='app', image='nginx:1.25')])))
    assert pod.spec.service_account_name == 'default'
    [volume] = pod.spec.volumes
    assert volume.projected.sources[1].config_map.name == 'kube-root-ca.crt'
    [mount] = pod.spec.containers[0].volume_mounts
    assert (mount.name, mount.mount_path) == (volume.name, '/var/run/secrets/kubernetes.io/serviceaccount')

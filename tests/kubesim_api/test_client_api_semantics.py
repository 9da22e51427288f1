"""The official `kubernetes` Python client against what kubesim's API server decides when it
decodes, admits and stores an object (the kubectl side is tests/conformance/test_kubectl_api_semantics.py)."""

import base64
import json
import time

import pytest

from .conftest import wait_for

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


def test_a_deployment_from_the_typed_client_gets_the_controllers_pod_template_hash(kubesim):
    # The same template `kubectl create deployment web --image=nginx:1.25` sends, as JSON from the
    # Python client: the ReplicaSet is named with the hash Go computes for the stored template
    # (tests/unit/kubesim/machinery/template_hashes.json), and `0.5` CPU is stored as `500m`.
    import kubernetes
    from kubernetes import client

    apps = client.AppsV1Api(kubernetes.config.new_client_from_config(str(kubesim.kubeconfig)))
    labels = {'app': 'web'}
    template = client.V1PodTemplateSpec(metadata=client.V1ObjectMeta(labels=labels), spec=client.V1PodSpec(
        containers=[client.V1Container(name='nginx', image='nginx:1.25')]))
    apps.create_namespaced_deployment('default', client.V1Deployment(
        metadata=client.V1ObjectMeta(name='web'), spec=client.V1DeploymentSpec(
            replicas=1, selector=client.V1LabelSelector(match_labels=labels), template=template)))
    names = wait_for(lambda: [rs.metadata.name for rs in apps.list_namespaced_replica_set(
        'default', label_selector='app=web').items], 'the first ReplicaSet')
    assert names == ['web-7bfb4bc78d']
    limits = {'name': 'nginx', 'resources': {'limits': {'cpu': '0.5'}}}
    patched = apps.patch_namespaced_deployment(
        'web', 'default', {'spec': {'template': {'spec': {'containers': [limits]}}}})
    assert patched.spec.template.spec.containers[0].resources.limits == {'cpu': '500m'}


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


# ---- DELETE answers, graceful termination, nodes, errors -------------------------------------------
@pytest.mark.kubesim_options(ready_delay=0.05)
def test_the_typed_client_reads_delete_answers(kubesim, core):
    import kubernetes
    from kubernetes import client

    apps = client.AppsV1Api(kubernetes.config.new_client_from_config(str(kubesim.kubeconfig)))
    labels = {'app': 'web'}
    template = client.V1PodTemplateSpec(metadata=client.V1ObjectMeta(labels=labels), spec=client.V1PodSpec(
        containers=[client.V1Container(name='app', image='nginx:1.25')]))
    apps.create_namespaced_deployment('default', client.V1Deployment(
        metadata=client.V1ObjectMeta(name='web'), spec=client.V1DeploymentSpec(
            replicas=1, selector=client.V1LabelSelector(match_labels=labels), template=template)))
    pod = wait_for(lambda: [p for p in core.list_namespaced_pod('default').items
                            if p.status.phase == 'Running'], 'a running pod')[0]
    answer = core.delete_namespaced_pod(pod.metadata.name, 'default')
    assert isinstance(answer, client.V1Pod) and answer.metadata.deletion_grace_period_seconds == 30
    status = apps.delete_namespaced_deployment('web', 'default')  # the client leaves it a dict
    assert status['status'] == 'Success'
    assert status['details'] == {'name': 'web', 'group': 'apps', 'kind': 'deployments',
                                 'uid': status['details']['uid']}
    wait_for(lambda: not core.list_namespaced_pod('default').items, 'the pods to be gone')


@pytest.mark.kubesim_options(ready_delay=0.05, stop_delay=30, time_scale=20)
def test_containers_slower_than_the_grace_period_are_killed(kubesim, core):
    from kubernetes import client, watch

    core.create_namespaced_pod('default', client.V1Pod(
        metadata=client.V1ObjectMeta(name='slow'),
        spec=client.V1PodSpec(termination_grace_period_seconds=4,
                              containers=[client.V1Container(name='app', image='nginx:1.25')])))
    wait_for(lambda: core.read_namespaced_pod('slow', 'default').status.phase == 'Running', 'the pod to run')
    started = time.monotonic()
    core.delete_namespaced_pod('slow', 'default')
    last = None
    for event in watch.Watch().stream(core.list_namespaced_pod, 'default',
                                      field_selector='metadata.name=slow', timeout_seconds=5):
        if event['type'] == 'DELETED':
            break
        last = event['object']
    # 4 s of grace on a clock 20 times faster: killed after 0.2 s (the containers would take 30 s).
    assert time.monotonic() - started < 3
    assert last.status.phase == 'Failed'
    terminated = last.status.container_statuses[0].state.terminated
    assert (terminated.exit_code, terminated.reason) == (137, 'Error')


def test_nodes_report_complete_system_info(core):
    nodes = core.list_node().items  # the client requires every NodeSystemInfo field
    assert len(nodes) == 3
    info = nodes[0].status.node_info
    assert info.kubelet_version.startswith('v1.') and info.kube_proxy_version == ''
    assert len(info.machine_id) == 32 and info.system_uuid and info.boot_id
    assert nodes[0].status.daemon_endpoints.kubelet_endpoint.port == 10250


def test_status_bodies_are_written_field_for_field(kubesim):
    import urllib.error
    import urllib.request

    def get(path):
        try:
            with urllib.request.urlopen(kubesim.url + path) as resp:
                return resp.status, resp.headers['Content-Type'], resp.read().decode()
        except urllib.error.HTTPError as err:
            return err.code, err.headers['Content-Type'], err.read().decode()

    status, ctype, body = get('/api/v1/namespaces/default/configmaps/missing')
    assert status == 404 and ctype.startswith('application/json')
    # metav1.Status in Go's field order, StatusDetails likewise; json.Encoder ends it with a newline.
    assert body == ('{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":'
                    '"configmaps \\"missing\\" not found","reason":"NotFound","details":{"name":"missing",'
                    '"kind":"configmaps"},"code":404}\n')
    assert get('/nope') == (404, 'text/plain; charset=utf-8', '404 page not found\n')
    status, _, body = get('/api/v1/nope')
    assert status == 404 and json.loads(body)['details'] == {}


@pytest.mark.kubesim_options(token='s3cret')
def test_version_and_health_need_no_credential(kubesim, kubectl, tmp_path):
    # system:public-info-viewer: kubectl with no credential at all still learns the server version.
    # (Plain HTTP: over HTTPS kubectl would ask for a username when the kubeconfig has no user.)
    anonymous = kubectl.using(kubesim.write_kubeconfig(tmp_path / 'anonymous', token=''))
    out = anonymous('version', '-o', 'json')
    assert json.loads(out.stdout)['serverVersion']['gitVersion'].startswith('v1.')
    assert anonymous('get', '--raw', '/readyz', check=True).stdout == 'ok'
    denied = anonymous('get', 'pods')
    assert denied.returncode != 0 and 'You must be logged in to the server' in denied.stderr


@pytest.mark.kubesim_options(ready_delay=0.05, stop_delay=1.5)
def test_terminating_pods_count_as_terminating_replicas(kubesim, core):
    import kubernetes
    from kubernetes import client

    apps = client.AppsV1Api(kubernetes.config.new_client_from_config(str(kubesim.kubeconfig)))
    labels = {'app': 'web'}
    template = client.V1PodTemplateSpec(metadata=client.V1ObjectMeta(labels=labels), spec=client.V1PodSpec(
        containers=[client.V1Container(name='app', image='nginx:1.25')]))
    apps.create_namespaced_deployment('default', client.V1Deployment(
        metadata=client.V1ObjectMeta(name='web'), spec=client.V1DeploymentSpec(
            replicas=2, selector=client.V1LabelSelector(match_labels=labels), template=template)))
    wait_for(lambda: apps.read_namespaced_deployment('web', 'default').status.available_replicas == 2,
             'the rollout')
    victim = core.list_namespaced_pod('default').items[0].metadata.name
    core.delete_namespaced_pod(victim, 'default')

    def counted():
        d = apps.read_namespaced_deployment('web', 'default').status
        return d.terminating_replicas == 1 and d.available_replicas == 2 and d
    status = wait_for(counted, 'the terminating pod counted and replaced', timeout=1.4)
    assert status.replicas == 2
    [rs] = apps.list_namespaced_replica_set('default').items
    assert (rs.status.replicas, rs.status.terminating_replicas) == (2, 1)
    pods = {p.metadata.name: p for p in core.list_namespaced_pod('default').items}
    assert len(pods) == 3 and pods[victim].metadata.deletion_timestamp is not None
    wait_for(lambda: apps.read_namespaced_deployment('web', 'default').status.terminating_replicas == 0,
             'the pod to be gone')
    assert victim not in {p.metadata.name for p in core.list_namespaced_pod('default').items}


def test_int32_overflow_is_refused_for_the_python_client(core):
    from kubernetes import client

    with pytest.raises(client.ApiException) as err:
        template = {'metadata': {'labels': {'app': 'rc'}},
                    'spec': {'containers': [{'name': 'a', 'image': 'nginx'}]}}
        core.create_namespaced_replication_controller('default', {
            'metadata': {'name': 'rc'},
            'spec': {'replicas': 2 ** 31, 'selector': {'app': 'rc'}, 'template': template}})
    assert err.value.status == 400
    assert json.loads(err.value.body)['message'] == (
        'ReplicationController in version "v1" cannot be handled as a ReplicationController: json: cannot '
        'unmarshal number 2147483648 into Go struct field ReplicationControllerSpec.spec.replicas of type '
        'int32')


def test_openapi_v2_is_served_as_json_and_protobuf(kubesim):
    import urllib.request

    with urllib.request.urlopen(kubesim.url + '/openapi/v2') as resp:
        doc = json.load(resp)
    deployment = doc['definitions']['io.k8s.api.apps.v1.Deployment']
    assert deployment['x-kubernetes-group-version-kind'] == [{'group': 'apps', 'kind': 'Deployment',
                                                              'version': 'v1'}]
    spec = doc['definitions']['io.k8s.api.core.v1.PodSpec']['properties']
    assert spec['containers']['x-kubernetes-patch-merge-key'] == 'name'
    assert doc['definitions']['io.k8s.api.apps.v1.DeploymentSpec']['properties']['replicas'] == {
        'type': 'integer', 'format': 'int32'}
    request = urllib.request.Request(kubesim.url + '/openapi/v2', headers={
        'Accept': 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf'})
    with urllib.request.urlopen(request) as resp:
        assert resp.headers['Content-Type'] == 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf'
        assert resp.read()[:5] == b'\n\x032.0'  # field 1 (swagger), "2.0"


@pytest.mark.kubesim_options(ready_delay=0.02, time_scale=100)
def test_commands_decide_exit_codes_and_restarts(core):
    from kubernetes import client

    def run(name, command, policy):
        core.create_namespaced_pod('default', client.V1Pod(
            metadata=client.V1ObjectMeta(name=name), spec=client.V1PodSpec(restart_policy=policy, containers=[
                client.V1Container(name='app', image='busybox:1.36', command=command)])))

    run('sleeps', ['sleep', '300'], 'Never')  # 300 s at 100 times the speed
    wait_for(lambda: core.read_namespaced_pod('sleeps', 'default').status.phase == 'Running', 'the sleep')
    run('retried', ['/bin/sh', '-c', 'false'], 'OnFailure')
    run('succeeds', ['true'], 'OnFailure')
    retried = wait_for(lambda: (p := core.read_namespaced_pod('retried', 'default')).status.container_statuses
                       and p.status.container_statuses[0].restart_count >= 2 and p, 'restarts')
    waiting = retried.status.container_statuses[0].state.waiting
    assert waiting is None or waiting.reason == 'CrashLoopBackOff'
    assert retried.status.phase == 'Running'
    wait_for(lambda: core.read_namespaced_pod('succeeds', 'default').status.phase == 'Succeeded', 'success')
    wait_for(lambda: core.read_namespaced_pod('sleeps', 'default').status.phase == 'Succeeded', 'its end')


@pytest.mark.kubesim_options(ready_delay=0.02, time_scale=50)
def test_hpa_v1_and_v2_clients_share_one_object_and_it_scales(kubesim, core):
    import kubernetes
    from kubernetes import client

    api = kubernetes.config.new_client_from_config(str(kubesim.kubeconfig))
    apps, v1, v2 = client.AppsV1Api(api), client.AutoscalingV1Api(api), client.AutoscalingV2Api(api)
    labels = {'app': 'web'}
    resources = client.V1ResourceRequirements(requests={'cpu': '200m'})
    template = client.V1PodTemplateSpec(metadata=client.V1ObjectMeta(labels=labels), spec=client.V1PodSpec(
        containers=[client.V1Container(name='app', image='nginx:1.25', resources=resources)]))
    apps.create_namespaced_deployment('default', client.V1Deployment(
        metadata=client.V1ObjectMeta(name='web'), spec=client.V1DeploymentSpec(
            replicas=4, selector=client.V1LabelSelector(match_labels=labels), template=template)))
    v1.create_namespaced_horizontal_pod_autoscaler('default', client.V1HorizontalPodAutoscaler(
        metadata=client.V1ObjectMeta(name='web'), spec=client.V1HorizontalPodAutoscalerSpec(
            scale_target_ref=client.V1CrossVersionObjectReference(api_version='apps/v1', kind='Deployment',
                                                                  name='web'),
            min_replicas=1, max_replicas=4, target_cpu_utilization_percentage=60)))
    seen = v2.read_namespaced_horizontal_pod_autoscaler('web', 'default')
    [metric] = seen.spec.metrics
    assert (metric.type, metric.resource.name, metric.resource.target.average_utilization) == (
        'Resource', 'cpu', 60)
    # A v2 client adds a behavior; a v1 client's update keeps it (through the v1 annotation).
    v2.patch_namespaced_horizontal_pod_autoscaler('web', 'default', {'spec': {'behavior': {
        'scaleDown': {'stabilizationWindowSeconds': 10}}}})
    for _attempt in range(5):  # the controller writes the status meanwhile: retry on conflict
        old = v1.read_namespaced_horizontal_pod_autoscaler('web', 'default')
        old.spec.max_replicas = 3
        try:
            v1.replace_namespaced_horizontal_pod_autoscaler('web', 'default', old)
            break
        except client.ApiException as err:
            assert err.status == 409
    seen = v2.read_namespaced_horizontal_pod_autoscaler('web', 'default')
    assert seen.spec.max_replicas == 3
    assert seen.spec.behavior.scale_down.stabilization_window_seconds == 10
    assert seen.spec.behavior.scale_up.policies[0].type == 'Pods'  # the defaults fill in the rest
    # Idle pods (20 m of 200 m requested): the HPA scales down, after the 10 s window.
    wait_for(lambda: len([p for p in core.list_namespaced_pod('default').items
                          if p.status.phase == 'Running']) >= 3, 'running pods')
    for pod in core.list_namespaced_pod('default').items:
        core.patch_namespaced_pod(pod.metadata.name, 'default', {'metadata': {'annotations': {
            'kubesim/usage-cpu': '20m'}}})
    wait_for(lambda: apps.read_namespaced_deployment('web', 'default').spec.replicas == 1, 'the scale down',
             timeout=15)
    status = v1.read_namespaced_horizontal_pod_autoscaler('web', 'default').status
    assert status.desired_replicas == 1 and status.current_cpu_utilization_percentage == 10


def test_managed_fields_and_apply_for_the_python_client(core):
    from kubernetes import client

    created = core.create_namespaced_config_map('default', client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name='settings', labels={'tier': 'web'}), data={'a': '1'}))
    [entry] = created.metadata.managed_fields
    # Without a fieldManager the manager is the User-Agent's first part.
    assert (entry.manager, entry.operation, entry.api_version) == ('OpenAPI-Generator', 'Update', 'v1')
    labels = {'f:labels': {'.': {}, 'f:tier': {}}}
    assert entry.fields_v1 == {'f:data': {'.': {}, 'f:a': {}}, 'f:metadata': labels}
    body = {'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': 'settings'}, 'data': {'a': '2'}}
    with pytest.raises(client.ApiException) as err:
        core.patch_namespaced_config_map('settings', 'default', body, field_manager='deployer',
                                         _content_type='application/apply-patch+yaml')
    assert err.value.status == 409
    answer = json.loads(err.value.body)
    assert answer['reason'] == 'Conflict' and answer['details']['causes'] == [
        {'reason': 'FieldManagerConflict', 'message': 'conflict with "OpenAPI-Generator" using v1',
         'field': '.data.a'}]
    applied = core.patch_namespaced_config_map('settings', 'default', body, field_manager='deployer',
                                               force=True, _content_type='application/apply-patch+yaml')
    assert applied.data == {'a': '2'}
    managers = {(e.manager, e.operation): e.fields_v1 for e in applied.metadata.managed_fields}
    # The forced apply took `.data.a`; the updater keeps the map itself and the label.
    assert managers == {('deployer', 'Apply'): {'f:data': {'f:a': {}}},
                        ('OpenAPI-Generator', 'Update'): {'f:data': {}, 'f:metadata': labels}}
    # Applying to an object that does not exist creates it.
    made = core.patch_namespaced_config_map('fresh', 'default', {**body, 'metadata': {'name': 'fresh'}},
                                            field_manager='deployer',
                                            _content_type='application/apply-patch+yaml')
    assert made.data == {'a': '2'} and made.metadata.managed_fields[0].operation == 'Apply'


def test_apply_through_the_scale_subresource(kubesim, core):
    """A Scale applied through `scale` owns the parent's `spec.replicas` (apiVersion apps/v1,
    subresource scale) and conflicts with whoever set it, as the API server's scale handler maps
    the managers between the Scale and its parent."""
    import kubernetes
    from kubernetes import client

    apps = client.AppsV1Api(kubernetes.config.new_client_from_config(str(kubesim.kubeconfig)))
    deploy = client.V1Deployment(
        metadata=client.V1ObjectMeta(name='web'),
        spec=client.V1DeploymentSpec(
            replicas=2, selector=client.V1LabelSelector(match_labels={'app': 'web'}),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels={'app': 'web'}),
                spec=client.V1PodSpec(containers=[client.V1Container(name='app', image='nginx:1.25')]))))
    apps.create_namespaced_deployment('default', deploy, field_manager='creator')
    scale = {'apiVersion': 'autoscaling/v1', 'kind': 'Scale', 'metadata': {'name': 'web'},
             'spec': {'replicas': 4}}
    apply = {'field_manager': 'scaler', '_content_type': 'application/apply-patch+yaml'}
    with pytest.raises(client.ApiException) as err:
        apps.patch_namespaced_deployment_scale('web', 'default', scale, **apply)
    answer = json.loads(err.value.body)
    assert err.value.status == 409 and answer['message'] == \
        'Apply failed with 1 conflict: conflict with "creator" using apps/v1: .spec.replicas'
    answered = apps.patch_namespaced_deployment_scale('web', 'default', scale, force=True, **apply)
    assert answered.kind == 'Scale' and answered.spec.replicas == 4
    live = apps.read_namespaced_deployment('web', 'default')
    assert live.spec.replicas == 4
    entries = {(e.manager, e.operation, e.subresource): (e.api_version, e.fields_v1)
               for e in live.metadata.managed_fields}
    assert entries[('scaler', 'Apply', 'scale')] == ('apps/v1', {'f:spec': {'f:replicas': {}}})
    assert 'f:replicas' not in entries[('creator', 'Update', None)][1]['f:spec']
    # The same manager may change its own field again without conflict; a Deployment body is not a Scale.
    assert apps.patch_namespaced_deployment_scale('web', 'default', {**scale, 'spec': {'replicas': 1}},
                                                  **apply).spec.replicas == 1
    with pytest.raises(client.ApiException) as err:
        apps.patch_namespaced_deployment_scale('web', 'default', {**scale, 'apiVersion': 'apps/v1'}, **apply)
    assert err.value.status == 400 and json.loads(err.value.body)['message'] == (
        'Incorrect version specified in apply patch. Specified patch version: apps/v1, '
        'expected: autoscaling/v1')


def test_apply_through_the_status_subresource(kubesim, core):
    """Through `status` only the status is applied and owned (the strategy puts the rest back);
    conflicts are as for the main resource."""
    from kubernetes import client

    core.create_namespaced_service('default', client.V1Service(
        metadata=client.V1ObjectMeta(name='front'),
        spec=client.V1ServiceSpec(ports=[client.V1ServicePort(port=80)], selector={'app': 'web'})))
    body = {'apiVersion': 'v1', 'kind': 'Service', 'metadata': {'name': 'front', 'labels': {'x': 'y'}},
            'spec': {'ports': [{'port': 81}]},
            'status': {'loadBalancer': {'ingress': [{'ip': '192.0.2.1'}]}}}
    apply = {'_content_type': 'application/apply-patch+yaml'}
    applied = core.patch_namespaced_service_status('front', 'default', body, field_manager='lb', **apply)
    assert applied.status.load_balancer.ingress[0].ip == '192.0.2.1'
    assert applied.spec.ports[0].port == 80 and not applied.metadata.labels
    entry = [e for e in applied.metadata.managed_fields if e.manager == 'lb']
    assert [(e.operation, e.subresource, e.fields_v1) for e in entry] == [
        ('Apply', 'status', {'f:status': {'f:loadBalancer': {'f:ingress': {}}}})]
    other = {**body, 'status': {'loadBalancer': {'ingress': [{'ip': '192.0.2.9'}]}}}
    with pytest.raises(client.ApiException) as err:
        core.patch_namespaced_service_status('front', 'default', other, field_manager='other', **apply)
    assert err.value.status == 409 and json.loads(err.value.body)['message'] == (
        'Apply failed with 1 conflict: conflict with "lb" with subresource "status": '
        '.status.loadBalancer.ingress')
    taken = core.patch_namespaced_service_status('front', 'default', other, field_manager='other', force=True,
                                                 **apply)
    assert taken.status.load_balancer.ingress[0].ip == '192.0.2.9'
    assert {e.manager for e in taken.metadata.managed_fields} == {'OpenAPI-Generator', 'other'}
    with pytest.raises(client.ApiException) as err:
        core.patch_namespaced_service_status('gone', 'default', {**body, 'metadata': {'name': 'gone'}},
                                             field_manager='lb', **apply)
    assert err.value.status == 404

"""kubectl against what the API server itself decides when it decodes, admits and stores an object:
Secret conversion, status on create, ServiceAccount admission, delete answers and validation.
Meaningful against a real cluster too."""

import base64
import json
import re
import time

import pytest

from .conftest import eventually, is_kubesim, workload

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


def test_quantities_come_back_in_canonical_form(kube):
    deploy = workload('Deployment', 'web', 'nginx:1.25', replicas=1)
    deploy['spec']['template']['spec']['containers'][0]['resources'] = {
        'limits': {'cpu': '0.5', 'memory': '1.5Gi'}, 'requests': {'cpu': '1n', 'memory': '2000'}}
    kube.apply(deploy)
    resources = kube.json('deploy/web')['spec']['template']['spec']['containers'][0]['resources']
    assert resources == {'limits': {'cpu': '500m', 'memory': '1536Mi'},
                         'requests': {'cpu': '1m', 'memory': '2k'}}


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


def eventually_value(fn, what, timeout=20.0):
    deadline = time.monotonic() + timeout
    while True:
        value = fn()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f'timed out after {timeout}s waiting for {what}')
        time.sleep(0.05)


# ---- ServiceAccounts ------------------------------------------------------------------------------
TOKEN_PATH = '/var/run/secrets/kubernetes.io/serviceaccount'


def test_every_namespace_has_the_default_service_account_and_the_root_ca(kube):
    assert [sa['metadata']['name'] for sa in kube.items('serviceaccounts')] == ['default']
    ca = kube.json('configmap', 'kube-root-ca.crt')
    assert ca['data']['ca.crt'].startswith('-----BEGIN CERTIFICATE-----\n')
    assert ca['metadata']['annotations']['kubernetes.io/description'].startswith(
        'Contains a CA bundle that can be used to verify the kube-apiserver')
    kube('delete', 'serviceaccount', 'default')
    eventually(lambda: kube('get', 'serviceaccount', 'default', ok=None).returncode == 0,
               'the default ServiceAccount to be created again')


def test_pods_get_the_service_account_and_its_token_volume(kube):
    pod = {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': 'web'}, 'spec': {
        'initContainers': [{'name': 'init', 'image': 'busybox:1.36'}],
        'containers': [{'name': 'app', 'image': 'nginx:1.25'},
                       {'name': 'own', 'image': 'nginx:1.25', 'volumeMounts': [
                           {'name': 'mine', 'mountPath': TOKEN_PATH}]}],
        'volumes': [{'name': 'mine', 'emptyDir': {}}]}}
    created = json.loads(kube('create', '-f', '-', '-o', 'json', input=json.dumps(pod)).stdout)
    spec = created['spec']
    assert (spec['serviceAccountName'], spec['serviceAccount']) == ('default', 'default')
    token = spec['volumes'][-1]
    assert re.fullmatch(r'kube-api-access-[a-z0-9]{5}', token['name'])
    assert token['projected'] == {'defaultMode': 420, 'sources': [
        {'serviceAccountToken': {'expirationSeconds': 3607, 'path': 'token'}},
        {'configMap': {'name': 'kube-root-ca.crt', 'items': [{'key': 'ca.crt', 'path': 'ca.crt'}]}},
        {'downwardAPI': {'items': [{'path': 'namespace',
                                    'fieldRef': {'apiVersion': 'v1', 'fieldPath': 'metadata.namespace'}}]}}]}
    mount = {'name': token['name'], 'readOnly': True, 'mountPath': TOKEN_PATH}
    assert spec['initContainers'][0]['volumeMounts'] == [mount]
    assert spec['containers'][0]['volumeMounts'] == [mount]
    assert spec['containers'][1]['volumeMounts'] == [{'name': 'mine', 'mountPath': TOKEN_PATH}]

    pod['metadata']['name'], pod['spec']['automountServiceAccountToken'] = 'quiet', False
    quiet = json.loads(kube('create', '-f', '-', '-o', 'json', input=json.dumps(pod)).stdout)['spec']
    assert quiet['serviceAccountName'] == 'default'
    assert [v['name'] for v in quiet['volumes']] == ['mine'] and 'volumeMounts' not in quiet['containers'][0]

    pod['metadata']['name'], pod['spec']['serviceAccountName'] = 'nobody', 'ghost'
    proc = kube('create', '-f', '-', input=json.dumps(pod), ok=False)
    assert (f'pods "nobody" is forbidden: error looking up service account {kube.namespace}/ghost: '
            'serviceaccount "ghost" not found') in proc.stderr


def test_controller_made_pods_get_the_token_volume_too(kube):
    kube.apply(workload('Deployment', 'web', 'nginx:1.25', replicas=1))
    pod = eventually_value(lambda: kube.items('pods', '-l', 'app=web'), 'the pod')[0]
    assert pod['spec']['serviceAccountName'] == 'default'
    assert [m['mountPath'] for m in pod['spec']['containers'][0]['volumeMounts']] == [TOKEN_PATH]
    # The template itself is left alone: admission changes pods, not templates.
    template = kube.json('deploy/web')['spec']['template']['spec']
    assert 'volumes' not in template and 'serviceAccountName' not in template


# ---- DELETE answers, propagation and graceful pod termination -------------------------------------
def raw_delete(kube, path):
    return json.loads(kube('delete', '--raw', path).stdout)


def test_delete_answers_as_the_resource_and_propagation_say(kube):
    ns = kube.namespace
    kube.apply({'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': 'settings'},
                'data': {'a': 'b'}})
    uid = kube.json('configmap', 'settings')['metadata']['uid']
    # Removed at once: a Status naming what went (kind is the resource, as the registry writes it).
    assert raw_delete(kube, f'/api/v1/namespaces/{ns}/configmaps/settings') == {
        'kind': 'Status', 'apiVersion': 'v1', 'metadata': {}, 'status': 'Success',
        'details': {'name': 'settings', 'kind': 'configmaps', 'uid': uid}}

    kube.apply(workload('Deployment', 'web', 'nginx:1.25', replicas=1))
    kube.status('deploy/web')
    uid = kube.json('deploy/web')['metadata']['uid']
    assert raw_delete(kube, f'/apis/apps/v1/namespaces/{ns}/deployments/web')['details'] == {
        'name': 'web', 'group': 'apps', 'kind': 'deployments', 'uid': uid}

    # Foreground and Orphan leave the object, being deleted, with the garbage collector's finalizer.
    for policy, finalizer in (('Foreground', 'foregroundDeletion'), ('Orphan', 'orphan')):
        name = policy.lower()
        kube.apply(workload('Deployment', name, 'nginx:1.25', replicas=1))
        kube.status(f'deploy/{name}')
        path = f'/apis/apps/v1/namespaces/{ns}/deployments/{name}?propagationPolicy={policy}'
        answer = raw_delete(kube, path)
        meta = answer['metadata']
        assert answer['kind'] == 'Deployment' and meta['finalizers'] == [finalizer]
        assert meta['deletionTimestamp'] and meta['deletionGracePeriodSeconds'] == 0
        assert meta['generation'] == 2, 'marking it deleted is a new generation'
        eventually(lambda name=name: kube('get', 'deploy', name, ok=None).returncode != 0,
                   f'{name} to be gone')
    orphans = kube.items('rs', '-l', 'app=orphan')
    assert len(orphans) == 1 and 'ownerReferences' not in orphans[0]['metadata']


def test_a_deleted_pod_terminates_gracefully(kube):
    kube.apply(workload('Deployment', 'web', 'nginx:1.25', replicas=2))
    kube.status('deploy/web')
    victim = kube.live_pods('-l', 'app=web')[0]
    name = victim['metadata']['name']
    # A pod answers a DELETE with itself: now being deleted, with its grace period.
    answer = raw_delete(kube, f'/api/v1/namespaces/{kube.namespace}/pods/{name}')
    assert answer['kind'] == 'Pod' and answer['metadata']['deletionGracePeriodSeconds'] == 30
    assert answer['metadata']['deletionTimestamp'] > victim['metadata']['creationTimestamp']
    # The ReplicaSet replaces it at once and counts it as terminating until it is gone.
    eventually(lambda: len(kube.live_pods('-l', 'app=web')) == 2, 'a replacement')
    eventually(lambda: kube('get', 'pod', name, ok=None).returncode != 0, 'the pod to be gone')
    kube.status('deploy/web')
    d = kube.json('deploy/web')
    assert d['status'].get('terminatingReplicas') in (None, 0)
    if d['status'].get('terminatingReplicas') is not None:
        [rs] = kube.items('rs', '-l', 'app=web')
        assert rs['status']['terminatingReplicas'] == 0


def test_force_delete_removes_a_pod_at_once(kube):
    kube.apply({'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': 'web'},
                'spec': {'containers': [{'name': 'app', 'image': 'nginx:1.25'}]}})
    kube('wait', '--for=condition=Ready', 'pod/web', '--timeout=20s')
    proc = kube('delete', 'pod', 'web', '--grace-period=0', '--force')
    assert 'pod "web" force deleted' in proc.stdout
    assert kube('get', 'pod', 'web', ok=False).returncode != 0


def test_a_deleted_namespace_terminates_after_its_contents(kube):
    name = f'y-{kube.namespace}'[:63].rstrip('-')
    kube.apply({'apiVersion': 'v1', 'kind': 'Namespace', 'metadata': {'name': name}})
    other = ['-n', name]
    held = {'apiVersion': 'v1', 'kind': 'ConfigMap',
            'metadata': {'name': 'held', 'finalizers': ['example.com/hold']}}
    kube(*other, 'create', '-f', '-', input=json.dumps(held))
    answer = json.loads(kube('delete', '--raw', f'/api/v1/namespaces/{name}').stdout)
    assert answer['kind'] == 'Namespace' and answer['status']['phase'] == 'Terminating'
    assert answer['metadata']['deletionTimestamp']
    # The ConfigMap's finalizer holds it, and with it the namespace, which takes nothing new.
    eventually(lambda: kube(*other, 'get', 'configmap', 'held', '-o',
                            'jsonpath={.metadata.deletionTimestamp}').stdout != '',
               'the ConfigMap to be marked deleted')
    late = {'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': 'late'}}
    proc = kube(*other, 'create', '-f', '-', input=json.dumps(late), ok=False)
    assert (f'configmaps "late" is forbidden: unable to create new content in namespace {name} because it '
            'is being terminated') in proc.stderr
    kube(*other, 'patch', 'configmap', 'held', '--type=json',
         '-p', '[{"op":"remove","path":"/metadata/finalizers"}]')
    eventually(lambda: kube('get', 'namespace', name, ok=None).returncode != 0, 'the namespace to be gone')


# ---- validation and OpenAPI v2 --------------------------------------------------------------------
def test_a_list_is_validated_against_the_openapi_v2_schemas(kube):
    # The API server cannot validate a `kind: List` for kubectl: kubectl validates its items
    # against /openapi/v2 itself, then creates them one by one.
    cm = {'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': 'listed'}, 'data': {'a': 'b'}}
    deploy = workload('Deployment', 'listed', 'nginx:1.25', replicas=1)
    listed = {'apiVersion': 'v1', 'kind': 'List', 'items': [cm, deploy]}
    out = kube('apply', '-f', '-', input=json.dumps(listed))
    assert out.stdout == 'configmap/listed created\ndeployment.apps/listed created\n'
    deploy['spec']['bogus'] = 1
    bad = {'apiVersion': 'v1', 'kind': 'List', 'items': [deploy]}
    proc = kube('apply', '-f', '-', input=json.dumps(bad), ok=False)
    assert ('ValidationError(Deployment.spec): unknown field "bogus" in io.k8s.api.apps.v1.DeploymentSpec'
            in proc.stderr)


def test_int32_fields_refuse_larger_values(kube):
    deploy = workload('Deployment', 'huge', 'nginx:1.25', replicas=3000000000)
    proc = kube('apply', '-f', '-', input=json.dumps(deploy), ok=False)
    assert ('Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number '
            '3000000000 into Go struct field DeploymentSpec.spec.replicas of type int32') in proc.stderr
    sts = workload('StatefulSet', 'db', 'redis:7', replicas=1,
                   updateStrategy={'type': 'RollingUpdate', 'rollingUpdate': {'partition': 2 ** 31}})
    proc = kube('create', '-f', '-', input=json.dumps(sts), ok=False)
    assert ('json: cannot unmarshal number 2147483648 into Go struct field '
            'RollingUpdateStatefulSetStrategy.spec.updateStrategy.rollingUpdate.partition of type int32'
            in proc.stderr)
    # A strategic merge patch goes through the unstructured converter, where the value wraps
    # around as a Go conversion does; validation then refuses the negative count.
    kube.apply(workload('Deployment', 'web', 'nginx:1.25', replicas=1))
    proc = kube('patch', 'deploy', 'web', '-p', '{"spec":{"replicas":3000000000}}', ok=False)
    assert 'spec.replicas: Invalid value: -1294967296: must be greater than or equal to 0' in proc.stderr


# ---- what containers do: their command decides ---------------------------------------------------
def _pod_running(name, command, policy):
    return {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': name},
            'spec': {'restartPolicy': policy,
                     'containers': [{'name': 'app', 'image': 'busybox:1.36', 'command': command}]}}


def test_a_command_that_exits_decides_the_pod(kube):
    kube.apply(_pod_running('crashes', ['sh', '-c', 'exit 1'], 'Always'))
    kube.apply(_pod_running('fails', ['sh', '-c', 'echo starting; exit 3'], 'Never'))
    kube.apply(_pod_running('finishes', ['sh', '-c', 'sleep 1 && exit 0'], 'Never'))
    kube.apply(_pod_running('serves', ['sh', '-c', 'while true; do sleep 1; done'], 'Always'))

    def container(name):
        return (kube.json('pod', name)['status'].get('containerStatuses') or [{}])[0]

    eventually(lambda: container('crashes').get('restartCount', 0) >= 1, 'the crashing container to restart')
    last = container('crashes')['lastState']['terminated']
    assert (last['exitCode'], last['reason']) == (1, 'Error')
    eventually(lambda: kube.json('pod', 'fails')['status']['phase'] == 'Failed', 'the pod to fail')
    terminated = container('fails')['state']['terminated']
    assert (terminated['exitCode'], terminated['reason']) == (3, 'Error')
    eventually(lambda: kube.json('pod', 'finishes')['status']['phase'] == 'Succeeded', 'the pod to succeed')
    assert container('finishes')['state']['terminated']['reason'] == 'Completed'
    serving = kube.json('pod', 'serves')['status']
    assert serving['phase'] == 'Running' and container('serves').get('restartCount') == 0
    table = {line.split()[0]: line.split()[2] for line in kube('get', 'pods').stdout.splitlines()[1:]}
    assert table['fails'] == 'Error' and table['finishes'] == 'Completed' and table['serves'] == 'Running'


# ---- HorizontalPodAutoscalers ----------------------------------------------------------------------
def test_hpa_is_served_as_v2_and_v1(kube, cluster):
    deploy = workload('Deployment', 'web', 'nginx:1.25', replicas=2)
    deploy['spec']['template']['spec']['containers'][0]['resources'] = {'requests': {'cpu': '100m'}}
    kube.apply(deploy)
    metrics = [{'type': 'Resource', 'resource': {'name': 'cpu', 'target': {
                    'type': 'Utilization', 'averageUtilization': 50}}},
               {'type': 'Resource', 'resource': {'name': 'memory', 'target': {
                   'type': 'AverageValue', 'averageValue': '100Mi'}}}]
    ref = {'apiVersion': 'apps/v1', 'kind': 'Deployment', 'name': 'web'}
    spec = {'scaleTargetRef': ref, 'minReplicas': 2, 'maxReplicas': 5, 'metrics': metrics}
    kube.apply({'apiVersion': 'autoscaling/v2', 'kind': 'HorizontalPodAutoscaler',
                'metadata': {'name': 'web'}, 'spec': spec})
    v1 = kube.json('horizontalpodautoscalers.v1.autoscaling', 'web')
    assert v1['apiVersion'] == 'autoscaling/v1'
    assert v1['spec'] == {'scaleTargetRef': {'kind': 'Deployment', 'name': 'web', 'apiVersion': 'apps/v1'},
                          'minReplicas': 2, 'maxReplicas': 5, 'targetCPUUtilizationPercentage': 50}
    # What v1 has no field for travels in an annotation.
    others = json.loads(v1['metadata']['annotations']['autoscaling.alpha.kubernetes.io/metrics'])
    assert others == [{'type': 'Resource', 'resource': {'name': 'memory', 'targetAverageValue': '100Mi'}}]
    header = kube('get', 'hpa').stdout.splitlines()[0].split()
    assert header == ['NAME', 'REFERENCE', 'TARGETS', 'MINPODS', 'MAXPODS', 'REPLICAS', 'AGE']
    if not is_kubesim(cluster):
        return
    # kubesim's metric source: the pods' kubesim/usage-cpu annotation. 150% of the request
    # against a 50% target: the HPA scales the Deployment up to its maximum.
    kube.status('deploy/web')
    kube('annotate', 'pods', '-l', 'app=web', 'kubesim/usage-cpu=150m', 'kubesim/usage-memory=10Mi')
    eventually(lambda: kube.json('deploy/web')['spec']['replicas'] == 5, 'the HPA to scale up', timeout=30)
    events = kube.items('events', '--field-selector', 'involvedObject.kind=HorizontalPodAutoscaler,'
                        'reason=SuccessfulRescale')
    assert events and events[0]['message'].startswith('New size: ')
    status = kube.json('hpa', 'web')['status']
    assert status['desiredReplicas'] == 5 and status['lastScaleTime']
    cpu = next(m for m in status['currentMetrics'] if m['resource']['name'] == 'cpu')
    assert cpu['resource']['current']['averageUtilization'] == 150


# ---- protobuf -------------------------------------------------------------------------------------
def test_kubectl_generators_speak_protobuf(kube):
    # `kubectl create <kind>`, `run`, `expose` and `autoscale` send protobuf bodies and ask for
    # protobuf answers; `-o json` shows what kubectl decoded from the answer.
    made = json.loads(kube('create', 'deployment', 'web', '--image=nginx:1.25', '--replicas=2',
                           '-o', 'json').stdout)
    assert (made['kind'], made['spec']['replicas']) == ('Deployment', 2)
    assert made['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1.25'
    assert made['spec']['strategy']['rollingUpdate'] == {'maxUnavailable': '25%', 'maxSurge': '25%'}
    assert made['metadata']['uid'] and made['metadata']['creationTimestamp']
    cm = json.loads(kube('create', 'configmap', 'settings', '--from-literal=a=b', '-o', 'json').stdout)
    assert cm['data'] == {'a': 'b'}
    secret = json.loads(kube('create', 'secret', 'generic', 'creds', '--from-literal=user=admin',
                             '-o', 'json').stdout)
    assert secret['data'] == {'user': 'YWRtaW4='} and secret['type'] == 'Opaque'
    assert kube('create', 'service', 'clusterip', 'web', '--tcp=80:8080').stdout == 'service/web created\n'
    assert kube('autoscale', 'deploy', 'web', '--min=2', '--max=4', '--cpu=60%').stdout == \
        'horizontalpodautoscaler.autoscaling/web autoscaled\n'
    hpa = kube.json('hpa', 'web')
    assert hpa['spec']['metrics'][0]['resource']['target'] == {'type': 'Utilization',
                                                               'averageUtilization': 60}
    assert kube('run', 'solo', '--image=busybox:1.36', '--restart=Never', '--command', '--',
                'sh', '-c', 'exit 0').stdout == 'pod/solo created\n'
    assert kube('expose', 'deploy', 'web', '--name=front', '--port=80').stdout == 'service/front exposed\n'
    name = f'z-{kube.namespace}'[:63].rstrip('-')
    assert kube('create', 'namespace', name).stdout == f'namespace/{name} created\n'
    kube('delete', 'namespace', name, '--wait=false')


# ---- managed fields and server-side apply ------------------------------------------------------------
def _entry(obj, manager, operation):
    found = [e for e in obj['metadata'].get('managedFields') or []
             if e['manager'] == manager and e['operation'] == operation]
    return found[0] if found else None


def test_server_side_apply_owns_prunes_and_conflicts(kube):
    def cm(data, labels=None):
        meta = {'name': 'settings', **({'labels': labels} if labels else {})}
        return json.dumps({'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': meta, 'data': data})

    out = kube('apply', '--server-side', '-f', '-', input=cm({'a': '1', 'b': '2'}, {'tier': 'web'})).stdout
    assert out == 'configmap/settings serverside-applied\n'
    live = kube.json('configmap', 'settings', '--show-managed-fields')
    entry = _entry(live, 'kubectl', 'Apply')
    assert entry['apiVersion'] == 'v1' and entry['fieldsType'] == 'FieldsV1'
    assert entry['fieldsV1'] == {'f:data': {'f:a': {}, 'f:b': {}},
                                 'f:metadata': {'f:labels': {'f:tier': {}}}}
    # Another manager may co-own a field by applying the same value; a different value conflicts.
    kube('apply', '--server-side', '--field-manager=other', '-f', '-', input=cm({'a': '1'}))
    proc = kube('apply', '--server-side', '--field-manager=other', '-f', '-', input=cm({'a': 'X'}), ok=False)
    assert 'Apply failed with 1 conflict: conflict with "kubectl": .data.a' in proc.stderr
    # Dropping a field from the configuration removes it, unless someone else still owns it.
    kube('apply', '--server-side', '-f', '-', input=cm({'b': '2'}))
    live = kube.json('configmap', 'settings')
    assert live['data'] == {'a': '1', 'b': '2'} and 'labels' not in live['metadata']
    kube('apply', '--server-side', '--field-manager=other', '-f', '-', input=cm({'c': '3'}))
    assert kube.json('configmap', 'settings')['data'] == {'b': '2', 'c': '3'}
    # An update (here a merge patch) takes the fields it changes; forcing an apply takes them back.
    kube('patch', 'configmap', 'settings', '--type=merge', '-p', '{"data":{"b":"patched"}}')
    live = kube.json('configmap', 'settings', '--show-managed-fields')
    assert _entry(live, 'kubectl-patch', 'Update')['fieldsV1'] == {'f:data': {'f:b': {}}}
    proc = kube('apply', '--server-side', '-f', '-', input=cm({'b': '2'}), ok=False)
    assert 'conflict with "kubectl-patch" using v1: .data.b' in proc.stderr
    kube('apply', '--server-side', '--force-conflicts', '-f', '-', input=cm({'b': '2'}))
    live = kube.json('configmap', 'settings', '--show-managed-fields')
    assert live['data']['b'] == '2' and _entry(live, 'kubectl-patch', 'Update') is None


def _by(obj, manager, subresource=None):
    """The Update entry of ``manager`` through ``subresource`` (None: the main resource)."""
    found = [e for e in obj['metadata'].get('managedFields') or [] if e['manager'] == manager
             and e['operation'] == 'Update' and e.get('subresource') == subresource]
    assert len(found) == 1, (manager, subresource, obj['metadata'].get('managedFields'))
    return found[0]['fieldsV1']


def test_the_controllers_and_the_kubelet_record_their_own_writes(kube):
    # As `kubectl get deploy web --show-managed-fields -o yaml` shows on a cluster: the controller
    # manager owns the status (and the revision annotation it writes with it), the ReplicaSets and
    # pods it creates, the replicas it scales; the kubelet owns the pods' status.
    kube('create', 'deployment', 'web', '--image=nginx:1.25', '--replicas=2')
    kube.status('deploy/web')
    deploy = kube.json('deploy/web', '--show-managed-fields')
    assert 'f:template' in _by(deploy, 'kubectl-create')['f:spec']
    status = _by(deploy, 'kube-controller-manager', 'status')
    assert {'f:availableReplicas', 'f:replicas', 'f:conditions'} <= set(status['f:status'])
    assert 'k:{"type":"Available"}' in status['f:status']['f:conditions']
    assert 'f:deployment.kubernetes.io/revision' in status['f:metadata']['f:annotations']
    rs = kube.items('rs', '-l', 'app=web', '--show-managed-fields')[0]
    created = _by(rs, 'kube-controller-manager')
    assert 'f:replicas' in created['f:spec'] and 'f:ownerReferences' in created['f:metadata']
    assert 'f:readyReplicas' in _by(rs, 'kube-controller-manager', 'status')['f:status']
    pod = kube.items('pods', '-l', 'app=web', '--show-managed-fields')[0]
    made = _by(pod, 'kube-controller-manager')
    assert {'f:generateName', 'f:labels', 'f:ownerReferences'} <= set(made['f:metadata'])
    # The ServiceAccount admission plugin's token volume comes after the field manager ran.
    assert 'f:volumes' not in made['f:spec'] and pod['spec']['volumes']
    kubelet = _by(pod, 'kubelet', 'status')['f:status']
    assert {'f:phase', 'f:conditions', 'f:containerStatuses', 'f:podIP'} <= set(kubelet)
    # `kubectl scale` goes through the scale subresource; the controller then scales the ReplicaSet.
    kube('scale', 'deploy/web', '--replicas=3')
    eventually(lambda: kube.json('rs', name_of(rs))['spec']['replicas'] == 3, 'the ReplicaSet to scale')
    deploy = kube.json('deploy/web', '--show-managed-fields')
    # kubectl scale names no field manager: the User-Agent's product, `kubectl`, is the manager.
    assert _by(deploy, 'kubectl', 'scale') == {'f:spec': {'f:replicas': {}}}
    assert 'f:replicas' not in _by(deploy, 'kubectl-create')['f:spec']
    # The other workload controllers write their status the same way.
    kube.apply(workload('StatefulSet', 'db', 'nginx:1.25', replicas=1))
    kube.apply(workload('DaemonSet', 'agent', 'nginx:1.25'))
    kube.status('sts/db')
    kube.status('ds/agent')
    for what, field in (('sts/db', 'f:readyReplicas'), ('ds/agent', 'f:numberReady')):
        obj = kube.json(what, '--show-managed-fields')
        assert field in _by(obj, 'kube-controller-manager', 'status')['f:status'], what
        assert 'f:spec' in _by(obj, 'kubectl-client-side-apply')


def test_server_side_apply_of_status_conflicts_with_the_controller(kube):
    # `kubectl apply --server-side --subresource=status`: only the status is applied, and a field
    # the controller's status writes own is a conflict until forced.
    kube('create', 'deployment', 'web', '--image=nginx:1.25', '--replicas=1')
    kube.status('deploy/web')
    body = {'apiVersion': 'apps/v1', 'kind': 'Deployment', 'metadata': {'name': 'web'},
            'status': {'replicas': 5}}
    proc = kube('apply', '--server-side', '--subresource=status', '--field-manager=tester', '-f', '-',
                input=json.dumps(body), ok=False)
    assert 'Apply failed with 1 conflict: conflict with "kube-controller-manager" with subresource ' \
        '"status" using apps/v1: .status.replicas' in proc.stderr
    body['status'] = {'collisionCount': 0}
    body['spec'] = {'replicas': 3}
    out = kube('apply', '--server-side', '--subresource=status', '--field-manager=tester', '-f', '-',
               input=json.dumps(body)).stdout
    assert out == 'deployment.apps/web serverside-applied\n'
    live = kube.json('deploy/web', '--show-managed-fields')
    assert live['spec']['replicas'] == 1 and live['status']['collisionCount'] == 0
    [entry] = [e for e in live['metadata']['managedFields'] if e['manager'] == 'tester']
    assert (entry['operation'], entry['subresource']) == ('Apply', 'status')
    assert entry['fieldsV1'] == {'f:status': {'f:collisionCount': {}}}


def name_of(obj):
    return obj['metadata']['name']


def test_server_side_apply_merges_lists_by_key(kube):
    deploy = workload('Deployment', 'web', 'nginx:1.25', replicas=1)
    kube('apply', '--server-side', '-f', '-', input=json.dumps(deploy))
    side = {'apiVersion': 'apps/v1', 'kind': 'Deployment', 'metadata': {'name': 'web'},
            'spec': {'template': {'spec': {'containers': [{'name': 'side', 'image': 'busybox:1.36'}]}}}}
    kube('apply', '--server-side', '--field-manager=sidecar', '-f', '-', input=json.dumps(side))
    containers = kube.json('deploy/web')['spec']['template']['spec']['containers']
    assert [(c['name'], c['image']) for c in containers] == [('app', 'nginx:1.25'), ('side', 'busybox:1.36')]
    live = kube.json('deploy/web', '--show-managed-fields')
    owned = _entry(live, 'sidecar', 'Apply')['fieldsV1']['f:spec']['f:template']['f:spec']['f:containers']
    assert owned == {'k:{"name":"side"}': {'.': {}, 'f:image': {}, 'f:name': {}}}
    # The sidecar's manager stops applying it: the container goes, the other stays.
    side['spec']['template']['spec']['containers'] = []
    kube('apply', '--server-side', '--field-manager=sidecar', '-f', '-', input=json.dumps(side))
    containers = kube.json('deploy/web')['spec']['template']['spec']['containers']
    assert [c['name'] for c in containers] == ['app']

"""The official `kubernetes` Python client (and raw HTTP) against the API surface every client
expects: DELETE answers per kind, bodies as Go's encoder ends them, managedFields on every write,
batch/v1 Jobs and CronJobs, storage, APIServices, and the answers of the kubelet-backed
subresources (the kubectl side is tests/conformance/test_kubectl_api_surface.py)."""

import json
import urllib.error
import urllib.request

import pytest

from .conftest import wait_for

pytestmark = pytest.mark.kubesim


@pytest.fixture
def api(kubesim):
    import kubernetes

    return kubernetes.config.new_client_from_config(str(kubesim.kubeconfig))


def http(sim, method, path, body=None, headers=None):
    """(status, Content-Type, body bytes) of one request."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(sim.url + path, data=data, method=method,
                                     headers={'Content-Type': 'application/json', **(headers or {})})
    try:
        with urllib.request.urlopen(request) as resp:
            return resp.status, resp.headers['Content-Type'], resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers['Content-Type'], err.read()


# ---- DELETE answers ---------------------------------------------------------------------------------
def test_deleting_a_service_answers_the_service(api):
    from kubernetes import client

    core = client.CoreV1Api(api)
    core.create_namespaced_service('default', client.V1Service(
        metadata=client.V1ObjectMeta(name='web'),
        spec=client.V1ServiceSpec(selector={'app': 'web'}, ports=[client.V1ServicePort(port=80)])))
    # The service store sets ReturnDeletedObject: the client reads a V1Service back.
    answer = core.delete_namespaced_service('web', 'default')
    assert isinstance(answer, client.V1Service) and answer.metadata.name == 'web'
    core.create_namespaced_service_account('default', client.V1ServiceAccount(
        metadata=client.V1ObjectMeta(name='robot')))
    answer = core.delete_namespaced_service_account('robot', 'default')
    assert isinstance(answer, client.V1ServiceAccount) and answer.metadata.name == 'robot'
    # A ConfigMap's store does not: a Success Status naming it.
    core.create_namespaced_config_map('default', client.V1ConfigMap(metadata=client.V1ObjectMeta(name='c')))
    answer = core.delete_namespaced_config_map('c', 'default')
    assert answer['status'] == 'Success' and answer['details']['kind'] == 'configmaps'  # left a dict


def test_delete_collection_answers_the_list_of_what_went(kubesim):
    for name in ('a', 'b'):
        http(kubesim, 'POST', '/api/v1/namespaces/default/configmaps', {'metadata': {'name': name,
                                                                                     'labels': {'x': 'y'}}})
    status, _, body = http(kubesim, 'DELETE', '/api/v1/namespaces/default/configmaps?labelSelector=x%3Dy')
    answer = json.loads(body)
    assert status == 200 and answer['kind'] == 'ConfigMapList'
    assert [i['metadata']['name'] for i in answer['items']] == ['a', 'b']


# ---- bodies as Go's encoder writes them ----------------------------------------------------------------
def test_every_api_body_ends_with_the_encoders_newline(kubesim):
    cm = {'metadata': {'name': 'cm'}, 'data': {'k': 'v'}}
    status, _, created = http(kubesim, 'POST', '/api/v1/namespaces/default/configmaps', cm)
    assert status == 201 and created.endswith(b'}\n') and created.count(b'\n') == 1
    stale = dict(cm, metadata={'name': 'cm', 'resourceVersion': '1'})
    status, ctype, body = http(kubesim, 'PUT', '/api/v1/namespaces/default/configmaps/cm', stale)
    assert status == 409 and ctype == 'application/json'
    assert body == (b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":'
                    b'"Operation cannot be fulfilled on configmaps \\"cm\\": the object has been modified; '
                    b'please apply your changes to the latest version and try again","reason":"Conflict",'
                    b'"details":{"name":"cm","kind":"configmaps"},"code":409}\n')
    for path in ('/api/v1/namespaces/default/configmaps/cm', '/api/v1/namespaces/default/configmaps',
                 '/api', '/apis', '/api/v1', '/apis/apps/v1'):
        status, _, body = http(kubesim, 'GET', path)
        assert status == 200 and body.endswith(b'}\n'), path
    status, _, body = http(kubesim, 'DELETE', '/api/v1/namespaces/default/configmaps/cm')
    assert body.endswith(b'}\n')
    # /version is written by WriteRawJSON: indented by two spaces, no final newline.
    status, _, body = http(kubesim, 'GET', '/version')
    assert body.startswith(b'{\n  "major": "1",\n') and body.endswith(b'"\n}')


# ---- managedFields on every write --------------------------------------------------------------------
def _managers(obj):
    return [(e['manager'], e['operation'], e.get('subresource', ''))
            for e in obj['metadata']['managedFields']]


def test_every_write_records_its_manager(kubesim):
    base = '/api/v1/namespaces/default/configmaps'
    status, _, body = http(kubesim, 'POST', base, {'metadata': {'name': 'cm'}, 'data': {'a': '1'}},
                           headers={'User-Agent': 'deployer/2.1 (linux/amd64)'})
    created = json.loads(body)
    assert status == 201 and _managers(created) == [('deployer', 'Update', '')]
    assert created['metadata']['managedFields'][0]['fieldsV1'] == {'f:data': {'.': {}, 'f:a': {}}}
    created['data']['b'] = '2'
    _, _, body = http(kubesim, 'PUT', f'{base}/cm?fieldManager=editor', created)
    assert _managers(json.loads(body)) == [('deployer', 'Update', ''), ('editor', 'Update', '')]
    _, _, body = http(kubesim, 'PATCH', f'{base}/cm', {'data': {'c': '3'}},
                      headers={'Content-Type': 'application/merge-patch+json', 'User-Agent': 'patcher'})
    patched = json.loads(body)
    assert ('patcher', 'Update', '') in _managers(patched)
    owned = {e['manager']: e['fieldsV1'] for e in patched['metadata']['managedFields']}
    assert owned['patcher'] == {'f:data': {'f:c': {}}}
    _, _, body = http(kubesim, 'PATCH', f'{base}/cm', [{'op': 'add', 'path': '/data/d', 'value': '4'}],
                      headers={'Content-Type': 'application/json-patch+json', 'User-Agent': 'jsonpatch/1'})
    assert ('jsonpatch', 'Update', '') in _managers(json.loads(body))


def test_controllers_and_kubelet_write_as_themselves(api):
    from kubernetes import client

    apps = client.AppsV1Api(api)
    core = client.CoreV1Api(api)
    labels = {'app': 'web'}
    pod_spec = client.V1PodSpec(containers=[client.V1Container(name='app', image='nginx:1.25')])
    apps.create_namespaced_deployment('default', client.V1Deployment(
        metadata=client.V1ObjectMeta(name='web'), spec=client.V1DeploymentSpec(
            replicas=1, selector=client.V1LabelSelector(match_labels=labels),
            template=client.V1PodTemplateSpec(metadata=client.V1ObjectMeta(labels=labels), spec=pod_spec))))

    def ready():
        found = apps.read_namespaced_deployment('web', 'default')
        return found if found.status.ready_replicas else None
    deployment = wait_for(ready, 'the deployment to be ready')
    managers = {(e.manager, e.operation, e.subresource) for e in deployment.metadata.managed_fields}
    assert ('kube-controller-manager', 'Update', 'status') in managers
    assert any(m[0] == 'OpenAPI-Generator' for m in managers)  # the client's User-Agent prefix
    pod = core.list_namespaced_pod('default').items[0]
    managers = {(e.manager, e.subresource) for e in pod.metadata.managed_fields}
    assert managers >= {('kube-controller-manager', None), ('kubelet', 'status')}


# ---- batch/v1 -----------------------------------------------------------------------------------------
MULTI_DOCUMENT = """\
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: migrate}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: migrate, image: busybox, command: [sh, -c, 'sleep 0.2; echo done']}]
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: '0 3 * * *'
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: report, image: busybox, command: [echo, hi]}]
"""


@pytest.mark.kubesim_options(ready_delay=0.05)
def test_create_from_yaml_of_a_service_a_job_and_a_cronjob(api, tmp_path):
    from kubernetes import client, utils

    path = tmp_path / 'app.yaml'
    path.write_text(MULTI_DOCUMENT)
    created = utils.create_from_yaml(api, str(path), namespace='default')
    assert [type(o[0]).__name__ for o in created] == ['V1Service', 'V1Job', 'V1CronJob']
    batch = client.BatchV1Api(api)
    job = batch.read_namespaced_job('migrate', 'default')
    uid = job.metadata.uid
    # The batch strategy's defaults and generated selector.
    assert job.spec.selector.match_labels == {'batch.kubernetes.io/controller-uid': uid}
    assert job.spec.template.metadata.labels == {
        'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': 'migrate',
        'controller-uid': uid, 'job-name': 'migrate'}
    assert (job.spec.completions, job.spec.parallelism, job.spec.backoff_limit) == (1, 1, 6)
    assert (job.spec.completion_mode, job.spec.suspend, job.spec.pod_replacement_policy) == (
        'NonIndexed', False, 'TerminatingOrFailed')
    def completed():
        found = batch.read_namespaced_job('migrate', 'default')
        return found if found.status.completion_time else None
    done = wait_for(completed, 'the job to complete')
    assert [(c.type, c.status, c.reason) for c in done.status.conditions] == [
        ('SuccessCriteriaMet', 'True', 'CompletionsReached'), ('Complete', 'True', 'CompletionsReached')]
    assert (done.status.succeeded, done.status.active, done.status.ready) == (1, None, 0)
    assert done.status.start_time <= done.status.completion_time
    pods = client.CoreV1Api(api).list_namespaced_pod('default', label_selector='job-name=migrate').items
    assert [p.status.phase for p in pods] == ['Succeeded']
    assert pods[0].metadata.owner_references[0].kind == 'Job'
    cron = batch.read_namespaced_cron_job('nightly', 'default')
    assert (cron.spec.concurrency_policy, cron.spec.suspend, cron.spec.successful_jobs_history_limit,
            cron.spec.failed_jobs_history_limit) == ('Allow', False, 3, 1)
    # Deleting through the client: each answer is read as the client's model expects.
    assert isinstance(client.CoreV1Api(api).delete_namespaced_service('web', 'default'), client.V1Service)
    # (The client leaves a Status it reads for a Job or CronJob a dict.)
    assert batch.delete_namespaced_cron_job('nightly', 'default')['status'] == 'Success'
    answer = batch.delete_namespaced_job('migrate', 'default', propagation_policy='Background')
    assert answer['status'] == 'Success' and answer['details']['name'] == 'migrate'
    wait_for(lambda: not client.CoreV1Api(api).list_namespaced_pod('default').items, 'the job pods to go')


@pytest.mark.kubesim_options(ready_delay=0.05, time_scale=20)  # the 10 s back-off in half a second
def test_a_job_past_its_backoff_limit_fails(api):
    from kubernetes import client

    batch = client.BatchV1Api(api)
    batch.create_namespaced_job('default', {
        'metadata': {'name': 'broken'},
        'spec': {'backoffLimit': 1, 'template': {'spec': {'restartPolicy': 'Never', 'containers': [
            {'name': 'app', 'image': 'busybox', 'command': ['sh', '-c', 'exit 3']}]}}}})
    def failed_job():
        job = batch.read_namespaced_job('broken', 'default')
        return job if any(c.type == 'Failed' for c in job.status.conditions or []) else None
    failed = wait_for(failed_job, 'the job to fail', timeout=30)
    assert [(c.type, c.reason) for c in failed.status.conditions] == [
        ('FailureTarget', 'BackoffLimitExceeded'), ('Failed', 'BackoffLimitExceeded')]
    assert failed.status.failed == 2 and failed.status.completion_time is None
    with pytest.raises(client.ApiException) as err:
        batch.create_namespaced_job('default', {'metadata': {'name': 'always'}, 'spec': {'template': {
            'spec': {'containers': [{'name': 'app', 'image': 'busybox'}]}}}})
    assert err.value.status == 422
    assert json.loads(err.value.body)['message'] == (
        'Job.batch "always" is invalid: spec.template.spec.restartPolicy: Required value: valid values: '
        '"OnFailure", "Never"')
    with pytest.raises(client.ApiException) as err:
        batch.create_namespaced_cron_job('default', {'metadata': {'name': 'c'}, 'spec': {
            'schedule': '61 * * * *', 'jobTemplate': {'spec': {'template': {'spec': {
                'restartPolicy': 'Never', 'containers': [{'name': 'app', 'image': 'busybox'}]}}}}}})
    assert json.loads(err.value.body)['message'] == (
        'CronJob.batch "c" is invalid: spec.schedule: Invalid value: "61 * * * *": end of range (61) above '
        'maximum (59): 61')


# ---- ServiceAccount admission through a ReplicaSet -------------------------------------------------------
@pytest.mark.kubesim_options(ready_delay=0.05)
def test_pods_of_a_missing_service_account_are_refused_to_the_replicaset(api):
    from kubernetes import client

    core, apps = client.CoreV1Api(api), client.AppsV1Api(api)
    core.create_namespaced_service_account('default', client.V1ServiceAccount(metadata=client.V1ObjectMeta(
        name='robot')))
    labels = {'app': 'web'}
    apps.create_namespaced_deployment('default', {
        'metadata': {'name': 'web'}, 'spec': {'replicas': 1, 'selector': {'matchLabels': labels},
                                              'template': {'metadata': {'labels': labels}, 'spec': {
                                                  'serviceAccount': 'robot', 'containers': [
                                                      {'name': 'app', 'image': 'nginx:1.25'}]}}}})
    wait_for(lambda: apps.read_namespaced_deployment('web', 'default').status.available_replicas,
             'the first rollout')
    pod = core.list_namespaced_pod('default').items[0]
    assert (pod.spec.service_account_name, pod.spec.service_account) == ('robot', 'robot')
    core.delete_namespaced_service_account('robot', 'default')
    apps.patch_namespaced_deployment('web', 'default', {'spec': {'template': {'spec': {'containers': [
        {'name': 'app', 'image': 'nginx:1.26'}]}}}})

    def refused():
        for rs in apps.list_namespaced_replica_set('default').items:
            for cond in rs.status.conditions or []:
                if cond.type == 'ReplicaFailure':
                    return rs, cond
        return None
    rs, cond = wait_for(refused, 'the ReplicaFailure condition')
    prefix = rs.metadata.name + '-'
    assert cond.reason == 'FailedCreate'
    assert cond.message == (f'pods "{prefix}" is forbidden: error looking up service account default/robot: '
                            'serviceaccount "robot" not found')
    events = core.list_namespaced_event('default', field_selector='reason=FailedCreate').items
    assert len(events) == 1 and events[0].message == f'Error creating: {cond.message}'
    deployment = apps.read_namespaced_deployment('web', 'default')
    assert deployment.status.updated_replicas in (None, 0)

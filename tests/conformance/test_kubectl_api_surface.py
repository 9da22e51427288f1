"""kubectl against the API surface every client expects: batch/v1 Jobs and CronJobs, DELETE answers
per kind, bodies ending with the encoder's newline, and ServiceAccount admission refusing a
ReplicaSet's pods (the Python client side is tests/kubesim_api/test_client_api_surface.py).
Meaningful against a real cluster too."""

import json

import pytest

from .conftest import eventually, is_kubesim, workload

pytestmark = pytest.mark.conformance


def test_kubectl_create_job_and_wait_for_it(kube):
    kube('create', 'job', 'hello', '--image=busybox', '--', 'sh', '-c', 'sleep 1; echo hello')
    kube('wait', '--for=condition=complete', 'job/hello', '--timeout=60s')
    header, row = kube('get', 'jobs').stdout.splitlines()[:2]
    assert header.split() == ['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE']
    assert row.split()[:3] == ['hello', 'Complete', '1/1']
    job = kube.json('job/hello')
    uid = job['metadata']['uid']
    assert job['spec']['selector'] == {'matchLabels': {'batch.kubernetes.io/controller-uid': uid}}
    assert job['metadata']['labels']['batch.kubernetes.io/job-name'] == 'hello'
    assert [c['type'] for c in job['status']['conditions']] == ['SuccessCriteriaMet', 'Complete']
    pods = kube.items('pods', '-l', 'batch.kubernetes.io/job-name=hello')
    assert [p['status']['phase'] for p in pods] == ['Succeeded']
    wide = kube('get', 'jobs', '-o', 'wide').stdout.splitlines()[0].split()
    assert wide[-3:] == ['CONTAINERS', 'IMAGES', 'SELECTOR']


def test_a_job_fails_past_its_backoff_limit(kube):
    kube.apply({'apiVersion': 'batch/v1', 'kind': 'Job', 'metadata': {'name': 'broken'},
                'spec': {'backoffLimit': 0, 'template': {'spec': {'restartPolicy': 'Never', 'containers': [
                    {'name': 'app', 'image': 'busybox', 'command': ['sh', '-c', 'exit 1']}]}}}})
    kube('wait', '--for=condition=failed', 'job/broken', '--timeout=60s')
    assert kube('get', 'job', 'broken').stdout.splitlines()[1].split()[:3] == ['broken', 'Failed', '0/1']
    proc = kube('create', 'job', 'always', '--image=busybox', '--dry-run=server', '-o', 'json')
    assert json.loads(proc.stdout)['spec']['template']['spec']['restartPolicy'] == 'Never'
    bad = {'apiVersion': 'batch/v1', 'kind': 'Job', 'metadata': {'name': 'always'}, 'spec': {'template': {
        'spec': {'containers': [{'name': 'app', 'image': 'busybox'}]}}}}
    proc = kube('create', '-f', '-', input=json.dumps(bad), ok=False)
    assert ('The Job "always" is invalid: spec.template.spec.restartPolicy: Required value: valid values: '
            '"OnFailure", "Never"') in proc.stderr


def test_cronjobs_are_served_and_their_schedule_validated(kube):
    kube('create', 'cronjob', 'nightly', '--image=busybox', '--schedule=0 3 * * *', '--', 'echo', 'hi')
    header, row = kube('get', 'cronjobs').stdout.splitlines()[:2]
    assert header.split() == ['NAME', 'SCHEDULE', 'TIMEZONE', 'SUSPEND', 'ACTIVE', 'LAST', 'SCHEDULE', 'AGE']
    assert row.split()[:8] == ['nightly', '0', '3', '*', '*', '*', '<none>', 'False']
    spec = kube.json('cj/nightly')['spec']
    limits = (spec['successfulJobsHistoryLimit'], spec['failedJobsHistoryLimit'])
    assert (spec['concurrencyPolicy'], *limits) == ('Allow', 3, 1)
    proc = kube('create', 'cronjob', 'bad', '--image=busybox', '--schedule=bad', ok=False)
    assert 'spec.schedule: Invalid value: "bad": expected exactly 5 fields, found 1: [bad]' in proc.stderr
    assert kube('delete', 'cronjob', 'nightly').stdout.strip().startswith('cronjob.batch "nightly" deleted')


def test_deleting_a_service_answers_the_service(kube):
    ns = kube.namespace
    kube('create', 'service', 'clusterip', 'web', '--tcp=80:8080')
    answer = json.loads(kube('delete', '--raw', f'/api/v1/namespaces/{ns}/services/web').stdout)
    assert answer['kind'] == 'Service' and answer['metadata']['name'] == 'web'
    kube('create', 'service', 'clusterip', 'api', '--tcp=80:8080')
    assert kube('delete', 'svc', 'api').stdout.strip().startswith('service "api" deleted')


def test_conflict_and_object_bodies_end_with_a_newline(kube):
    ns = kube.namespace
    kube.apply({'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': 'cm'}, 'data': {'a': 'b'}})
    body = kube('get', '--raw', f'/api/v1/namespaces/{ns}/configmaps/cm').stdout
    assert body.endswith('}\n') and body.count('\n') == 1
    stale = {'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': 'cm', 'resourceVersion': '1'},
             'data': {'a': 'c'}}
    proc = kube('replace', '-f', '-', input=json.dumps(stale), ok=False)
    assert ('Operation cannot be fulfilled on configmaps "cm": the object has been modified; please apply '
            'your changes to the latest version and try again') in proc.stderr


def test_a_replicaset_whose_service_account_is_gone_cannot_create_pods(kube, cluster):
    kube('create', 'serviceaccount', 'robot')
    manifest = workload('Deployment', 'web', 'nginx:1.25', replicas=1)
    manifest['spec']['template']['spec']['serviceAccountName'] = 'robot'
    kube.apply(manifest)
    kube.status('deploy/web')
    kube('delete', 'serviceaccount', 'robot')
    kube('set', 'image', 'deploy/web', 'app=nginx:1.26')

    def failure():
        for rs in kube.items('rs'):
            for cond in rs['status'].get('conditions') or []:
                if cond['type'] == 'ReplicaFailure':
                    return rs['metadata']['name'], cond
        return None
    eventually(failure, 'the ReplicaFailure condition', timeout=60)
    name, cond = failure()
    assert cond['reason'] == 'FailedCreate'
    assert cond['message'] == (f'pods "{name}-" is forbidden: error looking up service account '
                               f'{kube.namespace}/robot: serviceaccount "robot" not found')
    proc = kube.status('deploy/web', timeout='2s', ok=False)
    assert proc.returncode != 0
    if is_kubesim(cluster):
        events = kube.items('events', '--field-selector', 'reason=FailedCreate')
        assert len(events) == 1

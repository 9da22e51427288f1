"""The job check's pure logic: the Job it creates, how a Job and its pods are read (ended, cannot
start, never started, which log explains a failure), which old Jobs go, the options it refuses,
and check mode and the preflight, which only ever create with dryRun=All (a recording client)."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis import job as job_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.gate import AnalysisGate
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.job import (
    Cluster,
    JobProvider,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.provider import (
    ERROR,
    SKIPPED,
    AnalysisError,
)

pytestmark = pytest.mark.unit

SPEC = {'template': {'metadata': {'labels': {'team': 'qa'}},
                     'spec': {'containers': [{'name': 'smoke', 'image': 'busybox'}]}}}


class Recorder:
    """A client that records its requests and answers creates (or raises ``error``)."""

    def __init__(self, error=None):
        self.calls = []
        self.error = error

    def create(self, path, body, dry_run=False):
        self.calls.append(('create', path, body, dry_run))
        if self.error:
            raise self.error
        return dict(body, metadata=dict(body['metadata'], name=body['metadata']['generateName'] + 'x1y2z'))

    def __getattr__(self, name):  # any other request is a defect of the path under test
        raise AssertionError('unexpected request %s' % name)


def provider(client=None, check_mode=False, run_id='r-0123456789ab', **options):
    cluster = Cluster(lambda: client, lambda: 'shop', check_mode=check_mode, run_id=run_id)
    return JobProvider('smoke', options.pop('job', SPEC), cluster=cluster, **options)


def pod(name, created='2026-01-01T00:00:00Z', statuses=(), phase='Pending', conditions=(), containers=('c',)):
    return {'metadata': {'name': name, 'creationTimestamp': created},
            'spec': {'containers': [{'name': c} for c in containers]},
            'status': {'phase': phase, 'containerStatuses': list(statuses), 'conditions': list(conditions)}}


def job(name, created, *conditions):
    return {'metadata': {'name': name, 'creationTimestamp': created},
            'status': {'conditions': [{'type': c, 'status': 'True'} for c in conditions]}}


def test_the_job_is_the_spec_labelled_generated_and_one_try():
    body = provider().body()
    labels = {'kubeops.rollout/analysis': 'smoke', 'kubeops.rollout/release': 'r-0123456789ab'}
    assert body['apiVersion'] == 'batch/v1' and body['kind'] == 'Job'
    assert body['metadata'] == {'generateName': 'smoke-', 'namespace': 'shop', 'labels': labels}
    assert 'ownerReferences' not in body['metadata']
    assert body['spec']['backoffLimit'] == 0
    assert body['spec']['template']['spec']['restartPolicy'] == 'Never'
    assert body['spec']['template']['metadata']['labels'] == dict(labels, team='qa')
    assert SPEC['template']['metadata']['labels'] == {'team': 'qa'}  # the option is not changed
    pod_spec = dict(SPEC['template']['spec'], restartPolicy='OnFailure')
    body = provider(job=dict(SPEC, backoffLimit=2, template={'spec': pod_spec}), namespace='tests').body()
    assert body['spec']['backoffLimit'] == 2
    assert body['spec']['template']['spec']['restartPolicy'] == 'OnFailure'
    assert body['metadata']['namespace'] == 'tests'


def test_a_run_without_a_release_has_a_run_id_and_any_id_becomes_a_label_value():
    first, second = Cluster(None, None).run_id, Cluster(None, None).run_id
    assert first.startswith('run-') and first != second
    assert job_mod.label_value('r-abc') == 'r-abc'
    assert job_mod.label_value('my release/1.2 ') == 'my-release-1.2'
    assert len(job_mod.label_value('x' * 80)) == 63
    gate = AnalysisGate({'checks': [{'name': 'smoke', 'job': SPEC}]}, cluster=Cluster(None, lambda: 'ns'))
    gate.label('r-feedbeef0001')
    assert gate.checks[0].body()['metadata']['labels']['kubeops.rollout/release'] == 'r-feedbeef0001'


@pytest.mark.parametrize('name, options, message', [
    ('Smoke', {}, 'a job check\'s name names its Jobs: lowercase letters'),
    ('s' * 58, {}, 'at most 57 characters'),
    ('smoke', {'job': {'template': {'spec': {}}}}, 'job must be a Job spec with template.spec.containers'),
    ('smoke', {'job': {'backoffLimit': 0}}, 'job must be a Job spec with template.spec.containers'),
    ('smoke', {'namespace': 'Bad_NS'}, 'analysis check "smoke": namespace:'),
    ('smoke', {'timeout': 0}, 'analysis check "smoke": timeout must be between 0 and 3600 seconds'),
    ('smoke', {'timeout': 3601}, 'timeout must be between 0 and 3600 seconds'),
    ('smoke', {'high': 1}, 'min and max do not apply to a job check'),
])
def test_options_a_job_check_refuses(name, options, message):
    options = dict(options)
    spec = options.pop('job', SPEC)
    with pytest.raises(AnalysisError) as err:
        JobProvider(name, spec, cluster=Cluster(None, lambda: 'x'), **options)
    assert message in str(err.value)


def test_a_job_check_needs_a_connection():
    with pytest.raises(AnalysisError, match='a job check needs a Kubernetes connection'):
        AnalysisGate({'checks': [{'name': 'smoke', 'job': SPEC}]})


def test_how_a_job_and_its_pods_are_read():
    assert job_mod.condition(job('a', 't', 'Complete'), 'Complete') == {'type': 'Complete', 'status': 'True'}
    not_failed = {'status': {'conditions': [{'type': 'Failed', 'status': 'False'}]}}
    assert job_mod.condition(not_failed, 'Failed') is None
    waiting = {'reason': 'ImagePullBackOff', 'message': 'Back-off pulling image "x"'}
    pulling = pod('p1', statuses=[{'name': 'c', 'state': {'waiting': waiting}}])
    creating = pod('p2', statuses=[{'name': 'c', 'state': {'waiting': {'reason': 'ContainerCreating'}}}])
    assert job_mod.cannot_start([creating, pulling]) == (
        'pod p1: container c ImagePullBackOff: Back-off pulling image "x"')
    assert job_mod.cannot_start([creating]) is None
    running = pod('p3', statuses=[{'name': 'c', 'state': {'running': {}}}], phase='Running')
    restarted = pod('p4', statuses=[{'name': 'c', 'state': {'waiting': {'reason': 'CrashLoopBackOff'}},
                                     'lastState': {'terminated': {'exitCode': 1}}}])
    assert not job_mod.started([creating, pulling])
    assert job_mod.started([running]) and job_mod.started([restarted])
    unscheduled = pod('p5', conditions=[{'type': 'PodScheduled', 'status': 'False', 'reason': 'Unschedulable',
                                         'message': '0/3 nodes are available'}])
    assert job_mod.never_started({}, [unscheduled]) == 'pod p5 is not scheduled: 0/3 nodes are available'
    assert job_mod.never_started({}, [creating]) == 'pod p2: container c waiting (ContainerCreating)'
    assert job_mod.never_started({}, []) == 'no pod was created (kubectl describe job shows why)'
    assert job_mod.never_started(job('j', 't', 'Suspended'), []) == 'the Job is suspended'


def test_the_log_shown_is_the_newest_pods_failed_container():
    old = pod('old', created='2026-01-01T00:00:00Z', containers=('a', 'b'))
    new = pod('new', created='2026-01-01T00:01:00Z', containers=('a', 'b'), statuses=[
        {'name': 'a', 'state': {'terminated': {'exitCode': 0}}},
        {'name': 'b', 'state': {'terminated': {'exitCode': 2}}}])
    assert job_mod.failed_container([new, old]) == ('new', 'b')
    assert job_mod.failed_container([old]) == ('old', 'a')
    assert job_mod.failed_container([]) is None


def test_the_finished_jobs_beyond_the_newest_kept_are_deleted_never_a_running_one():
    finished = [job('j%d' % i, '2026-01-01T00:0%d:00Z' % i, 'Complete' if i % 2 else 'Failed')
                for i in range(8)]
    running = job('live', '2026-01-01T00:00:30Z')
    gone = job_mod.expired(finished + [running])
    assert [j['metadata']['name'] for j in gone] == ['j0', 'j1', 'j2']
    assert job_mod.expired(finished[:5] + [running]) == []
    assert job_mod.KEPT_JOBS == 5


def test_check_mode_creates_the_job_with_dry_run_only_and_is_not_measured():
    client = Recorder()
    check = provider(client, check_mode=True)
    measurement = check.measure()
    assert measurement.outcome == SKIPPED
    assert 'check mode: not measured' in measurement.message and 'namespace shop' in measurement.message
    assert [(c[0], c[1], c[3]) for c in client.calls] == [
        ('create', '/apis/batch/v1/namespaces/shop/jobs', True)]
    gate = AnalysisGate({'checks': [{'name': 'smoke', 'job': SPEC}]},
                        cluster=Cluster(lambda: client, lambda: 'shop', check_mode=True))
    assert gate.measure() is True and gate.failures == {'smoke': 0}
    assert gate.result()['checks'][0]['measurements'][0]['outcome'] == SKIPPED


def test_the_preflight_creates_with_dry_run_only_and_reports_a_refusal():
    client = Recorder()
    assert provider(client).probe().outcome == SKIPPED
    assert client.calls[0][3] is True
    refused = Recorder(ApiError(403, 'Forbidden', 'jobs.batch is forbidden: User "u" cannot create resource'))
    gate = AnalysisGate({'checks': [{'name': 'smoke', 'job': SPEC}]},
                        cluster=Cluster(lambda: refused, lambda: 'shop'))
    problems = gate.probe()
    assert problems == ['check "smoke": its Job cannot be created in namespace shop: jobs.batch is '
                        'forbidden: User "u" cannot create resource']
    assert gate.measurements == 0


def test_a_refused_create_is_an_error_measurement_naming_the_namespace():
    check = provider(Recorder(ApiError(404, 'NotFound', 'namespaces "shop" not found')))
    measurement = check.measure()
    assert (measurement.outcome, measurement.message) == (
        ERROR, 'check "smoke": cannot run its Job in namespace shop: namespaces "shop" not found')


def test_a_job_check_counts_the_interval_from_the_end_of_its_measurement():
    now = [100.0]
    client = Recorder()

    def slow_create(path, body, dry_run=False):
        now[0] += 30  # the Job took 30 s
        return Recorder.create(client, path, body, dry_run)

    client.create = slow_create
    gate = AnalysisGate({'interval': 10, 'checks': [{'name': 'smoke', 'job': SPEC}]}, clock=lambda: now[0],
                        cluster=Cluster(lambda: client, lambda: 'shop', check_mode=True))
    gate.measure()
    assert gate.last == 130.0 and not gate.due()
    now[0] = 139.0
    assert not gate.due()
    now[0] = 140.0
    assert gate.due()

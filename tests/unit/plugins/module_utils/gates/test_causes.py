"""What one pod says about why it is not Ready, and which Warning events speak of a workload
(gates/causes.py); the grouping into a diagnosis is test_diagnosis.py's."""

import datetime

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.common import times
from ansible_collections.kubeops.rollout.plugins.module_utils.gates import causes

from tests.support.manifests import event, pod

pytestmark = pytest.mark.unit

NOW = times.parse_datetime('2026-01-01T10:00:00Z')


def waiting(name, reason, message=None, restarts=0, image='shop/web:2', last=None):
    status = {'name': name, 'image': image, 'restartCount': restarts,
              'state': {'waiting': {'reason': reason, 'message': message}}}
    if last:
        status['lastState'] = {'terminated': last}
    return status


def crashed(restarts, exit_code, finished, name='app'):
    """A container running again after a crash that ended at ``finished``."""
    return {'name': name, 'image': 'crash/app:2', 'restartCount': restarts,
            'state': {'running': {'startedAt': finished}},
            'lastState': {'terminated': {'reason': 'Error', 'exitCode': exit_code, 'finishedAt': finished}}}


# ---- pod_causes -----------------------------------------------------------------------------------

def test_a_ready_pod_has_no_cause():
    assert causes.pod_causes(pod('web-1', ready=True, containers=[{'name': 'app', 'restartCount': 0}]),
                             NOW) == []


def test_a_ready_pod_that_just_crashed_is_a_crash_loop_between_two_crashes():
    ready = pod('web-1', containers=[crashed(4, 1, '2026-01-01T09:59:58Z')])
    assert causes.pod_causes(ready, NOW) == [{
        'category': 'container', 'container': 'app', 'image': 'crash/app:2', 'restarts': 4,
        'reason': 'CrashLoopBackOff', 'message': None,
        'last_termination': {'reason': 'Error', 'exit_code': 1}}]
    # A crash long ago, a clean exit, or no clock say nothing about this rollout.
    assert causes.pod_causes(pod('web-1', containers=[crashed(4, 1, '2026-01-01T09:00:00Z')]), NOW) == []
    assert causes.pod_causes(pod('web-1', containers=[crashed(1, 0, '2026-01-01T09:59:58Z')]), NOW) == []
    assert causes.pod_causes(ready, None) == []


def test_a_crash_exactly_at_the_recent_limit_still_counts():
    limit = NOW - datetime.timedelta(seconds=causes.RECENT_CRASH_SECONDS)
    at_limit = pod('web-1', containers=[crashed(2, 137, times.format_utc(limit))])
    assert [c['reason'] for c in causes.pod_causes(at_limit, NOW)] == ['CrashLoopBackOff']
    past = pod('web-1', containers=[crashed(2, 137, times.format_utc(limit - datetime.timedelta(seconds=1)))])
    assert causes.pod_causes(past, NOW) == []


def test_a_failed_pod_is_its_phase():
    failed = pod('web-1', ready=False, phase='Failed')
    failed['status'].update(reason='Evicted', message='The node was low on resource: memory.')
    assert causes.pod_causes(failed, NOW) == [
        {'category': 'pod', 'reason': 'Evicted', 'message': 'The node was low on resource: memory.'}]
    assert causes.pod_causes(pod('web-2', ready=False, phase='Failed'), NOW)[0]['reason'] == 'Failed'


def test_an_unscheduled_pod_carries_the_schedulers_reason_and_message():
    pending = pod('web-1', ready=None, phase='Pending', conditions=[
        {'type': 'PodScheduled', 'status': 'False', 'reason': 'Unschedulable',
         'message': '0/3 nodes are available: 3 Insufficient cpu.'}])
    assert causes.pod_causes(pending, NOW) == [{'category': 'scheduling', 'reason': 'Unschedulable',
                                                'message': '0/3 nodes are available: 3 Insufficient cpu.'}]
    pending['status']['conditions'][0].pop('reason')
    assert causes.pod_causes(pending, NOW)[0]['reason'] == causes.UNSCHEDULABLE


def test_container_causes_init_containers_first_with_their_last_termination():
    p = pod('web-1', ready=False, phase='Pending',
            init_containers=[waiting('migrate', 'ErrImagePull', 'pull failed', image='shop/migrate:2')],
            containers=[waiting('web', 'CreateContainerConfigError', 'secret "db" not found', restarts=2,
                                last={'reason': 'Error', 'exitCode': 3})])
    assert causes.pod_causes(p, NOW) == [
        # ErrImagePull is the same failure as the back-off the kubelet starts next.
        {'category': 'container', 'container': 'init:migrate', 'image': 'shop/migrate:2', 'restarts': 0,
         'reason': 'ImagePullBackOff', 'message': 'pull failed'},
        {'category': 'container', 'container': 'web', 'image': 'shop/web:2', 'restarts': 2,
         'last_termination': {'reason': 'Error', 'exit_code': 3},
         'reason': 'CreateContainerConfigError', 'message': 'secret "db" not found'},
    ]


def test_a_terminated_container_between_restarts_is_a_crash_loop():
    terminated = {'name': 'web', 'image': 'shop/web:2', 'restartCount': 5,
                  'state': {'terminated': {'reason': 'OOMKilled', 'exitCode': 137, 'message': 'oom'}}}
    (cause,) = causes.pod_causes(pod('web-1', ready=False, containers=[terminated]), NOW)
    assert (cause['reason'], cause['restarts'], cause['last_termination']) == (
        'CrashLoopBackOff', 5, {'reason': 'OOMKilled', 'exit_code': 137})
    terminated['restartCount'] = 0
    (cause,) = causes.pod_causes(pod('web-1', ready=False, containers=[terminated]), NOW)
    assert cause['reason'] == 'OOMKilled'


def test_an_init_container_that_finished_well_is_no_cause():
    done = {'name': 'migrate', 'restartCount': 0,
            'state': {'terminated': {'reason': 'Completed', 'exitCode': 0}}}
    p = pod('web-1', ready=False, phase='Running', init_containers=[done],
            containers=[{'name': 'web', 'restartCount': 0, 'state': {'running': {}}}],
            ready_since='2026-01-01T09:57:30Z')
    assert causes.pod_causes(p, NOW) == [
        {'category': 'readiness', 'reason': causes.NOT_READY, 'message': None, 'not_ready_seconds': 150}]


def test_not_ready_seconds_need_a_transition_time_and_a_clock():
    p = pod('web-1', ready=False, phase='Running')
    assert causes.pod_causes(p, NOW) == [{'category': 'readiness', 'reason': 'NotReady', 'message': None}]
    p = pod('web-1', ready=False, phase='Running', ready_since='2026-01-01T10:00:05Z')  # clock skew
    assert causes.pod_causes(p, NOW)[0]['not_ready_seconds'] == 0
    assert 'not_ready_seconds' not in causes.pod_causes(p, None)[0]


def test_only_transient_waits_are_reported_when_nothing_better_shows():
    creating = pod('web-1', ready=False, phase='Pending',
                   containers=[waiting('web', 'ContainerCreating')])
    assert [c['reason'] for c in causes.pod_causes(creating, NOW)] == ['ContainerCreating']
    mixed = pod('web-1', ready=False, phase='Pending',
                init_containers=[waiting('init', 'PodInitializing')],
                containers=[waiting('web', 'ImagePullBackOff')])
    assert [c['reason'] for c in causes.pod_causes(mixed, NOW)] == ['ImagePullBackOff']


def test_a_pod_with_nothing_to_show_is_its_phase():
    pending = pod('web-1', ready=None, phase='Pending')
    pending['status']['message'] = 'waiting'
    assert causes.pod_causes(pending, NOW) == [{'category': 'pod', 'reason': 'Pending', 'message': 'waiting'}]
    assert causes.pod_causes({'metadata': {'name': 'x'}}, NOW) == [
        {'category': 'pod', 'reason': 'Pending', 'message': None}]


# ---- resized_containers ---------------------------------------------------------------------------

TEMPLATE = {'spec': {'containers': [
    {'name': 'app', 'resources': {'limits': {'memory': '128Mi'}}},
    {'name': 'side', 'resources': {'requests': {'cpu': '100m'}, 'limits': {'nvidia.com/gpu': '1'}}}]}}


def with_resources(app, side=None):
    return {'spec': {'containers': [{'name': 'app', 'resources': app},
                                    {'name': 'side', 'resources': side or {'requests': {'cpu': '100m'}}},
                                    {'name': 'injected', 'resources': {'limits': {'cpu': '9'}}}]}}


def test_resized_containers_default_requests_from_limits_as_the_api_server():
    made = with_resources({'limits': {'memory': '128Mi'}, 'requests': {'memory': '128Mi'}})
    assert causes.resized_containers(made, TEMPLATE) == frozenset()
    # Only cpu and memory are resizable; a container the template lacks is not compared.
    gpu = with_resources({'limits': {'memory': '128Mi'}}, {'requests': {'cpu': '100m'},
                                                           'limits': {'nvidia.com/gpu': '2'}})
    assert causes.resized_containers(gpu, TEMPLATE) == frozenset()


def test_resized_containers_name_the_ones_that_differ():
    resized = with_resources({'limits': {'memory': '256Mi'}, 'requests': {'memory': '256Mi'}},
                             {'requests': {'cpu': '200m'}})
    assert causes.resized_containers(resized, TEMPLATE) == frozenset(['app', 'side'])
    assert causes.resized_containers(resized, None) == frozenset()
    assert causes.resized_containers(resized, {}) == frozenset()


def test_a_restart_of_a_container_resized_in_place_is_not_a_crash():
    template = {'spec': {'containers': [{'name': 'app', 'resources': {'limits': {'memory': '128Mi'}}}]}}
    p = pod('web-1', containers=[crashed(1, 137, '2026-01-01T09:59:58Z')], spec={'containers': [
        {'name': 'app', 'resources': {'limits': {'memory': '128Mi'}, 'requests': {'memory': '128Mi'}}}]})
    assert [c['reason'] for c in causes.pod_causes(p, NOW, template)] == ['CrashLoopBackOff']
    # Resized through the resize subresource (memory, RestartContainer): the restart is the resize's.
    p['spec']['containers'][0]['resources'] = {'limits': {'memory': '256Mi'}, 'requests': {'memory': '256Mi'}}
    assert causes.pod_causes(p, NOW, template) == []
    # Without the template nothing tells the two apart: a crash.
    assert [c['reason'] for c in causes.pod_causes(p, NOW)] == ['CrashLoopBackOff']


# ---- events ---------------------------------------------------------------------------------------

def test_event_time_takes_the_first_time_the_event_has():
    e = event('e', 'Pod', 'web-1', 'x', last_seen='2026-03-02T10:00:00Z', eventTime='2026-03-02T09:00:00.5Z')
    assert event_utc(e) == '2026-03-02T10:00:00Z'
    series = event('e', 'Pod', 'web-1', 'x', last_seen=None, eventTime='2026-03-02T09:00:00.000000Z',
                   series={'count': 12, 'lastObservedTime': '2026-03-02T11:58:30.123456Z'})
    assert event_utc(series) == '2026-03-02T11:58:30Z'
    first = event('e', 'Pod', 'web-1', 'x', last_seen=None, firstTimestamp='2026-03-02T08:00:00+01:00')
    assert event_utc(first) == '2026-03-02T07:00:00Z'
    created = event('e', 'Pod', 'web-1', 'x', last_seen=None, lastTimestamp=None)
    created['metadata']['creationTimestamp'] = '2026-03-02T06:00:00Z'
    assert event_utc(created) == '2026-03-02T06:00:00Z'
    assert causes.event_time(event('e', 'Pod', 'web-1', 'x', last_seen='yesterday')) is None


def event_utc(e):
    return times.format_utc(causes.event_time(e))


def test_relevant_events_are_warnings_about_the_objects_newest_first():
    old = event('a', 'Pod', 'web-1', 'old', last_seen='2026-03-02T10:00:00Z')
    new = event('b', 'Pod', 'web-2', 'new', last_seen='2026-03-02T10:05:00Z')
    undated = event('c', 'Deployment', 'web', 'undated', last_seen=None)
    normal = event('d', 'Pod', 'web-1', 'pulled', type_='Normal')
    untyped = event('e', 'ReplicaSet', 'web-h4', 'no type', last_seen='2026-03-02T10:01:00Z')
    del untyped['type']
    other = event('f', 'Pod', 'cart-1', 'other pod')
    kind = event('g', 'ReplicaSet', 'web-1', 'same name, other kind')
    objects = {('Pod', 'web-1'), ('Pod', 'web-2'), ('Deployment', 'web'), ('ReplicaSet', 'web-h4')}
    found = causes.relevant_events([old, undated, normal, new, other, untyped, kind], objects)
    assert [e['message'] for e in found] == ['new', 'no type', 'old', 'undated']
    assert causes.relevant_events(None, objects) == []


def test_event_count_reads_the_series_of_a_new_style_event():
    assert causes._event_count(event('a', 'Pod', 'p', 'm', count=7)) == 7
    assert causes._event_count(event('a', 'Pod', 'p', 'm', count=None, series={'count': 12})) == 12
    assert causes._event_count(event('a', 'Pod', 'p', 'm', count=None)) == 1


# ---- pods never created ---------------------------------------------------------------------------

def test_creation_failure_from_the_creators_condition_first_then_the_events():
    workload = {'kind': 'Deployment', 'metadata': {'name': 'web'}, 'status': {}}
    replica_set = {'kind': 'ReplicaSet', 'metadata': {'name': 'web-h4'}, 'status': {'conditions': [
        {'type': 'ReplicaFailure', 'status': 'True', 'reason': 'FailedCreate', 'message': 'exceeded quota'}]}}
    revision = {'kind': 'ReplicaSet', 'name': 'web-h4', 'object': replica_set}
    webhook = event('e', 'ReplicaSet', 'web-h4', 'Error creating: denied', reason='FailedCreate')
    assert causes._creation_failure(workload, revision, [webhook]) == ('FailedCreate', 'exceeded quota')
    replica_set['status']['conditions'][0]['status'] = 'False'
    assert causes._creation_failure(workload, revision, [webhook]) == (
        'FailedCreate', 'Error creating: denied')
    pod_event = event('p', 'Pod', 'web-h4-x', 'FailedCreate on a pod?', reason='FailedCreate')
    assert causes._creation_failure(workload, revision, [pod_event]) is None
    assert causes._creation_failure(workload, None, []) is None

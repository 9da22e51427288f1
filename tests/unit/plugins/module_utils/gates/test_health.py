import re

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.gates import health
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workloads import StatefulSet
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.wait_options import GateOptions

pytestmark = pytest.mark.unit


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def found(*reasons):
    causes = [{'reason': r, 'count': 1, 'pods': ['web-1']} for r in reasons]
    return {
        'causes': causes,
        'lines': ['Deployment default/web: 1/1 new pods not ready: %s (x)' % r for r in reasons],
    }


def test_a_blocking_cause_stops_the_wait_only_once_it_lasted_fail_fast_seconds():
    clock = Clock()
    answers = iter([found('ImagePullBackOff'), found('ImagePullBackOff'), found('ImagePullBackOff')])
    early = health.EarlyStop(None, 10, clock=clock, read=lambda client, obj: next(answers))
    assert early({}) is None  # first seen at 0
    clock.now = 9.9
    assert early({}) is None
    clock.now = 10
    verdict = early({})
    assert verdict.failed and verdict.reason == health.STUCK
    assert 'ImagePullBackOff' in verdict.message and 'Next: check the image name' in verdict.message
    assert verdict.diagnosis['causes'][0]['reason'] == 'ImagePullBackOff'


def test_the_stopped_wait_and_one_look_name_the_same_cause_with_its_pods():
    clock = Clock()
    early = health.EarlyStop(None, 0.5, clock=clock, read=lambda client, obj: found('CrashLoopBackOff'))
    assert early({}) is None
    clock.now = 1
    stopped = early({}).message
    look = health.blocked_now(None, {}, read=lambda client, obj: found('CrashLoopBackOff'))
    said = 'Deployment default/web: 1/1 new pods not ready: CrashLoopBackOff (x) (pod web-1)'
    assert stopped.startswith(said + '; stopped early') and look.startswith(said + '; it cannot become ready')
    assert stopped.endswith("Next: read the container's logs (kubectl logs --previous <pod> -c <container>)")
    assert look.endswith("Next: read the container's logs (kubectl logs --previous <pod> -c <container>)")
    # A waiting cause is not a verdict: only the wait can tell.
    assert health.blocked_now(None, {}, read=lambda client, obj: found('ContainerCreating')) is None


def test_a_cause_that_goes_away_starts_again_and_waiting_causes_never_stop_the_wait():
    clock = Clock()
    answers = iter(
        [
            found('CrashLoopBackOff'),
            found(),
            found('CrashLoopBackOff'),
            found('ContainerCreating', 'NotReady'),
            found('ContainerCreating'),
        ]
    )
    early = health.EarlyStop(None, 5, clock=clock, read=lambda client, obj: next(answers))
    for t in (0, 4, 6, 10, 30):
        clock.now = t
        assert early({}) is None, t


def test_each_blocking_cause_is_announced_when_first_seen_and_when_it_clears():
    clock, heard = Clock(), []
    answers = iter([found('ImagePullBackOff'), found('ImagePullBackOff'), found(),
                    found('ContainerCreating')])
    early = health.EarlyStop(None, 22, clock=clock, read=lambda client, obj: next(answers),
                             on_cause=heard.append)
    for t in (0, 5, 10, 15):
        clock.now = t
        assert early({}) is None
    assert heard == ['ImagePullBackOff on 1 pod (web-1), stopping in 22 s unless it clears',
                     'ImagePullBackOff cleared']


def test_a_cause_line_names_at_most_three_pods():
    cause = {'reason': 'CrashLoopBackOff', 'count': 5, 'pods': ['a', 'b', 'c', 'd', 'e']}
    assert health.cause_seen(cause, 30) == \
        'CrashLoopBackOff on 5 pods (a, b, c, ...), stopping in 30 s unless it clears'
    assert health.cause_seen({'reason': 'FailedCreate', 'count': 0, 'pods': []}, 9) == \
        'FailedCreate, stopping in 9 s unless it clears'


class Pods:
    """A client answering the soak's reads from a list of pod lists, one per look."""

    def __init__(self, looks, template=None):
        self.looks = iter(looks)
        self.template = template

    def get(self, path):
        obj = {
            'kind': 'StatefulSet',
            'metadata': {'name': 'db', 'namespace': 'default'},
            'spec': {'selector': {'matchLabels': {'app': 'db'}}},
            'status': {'updateRevision': 'db-1'},
        }
        if self.template is not None:
            obj['spec']['template'] = self.template
        return obj

    def list(self, path, label_selector=None, field_selector=None):
        return {'items': next(self.looks)}


def pod(name, restarts=0, ready=True, resources=None):
    return {
        'metadata': {'name': name, 'uid': name},
        'status': {
            'conditions': [{'type': 'Ready', 'status': 'True' if ready else 'False'}],
            'containerStatuses': [
                {
                    'name': 'app',
                    'restartCount': restarts,
                    'resources': resources,
                    'lastState': {'terminated': {'exitCode': 1, 'reason': 'Error'}} if restarts else {},
                }
            ],
        },
    }


def soak(looks, fresh=True, max_restarts=0, seconds=2, template=None):
    clock = Clock()

    def sleep(s):
        clock.now += s

    options = GateOptions(soak_seconds=seconds, max_restarts=max_restarts)
    target = StatefulSet({'metadata': {'name': 'db', 'namespace': 'default'}})
    return health.Soak(Pods(looks, template), options, clock=clock, sleep=sleep).run([(target, fresh)])


def test_the_soak_counts_every_restart_of_fresh_pods_and_names_the_pod():
    (verdict,), analysis = soak([[pod('db-0', restarts=1)]])
    assert analysis is None
    assert verdict.reason == health.SOAK_RESTARTS
    assert 'pod db-0 restarted 1 time during the soak (max_restarts 0)' in verdict.message
    assert 'last exit 1 Error' in verdict.message


def test_the_soak_counts_only_new_restarts_of_pods_it_did_not_create():
    (verdict,), _ = soak(
        [[pod('db-0', restarts=4)], [pod('db-0', restarts=4)], [pod('db-0', restarts=4)]], fresh=False
    )
    assert verdict is None
    (verdict,), _ = soak([[pod('db-0', restarts=4)], [pod('db-0', restarts=5)]], fresh=False)
    assert verdict.reason == health.SOAK_RESTARTS


def test_a_restart_that_comes_with_new_resources_is_a_resize_not_a_crash():
    small, large = {'limits': {'cpu': '1'}}, {'limits': {'cpu': '2'}}
    (verdict,), _ = soak(
        [
            [pod('db-0', resources=small)],
            [pod('db-0', restarts=1, resources=large)],
            [pod('db-0', restarts=1, resources=large)],
        ]
    )
    assert verdict is None


def test_a_pod_not_ready_during_the_soak_fails_it():
    (verdict,), _ = soak([[pod('db-0')], [pod('db-0', ready=False)]])
    assert verdict.reason == health.SOAK_NOT_READY and 'pod db-0 is not Ready' in verdict.message


def test_restarts_within_the_budget_pass():
    (verdict,), _ = soak([[pod('db-0', restarts=1)]] * 3, max_restarts=1)
    assert verdict is None


def with_spec(p, **memory):
    """``p`` with a pod spec whose containers ask for ``memory`` (container name -> limit)."""
    containers = []
    for name, value in memory.items():
        container = {'name': name}
        if value:
            container['resources'] = {'limits': {'memory': value}}
        containers.append(container)
    p['spec'] = {'containers': containers}
    return p


def two_containers(name, app, sidecar):
    p = pod(name, restarts=app)
    p['status']['containerStatuses'].append(dict(p['status']['containerStatuses'][0], name='sidecar',
                                                 restartCount=sidecar))
    return p


def test_a_fresh_pod_already_resized_at_the_first_look_has_its_resize_restart_not_counted():
    template = {'spec': {'containers': [{'name': 'app', 'resources': {'limits': {'memory': '128Mi'}}}]}}
    (verdict,), _ = soak([[with_spec(pod('db-0', restarts=1), app='256Mi')]] * 3, template=template)
    assert verdict is None
    # As the template asks: that restart is a crash.
    (verdict,), _ = soak([[with_spec(pod('db-0', restarts=1), app='128Mi')]], template=template)
    assert verdict.reason == health.SOAK_RESTARTS


def test_a_resize_excuses_the_restarts_of_the_resized_container_only():
    template = {'spec': {'containers': [{'name': 'app', 'resources': {'limits': {'memory': '128Mi'}}},
                                        {'name': 'sidecar'}]}}
    first = with_spec(two_containers('db-0', 0, 0), app='128Mi', sidecar=None)
    resized = with_spec(two_containers('db-0', 1, 0), app='256Mi', sidecar=None)
    crashed = with_spec(two_containers('db-0', 1, 1), app='256Mi', sidecar=None)
    (verdict,), _ = soak([[first], [resized], [resized]], template=template)
    assert verdict is None
    (verdict,), _ = soak([[first], [resized], [crashed]], template=template)
    assert verdict.reason == health.SOAK_RESTARTS and 'restarted 1 time' in verdict.message


class FlakyPods(Pods):
    """The soak's reads answered from ``looks``, where an exception in the list is raised instead."""

    def list(self, path, label_selector=None, field_selector=None):
        look = next(self.looks)
        if isinstance(look, Exception):
            raise look
        return {'items': look}


def flaky_soak(looks, seconds=2):
    clock = Clock()

    def sleep(s):
        clock.now += s

    options = GateOptions(soak_seconds=seconds)
    target = StatefulSet({'metadata': {'name': 'db', 'namespace': 'default'}})
    return health.Soak(FlakyPods(looks), options, clock=clock, sleep=sleep).run([(target, True)]), clock


def test_a_flaky_api_server_during_the_soak_is_read_through_not_a_failed_gate():
    from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError
    faults = [ApiError(503, 'ServiceUnavailable', 'try again')] * 5
    (verdicts, analysis), _clock = flaky_soak(faults + [[pod('db-0')]] * 20)
    assert verdicts == [None] and analysis is None


def test_reads_that_keep_failing_fail_the_gate_with_an_api_cause_after_the_deadline():
    from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError
    (verdicts, _analysis), clock = flaky_soak([ApiError(503, 'ServiceUnavailable', 'etcd is slow')] * 100)
    (verdict,) = verdicts
    assert verdict.failed and verdict.reason == health.SOAK_UNREADABLE
    assert 'could not read the API server' in verdict.message and 'etcd is slow' in verdict.message
    assert 'nothing was observed to pass the gate' in verdict.message
    assert clock.now >= health.READ_RETRY_SECONDS  # tried for as long as the gate allows, at least


def test_a_refused_read_is_no_flake_and_is_not_retried():
    from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError
    with pytest.raises(ApiError):
        flaky_soak([ApiError(403, 'Forbidden', 'may not list pods')] + [[pod('db-0')]] * 5)
    assert not health.transient(ApiError(404, 'NotFound', 'gone'))
    assert health.transient(ApiError(429, 'TooManyRequests', 'slow down'))


class ServerLike:
    """Answers LISTs from ``objects`` by path, filtered by label selector and ``type=Warning``; each
    WATCH stays open, quiet, until ``hold`` is set. Records every request."""

    def __init__(self, objects):
        import threading
        self.objects = objects
        self.requests = []
        self.hold = threading.Event()

    def list(self, path, label_selector=None, field_selector=None, query=None):
        from ansible_collections.kubeops.rollout.plugins.module_utils.api.shared_lists import selector_matches
        self.requests.append(('LIST', path, label_selector, field_selector))
        items = [o for o in self.objects.get(path, [])
                 if selector_matches(label_selector, o['metadata'].get('labels'))
                 and (field_selector is None or o.get('type') == 'Warning')]
        return {'metadata': {'resourceVersion': '5'}, 'items': items}

    def watch(self, path, **kw):
        self.requests.append(('WATCH', path, kw.get('label_selector'), kw.get('field_selector')))
        self.hold.wait(5)
        return iter(())


def test_the_looks_of_a_wait_read_watched_copies_of_its_scopes_once():
    from ansible_collections.kubeops.rollout.plugins.module_utils.api.shared_lists import SharedLists
    from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workloads import Deployment
    from tests.support import manifests

    web = Deployment(manifests.deployment(image='app:2', replicas=1))
    crashing = {'name': 'nginx', 'image': 'app:2', 'restartCount': 4,
                'state': {'waiting': {'reason': 'CrashLoopBackOff', 'message': 'back-off 40s'}},
                'lastState': {'terminated': {'reason': 'Error', 'exitCode': 1}}}
    new_rs = manifests.replica_set(5, 'app:2', replicas=1)
    new_rs['spec']['template'] = web.spec['template']
    objects = {
        '/apis/apps/v1/namespaces/default/replicasets': [manifests.replica_set(4, 'app:1'), new_rs],
        '/api/v1/namespaces/default/pods': [
            manifests.pod('web-h5-a', ready=False, labels={'app': 'web', 'pod-template-hash': 'h5'},
                          containers=[crashing]),
            manifests.pod('web-h4-a', labels={'app': 'web', 'pod-template-hash': 'h4'})],
        '/api/v1/namespaces/default/events': [
            manifests.event('e1', 'Pod', 'web-h5-a', 'Back-off restarting failed container',
                            reason='BackOff'),
            manifests.event('e2', 'Pod', 'other-1', 'not ours', reason='BackOff')],
    }
    server = ServerLike(objects)
    clock = Clock()
    reader = SharedLists.scoped(server, health.probe_scopes(web), clock=clock)
    try:
        stop = health.EarlyStop(reader, 3, clock=clock)
        for now in (0, 1, 2):
            clock.now = now
            assert stop(web) is None
        clock.now = 3
        verdict = stop(web)
    finally:
        server.hold.set()
        reader.close()
    assert verdict.reason == health.STUCK
    assert re.search(r'Deployment default/web: 1/1 new pods not ready: CrashLoopBackOff \(container nginx, '
                     r'4 restarts, last exit 1 Error\)', verdict.message), verdict.message
    assert verdict.diagnosis['causes'][0]['pods'] == ['web-h5-a']
    assert [e['object'] for e in verdict.diagnosis['events']] == ['Pod/web-h5-a']
    # Four looks: one LIST of each scope (the workload's selector; the Warning events), never again.
    lists = [r for r in server.requests if r[0] == 'LIST']
    assert sorted(lists) == sorted([
        ('LIST', '/apis/apps/v1/namespaces/default/replicasets', 'app=web', None),
        ('LIST', '/api/v1/namespaces/default/pods', 'app=web', None),
        ('LIST', '/api/v1/namespaces/default/events', None, 'type=Warning')])

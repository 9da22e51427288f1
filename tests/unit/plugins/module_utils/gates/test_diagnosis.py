"""Unit tests of the rollout diagnosis: recorded failures (diagnosis_fixtures/) in, causes and lines out;
and the reads it costs, against kubesim over a socket."""

import copy
import pathlib
import time

import pytest
import yaml

from ansible_collections.kubeops.rollout.plugins.module_utils.gates import diagnosis as d
from ansible_collections.kubeops.rollout.plugins.module_utils.api.client import ApiClient
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workloads import KINDS, Deployment

from tests.support import manifests

pytestmark = pytest.mark.unit

FIXTURES = pathlib.Path(__file__).parent / 'diagnosis_fixtures'


def load(name):
    return yaml.safe_load((FIXTURES / (name + '.yml')).read_text())


def run(fx, **kw):
    workload = KINDS[fx['workload']['kind']](fx['workload'])
    revision = workload.rolled_out_revision(fx.get('history'))
    return d.diagnose(workload, revision, fx['pods'], fx['events'], now=fx['now'], **kw)


def test_image_pull_groups_err_image_pull_and_back_off_with_the_pull_error():
    result = run(load('deployment-image-pull'))
    assert result['lines'] == ['Deployment shop/web: 3/3 new pods not ready: ImagePullBackOff '
                               '(registry.example.com/shop/web:2.0-brokn: not found)']
    (cause,) = result['causes']
    assert cause['count'] == 3 and cause['container'] == 'web'
    assert cause['image'] == 'registry.example.com/shop/web:2.0-brokn'
    assert result['revision'] == {'kind': 'ReplicaSet', 'name': 'web-7d9c5b8f4d', 'hash': '7d9c5b8f4d'}
    assert (result['desired'], result['pods'], result['ready']) == (3, 3, 0)


def test_events_are_the_workloads_newest_first_and_exclude_other_workloads():
    result = run(load('deployment-image-pull'))
    objects = [e['object'] for e in result['events']]
    assert 'Pod/cart-6b7f8d9c5-abcde' not in objects
    assert objects == ['Pod/web-7d9c5b8f4d-9fz2m', 'Pod/web-7d9c5b8f4d-2xk8q', 'Pod/web-7d9c5b8f4d-2xk8q',
                       'Deployment/web']
    assert result['events'][0] == {'object': 'Pod/web-7d9c5b8f4d-9fz2m', 'reason': 'Failed',
                                   'message': 'Error: ImagePullBackOff', 'count': 41,
                                   'last_seen': '2026-03-02T10:14:30Z'}


def test_crash_loop_counts_a_container_between_restarts_and_keeps_the_highest_restart_count():
    result = run(load('deployment-crashloop'))
    assert result['lines'] == ['Deployment shop/api: 3/3 new pods not ready: CrashLoopBackOff '
                               '(container api, 7 restarts, last exit 1 Error)']
    assert result['causes'][0]['last_termination'] == {'reason': 'Error', 'exit_code': 1}


def test_unschedulable_statefulset_pod_carries_the_schedulers_message():
    result = run(load('statefulset-unschedulable'))
    assert result['revision'] == {'kind': 'ControllerRevision', 'name': 'db-7b8c9d6f5e',
                                  'hash': 'db-7b8c9d6f5e'}
    assert result['lines'] == ['StatefulSet shop/db: 1/1 new pods not ready: Unschedulable (0/3 nodes are '
                               'available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No '
                               'preemption victims found for incoming pod.)']
    # An events.k8s.io event (count and lastTimestamp null): series gives its count and time.
    assert result['events'][0]['count'] == 12
    assert result['events'][0]['last_seen'] == '2026-03-02T11:58:30Z'
    # Pods not yet replaced by an ordered update are not "not created": no FailedCreate evidence.
    assert [c['category'] for c in result['causes']] == ['scheduling']


def test_quota_pods_never_created_from_the_replicaset_condition():
    result = run(load('deployment-quota'))
    assert result['pods'] == 0 and result['desired'] == 1
    assert result['lines'] == ['Deployment shop/web: 1/1 new pods not created: FailedCreate (pods '
                               '"web-6d5f8b9c7-" is forbidden: exceeded quota: compute, requested: '
                               'requests.cpu=500m, used: requests.cpu=2, limited: requests.cpu=2)']


def test_failed_create_event_when_no_condition_says_it():
    fx = load('deployment-quota')
    for obj in (fx['workload'], fx['history'][0]):
        obj['status'].pop('conditions')
    fx['events'][0]['message'] = ('Error creating: admission webhook "validate.policy.example.com" denied '
                                  'the request: images must come from registry.example.com/approved')
    (line,) = run(fx)['lines']
    assert line == ('Deployment shop/web: 1/1 new pods not created: FailedCreate (admission webhook '
                    '"validate.policy.example.com" denied the request: images must come from '
                    'registry.example.com/approved)')


def test_config_error_and_podsecurity_on_a_daemonset():
    result = run(load('daemonset-config-error'))
    assert result['revision']['hash'] == '7f9b6c5d8'
    assert result['lines'] == [
        "DaemonSet shop/agent: 2/2 new pods not ready: CreateContainerConfigError (container agent: couldn't "
        "find key foo in ConfigMap shop/cfg)",
        'DaemonSet shop/agent: 1/3 new pods not created: FailedCreate (pods "agent-" is forbidden: violates '
        'PodSecurity "baseline:latest": host namespaces (hostNetwork=true))',
    ]


def test_not_ready_for_n_seconds_uses_now_and_the_probe_event():
    fx = load('rc-readiness')
    result = run(fx)
    assert result['causes'][0]['not_ready_seconds'] == 150  # 14:57:30 -> 15:00:00, the longest
    assert result['lines'] == ['ReplicationController shop/web-next: 2/2 new pods not ready: NotReady '
                               '(Running but not Ready for 150s: Readiness probe failed: HTTP probe failed '
                               'with statuscode: 503)']
    fx['now'] = '2026-03-02T15:10:00Z'
    assert run(fx)['causes'][0]['not_ready_seconds'] == 750


def test_groups_by_cause_and_sorts_by_count():
    fx = load('deployment-crashloop')
    pull = load('deployment-image-pull')['pods'][0]
    pull['metadata']['labels']['pod-template-hash'] = '84d6f7c9b5'
    ready = copy.deepcopy(fx['pods'][0])
    ready['metadata']['name'] = 'api-84d6f7c9b5-ok111'
    ready['status']['conditions'][0]['status'] = 'True'
    fx['pods'] = fx['pods'][:2] + [pull, ready]
    result = run(fx)
    assert (result['pods'], result['ready']) == (4, 1)
    assert [(c['reason'], c['count']) for c in result['causes']] == [('CrashLoopBackOff', 2),
                                                                     ('ImagePullBackOff', 1)]
    assert result['lines'][1].startswith('Deployment shop/api: 1/4 new pods not ready: ImagePullBackOff (')


def test_terminating_pods_are_not_counted():
    fx = load('deployment-crashloop')
    fx['pods'][0]['metadata']['deletionTimestamp'] = '2026-03-02T10:59:00Z'
    assert run(fx)['causes'][0]['count'] == 2


def test_messages_are_redacted_before_they_are_cut():
    fx = load('deployment-quota')
    secret = 's3cr3t-pull-token-value'
    message = ('pods "web-6d5f8b9c7-" is forbidden: https://robot:%s@registry.example.com ' % secret
               + 'x' * 400)
    fx['history'][0]['status']['conditions'][0]['message'] = message
    fx['events'][0]['message'] = 'token %s leaked' % secret
    result = run(fx, secrets=[secret])
    text = repr(result)
    assert secret not in text and 'robot:' not in text
    cause = result['causes'][0]
    assert len(cause['message']) == d.MAX_MESSAGE and cause['message'].endswith('...')
    assert result['events'][0]['message'] == 'token ******** leaked'


def test_a_secret_longer_than_the_limit_is_redacted_not_half_shown():
    secret = 'A' * 300
    cut = d._Text([secret]).clean('key ' + secret)
    assert 'AAAA' not in cut and cut == 'key ********'


def test_lines_are_capped():
    fx = load('deployment-crashloop')
    template = fx['pods'][0]
    fx['pods'] = []
    for i in range(12):
        pod = copy.deepcopy(template)
        pod['metadata']['name'] = 'api-84d6f7c9b5-p%02d' % i
        pod['status']['containerStatuses'][0]['name'] = 'c%02d' % i
        fx['pods'].append(pod)
    result = run(fx)
    assert len(result['causes']) == 12
    assert len(result['lines']) == d.MAX_LINES
    assert result['lines'][-1] == 'Deployment shop/api: 5 more causes (see diagnosis.causes)'
    assert all(len(c['pods']) == 1 for c in result['causes'])


def test_pod_names_in_a_cause_are_capped_but_counted():
    fx = load('deployment-crashloop')
    template = fx['pods'][0]
    fx['pods'] = []
    for i in range(9):
        pod = copy.deepcopy(template)
        pod['metadata']['name'] = 'api-84d6f7c9b5-p%02d' % i
        fx['pods'].append(pod)
    (cause,) = run(fx)['causes']
    assert cause['count'] == 9 and len(cause['pods']) == d.MAX_POD_NAMES


# ---- reads against kubesim -------------------------------------------------------------------

BAD_IMAGE = 'registry.invalid/shop/web:2.0-brokn'


def _client(sim):
    return ApiClient.from_params({'kubeconfig': str(sim.kubeconfig)}, env={})


def _deployment(replicas=3):
    return manifests.workload('Deployment', 'web', BAD_IMAGE, replicas, namespace='default', container='web')


def _wait_for_pods(client, n, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pods = client.list('/api/v1/namespaces/default/pods', label_selector='app=web')['items']
        waiting = [p for p in pods
                   if (p['status'].get('containerStatuses') or [{}])[0].get('state', {}).get('waiting')]
        if len(waiting) >= n:
            return pods
        time.sleep(0.05)
    raise AssertionError('kubesim did not start %d pods' % n)


def test_read_diagnosis_costs_three_lists_for_a_deployment(kubesim_factory, tmp_path):
    log = tmp_path / 'requests.log'
    kubesim = kubesim_factory(fail_image=r'^registry\.invalid/', ready_delay=0.05, request_log=log)

    def requests_seen():
        return len(log.read_text().splitlines())

    client = _client(kubesim)
    client.create('/apis/apps/v1/namespaces/default/deployments', _deployment())
    pods = _wait_for_pods(client, 3)
    # kubesim's kubelet writes the pull failures (Warning "Failed") itself; another pod's event
    # must not show up in this Deployment's diagnosis.
    other = manifests.event('other.1', 'Pod', 'cart-1', 'Error: other')
    client.create('/api/v1/namespaces/default/events', other)
    web = Deployment(client.get('/apis/apps/v1/namespaces/default/deployments/web'))

    before = requests_seen()
    result = d.read_diagnosis(client, web)
    assert requests_seen() - before == 3  # ReplicaSets, pods, events

    assert result['errors'] == []
    assert result['lines'] == ['Deployment default/web: 3/3 new pods not ready: ImagePullBackOff '
                               '(%s: not found)' % BAD_IMAGE]
    shown = {e['object'] for e in result['events']}
    assert shown and shown <= {'Pod/' + p['metadata']['name'] for p in pods}
    assert {e['reason'] for e in result['events']} == {'Failed'}

    # The caller's ReplicaSets save the first LIST.
    replica_sets = client.list('/apis/apps/v1/namespaces/default/replicasets',
                               label_selector='app=web')['items']
    before = requests_seen()
    again = d.read_diagnosis(client, web, history_items=replica_sets)
    assert requests_seen() - before == 2
    assert again['lines'] == result['lines']


@pytest.mark.kubesim_options(fail_image=r'^registry\.invalid/', ready_delay=0.05)
def test_failed_reads_are_reported_not_raised(kubesim):
    client = ApiClient.from_params({'kubeconfig': str(kubesim.kubeconfig)}, env={})
    client.sleep = lambda _s: None
    client.create('/apis/apps/v1/namespaces/default/deployments', _deployment(replicas=1))
    _wait_for_pods(client, 1)
    web = Deployment(client.get('/apis/apps/v1/namespaces/default/deployments/web'))
    kubesim.set_faults('500=1;methods=GET')
    result = d.read_diagnosis(client, web)
    assert len(result['errors']) == 2
    assert result['errors'][0].startswith('could not list ReplicaSets: ')
    assert result['errors'][1].startswith('could not list events: ')
    assert result['causes'] == []
    assert result['lines'] == ['Deployment default/web: diagnosis incomplete: ' + e for e in result['errors']]

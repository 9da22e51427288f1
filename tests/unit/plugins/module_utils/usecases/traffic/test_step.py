"""A traffic step (usecases/traffic/step.py) against kubesim's gateway, through the collection's client:
the patch decided again after a conflict and recognised after a lost answer, check mode's dry run,
the wait for the gateway's verdict and for the endpoints a share needs."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.traffic import step as traffic

from tests.support.kube import api_client, create_settled, read_log, wait_until, writes
from tests.support.traffic import GW, NEW, deployment, gateway, route, service

pytestmark = pytest.mark.unit

ROUTE = GW.format(ns='default') + '/httproutes/web'
TARGET = 'gateway.networking.k8s.io/httproutes/default/web'


@pytest.fixture
def sim(kubesim_factory, tmp_path):
    sim = kubesim_factory(gateway_api=True, gateway_delay=0.02, ready_delay=0.02,
                          request_log=tmp_path / 'requests.log')
    sim.log = tmp_path / 'requests.log'
    client = sim.client = api_client(sim)
    create_settled(client, deployment('web', 'stable', 2))
    for name, selector in (('web-stable', {'app': 'web', 'track': 'stable'}),
                           ('web-canary', {'app': 'web', 'track': 'canary'}),
                           ('web-legacy', {'app': 'legacy'})):
        client.create('/api/v1/namespaces/default/services', service(name, selector))
    client.create(GW.format(ns='default') + '/gateways', gateway())
    client.create(GW.format(ns='default') + '/httproutes', route())
    wait_until(lambda: (client.get(ROUTE).get('status') or {}).get('parents'), 'the gateway\'s verdict')
    return sim


def shift(sim, weight, **options):
    options.setdefault('timeout', 5)
    options = traffic.TrafficOptions('default', 'web', 'web-stable', 'web-canary', weight, **options)
    return traffic.Shift(sim.client, options)


def canary(sim, replicas=1):
    create_settled(sim.client, deployment('web-canary', 'canary', replicas, NEW))
    wait_until(lambda: shift(sim, 0).ready('canary') >= replicas, 'the canary endpoints')


def test_a_lost_answer_and_a_conflict_leave_one_write_reported_as_changed(sim):
    canary(sim)
    sim.set_faults('conflict=%s:1;drop_after_write=%s:1' % (TARGET, TARGET))
    out = shift(sim, 40).run()
    assert out['changed'] and out['rules'][0]['weights'] == {'stable': 60, 'canary': 40}
    assert out['route']['generation'] == 2 and out['parents'][0]['accepted']
    assert shift(sim, 40).run()['changed'] is False


def test_check_mode_sends_a_dry_run_and_waits_for_nothing(sim):
    out = shift(sim, 30, check_mode=True)
    result = out.run()
    assert result['changed'] and result['parents'] == [{'parent': 'Gateway default/public', 'accepted': True}]
    assert result['diff']['after']['rule 0 (main)'] == {'web-stable': 70, 'web-canary': 30}
    # The canary has no endpoint: a warning, not a wait.
    assert out.warnings == ['Service default/web-canary has 0 ready endpoints, 1 needed for its share: a '
                            'real run would wait for them']
    sent = writes(read_log(sim.log))
    assert [(e['method'], e['path'], e['dry_run']) for e in sent][-1] == ('PATCH', ROUTE, True)
    assert sim.client.get(ROUTE)['metadata']['generation'] == 1


def test_a_gateway_that_does_not_answer_fails_the_step_naming_the_parent(sim):
    canary(sim)
    sim.set_gateway(delay=60)
    with pytest.raises(traffic.TrafficFailed, match=r'HTTPRoute default/web at generation 2: Gateway '
                                                    r'default/public did not judge it .* within 1 seconds'):
        shift(sim, 10, timeout=1).run()


class _Interloper:
    """The collection's client, except that just before its first PATCH of the route another writer
    (a colleague with edit rights on HTTPRoutes) inserts a rule at index 0 holding the same two
    Services: what the step read is no longer what is stored."""

    def __init__(self, client, intruder):
        self.client = client
        self.intruder = intruder
        self.done = False

    def __getattr__(self, name):
        return getattr(self.client, name)

    def patch(self, path, body, *args, **kwargs):
        if path == ROUTE and not self.done and not kwargs.get('dry_run'):
            self.done = True
            current = self.client.get(ROUTE)
            current['spec']['rules'].insert(0, self.intruder)
            self.client.replace(ROUTE, current)
        return self.client.patch(path, body, *args, **kwargs)


@pytest.mark.parametrize('named', [True, False])
def test_a_rule_inserted_between_the_read_and_the_write_is_never_rewritten(sim, named):
    canary(sim)
    # The same backendRefs with the same weights at the same indexes as the managed rule: only the
    # rule's identity (and the route's resourceVersion) tells them apart.
    main = sim.client.get(ROUTE)['spec']['rules'][0]
    intruder = {'backendRefs': [dict(b) for b in main['backendRefs']],
                'matches': [{'path': {'type': 'PathPrefix', 'value': '/intruder'}}]}
    if named:
        intruder['name'] = 'intruder'
    step = shift(sim, 40, rule='main')
    step.client = _Interloper(sim.client, intruder)
    out = step.run()
    stored = sim.client.get(ROUTE)['spec']['rules']
    # The patch planned from the first read failed its tests (the API server's conflict); the step
    # read again and wrote the rule it manages at its new index; the inserted rule is untouched.
    assert stored[0].get('name') == intruder.get('name') and stored[0]['matches'] == intruder['matches']
    assert [b['weight'] for b in stored[0]['backendRefs']] == [b['weight'] for b in main['backendRefs']]
    assert stored[1]['name'] == 'main' and [b.get('weight') for b in stored[1]['backendRefs'][:2]] == [60, 40]
    assert out['changed'] and out['rules'] == [{'index': 1, 'name': 'main',
                                                'weights': {'stable': 60, 'canary': 40}}]


def test_a_backend_ref_of_another_namespace_is_not_the_stable_service(sim):
    current = sim.client.get(ROUTE)
    current['spec']['rules'][0]['backendRefs'][0]['namespace'] = 'other'
    sim.client.replace(ROUTE, current)
    before = sim.client.get(ROUTE)
    with pytest.raises(traffic.TrafficFailed) as e:
        shift(sim, 40).run()
    assert 'no rule with backendRefs to both Services web-stable and web-canary' in e.value.message
    assert e.value.fields.get('changed') is False
    assert sim.client.get(ROUTE)['spec'] == before['spec']


def test_a_route_that_keeps_changing_fails_the_step_naming_rerun(sim):
    canary(sim)
    sim.set_faults('conflict=%s:20' % TARGET)
    with pytest.raises(traffic.TrafficFailed) as e:
        shift(sim, 40).run()
    assert 'kept changing while its weights were written' in e.value.message
    assert e.value.fields['next_step'] == 'rerun'


def test_a_verdict_written_before_the_wait_is_read_at_once(sim):
    """The route is read from its watched copy before the first wait: a step whose gateway judges it
    within a few hundredths of a second never waits out a whole wait slice for it."""
    import time
    from ansible_collections.kubeops.rollout.plugins.module_utils.api import shared_lists
    canary(sim)
    started = time.monotonic()
    out = shift(sim, 20).run()
    assert out['parents'][0]['accepted']
    assert time.monotonic() - started < shared_lists.STOP_CHECK_SECONDS


def test_an_accepted_write_waits_the_settle_time_and_nothing_else_does(sim):
    """settle_seconds after a write the gateway accepted (the data plane's own delay), never in check
    mode nor when nothing is written; unset, the router's own (0 for the HTTPRoute)."""
    canary(sim)
    slept = []

    def run(weight, **options):
        options = traffic.TrafficOptions('default', 'web', 'web-stable', 'web-canary', weight, timeout=5,
                                         **options)
        return traffic.Shift(sim.client, options, sleep=slept.append).run()

    assert run(20, settle_seconds=0.25)['changed'] and slept == [0.25]
    assert not run(20, settle_seconds=0.25)['changed'] and slept == [0.25]
    assert run(30, settle_seconds=0.25, check_mode=True)['changed'] and slept == [0.25]
    assert run(30)['changed'] and slept == [0.25]
    assert traffic.TrafficOptions('n', 'r', 's', 'c', 1, router_name='openshift_route').settle == 5

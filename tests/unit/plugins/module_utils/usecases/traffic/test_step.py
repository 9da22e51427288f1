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
    wait_until(lambda: shift(sim, 0).ready('web-canary') >= replicas, 'the canary endpoints')


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

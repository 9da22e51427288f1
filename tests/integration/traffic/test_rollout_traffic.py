"""rollout_traffic through ansible-playbook against kubesim's gateway: the shares the gateway computes
follow the weights asked, nothing else of the route changes, a rejected route fails the step, a
canary without ready endpoints never gets a share, and lost answers and conflicts leave one change."""

import pytest

from .conftest import NEW, NS, deployment, traffic_task

pytestmark = pytest.mark.integration


def test_weights_shift_only_the_pair_and_the_gateway_follows(world, play):
    before = world.route()
    world.kube.create(deployment('web-canary', 'canary', 1, image=NEW))
    world.kube.rolled_out('Deployment', 'web-canary')
    r = play(world.sim, [
        traffic_task('preview', 25, check_mode=True, diff=True),
        traffic_task('to 25', 25),
        traffic_task('again', 25),
        traffic_task('header', 25, header_route={'name': 'testers', 'header': 'X-Canary', 'value': 'yes'}),
        traffic_task('back', 0, header_route={'name': 'testers', 'state': 'absent'}),
    ])
    preview = r.ok('preview')
    assert preview['changed'] and preview['rules'][0]['weights'] == {'stable': 75, 'canary': 25}
    assert preview['diff']['before'] == {'rule 0 (main)': {'web-stable': 100, 'web-canary': 0}}
    to25 = r.ok('to 25')
    assert to25['changed'] and to25['parents'] == [{'parent': 'Gateway default/public', 'accepted': True}]
    assert to25['endpoints'] == {'stable': 4, 'canary': 1}
    assert not r.ok('again')['changed']
    assert r.ok('header')['header_route'] == {'name': 'testers', 'present': True}
    assert r.ok('back')['changed']
    # The gateway computed 25% for the canary, never anything but 0 and 0.25, and never a 5xx.
    assert set(world.canary_shares()) == {0, 0.25}
    assert world.errors() == []
    after = world.route()
    assert after['spec'] == before['spec']  # weights back, header route gone, nothing else touched
    generations = [g for _t, g, _s in world.traffic()]
    assert generations == sorted(generations)


def test_the_header_route_matches_the_header_and_sends_all_to_the_canary(world, play):
    world.kube.create(deployment('web-canary', 'canary', 1, image=NEW))
    world.kube.rolled_out('Deployment', 'web-canary')
    r = play(world.sim, [traffic_task('header', 0, header_route={'name': 'testers', 'header': 'X-Canary',
                                                                  'value': 'yes'})])
    assert r.ok('header')['changed']
    rules = world.rules()
    assert [x.get('name') for x in rules] == ['main', 'static', 'testers']
    assert rules[2]['backendRefs'] == [{'group': '', 'kind': 'Service', 'name': 'web-canary', 'port': 80,
                                        'weight': 1}]
    assert rules[2]['matches'][0]['headers'] == [{'type': 'Exact', 'name': 'X-Canary', 'value': 'yes'}]
    shares = world.shares()
    assert shares[2]['shares'] == {'web-canary': 1.0}
    assert shares[0]['shares'].get('web-canary', 0) == 0


def test_a_canary_without_ready_endpoints_never_gets_a_share(world, play):
    r = play(world.sim, [traffic_task('to 10', 10, timeout=2)])
    failed = r.failed('to 10')
    assert 'Service default/web-canary has 0 ready endpoints, 1 needed' in failed['msg']
    assert 'nothing was changed' in failed['msg']
    assert world.weights()['web-canary'] == 0
    assert world.errors() == []


def test_a_route_the_gateway_rejects_fails_the_step_naming_parent_and_reason(world, play):
    world.kube.create(deployment('web-canary', 'canary', 1, image=NEW))
    world.kube.rolled_out('Deployment', 'web-canary')
    world.sim.set_gateway(reject='NotAllowedByListeners')
    r = play(world.sim, [traffic_task('to 25', 25)])
    msg = r.failed('to 25')['msg']
    assert 'HTTPRoute default/web at generation 2: Gateway default/public: Accepted is False (reason ' \
           'NotAllowedByListeners' in msg
    # The gateway kept serving what it accepted before: the canary never got a share.
    assert set(world.canary_shares()) == {0}


def test_lost_answers_and_conflicts_on_the_route_leave_one_change(world, play):
    world.kube.create(deployment('web-canary', 'canary', 2, image=NEW))
    world.kube.rolled_out('Deployment', 'web-canary')
    target = 'gateway.networking.k8s.io/httproutes/%s/web' % NS
    world.sim.set_faults('drop_after_write=%s:1;conflict=%s:1' % (target, target))
    r = play(world.sim, [traffic_task('to 50', 50)])
    assert r.ok('to 50')['changed']
    assert world.weights() == {'web-stable': 50, 'web-canary': 50, 'web-legacy': 0}
    world.sim.set_faults('500_after_write=%s:1' % target)
    r = play(world.sim, [traffic_task('to 20', 20)])
    assert r.ok('to 20')['changed']
    assert world.weights() == {'web-stable': 80, 'web-canary': 20, 'web-legacy': 0}
    assert world.route()['metadata']['generation'] == 3


def test_bad_input_is_named(world, play):
    r = play(world.sim, [
        traffic_task('rule', 10, rule='nope'),
        traffic_task('percent', 120),
    ])
    assert "has no rule 'nope'" in r.failed('rule')['msg'] and 'main, static' in r.failed('rule')['msg']
    assert 'weight is the canary\'s percent: 0 to 100 (got 120)' in r.failed('percent')['msg']

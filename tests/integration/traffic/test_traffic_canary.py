"""rollout_release with traffic (the traffic canary strategy) through ansible-playbook against
kubesim's gateway: the shares the gateway computed follow the steps, the promotion is one release, a
failed step or a rejected route aborts with the traffic back first, a pause until the next run and an
interrupted step are resumed by the same task again."""

import http.server
import signal
import threading
import time

import pytest

from ..release.test_release_survives_its_runner import interrupted_when
from .conftest import NEW, NS, OLD, RECORD, canary_task

pytestmark = pytest.mark.integration

class Failing(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (the handler's name)
        self.send_response(500)
        self.end_headers()
        self.wfile.write(b'error')

    def log_message(self, *args):
        pass


@pytest.fixture
def failing_check():
    """The analysis of a check whose endpoint answers, always with 500."""
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Failing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield {'interval': 1, 'failure_limit': 0,
           'checks': [{'name': 'smoke', 'http': {'url': 'http://127.0.0.1:%d/healthz' % server.server_port}}]}
    server.shutdown()


def image(obj):
    return obj['spec']['template']['spec']['containers'][0]['image']


def test_steps_then_promotion_as_one_release(world, play):
    spec = world.route()['spec']
    r = play(world.sim, [canary_task('canary', [{'weight': 25}, {'weight': 50}])])
    out = r.ok('canary')
    assert out['changed'] and out['traffic']['phase'] == 'promoted'
    assert [(s['weight'], s['replicas'], s['outcome']) for s in out['traffic']['steps']] == [
        (25, 1, 'passed'), (50, 2, 'passed')]
    # The gateway's shares followed the steps, then the promotion (100), then back to stable.
    seen = world.canary_shares()
    assert [s for i, s in enumerate(seen) if i == 0 or s != seen[i - 1]] == [0, 0.25, 0.5, 1.0, 0]
    assert world.errors() == []
    assert world.route()['spec'] == spec  # the other backend and rule untouched, the weights back
    assert image(world.kube.get('Deployment', 'web')) == NEW
    canary = world.kube.get('Deployment', 'web-canary')
    assert canary['spec']['replicas'] == 0 and RECORD not in canary['metadata'].get('annotations', {})
    again = play(world.sim, [canary_task('canary', [{'weight': 25}, {'weight': 50}])])
    assert not again.ok('canary')['changed']


def test_check_mode_plans_every_step_and_writes_nothing(world, play):
    generation = world.route()['metadata']['generation']
    r = play(world.sim, [canary_task('plan', [{'weight': 10}, {'weight': 60}], check_mode=True)])
    out = r.ok('plan')
    assert out['changed']
    assert [(s['weight'], s['replicas'], s['outcome']) for s in out['traffic']['steps']] == [
        (10, 1, 'planned'), (60, 3, 'planned')]
    assert world.route()['metadata']['generation'] == generation
    assert world.kube.list('Deployment', selector='track=canary') == []
    writes = world.writes()
    # Each step's canary Deployment and route change, sent as a dry run; no other write.
    assert [(m, p.rsplit('/', 1)[-1]) for m, p, _d in writes] == [
        ('POST', 'deployments'), ('PATCH', 'web'), ('POST', 'deployments'), ('PATCH', 'web'),
        ('POST', 'deployments'), ('PATCH', 'web')]
    assert all(d for _m, _p, d in writes)


def test_lost_answers_and_conflicts_on_the_route_and_the_canary(world, play):
    route = 'gateway.networking.k8s.io/httproutes/%s/web' % NS
    canary = 'apps/deployments/%s/web-canary' % NS
    world.sim.set_faults(';'.join(['drop_after_write=%s:2' % route, 'conflict=%s:1' % route,
                                   '500_after_write=%s:1' % canary]))
    r = play(world.sim, [canary_task('canary', [{'weight': 25}, {'weight': 50}])])
    out = r.ok('canary')
    assert out['traffic']['phase'] == 'promoted'
    seen = world.canary_shares()
    assert [s for i, s in enumerate(seen) if i == 0 or s != seen[i - 1]] == [0, 0.25, 0.5, 1.0, 0]
    assert world.errors() == []
    # One generation per change of weights: a repeat after a lost answer wrote nothing more.
    assert world.route()['metadata']['generation'] == 5


def test_a_failing_analysis_at_step_2_puts_traffic_back_in_one_patch(world, play, failing_check):
    r = play(world.sim, [canary_task('canary', [{'weight': 20, 'analysis': False}, {'weight': 40}],
                                     analysis=failing_check)])
    out = r.failed('canary')
    assert 'step 2 (40%)' in out['msg']
    assert 'rolled back: traffic back to Service default/web-stable' in out['msg']
    log = [(g, shares[0]['shares'].get('web-canary', 0)) for _t, g, shares in world.traffic() if shares]
    # Generation by generation: 20%, 40%, and the very next generation is 0.
    at = dict(log)
    step2 = max(g for g, s in log if s == 0.4)
    assert at[step2 + 1] == 0 and max(at) == step2 + 1
    assert image(world.kube.get('Deployment', 'web')) == OLD
    assert world.kube.get('Deployment', 'web-canary')['spec']['replicas'] == 0
    assert world.errors() == []


def test_a_pause_until_the_next_run_then_the_same_task_goes_on(world, play):
    steps = [{'weight': 30, 'pause': 'next_run'}, {'weight': 60}]
    first = play(world.sim, [canary_task('canary', steps)])
    out = first.ok('canary')
    assert out['traffic']['phase'] == 'paused' and 'run the same task again to go on' in out['msg']
    assert world.weights()['web-canary'] == 30
    second = play(world.sim, [canary_task('canary', steps)])
    out = second.ok('canary')
    assert [s['step'] for s in out['traffic']['steps']] == [2]
    assert out['traffic']['phase'] == 'promoted'
    assert world.weights()['web-canary'] == 0 and image(world.kube.get('Deployment', 'web')) == NEW


def test_a_route_the_gateway_rejects_fails_the_step_then_recover_rollback_aborts(world, play):
    world.sim.set_gateway(reject='NotAllowedByListeners')
    r = play(world.sim, [canary_task('canary', [{'weight': 25}])])
    msg = r.failed('canary')['msg']
    assert 'Accepted is False (reason NotAllowedByListeners' in msg
    assert 'keeps its pods' in msg and 'recover: rollback' in msg
    assert world.weights()['web-canary'] == 0  # the rollback wrote the weight back at once
    world.sim.set_gateway(reject=None)
    r = play(world.sim, [canary_task('rollback', [{'weight': 25}], recover='rollback')])
    assert 'rolled back' in r.ok('rollback')['msg']
    canary = world.kube.get('Deployment', 'web-canary')
    assert canary['spec']['replicas'] == 0 and RECORD not in canary['metadata'].get('annotations', {})
    assert image(world.kube.get('Deployment', 'web')) == OLD


@pytest.mark.parametrize('step', [1, 2])
def test_an_interrupted_step_is_resumed_by_the_same_task(world, play, tmp_path, step):
    steps = [{'weight': 20, 'pause': 30 if step == 1 else 0}, {'weight': 40, 'pause': 30}]
    weight = steps[step - 1]['weight']

    other = []

    def in_the_pause():
        if world.weights()['web-canary'] != weight:
            return False
        time.sleep(0.5)
        # Meanwhile the same canary from another run is refused: one runner at a time.
        other.append(play(world.sim, [canary_task('other', steps)]).failed('other')['msg'])
        return True

    (tmp_path / 'first').mkdir()
    interrupted_when(world.sim, tmp_path / 'first', signal.SIGINT, [canary_task('canary', steps)],
                     in_the_pause, 'the step at %d%%' % weight)
    assert 'is running elsewhere' in other[0] and 'wait for it to end' in other[0]
    record = world.kube.get('Deployment', 'web-canary')['metadata']['annotations'][RECORD]
    assert '"step":%d' % (step - 1) in record
    quick = [dict(s, pause=0) for s in steps]
    r = play(world.sim, [canary_task('canary', quick)])
    out = r.ok('canary')
    assert [s['step'] for s in out['traffic']['steps']] == list(range(step, 3))
    assert out['traffic']['phase'] == 'promoted'
    assert world.errors() == []
    assert image(world.kube.get('Deployment', 'web')) == NEW


def test_a_step_states_the_canary_s_real_share_beside_other_backends(world, play):
    """The pair's weights are set on a scale of 100; another backend of the rule (web-legacy, weight 70)
    takes its part of the traffic too, and the step says what the canary gets."""
    route = world.route()
    route['spec']['rules'][0]['backendRefs'][2]['weight'] = 70
    world.kube.request('PUT', world.gw + '/httproutes/web', route)
    r = play(world.sim, [canary_task('canary', [{'weight': 50, 'pause': 'next_run'}])])
    out = r.ok('canary')
    notes = [line for line in r.stdout.splitlines() if line.startswith('<localhost> step 1:')]
    assert notes == ['<localhost> step 1: web-canary to 2 replicas, weight 50 of 170 (29%) of '
                     'HTTPRoute default/web'], notes
    assert out['summary'][0] == 'step 1: weight 50 of 170 (29%) to the canary, 2 replicas: passed', \
        out['summary']
    assert 'paused at step 1 of 1 (weight 50 of 170 (29%) to web-canary, passed)' in out['msg'], out['msg']
    assert '<localhost> canary paused at step 1 of 1 until the next run' in r.stdout.splitlines()
    # What the gateway computed for the rule: the canary's share is the one stated.
    assert abs(world.canary_shares()[-1] - 50 / 170) < 0.01, world.canary_shares()[-3:]


@pytest.mark.parametrize('steps', [
    [{'weight': 30, 'pause': 'next_run'}, {'weight': 60}],  # ends paused at 30%, the header route in
    [{'weight': 20}, {'weight': 50}],  # promoted: the route ends as it began (no route diff)
], ids=['paused', 'promoted'])
def test_check_mode_shows_the_route_diff_the_real_run_reports(world, play, steps):
    header = {'name': 'testers', 'header': 'X-Canary', 'value': 'yes'}
    plan = play(world.sim, [canary_task('plan', steps, traffic={'header_route': header}, check_mode=True,
                                        diff=True)]).ok('plan')
    assert all(d for _m, _p, d in world.writes())  # dry runs only
    real = play(world.sim, [canary_task('real', steps, traffic={'header_route': header},
                                        diff=True)]).ok('real')
    assert plan['changed'] is real['changed'] is True
    routes = [d for d in real.get('diff') or [] if 'HTTPRoute' in d['before_header']]
    assert [d for d in plan.get('diff') or [] if 'HTTPRoute' in d['before_header']] == routes
    if steps[0].get('pause') == 'next_run':
        (route,) = routes
        assert route['before'] != route['after'] and world.weights()['web-canary'] == 30
        assert route['after']['header route testers'] is True, route
        assert 'would be taken, then paused' in plan['msg'] and 'passed' in real['msg']
    else:
        assert routes == [] and world.weights()['web-canary'] == 0

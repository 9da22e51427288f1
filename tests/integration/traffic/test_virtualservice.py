"""rollout_traffic and the traffic canary on an Istio VirtualService (router: virtualservice) through
ansible-playbook against kubesim's istio stand-in: what only this router does. The header route goes
before the managed http route; subset-level tracks are the DestinationRule's, whose labels the
preflight checks against the canary's pods; several routes holding both destinations are refused, and
a host written `name.namespace` is not the Service (istiod takes it as written)."""

import time

import pytest

from tests.support.routers.virtualservice import VirtualServiceSubsetCase, destination
from tests.support.traffic import NEW, NS, deployment

from ..conftest import Kube, task

pytestmark = pytest.mark.integration

ISTIO = '/apis/networking.istio.io/v1/namespaces/%s' % NS
HEADER = {'name': 'testers', 'header': 'x-canary', 'value': 'yes'}


class World:
    def __init__(self, sim):
        self.sim = sim
        self.kube = Kube(sim.kubeconfig)

    def vs(self):
        return self.kube.request('GET', ISTIO + '/virtualservices/web')

    def log(self):
        return self.sim.route_traffic(NS, 'web', kind='VirtualService')

    def errors(self, since=0):
        """The 5xx shares the stand-in computed since ``since`` (the sim's clock)."""
        return [s for t, _g, shares in self.log() if t >= since
                for part in shares or [] for s in part['shares'] if s in ('500', '503')]

    def settle(self):
        """Until the stand-in serves the route without a 5xx (the pods ready); the sim's time then."""
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            now = self.sim.clock()
            if self.log() and not self.errors(self.log()[-1][0]):
                return now
            time.sleep(0.05)
        raise AssertionError('the istio stand-in never served the route without errors')


@pytest.fixture
def world(kubesim_factory):
    """The subset layout of the router suite (one Service web, the DestinationRule web with the subsets
    stable and canary), its stable Deployment and a canary Deployment of one pod."""
    sim = kubesim_factory(ready_delay=0.05, istio=True, istio_delay=0.05)
    w = World(sim)
    w.kube.create(deployment('web', 'stable', 3))
    w.kube.create(deployment('web-canary', 'canary', 1, image=NEW))
    VirtualServiceSubsetCase().build(w.kube, NS, 'web')
    w.kube.rolled_out('Deployment', 'web')
    w.kube.rolled_out('Deployment', 'web-canary')
    return w


def step(title, weight, **options):
    options.setdefault('timeout', 20)
    return task(title, 'rollout_traffic', router='virtualservice', route={'name': 'web'},
                stable_service='web', destination_rule={'name': 'web'}, weight=weight, **options)


def test_subset_steps_and_the_header_route_before_the_managed_route(world, play):
    before = world.vs()
    since = world.settle()
    r = play(world.sim, [
        step('preview', 20, check_mode=True, diff=True),
        step('to 20', 20, header_route=HEADER),
        step('back', 0, header_route={'name': 'testers', 'state': 'absent'}),
    ])
    preview = r.ok('preview')
    assert preview['diff']['before'] == {'http route 1 (main)': {'web/stable': 100, 'web/canary': 0}}
    assert preview['diff']['after'] == {'http route 1 (main)': {'web/stable': 80, 'web/canary': 20}}
    to20 = r.ok('to 20')
    # The subsets' ready endpoints: the Service's endpoints whose pods carry each subset's labels.
    assert to20['endpoints'] == {'stable': 3, 'canary': 1}
    assert to20['rules'] == [{'index': 2, 'name': 'main', 'weights': {'stable': 80, 'canary': 20}}]
    assert to20['parents'] == []  # no acceptance condition without istiod's status feature
    assert r.ok('back')['changed']
    after = world.vs()
    assert after['spec'] == before['spec']
    # While the header route was in, it came before `main`, and sent its requests to the canary alone.
    log = world.log()
    with_header = [shares for _t, _g, shares in log if shares and len(shares) == 3]
    assert with_header, log
    assert [part['name'] for part in with_header[0]] == ['static', 'testers', 'main']
    assert with_header[0][1]['shares'] == {'web/canary': 1.0}
    assert with_header[0][1]['matches'] == [{'headers': {'x-canary': {'exact': 'yes'}}}]
    assert {round(shares[-1]['shares']['web/canary'], 2) for _t, _g, shares in log if shares} == {0, 0.2}
    assert world.errors(since) == []


def test_subsets_reaching_the_other_track_are_refused_before_anything_is_written(world, play):
    world.kube.request('DELETE', '/apis/apps/v1/namespaces/%s/deployments/web-canary' % NS)
    rule = world.kube.request('GET', ISTIO + '/destinationrules/web')
    rule['spec']['subsets'][0]['labels'] = {'app': 'web'}  # `stable` would be both tracks' pods
    world.kube.request('PUT', ISTIO + '/destinationrules/web', rule)
    before = world.vs()['metadata']['resourceVersion']
    traffic = {'router': 'virtualservice', 'route': {'name': 'web'}, 'stable_service': 'web',
               'destination_rule': {'name': 'web'}, 'steps': [{'weight': 10}]}
    r = play(world.sim, [task('canary', 'rollout_release', traffic=traffic, timeout=20,
                              workloads=[{'kind': 'Deployment', 'name': 'web', 'images': {'app': NEW}}])])
    msg = r.failed('canary')['msg']
    assert 'Service default/web (pods app=web) (destination_rule.stable_subset) selects the canary\'s pods' \
        in msg, msg
    assert 'the stable subset must select the stable track only' in msg, msg
    assert world.vs()['metadata']['resourceVersion'] == before


def test_two_routes_holding_both_are_refused_and_rule_names_one(world, play):
    vs = world.vs()
    pair = [destination('web', 1, 'stable'), destination('web', 0, 'canary')]
    vs['spec']['http'].insert(0, {'name': 'api', 'match': [{'uri': {'prefix': '/api'}}], 'route': pair})
    world.kube.request('PUT', ISTIO + '/virtualservices/web', vs)
    r = play(world.sim, [step('unnamed', 10), step('named', 10, rule='api')])
    msg = r.failed('unnamed')['msg']
    assert ('VirtualService default/web has 2 http routes with both destinations web/stable and web/canary '
            '(http route 0 (api), http route 2 (main)): name the one to shift with rule') in msg, msg
    assert r.ok('named')['rules'] == [{'index': 0, 'name': 'api', 'weights': {'stable': 90, 'canary': 10}}]
    assert [d.get('weight') for d in world.vs()['spec']['http'][2]['route']] == [100, 0, 0]


def test_a_host_written_name_dot_namespace_is_not_the_service(world, play):
    vs = world.vs()
    vs['spec']['http'][1]['route'][1]['destination']['host'] = 'web.%s' % NS
    world.kube.request('PUT', ISTIO + '/virtualservices/web', vs)
    msg = play(world.sim, [step('to 10', 10)]).failed('to 10')['msg']
    assert 'has no http route with both destinations web/stable and web/canary' in msg, msg

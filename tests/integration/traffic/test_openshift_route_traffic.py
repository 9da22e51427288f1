"""rollout_traffic on an OpenShift Route (router openshift_route) through ansible-playbook against
kubesim's router stand-in (openshift=True), what the suite every router passes (test_routers.py)
does not cover: the router's status is not rewritten by a weight change, `rule` and `header_route`
are refused before any request, a route the router refuses for its host fails the step."""

import json
import time

import pytest

from ..conftest import Kube
from .conftest import NEW, NS, TRACK, deployment, service, traffic_task

pytestmark = pytest.mark.integration

ROUTES = '/apis/route.openshift.io/v1/namespaces/%s/routes'
ROUTER = {'router': 'openshift_route'}


def openshift_route(name='web', ns=NS, host=None):
    spec = {'to': {'kind': 'Service', 'name': 'web-stable', 'weight': 100},
            'alternateBackends': [{'kind': 'Service', 'name': 'web-canary', 'weight': 0},
                                  {'kind': 'Service', 'name': 'web-legacy', 'weight': 0}],
            'port': {'targetPort': 'http'}}
    if host:
        spec['host'] = host
    return {'apiVersion': 'route.openshift.io/v1', 'kind': 'Route',
            'metadata': {'name': name, 'namespace': ns}, 'spec': spec}


class RouteWorld:
    def __init__(self, sim, log):
        self.sim, self.log = sim, log
        self.kube = Kube(sim.kubeconfig)

    def route(self, name='web'):
        return self.kube.request('GET', (ROUTES % NS) + '/' + name)

    def shares(self, name='web'):
        return self.sim.route_shares(NS, name, kind='Route')

    def canary_shares(self):
        return [shares[0]['shares'].get('web-canary', 0)
                for _t, _g, shares in self.sim.route_traffic(NS, 'web', kind='Route') if shares]

    def errors(self):
        return [(g, s) for t, g, shares in self.sim.route_traffic(NS, 'web', kind='Route') if t >= self.t0
                for entry in shares or [] for s in entry['shares'] if s == '503']

    def writes(self):
        entries = [json.loads(line) for line in self.log.read_text().splitlines()]
        return [(e['method'], e['path']) for e in entries
                if e['method'] != 'GET' and e['time'] >= self.t0_wall]


def build(kubesim_factory, tmp_path, delay):
    """The stable Deployment web, the Services web-stable, web-canary and web-legacy, the Route web."""
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(openshift=True, openshift_delay=delay, ready_delay=0.05, request_log=log)
    w = RouteWorld(sim, log)
    w.kube.create(deployment('web', 'stable', 4))
    services = '/api/v1/namespaces/%s/services' % NS
    for name, track in (('web-stable', 'stable'), ('web-canary', 'canary')):
        w.kube.request('POST', services, service(name, {'app': 'web', TRACK: track}))
    w.kube.request('POST', services, service('web-legacy', {'app': 'legacy'}))
    w.kube.request('POST', ROUTES % NS, openshift_route())
    w.kube.rolled_out('Deployment', 'web')
    end = time.monotonic() + 10
    while w.shares() is None or '503' in w.shares()[0]['shares']:
        assert time.monotonic() < end, 'the router never served the route'
        time.sleep(0.05)
    w.t0, w.t0_wall = sim.clock(), time.time()
    return w


@pytest.fixture
def world(kubesim_factory, tmp_path):
    """The Route's world; its router serves a change 0.05 s after it (as a real router's reload
    follows a change by up to its RELOAD_INTERVAL)."""
    return build(kubesim_factory, tmp_path, 0.05)


def test_weights_shift_only_the_pair_and_the_router_follows(world, play):
    before = world.route()
    world.kube.create(deployment('web-canary', 'canary', 1, image=NEW))
    world.kube.rolled_out('Deployment', 'web-canary')
    r = play(world.sim, [
        traffic_task('preview', 25, check_mode=True, diff=True, **ROUTER),
        traffic_task('to 25', 25, **ROUTER),
        traffic_task('again', 25, **ROUTER),
        traffic_task('back', 0, **ROUTER),
    ])
    preview = r.ok('preview')
    assert preview['changed'] and preview['rules'][0]['weights'] == {'stable': 75, 'canary': 25}
    assert preview['diff']['before'] == {'backends': {'web-stable': 100, 'web-canary': 0}}
    to25 = r.ok('to 25')
    assert to25['changed'] and to25['parents'] == [{'parent': 'router default', 'accepted': True}]
    assert to25['endpoints'] == {'stable': 4, 'canary': 1}
    assert not r.ok('again')['changed']
    assert r.ok('back')['changed']
    # The router served 25% to the canary, never anything but 0 and 0.25, and never a 503.
    assert set(world.canary_shares()) == {0, 0.25}
    assert world.errors() == []
    after = world.route()
    assert after['spec'] == before['spec']  # weights back, the host and the other backend untouched
    assert after['status'] == before['status']  # an admitted weight change: the router wrote nothing
    patches = [w for w in world.writes() if w[0] == 'PATCH']
    assert len(patches) == 3  # the dry run, to 25 and back


def test_rule_and_header_route_are_refused_before_any_request(world, play):
    r = play(world.sim, [
        traffic_task('rule', 10, rule='main', **ROUTER),
        traffic_task('header', 10, header_route={'name': 'testers', 'header': 'X-Canary', 'value': 'yes'},
                     **ROUTER),
    ])
    assert 'rule \'main\': an OpenShift Route has one set of backends' in r.failed('rule')['msg']
    assert 'header_route: an OpenShift Route has no header matches' in r.failed('header')['msg']
    assert world.writes() == []


def test_a_route_the_router_refuses_fails_the_step(world, play):
    host = 'shop.apps.kubesim.local'
    world.kube.request('POST', '/api/v1/namespaces', {'apiVersion': 'v1', 'kind': 'Namespace',
                                                       'metadata': {'name': 'other'}})
    world.kube.request('POST', ROUTES % 'other', openshift_route('first', 'other', host))
    time.sleep(1.0 - time.time() % 1.0 + 0.01)  # creationTimestamp has whole seconds: the next one
    world.kube.request('POST', ROUTES % NS, openshift_route('late', NS, host))
    world.kube.create(deployment('web-canary', 'canary', 1, image=NEW))
    world.kube.rolled_out('Deployment', 'web-canary')
    end = time.monotonic() + 10
    while not (world.route('late').get('status') or {}).get('ingress'):
        assert time.monotonic() < end, 'the router never judged the route'
        time.sleep(0.05)
    r = play(world.sim, [task_on('late', 10)])
    failed = r.failed('late')
    assert failed['msg'] == (
        'Route default/late at generation 2: router default: Admitted is False (reason HostAlreadyClaimed: '
        'a route in another namespace holds host %s); the router keeps serving what it accepted before'
        % host)
    assert failed['changed']


def task_on(name, weight):
    out = traffic_task(name, weight, **ROUTER)
    out['kubeops.rollout.rollout_traffic']['route'] = {'name': name}
    return out


"""A traffic canary's world on kubesim (gateway_api=True): a stable Deployment and the Services
web-stable and web-canary (told apart by a track label), a Gateway of the class kubesim and an
HTTPRoute whose first rule holds both Services beside a backend the canary does not own, and a
second rule of its own. The tests read the route and the gateway's computed shares through their
own HTTP client and kubesim, never through the code under test."""

import time

import pytest

from ..conftest import Kube, task

SERVICES = '/api/v1/namespaces/default/services'
GW = '/apis/gateway.networking.k8s.io/v1/namespaces/{ns}'
NS = 'default'
OLD, NEW = 'nginx:1.25', 'nginx:1.26'
TRACK = 'track'


def deployment(name, track, replicas, image=OLD):
    labels = {'app': 'web', TRACK: track}
    return {
        'apiVersion': 'apps/v1', 'kind': 'Deployment', 'metadata': {'name': name, 'namespace': NS},
        'spec': {'replicas': replicas, 'selector': {'matchLabels': dict(labels)},
                 'template': {'metadata': {'labels': dict(labels)}, 'spec': {'containers': [
                     {'name': 'app', 'image': image, 'ports': [{'name': 'http', 'containerPort': 80}]}]}}},
    }


def service(name, selector):
    return {'apiVersion': 'v1', 'kind': 'Service', 'metadata': {'name': name, 'namespace': NS},
            'spec': {'selector': selector, 'ports': [{'name': 'http', 'port': 80, 'targetPort': 'http'}]}}


GATEWAY = {
    'apiVersion': 'gateway.networking.k8s.io/v1', 'kind': 'Gateway', 'metadata': {'name': 'public'},
    'spec': {'gatewayClassName': 'kubesim',
             'listeners': [{'name': 'http', 'port': 80, 'protocol': 'HTTP'}]},
}

ROUTE = {
    'apiVersion': 'gateway.networking.k8s.io/v1', 'kind': 'HTTPRoute', 'metadata': {'name': 'web'},
    'spec': {'parentRefs': [{'name': 'public'}], 'rules': [
        {'name': 'main', 'backendRefs': [{'name': 'web-stable', 'port': 80, 'weight': 100},
                                         {'name': 'web-canary', 'port': 80, 'weight': 0},
                                         {'name': 'web-legacy', 'port': 80, 'weight': 0}]},
        {'name': 'static', 'matches': [{'path': {'type': 'PathPrefix', 'value': '/static'}}],
         'backendRefs': [{'name': 'web-stable', 'port': 80}]},
    ]},
}


class World:
    def __init__(self, sim):
        self.sim = sim
        self.kube = Kube(sim.kubeconfig)
        self.gw = GW.format(ns=NS)

    def route(self):
        return self.kube.request('GET', self.gw + '/httproutes/web')

    def rules(self):
        return self.route()['spec']['rules']

    def weights(self, rule=0):
        return {r['name']: r.get('weight') for r in self.rules()[rule]['backendRefs']}

    def shares(self):
        return self.sim.route_shares(NS, 'web')

    def traffic(self):
        return self.sim.route_traffic(NS, 'web')

    def canary_shares(self):
        """The canary's share of the first rule at each change of the shares."""
        return [shares[0]['shares'].get('web-canary', 0) for _t, _g, shares in self.traffic() if shares]

    def errors(self):
        """Every 5xx share the gateway computed for the route since the world was set up."""
        return [(g, s) for t, g, shares in self.traffic() if t >= self.t0 for rule in shares or []
                for s in rule['shares'] if s in ('500', '503')]

    def wait_programmed(self):
        end = time.monotonic() + 10
        while time.monotonic() < end:
            shares = self.shares()
            if shares and not any(s in ('500', '503') for rule in shares for s in rule['shares']):
                self.t0 = self.sim.clock()
                return
            time.sleep(0.05)
        raise AssertionError('the gateway never programmed the route')


@pytest.fixture
def world(kubesim_factory):
    sim = kubesim_factory(gateway_api=True, gateway_delay=0.05, ready_delay=0.05)
    w = World(sim)
    k = w.kube
    k.create(deployment('web', 'stable', 4))
    for name, track in (('web-stable', 'stable'), ('web-canary', 'canary')):
        k.request('POST', SERVICES, service(name, {'app': 'web', TRACK: track}))
    k.request('POST', SERVICES, service('web-legacy', {'app': 'legacy'}))
    k.request('POST', w.gw + '/gateways', GATEWAY)
    k.request('POST', w.gw + '/httproutes', ROUTE)
    k.rolled_out('Deployment', 'web')
    w.wait_programmed()
    return w


def traffic_task(title, weight, **options):
    options.setdefault('timeout', 20)
    return task(title, 'rollout_traffic', route={'name': 'web'}, stable='web-stable', canary='web-canary',
                weight=weight, **options)


RECORD = 'kubeops.rollout/traffic-canary'


def canary_task(title, steps, images=None, **options):
    """A rollout_release of web with a traffic canary of ``steps``."""
    options.setdefault('timeout', 30)
    options.setdefault('fail_fast_seconds', 5)
    traffic = {'route': {'name': 'web'}, 'stable_service': 'web-stable', 'canary_service': 'web-canary',
               'steps': steps}
    traffic.update(options.pop('traffic', {}))
    return task(title, 'rollout_release', workloads=[{'kind': 'Deployment', 'name': 'web',
                                                       'images': images or {'app': NEW}}],
                traffic=traffic, **options)

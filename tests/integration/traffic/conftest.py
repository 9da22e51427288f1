"""A traffic canary's world on kubesim (gateway_api=True): a stable Deployment and the Services
web-stable and web-canary (told apart by a track label), a Gateway of the class kubesim and an
HTTPRoute whose first rule holds both Services beside a backend the canary does not own, and a
second rule of its own. The tests read the route and the gateway's computed shares through their
own HTTP client and kubesim, never through the code under test."""

import json
import time

import pytest

from tests.support.traffic import GW, NEW, NS, OLD, TRACK, deployment, gateway, route, service  # noqa: F401

from ..conftest import Kube, task


def build(kube, ns=NS, app='web', replicas=4, container='app', canary_replicas=0):
    """The stable Deployment ``app`` (and its canary, with ``canary_replicas``), the Services
    <app>-stable, <app>-canary and <app>-legacy, the Gateway public and the HTTPRoute ``app``, in
    ``ns``; returns once the Deployments are rolled out."""
    gw = GW.format(ns=ns)
    services = '/api/v1/namespaces/%s/services' % ns
    made = [deployment(app, 'stable', replicas, ns=ns, app=app, container=container)]
    if canary_replicas:
        made.append(deployment(app + '-canary', 'canary', canary_replicas, NEW, ns=ns, app=app,
                               container=container))
    for obj in made:
        kube.create(obj)
    for name, track in ((app + '-stable', 'stable'), (app + '-canary', 'canary')):
        kube.request('POST', services, service(name, {'app': app, TRACK: track}, ns))
    kube.request('POST', services, service(app + '-legacy', {'app': 'legacy'}, ns))
    if not any(g['metadata']['name'] == 'public' for g in kube.request('GET', gw + '/gateways')['items']):
        kube.request('POST', gw + '/gateways', gateway(ns))
    kube.request('POST', gw + '/httproutes', route(app, ns))
    for obj in made:
        kube.rolled_out('Deployment', obj['metadata']['name'], ns=ns)


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

    def writes(self):
        """Every write request kubesim answered since the world was set up: (method, path, dry run)."""
        entries = [json.loads(line) for line in self.log.read_text().splitlines()]
        return [(e['method'], e['path'], e['dry_run']) for e in entries
                if e['method'] not in ('GET',) and e['time'] >= self.t0_wall]

    def wait_programmed(self):
        end = time.monotonic() + 10
        while time.monotonic() < end:
            shares = self.shares()
            if shares and not any(s in ('500', '503') for rule in shares for s in rule['shares']):
                self.t0 = self.sim.clock()
                self.t0_wall = time.time()
                return
            time.sleep(0.05)
        raise AssertionError('the gateway never programmed the route')


@pytest.fixture
def world(kubesim_factory, tmp_path):
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(gateway_api=True, gateway_delay=0.05, ready_delay=0.05, request_log=log)
    w = World(sim)
    w.log = log
    build(w.kube)
    w.wait_programmed()
    return w


def traffic_task(title, weight, **options):
    options.setdefault('timeout', 20)
    return task(title, 'rollout_traffic', route={'name': 'web'}, stable_service='web-stable',
                canary_service='web-canary', weight=weight, **options)


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

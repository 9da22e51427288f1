"""What the traffic canary's unit tests share: a kubesim with a stable Deployment, a Gateway and an
HTTPRoute (no Services: each test makes its own), and the strategy run as rollout_release's main
runs it."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.gates.wait_options import GateOptions
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases import strategies
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import (
    targets as release_targets,
)

from tests.support.kube import api_client, create_settled
from tests.support.traffic import GW, NEW, deployment, gateway, route

SERVICES = '/api/v1/namespaces/default/services'
DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments'
LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases'


def image(obj):
    return obj['spec']['template']['spec']['containers'][0]['image']


TRAFFIC = {'route': {'name': 'web'}, 'stable_service': 'web-stable', 'canary_service': 'web-canary',
           'track_label': 'track', 'steps': [{'weight': 10, 'pause': 0, 'analysis': True}]}


@pytest.fixture
def sim(kubesim_factory, tmp_path):
    sim = kubesim_factory(gateway_api=True, ready_delay=0.02, request_log=tmp_path / 'requests.log')
    sim.log = tmp_path / 'requests.log'
    sim.client = api_client(sim)
    create_settled(sim.client, deployment('web', 'stable', 2))
    sim.client.create(GW.format(ns='default') + '/gateways', gateway())
    sim.client.create(GW.format(ns='default') + '/httproutes', route())
    return sim


def run(client, **options):
    opts = release_targets.ReleaseOptions(timeout=20, gates=GateOptions(fail_fast_seconds=1),
                                          traffic=dict(TRAFFIC), **options)
    targets = release_targets.build_targets([{'kind': 'Deployment', 'name': 'web', 'images': {'app': NEW}}],
                                            'default')
    return strategies.strategy(opts)(client, targets, opts).run()

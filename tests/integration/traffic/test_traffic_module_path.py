"""A traffic step on the module path (the module shipped as an AnsiballZ payload, as to a remote
host): its router comes with it."""

import pytest

from tests.support import traffic as tr

from ..bluegreen.conftest import Apps
from ..conftest import task

pytestmark = pytest.mark.integration


def test_a_traffic_step_runs_from_the_module_payload(kubesim_factory, play):
    sim = kubesim_factory(gateway_api=True, gateway_delay=0.02, ready_delay=0.05)
    kube = Apps(sim.kubeconfig)
    kube.create(tr.deployment('web', 'stable', 2))
    for name, track in (('web-stable', 'stable'), ('web-canary', 'canary')):
        kube.request('POST', '/api/v1/namespaces/default/services',
                     tr.service(name, {'app': 'web', tr.TRACK: track}))
    kube.request('POST', '/api/v1/namespaces/default/services', tr.service('web-legacy', {'app': 'web'}))
    kube.request('POST', tr.GW.format(ns='default') + '/gateways', tr.gateway())
    kube.request('POST', tr.GW.format(ns='default') + '/httproutes', tr.route())
    res = play(sim, [task('step', 'rollout_traffic', route={'name': 'web'}, stable_service='web-stable',
                          canary_service='web-canary', weight=0, timeout=20)],
               extra_env={'KUBEOPS_ROLLOUT_MODULE_PATH': '1'})
    r = res.ok('step')
    assert r['rules'][0]['weights'] == {'stable': 100, 'canary': 0}, r

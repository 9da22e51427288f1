"""The strategies on every older supported ansible-core (the venv runs the newest, and with it the
whole suite): one play per release of ansible-core, on one kubesim, runs a release on the controller
path and another on the module path (the AnsiballZ payload, as to a remote host), a blue/green
preview and switch, and a traffic canary taken to its promotion on the module path. What each task
did is read back from kubesim through the tests' own client.

The releases are those of meta/runtime.yml's ``requires_ansible`` up to the newest but one
(docs/decisions.md, "Supported versions"); each is installed into .cache/ansible-core-<version>
(`make setup`) and runs with the venv's Python (3.12 runs every one of them).
"""

import pytest

from tests.conftest import ansible_core
from tests.support import traffic as tr

from ..bluegreen.conftest import Apps, app, bluegreen
from ..conftest import task, workload

pytestmark = pytest.mark.integration

OLDER_VERSIONS = ('2.16', '2.17', '2.18', '2.19', '2.20')
NS = 'default'
MODULE_PATH = {'kubeops_rollout_module_path': True,
               'ansible_python_interpreter': '{{ ansible_playbook_python }}'}


def _world(kube):
    """api (a plain Deployment), web (a blue/green app) and shop (a traffic canary's Deployment, its
    Services and HTTPRoute)."""
    kube.create_rolled_out([workload('Deployment', 'api')])
    kube.create_app('web')
    kube.create(tr.deployment('shop', 'stable', 2, app='shop'))
    for name, track in (('shop-stable', 'stable'), ('shop-canary', 'canary')):
        kube.request('POST', '/api/v1/namespaces/default/services',
                     tr.service(name, {'app': 'shop', tr.TRACK: track}))
    kube.request('POST', '/api/v1/namespaces/default/services', tr.service('shop-legacy', {'app': 'legacy'}))
    kube.request('POST', tr.GW.format(ns=NS) + '/gateways', tr.gateway())
    kube.request('POST', tr.GW.format(ns=NS) + '/httproutes', tr.route('shop'))
    kube.rolled_out('Deployment', 'shop')


def _tasks():
    release = {'kind': 'Deployment', 'name': 'api'}
    return [
        {'name': 'version', 'ansible.builtin.set_fact': {'core': '{{ ansible_version.full }}'}},
        task('release', 'rollout_release', workloads=[dict(release, images={'app': 'nginx:1.26'})],
             timeout=60),
        dict(task('release on the module path', 'rollout_release',
                  workloads=[dict(release, images={'app': 'nginx:1.27'})], timeout=60), vars=MODULE_PATH),
        bluegreen('prepared', app()),
        bluegreen('switched', app()),
        dict(task('traffic canary', 'rollout_release',
                  workloads=[{'kind': 'Deployment', 'name': 'shop', 'images': {'app': tr.NEW}}],
                  traffic={'route': {'name': 'shop'}, 'stable_service': 'shop-stable',
                           'canary_service': 'shop-canary', 'steps': [{'weight': 50}]},
                  timeout=60, fail_fast_seconds=5), vars=MODULE_PATH),
    ]


def _image(kube, name):
    return kube.get('Deployment', name)['spec']['template']['spec']['containers'][0]['image']


@pytest.mark.parametrize('version', OLDER_VERSIONS)
def test_a_release_blue_green_and_a_traffic_canary_on_each_older_ansible_core(kubesim_factory, play, version):
    sim = kubesim_factory(gateway_api=True, gateway_delay=0.02, ready_delay=0.05)
    kube = Apps(sim.kubeconfig)
    _world(kube)
    res = play(sim, _tasks(), ansible_core=ansible_core(version))
    assert res.rc == 0, res.stdout[-4000:]
    assert res.results['version']['ansible_facts']['core'].startswith(version + '.')
    for name in ('release', 'release on the module path', 'prepared', 'switched', 'traffic canary'):
        assert res.ok(name)['changed'] is True, (name, res.results[name])
    assert _image(kube, 'api') == 'nginx:1.27'
    assert kube.color('web') == 'green'
    assert _image(kube, 'web-green') == 'nginx:1.26'
    assert _image(kube, 'shop') == tr.NEW
    weights = {r['name']: r.get('weight') for r in kube.request(
        'GET', tr.GW.format(ns=NS) + '/httproutes/shop')['spec']['rules'][0]['backendRefs']}
    assert weights['shop-canary'] == 0 and weights['shop-stable'] > 0, weights

"""rollout_release's old value canary: abort still rolls a canary back, with a deprecation warning."""

import pytest

from ..conftest import Kube, task, workload

pytestmark = pytest.mark.integration

WANTED = [{'kind': 'Deployment', 'name': 'web', 'images': {'app': 'nginx:2'}}]


def test_canary_abort_rolls_back_with_a_deprecation_naming_rollback(kubesim_factory, play):
    sim = kubesim_factory(ready_delay=0.05)
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web', replicas=4)])
    before = kube.get('Deployment', 'web')['spec']['template']
    res = play(sim, [task('start', 'rollout_release', canary='start', workloads=WANTED, timeout=60),
                     task('abort', 'rollout_release', canary='abort', workloads=WANTED, timeout=60)],
               extra_env={'ANSIBLE_DEPRECATION_WARNINGS': 'true', 'ANSIBLE_INJECT_INVOCATION': 'true'})
    res.ok('start')
    aborted = res.ok('abort')
    assert aborted['rolled_back'] == ['Deployment default/web'], aborted
    assert aborted['summary'] == ['Canary rolled back: Deployment default/web']
    assert aborted['invocation']['module_args']['canary'] == 'rollback'
    text = ' '.join((res.stdout + res.stderr).split())
    assert 'canary: abort is deprecated and goes away in kubeops.rollout 3.0.0: use canary: rollback' in text
    assert kube.rolled_out('Deployment', 'web')['spec']['template'] == before

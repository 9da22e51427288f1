"""A traffic canary's step judged by a Job (a job analysis check) through ansible-playbook against
kubesim's gateway: the Job, labelled with the release, fails, so the step fails and the release puts
the traffic back, with the Job's log lines in its message."""

import pytest

from .conftest import NS, OLD, canary_task

pytestmark = pytest.mark.integration

JOBS = '/apis/batch/v1/namespaces/%s/jobs' % NS


def test_a_step_whose_job_fails_puts_traffic_back(world, play):
    job = {'template': {'spec': {'containers': [{'name': 'smoke', 'image': 'busybox', 'command': [
        'sh', '-c', 'echo canary 5xx ratio 0.2; exit 1']}]}}}
    checks = {'interval': 1, 'checks': [{'name': 'canary-smoke', 'timeout': 20, 'job': job}]}
    r = play(world.sim, [canary_task('canary', [{'weight': 20}], analysis=checks)])
    out = r.failed('canary')
    assert 'step 1 (20%): analysis failed: check "canary-smoke": Job default/canary-smoke-' in out['msg']
    assert 'container smoke: canary 5xx ratio 0.2' in out['msg']
    assert 'rolled back: traffic back to Service default/web-stable' in out['msg']
    assert world.weights()['web-canary'] == 0
    assert world.kube.get('Deployment', 'web')['spec']['template']['spec']['containers'][0]['image'] == OLD
    assert world.kube.get('Deployment', 'web-canary')['spec']['replicas'] == 0
    assert world.errors() == []
    selector = '?labelSelector=kubeops.rollout/analysis%3Dcanary-smoke'
    (made,) = world.kube.request('GET', JOBS + selector)['items']
    assert made['metadata']['labels']['kubeops.rollout/release'].startswith('r-')  # the release's id
    assert out['analysis']['checks'][0]['jobs'] == [made['metadata']['name']]

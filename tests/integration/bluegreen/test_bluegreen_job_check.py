"""Blue/green's preview judged by a Job (a job analysis check) through ansible-playbook against
kubesim: the Job fails on the preview, so nothing is switched, and the app's analysis names the Job
with its pod's last log lines."""

import pytest

from .conftest import Apps, app, bluegreen

pytestmark = pytest.mark.integration

JOBS = '/apis/batch/v1/namespaces/default/jobs'


def test_a_preview_whose_job_fails_is_not_switched(kubesim_factory, play):
    sim = kubesim_factory(endpoint_lag=0.1, ready_delay=0.1)
    kube = Apps(sim.kubeconfig)
    kube.create_app('web', replicas=1)
    job = {'template': {'spec': {'containers': [{'name': 'smoke', 'image': 'busybox', 'command': [
        'sh', '-c', 'echo preview answers 502; exit 1']}]}}}
    checks = {'interval': 1, 'checks': [{'name': 'preview-smoke', 'timeout': 20, 'job': job}]}
    r = play(sim, [bluegreen('switched', app('web'), soak_seconds=1, analysis=checks)]).failed('switched')
    (a,) = r['apps']
    assert a['analysis']['gate'] == 'preview' and a['analysis']['passed'] is False, a
    assert 'check "preview-smoke": Job default/preview-smoke-' in a['analysis']['message']
    assert 'container smoke: preview answers 502' in a['analysis']['message']
    assert a['outcome'] == 'rolled_back' and kube.color('web') == 'blue'
    (made,) = kube.request('GET', JOBS + '?labelSelector=kubeops.rollout/analysis%3Dpreview-smoke')['items']
    assert made['metadata']['labels']['kubeops.rollout/release'].startswith('bg-')  # the release's id

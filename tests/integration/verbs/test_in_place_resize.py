"""In-place pod resize (the `pods/{name}/resize` subresource, Kubernetes 1.33+): a container restarted
by its resize policy is neither a new revision nor a crash. The soak of a wait does not count it,
kubectl and the modules agree that the rollout is complete, and the history has no new revision."""

import threading
import time
import urllib.parse

import pytest

from ..conftest import Kube, read_log, task, workload

pytestmark = pytest.mark.integration

RESIZABLE = {'spec': {'containers': [{
    'name': 'app', 'image': 'nginx:1.25',
    'resources': {'limits': {'cpu': '250m', 'memory': '128Mi'}},
    'resizePolicy': [{'resourceName': 'cpu', 'restartPolicy': 'NotRequired'},
                     {'resourceName': 'memory', 'restartPolicy': 'RestartContainer'}]}]}}


def soak_looks(log):
    """The soak's reads of the new revision's pods (a LIST with the pod-template-hash selector)."""
    out = []
    for r in read_log(log):
        query = urllib.parse.parse_qs(r.get('query') or '')
        if r['method'] == 'GET' and r['path'].endswith('/pods') and 'pod-template-hash' in str(
                query.get('labelSelector')):
            out.append(r)
    return out


def test_a_resize_restart_during_the_soak_is_no_crash_and_no_revision(kubesim_factory, play, kubectl,
                                                                      tmp_path):
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(ready_delay=0.05, request_log=log)
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web', replicas=2, extra_template=RESIZABLE)])
    pod = sorted(p['metadata']['name'] for p in kube.list('Pod', selector='app=web'))[0]

    resized = {}

    def resize_during_the_soak():
        deadline = time.monotonic() + 60
        while not soak_looks(log) and time.monotonic() < deadline:
            time.sleep(0.05)
        resized['answer'] = kube.request('PATCH', kube.path('Pod', pod) + '/resize', {'spec': {'containers': [
            {'name': 'app', 'resources': {'limits': {'cpu': '250m', 'memory': '256Mi'},
                                          'requests': {'memory': '256Mi'}}}]}},
            content_type='application/strategic-merge-patch+json')

    worker = threading.Thread(target=resize_during_the_soak)
    worker.start()
    try:
        res = play(sim, [
            task('status', 'rollout_status', kind='Deployment', name='web', soak_seconds=4, max_restarts=0,
                 wait_timeout=60),
            task('history', 'rollout_history', kind='Deployment', name='web'),
        ])
    finally:
        worker.join(70)
    assert resized['answer']['spec']['containers'][0]['resources']['limits']['memory'] == '256Mi'

    # The container did restart for its resize policy, in the same pod, during the soak...
    live = kube.get('Pod', pod)
    cs = live['status']['containerStatuses'][0]
    assert cs['restartCount'] == 1 and cs['resources']['limits']['memory'] == '256Mi'
    looks = soak_looks(log)
    [patched] = [r for r in read_log(log) if r['method'] == 'PATCH' and r['path'].endswith('/resize')]
    # The soak looked at the pods before the resize and again after its restart.
    assert looks[0]['time'] <= patched['time'] and any(r['time'] > patched['time'] + 0.3 for r in looks)
    # ... and the soak passed: the restart came with new resources.
    status = res.ok('status')['workloads'][0]
    assert status['done'] is True, status
    # No new revision: the template is unchanged, the history has one entry, as kubectl says.
    assert [r['revision'] for r in res.ok('history')['workloads'][0]['revisions']] == [1]
    run = kubectl.using(sim)
    assert run('rollout', 'status', 'deployment/web', '--timeout=30s', check=True).stdout.strip() == (
        'deployment "web" successfully rolled out')
    history = run('rollout', 'history', 'deployment/web', check=True).stdout
    assert [line.split()[0] for line in history.splitlines()[2:] if line.strip()] == ['1']


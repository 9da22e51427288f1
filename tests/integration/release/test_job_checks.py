"""A Job as an analysis check, through real ansible-playbook runs against kubesim, whose Job controller
runs the pods and whose kubelet keeps what their commands print: a Job that completes passes, one
that fails fails with its pod's last log lines, an image that does not pull or a Job that never
starts is inconclusive, a Job somebody else made with the same labels never counts, one deleted
mid-check is inconclusive, check mode creates nothing, old Jobs are deleted but the newest 5, and a
release's soak is judged by a Job."""

import threading
import time

import pytest

from ..conftest import Kube, read_log, task, workload

pytestmark = pytest.mark.integration

JOBS = '/apis/batch/v1/namespaces/{ns}/jobs'
ANALYSIS = 'kubeops.rollout/analysis'
RELEASE = 'kubeops.rollout/release'


def job_spec(script, image='busybox', **pod_spec):
    return {'template': {'spec': dict({'containers': [{'name': 'test', 'image': image,
                                                        'command': ['sh', '-c', script]}]}, **pod_spec)}}


def check(name, script, **options):
    spec = options.pop('job', None) or job_spec(script)
    return dict({'name': name, 'timeout': 20, 'job': spec}, **options)


def analysis(*checks, **options):
    return dict({'interval': 1, 'checks': list(checks)}, **options)


def jobs(kube, ns='default', selector=None):
    query = '?labelSelector=' + selector if selector else ''
    return kube.request('GET', JOBS.format(ns=ns) + query)['items']


def finished_job(name, ns, labels, code):
    """A Job made beside the checks (by somebody else), ending with exit ``code`` at once."""
    spec = job_spec('exit %d' % code, restartPolicy='Never')
    return {'apiVersion': 'batch/v1', 'kind': 'Job', 'spec': dict(spec, backoffLimit=0),
            'metadata': {'name': name, 'namespace': ns, 'labels': labels}}


def ended(kube, ns, name):
    conditions = (kube.request('GET', JOBS.format(ns=ns) + '/' + name).get('status') or {}).get('conditions')
    return any(c['type'] in ('Complete', 'Failed') and c['status'] == 'True' for c in conditions or [])


def wait(predicate, what, timeout=20):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError('timed out waiting for ' + what)
        time.sleep(0.05)


def measurement(result):
    (entry,) = result['analysis']['checks']
    return entry['measurements'][-1]


def test_a_job_check_passes_fails_with_its_log_and_is_inconclusive_when_it_cannot_start(
        kubesim_factory, play):
    sim = kubesim_factory(ready_delay=0.05, fail_image='/does-not-exist')
    kube = Kube(sim.kubeconfig)
    kube.create({'apiVersion': 'v1', 'kind': 'Namespace', 'metadata': {'name': 'checks'}})
    # Somebody else's Job with the labels a check gives its Jobs, which completed: it never counts.
    foreign = {ANALYSIS: 'foreign', RELEASE: 'r-000000000000'}
    kube.request('POST', JOBS.format(ns='default'), finished_job('foreign-made', 'default', foreign, 0))
    wait(lambda: ended(kube, 'default', 'foreign-made'), 'the foreign Job to complete')
    # Six finished Jobs of the check "keep" from earlier runs (the same second: older by their names).
    for n in range(6):
        old = finished_job('keep-old%d' % n, 'checks', {ANALYSIS: 'keep'}, 0)
        kube.request('POST', JOBS.format(ns='checks'), old)
    for n in range(6):
        wait(lambda n=n: ended(kube, 'checks', 'keep-old%d' % n), 'an old Job to complete')
    second = int(time.time())
    wait(lambda: int(time.time()) > second, 'the next second')  # the check's Job is newer
    unschedulable = job_spec('exit 0', nodeSelector={'disk': 'none'})
    res = play(sim, [
        task('passes', 'rollout_analysis', analysis=analysis(check('smoke', 'echo smoke ok; exit 0'))),
        task('fails', 'rollout_analysis', analysis=analysis(check(
            'smoke', 'echo checking web; sleep 1; printf "%s\\n" "error rate 7%" "threshold 5%"; exit 1'))),
        task('cannot pull', 'rollout_analysis', analysis=analysis(check(
            'smoke', 'exit 0', job=job_spec('exit 0', image='registry.example/does-not-exist:1')))),
        task('pull tolerated', 'rollout_analysis', analysis=analysis(check(
            'smoke', 'exit 0', job=job_spec('exit 0', image='registry.example/does-not-exist:1')),
            inconclusive='pass')),
        task('never starts', 'rollout_analysis', analysis=analysis(check(
            'smoke', 'exit 0', job=unschedulable, timeout=2))),
        task('foreign', 'rollout_analysis', analysis=analysis(check('foreign', 'exit 1'))),
        task('kept', 'rollout_analysis', namespace='checks', analysis=analysis(check('keep', 'exit 0'))),
    ])
    passed = res.ok('passes')
    first = measurement(passed)
    assert first['outcome'] == 'passed'
    assert first['message'] == 'check "smoke": Job default/%s completed' % first['value']
    made = kube.request('GET', JOBS.format(ns='default') + '/' + first['value'])
    assert made['metadata']['labels'][ANALYSIS] == 'smoke'
    assert made['metadata']['labels'][RELEASE].startswith('run-')
    assert 'ownerReferences' not in made['metadata']
    assert passed['analysis']['checks'][0]['jobs'] == [first['value']]

    failed = res.failed('fails')
    second = measurement(failed)
    assert second['outcome'] == 'failed'
    assert 'Job default/%s failed (BackoffLimitExceeded' % second['value'] in failed['msg']
    assert failed['msg'].endswith('container test: checking web\\nerror rate 7%\\nthreshold 5% '
                                  '(1 failed measurement, failure_limit 0)'), failed['msg']

    pulled = res.failed('cannot pull')
    third = measurement(pulled)
    assert third['outcome'] == 'inconclusive'
    assert 'cannot start: pod %s-' % third['value'] in third['message']
    assert 'container test ImagePullBackOff' in third['message'] and 'the Job was deleted' in third['message']
    assert measurement(res.ok('pull tolerated'))['outcome'] == 'inconclusive'

    never = measurement(res.failed('never starts'))
    assert never['outcome'] == 'inconclusive'
    assert 'never started within 2 seconds (timeout): pod %s-' % never['value'] in never['message']
    assert "didn't match Pod's node affinity/selector" in never['message']

    foreign_result = measurement(res.failed('foreign'))
    assert foreign_result['outcome'] == 'failed' and foreign_result['value'] != 'foreign-made'
    assert 'foreign-made' in [j['metadata']['name'] for j in jobs(kube, selector=ANALYSIS + '%3Dforeign')]

    kept = measurement(res.ok('kept'))
    assert kept['message'].startswith('check "keep": Job checks/keep-')
    names = sorted(j['metadata']['name'] for j in jobs(kube, 'checks'))
    # The two oldest of the seven finished Jobs are gone, the newest five kept.
    assert names == sorted(['keep-old2', 'keep-old3', 'keep-old4', 'keep-old5', kept['value']])
    # Jobs that could not start or did not end were deleted.
    left = {j['metadata']['name'] for j in jobs(kube)}
    assert first['value'] in left and second['value'] in left
    wait(lambda: not {third['value'], never['value']} & {j['metadata']['name'] for j in jobs(kube)},
         'the Jobs that did not end to be deleted')


def test_a_job_deleted_mid_check_is_inconclusive(kubesim_factory, play):
    sim = kubesim_factory(ready_delay=0.05)
    kube = Kube(sim.kubeconfig)
    deleted = []

    def delete_the_check_job():
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not deleted:
            for job in jobs(kube, selector=ANALYSIS + '%3Dslow'):
                kube.request('DELETE', JOBS.format(ns='default') + '/' + job['metadata']['name'])
                deleted.append(job['metadata']['name'])
            time.sleep(0.1)

    thread = threading.Thread(target=delete_the_check_job, daemon=True)
    thread.start()
    # Even where an inconclusive measurement is tolerated, a deleted Job fails the check.
    res = play(sim, [task('deleted', 'rollout_analysis', analysis=analysis(check('slow', 'sleep 600'),
                                                                          inconclusive='pass'))])
    thread.join(5)
    result = measurement(res.failed('deleted'))
    assert deleted == [result['value']]
    assert result['outcome'] == 'inconclusive'
    assert result['message'] == ('check "slow": Job default/%s was deleted before it ended (not by this '
                                 'task); no verdict' % result['value'])
    assert res.duration < 20


def test_check_mode_creates_the_job_with_dry_run_only(kubesim_factory, play, tmp_path):
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(ready_delay=0.05, request_log=log)
    kube = Kube(sim.kubeconfig)
    res = play(sim, [task('planned', 'rollout_analysis', analysis=analysis(check('smoke', 'exit 1')))],
               check=True)
    result = res.ok('planned')
    assert result['msg'] == 'analysis passed: 1 check, 1 measurement each; not measured in check mode: smoke'
    assert measurement(result)['outcome'] == 'skipped'
    assert 'check mode: not measured' in measurement(result)['message']
    assert result['analysis']['checks'][0]['failures'] == 0
    writes = [(e['method'], e['path'], e['dry_run']) for e in read_log(log)
              if e['method'] in ('POST', 'PUT', 'PATCH', 'DELETE')]
    assert writes == [('POST', '/apis/batch/v1/namespaces/default/jobs', True)]
    assert jobs(kube) == []


def test_a_release_whose_job_check_fails_during_its_soak_is_put_back(kubesim_factory, play):
    sim = kubesim_factory(ready_delay=0.05)
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web', image='app:1')])
    images = [{'kind': 'Deployment', 'name': 'web', 'images': {'app': 'app:2'}}]
    res = play(sim, [task('release', 'rollout_release', workloads=images, soak_seconds=1, timeout=30,
                          analysis=analysis(check('smoke', 'echo 503 from web; exit 1')))])
    failure = res.failed('release')
    assert 'analysis failed: check "smoke": Job default/smoke-' in failure['msg']
    assert 'container test: 503 from web' in failure['msg']
    assert kube.get('Deployment', 'web')['spec']['template']['spec']['containers'][0]['image'] == 'app:1'
    (made,) = jobs(kube, selector=ANALYSIS + '%3Dsmoke')
    assert made['metadata']['labels'][RELEASE].startswith('r-')  # the release's id

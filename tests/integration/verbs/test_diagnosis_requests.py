"""What a crash-looping Deployment's diagnosis asks the API server: the whole ``rollout_image``
task with ``wait: true`` (its GET and PATCH, the wait, the early stop's looks at the pods and the
diagnosis naming the cause) takes at most 12 requests, and its message still names the cause, the
pod, the container and the restarts (real ansible-playbook against kubesim, its request log)."""

import collections
import re

import pytest

from ..conftest import Kube, read_log, task, workload

pytestmark = pytest.mark.integration

# Controller time 10x faster: the kubelet's first crash back-off (10 s) passes in 1 s; a crashing
# container runs 0.05 s.
SIM = {'nodes': 2, 'ready_delay': 0.05, 'crash_image': r'^crash/', 'crash_after': 0.05, 'time_scale': 10}
MAX_REQUESTS = 12


def shape(entries):
    return collections.Counter('%s %s%s' % (e['method'], e['path'].rsplit('/', 1)[-1],
                                            ' watch' if 'watch=' in e['query'] else '')
                               for e in entries)


def test_a_crash_loop_is_diagnosed_in_at_most_12_requests(kubesim_factory, play, tmp_path):
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(request_log=str(log), **SIM)
    kube = Kube(sim.kubeconfig)
    web = workload('Deployment', 'web', image='app:1', replicas=2)
    web['spec']['minReadySeconds'] = 10  # a crashing pod's moments of readiness never count
    kube.create_rolled_out([web])
    start = len(read_log(log))

    res = play(sim, [task('image', 'rollout_image', kind='Deployment', name='web',
                          images={'app': 'crash/app:2'}, wait=True, wait_timeout=60, fail_fast_seconds=3)])
    asked = read_log(log)[start:]
    print(len(asked), dict(shape(asked)))

    failed = res.failed('image')
    assert failed['workloads'][0]['status']['reason'] == 'RolloutStuck', failed['msg']
    line = re.search(r'Deployment default/web: \d/\d new pods not ready: CrashLoopBackOff \(container app, '
                     r'(\d+) restarts, last exit 1 Error\)', failed['msg'])
    assert line and int(line.group(1)) >= 1, failed['msg']
    diagnosis = failed['workloads'][0]['diagnosis']
    (cause,) = [c for c in diagnosis['causes'] if c['reason'] == 'CrashLoopBackOff']
    assert cause['container'] == 'app' and cause['restarts'] >= 1, cause
    assert cause['pods'] and all(re.match(r'web-\w+-\w+$', p) for p in cause['pods']), cause
    assert any(e['reason'] == 'BackOff' for e in diagnosis['events']), diagnosis['events']
    assert len(asked) <= MAX_REQUESTS, dict(shape(asked))

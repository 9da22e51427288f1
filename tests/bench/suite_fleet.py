"""Measurement 8 (`--only fleet-atomic`): a fleet release across 10 clusters as one transaction,
against 10 parallel kubectl shells, and the put-back of the whole fleet after a last-wave failure.

Ten kubesims (in this process, each --nodes 1, pods Ready ``READY`` s after creation), each with
``COUNT`` Deployments of ``REPLICAS`` replica(s) in one namespace. Per repetition, a new image:

- fleet: `ansible-playbook playbooks/fleet.yml -e fleet_atomic=true` over the ten clusters, waves
  [1, "50%", "100%"] (1, 5, 4 clusters), forks 10: the inspection, three waves of rollout_release
  (each cluster's 10 Deployments in one task, records kept), the commit and the finish, the summary.
  ``seconds`` is ansible-playbook's wall time; the waves' part is from the first release task's
  start to the commit's (the bench_timer callback).
- kubectl: 10 shells started at once (parallel.py, in a session of its own), one per cluster, each
  `kubectl set image` of the cluster's 10 Deployments (one command) then `kubectl rollout status`
  of each in turn: every cluster at once, no waves, no records, nothing to put back with.
- put-back: the fleet again with an image that one cluster of the last wave rejects (kubesim's
  fail_image): its release fails and puts itself back, then every cluster the run changed is put
  back, last wave first. ``release`` is from the first release task's start to the first put-back
  task's start (the release's own failure detection included), ``put_back`` from there to the
  summary's start.
"""

import json
import os
import subprocess
import sys
import time

import yaml

from tests.integration.conftest import Kube
from tests.kubesim import KubeSim
from tests.support.manifests import workload

from . import ansible_run
from .kube import ROOT

CLUSTERS = 10
COUNT = 10
REPLICAS = 1
READY = 0.2
WAVES = [1, '50%', '100%']
FAILING = 8  # a cluster of the last wave
TIMEOUT = 600
RELEASE_TASK = 'Release the new images on this cluster'
PUT_BACK_TASK = 'Put this cluster back from its records'
COMMIT_TASK = 'Mark the fleet release passed on every cluster of the run'
SUMMARY_TASK = 'Sum up every cluster of the run'


def _names():
    return ['web-%d' % i for i in range(COUNT)]


def _inventory(path, sims):
    hosts = {'c%02d' % i: {'kubeconfig': sim.kubeconfig, 'context': 'kubesim'} for i, sim in enumerate(sims)}
    with open(path, 'w') as f:
        yaml.safe_dump({'all': {'children': {'clusters': {'hosts': hosts, 'vars': {
            'ansible_connection': 'local', 'ansible_python_interpreter': '{{ ansible_playbook_python }}',
            'rollout_timeout': TIMEOUT, 'fail_fast_seconds': 5,
            'workloads': [{'kind': 'Deployment', 'name': n, 'namespace': 'default',
                           'images': {'app': '{{ fleet_bench_image }}'}} for n in _names()]}}}}}, f)
    return path


def _fleet(ctx, inventory, image, label):
    workdir = ctx.path('fleet-atomic', 'runs')
    os.makedirs(workdir, exist_ok=True)
    timer_out = os.path.join(workdir, label + '.timer.jsonl')
    if os.path.exists(timer_out):
        os.unlink(timer_out)
    cmd = [os.path.join(ansible_run.VENV_BIN, 'ansible-playbook'), '-i', inventory, 'playbooks/fleet.yml',
           '-f', str(CLUSTERS), '-e', 'fleet_atomic=true', '-e', json.dumps({'fleet_waves': WAVES}),
           '-e', 'fleet_bench_image=%s' % image]
    run_env = ansible_run.env(timer_out)
    t0 = time.monotonic()
    proc = subprocess.run(cmd, cwd=ROOT, env=run_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=TIMEOUT + 300, start_new_session=True)
    wall = time.monotonic() - t0
    with open(os.path.join(workdir, label + '.out'), 'w') as f:
        f.write(proc.stdout)
    with open(timer_out) as f:
        tasks = ansible_run._tasks([json.loads(line) for line in f if line.strip()], None)
    return proc, wall, tasks


def _first(tasks, name):
    return next((t.start for t in tasks if t.name == name), None)


def phases(tasks):
    """The waves' part, the put-back's and the finish's, from the task timings (pure)."""
    release, put_back = _first(tasks, RELEASE_TASK), _first(tasks, PUT_BACK_TASK)
    commit, summary = _first(tasks, COMMIT_TASK), _first(tasks, SUMMARY_TASK)
    out = {'release': None, 'put_back': None, 'finish': None}
    if release is not None:
        ended = put_back if put_back is not None else commit
        out['release'] = None if ended is None else ended - release
    if put_back is not None and summary is not None:
        out['put_back'] = summary - put_back
    if commit is not None and summary is not None:
        out['finish'] = summary - commit
    return out


def _kubectl(ctx, sims, image, cache_dir):
    names = _names()
    shells = []
    for sim in sims:
        base = '%s --kubeconfig %s --cache-dir %s -n default' % (ctx.kubectl_path, sim.kubeconfig, cache_dir)
        set_image = '%s set image %s app=%s >/dev/null' % (base, ' '.join('deployment/' + n for n in names),
                                                            image)
        status = ' && '.join('%s rollout status deployment/%s --timeout=%ds >/dev/null' % (base, n, TIMEOUT)
                             for n in names)
        shells.append('%s && %s' % (set_image, status))
    proc = subprocess.run([sys.executable, '-m', 'tests.bench.parallel'], input=json.dumps(shells),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                          start_new_session=True, timeout=TIMEOUT + 120)
    if proc.returncode:
        raise RuntimeError('tests.bench.parallel failed: %s' % proc.stderr[-2000:])
    out = json.loads(proc.stdout)
    errors = [r['stderr'][-200:] or 'exit %d' % r['returncode'] for r in out['results'] if r['returncode']]
    return {'seconds': out['end'] - out['start'], 'ok': not errors, 'msg': '; '.join(errors)[:300],
            'cpu_seconds': out['cpu_seconds']}


def _images(kubes):
    return {k.get('Deployment', n)['spec']['template']['spec']['containers'][0]['image']
            for k in kubes for n in _names()}


def run(ctx, reps):
    sims, kubes = [], []
    try:
        for i in range(CLUSTERS):
            failing = r'.*:fail-' if i == FAILING else None
            sim = KubeSim(nodes=1, ready_delay=READY, fail_image=failing).start()
            sim.kubeconfig = str(sim.write_kubeconfig(ctx.path('fleet-atomic', 'kubeconfig-%d' % i)))
            sims.append(sim)
            kubes.append(Kube(sim.kubeconfig))
        for kube in kubes:
            for n in _names():
                kube.create(workload('Deployment', n, image='bench/web:0', replicas=REPLICAS))
        for kube in kubes:
            for n in _names():
                kube.rolled_out('Deployment', n)
        inventory = _inventory(ctx.path('fleet-atomic', 'inventory.yml'), sims)
        cache_dir = ctx.fresh_dir('kubectl-cache', 'fleet-atomic')
        for sim in sims:  # untimed: kubectl's discovery cache filled, as on an operator's machine
            subprocess.run([ctx.kubectl_path, '--kubeconfig', sim.kubeconfig, '--cache-dir', cache_dir, '-n',
                            'default', 'get', 'deployments'], check=True, capture_output=True, timeout=120)
        samples = {'fleet': [], 'kubectl': [], 'put_back': []}
        image = 0
        for r in range(reps):
            for tool in (('fleet', 'kubectl') if r % 2 == 0 else ('kubectl', 'fleet')):
                image += 1
                tag = 'bench/web:%d' % image
                if tool == 'fleet':
                    proc, wall, tasks = _fleet(ctx, inventory, tag, 'fleet-%d' % r)
                    ok = proc.returncode == 0 and _images(kubes) == {tag}
                    sample = dict(phases(tasks), seconds=wall, ok=ok, msg='' if ok else proc.stdout[-300:])
                else:
                    sample = _kubectl(ctx, sims, tag, cache_dir)
                    sample['ok'] = sample['ok'] and _images(kubes) == {tag}
                samples[tool].append(sample)
                ctx.log('fleet-atomic: %s %.1f s%s' % (tool, sample['seconds'], '' if sample['ok'] else
                                                         ' (failed: %s)' % sample['msg'][:200]))
            before = _images(kubes)
            proc, wall, tasks = _fleet(ctx, inventory, 'bench/web:fail-%d' % r, 'put-back-%d' % r)
            ok = proc.returncode == 2 and _images(kubes) == before
            sample = dict(phases(tasks), seconds=wall, ok=ok, msg='' if ok else proc.stdout[-300:])
            samples['put_back'].append(sample)
            ctx.log('fleet-atomic: put-back run %.1f s (release %.1f s, put-back %.1f s)%s' % (
                wall, sample['release'] or 0, sample['put_back'] or 0, '' if ok else ' (failed)'))
        return {'reps': reps, 'clusters': CLUSTERS, 'workloads': COUNT, 'replicas': REPLICAS,
                'ready_delay': READY, 'waves': WAVES, 'samples': samples}
    finally:
        for sim in sims:
            sim.stop()

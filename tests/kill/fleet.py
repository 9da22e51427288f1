"""The fleet release killed: playbooks/fleet.yml with fleet_atomic over three kubesim clusters (one
per wave, each --nodes 1) killed with SIGKILL (the driver's kill_everything: ansible-playbook and
every descendant, its workers in their own sessions included) at a random moment or just after one
of its first writes to a workload, then the fleet run again with ``fleet_recover`` (``resume`` or
``rollback``) until a run succeeds (at most MAX_RUNS). What a trial counts:

- mixed: a cluster whose pods run more than one image set or other images than its template, or a
  fleet whose clusters do not all run the same images at the end;
- wrong: after ``resume`` a cluster not on the new images, after ``rollback`` one not on the old
  ones; a fleet whose run passed before the kill, that was killed past its commit point (a release
  Lease marked ``kubeops.rollout/fleet-passed``) or after its finish (every cluster new, nothing
  left), must end on the new ones either way: its rollback is refused (or finds nothing to put
  back), and the run the refusal names (``fleet_recover=resume``) finishes it;
- left: a ``kubeops.rollout/release`` record or a release Lease left on a cluster;
- unfinished: no run of the fleet succeeded.

``python -m tests.kill.fleet --trials N [--recover resume|rollback] [--seed S]`` runs many;
tests/kill/test_fleet_kill.py runs a few in ``make test`` (more with KUBEOPS_FLEET_KILL_TRIALS).
"""

import json
import os
import pathlib
import random
import subprocess
import sys
import tempfile
import time

import yaml

from tests.integration.conftest import BIN, CALLBACKS, ROOT, Kube, workload
from tests.kill.driver import LEASES, kill_everything
from tests.kubesim import KubeSim

CLUSTERS = ('canary', 'wave2', 'wave3')
OLD, NEW = 'nginx:1.25', 'nginx:1.26'
RECORD = 'kubeops.rollout/release'
PASSED = 'kubeops.rollout/fleet-passed'
MAX_RUNS = 3
WRITES = ('POST', 'PUT', 'PATCH', 'DELETE')


def _inventory(path, sims):
    hosts = {name: {'kubeconfig': str(sim.kubeconfig), 'context': 'kubesim'} for name, sim in sims.items()}
    path.write_text(yaml.safe_dump({'all': {'children': {'clusters': {'hosts': hosts, 'vars': {
        'ansible_connection': 'local', 'ansible_python_interpreter': '{{ ansible_playbook_python }}',
        'rollout_timeout': 60, 'fail_fast_seconds': 5, 'soak_seconds': 1,
        'workloads': [{'kind': 'Deployment', 'name': 'web', 'namespace': 'default',
                       'images': {'app': NEW}}]}}}}}, sort_keys=False))
    return path


def _command(root, inventory, *args):
    out = root / ('results-%d.json' % len(list(root.glob('results-*.json'))))
    env = {k: v for k, v in os.environ.items() if not k.startswith('K8S_AUTH_') and k != 'KUBECONFIG'}
    env.update({'ANSIBLE_CONFIG': str(ROOT / 'ansible.cfg'), 'ANSIBLE_CALLBACK_PLUGINS': str(CALLBACKS),
                'ANSIBLE_CALLBACKS_ENABLED': 'kubeops_record', 'KUBEOPS_RECORD_OUT': str(out),
                'ANSIBLE_NOCOLOR': '1', 'ANSIBLE_DEPRECATION_WARNINGS': 'false',
                'PATH': '%s%s%s' % (BIN, os.pathsep, os.environ.get('PATH', ''))})
    cmd = [str(BIN / 'ansible-playbook'), '-i', str(inventory), 'playbooks/fleet.yml',
           '-e', 'fleet_atomic=true', '-e', json.dumps({'fleet_waves': [1, 1, 1]}), *args]
    return cmd, env, out


def _entries(log):
    """The request log's entries so far (a line being written is not one yet)."""
    out = []
    for line in (log.read_text().splitlines() if log.exists() else []):
        try:
            out.append(json.loads(line))
        except ValueError:
            break
    return out


def _workload_writes(logs):
    return sum(1 for log in logs for e in _entries(log)
               if e['method'] in WRITES and not e.get('dry_run') and '/leases' not in e['path'])


def images(kube):
    d = kube.get('Deployment', 'web')
    return d['spec']['template']['spec']['containers'][0]['image']


def mixed(kube):
    d = kube.get('Deployment', 'web')
    want = images(kube)
    pods = [p for p in kube.list('Pod', selector='app=web') if not p['metadata'].get('deletionTimestamp')]
    seen = {p['spec']['containers'][0]['image'] for p in pods}
    return bool(seen - {want}) or d['status'].get('updatedReplicas') != d['spec']['replicas']


def left(kube):
    out = []
    if RECORD in (kube.get('Deployment', 'web')['metadata'].get('annotations') or {}):
        out.append(RECORD)
    out.extend('Lease ' + lease['metadata']['name'] for lease in kube.request('GET', LEASES)['items']
               if lease['metadata']['name'].startswith('kubeops-release-'))
    return out


def committed(kube):
    return any(PASSED in (lease['metadata'].get('annotations') or {})
               for lease in kube.request('GET', LEASES)['items'])


def _settle(kubes, seconds=20):
    deadline = time.monotonic() + seconds
    while any(mixed(k) for k in kubes.values()) and time.monotonic() < deadline:
        time.sleep(0.2)


def trial(seed, root, recover, after_write=None):
    """One trial: the fleet run killed (``seed`` decides when: a random moment, or just after one of
    its first writes to a workload; ``after_write``: just after that one), then ``fleet_recover``."""
    rnd = random.Random(seed)
    root = pathlib.Path(root)
    root.mkdir(parents=True, exist_ok=True)
    sims, kubes, logs = {}, {}, []
    try:
        for name in CLUSTERS:
            log = root / ('%s.requests.jsonl' % name)
            sims[name] = sim = KubeSim(nodes=1, ready_delay=0.1, time_scale=10, request_log=str(log)).start()
            sim.kubeconfig = sim.write_kubeconfig(root / ('kubeconfig-%s' % name))
            kubes[name] = Kube(sim.kubeconfig)
            kubes[name].create_rolled_out([workload('Deployment', 'web', image=OLD, replicas=2)])
            logs.append(log)
        inventory = _inventory(root / 'inventory.yml', sims)
        triggered = after_write is not None or rnd.random() < 0.5
        after_writes = after_write or rnd.randint(1, 2 * len(CLUSTERS))  # the finish's too
        delay = rnd.uniform(1.0, 14.0)
        cmd, env, _ = _command(root, inventory)
        start = _workload_writes(logs)
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=ROOT,
                                start_new_session=True)
        began, killed = time.monotonic(), False
        while proc.poll() is None:
            due = (_workload_writes(logs) - start >= after_writes) if triggered else \
                time.monotonic() - began >= delay
            if due or time.monotonic() - began > 120:
                kill_everything(proc.pid)
                killed = True
                break
            time.sleep(0.01)
        proc.wait(30)
        # The fleet had passed when the kill came: its run ended well, or it was past its commit point
        # (a passed mark), or its finish was done (every cluster new, nothing left).
        _settle(kubes)
        finished = all(images(k) == NEW and not left(k) for k in kubes.values())
        passed_before = (not killed and proc.returncode == 0) or finished or \
            any(committed(k) for k in kubes.values())
        runs = []
        mode = recover
        for _ in range(MAX_RUNS):
            cmd, env, out = _command(root, inventory, '-e', 'fleet_recover=%s' % mode)
            done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
            results = json.loads(out.read_text()) if out.exists() else {}
            plan = results.get('Inspect every cluster and plan the fleet release') or {}
            runs.append({'recover': mode, 'rc': done.returncode, 'action': plan.get('action'),
                         'msg': (plan.get('msg') or '')[:400]})
            if done.returncode == 0:
                break
            if 'fleet_recover=resume' in (plan.get('msg') or '') and plan.get('refused'):
                mode = 'resume'  # the way the refusal names
        _settle(kubes)
        want = NEW if recover == 'resume' or passed_before else OLD
        at_end = {name: images(k) for name, k in kubes.items()}
        verdict = {
            'seed': seed, 'recover': recover, 'killed': killed, 'passed_or_committed': passed_before,
            'kill': ('after write %d' % after_writes) if triggered else ('after %.2f s' % delay),
            'runs': runs, 'images': at_end,
            'mixed': sorted(n for n, k in kubes.items() if mixed(k))
            + (['fleet'] if len(set(at_end.values())) > 1 else []),
            'wrong': sorted(n for n, image in at_end.items() if image != want),
            'left': {n: left(k) for n, k in kubes.items() if left(k)},
            'unfinished': not runs or runs[-1]['rc'] != 0,
        }
        return verdict
    finally:
        for sim in sims.values():
            sim.stop()


def run(trials, recovers=('resume', 'rollback'), seed=0, out=None):
    counts = {}
    verdicts = []
    for recover in recovers:
        c = counts[recover] = {'trials': 0, 'killed': 0, 'clusters mixed': 0, 'clusters wrong': 0,
                               'records left': 0, 'unfinished': 0}
        for i in range(trials):
            with tempfile.TemporaryDirectory(prefix='kubeops-fleet-kill-') as tmp:
                v = trial(seed * 1000 + i, tmp, recover)
            verdicts.append(v)
            c['trials'] += 1
            c['killed'] += v['killed']
            c['clusters mixed'] += len(v['mixed'])
            c['clusters wrong'] += len(v['wrong'])
            c['records left'] += sum(len(x) for x in v['left'].values())
            c['unfinished'] += v['unfinished']
            if out:
                print(json.dumps(v), file=out, flush=True)
    return counts, verdicts


def main(argv=None):
    import argparse
    p = argparse.ArgumentParser(prog='python -m tests.kill.fleet', description=__doc__.split('\n\n')[0])
    p.add_argument('--trials', type=int, default=2, help='trials per fleet_recover (default 2)')
    p.add_argument('--recover', action='append', choices=['resume', 'rollback'])
    p.add_argument('--seed', type=int, default=int(time.time()) % 100000)
    p.add_argument('--report', help='write the counts (JSON) here')
    args = p.parse_args(argv)
    counts, verdicts = run(args.trials, args.recover or ('resume', 'rollback'), args.seed, out=sys.stdout)
    print(json.dumps(counts, indent=1))
    if args.report:
        pathlib.Path(args.report).write_text(json.dumps({'seed': args.seed, 'counts': counts,
                                                         'verdicts': verdicts}, indent=1))
    return 0 if not any(c['clusters mixed'] or c['clusters wrong'] or c['records left'] or c['unfinished']
                        for c in counts.values()) else 1


if __name__ == '__main__':
    sys.exit(main())

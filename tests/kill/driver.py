"""The kill driver: a strategy's real `ansible-playbook` killed (SIGKILL to it and every descendant,
found by PID in a snapshot of the process tree taken just before: Ansible's worker calls `setsid`,
so a process-group kill would miss it) at a random moment or just after its N-th write, then the
operator's path followed from the results alone: the same task again, then whatever `next_step` the
result names (`rerun`, `wait`, an option such as `recover: rollback`, a `kubectl` command), until a
run succeeds or nothing is left to follow. What it counts per trial:

- mixed: a workload whose live pods run more than one image set, or other images than its template;
- left: records (`kubeops.rollout/release`, `/canary`, `/traffic-canary`) or release Leases left at
  the end (a blue/green Service keeps its last switch record, and its Lease, by design: not counted);
- false success: a run that reported success while the cluster does not run what it said;
- led wrong: the path followed ended with something mixed or left, or never ended.

`python -m tests.kill --trials N [--strategy NAME]` runs it (`make kill-tests`); tests/kill/test_kill.py
runs two trials per strategy in `make test`. Other suites (the fleet's) reuse `Scenario` and `trial`.
"""

import json
import os
import pathlib
import random
import signal
import subprocess
import sys
import tempfile
import time

import yaml

from tests.integration.bluegreen.conftest import Apps
from tests.integration.conftest import BIN, CALLBACKS, ROOT, read_log, workload
from tests.kubesim import KubeSim
from tests.support import traffic as tr

OLD, NEW = 'nginx:1.25', 'nginx:1.26'
RECORDS = ('kubeops.rollout/release', 'kubeops.rollout/canary', 'kubeops.rollout/traffic-canary')
LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases'
MAX_STEPS = 6


# ---- processes --------------------------------------------------------------------------------
def _tree():
    """{pid: [child pids]} of every process now."""
    children = {}
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % entry) as f:
                ppid = int(f.read().rpartition(')')[2].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    return children


def kill_everything(pid):
    """SIGKILL ``pid`` and every descendant (a snapshot of the tree first, then the kills, the
    deepest first: the module process is the one sending requests)."""
    tree = _tree()
    victims, todo = [], [pid]
    while todo:
        p = todo.pop()
        victims.append(p)
        todo.extend(tree.get(p, []))
    for p in reversed(victims):
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return victims


def _play_files(workdir, kubeconfig, tasks):
    """A play of ``tasks`` (a task or a list): each registered, and the play stops at the first failure."""
    workdir.mkdir(parents=True, exist_ok=True)
    tasks = tasks if isinstance(tasks, list) else [tasks]
    play = [{'hosts': 'localhost', 'gather_facts': False,
             'module_defaults': {'group/kubeops.rollout.rollout': {'kubeconfig': str(kubeconfig)}},
             'tasks': [dict(t, register='r%d' % i) for i, t in enumerate(tasks)]}]
    book = workdir / 'play.yml'
    book.write_text(yaml.safe_dump(play, sort_keys=False))
    env = {k: v for k, v in os.environ.items() if not k.startswith('K8S_AUTH_') and k != 'KUBECONFIG'}
    env.update({'ANSIBLE_CONFIG': str(ROOT / 'ansible.cfg'), 'ANSIBLE_CALLBACK_PLUGINS': str(CALLBACKS),
                'ANSIBLE_CALLBACKS_ENABLED': 'kubeops_record', 'ANSIBLE_NOCOLOR': '1',
                'KUBEOPS_RECORD_OUT': str(workdir / 'results.json'), 'ANSIBLE_DEPRECATION_WARNINGS': 'false',
                'PATH': '%s%s%s' % (BIN, os.pathsep, os.environ.get('PATH', ''))})
    return [str(BIN / 'ansible-playbook'), str(book)], env


def run_task(workdir, kubeconfig, tasks, timeout=180):
    """The play of ``tasks`` to its end; the result that decides it (the first failed task's, else
    the last task's), or None when it produced none."""
    cmd, env = _play_files(workdir, kubeconfig, tasks)
    subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=timeout)
    out = workdir / 'results.json'
    recorded = json.loads(out.read_text()) if out.exists() else {}
    names, results = list(recorded), list(recorded.values())
    failed = [r for r in results if r.get('_status') != 'ok']
    chosen = failed[0] if failed else (results[-1] if results else None)
    if chosen is not None:
        chosen['_name'] = next(name for name, r in zip(names, results) if r is chosen)
    return chosen


# ---- scenarios ----------------------------------------------------------------------------------
class Scenario:
    """A strategy's world and its task: ``setup(sim)``, ``task(**overrides)``, ``workloads`` (the
    Deployments whose pods are judged), ``new`` (the images a success must run)."""

    name = None
    sim_options = {}
    workloads = ()

    def setup(self, sim):
        raise NotImplementedError

    def task(self, **overrides):
        raise NotImplementedError

    def succeeded(self, kube, result):
        """Whether the cluster runs what a successful ``result`` says."""
        return all(images_of(kube, name) == {'app': NEW} for name in self.live)


def images_of(kube, name):
    d = kube.get('Deployment', name)
    return {c['name']: c['image'] for c in d['spec']['template']['spec']['containers']}


class ReleaseScenario(Scenario):
    name = 'release'
    sim_options = {'ready_delay': 0.2}
    workloads = live = ('web', 'api')

    def setup(self, sim):
        kube = Apps(sim.kubeconfig)
        kube.create_rolled_out([workload('Deployment', n, image=OLD) for n in self.workloads])
        return kube

    def task(self, **overrides):
        args = {'workloads': [{'kind': 'Deployment', 'name': n, 'images': {'app': NEW}}
                              for n in self.workloads],
                'soak_seconds': 1, 'timeout': 60, 'fail_fast_seconds': 5}
        args.update(overrides)
        return {'name': 'release', 'kubeops.rollout.rollout_release': args}


class BlueGreenScenario(Scenario):
    name = 'bluegreen'
    sim_options = {'ready_delay': 0.2, 'endpoint_lag': 0.2}
    workloads = ('web-blue', 'web-green')

    @property
    def live(self):
        return ['web-' + self.kube.color('web')]

    def setup(self, sim):
        self.kube = Apps(sim.kubeconfig)
        self.kube.create_app(replicas=2)
        return self.kube

    def task(self, **overrides):
        recover = overrides.pop('recover', None)
        args = {'state': 'switched', 'timeout': 60, 'fail_fast_seconds': 5, 'soak_seconds': 1,
                'scale_down_delay_seconds': 600,
                'apps': [{'service': 'web', 'preview_service': 'web-preview',
                          'deployments': {'blue': 'web-blue', 'green': 'web-green'}, 'images': {'app': NEW}}]}
        if recover:
            args['recover'] = recover
        args.update(overrides)
        return {'name': 'bluegreen', 'kubeops.rollout.rollout_bluegreen': args}


class TrafficScenario(Scenario):
    name = 'traffic'
    sim_options = {'ready_delay': 0.2, 'gateway_api': True, 'gateway_delay': 0.05}
    workloads = ('web', 'web-canary')
    live = ('web',)

    def setup(self, sim):
        kube = Apps(sim.kubeconfig)
        kube.create(tr.deployment('web', 'stable', 2))
        for name, track in (('web-stable', 'stable'), ('web-canary', 'canary')):
            kube.request('POST', '/api/v1/namespaces/default/services',
                         tr.service(name, {'app': 'web', tr.TRACK: track}))
        kube.request('POST', '/api/v1/namespaces/default/services', tr.service('web-legacy', {'app': 'web'}))
        kube.request('POST', tr.GW.format(ns='default') + '/gateways', tr.gateway())
        kube.request('POST', tr.GW.format(ns='default') + '/httproutes', tr.route())
        kube.rolled_out('Deployment', 'web')
        return kube

    def task(self, **overrides):
        args = {'workloads': [{'kind': 'Deployment', 'name': 'web', 'images': {'app': NEW}}],
                'soak_seconds': 1, 'timeout': 60, 'fail_fast_seconds': 5,
                'traffic': {'route': {'name': 'web'}, 'stable_service': 'web-stable',
                            'canary_service': 'web-canary', 'track_label': tr.TRACK,
                            'steps': [{'weight': 25, 'pause': 1}, {'weight': 50, 'pause': 1}]}}
        args.update(overrides)
        return {'name': 'traffic', 'kubeops.rollout.rollout_release': args}


class CanaryScenario(ReleaseScenario):
    """A canary in two calls of one play: `canary: start`, then `promote` (a verification between
    them is the operator's; here there is none). Killed in either, the play run again resumes."""

    name = 'canary'
    workloads = live = ('web',)

    def task(self, **overrides):
        base = {'workloads': [{'kind': 'Deployment', 'name': 'web', 'images': {'app': NEW}}],
                'soak_seconds': 1, 'timeout': 60, 'fail_fast_seconds': 5}
        if overrides:  # a next step names an option of the failed phase: that phase, then promote
            phase = overrides.pop('canary', 'rollback' if overrides.get('recover') == 'rollback' else 'start')
            first = dict(base, canary=phase, **overrides)
            tasks = [{'name': phase, 'kubeops.rollout.rollout_release': first}]
            if phase != 'rollback':
                tasks.append({'name': 'promote',
                              'kubeops.rollout.rollout_release': dict(base, canary='promote')})
            return tasks
        return [{'name': 'start', 'kubeops.rollout.rollout_release': dict(base, canary='start')},
                {'name': 'promote', 'kubeops.rollout.rollout_release': dict(base, canary='promote')}]

    def succeeded(self, kube, result):
        if result.get('_name') == 'rollback' or 'rolled back' in (result.get('msg') or '').lower():
            return images_of(kube, 'web') == {'app': OLD}
        return super(CanaryScenario, self).succeeded(kube, result)


SCENARIOS = {s.name: s for s in (ReleaseScenario, CanaryScenario, BlueGreenScenario, TrafficScenario)}


# ---- judging ------------------------------------------------------------------------------------
def mixed(kube, scenario):
    """The workloads whose live pods run more than one image set or not their template's."""
    out = []
    for name in scenario.workloads:
        d = kube.get('Deployment', name)
        want = {c['name']: c['image'] for c in d['spec']['template']['spec']['containers']}
        selector = ','.join('%s=%s' % kv for kv in d['spec']['selector']['matchLabels'].items())
        pods = [p for p in kube.list('Pod', selector=selector) if not p['metadata'].get('deletionTimestamp')]
        seen = {json.dumps({c['name']: c['image'] for c in p['spec']['containers']}, sort_keys=True)
                for p in pods}
        if len(seen) > 1 or (seen and json.loads(seen.pop()) != want):
            out.append(name)
    return out


def left(kube, scenario):
    """Records on the workloads and release Leases left at the end."""
    out = []
    for name in scenario.workloads:
        annotations = kube.get('Deployment', name)['metadata'].get('annotations') or {}
        out.extend('%s on %s' % (a, name) for a in RECORDS if a in annotations)
    for lease in kube.request('GET', LEASES)['items']:
        lease_name = lease['metadata']['name']
        bluegreen_switch = scenario.name == 'bluegreen' and lease_name.startswith('kubeops-release-bg-') and \
            not (lease.get('spec') or {}).get('holderIdentity')
        if lease_name.startswith(('kubeops-release-', 'kubeops-traffic-')) and not bluegreen_switch:
            out.append('Lease ' + lease_name)
    return out


def settle(kube, scenario, seconds=20):
    """Until no workload is mixed (rollouts in progress end), at most ``seconds``."""
    deadline = time.monotonic() + seconds
    while mixed(kube, scenario) and time.monotonic() < deadline:
        time.sleep(0.2)


# ---- one trial ------------------------------------------------------------------------------------
def _writes(log):
    return [e for e in read_log(log) if e['method'] not in ('GET',) and not e.get('dry_run')]


def trial(scenario_cls, seed, root, after_write=None):
    """One trial: the kill (``seed`` decides when: a random moment, or just after a random one of
    the first writes; ``after_write``: just after that write), the operator's path, the verdict."""
    rnd = random.Random(seed)
    scenario = scenario_cls()
    root = pathlib.Path(root)
    log = root / 'requests.jsonl'
    sim = KubeSim(request_log=str(log), **scenario.sim_options).start()
    try:
        kubeconfig = sim.write_kubeconfig(root / 'kubeconfig')
        kube = scenario.setup(sim)
        start = len(_writes(log))
        triggered = after_write is not None or rnd.random() < 0.5
        after_writes = after_write or rnd.randint(1, 4)
        delay = rnd.uniform(0.5, 6.0)
        cmd, env = _play_files(root / 'killed', kubeconfig, scenario.task())
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=ROOT,
                                start_new_session=True)
        began, killed = time.monotonic(), False
        while proc.poll() is None:
            due = (len(_writes(log)) - start >= after_writes) if triggered else \
                time.monotonic() - began >= delay
            if due:
                kill_everything(proc.pid)
                killed = True
                break
            if time.monotonic() - began > 120:
                kill_everything(proc.pid)
                killed = True
                break
            time.sleep(0.01)
        proc.wait(30)
        path, false_success = [], False
        overrides = {}
        result = None
        for step_number in range(MAX_STEPS):
            result = run_task(root / ('step%d' % step_number), kubeconfig, scenario.task(**overrides))
            status = (result or {}).get('_status')
            path.append({'overrides': dict(overrides), 'status': status,
                         'next_step': (result or {}).get('next_step'),
                         'msg': ((result or {}).get('msg') or '')[:300]})
            if status == 'ok':
                if not overrides:  # the task as written succeeded: the cluster must run what it says
                    settle(kube, scenario)
                    false_success = not scenario.succeeded(kube, result)
                break
            step = (result or {}).get('next_step')
            if not step:
                break
            if step == 'wait':
                time.sleep(3)
                overrides = {}
            elif step == 'rerun':
                overrides = {}
            elif step.startswith('kubectl '):
                subprocess.run([str(BIN / 'kubectl'), '--kubeconfig', str(kubeconfig)] + step.split()[1:],
                               capture_output=True, timeout=60)
                overrides = {}
            elif ': ' in step:
                key, value = step.split(': ', 1)
                overrides = {key: value}
            else:
                break  # a module to run by hand (rollout_undo): the path ends here
        settle(kube, scenario)
        verdict = {
            'scenario': scenario.name, 'seed': seed, 'killed': killed,
            'kill': ('after write %d' % after_writes) if triggered else ('after %.2f s' % delay),
            'path': path, 'mixed': mixed(kube, scenario), 'left': left(kube, scenario),
            'false_success': false_success,
        }
        ended = bool(path) and path[-1]['status'] == 'ok'
        verdict['led_wrong'] = bool(verdict['mixed'] or verdict['left'] or not ended)
        return verdict
    finally:
        sim.stop()


def run(trials, scenarios=None, seed=0, out=None):
    """``trials`` per scenario; the verdicts and the counts per scenario."""
    counts = {}
    verdicts = []
    for name in scenarios or sorted(SCENARIOS):
        c = counts[name] = {'trials': 0, 'killed': 0, 'mixed': 0, 'left': 0, 'false_success': 0,
                            'led_wrong': 0}
        for i in range(trials):
            with tempfile.TemporaryDirectory(prefix='kubeops-kill-') as tmp:
                v = trial(SCENARIOS[name], seed * 1000 + i, tmp)
            verdicts.append(v)
            c['trials'] += 1
            c['killed'] += v['killed']
            c['mixed'] += bool(v['mixed'])
            c['left'] += bool(v['left'])
            c['false_success'] += v['false_success']
            c['led_wrong'] += v['led_wrong']
            if out:
                keys = ('scenario', 'seed', 'kill', 'mixed', 'left', 'false_success', 'led_wrong')
                print(json.dumps({k: v[k] for k in keys}), file=out, flush=True)
    return counts, verdicts


def main(argv=None):
    import argparse
    p = argparse.ArgumentParser(prog='python -m tests.kill', description=__doc__.split('\n\n')[0])
    p.add_argument('--trials', type=int, default=2, help='trials per strategy (default 2)')
    p.add_argument('--strategy', action='append', choices=sorted(SCENARIOS))
    p.add_argument('--seed', type=int, default=int(time.time()) % 100000)
    p.add_argument('--report', help='write the counts (JSON) here')
    args = p.parse_args(argv)
    counts, verdicts = run(args.trials, args.strategy, args.seed, out=sys.stdout)
    print(json.dumps(counts, indent=1))
    if args.report:
        pathlib.Path(args.report).write_text(json.dumps({'seed': args.seed, 'counts': counts,
                                                         'verdicts': verdicts}, indent=1))
    return 0 if not any(c['mixed'] or c['left'] or c['false_success'] or c['led_wrong']
                        for c in counts.values()) else 1

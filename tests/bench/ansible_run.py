"""Run a generated playbook through the real `ansible-playbook`, timed by the bench_timer callback."""

import dataclasses
import json
import os
import subprocess
import time

import yaml

from .kube import ROOT
from .memory import run as measure_memory

CALLBACK_DIR = os.path.join(ROOT, 'tests', 'bench', 'callback_plugins')
BENCH_DIR = os.path.join(ROOT, '.bench')
# kubernetes.core, extracted by scripts/bench; never part of the product's collection path.
BENCH_COLLECTIONS = os.path.join(BENCH_DIR, 'collections')
VENV_BIN = os.path.join(ROOT, '.venv', 'bin')


@dataclasses.dataclass
class TaskRun:
    name: str
    start: float
    seconds: float  # from this task's start to the next task's start (or the end of the play)
    status: str = 'missing'
    changed: bool = False
    msg: str = ''
    requests: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class PlaybookRun:
    tasks: list
    wall: float  # the whole ansible-playbook process, start to exit
    returncode: int
    output: str
    memory: dict = None  # with run_playbook(memory=True): see memory.run

    def named(self, prefix):
        return [t for t in self.tasks if t.name.startswith(prefix)]

    def failures(self):
        return [t for t in self.tasks if t.status == 'failed']


def play(tasks, name='bench', environment=None):
    out = {'name': name, 'hosts': 'localhost', 'gather_facts': False, 'tasks': tasks}
    if environment:
        out['environment'] = environment
    return out


def task(name, action, **keywords):
    return {'name': name, **action, **keywords}


def env(timer_out, request_log=None):
    e = dict(os.environ)
    e.update({
        'PATH': VENV_BIN + os.pathsep + e.get('PATH', ''),
        'ANSIBLE_CONFIG': os.path.join(ROOT, 'ansible.cfg'),
        'ANSIBLE_COLLECTIONS_PATH': os.pathsep.join([os.path.join(ROOT, '.collections'),
                                                     BENCH_COLLECTIONS]),
        'ANSIBLE_CALLBACK_PLUGINS': CALLBACK_DIR,
        'ANSIBLE_CALLBACKS_ENABLED': 'bench_timer',
        'ANSIBLE_NOCOLOR': '1',
        'ANSIBLE_DEPRECATION_WARNINGS': 'false',
        'BENCH_TIMER_OUT': timer_out,
    })
    # Python's default: bytecode is cached (a collection's code on the controller loads from its
    # __pycache__ after the first run), as on an operator's machine; an environment that turns the cache
    # off (PYTHONDONTWRITEBYTECODE, set for every process on some build machines) is not what is measured.
    e.pop('PYTHONDONTWRITEBYTECODE', None)
    if request_log:
        e['BENCH_REQUEST_LOG'] = request_log
    else:
        e.pop('BENCH_REQUEST_LOG', None)
    return e


def run_playbook(plays, workdir, label, request_log=None, timeout=1800, extra_env=None, memory=False):
    """Write ``plays`` to ``<workdir>/<label>.yml``, run it, and time each task.

    A task's requests are the request log's lines between its start and its last result. With
    ``memory``, the peak memory of ansible-playbook's process tree is measured too (memory.run).
    """
    os.makedirs(workdir, exist_ok=True)
    path = os.path.join(workdir, f'{label}.yml')
    with open(path, 'w') as f:
        yaml.safe_dump(plays, f, sort_keys=False, width=200)
    timer_out = os.path.join(workdir, f'{label}.timer.jsonl')
    if os.path.exists(timer_out):
        os.unlink(timer_out)
    cmd = [os.path.join(VENV_BIN, 'ansible-playbook'), path]
    run_env = {**env(timer_out, request_log), **(extra_env or {})}
    out_path = os.path.join(workdir, f'{label}.out')
    peaks = None
    if memory:
        returncode, wall, peaks = measure_memory(cmd, out_path, timeout, cwd=ROOT, env=run_env)
        with open(out_path) as f:
            output = f.read()
    else:
        t0 = time.monotonic()
        proc = subprocess.run(cmd, cwd=ROOT, env=run_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, timeout=timeout)
        wall = time.monotonic() - t0
        returncode, output = proc.returncode, proc.stdout
        with open(out_path, 'w') as f:
            f.write(output)
    events = []
    if os.path.exists(timer_out):
        with open(timer_out) as f:
            events = [json.loads(line) for line in f if line.strip()]
    tasks = _tasks(events, request_log)
    return PlaybookRun(tasks=tasks, wall=wall, returncode=returncode, output=output, memory=peaks)


def _tasks(events, request_log):
    from .kube import RequestLog

    log = RequestLog(request_log) if request_log else None
    starts = [i for i, e in enumerate(events) if e['event'] in ('start', 'end')]
    out = []
    for a, b in zip(starts, starts[1:]):
        first, nxt = events[a], events[b]
        if first['event'] != 'start':
            continue
        run = TaskRun(name=first['task'], start=first['t'], seconds=nxt['t'] - first['t'])
        results = [e for e in events[a + 1:b] if e['event'] == 'result']
        end_offset = nxt['offset']
        if results:
            last = results[-1]
            statuses = {r['status'] for r in results}
            run.status = 'failed' if 'failed' in statuses else last['status']
            run.changed = any(r['changed'] for r in results)
            run.msg = next((r.get('msg', '') for r in results if r['status'] == 'failed'), '')
            end_offset = last['offset']
        if log is not None and first['offset'] is not None:
            run.requests = log.between(first['offset'], end_offset)
        out.append(run)
    return out

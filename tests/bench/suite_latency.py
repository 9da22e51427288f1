"""Measurement 2: per-task latency through `ansible-playbook`, on Deployments.

Method: the bench_timer callback stamps every task's start; a task's time is the interval to the next
task's start, so everything a task costs the play (templating, forking a worker, shipping and running
the module, its API calls, processing the result) is inside it. This equals what
(playbook with N tasks - playbook with 0 tasks) / N measures, per task instead of per playbook; the
`calibration` below runs that differencing method on `ping` in the same session as a check.

The tools: this collection on the controller path (a task on localhost runs the module's code in
the controller process) and on the module path (forced with a task variable: the module shipped and
run in a new Python process, as on a remote host), `command: kubectl`, kubernetes.core, and the two
floors, `ping` (the cheapest module task) and `debug` (a task that runs no module at all).
Within one playbook the tools take turns round by round (the order rotates each round), so slow
phases of a noisy machine fall on every tool alike. Each tool has its own Deployment. Every
playbook starts with untimed warm-up calls of every module it uses (see warmup_tasks), so the timed
tasks show the steady state: payloads built, kubectl's and kubernetes.core's discovery cached, as
on an operator's machine after the first run.
"""

import os

from . import fixtures as fx
from .ansible_run import task
from .ops import DEBUG_TASK, MODULE_PATH_VARS, PING_TASK, command_task, core_task, kubeops_task

TOOLS = ('controller', 'module', 'command', 'kubernetes.core', 'ping', 'debug')
FLOORS = {'ping': PING_TASK, 'debug': DEBUG_TASK}
KIND = 'Deployment'
# pause and resume are measured as pairs on the same Deployment, so both always change something.
BLOCKS = ('history', 'status', 'pause/resume', 'restart', 'image', 'undo')
GAP_TASK = {'ansible.builtin.pause': {'seconds': 1}}
TARGET = {'controller': 'lat-ours', 'module': 'lat-mod', 'command': 'lat-cmd', 'kubernetes.core': 'lat-core'}


def _each_namespace(fn):
    core = TARGET['kubernetes.core']
    fn(fx.NAMESPACE, [n for n in TARGET.values() if n != core])
    fn(fx.CORE_NAMESPACE, [core])


def _verbs(block):
    return block.split('/')


def _rotate(seq, n):
    n %= len(seq)
    return list(seq[n:]) + list(seq[:n])


def _action(ctx, tool, verb, step, cache_dir):
    if tool in FLOORS:
        return FLOORS[tool]
    name = TARGET[tool]
    if tool == 'controller':
        return kubeops_task(verb, KIND, name, ctx.kubeconfig, step=step)
    if tool == 'module':
        return {**kubeops_task(verb, KIND, name, ctx.kubeconfig, step=step), **MODULE_PATH_VARS}
    if tool == 'command':
        return command_task(verb, KIND, name, ctx.kubectl_path, ctx.kubeconfig, cache_dir, step=step)
    return core_task(verb, KIND, name, ctx.kubeconfig, step=step)


def warmup_tasks(ctx, cache_dir):
    """One untimed call of every module the playbook uses, writes in check mode.

    Ansible builds a module's AnsiballZ payload on the module's first use in a playbook run (and
    caches it for the rest of the run), and on the controller path imports the module's code into
    its main process on the first task that uses it; kubectl and kubernetes.core fill their
    discovery caches on first use. None of these belongs to a task's steady-state cost.
    """
    kc, core = ctx.kubeconfig, TARGET['kubernetes.core']
    check = {'check_mode': True}
    out = [task('warmup|ping', PING_TASK), task('warmup|debug', DEBUG_TASK),
           task('warmup|command', command_task('history', KIND, TARGET['command'], ctx.kubectl_path, kc,
                                               cache_dir))]
    for verb in ('history', 'status', 'resume', 'restart', 'image', 'undo'):
        # resume of a Deployment that is not paused reads and changes nothing.
        extra = check if verb in ('restart', 'image', 'undo') else {}
        out.append(task(f'warmup|controller|{verb}', kubeops_task(verb, KIND, TARGET['controller'], kc),
                        **extra))
        out.append(task(f'warmup|module|{verb}', kubeops_task(verb, KIND, TARGET['module'], kc),
                        **MODULE_PATH_VARS, **extra))
    for verb in ('history', 'status', 'pause', 'undo'):
        extra = check if verb in ('pause', 'undo') else {}
        out.append(task(f'warmup|kubernetes.core|{verb}', core_task(verb, KIND, core, kc), **extra))
    return out


def _playbook_tasks(ctx, rep, rounds, cache_dir):
    tasks = warmup_tasks(ctx, cache_dir)
    step = rep * 1000
    for b, block in enumerate(BLOCKS):
        for r in range(rounds):
            step += 1
            if block == 'restart' and r:
                # The restart stamp has whole seconds: a tool's next restart of its Deployment must
                # come a second later to change anything (kubectl refuses it within the same second).
                tasks.append(task(f'gap|restart|{r}', GAP_TASK))
            for tool in _rotate(TOOLS, r + b + rep):
                verbs = [tool] if tool in FLOORS else _verbs(block)
                for verb in verbs:
                    label = block if tool in FLOORS else verb
                    tasks.append(task(f'lat|{label}|{tool}|{r}',
                                      _action(ctx, tool, verb, step, cache_dir)))
    return tasks


def _calibration(ctx, n):
    """The differencing method on ping, (wall(N tasks) - wall(0 tasks)) / N, and the callback's
    per-task times from the same N-task playbook (its last task is left out: its interval ends at
    the play's end, not at another task's start)."""
    empty = ctx.playbook([], 'calibration-0', require_tasks=False)
    full = ctx.playbook([task(f'cal|ping|{i}', PING_TASK) for i in range(n)], f'calibration-{n}')
    return (full.wall - empty.wall) / n, [t.seconds for t in full.tasks[:-1]]


def run(ctx, reps, rounds, calibration_tasks):
    _each_namespace(lambda ns, names: fx.with_two_revisions(ctx.api, [(KIND, n) for n in names], ns=ns))
    cache_dir = os.path.join(ctx.workdir, 'kubectl-cache', 'latency')
    os.makedirs(cache_dir, exist_ok=True)
    # kubernetes.core's discovery cache: one warm file for the whole suite.
    env = {'TMPDIR': ctx.fresh_dir('core-tmp', 'latency')}
    samples, failures, calibration, callback_ping = {}, [], [], []
    for rep in range(reps):
        ctx.log(f'latency: repetition {rep + 1}/{reps}')
        run_ = ctx.playbook(_playbook_tasks(ctx, rep, rounds, cache_dir), f'latency-{rep}', environment=env)
        for t in run_.tasks:
            parts = t.name.split('|')
            if parts[0] != 'lat':
                continue
            _prefix, verb, tool, _round = parts
            if t.status != 'ok':
                failures.append({'task': t.name, 'status': t.status, 'msg': t.msg[:500]})
                continue
            samples.setdefault(f'{verb}|{tool}', []).append(t.seconds)
        _each_namespace(lambda ns, names: fx.wait_complete(ctx.api, [(KIND, n) for n in names], ns=ns))
        if calibration_tasks:
            per_task, callback = _calibration(ctx, calibration_tasks)
            calibration.append(per_task)
            callback_ping.extend(callback)
    return {'kind': KIND, 'reps': reps, 'rounds': rounds, 'samples': samples, 'failures': failures,
            'calibration': {'tasks': calibration_tasks, 'differencing': calibration,
                            'callback': callback_ping}}

"""Measurement 3: how requests and time grow with the size of the problem.

- history of a Deployment with 10, 100, 1000 ReplicaSets, and of a StatefulSet with as many
  ControllerRevisions (made directly through the API), this collection vs `command: kubectl`;
- restart and status of 1, 10, 100 Deployments selected by label in one task, vs a loop of
  single-workload tasks;
- rolling_update_rc over ReplicationControllers of 10 and 100 replicas.
"""

import time

from . import fixtures as fx
from .ansible_run import task
from .context import request_summary
from .ops import command_task, kubeops_task

MODULE = 'kubeops.rollout.'


def _sample(t):
    out = request_summary(t.requests)
    del out['paths']
    out.update(seconds=t.seconds, ok=t.status == 'ok', msg=t.msg[:300])
    return out


# ---- history over many revisions -----------------------------------------------------------------

def history(ctx, sizes, reps):
    refs = []
    for kind in ('Deployment', 'StatefulSet'):
        for n in sizes:
            name = f'hist-{kind.lower()}-{n}'
            # A limit above the count, or the controllers would prune the made-up revisions.
            fx.create(ctx.api, fx.workload(kind, name, replicas=1, history_limit=n + 10))
            refs.append((kind, name, n))
    fx.wait_complete(ctx.api, [(k, name) for k, name, _n in refs])
    made = {}
    for kind, name, n in refs:
        t0 = time.monotonic()
        fx.fake_history(ctx.api, kind, name, n)
        made[name] = {'revisions': fx.count_owned(ctx.api, kind, name), 'seconds': time.monotonic() - t0}
    ctx.log(f'scale: made {sum(n for _k, _name, n in refs)} revisions')
    cache_dir = ctx.fresh_dir('kubectl-cache', 'scale-history')
    tasks = [task('warmup|command', command_task('history', 'Deployment', refs[0][1], ctx.kubectl_path,
                                                 ctx.kubeconfig, cache_dir)),
             task('warmup|kubeops', kubeops_task('history', 'Deployment', refs[0][1], ctx.kubeconfig))]
    for r in range(reps):
        for kind, name, n in refs:
            tools = [('kubeops', kubeops_task('history', kind, name, ctx.kubeconfig)),
                     ('command', command_task('history', kind, name, ctx.kubectl_path, ctx.kubeconfig,
                                              cache_dir))]
            for tool, action in (tools if r % 2 == 0 else tools[::-1]):
                tasks.append(task(f'hist|{kind}|{n}|{tool}|{r}', action))
    run = ctx.playbook(tasks, 'scale-history')
    # kubesim's controllers look at every object on every pass: don't leave thousands behind.
    for kind, name, _n in refs:
        fx.delete(ctx.api, kind, name)
    out = {}
    for t in run.tasks:
        parts = t.name.split('|')
        if parts[0] != 'hist':
            continue
        _p, kind, n, tool, _r = parts
        out.setdefault(f'{kind}|{n}|{tool}', []).append(_sample(t))
    return {'sizes': sizes, 'reps': reps, 'made': made, 'samples': out}


# ---- one task over many workloads vs one task per workload ---------------------------------------

def _median_sample(samples):
    """The sample of median time among ``samples`` (the lower middle one of an even count)."""
    ordered = sorted(samples, key=lambda sample: sample['seconds'])
    return ordered[(len(ordered) - 1) // 2]


def fleet(ctx, sizes, reps=1):
    groups = {n: [f'fleet-{n}-{i}' for i in range(n)] for n in sizes}
    for n, names in groups.items():
        for name in names:
            fx.create(ctx.api, fx.workload('Deployment', name, replicas=1, labels={'fleet': f'g{n}'}))
    for n in sizes:
        fx.wait_all_complete(ctx.api, 'Deployment', f'fleet=g{n}')
    runs, ratios = {}, {}
    for rep, (n, names) in ((rep, group) for rep in range(reps) for group in groups.items()):
        ctx.log(f'scale: restart and status over {n} Deployment(s), repetition {rep + 1}/{reps}')
        for verb in ('restart', 'status'):
            one = kubeops_task(verb, 'Deployment', 'x', ctx.kubeconfig)
            args = dict(one[MODULE + f'rollout_{verb}'])
            del args['name']
            single = dict(args, name='{{ item }}')
            # Untimed: Ansible builds a module's payload on its first use in a playbook run.
            warmup = dict(args, name=names[0])
            tasks = [
                task(f'warmup|{verb}', {MODULE + f'rollout_{verb}': warmup}, check_mode=True),
                task(f'fleet|{verb}|{n}|one',
                     {MODULE + f'rollout_{verb}': dict(args, label_selectors=[f'fleet=g{n}'])}),
                # Untimed: both measured tasks start from a settled cluster, not one still rolling
                # out what the task before started (the simulated controllers share kubesim's CPU
                # with its API); restart stamps have one-second precision, so the loop must not
                # restart within the same second either.
                task('gap|settle', {MODULE + 'rollout_status': dict(
                    {k: v for k, v in kubeops_task('status', 'Deployment', 'x', ctx.kubeconfig)[
                        MODULE + 'rollout_status'].items() if k != 'name'},
                    label_selectors=[f'fleet=g{n}'], wait_timeout=300)}),
                task('gap|pause', {'ansible.builtin.pause': {'seconds': 1}}),
                task(f'fleet|{verb}|{n}|loop', {MODULE + f'rollout_{verb}': single}, loop=names),
            ]
            run = ctx.playbook(tasks, f'scale-{verb}-{n}-{rep}')
            got = {}
            for t in run.tasks:
                parts = t.name.split('|')
                if parts[0] == 'fleet':
                    got[parts[3]] = _sample(t)
                    runs.setdefault(f'{verb}|{n}|{parts[3]}', []).append(got[parts[3]])
            if got.get('one') and got.get('loop') and got['loop']['seconds']:
                # One task against the loop of the same repetition: the two ran a minute apart at most.
                ratios.setdefault(f'{verb}|{n}', []).append(got['one']['seconds'] / got['loop']['seconds'])
            fx.wait_all_complete(ctx.api, 'Deployment', f'fleet=g{n}')
    for names in groups.values():
        for name in names:
            fx.delete(ctx.api, 'Deployment', name)
    # Each cell: the repetition of median time; the ratio: the median of the repetitions' ratios.
    return {'sizes': sizes, 'reps': reps, 'samples': {k: _median_sample(v) for k, v in runs.items()},
            'seconds': {k: [sample['seconds'] for sample in v] for k, v in runs.items()},
            'ratios': ratios}


# ---- rolling_update_rc ---------------------------------------------------------------------------

UPDATE_PERIOD = 0.05
POLL_INTERVAL = 0.05


def rolling_update(ctx, sizes):
    out = {}
    for n in sizes:
        name = f'rc-{n}'
        fx.create(ctx.api, fx.workload('ReplicationController', name, replicas=n))
        fx.wait_complete(ctx.api, [('ReplicationController', name)], timeout=300)
        ctx.log(f'scale: rolling_update_rc over {n} replicas')
        action = {MODULE + 'rolling_update_rc': {
            'name': name, 'namespace': fx.NAMESPACE, 'kubeconfig': ctx.kubeconfig,
            'image': fx.IMAGE.format('rc-2'), 'update_period': UPDATE_PERIOD, 'poll_interval': POLL_INTERVAL,
            'timeout': 600}}
        # Untimed: builds the module's payload (check mode only plans).
        run = ctx.playbook([task('warmup|rc', action, check_mode=True), task(f'rc|{n}', action)],
                           f'scale-rc-{n}')
        t = next(t for t in run.tasks if t.name == f'rc|{n}')
        out[str(n)] = _sample(t)
    return {'sizes': sizes, 'update_period': UPDATE_PERIOD, 'poll_interval': POLL_INTERVAL,
            'ready_delay': ctx.sim.ready_delay, 'samples': out}

"""Measurement 1: API requests per operation, counted from kubesim's request log.

Each tool gets its own copy of every workload (Deployment, StatefulSet, DaemonSet with two
revisions), so one tool's writes never change what another one sees. Per pass:

- kubeops.rollout: one playbook with every (verb, kind), each task's requests being the log lines
  between its start and its result;
- kubectl run directly, first with an empty `--cache-dir` per operation (fresh), then again with the
  cache that run left (warm), which is what a second run on an operator's machine sees;
- kubernetes.core the same way, its discovery cache (a file in $TMPDIR) empty, then warm.

Writes always change something: a new image tag per pass, pause before resume, undo alternating
between the last two revisions, restarts more than a second apart (kubectl refuses two in a second).
"""

import os
import time

from . import fixtures as fx
from .ansible_run import task
from .context import request_summary
from .ops import KINDS, VERBS, applies, core_task, kubectl_args, kubeops_task

TOOLS = ('kubeops', 'kubectl', 'kubernetes.core')
SHORT = {'kubeops': 'ours', 'kubectl': 'kctl', 'kubernetes.core': 'core'}
BASE = {'Deployment': 'web', 'StatefulSet': 'db', 'DaemonSet': 'agent'}


def name(kind, tool):
    return f'{BASE[kind]}-{SHORT[tool]}'


def operations():
    return [(verb, kind) for kind in KINDS for verb in VERBS if applies(verb, kind)]


def _record(results, tool, cache, verb, kind, ok, requests, error=''):
    entry = request_summary(requests)
    entry.update(ok=ok, error=error[:500])
    results.setdefault(f'{tool}|{cache}|{verb}|{kind}', []).append(entry)


def namespace(tool):
    return fx.CORE_NAMESPACE if tool == 'kubernetes.core' else fx.NAMESPACE


def _settle(ctx, tool):
    fx.wait_complete(ctx.api, [(kind, name(kind, tool)) for kind in KINDS], ns=namespace(tool))


def _restart_spacing(last_restart):
    # Restart stamps have one-second precision: keep two restarts of a workload apart.
    wait = 1.1 - (time.monotonic() - last_restart)
    if wait > 0:
        time.sleep(wait)


def run(ctx, passes):
    ops = operations()
    for tool in TOOLS:
        fx.with_two_revisions(ctx.api, [(kind, name(kind, tool)) for kind in KINDS], ns=namespace(tool))
    results = {}
    step = 0
    for p in range(passes):
        ctx.log(f'requests: pass {p + 1}/{passes}')
        # kubeops.rollout: no cache of any kind, so one run per pass.
        step += 1
        tasks = [task(f'req|{verb}|{kind}', kubeops_task(verb, kind, name(kind, 'kubeops'), ctx.kubeconfig,
                                                          step=step)) for verb, kind in ops]
        tasks = [dict(t, ignore_errors=True) for t in tasks]
        run_ = ctx.playbook(tasks, 'requests-kubeops')
        by_name = {t.name: t for t in run_.tasks}
        for verb, kind in ops:
            t = by_name.get(f'req|{verb}|{kind}')
            ok = t is not None and t.status == 'ok'
            _record(results, 'kubeops', '-', verb, kind, ok, t.requests if t else [],
                    t.msg if t else 'task did not run')
        _settle(ctx, 'kubeops')

        # kubectl: every operation fresh, then every operation again with its warm cache.
        last_restart = {}
        for cache in ('fresh', 'warm'):
            step += 1
            for verb, kind in ops:
                target = name(kind, 'kubectl')
                cache_dir = os.path.join(ctx.workdir, 'kubectl-cache', f'{verb}-{kind}')
                if cache == 'fresh':
                    cache_dir = ctx.fresh_dir('kubectl-cache', f'{verb}-{kind}')
                if verb == 'restart':
                    _restart_spacing(last_restart.get(target, 0))
                res = ctx.kubectl(kubectl_args(verb, kind, target, step=step), cache_dir)
                if verb == 'restart':
                    last_restart[target] = time.monotonic()
                _record(results, 'kubectl', cache, verb, kind, res.returncode == 0, res.requests, res.stderr)
            _settle(ctx, 'kubectl')

        # kubernetes.core: its discovery cache lives in $TMPDIR, one directory per operation.
        for cache in ('fresh', 'warm'):
            step += 1
            tasks = []
            for verb, kind in ops:
                action = core_task(verb, kind, name(kind, 'kubernetes.core'), ctx.kubeconfig, step=step)
                if action is None:
                    continue
                parts = ('core-tmp', f'{verb}-{kind}')
                tmp = ctx.fresh_dir(*parts) if cache == 'fresh' else os.path.join(ctx.workdir, *parts)
                tasks.append(task(f'req|{verb}|{kind}', action, environment={'TMPDIR': tmp},
                                  ignore_errors=True))
            run_ = ctx.playbook(tasks, f'requests-core-{cache}')
            by_name = {t.name: t for t in run_.tasks}
            for verb, kind in ops:
                t = by_name.get(f'req|{verb}|{kind}')
                if t is None:
                    continue
                _record(results, 'kubernetes.core', cache, verb, kind, t.status == 'ok', t.requests, t.msg)
            _settle(ctx, 'kubernetes.core')
    return {'operations': [list(op) for op in ops], 'passes': passes, 'results': results}

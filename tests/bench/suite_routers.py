"""Measurement 7: one traffic step on each router, side by side in one run.

One kubesim (in this process, so that its stand-in data planes can be asked what they serve) with
every router's stand-in (tests/support/routers: the same cases as the table-driven suite), one app
per router in a namespace of its own, a stable Deployment of 4 replicas and a canary of 1, Ready
``READY`` seconds after creation. Per repetition and router, one `ansible-playbook` run of
`kubeops.rollout.rollout_traffic` moves the canary's weight (25, then back to 0 on the next
repetition, so every step writes). What is kept:

- ``task``: the task's time (the bench_timer callback);
- ``served``: from the task's start to the stand-in data plane serving the new share (the first entry
  of its shares log at or after the start with the canary's new share);
- the task's requests (kubesim's request log between the task's start and its result): how many,
  how many writes and watches, and that none is a sub-second poll (no two identical GETs of the route
  within a second).
"""

import time

from tests.integration.conftest import Kube
from tests.kubesim import KubeSim
from tests.support.routers import CASES
from tests.support.traffic import NEW, deployment

from . import ansible_run
from .context import request_summary

READY = 0.05
APP = 'web'


def _namespace(case):
    return 'r-' + case.router.replace('_', '-')


def _options():
    out = {}
    for case in CASES:
        out.update(case.sim_options)
    return out


def _step(case, ns, weight):
    args = dict(case.traffic(APP), weight=weight, timeout=60, namespace=ns)
    return ansible_run.task(case.router, {'kubeops.rollout.rollout_traffic': args})


def _polls(requests):
    """Identical GETs less than a second apart (a sub-second poll): their count."""
    last, count = {}, 0
    for r in requests:
        if r['method'] != 'GET' or 'watch=' in (r.get('query') or ''):
            continue
        key = (r['path'], r.get('query'))
        if key in last and r['time'] - last[key] < 1.0:
            count += 1
        last[key] = r['time']
    return count


def run(ctx, reps):
    log = ctx.path('routers', 'requests.jsonl')
    sim = KubeSim(ready_delay=READY, request_log=log, **_options()).start()
    try:
        sim.kubeconfig = sim.write_kubeconfig(ctx.path('routers', 'kubeconfig'))
        kube = Kube(sim.kubeconfig)
        for case in CASES:
            ns = _namespace(case)
            kube.request('POST', '/api/v1/namespaces', {'metadata': {'name': ns}})
            kube.create(deployment(APP, 'stable', 4, ns=ns))
            kube.create(deployment(APP + '-canary', 'canary', 1, NEW, ns=ns))
            case.build(kube, ns, APP)
        for case in CASES:
            for name in (APP, APP + '-canary'):
                kube.rolled_out('Deployment', name, ns=_namespace(case))
        # The data planes' clock against this process's monotonic clock (the tasks' times).
        skew = sim.clock() - time.monotonic()
        samples = {case.router: [] for case in CASES}
        for r in range(reps):
            weight = 25 if r % 2 == 0 else 0
            for case in CASES:
                ns = _namespace(case)
                run_ = ansible_run.run_playbook(
                    [ansible_run.play([_step(case, ns, weight)], name='route-%s' % case.router)],
                    ctx.path('routers', 'playbooks'), '%s-%d' % (case.router, r), request_log=log,
                    extra_env={'K8S_AUTH_KUBECONFIG': sim.kubeconfig})
                (t,) = run_.tasks
                deadline = time.monotonic() + 10
                served = None
                while served is None and time.monotonic() < deadline:
                    for at, _g, shares in sim.route_traffic(ns, APP, kind=case.kind):
                        share = case.canary_share(shares, APP) if shares else None
                        if at - skew >= t.start and share == weight / 100.0:
                            served = at - skew - t.start
                            break
                    else:
                        time.sleep(0.01)
                entry = request_summary(t.requests or [])
                entry.update(task=t.seconds, served=served, ok=t.status == 'ok', msg=(t.msg or '')[:300],
                             polls=_polls(t.requests or []),
                             watches=sum(1 for q in t.requests or [] if 'watch=' in (q.get('query') or '')))
                entry.pop('paths')
                samples[case.router].append(entry)
            ctx.log('routers: repetition %d/%d done' % (r + 1, reps))
        return {'reps': reps, 'ready_delay': READY, 'samples': samples}
    finally:
        sim.stop()

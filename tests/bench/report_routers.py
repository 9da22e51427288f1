"""The routers suite (suite_routers.py) in docs/benchmarks.md: one table, one target per router."""

from .stats import summary

# A step, from the task's start to the data plane serving the new share, within this many seconds.
SERVED_SECONDS = 3.0
# Requests of one step (reads, the guarded write, the lists the waits watch), at most.
STEP_REQUESTS = 16


def _med(values):
    s = summary([v for v in values if v is not None])
    return None if s is None else s['median']


def _fmt(x, digits=2):
    return '-' if x is None else f'{x:.{digits}f}'


def rows(results):
    suite = results['suites'].get('routers')
    if not suite:
        return []
    out = []
    for router, samples in suite['samples'].items():
        ok = [e for e in samples if e['ok']]
        out.append({'router': router, 'ok': len(ok) == len(samples) and bool(samples),
                    'task': _med([e['task'] for e in ok]), 'served': _med([e['served'] for e in ok]),
                    'requests': _med([e['count'] for e in ok]), 'writes': _med([e['writes'] for e in ok]),
                    'watches': _med([e['watches'] for e in ok]),
                    'polls': max([e['polls'] for e in samples] or [0]),
                    'failures': [e['msg'] for e in samples if not e['ok']]})
    return out


def section(results, add, table):
    suite = results['suites'].get('routers')
    if not suite:
        return
    add('## 7. One traffic step on each router\n')
    add(f'One kubesim with every router\'s stand-in (the table-driven suite\'s cases), one app per router: '
        f'a stable Deployment of 4 replicas and a canary of 1, pods Ready {suite["ready_delay"]} s after '
        f'creation. {suite["reps"]} repetitions; each runs one `kubeops.rollout.rollout_traffic` task per '
        'router moving the canary\'s weight (25, then 0). **served**: from the task\'s start to the '
        'stand-in data plane serving the new share (its own log of shares); **task**: the task\'s time; '
        'the requests are the task\'s, from kubesim\'s request log (**polls**: identical GETs less than a '
        'second apart). The task includes the wait of `settle_seconds` after the write where the '
        'router\'s data plane cannot be observed: the VirtualService\'s default, 1 s; the OpenShift '
        'case sets 0.3 s (its router\'s default is 5 s, HAProxy\'s reload), its stand-in serving 0.05 s '
        'after it admits a change.\n')
    body = [[r['router'], _fmt(r['task']), _fmt(r['served']), _fmt(r['requests'], 0), _fmt(r['writes'], 0),
             _fmt(r['watches'], 0), r['polls'],
             'ok' if r['ok'] else 'failed: ' + '; '.join(r['failures'])[:120]] for r in rows(results)]
    add(table(['router', 'task (s)', 'served (s)', 'requests', 'writes', 'watches', 'polls', 'result'], body))
    add('')


def targets(results):
    out = []
    for r in rows(results):
        out.append({'target': f'routers: a {r["router"]} step served <= {SERVED_SECONDS:g} s from the '
                              f'task\'s start, <= {STEP_REQUESTS} requests, no sub-second poll',
                    'measured': f'{_fmt(r["served"])} s (task {_fmt(r["task"])} s), {_fmt(r["requests"], 0)} '
                                f'requests ({_fmt(r["watches"], 0)} WATCH), {r["polls"]} polls',
                    'ok': (r['ok'] and r['served'] is not None and r['served'] <= SERVED_SECONDS
                           and r['requests'] <= STEP_REQUESTS and r['polls'] == 0)})
    return out

"""The fleet-atomic suite (suite_fleet.py) in docs/benchmarks.md: the fleet as one transaction against
10 parallel kubectl shells, and the put-back of the whole fleet against the release."""

from .stats import summary


def _med(values):
    s = summary([v for v in values if v is not None])
    return None if s is None else s['median']


def _fmt(x, digits=1):
    return '-' if x is None else f'{x:.{digits}f}'


def figures(results):
    suite = results['suites'].get('fleet_atomic')
    if not suite:
        return None
    s = suite['samples']
    ok = {k: [e for e in v if e['ok']] for k, v in s.items()}
    return {
        'fleet': _med([e['seconds'] for e in ok['fleet']]),
        'fleet_waves': _med([e['release'] for e in ok['fleet']]),
        'fleet_finish': _med([e['finish'] for e in ok['fleet']]),
        'kubectl': _med([e['seconds'] for e in ok['kubectl']]),
        'failed_run': _med([e['seconds'] for e in ok['put_back']]),
        'release': _med([e['release'] for e in ok['put_back']]),
        'put_back': _med([e['put_back'] for e in ok['put_back']]),
        'failures': [f'{k}: {e["msg"][:120]}' for k, v in s.items() for e in v if not e['ok']],
        'counts': {k: f'{len(ok[k])}/{len(v)}' for k, v in s.items()},
    }


def section(results, add, table):
    suite = results['suites'].get('fleet_atomic')
    f = figures(results)
    if not f:
        return
    add('## 8. A fleet release as one transaction\n')
    add(f'{suite["clusters"]} kubesims (each --nodes 1), each with {suite["workloads"]} Deployments of '
        f'{suite["replicas"]} replica(s), pods Ready {suite["ready_delay"]} s after creation; '
        f'{suite["reps"]} repetitions, a new image each. **fleet_atomic**: `playbooks/fleet.yml -e '
        f'fleet_atomic=true`, waves {suite["waves"]}, forks {suite["clusters"]} (the inspection, the waves '
        'of rollout_release keeping their records, the commit and the finish, the summary): '
        'ansible-playbook\'s wall time, and its waves\' part. **kubectl**: one shell per cluster, all at '
        'once, `kubectl set image` of the cluster\'s Deployments then `kubectl rollout status` of each '
        '(no waves, no records, nothing to put back with). **put-back**: the fleet with an image one '
        'cluster of the last wave rejects: the release (its failure detection included) against the '
        'put-back of every cluster it changed, last wave first.\n')
    body = [
        ['fleet_atomic (whole run)', _fmt(f['fleet']), f['counts']['fleet']],
        ['fleet_atomic: the waves', _fmt(f['fleet_waves']), ''],
        ['fleet_atomic: commit + finish', _fmt(f['fleet_finish']), ''],
        ['10 kubectl shells (no waves)', _fmt(f['kubectl']), f['counts']['kubectl']],
        ['failed fleet (whole run)', _fmt(f['failed_run']), f['counts']['put_back']],
        ['failed fleet: the release', _fmt(f['release']), ''],
        ['failed fleet: the put-back', _fmt(f['put_back']), ''],
    ]
    add(table(['run', 'seconds (median)', 'ok'], body))
    if f['failures']:
        add('\nFailed repetitions: ' + '; '.join(f['failures']))
    add('')


def targets(results):
    f = figures(results)
    if not f:
        return []
    return [{'target': 'fleet-atomic: the put-back of the whole fleet after a last-wave failure takes no '
                       'longer than the release did',
             'measured': f'put-back {_fmt(f["put_back"])} s, release {_fmt(f["release"])} s (fleet_atomic '
                         f'{_fmt(f["fleet"])} s, 10 kubectl shells {_fmt(f["kubectl"])} s)',
             'ok': None if f['put_back'] is None or f['release'] is None else f['put_back'] <= f['release']}]

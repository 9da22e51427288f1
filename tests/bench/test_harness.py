"""The benchmark's pure parts: request classification, statistics, target verdicts, the document."""

import sys

import pytest

from tests.bench import memory, report, suite_release_scale, suite_scale
from tests.bench.kube import describe, is_discovery
from tests.bench.stats import quantile, summary

pytestmark = pytest.mark.unit


@pytest.mark.parametrize('path', ['/api', '/api/v1', '/apis', '/apis/apps', '/apis/apps/v1', '/version',
                                  '/openapi/v2', '/openapi/v3/apis/apps/v1'])
def test_discovery_paths(path):
    assert is_discovery(path)


@pytest.mark.parametrize('path', ['/api/v1/namespaces', '/api/v1/namespaces/bench/pods',
                                  '/apis/apps/v1/deployments',
                                  '/apis/apps/v1/namespaces/bench/deployments/web'])
def test_resource_paths_are_not_discovery(path):
    assert not is_discovery(path)


@pytest.mark.parametrize('method,path,query,label', [
    ('GET', '/apis/apps/v1/namespaces/bench/deployments/web', '', 'GET'),
    ('GET', '/apis/apps/v1/namespaces/bench/replicasets', 'labelSelector=app%3Dweb', 'LIST'),
    ('GET', '/api/v1/namespaces/bench/pods', 'watch=true&resourceVersion=5', 'WATCH'),
    ('GET', '/apis/apps/v1/deployments', '', 'LIST'),
    ('GET', '/api/v1/namespaces/bench', '', 'GET'),
    ('PATCH', '/apis/apps/v1/namespaces/bench/deployments/web', '', 'PATCH'),
    ('GET', '/apis', '', 'discovery'),
])
def test_describe(method, path, query, label):
    assert describe({'method': method, 'path': path, 'query': query}) == label


def test_quantiles_and_summary():
    assert quantile([1, 2, 3, 4], 0.5) == 2.5
    assert quantile([5], 0.25) == 5
    s = summary([3, 1, 2, None])
    assert (s['median'], s['min'], s['max'], s['n']) == (2, 1, 3, 3)
    assert summary([None]) is None


def _entry(count, discovery=0, ok=True, sequence=None):
    return {'count': count, 'discovery': discovery, 'writes': 0, 'ok': ok, 'error': '',
            'sequence': sequence or ['GET'] * count, 'paths': []}


def _results(ours_history, kubectl_history, controller, module, command, core=0.9, debug=0.05):
    res = {'kubeops|-|history|Deployment': [_entry(ours_history)],
           'kubectl|fresh|history|Deployment': [_entry(kubectl_history + 4, discovery=4)],
           'kubectl|warm|history|Deployment': [_entry(kubectl_history)]}
    samples = {'history|ping': [0.3], 'history|debug': [debug]}
    for verb in report.LAT_VERBS:
        samples.update({f'{verb}|controller': [controller], f'{verb}|module': [module],
                        f'{verb}|command': [command], f'{verb}|kubernetes.core': [core]})
    return {'suites': {'requests': {'operations': [['history', 'Deployment']], 'passes': 1, 'results': res},
                       'latency': {'kind': 'Deployment', 'reps': 1, 'rounds': 1, 'samples': samples,
                                   'failures': [], 'calibration': {}}},
            'machine': {'cores': 2, 'cpu': 'x', 'os': 'Linux', 'python': '3.11', 'ansible_core': '2.19',
                        'kubectl': '1.37', 'kubernetes_core': '6.2.0', 'kubesim_version': 'v1.31.0'},
            'date': 'today', 'mode': 'quick', 'ready_delay': 0.05,
            'loadavg_start': [0.1], 'loadavg_end': [0.2],
            'seconds': 1.0, 'durations': {}}


CTL_CMD = 'latency: controller path <= 0.25× `command: kubectl`'
CTL_DEBUG = 'latency: controller path <= 3× a `debug` task'
MODULE = 'latency: module path unchanged or better (÷ `command: kubectl`, median over operations)'


def test_targets_pass_when_fewer_requests_and_faster():
    verdicts = report.targets(_results(2, 3, controller=0.1, module=0.4, command=0.45))
    assert [v['target'] for v in verdicts][2:] == [CTL_CMD, CTL_DEBUG, MODULE]
    assert [v['ok'] for v in verdicts] == [True, True, True, True, True]


def test_targets_miss_when_more_requests_or_slower():
    verdicts = report.targets(_results(4, 3, controller=0.2, module=0.5, command=0.45))
    by_target = {v['target']: v for v in verdicts}
    assert by_target['requests: every module <= kubectl (warm cache) for the same operation']['ok'] is False
    assert by_target[CTL_CMD]['ok'] is False
    assert '0.44×' in by_target[CTL_CMD]['measured']
    assert by_target[CTL_DEBUG]['ok'] is False
    assert '4.00×' in by_target[CTL_DEBUG]['measured']
    assert by_target[MODULE]['ok'] is False
    assert '1.11× (before the controller path: 1.04×)' in by_target[MODULE]['measured']


def test_controller_target_uses_the_debug_floor():
    # 0.14 s is within 0.25× of command (0.6 s) but over 3× debug (0.04 s).
    by_target = {v['target']: v for v in report.targets(_results(2, 3, 0.14, 0.6, 0.6, debug=0.04))}
    assert by_target[CTL_CMD]['ok'] is True
    assert by_target[CTL_DEBUG]['ok'] is False


def test_latency_target_not_met_when_an_operation_has_no_data():
    results = _results(2, 3, controller=0.1, module=0.4, command=0.45)
    del results['suites']['latency']['samples']['undo|controller']
    by_target = {v['target']: v for v in report.targets(results)}
    verdict = by_target[CTL_CMD]
    assert verdict['ok'] is False
    assert 'no data: undo' in verdict['measured']


def test_document_reports_misses_with_ratios():
    text = report.document(_results(4, 3, controller=0.2, module=0.5, command=0.45), 'chart.png')
    assert '| history | Deployment | 4 | 7 [4] | 3 | failed | failed | 1.33× |' in text
    assert '**miss**' in text
    assert '![per-task latency](chart.png)' in text
    assert '| history | 0.200 (0.200–0.200) | 0.500 (0.500–0.500) | 0.450 (0.450–0.450) |' in text


# ---- the release at scale ------------------------------------------------------------------------

DEPLOYMENTS = '/apis/apps/v1/namespaces/bench/deployments'


def _req(method, path, query='', t=0.0, dry_run=False, user='kubesim-admin'):
    return {'method': method, 'path': path, 'query': query, 'time': t, 'dry_run': dry_run, 'user': user}


def _release_requests(names, t0=100.0):
    """One release's requests: preflight (GET, dry run), writes, a watch and a probe per workload."""
    out = []
    for i, n in enumerate(names):
        out += [_req('GET', f'{DEPLOYMENTS}/{n}', t=t0 + i),
                _req('PATCH', f'{DEPLOYMENTS}/{n}', t=t0 + i + 0.5, dry_run=True)]
    for i, n in enumerate(names):
        out.append(_req('PATCH', f'{DEPLOYMENTS}/{n}', t=t0 + 10 + i))
    for n in names:
        out += [_req('GET', DEPLOYMENTS, f'watch=true&fieldSelector=metadata.name%3D{n}', t=t0 + 20),
                _req('GET', '/apis/apps/v1/namespaces/bench/replicasets', 'labelSelector=app%3Dx', t=t0 + 25),
                _req('GET', '/api/v1/namespaces/bench/events', 'fieldSelector=type%3DWarning', t=t0 + 25)]
    return out


def test_scale_requests_per_workload_by_verb():
    names = ['a', 'b']
    got = suite_release_scale.per_workload(_release_requests(names), len(names))
    assert got['verbs'] == {'GET': 1.0, 'LIST': 2.0, 'PATCH': 2.0, 'WATCH': 1.0}
    assert got['per_workload'] == 5.0  # every request but the watches
    assert got['watches_per_workload'] == 1.0
    assert got['dry_runs'] == 1.0
    assert got['lists'] == {'events': 1.0, 'replicasets': 1.0}


def test_scale_observer_requests_are_left_out():
    reqs = [_req('GET', DEPLOYMENTS, 'watch=true', user='kubesim-viewer'), _req('GET', f'{DEPLOYMENTS}/a')]
    assert suite_release_scale.measured(reqs) == reqs[1:]


def test_scale_phases_from_log_and_completions():
    names = ['a', 'b']
    offset = 1000.0  # wall clock - monotonic
    start = 99.0 - offset + 1  # the side started 1 s before its first request (wall 100)
    reqs = _release_requests(names)
    completions = {'a': 140.0 - offset, 'b': 145.0 - offset}
    got = suite_release_scale.phases(reqs, start, offset, completions, end=146.0 - offset, count=2)
    assert got['first_request'] == pytest.approx(0.0)
    assert got['last_dry_run'] == pytest.approx(1.5)
    assert (got['first_write'], got['last_write']) == (pytest.approx(10.0), pytest.approx(11.0))
    assert (got['first_complete'], got['last_complete']) == (pytest.approx(40.0), pytest.approx(45.0))
    assert got['end'] == pytest.approx(46.0)
    # Each workload's own rollout: a written at 110, complete at 140; b 111 -> 145.
    assert got['rollout_median'] == pytest.approx(34.0)
    assert got['rollout_max'] == pytest.approx(34.0)
    assert got['complete'] == 2


def test_scale_phases_without_every_completion():
    got = suite_release_scale.phases(_release_requests(['a', 'b']), 0.0, 0.0, {'a': 150.0, 'b': None},
                                     end=160.0, count=2)
    assert got['last_complete'] is None
    assert got['complete'] == 1


def _deployment(name, image, generation=2, observed=2, updated=2, available=2, replicas=2):
    return {'metadata': {'name': name, 'generation': generation},
            'spec': {'replicas': 2, 'template': {'spec': {'containers': [{'name': 'web', 'image': image}]}}},
            'status': {'observedGeneration': observed, 'updatedReplicas': updated,
                       'availableReplicas': available, 'replicas': replicas}}


def test_scale_completions_need_the_new_template_complete():
    clock = iter([1.0, 2.0, 3.0, 4.0])
    c = suite_release_scale.Completions(['a'], 'img:2', clock=lambda: next(clock))
    c.observe(_deployment('a', 'img:1'))  # complete, but the old template: not this rollout
    assert c.complete['a'] is None and c.seen['a'] is None
    c.observe(_deployment('a', 'img:2', observed=1))  # written, not yet observed by the controller
    assert (c.seen['a'], c.complete['a']) == (1.0, None)
    c.observe(_deployment('a', 'img:2', replicas=3))  # an old pod still there
    assert c.complete['a'] is None
    c.observe(_deployment('a', 'img:2'))
    assert c.complete['a'] == 3.0 and c.all_complete()
    c.observe(_deployment('a', 'img:2'))  # the first completion is kept
    c.observe(_deployment('other', 'img:2'))  # not one of ours
    assert c.complete == {'a': 3.0}


def test_scale_kubectl_shell_quotes_and_chains():
    shell = suite_release_scale.kubectl_shell('/venv/bin/kubectl', '/tmp/k config', '/c', 'web-1', 'r/w:2')
    assert shell.startswith("/venv/bin/kubectl --kubeconfig '/tmp/k config' --cache-dir /c -n bench "
                            'set image deployment/web-1 web=r/w:2 >/dev/null && /venv/bin/kubectl')
    assert 'rollout status deployment/web-1 --timeout=' in shell


def test_memory_tree_and_proc_parsing():
    assert memory.parse_ppid('42 (a b) c) S 7 42 42 0') == 7
    ppids = {1: 0, 10: 1, 11: 10, 12: 10, 13: 11, 20: 1}
    assert sorted(memory.descendants(10, ppids)) == [10, 11, 12, 13]
    assert memory.parse_rollup('55b0-7ffc ---p 0 00:00 0 [rollup]\nRss:   1684 kB\nPss:    188 kB\n'
                               'Pss_Dirty:  112 kB\n') == {'rss': 1684 * 1024, 'pss': 188 * 1024}


def test_memory_run_measures_a_child_tree(tmp_path):
    # A child that holds ~40 MB in a grandchild: wait4 sees the grandchild's peak through the child.
    grandchild = 'b = bytearray(40 << 20); b[::4096] = b"x" * len(b[::4096])'
    code = f'import subprocess, sys; subprocess.run([sys.executable, "-c", {grandchild!r}])'
    rc, seconds, mem = memory.run([sys.executable, '-c', code], str(tmp_path / 'out'), timeout=60,
                                  interval=0.01)
    assert rc == 0 and seconds > 0
    assert mem['maxrss_mb'] >= 40
    assert mem['samples'] >= 1


def _scale_sample(tool, seconds, per_workload, watches, mb=None, ok=True, lists=None):
    sample = {'seconds': seconds, 'ok': ok, 'msg': '' if ok else 'boom',
              'requests': {'per_workload': per_workload, 'watches_per_workload': watches,
                           'verbs': {'GET': 1.0, 'LIST': per_workload - 3, 'PATCH': 2.0, 'WATCH': watches},
                           'lists': lists or {}, 'dry_runs': 1.0, 'total': 0},
              'phases': {'first_request': 0.5, 'last_dry_run': 2.0, 'first_write': 2.1, 'last_write': 5.0,
                         'first_complete': 6.0, 'last_complete': seconds - 1, 'end': seconds,
                         'complete': 100, 'rollout_median': 30.0, 'rollout_max': 60.0},
              'cpu_seconds': 8.0 if tool == 'release' else 40.0, 'kubesim_cpu_seconds': 20.0, 'loadavg': 1.5}
    if tool == 'release':
        sample.update(wall=seconds + 3, memory={'maxrss_mb': mb, 'tree_pss_mb': mb - 5,
                                                'tree_rss_mb': mb * 2, 'processes': 2})
    else:
        sample.update(processes=200)
    return sample


def _scale_results(release_times, kubectl_times, per_workload=19.6, mb=90.0):
    results = _results(2, 3, controller=0.1, module=0.4, command=0.45)
    results['suites']['release_scale'] = {
        'reps': len(release_times), 'workloads': 100, 'replicas': 2, 'ready_delay': 0.2,
        'samples': {'release': [_scale_sample('release', t, per_workload, 10.8, mb,
                                              lists={'replicasets': 9.8, 'events': 9.8})
                                for t in release_times],
                    'kubectl': [_scale_sample('kubectl', t, 3.0, 1.0) for t in kubectl_times]}}
    return results


SCALE_TIME = ('release at scale: one rollout_release of 100 Deployments <= 1× 100 parallel shells of kubectl '
              'set image && rollout status')
SCALE_REQUESTS = ('release at scale: <= 3 requests per workload plus the watches and 10 for the release '
                  '(its Lease, its shared LISTs)')
SCALE_MEMORY = "release at scale: the controller's peak memory < 150 MB"


def test_scale_targets_use_per_repetition_ratios():
    # Medians 110 vs 100, but the ratio is taken within each repetition: 1.2, 0.9, 1.1.
    by_target = {v['target']: v for v in report.targets(_scale_results([120, 90, 110], [100, 100, 100]))}
    verdict = by_target[SCALE_TIME]
    assert verdict['ok'] is False
    assert 'median 1.10× (0.90×–1.20×, 3 repetitions)' in verdict['measured']
    assert by_target[SCALE_REQUESTS]['ok'] is False
    assert '19.6 per workload (GET 1.0, LIST 16.6, PATCH 2.0) + 10.8 WATCH; kubectl 3.0 + 1.0 WATCH' in \
        by_target[SCALE_REQUESTS]['measured']
    assert by_target[SCALE_MEMORY]['ok'] is True
    assert by_target[SCALE_MEMORY]['measured'].startswith('90 MB, the highest of 3 runs')


@pytest.mark.parametrize('per_workload, ok', [(3.1, True), (3.11, False)])
def test_the_request_budget_is_three_per_workload_and_ten_for_the_release(per_workload, ok):
    results = _scale_results([90, 90, 90], [100, 100, 100], per_workload)
    by_target = {v['target']: v for v in report.targets(results)}
    assert by_target[SCALE_REQUESTS]['ok'] is ok


def test_scale_targets_pass_and_a_failed_run_misses():
    results = _scale_results([90, 95, 80], [100, 100, 100], 3.0, 149)
    by_target = {v['target']: v for v in report.targets(results)}
    assert [by_target[t]['ok'] for t in (SCALE_TIME, SCALE_REQUESTS, SCALE_MEMORY)] == [True, True, True]
    results = _scale_results([90, 95, 80], [100, 100, 100], 3.0, 151)
    results['suites']['release_scale']['samples']['release'][1].update(ok=False, msg='boom')
    by_target = {v['target']: v for v in report.targets(results)}
    assert by_target[SCALE_TIME]['ok'] is False
    assert 'failed runs: boom' in by_target[SCALE_TIME]['measured']
    assert by_target[SCALE_MEMORY]['ok'] is False


def test_scale_document_section():
    text = report.document(_scale_results([120, 90, 110], [100, 100, 100]), 'chart.png')
    assert '## 5. A release at scale: one task against 100 kubectl shells' in text
    assert '| rollout_release (the task) | 110.0 (90.0–120.0) | 120.0, 90.0, 110.0 | 3/3 |' in text
    assert '| release / kubectl (the task) | 1.10× (0.90×–1.20×) | 1.20×, 0.90×, 1.10× |  |' in text
    assert '| release | 19.6 | 1.0 | 16.6 | 2.0 | 10.8 | – | 1.0 | events 9.8, replicasets 9.8 |' in text
    assert '| kubectl | 3.0 | 1.0 | 0.0 | 2.0 | 1.0 | – | 1.0 | – |' in text
    assert '| 90 | 85 | 180 | 2 |' in text
    assert '| last rollout complete on the server | 109.0 | 99.0 |' in text
    assert '| CPU seconds of the tool (ansible-playbook; the shells and kubectl) | 8.0 | 40.0 |' in text
    assert '| load average (1 min) at the start | 1.5 | 1.5 |' in text
    assert 'ansible-playbook used 8.0 CPU seconds, the 200 kubectl processes and their shells 40.0' in text
    assert 'early-stop probes\' reads' in text
    assert 'run again' not in text


def test_scale_document_notes_repetitions_run_again():
    results = _scale_results([120, 90, 110, 100], [100, 100, 100, 100])
    suite = results['suites']['release_scale']
    suite.update(reps=3, attempts=4)
    suite['samples']['kubectl'][0].update(ok=False, msg='TLS handshake timeout')
    text = report.document(results, 'chart.png')
    assert 'A side failed in 1 repetition(s), run again' in text
    assert '- failed kubectl run: TLS handshake timeout' in text
    # The failed repetition's pair is left out of the ratios.
    assert '| release / kubectl (the task) | 1.00× (0.90×–1.10×) | 0.90×, 1.10×, 1.00× |  |' in text


def test_scale_valid_pairs_and_rounded_differences():
    ok, bad = {'ok': True}, {'ok': False}
    assert suite_release_scale.valid_pairs({'release': [ok, ok, bad], 'kubectl': [bad, ok, ok]}) == 1
    assert report._diff(10.0, 10.04) == 0.0 and str(report._diff(10.0, 10.04)) == '0.0'
    assert report._diff(None, 1.0) is None


def test_scale_other_verbs_are_shown_per_workload():
    # A Lease shared by the 100 workloads: one POST and four PUTs.
    results = _scale_results([90], [100])
    release = results['suites']['release_scale']['samples']['release'][0]
    release['requests']['verbs'].update(POST=0.01, PUT=0.04)
    by_target = {v['target']: v for v in report.targets(results)}
    assert '(GET 1.0, LIST 16.6, PATCH 2.0, POST 0.01, PUT 0.04)' in by_target[SCALE_REQUESTS]['measured']
    text = report.document(results, 'chart.png')
    assert '| release | 19.6 | 1.0 | 16.6 | 2.0 | 10.8 | POST 0.01, PUT 0.04 | 1.0 |' in text


# ---- one task over many workloads -----------------------------------------------------------------

def test_fleet_ratio_is_the_median_of_the_repetitions_ratios():
    fleet = {'samples': {'restart|100|one': {'seconds': 0.5}, 'restart|100|loop': {'seconds': 5.0}},
             'ratios': {'restart|100': [0.14, 0.07, 0.09]}}
    r, words = report.fleet_ratio(fleet, 'restart', 100)
    assert r == 0.09
    assert words == ", the median of 3 repetitions' ratios (7.0%–14.0%)"


def test_fleet_ratio_of_one_run_is_its_own():
    fleet = {'samples': {'status|10|one': {'seconds': 0.5}, 'status|10|loop': {'seconds': 5.0}}}
    assert report.fleet_ratio(fleet, 'status', 10) == (0.1, '')
    assert report.fleet_ratio(dict(fleet, ratios={'status|10': [0.2]}), 'status', 10) == (0.2, '')


def test_the_fleet_cell_is_the_repetition_of_median_time():
    samples = [{'seconds': s, 'n': i} for i, s in enumerate([0.9, 0.4, 0.5])]
    assert suite_scale._median_sample(samples)['n'] == 2
    assert suite_scale._median_sample(samples[:2])['n'] == 1


# ---- the release role ------------------------------------------------------------------------------

def test_role_task_shares_are_medians_in_the_order_the_tasks_ran():
    runs = [{'ok': True, 'task_seconds': [['release', 0.05, 'ok'], ['role : Release the new images', s, 'ok'],
                                          ['role : canary', 0.03, 'skipped']]} for s in (0.6, 0.7, 0.5)]
    runs.append({'ok': False, 'task_seconds': [['release', 9.0, 'ok']]})
    assert report.role_task_shares(runs) == [('release', 'ok', 0.05),
                                             ('role : Release the new images', 'ok', 0.6),
                                             ('role : canary', 'skipped', 0.03)]
    assert report.role_task_shares([{'ok': True}]) == []


def test_a_new_run_keeps_the_hand_written_end_of_benchmarks_md(tmp_path, monkeypatch):
    monkeypatch.setattr(report, 'document', lambda results, png: '# Benchmarks\n\nnew figures\n')
    (tmp_path / 'benchmarks.md').write_text('# Benchmarks\n\nold figures\n\n' + report.KEPT_HEADING
                                            + '\n\nwritten by hand\n')
    report.write({'suites': {}}, str(tmp_path))
    text = (tmp_path / 'benchmarks.md').read_text()
    assert 'new figures' in text and 'old figures' not in text
    assert text.endswith(report.KEPT_HEADING + '\n\nwritten by hand\n')


def test_the_fleet_atomic_phases_and_its_target():
    from tests.bench import report_fleet, suite_fleet
    from tests.bench.ansible_run import TaskRun

    def t(name, start):
        return TaskRun(name=name, start=start, seconds=0.0)

    passed = [t('Inspect every cluster and plan the fleet release', 0.0), t(suite_fleet.RELEASE_TASK, 2.0),
              t(suite_fleet.RELEASE_TASK, 5.0), t(suite_fleet.COMMIT_TASK, 9.0),
              t(suite_fleet.SUMMARY_TASK, 10.5)]
    assert suite_fleet.phases(passed) == {'release': 7.0, 'put_back': None, 'finish': 1.5}
    failed = [t(suite_fleet.RELEASE_TASK, 1.0), t(suite_fleet.PUT_BACK_TASK, 13.0),
              t(suite_fleet.PUT_BACK_TASK, 15.0), t(suite_fleet.SUMMARY_TASK, 19.0)]
    assert suite_fleet.phases(failed) == {'release': 12.0, 'put_back': 6.0, 'finish': None}
    sample = {'seconds': 12.0, 'release': 7.0, 'put_back': None, 'finish': 1.5, 'ok': True, 'msg': ''}
    results = {'suites': {'fleet_atomic': {'samples': {
        'fleet': [sample], 'kubectl': [{'seconds': 10.0, 'ok': True, 'msg': ''}],
        'put_back': [dict(sample, seconds=20.0, release=12.0, put_back=6.0)]}}}}
    (target,) = report_fleet.targets(results)
    assert target['ok'] is True and target['measured'].startswith('put-back 6.0 s, release 12.0 s')

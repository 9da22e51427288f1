"""The benchmark's pure parts: request classification, statistics, target verdicts, the document."""

import pytest

from tests.bench import report
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

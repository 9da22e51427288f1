"""Analysis checks through the real components: a real Prometheus (the Debian package) scraping a
metrics endpoint the test controls, HTTP checks against a real local server, real ansible-playbook
and kubesim. One Prometheus serves the whole file (each test reads its own series)."""

import json
import re

import pytest

from ..conftest import Kube, include, read_log, task, workload
from ..metrics import MetricsServer, Prometheus, free_port, prometheus_binary

pytestmark = pytest.mark.integration

TOKEN = 's3cr3t-analysis-token-91f2'


@pytest.fixture(scope='module')
def stack(tmp_path_factory):
    metrics = MetricsServer()
    metrics.set('errors_ratio', 0, app='web')
    metrics.set('errors_ratio', 2.5, app='bad')
    metrics.set('http_requests_total', 7, app='web', code='500')
    prom = Prometheus(prometheus_binary(), metrics.port, tmp_path_factory.mktemp('prometheus'))
    try:
        prom.wait_for('errors_ratio')
        yield metrics, prom
    finally:
        prom.stop()
        metrics.stop()


@pytest.fixture
def check(stack):
    """``check(name, query, min=..., max=...)``: a check of the file's Prometheus."""
    _metrics, prom = stack

    def make(name, query, **bounds):
        return dict({'name': name, 'prometheus': {'url': prom.url, 'query': query}}, **bounds)

    return make


@pytest.fixture
def analysis_of():
    def make(*checks, **options):
        return dict({'interval': 1, 'checks': list(checks)}, **options)

    return make


def rolled_out(kubesim_factory, *names):
    sim = kubesim_factory(ready_delay=0.05)
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', n, image='app:1') for n in names])
    return sim, kube


def test_rollout_status_judges_by_prometheus_and_http_checks(
    kubesim_factory, play, stack, analysis_of, check
):
    metrics, prom = stack
    sim, _kube = rolled_out(kubesim_factory, 'web')
    smoke = {'name': 'smoke', 'http': {'url': metrics.url + '/healthz', 'body_regex': '^ok$'}}
    dead = f'http://127.0.0.1:{free_port()}/healthz'
    status = {'kind': 'Deployment', 'name': 'web', 'soak_seconds': 2}
    res = play(
        sim,
        [
            task(
                'good',
                'rollout_status',
                analysis=analysis_of(check('error-rate', 'errors_ratio{app="web"}', max=0.5), smoke),
                **status,
            ),
            task(
                'bad',
                'rollout_status',
                analysis=analysis_of(check('error-rate', 'errors_ratio{app="bad"}', max=0.5)),
                **status,
            ),
            task(
                'tolerated',
                'rollout_status',
                analysis=analysis_of(
                    check('error-rate', 'errors_ratio{app="bad"}', max=0.5), failure_limit=5
                ),
                **status,
            ),
            task(
                'unreachable',
                'rollout_status',
                analysis=analysis_of({'name': 'smoke', 'http': {'url': dead}}),
                **status,
            ),
            task(
                '404',
                'rollout_status',
                analysis=analysis_of({'name': 'smoke', 'http': {'url': metrics.url + '/nothing'}}),
                **status,
            ),
            task(
                'no data',
                'rollout_status',
                analysis=analysis_of(check('e', 'absent_metric_xyz', max=1)),
                **status,
            ),
            task(
                'no data passes',
                'rollout_status',
                analysis=analysis_of(check('e', 'absent_metric_xyz', max=1), inconclusive='pass'),
                **status,
            ),
            task('query error', 'rollout_status', analysis=analysis_of(check('e', 'sum(', max=1)), **status),
        ],
    )
    good = res.ok('good')
    result = good['analysis']
    assert result['passed'] is True and result['measured'] >= 2, result
    rate = result['checks'][0]
    assert rate['name'] == 'error-rate' and rate['failures'] == 0
    assert {m['outcome'] for m in rate['measurements']} == {'passed'}
    assert {m['value'] for m in rate['measurements']} == {0.0}
    assert result['checks'][1]['measurements'][0]['value'] == 200

    bad = res.failed('bad')
    bound = re.escape(
        'value 2.5 of errors_ratio{app="bad", instance="127.0.0.1:%d", job="app"} is out of bounds (max 0.5)'
        % metrics.port
    )
    assert re.search('analysis failed: check "error-rate": ' + bound, bad['msg']), bad['msg']
    assert bad['workloads'][0]['reason'] == 'AnalysisFailed'
    assert bad['analysis']['passed'] is False and bad['analysis']['measured'] == 1  # stops at once

    # failure_limit 5 over a 2 s soak measured each second: 3 failed measurements, tolerated.
    tolerated = res.ok('tolerated')['analysis']
    assert tolerated['passed'] is True and tolerated['checks'][0]['failures'] == tolerated['measured'] >= 2

    assert re.search(
        r'check "smoke": http://127\.0\.0\.1:\d+/healthz unreachable: .*refused',
        res.failed('unreachable')['msg'],
    )
    assert (
        'check "smoke": GET %s/nothing answered 404, expected 200' % metrics.url in res.failed('404')['msg']
    )
    assert 'check "e": the query returned no data' in res.failed('no data')['msg']
    assert res.ok('no data passes')['analysis']['checks'][0]['measurements'][0]['outcome'] == 'inconclusive'
    assert re.search(
        r'check "e": the query failed at http://127.0.0.1:\d+ \(400\): .*parse error',
        res.failed('query error')['msg'],
    )


def test_bad_analysis_options_are_refused_before_any_request(
    kubesim_factory, play, stack, analysis_of, check, tmp_path
):
    metrics, _prom = stack
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(request_log=log)
    before = [p for p, _a in metrics.requests if p != '/metrics']
    both = {
        'name': 'x',
        'http': {'url': metrics.url + '/healthz'},
        'prometheus': {'url': metrics.url, 'query': 'up'},
    }
    res = play(
        sim,
        [
            task('both', 'rollout_status', kind='Deployment', name='web', analysis=analysis_of(both)),
            task(
                'no bound',
                'rollout_status',
                kind='Deployment',
                name='web',
                analysis=analysis_of(check('e', 'up')),
            ),
            task(
                'release',
                'rollout_release',
                workloads=[{'kind': 'Deployment', 'name': 'web', 'images': {'app': 'app:2'}}],
                analysis=analysis_of({'name': 'x', 'http': {'url': 'ftp://host/'}}),
            ),
        ],
    )
    assert (
        'invalid analysis option: analysis check "x" needs exactly one of prometheus, http or job'
        in res.failed('both')['msg']
    )
    assert 'analysis check "e" needs min or max' in res.failed('no bound')['msg']
    assert "url must be an http:// or https:// URL, not 'ftp://host/'" in res.failed('release')['msg']
    assert [p for p, _a in metrics.requests if p != '/metrics'] == before
    assert read_log(log) == []


def test_credentials_reach_the_endpoint_and_never_the_output(kubesim_factory, play, analysis_of):
    server = MetricsServer(token=TOKEN)
    try:
        sim, _kube = rolled_out(kubesim_factory, 'web')
        url = server.url + '/healthz'
        res = play(
            sim,
            [
                task(
                    'with token',
                    'rollout_analysis',
                    analysis=analysis_of({'name': 'smoke', 'http': {'url': url, 'bearer_token': TOKEN}}),
                ),
                task(
                    'wrong token',
                    'rollout_analysis',
                    analysis=analysis_of(
                        {'name': 'smoke', 'http': {'url': url, 'bearer_token': 'not-' + TOKEN}}
                    ),
                ),
                task(
                    'in headers',
                    'rollout_status',
                    kind='Deployment',
                    name='web',
                    analysis=analysis_of(
                        {
                            'name': 'smoke',
                            'http': {'url': url, 'headers': {'Authorization': 'Bearer ' + TOKEN}},
                        }
                    ),
                ),
            ],
            extra_env={'ANSIBLE_VERBOSITY': '4'},
        )
        assert res.ok('with token')['analysis']['passed'] is True
        assert ('/healthz', 'Bearer ' + TOKEN) in server.requests
        assert 'answered 401, expected 200' in res.failed('wrong token')['msg']
        assert res.ok('in headers')['analysis']['passed'] is True
        assert TOKEN not in res.stdout + res.stderr
        assert TOKEN not in json.dumps(res.results)
    finally:
        server.stop()


def test_a_release_failing_its_analysis_is_put_back(kubesim_factory, play, analysis_of, check):
    sim, kube = rolled_out(kubesim_factory, 'web', 'api')
    images = [{'kind': 'Deployment', 'name': n, 'images': {'app': 'app:2'}} for n in ('web', 'api')]
    res = play(
        sim,
        [
            include(
                'rollout_upgrade',
                rollout_upgrade_workloads=images,
                rollout_upgrade_soak_seconds=2,
                rollout_upgrade_analysis=analysis_of(check('error-rate', 'errors_ratio{app="bad"}', max=0.5)),
            )
        ],
    )
    failure = res.failed('kubeops.rollout.rollout_upgrade : Release the new images')
    assert 'analysis failed: check "error-rate": value 2.5' in failure['msg']
    summary = failure['summary']
    assert [ln for ln in summary if ln.startswith('ROLLED BACK: Deployment default/web')], summary
    assert 'ROLLED BACK: Deployment default/web' in res.stdout
    for name in ('web', 'api'):
        assert kube.get('Deployment', name)['spec']['template']['spec']['containers'][0]['image'] == 'app:1'

    res = play(
        sim,
        [
            include(
                'rollout_upgrade',
                rollout_upgrade_workloads=images,
                rollout_upgrade_soak_seconds=1,
                rollout_upgrade_analysis=analysis_of(check('error-rate', 'errors_ratio{app="web"}', max=0.5)),
            )
        ],
    )
    summary = res.ok('kubeops.rollout.rollout_upgrade : Release the new images')['summary']
    assert [ln for ln in summary if ln.startswith('Upgraded: Deployment default/web')], summary
    assert res.ok('kubeops.rollout.rollout_upgrade : Release the new images')['analysis']['passed'] is True


def test_a_canary_judged_by_its_error_rate(kubesim_factory, play, stack, analysis_of, check):
    """docs/analysis.md's worked example: the canary is paused with its first new pods, judged by the
    error rate during the soak, and rolled back when the rate is over its bound."""
    sim, kube = rolled_out(kubesim_factory, 'web')
    kube.patch('Deployment', 'web', {'spec': {'replicas': 4}})
    kube.rolled_out('Deployment', 'web')
    canary = {
        'rollout_upgrade_canary': True,
        'rollout_upgrade_soak_seconds': 2,
        'rollout_upgrade_workloads': [{'kind': 'Deployment', 'name': 'web', 'images': {'app': 'app:2'}}],
    }
    res = play(
        sim,
        [
            include(
                'rollout_upgrade',
                **canary,
                rollout_upgrade_analysis=analysis_of(
                    check('error-rate', 'errors_ratio{app="bad"}', max=0.5), failure_limit=1
                ),
            )
        ],
    )
    failure = res.failed('kubeops.rollout.rollout_upgrade : Canary | fail the play')
    assert 'canary rejected at "Canary | judge the canary by the analysis checks"' in failure['msg'], failure[
        'msg'
    ]
    assert 'value 2.5 of errors_ratio{app="bad"' in failure['msg']
    assert '(2 failed measurements, failure_limit 1)' in failure['msg']
    web = kube.get('Deployment', 'web')
    assert web['spec']['template']['spec']['containers'][0]['image'] == 'app:1'
    assert not web['spec'].get('paused'), web['spec']
    aborted = res.ok('kubeops.rollout.rollout_upgrade : Canary | roll back')
    assert aborted['rolled_back'] == ['Deployment default/web'], aborted

    res = play(
        sim,
        [
            include(
                'rollout_upgrade',
                **canary,
                rollout_upgrade_analysis=analysis_of(check('error-rate', 'errors_ratio{app="web"}', max=0.5)),
            )
        ],
    )
    judged = res.ok('kubeops.rollout.rollout_upgrade : Canary | judge the canary by the analysis checks')
    assert judged['analysis']['passed'] is True and judged['analysis']['measured'] >= 2
    assert kube.get('Deployment', 'web')['spec']['template']['spec']['containers'][0]['image'] == 'app:2'

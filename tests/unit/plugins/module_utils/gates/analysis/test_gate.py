"""The analysis gate's judgement (pure): bounds, outcomes, failure limit, interval, inconclusive,
validation and secrets, with an opener that answers what each case needs; its defaults and the
``analysis`` option's spec built from them. The providers' requests are tested against a local
server beside this file (test_prometheus.py, test_http.py), one gate here with its default opener,
and against a real Prometheus in tests/integration/release/test_analysis_checks.py."""

import json

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.gates import analysis

pytestmark = pytest.mark.unit

PROM = {'url': 'http://prom:9090', 'query': 'errors'}


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def vector(*values, **labels):
    return (
        200,
        json.dumps(
            {
                'status': 'success',
                'data': {
                    'resultType': 'vector',
                    'result': [
                        {'metric': dict(labels, n=str(i)), 'value': [1, str(v)]} for i, v in enumerate(values)
                    ],
                },
            }
        ).encode(),
    )


class Opener:
    def __init__(self, *answers):
        self.answers = list(answers)
        self.calls = []

    def __call__(self, url, **kwargs):
        self.calls.append((url, kwargs))
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        return answer


def gate(checks, opener, clock=None, **options):
    return analysis.AnalysisGate(dict(options, checks=checks), clock=clock or Clock(), opener=opener)


def test_a_value_within_bounds_passes_and_one_above_fails_naming_check_value_and_bound():
    opener = Opener(vector(0.1), vector(2.5))
    g = gate([{'name': 'error-rate', 'prometheus': PROM, 'max': 0.5}], opener)
    assert g.measure() and not g.failed
    assert not g.measure() and g.failed
    assert g.message == (
        'analysis failed: check "error-rate": value 2.5 of {n="0"} is out of bounds (max 0.5) '
        '(1 failed measurement, failure_limit 0)'
    )
    url = opener.calls[0][0]
    assert url == 'http://prom:9090/api/v1/query?query=errors'
    result = g.result()
    assert result['passed'] is False and result['measured'] == 2
    assert [m['outcome'] for m in result['checks'][0]['measurements']] == ['passed', 'failed']
    assert result['checks'][0]['measurements'][1]['value'] == 2.5


def test_every_series_of_a_vector_must_be_within_bounds():
    g = gate([{'name': 'latency', 'prometheus': PROM, 'min': 1, 'max': 5}], Opener(vector(2, 0.5)))
    assert not g.measure()
    assert 'value 0.5 of {n="1"} is out of bounds (between 1 and 5)' in g.message


def test_failure_limit_tolerates_that_many_failed_measurements_of_one_check():
    g = gate(
        [{'name': 'e', 'prometheus': PROM, 'max': 1}],
        Opener(vector(2), vector(0), vector(3), vector(4)),
        failure_limit=2,
    )
    assert g.measure() and g.measure() and g.measure()
    assert not g.measure()
    assert '(3 failed measurements, failure_limit 2)' in g.message


def test_no_data_fails_by_default_and_passes_when_inconclusive_is_pass():
    empty = vector()
    nan = vector(float('nan'))
    for answer, why in ((empty, 'no data'), (nan, 'no data (NaN)')):
        g = gate([{'name': 'e', 'prometheus': PROM, 'max': 1}], Opener(answer))
        assert not g.measure()
        assert 'check "e": the query returned %s' % why in g.message
        g = gate([{'name': 'e', 'prometheus': PROM, 'max': 1}], Opener(answer), inconclusive='pass')
        assert g.measure()
        assert g.result()['checks'][0]['measurements'][0]['outcome'] == 'inconclusive'


def test_query_errors_and_unreachable_endpoints_are_failed_measurements():
    bad = (
        400,
        json.dumps({'status': 'error', 'errorType': 'bad_data', 'error': 'parse error at char 3'}).encode(),
    )
    g = gate([{'name': 'e', 'prometheus': PROM, 'max': 1}], Opener(bad))
    assert (
        not g.measure() and 'the query failed at http://prom:9090 (400): parse error at char 3' in g.message
    )
    g = gate([{'name': 'e', 'prometheus': PROM, 'max': 1}], Opener(ConnectionRefusedError(111, 'refused')))
    assert not g.measure() and 'check "e": http://prom:9090 unreachable' in g.message
    g = gate([{'name': 'e', 'prometheus': PROM, 'max': 1}], Opener((200, b'<html>')))
    assert not g.measure() and 'answered 200 without a Prometheus result' in g.message


def test_scalar_results_are_values_and_matrices_are_refused():
    scalar = (
        200,
        json.dumps({'status': 'success', 'data': {'resultType': 'scalar', 'result': [1, '3']}}).encode(),
    )
    g = gate([{'name': 's', 'prometheus': PROM, 'min': 3}], Opener(scalar))
    assert g.measure()
    matrix = (200, json.dumps({'status': 'success', 'data': {'resultType': 'matrix', 'result': []}}).encode())
    g = gate([{'name': 's', 'prometheus': PROM, 'min': 3}], Opener(matrix))
    assert not g.measure() and 'answered a matrix, not a number or a vector' in g.message


def test_http_checks_judge_status_and_body():
    check = {
        'name': 'smoke',
        'http': {'url': 'https://web.example/healthz', 'status': [200, 204], 'body_regex': '^ok'},
    }
    assert gate([check], Opener((204, b'ok\n'))).measure()
    g = gate([check], Opener((503, b'down')))
    assert not g.measure()
    assert 'check "smoke": GET https://web.example/healthz answered 503, expected 200 or 204' in g.message
    g = gate([check], Opener((200, b'degraded')))
    assert not g.measure() and "does not match '^ok'" in g.message


def test_measurements_are_due_every_interval_and_run_measures_for_the_duration():
    clock = Clock()
    opener = Opener(vector(0))
    g = gate([{'name': 'e', 'prometheus': PROM, 'max': 1}], opener, clock=clock, interval=5)
    assert g.due()
    g.measure()
    clock.now += 4.9
    assert not g.due()
    clock.now += 0.1
    assert g.due()

    def sleep(seconds):
        clock.now += seconds

    g = gate([{'name': 'e', 'prometheus': PROM, 'max': 1}], Opener(vector(0)), clock=clock, interval=5)
    assert g.run(12, sleep=sleep)
    assert g.measurements == 3  # at 0, 5 and 10 of 12 seconds
    g = gate(
        [{'name': 'e', 'prometheus': PROM, 'max': 1}], Opener(vector(0), vector(9)), clock=clock, interval=5
    )
    assert not g.run(60, sleep=sleep) and g.measurements == 2  # stops at the first failure


def test_credentials_are_sent_and_listed_as_secrets_and_never_in_results():
    check = {
        'name': 'e',
        'max': 1,
        'prometheus': dict(
            PROM, url='https://user:pw123@prom:9090', bearer_token='tok-secret', headers={'X-Key': 'hdr'}
        ),
    }
    opener = Opener(vector(0))
    g = gate([check], opener)
    assert sorted(g.secrets()) == ['hdr', 'pw123', 'tok-secret', 'user:pw123']
    g.measure()
    assert opener.calls[0][1]['headers'] == {'X-Key': 'hdr', 'Authorization': 'Bearer tok-secret'}
    text = json.dumps(g.result())
    assert 'tok-secret' not in text and 'pw123' not in text and 'hdr' not in text
    assert g.result()['checks'][0]['url'] == 'https://prom:9090'


@pytest.mark.parametrize(
    'options, message',
    [
        ({'checks': []}, 'analysis needs at least one check'),
        ({'checks': [{'name': 'a'}]}, 'needs exactly one of prometheus, http or job'),
        ({'checks': [{'name': 'a', 'prometheus': PROM}]}, 'needs min or max'),
        ({'checks': [{'name': 'a', 'prometheus': PROM, 'min': 2, 'max': 1}]}, 'min 2 is above max 1'),
        (
            {'checks': [{'name': 'a', 'http': {'url': 'ftp://x'}}]},
            "url must be an http:// or https:// URL, not 'ftp://x'",
        ),
        (
            {'checks': [{'name': 'a', 'http': {'url': 'http://x'}, 'max': 1}]},
            'an http check is judged by status',
        ),
        (
            {'checks': [{'name': 'a', 'http': {'url': 'http://x', 'body_regex': '('}}]},
            'body_regex is not a regular',
        ),
        ({'checks': [{'name': 'a', 'http': {'url': 'http://x'}}] * 2}, 'a given twice'),
        ({'interval': 0, 'checks': [{'name': 'a', 'http': {'url': 'http://x'}}]}, 'interval must be between'),
        # 1e-9 was accepted: 57 requests in 3 s.
        (
            {'interval': 1e-9, 'checks': [{'name': 'a', 'http': {'url': 'http://x'}}]},
            'analysis interval must be between 1 and 86400 seconds',
        ),
        (
            {'interval': 0.5, 'checks': [{'name': 'a', 'http': {'url': 'http://x'}}]},
            'analysis interval must be between 1 and 86400 seconds',
        ),
        (
            {'checks': [{'name': 'a', 'http': {'url': 'http://x', 'bearer_token': 'Zq7-token\n'}}]},
            'analysis check "a": bearer_token contains a line break',
        ),
        (
            {'interval': 1e30, 'checks': [{'name': 'a', 'http': {'url': 'http://x'}}]},
            'interval must be between',
        ),
        (
            {'failure_limit': -1, 'checks': [{'name': 'a', 'http': {'url': 'http://x'}}]},
            'failure_limit must be',
        ),
        ({'checks': [{'name': 'a', 'prometheus': PROM, 'max': float('inf')}]}, 'must be a finite number'),
        (
            {
                'checks': [
                    {'name': 'a', 'http': {'url': 'https://u:secretpw@x'}},
                    {'name': 'b', 'http': {'url': 'x'}},
                ]
            },
            "not 'x'",
        ),
    ],
)
def test_bad_options_are_refused_before_any_request(options, message):
    opener = Opener(vector(0))
    with pytest.raises(analysis.AnalysisError) as err:
        analysis.AnalysisGate(options, opener=opener)
    assert message in str(err.value)
    assert 'secretpw' not in str(err.value) and 'Zq7' not in str(err.value)
    assert not opener.calls


def test_left_out_options_take_the_gates_defaults_which_the_option_spec_declares():
    g = analysis.AnalysisGate({'checks': [{'name': 'a', 'http': {'url': 'http://x'}}]})
    assert (g.interval, g.failure_limit, g.inconclusive) == (5, 0, 'fail')
    spec = analysis.ANALYSIS_OPTIONS
    assert spec['interval']['default'] == analysis.AnalysisGate.DEFAULT_INTERVAL == g.interval
    assert spec['failure_limit']['default'] == analysis.AnalysisGate.DEFAULT_FAILURE_LIMIT == g.failure_limit
    assert spec['inconclusive']['default'] == analysis.AnalysisGate.DEFAULT_INCONCLUSIVE == g.inconclusive
    assert spec['inconclusive']['choices'] == list(analysis.AnalysisGate.INCONCLUSIVE_CHOICES)
    assert spec['checks']['options'] is analysis.registry.CHECK_OPTIONS
    assert analysis.ANALYSIS_ARG_SPEC['analysis'] == {'type': 'dict', 'options': spec}
    with pytest.raises(analysis.AnalysisError) as err:
        gate([{'name': 'a', 'http': {'url': 'http://x'}}], Opener(vector(0)), inconclusive='maybe')
    assert str(err.value) == "analysis inconclusive must be fail or pass, not 'maybe'"


def test_a_gate_measures_a_real_endpoint_with_its_default_opener(endpoint):
    endpoint.answer('/healthz', 200, 'ok')
    scalar = {'resultType': 'scalar', 'result': [1, '0']}
    endpoint.answer('/api/v1/query', 200, {'status': 'success', 'data': scalar})
    g = analysis.AnalysisGate({'checks': [
        {'name': 'smoke', 'http': {'url': endpoint.url + '/healthz', 'body_regex': '^ok$'}},
        {'name': 'errors', 'prometheus': {'url': endpoint.url, 'query': 'errors'}, 'max': 0},
    ]})
    assert g.run(0) and g.measurements == 1
    first = [(c['name'], c['measurements'][0]) for c in g.result()['checks']]
    assert [(name, m['outcome'], m['value']) for name, m in first] == [
        ('smoke', 'passed', 200),
        ('errors', 'passed', 0.0),
    ]


def test_the_shortest_interval_is_one_second():
    clock = Clock()

    def sleep(seconds):
        clock.now += seconds

    opener = Opener(vector(0))
    g = gate([{'name': 'e', 'prometheus': PROM, 'max': 1}], opener, clock=clock, interval=1)
    assert g.interval == analysis.AnalysisGate.MIN_INTERVAL == 1
    assert g.run(3, sleep=sleep) and len(opener.calls) == 4  # at 0, 1, 2 and 3 s


def test_probe_returns_the_checks_that_cannot_be_measured_and_counts_nothing():
    answers = {
        'http://prom:9090/api/v1/query?query=ok': vector(9),  # out of bounds: a measurement
        'http://prom:9090/api/v1/query?query=empty': vector(),  # no data: a measurement
        'http://prom:9090/api/v1/query?query=sum%28': (
            400, json.dumps({'status': 'error', 'errorType': 'bad_data', 'error': 'parse error'}).encode()),
        'http://prom:9090/api/v1/query?query=range': (
            200, json.dumps({'status': 'success', 'data': {'resultType': 'matrix', 'result': []}}).encode()),
        'http://prom:9090/api/v1/query?query=down': (500, b'{"status": "success"}'),
        'http://web/404': (404, b'nothing here'),  # an answer: a measurement
        'http://web/closed': ConnectionRefusedError(111, 'Connection refused'),
    }

    def opener(url, **_kwargs):
        answer = answers[url]
        if isinstance(answer, Exception):
            raise answer
        return answer

    def prom(name, query):
        return {'name': name, 'prometheus': dict(PROM, query=query, bearer_token='tok-Zq7'), 'max': 1}

    clock = Clock()
    g = gate([
        prom('ok', 'ok'), prom('empty', 'empty'), prom('syntax', 'sum('), prom('range', 'range'),
        prom('down', 'down'), {'name': 'web', 'http': {'url': 'http://web/404'}},
        {'name': 'closed', 'http': {'url': 'http://web/closed'}},
    ], opener, clock=clock)
    assert g.probe() == [
        'check "syntax": the query failed at http://prom:9090 (400): parse error',
        'check "range": http://prom:9090 answered a matrix, not a number or a vector',
        'check "down": the query failed at http://prom:9090 (500): an HTTP error status, whatever the body '
        'says',
        'check "closed": http://web/closed unreachable: [Errno 111] Connection refused',
    ]
    assert (g.measurements, g.last, g.failed, g.message) == (0, None, False, None)
    assert g.failures == {c.name: 0 for c in g.checks} and all(h == [] for h in g.history.values())
    assert g.due()
    g = gate([prom('ok', 'ok'), {'name': 'web', 'http': {'url': 'http://web/404'}}], opener)
    assert g.probe() == []


def test_probe_finds_an_unreachable_endpoint_at_once(endpoint):
    # Item 4: http://127.0.0.1:1 was found only after the whole rollout.
    endpoint.answer('/healthz', 200, 'ok')
    g = analysis.AnalysisGate({'checks': [
        {'name': 'smoke', 'http': {'url': endpoint.url + '/healthz', 'body_regex': '^ok$'}},
        {'name': 'dead', 'http': {'url': 'http://127.0.0.1:1/healthz', 'timeout': 2}},
    ]})
    problems = g.probe()
    assert len(problems) == 1
    assert problems[0].startswith('check "dead": http://127.0.0.1:1/healthz unreachable: ')
    assert 'refused' in problems[0]
    assert g.measurements == 0 and g.run(0) is False and g.measurements == 1


def test_an_inconclusive_measurement_that_always_counts_fails_even_where_inconclusive_passes():
    from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.provider import (
        INCONCLUSIVE,
        Measurement,
    )

    gate = analysis.AnalysisGate({'inconclusive': 'pass', 'checks': [
        {'name': 'a', 'http': {'url': 'http://web'}}]}, opener=lambda url, **_kw: (200, b''))
    tolerated = Measurement(INCONCLUSIVE, 'no data')
    gone = Measurement(INCONCLUSIVE, 'check "a": Job default/a-x was deleted before it ended')
    gone.always_counts = True
    assert gate.counts_as_failure(tolerated) is False
    assert gate.counts_as_failure(gone) is True

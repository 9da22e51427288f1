"""The Prometheus provider against a real local server that answers ``/api/v1/query`` as Prometheus
does, or as a hostile endpoint would: the query it sends, values within and out of bounds
(infinities included), no data (a NaN series), errors (any non-2xx, JSON nested too deeply), text
from the endpoint escaped, cut and redacted; the result shapes (``values``) and bound texts as pure
functions."""

import json

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.endpoint import open_endpoint
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.prometheus import (
    PrometheusProvider,
    bounds_text,
    values,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.provider import (
    AnalysisError,
    Provider,
)

pytestmark = pytest.mark.unit


def vector(*samples):
    """A successful instant-query answer: samples are (labels, value)."""
    result = [{'metric': labels, 'value': [1700000000, str(value)]} for labels, value in samples]
    return {'status': 'success', 'data': {'resultType': 'vector', 'result': result}}


def measure(endpoint, answer, status=200, query='sum(up)', **bounds):
    endpoint.answer('/api/v1/query', status, answer)
    provider = PrometheusProvider('errors', {'url': endpoint.url + '/', 'query': query}, **bounds)
    return provider, provider.measure(open_endpoint)


def test_its_options_are_the_endpoints_and_the_query():
    assert PrometheusProvider.KEY == 'prometheus'
    query = {'type': 'str', 'required': True}
    assert dict(Provider.ENDPOINT_OPTIONS, query=query) == PrometheusProvider.OPTIONS


def test_the_query_is_sent_encoded_and_a_value_within_bounds_passes(endpoint):
    provider, m = measure(endpoint, vector(({}, 0.25)), query='sum(rate(x{a="b"}[1m]))', high=0.5)
    method, path, _headers = endpoint.requests[0]
    assert (method, path) == ('GET', '/api/v1/query?query=sum%28rate%28x%7Ba%3D%22b%22%7D%5B1m%5D%29%29')
    assert (m.outcome, m.value) == ('passed', 0.25)
    assert m.message == 'check "errors": value 0.25 within bounds (max 0.5)'
    assert provider.describe() == {
        'name': 'errors', 'type': 'prometheus', 'url': endpoint.url + '/', 'query': 'sum(rate(x{a="b"}[1m]))',
        'min': None, 'max': 0.5,
    }


def test_every_series_must_be_within_bounds_and_the_first_out_is_named(endpoint):
    samples = (({'__name__': 'ratio', 'pod': 'a'}, 2), ({'pod': 'b', 'app': 'web'}, 7))
    _p, m = measure(endpoint, vector(*samples), low=1, high=5)
    assert (m.outcome, m.value) == ('failed', 7.0)
    assert m.message == 'check "errors": value 7 of {app="web", pod="b"} is out of bounds (between 1 and 5)'
    _p, m = measure(endpoint, vector(({'pod': 'a'}, 2), ({'pod': 'b'}, 3)), low=1, high=5)
    assert (m.outcome, m.value) == ('passed', [2.0, 3.0])
    assert m.message == 'check "errors": value 2, 3 within bounds (between 1 and 5)'


def test_no_data_is_inconclusive(endpoint):
    _p, m = measure(endpoint, vector(), high=1)
    assert (m.outcome, m.message) == ('inconclusive', 'check "errors": the query returned no data')
    _p, m = measure(endpoint, vector(({}, 'NaN')), high=1)
    assert (m.outcome, m.message) == ('inconclusive', 'check "errors": the query returned no data (NaN)')


def test_errors_a_matrix_and_answers_that_are_not_prometheus_are_error_measurements(endpoint):
    where = endpoint.url + '/'
    answer = {'status': 'error', 'errorType': 'bad_data', 'error': 'parse error'}
    _p, m = measure(endpoint, answer, 400, high=1)
    assert m.outcome == 'error'
    assert m.message == 'check "errors": the query failed at %s (400): parse error' % where
    _p, m = measure(endpoint, {'status': 'error'}, 503, high=1)
    assert m.message == 'check "errors": the query failed at %s (503): no error given' % where
    _p, m = measure(endpoint, '<html>', 200, high=1)
    assert m.message == 'check "errors": %s answered 200 without a Prometheus result' % where
    _p, m = measure(endpoint, {'status': 'success', 'data': {'resultType': 'matrix', 'result': []}}, high=1)
    assert m.message == 'check "errors": %s answered a matrix, not a number or a vector' % where


def test_result_shapes_and_bound_texts():
    assert values({'resultType': 'scalar', 'result': [1, '3']}) == [('', 3.0)]
    up = {'metric': {'__name__': 'up'}, 'value': [1, '1']}
    assert values({'resultType': 'vector', 'result': [up]}) == [(' of up', 1.0)]
    assert values({'resultType': 'vector', 'result': [{'value': [1, 'x']}]}) is None
    assert values({'resultType': 'vector', 'result': [{'value': [1, '+Inf']}]}) == [('', float('inf'))]
    assert values({'resultType': 'vector', 'result': [{'metric': {'a': ['x']}, 'value': [1, '1']}]}) is None
    assert values({'resultType': 'vector', 'result': [{'value': [1, True]}]}) is None
    assert values({'resultType': 'vector', 'result': {'value': [1, '1']}}) is None
    assert values({'resultType': 'string', 'result': [1, 'a']}) is None
    assert values(None) is None
    texts = bounds_text(1, 5), bounds_text(1, None), bounds_text(None, 0.5)
    assert texts == ('between 1 and 5', 'min 1', 'max 0.5')


def test_a_query_needs_bounds_in_order():
    with pytest.raises(AnalysisError) as err:
        PrometheusProvider('e', {'url': 'http://prom', 'query': 'up'})
    assert str(err.value) == (
        "analysis check \"e\" needs min or max: the bounds its query's value must stay within"
    )
    with pytest.raises(AnalysisError) as err:
        PrometheusProvider('e', {'url': 'http://prom', 'query': 'up'}, low=2.0, high=1.0)
    assert str(err.value) == 'analysis check "e": min 2 is above max 1'


def test_infinities_are_compared_as_numbers(endpoint):
    # 'cannot convert float infinity to integer' was the message of every infinite value.
    _p, m = measure(endpoint, vector(({'pod': 'a'}, '+Inf')), high=0.5)
    assert (m.outcome, m.message) == (
        'failed', 'check "errors": value +Inf of {pod="a"} is out of bounds (max 0.5)')
    assert m.as_dict(1)['value'] == '+Inf'  # JSON has no infinity
    _p, m = measure(endpoint, vector(({}, '-Inf')), low=0)
    assert (m.outcome, m.message) == ('failed', 'check "errors": value -Inf is out of bounds (min 0)')
    _p, m = measure(endpoint, vector(({}, '+Inf'), ({'b': '1'}, 3)), low=1)
    assert (m.outcome, m.message) == ('passed', 'check "errors": value +Inf, 3 within bounds (min 1)')
    assert m.as_dict(1)['value'] == ['+Inf', 3.0]


def test_a_non_2xx_answer_is_an_error_whatever_its_body(endpoint):
    success = vector(({}, 0.1))
    for status in (500, 302, 404):
        _p, m = measure(endpoint, success, status, high=1)
        assert (m.outcome, m.message) == ('error', 'check "errors": the query failed at %s/ (%d): an HTTP '
                                          'error status, whatever the body says' % (endpoint.url, status))
    _p, m = measure(endpoint, success, 200, high=1)
    assert m.outcome == 'passed'


def test_a_nan_series_is_inconclusive_not_dropped(endpoint):
    # [NaN, 0.1] passed: the NaN series was dropped and 0.1 judged alone.
    _p, m = measure(endpoint, vector(({'pod': 'a'}, 'NaN'), ({'pod': 'b'}, 0.1)), high=0.5)
    assert (m.outcome, m.message) == (
        'inconclusive', 'check "errors": the query returned no data (NaN) for {pod="a"} (1 of 2 series)')
    assert m.as_dict(1)['value'] == ['NaN', 0.1]
    _p, m = measure(endpoint, vector(({'pod': 'a'}, 'NaN'), ({'pod': 'b'}, 'NaN'), ({'pod': 'c'}, 0)), high=1)
    assert m.message.endswith('no data (NaN) for {pod="a"} and 1 more series (2 of 3 series)')
    # A series out of bounds fails the measurement whatever the others are.
    _p, m = measure(endpoint, vector(({'pod': 'a'}, 'NaN'), ({'pod': 'b'}, 9)), high=1)
    assert (m.outcome, m.value) == ('failed', 9.0)


def test_json_nested_too_deeply_is_not_a_prometheus_result(endpoint):
    # 'maximum recursion depth exceeded' was the message, as if the endpoint were unreachable.
    endpoint.answer('/api/v1/query', 200, '[' * 100000 + ']' * 100000)
    m = PrometheusProvider('errors', {'url': endpoint.url, 'query': 'up'}, high=1).measure(open_endpoint)
    assert (m.outcome, m.message) == ('error', 'check "errors": %s answered 200 without a Prometheus result'
                                      % endpoint.url)


def test_text_from_the_endpoint_is_escaped_and_cut(endpoint):
    # ANSI escapes forged an 'ok:' line; a 1 MB error became megabytes of output.
    forged = 'bad query\x1b[1A\x1b[2K\nok: [localhost]\r\n'
    error = {'status': 'error', 'errorType': 'bad_data', 'error': forged + 'e' * 1000000}  # 1 MB
    _p, m = measure(endpoint, error, 400, high=1)
    assert '\x1b' not in m.message and '\n' not in m.message and '\r' not in m.message
    assert m.message.startswith('check "errors": the query failed at %s/ (400): bad query\\x1b[1A\\x1b[2K'
                                '\\nok: [localhost]\\r\\n' % endpoint.url)
    assert m.message.endswith('more characters)') and len(m.message) < 400
    label = {'pod': 'a\x1b[31m\n' + 'p' * 5000}
    _p, m = measure(endpoint, vector((label, 9)), high=1)
    assert '\x1b' not in m.message and len(m.message) < 500 and 'more characters)' in m.message
    _p, m = measure(endpoint, {'status': 'success', 'data': {'resultType': 'str\x1bing' * 1000}}, high=1)
    assert m.message.startswith('check "errors": %s/ answered a str\\x1bingstr' % endpoint.url)
    assert len(m.message) < 200


def test_a_token_the_endpoint_echoes_url_encoded_is_redacted(endpoint):
    token = 'eyJh.b/c+d=='
    options = {'url': endpoint.url, 'query': 'up', 'bearer_token': token}
    provider = PrometheusProvider('errors', options, high=1)
    endpoint.answer('/api/v1/query', 401, lambda headers: {
        'status': 'error', 'errorType': 'unauthorized',
        'error': 'token %s (%s) rejected' % ('eyJh.b%2Fc%2Bd%3D%3D', headers['Authorization'])})
    m = provider.measure(open_endpoint)
    assert m.message == ('check "errors": the query failed at %s (401): token ******** (Bearer ********) '
                         'rejected' % endpoint.url)


def test_a_vector_of_many_series_shows_the_first_values(endpoint):
    many = [({'pod': str(i)}, i / 100.0) for i in range(50)]
    _p, m = measure(endpoint, vector(*many), high=1)
    assert m.outcome == 'passed' and len(m.value) == 10
    assert m.message == ('check "errors": value 0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09 '
                         'and 40 more series within bounds (max 1)')
    assert json.dumps(m.as_dict(1))

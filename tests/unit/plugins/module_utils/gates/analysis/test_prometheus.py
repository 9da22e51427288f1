"""The Prometheus provider against a real local server that answers ``/api/v1/query`` as Prometheus
does: the query it sends, values within and out of bounds, no data, errors; the result shapes
(``values``) and bound texts as pure functions."""

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

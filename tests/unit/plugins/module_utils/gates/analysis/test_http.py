"""The HTTP provider against a real local server: statuses, bodies, methods, redirects, credentials,
timeouts; ``body_regex`` matched within the timeout by the ``regex`` library (a catastrophic pattern
ends as an error, without the library the option is refused); and the options it refuses before any
request."""

import socket
import time

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis import http as http_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.endpoint import open_endpoint
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.http import (
    MAX_PATTERN_SIZE,
    HttpProvider,
    pattern_size,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.provider import (
    AnalysisError,
    Provider,
)

pytestmark = [pytest.mark.unit, pytest.mark.timeout(60)]


def measure(options, **bounds):
    provider = HttpProvider('smoke', options, **bounds)
    return provider, provider.measure(open_endpoint)


def test_its_options_are_the_endpoints_and_its_own_with_the_defaults_it_applies(endpoint):
    assert HttpProvider.KEY == 'http'
    options = HttpProvider.OPTIONS
    assert {k: options[k] for k in Provider.ENDPOINT_OPTIONS} == Provider.ENDPOINT_OPTIONS
    assert options['method']['default'] == HttpProvider.DEFAULT_METHOD == 'GET'
    assert options['status']['default'] == list(HttpProvider.DEFAULT_STATUS) == [200]
    assert set(options) - set(Provider.ENDPOINT_OPTIONS) == {'method', 'status', 'body_regex'}
    # Options left out (a direct call, not through the argument spec) get the same defaults.
    provider = HttpProvider('smoke', {'url': endpoint.url + '/healthz'})
    assert (provider.method, provider.statuses, provider.body_regex) == ('GET', [200], None)
    assert provider.endpoint['timeout'] == Provider.DEFAULT_TIMEOUT
    provider = HttpProvider('smoke', {'url': endpoint.url, 'status': [], 'method': None})
    assert (provider.method, provider.statuses) == ('GET', [200])


def test_an_expected_status_and_a_matching_body_pass(endpoint):
    endpoint.answer('/healthz', 202, 'all ok\n')
    provider, m = measure({'url': endpoint.url + '/healthz', 'status': [200, 202], 'body_regex': 'ok$'})
    assert (m.outcome, m.value) == ('passed', 202)
    assert m.message == 'check "smoke": GET %s/healthz answered 202' % endpoint.url
    assert provider.describe() == {
        'name': 'smoke', 'type': 'http', 'url': endpoint.url + '/healthz', 'method': 'GET',
        'status': [200, 202], 'body_regex': 'ok$',
    }


def test_another_status_or_a_body_that_does_not_match_fails(endpoint):
    endpoint.answer('/healthz', 503, 'down')
    _p, m = measure({'url': endpoint.url + '/healthz', 'status': [200, 204]})
    assert (m.outcome, m.value) == ('failed', 503)
    assert m.message == 'check "smoke": GET %s/healthz answered 503, expected 200 or 204' % endpoint.url
    endpoint.answer('/healthz', 200, 'degraded')
    _p, m = measure({'url': endpoint.url + '/healthz', 'body_regex': '^ok'})
    assert (m.outcome, m.value) == ('failed', 200)
    url = endpoint.url + '/healthz'
    assert m.message == "check \"smoke\": the body of GET %s (200) does not match '^ok'" % url


def test_the_method_is_sent_as_given_and_a_redirect_is_an_answer_not_followed(endpoint):
    endpoint.answer('/hook', 302, '', headers={'Location': '/elsewhere'})
    _p, m = measure({'url': endpoint.url + '/hook', 'method': 'post', 'status': [302]})
    assert m.outcome == 'passed' and m.message.startswith('check "smoke": POST ')
    assert [(method, path) for method, path, _h in endpoint.requests] == [('POST', '/hook')]


def test_credentials_reach_the_server_and_stay_out_of_what_is_shown(endpoint):
    endpoint.answer('/healthz', 200, 'ok')
    url = endpoint.url.replace('http://', 'http://user:pw123@') + '/healthz'
    provider, m = measure({'url': url, 'bearer_token': 'tok-1', 'headers': {'X-Key': 'hdr'}})
    headers = endpoint.requests[0][2]
    assert (headers['Authorization'], headers['X-Key']) == ('Bearer tok-1', 'hdr')
    assert sorted(provider.secrets()) == ['hdr', 'pw123', 'tok-1', 'user:pw123']
    assert provider.where == endpoint.url + '/healthz'
    assert 'pw123' not in m.message and 'pw123' not in str(provider.describe())


def test_a_slow_or_closed_endpoint_is_an_error_measurement(endpoint):
    endpoint.answer('/slow', 200, 'ok', delay=1)
    _p, m = measure({'url': endpoint.url + '/slow', 'timeout': 0.2})
    assert m.outcome == 'error' and m.value is None
    assert m.message == 'check "smoke": %s/slow: no complete answer within 0.2 seconds (timeout)' % (
        endpoint.url)
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        closed = 'http://127.0.0.1:%d/' % s.getsockname()[1]
    _p, m = measure({'url': closed})
    assert m.outcome == 'error' and 'unreachable' in m.message


@pytest.mark.parametrize('options, bounds, message', [
    ({'url': 'http://x'}, {'high': 1},
     'min and max bound a Prometheus value; an http check is judged by status and body_regex'),
    ({'url': 'http://x', 'body_regex': '('}, {}, 'body_regex is not a regular expression: '),
    ({'url': 'http://x', 'body_regex': 'x{4294967294}'}, {}, 'body_regex is too large to compile'),
    ({'url': 'http://x', 'body_regex': '(?:a{1000}){1000}'}, {}, 'body_regex is too large to compile '
     '(its counted repetitions make 1000000 atoms, at most 10000)'),
    ({'url': 'http://x', 'bearer_token': 'Zq7\n'}, {}, 'bearer_token contains a line break (CR or LF)'),
    ({'url': 'http://x', 'method': 'GE T'}, {}, "method 'GE T' is not an HTTP method"),
    ({'url': 'ftp://x'}, {}, "url must be an http:// or https:// URL, not 'ftp://x'"),
    ({'url': 'http://x', 'timeout': 0}, {}, 'timeout must be between 0 and 3600 seconds'),
])
def test_options_it_cannot_measure_are_refused(options, bounds, message):
    with pytest.raises(AnalysisError) as err:
        HttpProvider('smoke', options, **bounds)
    assert str(err.value).startswith('analysis check "smoke": ' + message)


def test_a_body_trickled_past_the_timeout_is_an_error_within_the_timeout(endpoint):
    # The case: a 40-byte body at a byte per second took 39 s with timeout 2.
    endpoint.answer('/healthz', 200, 'o' * 40, trickle=0.1)
    start = time.monotonic()
    _p, m = measure({'url': endpoint.url + '/healthz', 'timeout': 0.6, 'body_regex': 'o'})
    assert time.monotonic() - start < 3  # the whole body takes 4 s
    assert (m.outcome, m.message) == (
        'error', 'check "smoke": %s/healthz: no complete answer within 0.6 seconds (timeout)' % endpoint.url)


def test_a_catastrophic_body_regex_ends_within_the_timeout_as_an_error(endpoint):
    # The pattern on its 41-byte body: the regex library needs no time for it.
    endpoint.answer('/healthz', 200, 'a' * 40 + 'b')
    start = time.monotonic()
    _p, m = measure({'url': endpoint.url + '/healthz', 'body_regex': '^(a+)+$'})
    assert m.outcome == 'failed' and time.monotonic() - start < 5
    # One it backtracks on for hours is cut at the check's timeout.
    endpoint.answer('/healthz', 200, 'a' * 60 + 'b')
    start = time.monotonic()
    _p, m = measure({'url': endpoint.url + '/healthz', 'body_regex': '^(a|aa)+$', 'timeout': 1})
    assert time.monotonic() - start < 10  # Python's re would take hours
    assert (m.outcome, m.value) == ('error', None)
    assert m.message == (
        "check \"smoke\": body_regex '^(a|aa)+$' did not finish on the body of GET %s/healthz (200) "
        'within the timeout (1 s)' % endpoint.url)


def test_without_the_regex_library_body_regex_is_refused_not_run_unbounded(endpoint, monkeypatch):
    monkeypatch.setattr(http_mod, 'HAS_REGEX', False)
    monkeypatch.setattr(http_mod, 'regex', None)
    with pytest.raises(AnalysisError) as err:
        HttpProvider('smoke', {'url': endpoint.url, 'body_regex': 'ok'})
    assert str(err.value) == (
        'analysis check "smoke": body_regex needs the Python library "regex" (pip install regex; it is in '
        "the collection's requirements.txt) where the module runs: without it a regular expression cannot "
        'be matched with a time limit')
    endpoint.answer('/healthz', 200, 'ok')
    _p, m = measure({'url': endpoint.url + '/healthz'})  # a check without body_regex needs no library
    assert m.outcome == 'passed'


def test_the_size_of_a_pattern_counts_what_its_repetitions_unroll():
    assert pattern_size('ok') == 2
    assert pattern_size('a{10}') == 10
    assert pattern_size('(?:a{10}b){10}') == 10 * (10 + 1)
    assert pattern_size('(a{10}b){10}') == 10 * (1 + 10 + 1)  # a group is an atom too
    assert pattern_size('a+b*') == 2
    assert pattern_size('(?:a{3,}|[bc]{2}){4}') == 4 * (1 + 3 + 2)  # the alternation, its branches
    assert pattern_size('^(?P<x>a{50})(?=b{20})(?(x)c{5}|d)$') == 81 < MAX_PATTERN_SIZE

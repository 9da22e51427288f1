"""What every provider shares (``Provider``): the endpoint's options checked before any request, its
credentials, the request it sends (through a real local server), a failed request as an ``error``
measurement; and the number and URL helpers (pure)."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.endpoint import open_endpoint
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.provider import (
    ERROR,
    PASSED,
    AnalysisError,
    Measurement,
    Provider,
    duration,
    fmt,
    number,
    public_url,
    reason,
)

pytestmark = pytest.mark.unit


class StatusProvider(Provider):
    """The smallest provider: passes when the endpoint answers at all."""

    KEY = 'status'

    def _measure(self, opener):
        status, _body = self.request(opener, self.endpoint['url'], 'GET')
        return Measurement(PASSED, 'answered %d' % status, status)


class Broken(Provider):
    KEY = 'broken'

    def _measure(self, opener):
        raise OSError('connection reset')


def test_the_endpoint_options_and_their_defaults():
    options = Provider.ENDPOINT_OPTIONS
    assert list(options) == [
        'url', 'bearer_token', 'headers', 'ca_cert', 'client_cert', 'client_key', 'insecure', 'timeout'
    ]
    assert options['timeout']['default'] == Provider.DEFAULT_TIMEOUT == 5
    assert options['url']['required'] is True
    assert options['bearer_token']['no_log'] is True and options['headers']['no_log'] is True
    provider = StatusProvider('s', {'url': 'http://x'})
    assert provider.endpoint['timeout'] == 5.0
    assert provider.describe() == {'name': 's', 'type': 'status', 'url': 'http://x'}


@pytest.mark.parametrize('options, bounds, message', [
    ({'url': 'ftp://x'}, {}, "analysis check \"s\": url must be an http:// or https:// URL, not 'ftp://x'"),
    ({'url': 'https://u:secretpw@'}, {}, "not 'https://'"),
    ({}, {}, "not ''"),
    ({'url': 'http://x', 'timeout': 3601}, {}, 'analysis check "s": timeout must be between 0 and 3600 sec'),
    ({'url': 'http://x', 'timeout': None}, {}, 'analysis check "s": timeout must be between 0 and 3600'),
    ({'url': 'http://x', 'timeout': float('nan')}, {}, 'timeout of analysis check "s" must be a finite'),
    ({'url': 'http://x'}, {'low': 3.0, 'high': 2.5}, 'analysis check "s": min 3 is above max 2.5'),
])
def test_an_endpoint_that_cannot_be_measured_is_refused(options, bounds, message):
    with pytest.raises(AnalysisError) as err:
        StatusProvider('s', options, **bounds)
    assert message in str(err.value) and 'secretpw' not in str(err.value)


def test_the_request_carries_the_credentials_and_tls_options():
    calls = []

    def opener(url, **kwargs):
        calls.append((url, kwargs))
        return 200, b''

    provider = StatusProvider('s', {
        'url': 'https://prom:9090', 'bearer_token': 'tok', 'headers': {'X-Org': 7}, 'insecure': True,
        'ca_cert': '/ca.pem', 'client_cert': '/c.pem', 'client_key': '/k.pem', 'timeout': 2,
    })
    assert provider.measure(opener).outcome == PASSED
    assert calls == [('https://prom:9090', {
        'method': 'GET', 'headers': {'X-Org': '7', 'Authorization': 'Bearer tok'}, 'timeout': 2.0,
        'validate_certs': False, 'ca_path': '/ca.pem', 'client_cert': '/c.pem', 'client_key': '/k.pem',
    })]
    assert sorted(provider.secrets()) == ['7', 'tok']


def test_a_request_to_a_real_server_is_measured(endpoint):
    endpoint.answer('/', 418, 'teapot')
    m = StatusProvider('s', {'url': endpoint.url + '/', 'headers': {'X-Trace': 'abc'}}).measure(open_endpoint)
    assert (m.outcome, m.value, m.message) == (PASSED, 418, 'answered 418')
    assert endpoint.requests[0][2]['X-Trace'] == 'abc'


def test_anything_a_measurement_raises_is_an_error_measurement_naming_the_endpoint():
    m = Broken('b', {'url': 'https://user:pw@host:8443/x'}).measure(None)
    assert (m.outcome, m.value) == (ERROR, None)
    assert m.message == 'check "b": https://host:8443/x unreachable: connection reset'
    assert m.as_dict(12.5) == {'outcome': ERROR, 'value': None, 'message': m.message, 'at': 12.5}


def test_numbers_durations_and_their_text():
    assert number(None, 'x') is None and number('2', 'x') == 2.0
    with pytest.raises(AnalysisError, match="^min of c must be a finite number, not inf$"):
        number(float('inf'), 'min of c')
    assert duration(5, 'interval', 86400, 'analysis interval') == 5.0
    for bad in (0, -1, 86401, None):
        with pytest.raises(AnalysisError, match='^analysis interval must be between 0 and 86400 seconds$'):
            duration(bad, 'interval', 86400, 'analysis interval')
    assert [fmt(v) for v in (None, 2.0, 0.5, 1e20, -3)] == ['none', '2', '0.5', '1e+20', '-3']


def test_public_urls_drop_the_user_and_password_only():
    assert public_url('http://prom:9090/x?q=1') == 'http://prom:9090/x?q=1'
    assert public_url('https://u:p@prom:9090/x?q=1#f') == 'https://prom:9090/x?q=1#f'
    assert public_url('https://u@[::1]/x') == 'https://[::1]/x'


def test_the_reason_of_a_failed_request():
    class Wrapped(Exception):
        reason = ConnectionRefusedError(111, 'refused')

    assert reason(Wrapped()) == '[Errno 111] refused'
    assert reason(OSError('reset')) == 'reset'
    assert reason(TimeoutError()) == 'TimeoutError'

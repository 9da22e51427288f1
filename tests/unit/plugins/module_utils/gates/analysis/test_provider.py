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
    TimedOut,
    duration,
    fmt,
    header_problem,
    json_value,
    number,
    public_url,
    reason,
    shown,
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
    with_user = StatusProvider('s', {'url': 'https://us%40er:p%2Fw@prom', 'bearer_token': 'tok'})
    # The password as written and decoded, and as basic auth sends it (user:password).
    assert with_user.secrets() == ['tok', 'p%2Fw', 'us@er:p%2Fw', 'p/w', 'us@er:p/w']


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
    # Infinities and NaN as Prometheus spells them (int(inf) raised OverflowError here).
    assert [fmt(float(v)) for v in ('inf', '-inf', 'nan')] == ['+Inf', '-Inf', 'NaN']
    assert json_value([1.0, float('inf'), float('-inf'), float('nan')]) == [1.0, '+Inf', '-Inf', 'NaN']
    assert json_value(200) == 200 and json_value(None) is None


def test_a_duration_may_have_a_minimum():
    assert duration(1, 'interval', 86400, 'analysis interval', minimum=1) == 1.0
    for bad in (0.999, 1e-9):
        with pytest.raises(AnalysisError, match='^analysis interval must be between 1 and 86400 seconds$'):
            duration(bad, 'interval', 86400, 'analysis interval', minimum=1)


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


class Echo(Provider):
    """Shows the endpoint's body as the endpoint's text (as an error message from it would be)."""

    KEY = 'echo'

    def _measure(self, opener):
        _status, body = self.request(opener, self.endpoint['url'], 'GET')
        return Measurement('failed', 'the endpoint said: %s' % self.endpoint_text(body))


@pytest.mark.parametrize('option, message', [
    ({'bearer_token': 'Zq7-from-a-secret\n'}, 'bearer_token contains a line break (CR or LF)'),
    ({'bearer_token': 'Zq7\r'}, 'bearer_token contains a line break (CR or LF)'),
    ({'headers': {'X-Key': 'Zq7\r\nX-Injected: yes'}}, 'the value of header X-Key contains a line break'),
    ({'headers': {'X-Key': 'Zq7\x00b'}}, 'the value of header X-Key contains a control character'),
    ({'headers': {'X-Key': 'Zq7\u00e9\u2603'}}, 'the value of header X-Key is not Latin-1 text'),
    ({'headers': {'X Key': 'v'}}, "header name 'X Key' is not a valid HTTP header name"),
    ({'headers': {'X\r\nKey': 'v'}}, "header name 'X\\r\\nKey' is not a valid HTTP header name"),

])
def test_a_header_value_or_token_with_a_line_break_is_refused_before_sending(endpoint, option, message):
    with pytest.raises(AnalysisError) as err:
        StatusProvider('s', dict({'url': endpoint.url + '/'}, **option))
    text = str(err.value)
    assert text.startswith('analysis check "s": ' + message), text
    assert 'Zq7' not in text and 'Injected' not in text
    assert endpoint.requests == []


def test_header_problems_never_show_the_value():
    assert header_problem('X-Ok', 'v\tw with tab and latin-1 \u00e9') is None
    problem = header_problem('Authorization', 'Bearer abc\n', 'bearer_token')
    assert problem.startswith('bearer_token contains a line break') and 'abc' not in problem
    assert 'strip it (for example with | trim)' in problem


@pytest.mark.parametrize('url, message', [
    ('http://prom\n.example/', 'url contains a space or a control character'),
    ('http://prom:port/', "url 'http://prom:port/' has an invalid port"),
    ('http://u:pw@prom:99999/', "url 'http://prom:99999/' has an invalid port"),
])
def test_a_url_that_cannot_be_requested_is_refused_without_its_password(url, message):
    with pytest.raises(AnalysisError) as err:
        StatusProvider('s', {'url': url})
    assert str(err.value) == 'analysis check "s": ' + message


def test_endpoint_text_is_escaped_and_cut_so_it_cannot_forge_or_flood_output(endpoint):
    forged = 'bad\x1b[2K\rok: [localhost] => all good\n\u202eevil'
    endpoint.answer('/', 200, forged + 'x' * (1024 * 1024))
    m = Echo('e', {'url': endpoint.url + '/'}).measure(open_endpoint)
    assert '\x1b' not in m.message and '\r' not in m.message and '\n' not in m.message
    assert '\u202e' not in m.message
    assert m.message.startswith('the endpoint said: bad\\x1b[2K\\rok: [localhost] => all good\\n\\u202eevil')
    assert m.message.endswith('more characters)') and len(m.message) < 300


def test_shown_escapes_control_and_format_characters_and_says_how_much_it_cut():
    assert shown('a\tb\x07c\x85d\u2028e\ufeff') == 'a\\tb\\x07c\\x85d\\u2028e\\ufeff'
    assert shown(b'caf\xc3\xa9 \xff') == 'caf\u00e9 \ufffd'
    assert shown('x' * 50, 10) == 'x' * 10 + '... (40 more characters)'
    assert shown('\n' * 50, 10) == '\\n' * 5 + '... (45 more characters)'
    assert shown('fits', 4) == 'fits'


@pytest.mark.parametrize('echo', [
    lambda token: token,
    lambda token: 'token=s3cr3t%2Ftok%2Ben%3D%3D',  # URL-encoded, as a query string echoes it
    lambda token: 'token=s3cr3t%2ftok%2ben%3d%3d',  # lower-case escapes
    lambda token: 'czNjcjN0L3Rvaytlbj09',  # base64
    lambda token: 'czNjcjN0L3Rvaytlbj09'.rstrip('='),  # base64 without padding
])
def test_every_form_of_a_secret_the_endpoint_echoes_is_redacted(endpoint, echo):
    token = 's3cr3t/tok+en=='
    endpoint.answer('/', 401, lambda headers: 'rejected: ' + echo(token))
    m = Echo('e', {'url': endpoint.url + '/', 'bearer_token': token}).measure(open_endpoint)
    assert endpoint.requests[0][2]['Authorization'] == 'Bearer ' + token
    assert 's3cr3t' not in m.message and 'czNjcjN0L3Rva' not in m.message, m.message
    assert '********' in m.message


def test_a_measurement_past_its_timeout_is_an_error_naming_the_timeout():
    def opener(_url, **kwargs):
        raise TimedOut(kwargs['timeout'])

    m = StatusProvider('s', {'url': 'http://x/', 'timeout': 2}).measure(opener)
    assert (m.outcome, m.message) == (
        ERROR, 'check "s": http://x/: no complete answer within 2 seconds (timeout)')


def test_time_left_counts_from_the_start_of_the_measurement():
    seen = []

    class Slow(Provider):
        KEY = 'slow'

        def _measure(self, opener):
            seen.append(self.time_left())
            return Measurement(PASSED, 'ok')

    provider = Slow('s', {'url': 'http://x/', 'timeout': 3})
    assert provider.time_left() == 3.0  # not measuring: the whole timeout
    provider.measure(None)
    assert 2.5 < seen[0] <= 3.0

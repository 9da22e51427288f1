"""``open_endpoint`` against real local servers: every status is an answer, redirects are not followed,
bodies are read up to ``MAX_BODY``, only a lost connection raises; one deadline for the whole request
(a trickled body or header, a silent server); headers that would split the request never sent;
credentials in the URL as basic auth; proxies from the environment (forwarded, tunnelled, exempted by
``no_proxy``); TLS verified against a CA."""

import base64
import socket
import time

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis import endpoint as endpoint_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.endpoint import (
    Deadline,
    open_endpoint,
    proxy_for,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.provider import TimedOut, reason

pytestmark = [pytest.mark.unit, pytest.mark.timeout(60)]


def test_any_status_is_an_answer_with_its_body(endpoint):
    endpoint.answer('/ok', 200, 'fine')
    endpoint.answer('/down', 503, 'maintenance')
    assert open_endpoint(endpoint.url + '/ok') == (200, b'fine')
    assert open_endpoint(endpoint.url + '/down', method='POST', headers={'X-A': 'b'}) == (503, b'maintenance')
    sent = [(m, p, h.get('X-A')) for m, p, h in endpoint.requests]
    assert sent == [('GET', '/ok', None), ('POST', '/down', 'b')]
    assert endpoint.requests[0][2]['Host'] == endpoint.url[len('http://'):]


def test_a_redirect_is_not_followed(endpoint):
    endpoint.answer('/old', 301, 'moved', headers={'Location': '/new'})
    endpoint.answer('/new', 200, 'new')
    assert open_endpoint(endpoint.url + '/old') == (301, b'moved')
    assert [p for _m, p, _h in endpoint.requests] == ['/old']


def test_a_body_is_read_up_to_max_body(endpoint, monkeypatch):
    monkeypatch.setattr(endpoint_mod, 'MAX_BODY', 4)
    endpoint.answer('/big', 200, 'abcdefgh')
    endpoint.answer('/bigerr', 500, 'ijklmnop')
    assert open_endpoint(endpoint.url + '/big') == (200, b'abcd')
    assert open_endpoint(endpoint.url + '/bigerr') == (500, b'ijkl')


def test_a_closed_port_raises():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        url = 'http://127.0.0.1:%d/' % s.getsockname()[1]
    with pytest.raises(OSError):
        open_endpoint(url, timeout=2)


def timed(call):
    start = time.monotonic()
    with pytest.raises(TimedOut) as err:
        call()
    return time.monotonic() - start, err.value


@pytest.mark.parametrize('answer', [
    # The case, ten times faster: 40 bytes at one per 0.1 s took 39 s with timeout 2.
    {'body': 'x' * 40, 'trickle': 0.1},
    # The status line and headers a byte at a time.
    {'raw': b'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Slow: ' + b'y' * 40 + b'\r\n\r\nok', 'trickle': 0.1},
    # A server that reads the request and never answers.
    {'delay': 30},
])
def test_the_timeout_bounds_the_whole_request_not_each_read(endpoint, answer):
    endpoint.answer('/slow', **answer)
    elapsed, err = timed(lambda: open_endpoint(endpoint.url + '/slow', timeout=0.6))
    assert 0.5 < elapsed < 3  # the whole answer would take 4 s or more (30 s silent)
    assert str(err) == 'no complete answer within 0.6 seconds (timeout)'


def test_a_deadline_that_has_passed_raises_timed_out():
    now = [10.0]
    deadline = Deadline(2, clock=lambda: now[0])
    assert deadline.left() == 2
    now[0] = 12.0
    with pytest.raises(TimedOut, match='within 2 seconds'):
        deadline.left()


@pytest.mark.parametrize('headers', [
    {'Authorization': 'Bearer tok-from-a-file\n'},
    {'X-Key': 'a\r\nX-Injected: 1'},
    {'X-Key': 'nul\x00'},
    {'Bad Name': 'v'},
])
def test_a_header_that_would_split_the_request_is_never_sent_nor_shown(endpoint, headers):
    endpoint.answer('/', 200, 'ok')
    with pytest.raises(ValueError) as err:
        open_endpoint(endpoint.url + '/', headers=headers)
    assert 'tok-from-a-file' not in str(err.value) and 'Injected' not in str(err.value)
    assert endpoint.requests == []


def test_credentials_in_the_url_are_sent_as_basic_auth_unless_an_authorization_is_given(endpoint):
    endpoint.answer('/', 200, 'ok')
    url = endpoint.url.replace('http://', 'http://us%40er:p%3Ass@') + '/'
    open_endpoint(url)
    open_endpoint(url, headers={'Authorization': 'Bearer t0ken'})
    sent = [h['Authorization'] for _m, _p, h in endpoint.requests]
    assert sent == ['Basic ' + base64.b64encode(b'us@er:p:ss').decode(), 'Bearer t0ken']


def test_http_goes_through_the_environments_proxy_unless_no_proxy_exempts_it(endpoint, proxy, monkeypatch):
    endpoint.answer('/q', 200, 'through')
    monkeypatch.setenv('http_proxy', proxy.url.replace('http://', 'http://pu:pp@'))
    assert open_endpoint(endpoint.url + '/q?a=1', headers={'Authorization': 'Bearer t'}) == (200, b'through')
    method, target, headers = proxy.requests[0]
    assert (method, target) == ('GET', endpoint.url + '/q?a=1')
    assert headers['Proxy-Authorization'] == 'Basic ' + base64.b64encode(b'pu:pp').decode()
    assert [p for _m, p, _h in endpoint.requests] == ['/q?a=1']

    monkeypatch.setenv('no_proxy', 'localhost,127.0.0.1')
    assert open_endpoint(endpoint.url + '/q') == (200, b'through')
    assert len(proxy.requests) == 1 and len(endpoint.requests) == 2


def test_https_is_verified_and_tunnelled_through_the_proxy(tls_endpoint, proxy, monkeypatch):
    tls_endpoint.answer('/healthz', 200, 'ok')
    ca = str(tls_endpoint.ca_file)
    assert open_endpoint(tls_endpoint.url + '/healthz', ca_path=ca) == (200, b'ok')
    with pytest.raises(OSError, match='certificate verify failed') as err:
        open_endpoint(tls_endpoint.url + '/healthz')
    assert 'certificate verify failed: unable to get local issuer certificate' in reason(err.value)
    assert open_endpoint(tls_endpoint.url + '/healthz', validate_certs=False) == (200, b'ok')
    monkeypatch.setenv('https_proxy', proxy.url)
    answer = open_endpoint(tls_endpoint.url + '/healthz', ca_path=ca, headers={'X-Key': 'hidden'})
    assert answer == (200, b'ok')
    assert [(m, t) for m, t, _h in proxy.requests] == [('CONNECT', tls_endpoint.url[len('https://'):])]
    assert 'X-Key' not in proxy.requests[0][2]  # inside the tunnel only
    assert tls_endpoint.requests[-1][2]['X-Key'] == 'hidden'


def test_a_proxy_that_refuses_the_tunnel_or_is_not_http_is_an_error(tls_endpoint, monkeypatch):
    refusing = socket.socket()
    refusing.bind(('127.0.0.1', 0))
    refusing.listen(1)
    monkeypatch.setenv('https_proxy', 'http://127.0.0.1:%d' % refusing.getsockname()[1])

    def answer_403():
        conn, _addr = refusing.accept()
        conn.recv(4096)
        conn.sendall(b'HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n')
        conn.close()

    import threading
    thread = threading.Thread(target=answer_403, daemon=True)
    thread.start()
    with pytest.raises(OSError, match=r'the proxy refused the tunnel to 127\.0\.0\.1:\d+ \(403\)'):
        open_endpoint(tls_endpoint.url + '/', validate_certs=False, timeout=5)
    thread.join(5)
    refusing.close()
    monkeypatch.setenv('https_proxy', 'socks5://user:pw@proxy:1080')
    with pytest.raises(OSError) as err:
        proxy_for('https', 'web:443')
    assert 'is not an http:// proxy URL' in str(err.value) and 'pw' not in str(err.value)


def test_proxy_for_reads_the_environment(monkeypatch):
    for name in ('http_proxy', 'https_proxy', 'no_proxy', 'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY'):
        monkeypatch.delenv(name, raising=False)
    assert proxy_for('http', 'web:80') is None
    monkeypatch.setenv('HTTP_PROXY', 'proxy.corp:3128')
    assert proxy_for('http', 'web:80') == ('proxy.corp', 3128, None)
    assert proxy_for('https', 'web:443') is None
    monkeypatch.setenv('no_proxy', '.svc,web')
    assert proxy_for('http', 'web:80') is None and proxy_for('http', 'prom.monitoring.svc') is None
    assert proxy_for('http', 'prom.example') == ('proxy.corp', 3128, None)

"""client.Transport on real sockets: keep-alive, chunked watch streams, proxies, TLS names, failures.

Small servers on 127.0.0.1 (http.server, plus a CONNECT proxy and TLS from tests/kubesim/apiserver/tls.py)
see exactly what the client sends.
"""

import base64
import json
import select
import socket
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.api import client as client_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.api.client import ApiClient
from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection.settings import Connection
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ConnectionFailure
from tests.kubesim.apiserver.tls import Certificates

pytestmark = [pytest.mark.unit, pytest.mark.timeout(30)]


class Recorder(BaseHTTPRequestHandler):
    """Answers JSON; records each request with the client port it came from."""

    protocol_version = 'HTTP/1.1'
    log = None
    close_after = False  # answer with Connection: close

    def log_message(self, *args):
        pass

    def _answer(self):
        length = int(self.headers.get('Content-Length') or 0)
        body = self.rfile.read(length) if length else b''
        self.log.append({'method': self.command, 'path': self.path, 'port': self.client_address[1],
                         'headers': self.headers, 'body': body})
        if self.path.startswith('/watch'):
            return self._watch()
        data = json.dumps({'path': self.path}).encode()
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        if self.close_after:
            self.send_header('Connection', 'close')
            self.close_connection = True
        self.end_headers()
        self.wfile.write(data)

    def _watch(self):
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Transfer-Encoding', 'chunked')
        self.end_headers()
        events = b''.join(json.dumps({'type': 'MODIFIED', 'object': {'metadata': {'name': n}}}).encode()
                          + b'\n' for n in ('a', 'b', 'c'))
        # Chunk borders fall inside events; the second chunk comes later, as a real watch's would.
        for piece in (events[:30], events[30:100], events[100:]):
            self.wfile.write(b'%x\r\n%s\r\n' % (len(piece), piece))
            self.wfile.flush()
            time.sleep(0.05)
        self.wfile.write(b'0\r\n\r\n')

    def do_GET(self):
        self._answer()  # through self: subclasses override _answer

    do_PATCH = do_POST = do_DELETE = do_GET


def serve(handler=Recorder, tls=None, **attrs):
    log = []
    cls = type('Handler', (handler,), dict(attrs, log=log))
    server = ThreadingHTTPServer(('127.0.0.1', 0), cls)
    server.daemon_threads = True
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, kwargs={'poll_interval': 0.05}, daemon=True).start()
    return server, log


@pytest.fixture
def servers():
    started = []

    def start(*args, **kwargs):
        server, log = serve(*args, **kwargs)
        started.append(server)
        return server, log

    yield start
    for server in started:
        server.shutdown()
        server.server_close()


def client_for(url, **attrs):
    conn = Connection()
    conn.server = url
    conn.token = 'sekret-token-0123456789'
    for k, v in attrs.items():
        setattr(conn, k, v)
    sleeps = []
    return ApiClient(conn, sleep=sleeps.append), sleeps


def url_of(server, scheme='http', host='127.0.0.1'):
    return '%s://%s:%d' % (scheme, host, server.server_address[1])


def test_keep_alive_reuses_one_connection_and_sends_repeated_headers(servers):
    server, log = servers()
    client, _ = client_for(url_of(server), impersonate_groups=['a', 'b'])
    assert client.get('/api/v1/namespaces', query={'limit': 5}) == {'path': '/api/v1/namespaces?limit=5'}
    client.patch('/p', {'spec': {'paused': True}}, dry_run=True)
    client.get('/x')
    assert [r['method'] for r in log] == ['GET', 'PATCH', 'GET']
    assert len({r['port'] for r in log}) == 1 and client._transport.connections_opened == 1
    assert log[0]['headers'].get_all('Impersonate-Group') == ['a', 'b']
    assert log[0]['headers']['Authorization'] == 'Bearer sekret-token-0123456789'
    assert log[0]['headers']['Host'] == '127.0.0.1:%d' % server.server_address[1]
    assert json.loads(log[1]['body']) == {'spec': {'paused': True}}
    assert log[1]['headers']['Content-Type'] == 'application/strategic-merge-patch+json'
    assert 'dryRun=All' in log[1]['path']


def test_connection_closed_by_the_server_is_replaced(servers):
    server, log = servers(close_after=True)
    client, sleeps = client_for(url_of(server))
    for _ in range(3):
        client.get('/x')
    assert len({r['port'] for r in log}) == 3 and sleeps == []


def test_idle_connection_the_server_dropped_is_not_reused(servers):
    server, log = servers()
    client, sleeps = client_for(url_of(server))
    client.get('/x')
    server.shutdown()  # stop accepting, then close the idle connection the way a server's timeout does
    idle = client._transport._idle[0]
    idle.sock.shutdown(socket.SHUT_RD)  # the socket reads EOF: what the select() check looks for
    select.select([idle.sock], [], [], 1)
    server2, log2 = servers()
    client._transport.port = server2.server_address[1]
    assert client.patch('/p', {}) == {'path': '/p?fieldManager=kubeops-rollout'}  # a write: never retried
    assert len(log2) == 1 and sleeps == []


def test_watch_stream_is_read_line_by_line_across_chunks(servers):
    server, log = servers()
    client, _ = client_for(url_of(server))
    events = list(client.watch('/watch', timeout_seconds=5))
    assert [obj['metadata']['name'] for _t, obj in events] == ['a', 'b', 'c']
    assert 'timeoutSeconds=5' in log[0]['path']
    client.get('/after')  # the stream was read to its end: its connection is reused
    assert client._transport.connections_opened == 1


def test_watch_read_timeout_ends_the_stream(servers):
    class Silent(Recorder):
        def _watch(self):
            self.send_response(200)
            self.send_header('Transfer-Encoding', 'chunked')
            self.end_headers()
            self.wfile.flush()
            time.sleep(3)

    server, _ = servers(Silent)
    client, _ = client_for(url_of(server))
    resp = client.request('GET', '/watch', stream=True, read_timeout=0.3)
    t0 = time.monotonic()
    assert list(client._stream_events(resp)) == []
    assert time.monotonic() - t0 < 2
    assert client._transport._idle == []  # a half-read stream's connection is closed, not reused


def test_refused_connection_is_retried_then_reported(servers):
    sock = socket.socket()
    sock.bind(('127.0.0.1', 0))
    port = sock.getsockname()[1]
    sock.close()
    client, sleeps = client_for('http://127.0.0.1:%d' % port)
    with pytest.raises(ConnectionFailure) as e:
        client.get('/x')
    assert 'cannot reach the Kubernetes API at http://127.0.0.1:%d' % port in e.value.message
    assert 'Connection refused' in e.value.message
    assert len(sleeps) == client_mod.CONNECT_ATTEMPTS - 1


def test_connection_dropped_mid_answer_is_a_clear_failure_for_a_write(servers):
    class Dropper(Recorder):
        def _answer(self):
            self.log.append(self.path)
            self.close_connection = True  # no answer at all

    server, log = servers(Dropper)
    client, sleeps = client_for(url_of(server))
    with pytest.raises(ConnectionFailure, match='failed during PATCH /p'):
        client.patch('/p', {})
    assert len(log) == 1 and sleeps == []
    with pytest.raises(ConnectionFailure, match='failed during GET /x'):
        client.get('/x')
    assert len(log) == 1 + client_mod.MAX_ATTEMPTS


class ForwardProxy(Recorder):
    """A plain-HTTP proxy stand-in: answers itself, so the test sees the absolute-form request."""


def test_http_target_through_a_proxy_gets_the_absolute_url_and_proxy_headers(servers):
    proxy, log = servers(ForwardProxy)
    client, _ = client_for('http://api.internal:8080', proxy=url_of(proxy),
                           proxy_headers={'proxy_basic_auth': 'pu:pp', 'user_agent': 'corp-agent'})
    client.get('/api')
    assert log[0]['path'] == 'http://api.internal:8080/api'
    assert log[0]['headers']['Proxy-Authorization'] == 'Basic ' + base64.b64encode(b'pu:pp').decode()
    assert log[0]['headers'].get_all('User-Agent') == ['kubeops.rollout', 'corp-agent']
    assert log[0]['headers']['Host'] == 'api.internal:8080'


class TunnelProxy(BaseHTTPRequestHandler):
    """CONNECT only: checks Proxy-Authorization, then relays bytes both ways."""

    protocol_version = 'HTTP/1.1'
    log = None

    def log_message(self, *args):
        pass

    def do_CONNECT(self):
        self.log.append({'target': self.path, 'auth': self.headers.get('Proxy-Authorization')})
        if self.headers.get('Proxy-Authorization') != 'Basic ' + base64.b64encode(b'pu:pp').decode():
            self.send_response(407)
            self.send_header('Content-Length', '0')
            self.end_headers()
            return
        host, port = self.path.rsplit(':', 1)
        upstream = socket.create_connection((host, int(port)))
        self.send_response(200)
        self.end_headers()
        self.wfile.flush()
        conns = [self.connection, upstream]
        try:
            while True:
                readable, _, _ = select.select(conns, [], [], 5)
                if not readable:
                    return
                for s in readable:
                    data = s.recv(65536)
                    if not data:
                        return
                    (upstream if s is self.connection else self.connection).sendall(data)
        finally:
            upstream.close()
            self.close_connection = True


@pytest.fixture(scope='module')
def certs():
    return Certificates(hosts=('kube.internal',))  # the certificate does not name 127.0.0.1


def test_https_through_a_connect_tunnel_with_tls_server_name(servers, certs):
    api, log = servers(tls=certs.server_context())
    proxy, tunnel_log = servers(TunnelProxy)
    client, _ = client_for(url_of(api, 'https'), ca_data=certs.ca_pem.decode(),
                           tls_server_name='kube.internal', proxy=url_of(proxy),
                           proxy_headers={'proxy_basic_auth': 'pu:pp'})
    assert client.get('/version') == {'path': '/version'}
    client.get('/again')
    assert tunnel_log == [{'target': '127.0.0.1:%d' % api.server_address[1],
                           'auth': 'Basic ' + base64.b64encode(b'pu:pp').decode()}]  # one tunnel, reused
    assert 'Proxy-Authorization' not in log[0]['headers']  # proxy credentials never reach the API server
    assert log[0]['headers']['Authorization'] == 'Bearer sekret-token-0123456789'


def test_tunnel_refused_by_the_proxy_is_a_connection_failure(servers, certs):
    api, _ = servers(tls=certs.server_context())
    proxy, tunnel_log = servers(TunnelProxy)
    client, sleeps = client_for(url_of(api, 'https'), ca_data=certs.ca_pem.decode(),
                                tls_server_name='kube.internal', proxy=url_of(proxy),
                                proxy_headers={'proxy_basic_auth': 'pu:wrong'})
    with pytest.raises(ConnectionFailure, match='cannot reach .*407 Proxy Authentication Required') as e:
        client.get('/x')
    assert 'wrong' not in e.value.message
    assert len(tunnel_log) == client_mod.CONNECT_ATTEMPTS


def test_tls_name_mismatch_fails_verification_and_insecure_skips_it(servers, certs):
    api, log = servers(tls=certs.server_context())
    client, sleeps = client_for(url_of(api, 'https'), ca_data=certs.ca_pem.decode())
    with pytest.raises(ConnectionFailure) as e:
        client.get('/x')
    assert e.value.tls and 'certificate verify failed' in e.value.message and sleeps == []
    client, _ = client_for(url_of(api, 'https'))  # system CAs: the test CA is unknown
    with pytest.raises(ConnectionFailure, match='unable to get local issuer certificate'):
        client.get('/x')
    client, _ = client_for(url_of(api, 'https'), verify=False)
    assert client.get('/x') == {'path': '/x'}
    assert len(log) == 1


def test_ca_file_and_client_certificate_required_by_the_server(servers, certs, tmp_path):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID
    import datetime

    # A client CA and certificate of its own; the server requires a certificate it signed.
    now = datetime.datetime.now(datetime.timezone.utc)
    name = lambda cn: x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])  # noqa: E731
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())

    def cert(subject, public_key, ca):
        builder = (x509.CertificateBuilder().subject_name(name(subject)).issuer_name(name('client-ca'))
                   .public_key(public_key).serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(minutes=5))
                   .not_valid_after(now + datetime.timedelta(days=1))
                   .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
        return builder.sign(ca_key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM)

    client_ca = cert('client-ca', ca_key.public_key(), True)
    client_cert = cert('jane', key.public_key(), False)
    client_key = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                   serialization.NoEncryption())
    ctx = certs.server_context()
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.load_verify_locations(cadata=client_ca.decode())
    api, log = servers(tls=ctx)
    (tmp_path / 'ca.crt').write_bytes(certs.ca_pem)
    client, _ = client_for(url_of(api, 'https'), token=None, ca_file=str(tmp_path / 'ca.crt'),
                           tls_server_name='kube.internal', cert_data=client_cert, key_data=client_key)
    assert client.get('/x') == {'path': '/x'}
    assert 'Authorization' not in log[0]['headers']
    client, _ = client_for(url_of(api, 'https'), ca_file=str(tmp_path / 'ca.crt'),
                           tls_server_name='kube.internal')
    with pytest.raises(ConnectionFailure):
        client.get('/x')  # no client certificate: the handshake (or the first read) fails

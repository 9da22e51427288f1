"""A deliberately hostile Kubernetes API server on 127.0.0.1, for testing the client's bounds.

Every request is answered according to the server's ``mode`` (see ``MODES``); requests a mode does
not target get a plausible answer (a Deployment ``default/web`` whose rollout is not finished, or a
list holding it), so a client gets as far as the bad answer it is meant to meet. Nothing blocks for
longer than ``max_duration`` seconds, and ``stop()`` closes every open connection at once.

    with HostileServer('bookmarks_only') as server:
        ... point a client at server.url ...
        assert server.count('/apis/apps/v1/namespaces/default/deployments', watch=True) <= 5
"""

import base64
import collections
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

NAMESPACE, NAME = 'default', 'web'
OBJECT_PATH = '/apis/apps/v1/namespaces/%s/deployments/%s' % (NAMESPACE, NAME)
COLLECTION_PATH = '/apis/apps/v1/namespaces/%s/deployments' % NAMESPACE

# What the API server answers when a JSON patch does not apply, a failed `test` operation
# included: the patch handler turns the JSON-patch library's error into
# NewGenericServerResponse(422, "", GroupResource{}, "", err.Error(), 0, false). With
# isUnexpectedResponse false that keeps no causes, so the library's "testing value ... failed"
# text is not in the answer at all, and the details carry only empty (omitted) fields.
PATCH_TEST_FAILED = {
    'kind': 'Status', 'apiVersion': 'v1', 'metadata': {}, 'status': 'Failure',
    'message': 'the server rejected our request due to an error in our request',
    'reason': 'Invalid', 'details': {}, 'code': 422,
}
CONFLICT = {
    'kind': 'Status', 'apiVersion': 'v1', 'metadata': {}, 'status': 'Failure',
    'message': 'Operation cannot be fulfilled on deployments.apps "%s": the object has been modified; '
               'please apply your changes to the latest version and try again' % NAME,
    'reason': 'Conflict', 'details': {'name': NAME, 'group': 'apps', 'kind': 'deployments'}, 'code': 409,
}

MODES = {
    'normal': 'plausible answers only (a Deployment mid-rollout; watches send one MODIFIED, then end)',
    'bookmarks_only': 'watches stream BOOKMARK events only, never one for the watched object',
    'other_objects': 'watches stream MODIFIED events for other Deployments only',
    'garbage_lines': 'watches stream lines that are not JSON',
    'malformed_events': 'watches send events that are JSON but not watch events, then end',
    'empty_watch': 'watches answer 200 with an empty body at once',
    'trickle': 'every answer\'s body arrives one byte every `trickle_interval` seconds',
    'silent': 'connections are accepted, requests read, and never answered',
    'huge': 'GETs answer 200 with a `huge_size`-byte JSON object (Content-Length; chunked with '
            '`chunked=True`)',
    'too_many_requests': 'every request gets 429 with a non-numeric Retry-After and retryAfterSeconds',
    'unauthorized_echo': 'every request gets 401 whose message echoes the Authorization header, raw and '
                         'base64-encoded',
    'patch_test_failed': 'PATCH gets 422 Invalid exactly as a failed JSON-patch `test` gets it',
    'conflict': 'PATCH and PUT get 409 Conflict as an outdated resourceVersion gets it',
    'json_array': 'every request but /version gets 200 with a JSON array instead of an object',
    'deep_json': 'every request but /version gets 200 with JSON nested 10,000 arrays deep',
    'redirect': 'every request but /version gets 302 Found to another host',
}
REDIRECT_TO = 'https://login.example.invalid/oauth/start'
WATCH_MODES = ('bookmarks_only', 'other_objects', 'garbage_lines', 'malformed_events', 'empty_watch')
MALFORMED_EVENTS = (
    b'{"type": "MODIFIED", "object": {"kind": "Deployment", "metadata": {"name": "we',
    b'{"type": "MODIFIED"}',
    b'{"type": "MODIFIED", "object": "web"}',
    b'{"object": {"kind": "Deployment", "metadata": {"name": "web"}}}',
    b'["MODIFIED", {}]',
    b'{"type": "EXPLODED", "object": {"kind": "Deployment", "metadata": {"name": "web"}}}',
    b'{"type": "ERROR", "object": {"kind": "Status", "code": "gone"}}',
)


def deployment(name=NAME, resource_version='100'):
    """A Deployment whose rollout has not finished: a waiter keeps waiting for it."""
    return {
        'apiVersion': 'apps/v1', 'kind': 'Deployment',
        'metadata': {'name': name, 'namespace': NAMESPACE, 'uid': 'uid-%s' % name,
                     'resourceVersion': resource_version, 'generation': 2,
                     'annotations': {'deployment.kubernetes.io/revision': '2'}},
        'spec': {'replicas': 3, 'selector': {'matchLabels': {'app': name}},
                 'template': {'metadata': {'labels': {'app': name}},
                              'spec': {'containers': [{'name': 'app', 'image': 'nginx:1.25'}]}}},
        'status': {'observedGeneration': 1, 'replicas': 3, 'updatedReplicas': 1, 'readyReplicas': 2,
                   'availableReplicas': 2},
    }


def _status(code, reason, message, details=None):
    body = {'kind': 'Status', 'apiVersion': 'v1', 'metadata': {}, 'status': 'Failure',
            'message': message, 'reason': reason, 'code': code}
    if details is not None:
        body['details'] = details
    return body


class _Handler(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    server_version = 'hostile'
    sys_version = ''

    def log_message(self, *_args):
        pass

    # Every method goes through one dispatcher.
    def do_GET(self):
        self._dispatch()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_GET

    @property
    def hostile(self):
        return self.server.hostile

    def _dispatch(self):
        length = int(self.headers.get('Content-Length') or 0)
        body = self.rfile.read(length) if length else b''
        split = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(split.query).items()}
        watch = query.get('watch') in ('true', '1')
        self.hostile._record(self.command, split.path, query, self.headers, body)
        try:
            getattr(self, '_mode_' + self.hostile.mode)(split.path, watch, query)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, socket.timeout, OSError):
            self.close_connection = True

    # ---- answers ----

    def _send_json(self, code, obj, headers=None):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _plausible(self, path, watch):
        if path == '/version':
            return self._send_json(200, {'major': '1', 'minor': '30', 'gitVersion': 'v1.30.0'})
        if watch:
            return self._stream([json.dumps({'type': 'MODIFIED', 'object': deployment()}).encode()])
        if path.rstrip('/').rsplit('/', 1)[-1] in ('deployments', 'statefulsets', 'daemonsets',
                                                    'replicasets', 'pods', 'replicationcontrollers'):
            return self._send_json(200, {'apiVersion': 'v1', 'kind': 'List',
                                         'metadata': {'resourceVersion': '100'}, 'items': [deployment()]})
        if self.command == 'GET':
            return self._send_json(200, deployment())
        return self._send_json(200, deployment(resource_version='101'))

    def _start_stream(self):
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Transfer-Encoding', 'chunked')
        self.end_headers()

    def _chunk(self, data):
        self.wfile.write(b'%x\r\n%s\r\n' % (len(data), data))
        self.wfile.flush()

    def _end_stream(self):
        self.wfile.write(b'0\r\n\r\n')
        self.wfile.flush()

    def _stream(self, lines):
        self._start_stream()
        for line in lines:
            self._chunk(line + b'\n')
        self._end_stream()

    def _stream_forever(self, make_line):
        """Chunks every ``event_interval`` until the client leaves or ``max_duration`` passes."""
        self._start_stream()
        deadline = time.monotonic() + self.hostile.max_duration
        n = 0
        while time.monotonic() < deadline and not self.hostile._stopping.is_set():
            n += 1
            self._chunk(make_line(n) + b'\n')
            self.hostile._stopping.wait(self.hostile.event_interval)
        self.close_connection = True

    # ---- modes ----

    def _mode_normal(self, path, watch, _query):
        self._plausible(path, watch)

    def _send_raw(self, code, data, headers=None):
        self.send_response(code)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _mode_json_array(self, path, watch, _query):
        if path == '/version':
            return self._plausible(path, watch)
        self._send_raw(200, json.dumps([deployment()]).encode())

    def _mode_deep_json(self, path, watch, _query):
        if path == '/version':
            return self._plausible(path, watch)
        self._send_raw(200, b'[' * 10000 + b']' * 10000)

    def _mode_redirect(self, path, watch, _query):
        if path == '/version':
            return self._plausible(path, watch)
        self._send_raw(302, b'', {'Location': REDIRECT_TO})

    def _mode_bookmarks_only(self, path, watch, _query):
        if not watch:
            return self._plausible(path, watch)
        self._stream_forever(lambda n: json.dumps({'type': 'BOOKMARK', 'object': {
            'kind': 'Deployment', 'apiVersion': 'apps/v1',
            'metadata': {'resourceVersion': str(1000 + n)}}}).encode())

    def _mode_other_objects(self, path, watch, _query):
        if not watch:
            return self._plausible(path, watch)
        self._stream_forever(lambda n: json.dumps({
            'type': 'MODIFIED', 'object': deployment('other-%d' % (n % 7), str(1000 + n))}).encode())

    def _mode_garbage_lines(self, path, watch, _query):
        if not watch:
            return self._plausible(path, watch)
        self._stream_forever(lambda n: b'<html>proxy error %d</html> \xff\xfe not json' % n)

    def _mode_malformed_events(self, path, watch, _query):
        if not watch:
            return self._plausible(path, watch)
        self._stream(list(MALFORMED_EVENTS))

    def _mode_empty_watch(self, path, watch, _query):
        if not watch:
            return self._plausible(path, watch)
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', '0')
        self.end_headers()

    def _mode_trickle(self, path, watch, _query):
        data = json.dumps(deployment()).encode()
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.flush()
        deadline = time.monotonic() + self.hostile.max_duration
        for i in range(len(data)):
            if time.monotonic() >= deadline or self.hostile._stopping.is_set():
                break
            self.wfile.write(data[i:i + 1])
            self.wfile.flush()
            self.hostile._stopping.wait(self.hostile.trickle_interval)
        self.close_connection = True

    def _mode_silent(self, _path, _watch, _query):
        self.hostile._stopping.wait(self.hostile.max_duration)
        self.close_connection = True

    def _mode_huge(self, path, watch, _query):
        if watch or self.command != 'GET':
            return self._plausible(path, watch)
        head = json.dumps(deployment())[:-1].encode() + b', "padding": "'
        tail = b'"}'
        filler = self.hostile.huge_size - len(head) - len(tail)
        block = b'A' * 65536
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        if self.hostile.chunked:
            self.send_header('Transfer-Encoding', 'chunked')
        else:
            self.send_header('Content-Length', str(len(head) + max(filler, 0) + len(tail)))
        self.end_headers()
        write = self._chunk if self.hostile.chunked else self.wfile.write
        write(head)
        deadline = time.monotonic() + self.hostile.max_duration
        while filler > 0 and time.monotonic() < deadline and not self.hostile._stopping.is_set():
            piece = block[:filler]
            write(piece)
            filler -= len(piece)
        write(tail)
        if self.hostile.chunked:
            self._end_stream()

    def _mode_too_many_requests(self, _path, _watch, _query):
        value = self.hostile.retry_after
        self._send_json(429, _status(429, 'TooManyRequests',
                                     'Too many requests, please try again later.',
                                     {'retryAfterSeconds': value}),
                        headers={'Retry-After': str(value)})

    def _mode_unauthorized_echo(self, _path, _watch, _query):
        auth = self.headers.get('Authorization') or ''
        encoded = base64.b64encode(auth.encode('latin-1')).decode('ascii')
        self._send_json(401, _status(
            401, 'Unauthorized',
            'Unauthorized: credentials %s rejected (base64 %s)' % (auth, encoded), {}),
            headers={'Www-Authenticate': 'Bearer realm="%s"' % auth})

    def _mode_patch_test_failed(self, path, watch, _query):
        if self.command != 'PATCH':
            return self._plausible(path, watch)
        self._send_json(422, PATCH_TEST_FAILED)

    def _mode_conflict(self, path, watch, _query):
        if self.command not in ('PATCH', 'PUT'):
            return self._plausible(path, watch)
        self._send_json(409, CONFLICT)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64

    def __init__(self, hostile):
        self.hostile = hostile
        super().__init__(('127.0.0.1', 0), _Handler)

    def process_request(self, request, client_address):
        self.hostile._track(request)
        super().process_request(request, client_address)


Request = collections.namedtuple('Request', 'method path query headers body')


class HostileServer:
    """See the module docstring. Options:

    ``mode``: a key of ``MODES`` (``set_mode`` changes it while running).
    ``max_duration``: the longest any one answer lasts, in seconds.
    ``event_interval``: seconds between events of an endless watch stream.
    ``trickle_interval``: seconds between the bytes of a trickled body.
    ``huge_size``: bytes of the ``huge`` answer; ``chunked``: send it chunked.
    ``retry_after``: the Retry-After / retryAfterSeconds value of ``too_many_requests``.
    """

    def __init__(self, mode='normal', max_duration=20.0, event_interval=0.05, trickle_interval=2.0,
                 huge_size=64 * 1024 * 1024, chunked=False, retry_after='soon'):
        self.set_mode(mode)
        self.max_duration = max_duration
        self.event_interval = event_interval
        self.trickle_interval = trickle_interval
        self.huge_size = huge_size
        self.chunked = chunked
        self.retry_after = retry_after
        self.requests = []
        self._lock = threading.Lock()
        self._connections = set()
        self._stopping = threading.Event()
        self._server = None
        self._thread = None

    def set_mode(self, mode):
        if mode not in MODES:
            raise ValueError('unknown mode %r (modes: %s)' % (mode, ', '.join(sorted(MODES))))
        self.mode = mode

    @property
    def url(self):
        return 'http://127.0.0.1:%d' % self._server.server_address[1]

    def start(self):
        self._server = _Server(self)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={'poll_interval': 0.05},
                                        name='hostile-api-server', daemon=True)
        self._thread.start()
        return self

    def stop(self):
        self._stopping.set()
        if self._server is None:
            return
        self._server.shutdown()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._server.server_close()
        self._thread.join(5)

    def __enter__(self):
        return self.start()

    def __exit__(self, *_exc):
        self.stop()

    # ---- what was asked ----

    def _track(self, conn):
        with self._lock:
            self._connections = {c for c in self._connections if c.fileno() != -1}
            self._connections.add(conn)

    def _record(self, method, path, query, headers, body):
        with self._lock:
            self.requests.append(Request(method, path, query, dict(headers.items()), body))

    def count(self, path=None, method=None, watch=None):
        """Requests seen so far, optionally only those for ``path``, of ``method``, watches or not."""
        with self._lock:
            requests = list(self.requests)
        return sum(1 for r in requests
                   if (path is None or r.path == path)
                   and (method is None or r.method == method)
                   and (watch is None or (r.query.get('watch') in ('true', '1')) == watch))

    def counts(self):
        """{(method, path): number of requests}."""
        with self._lock:
            return dict(collections.Counter((r.method, r.path) for r in self.requests))

    def kubeconfig(self, token=None):
        """A kubeconfig (dict) pointing at this server, with ``token`` as the user's bearer token."""
        user = {'token': token} if token else {}
        return {'apiVersion': 'v1', 'kind': 'Config', 'current-context': 'hostile',
                'clusters': [{'name': 'hostile', 'cluster': {'server': self.url}}],
                'users': [{'name': 'hostile', 'user': user}],
                'contexts': [{'name': 'hostile', 'context': {'cluster': 'hostile', 'user': 'hostile',
                                                             'namespace': NAMESPACE}}]}

"""Endpoints for the analysis checks' tests, on 127.0.0.1: an HTTP(S) server that answers what a test
sets, hostile answers included, and a forward proxy that records what reaches it.

``Endpoint()``: ``answer(path, status=200, body=b'', delay=0, headers=None, trickle=0, raw=None)``
sets what a path answers (any method; other paths answer 404):

- ``body``: bytes, a ``str`` (encoded), a ``dict`` (sent as JSON) or a function of the request's
  headers (an echo);
- ``delay``: seconds before anything is sent (a silent endpoint);
- ``trickle``: seconds between two bytes of the body (headers first, at once);
- ``raw``: bytes sent instead of a whole response, status line and headers included (trickled too
  with ``trickle``).

``url`` is its base URL (``https`` with ``tls=Certificates()`` from tests/kubesim/apiserver/tls.py);
``requests`` lists every request as (method, path with query, headers dict). Nothing it does blocks
``stop()``, which ends every answer still under way.

``RecordingProxy()``: a forward proxy (absolute URIs for http, CONNECT tunnels for https) at
``url``; ``requests`` lists (method, target, headers dict) of everything that reached it.
"""

import http.client
import json
import select
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit


def _encoded(body):
    if isinstance(body, dict):
        body = json.dumps(body)
    if isinstance(body, str):
        body = body.encode()
    return body


class _Server:
    def __init__(self, handler, tls=None):
        self.stopping = threading.Event()
        self.server = ThreadingHTTPServer(('127.0.0.1', 0), handler)
        self.server.daemon_threads = True
        self.scheme = 'http'
        if tls is not None:
            self.server.socket = tls.server_context().wrap_socket(self.server.socket, server_side=True)
            self.scheme = 'https'
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()
        self.port = self.server.server_address[1]
        self.url = '%s://127.0.0.1:%d' % (self.scheme, self.port)

    def stop(self):
        self.stopping.set()
        self.server.shutdown()
        self.server.server_close()


class Endpoint(_Server):
    def __init__(self, tls=None):
        self.answers = {}
        self.requests = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_args):
                pass

            def _write(self, data, trickle):
                try:
                    if not trickle:
                        self.wfile.write(data)
                        return
                    for i in range(len(data)):
                        if owner.stopping.wait(trickle):
                            return
                        self.wfile.write(data[i:i + 1])
                        self.wfile.flush()
                except OSError:  # the client gave up
                    pass

            def _any(self):
                owner.requests.append((self.command, self.path, dict(self.headers)))
                path = self.path.split('?', 1)[0]
                answer = owner.answers.get(path, (404, b'not found\n', 0, {}, 0, None))
                status, body, delay, headers, trickle, raw = answer
                if delay and owner.stopping.wait(delay):
                    return
                if raw is not None:
                    self._write(raw, trickle)
                    self.close_connection = True
                    return
                if callable(body):
                    body = _encoded(body(dict(self.headers)))
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                if self.command != 'HEAD':
                    self._write(body, trickle)

            do_GET = do_POST = do_HEAD = do_PUT = _any

        super(Endpoint, self).__init__(Handler, tls)

    def answer(self, path, status=200, body=b'', delay=0, headers=None, trickle=0, raw=None):
        body = body if callable(body) else _encoded(body)
        self.answers[path] = (status, body, delay, dict(headers or {}), trickle, raw)


class RecordingProxy(_Server):
    def __init__(self):
        self.requests = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_args):
                pass

            def _forward(self):
                owner.requests.append((self.command, self.path, dict(self.headers)))
                target = urlsplit(self.path)
                conn = http.client.HTTPConnection(target.hostname, target.port or 80, timeout=10)
                try:
                    headers = {k: v for k, v in self.headers.items() if k.lower() != 'proxy-authorization'}
                    conn.request(self.command, target.path + ('?' + target.query if target.query else ''),
                                 headers=headers)
                    response = conn.getresponse()
                    body = response.read()
                except OSError:
                    self.send_error(502)
                    return
                finally:
                    conn.close()
                self.send_response(response.status)
                self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_CONNECT(self):
                owner.requests.append(('CONNECT', self.path, dict(self.headers)))
                host, _sep, port = self.path.rpartition(':')
                try:
                    upstream = socket.create_connection((host.strip('[]'), int(port)), timeout=10)
                except OSError:
                    self.send_error(502)
                    return
                self.send_response(200, 'Connection established')
                self.end_headers()
                self.wfile.flush()
                ends = [self.connection, upstream]
                try:
                    while not owner.stopping.is_set():
                        ready, _w, _x = select.select(ends, [], [], 0.1)
                        for end in ready:
                            data = end.recv(65536)
                            if not data:
                                return
                            (upstream if end is self.connection else self.connection).sendall(data)
                except OSError:
                    pass
                finally:
                    upstream.close()
                    self.close_connection = True

            do_GET = do_POST = do_HEAD = do_PUT = _forward

        super(RecordingProxy, self).__init__(Handler)

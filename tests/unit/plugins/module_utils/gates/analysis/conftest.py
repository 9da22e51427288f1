"""``endpoint``: a real local HTTP server (the standard library's) for the providers' requests.

``endpoint.answer(path, status=200, body=b'', delay=0, headers=None)`` sets what a path answers
(any method; a ``str`` body is encoded, a ``dict`` is sent as JSON); other paths answer 404.
``endpoint.url`` is its base URL, ``endpoint.requests`` lists every request as (method, path with
query, headers dict). Proxy variables are unset, so requests reach it directly."""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


class Endpoint:
    def __init__(self):
        self.answers = {}
        self.requests = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_args):
                pass

            def _any(self):
                owner.requests.append((self.command, self.path, dict(self.headers)))
                path = self.path.split('?', 1)[0]
                status, body, delay, headers = owner.answers.get(path, (404, b'not found\n', 0, {}))
                time.sleep(delay)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                if self.command != 'HEAD':
                    self.wfile.write(body)

            do_GET = do_POST = do_HEAD = do_PUT = _any

        self.server = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()
        self.url = 'http://127.0.0.1:%d' % self.server.server_address[1]

    def answer(self, path, status=200, body=b'', delay=0, headers=None):
        if isinstance(body, dict):
            body = json.dumps(body)
        if isinstance(body, str):
            body = body.encode()
        self.answers[path] = (status, body, delay, dict(headers or {}))

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def endpoint(monkeypatch):
    for name in ('http_proxy', 'https_proxy', 'all_proxy', 'HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY'):
        monkeypatch.delenv(name, raising=False)
    server = Endpoint()
    yield server
    server.stop()

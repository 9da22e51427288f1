"""Real components for the analysis checks: a metrics endpoint the test controls and a real
Prometheus scraping it.

- ``MetricsServer``: a local HTTP server. ``/metrics`` serves the gauges set with ``set(name,
  value, **labels)`` in the Prometheus text format; ``/healthz`` answers ``health_status`` with
  ``health_body``; with ``token`` set, both ask for ``Authorization: Bearer <token>`` (401 else).
  ``requests`` lists (path, Authorization header) of every request.
- ``prometheus_binary()``: the Debian package's ``prometheus``, fetched into ``.cache/`` on first use
  (``apt-get download`` and ``dpkg-deb -x``, no root), as ``make setup`` does.
- ``Prometheus(binary, target, tmp)``: a started server scraping ``target`` every second; ``url``,
  ``wait_for(query)`` until the query has data, ``stop()``.
"""

import fcntl
import http.server
import json
import pathlib
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

from tests.conftest import ROOT

PROMETHEUS_DIR = ROOT / '.cache' / 'prometheus'
PROMETHEUS = PROMETHEUS_DIR / 'usr' / 'bin' / 'prometheus'


def prometheus_binary():
    if PROMETHEUS.exists():
        return PROMETHEUS
    PROMETHEUS_DIR.mkdir(parents=True, exist_ok=True)
    with open(PROMETHEUS_DIR.parent / 'prometheus.lock', 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not PROMETHEUS.exists():
            proc = subprocess.run(['scripts/fetch-prometheus'], cwd=ROOT, capture_output=True, text=True)
            if proc.returncode != 0 or not PROMETHEUS.exists():
                pytest.fail(
                    f'could not fetch the Debian package prometheus into {PROMETHEUS_DIR}:\n'
                    f'{proc.stdout}\n{proc.stderr}'
                )
    return PROMETHEUS


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


class MetricsServer:
    def __init__(self, token=None):
        self.token = token
        self.gauges = {}
        self.health_status = 200
        self.health_body = 'ok'
        self.requests = []
        self.lock = threading.Lock()
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *_args):
                pass

            def do_GET(self):
                auth = self.headers.get('Authorization')
                server.requests.append((self.path, auth))
                if server.token and auth != f'Bearer {server.token}':
                    return self.answer(401, 'Unauthorized\n')
                if self.path == '/metrics':
                    return self.answer(200, server.exposition(), 'text/plain; version=0.0.4')
                if self.path == '/healthz':
                    return self.answer(server.health_status, server.health_body)
                return self.answer(404, 'not found\n')

            def answer(self, status, text, ctype='text/plain'):
                body = text.encode()
                self.send_response(status)
                self.send_header('Content-Type', ctype)
                self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f'http://127.0.0.1:{self.port}'
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def set(self, name, value, **labels):
        key = (name, tuple(sorted(labels.items())))
        with self.lock:
            self.gauges[key] = value

    def exposition(self):
        with self.lock:
            items = sorted(self.gauges.items())
        lines = []
        for (name, labels), value in items:
            text = ','.join(f'{k}="{v}"' for k, v in labels)
            lines.append(f'{name}{{{text}}} {value}' if text else f'{name} {value}')
        return '\n'.join(lines) + '\n'

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class Prometheus:
    def __init__(self, binary, target_port, tmp, token=None):
        self.port = free_port()
        self.url = f'http://127.0.0.1:{self.port}'
        config = tmp / 'prometheus.yml'
        job = {
            'job_name': 'app',
            'scrape_interval': '1s',
            'scrape_timeout': '900ms',
            'static_configs': [{'targets': [f'127.0.0.1:{target_port}']}],
        }
        if token:
            job['authorization'] = {'type': 'Bearer', 'credentials': token}
        config.write_text(
            json.dumps(
                {'global': {'scrape_interval': '1s', 'evaluation_interval': '1s'}, 'scrape_configs': [job]}
            )
        )
        self.log = open(tmp / 'prometheus.log', 'w')  # noqa: SIM115 - open while the server runs
        self.proc = subprocess.Popen(
            [
                str(binary),
                f'--config.file={config}',
                f'--storage.tsdb.path={tmp / "tsdb"}',
                f'--web.listen-address=127.0.0.1:{self.port}',
                '--web.enable-lifecycle',
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        self.wait_for('up')

    def query(self, expr):
        url = f'{self.url}/api/v1/query?' + urllib.parse.urlencode({'query': expr})
        with urllib.request.urlopen(url, timeout=5) as response:
            return json.load(response)

    def wait_for(self, expr, timeout=30, until=lambda result: bool(result)):
        """Until ``expr`` has a result that satisfies ``until``; returns it."""
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(
                    f'prometheus exited {self.proc.returncode}: '
                    f'{pathlib.Path(self.log.name).read_text()[-2000:]}'
                )
            try:
                last = self.query(expr)['data']['result']
                if until(last):
                    return last
            except OSError:
                pass
            time.sleep(0.2)
        raise AssertionError(f'prometheus: no data for {expr} in {timeout}s (last {last})')

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def value_is(expected):
    """A ``wait_for`` condition: the first series has the value ``expected``."""
    return lambda result: bool(result) and float(result[0]['value'][1]) == float(expected)


class RoutingProxy:
    """An HTTP forward proxy (for ``http_proxy``) that sends each host:port of ``routes`` to a local
    base URL, so that examples written with cluster host names reach the test's servers."""

    def __init__(self, routes):
        self.routes = dict(routes)
        self.seen = []
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *_args):
                pass

            def do_GET(self):
                self.forward('GET')

            def do_HEAD(self):
                self.forward('HEAD')

            def forward(self, method):
                target = urllib.parse.urlsplit(self.path)
                proxy.seen.append(target.netloc)
                base = proxy.routes.get(target.netloc)
                if base is None:
                    return self.reply(502, {}, b'no route to %s\n' % target.netloc.encode())
                url = base + target.path + ('?' + target.query if target.query else '')
                headers = {k: v for k, v in self.headers.items() if k.lower() in ('authorization', 'accept')}
                request = urllib.request.Request(url, method=method, headers=headers)
                opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
                try:
                    with opener.open(request, timeout=10) as response:
                        self.reply(response.status, dict(response.headers), response.read())
                except urllib.error.HTTPError as e:
                    self.reply(e.code, dict(e.headers), e.read())

            def reply(self, status, headers, body):
                self.send_response(status)
                self.send_header('Content-Type', headers.get('Content-Type', 'text/plain'))
                self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f'http://127.0.0.1:{self.httpd.server_address[1]}'
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()

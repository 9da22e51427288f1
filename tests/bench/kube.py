"""kubesim as a subprocess, a minimal raw-JSON API client for fixtures, and the request log reader.

The benchmark talks to kubesim only the way a user's tools do (HTTP with the kubeconfig it writes),
so the same harness could be pointed at another API server. Fixture traffic lands in the request log
too; measurements only ever read the slice of the log between two recorded offsets.
"""

import base64
import http.client
import json
import os
import re
import signal
import ssl
import subprocess
import sys
import time
import urllib.parse

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

def is_discovery(path):
    """True for discovery documents: /api, /api/v1, /apis, /apis/apps, /apis/apps/v1, /version, /openapi/*.

    Resource paths have at least a resource segment after the group version
    (``/api/v1/namespaces``, ``/apis/apps/v1/deployments``); for the core group ``/api/v1/<plural>``
    has three segments, so the check looks at the group to tell them apart.
    """
    parts = [p for p in path.split('/') if p]
    if not parts:
        return True
    if parts[0] in ('version', 'openapi', '.well-known'):
        return True
    if parts[0] == 'api':
        return len(parts) <= 2
    if parts[0] == 'apis':
        return len(parts) <= 3
    return False


def is_watch(entry):
    query = entry.get('query') or ''
    if isinstance(query, dict):
        return str(query.get('watch', '')).lower() in ('true', '1')
    return bool(re.search(r'(^|&)watch=(true|1)(&|$)', query))


def describe(entry):
    """A short label for one request: 'GET', 'LIST', 'WATCH', 'PATCH', ... plus 'discovery'."""
    if is_discovery(entry['path']):
        return 'discovery'
    method = entry['method']
    if method == 'GET':
        if is_watch(entry):
            return 'WATCH'
        # A collection path ends in a resource plural: /apis/g/v/namespaces/ns/<plural>.
        parts = [p for p in entry['path'].split('/') if p]
        base = 2 if parts[0] == 'api' else 3
        rest = parts[base:]
        if rest[:1] == ['namespaces'] and len(rest) >= 3:
            rest = rest[2:]
        return 'LIST' if len(rest) == 1 else 'GET'
    return method


class RequestLog:
    """kubesim's request log: one JSON object per line, read by byte offsets."""

    def __init__(self, path):
        self.path = path

    def offset(self):
        try:
            return os.path.getsize(self.path)
        except FileNotFoundError:
            return 0

    def between(self, start, end=None):
        with open(self.path, 'rb') as f:
            f.seek(start)
            data = f.read() if end is None else f.read(end - start)
        return [json.loads(line) for line in data.decode().splitlines() if line.strip()]


class ApiFailure(RuntimeError):
    def __init__(self, method, path, code, body):
        super().__init__(f'{method} {path}: HTTP {code}: {body[:300]}')
        self.code = code


class ApiClient:
    """Raw JSON over HTTP(S) with the kubeconfig kubesim wrote (token and CA data only)."""

    def __init__(self, kubeconfig):
        self.kubeconfig = kubeconfig
        with open(kubeconfig) as f:
            cfg = yaml.safe_load(f)
        ctx_name = cfg['current-context']
        ctx = next(c['context'] for c in cfg['contexts'] if c['name'] == ctx_name)
        cluster = next(c['cluster'] for c in cfg['clusters'] if c['name'] == ctx['cluster'])
        user = next((u['user'] for u in cfg['users'] if u['name'] == ctx['user']), {}) or {}
        self.server = cluster['server'].rstrip('/')
        self.headers = {'Accept': 'application/json'}
        if user.get('token'):
            self.headers['Authorization'] = 'Bearer ' + user['token']
        self._conn = None
        self.context = None
        if self.server.startswith('https'):
            ca = cluster.get('certificate-authority-data')
            self.context = ssl.create_default_context(
                cadata=base64.b64decode(ca).decode() if ca else None)
            if not ca:
                self.context.check_hostname = False
                self.context.verify_mode = ssl.CERT_NONE

    def _connection(self):
        if self._conn is None:
            parsed = urllib.parse.urlsplit(self.server)
            if parsed.scheme == 'https':
                self._conn = http.client.HTTPSConnection(parsed.hostname, parsed.port,
                                                         context=self.context, timeout=30)
            else:
                self._conn = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=30)
        return self._conn

    def request(self, method, path, body=None, query=None, content_type='application/json'):
        """One call on a kept-alive connection (fixtures create thousands of objects)."""
        url = path + ('?' + urllib.parse.urlencode(query) if query else '')
        data = json.dumps(body).encode() if body is not None else None
        headers = dict(self.headers)
        if data is not None:
            headers['Content-Type'] = content_type
        for attempt in (1, 2):
            conn = self._connection()
            try:
                conn.request(method, url, body=data, headers=headers)
                resp = conn.getresponse()
                payload = resp.read()
                break
            except (http.client.HTTPException, OSError):
                # A kept-alive connection the server closed: reconnect once.
                conn.close()
                self._conn = None
                if attempt == 2:
                    raise
        if resp.status >= 400:
            raise ApiFailure(method, path, resp.status, payload.decode(errors='replace'))
        return json.loads(payload or b'null')

    def close(self):
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def get(self, path, **query):
        return self.request('GET', path, query=query or None)

    def create(self, path, body):
        return self.request('POST', path, body)

    def patch(self, path, body, content_type='application/strategic-merge-patch+json'):
        return self.request('PATCH', path, body, content_type=content_type)

    def delete(self, path):
        return self.request('DELETE', path)


class KubeSim:
    """`python -m tests.kubesim` in a subprocess, with its kubeconfig and request log in ``workdir``."""

    def __init__(self, workdir, ready_delay=0.0, extra_args=()):
        self.workdir = workdir
        self.kubeconfig = os.path.join(workdir, 'kubeconfig')
        self.request_log_path = os.path.join(workdir, 'requests.jsonl')
        self.ready_delay = ready_delay
        self.extra_args = list(extra_args)
        self.proc = None
        self.url = None
        self.log = RequestLog(self.request_log_path)
        self.client = None

    def start(self, timeout=30):
        os.makedirs(self.workdir, exist_ok=True)
        for path in (self.kubeconfig, self.request_log_path):
            if os.path.exists(path):
                os.unlink(path)
        cmd = [sys.executable, '-m', 'tests.kubesim', '--kubeconfig', self.kubeconfig,
               '--request-log', self.request_log_path, '--ready-delay', str(self.ready_delay),
               *self.extra_args]
        self._stderr = open(os.path.join(self.workdir, 'kubesim.stderr'), 'w')  # noqa: SIM115
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=self._stderr,
                                     text=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            if line.startswith('kubesim ready'):
                self.url = line.split()[-1]
                self.client = ApiClient(self.kubeconfig)
                return self
        self.stop()
        with open(self._stderr.name) as f:
            err = f.read()[-2000:]
        raise RuntimeError(f'kubesim did not start: {err}')

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc and self.proc.stdout:
            self.proc.stdout.close()
        if getattr(self, '_stderr', None):
            self._stderr.close()
        self.proc = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

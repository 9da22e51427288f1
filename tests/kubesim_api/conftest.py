"""Helpers for the API-layer tests: a tiny raw HTTP client that returns (status, headers, JSON)."""

import json
import ssl
import time
import urllib.error
import urllib.request

import pytest
from tests.support import manifests


class Http:
    """Raw requests against one server, without any Kubernetes client in the way."""

    def __init__(self, url, token=None, ca_pem=None):
        self.url = url
        self.token = token
        self.context = None
        if ca_pem:
            self.context = ssl.create_default_context(cadata=ca_pem.decode())

    def request(self, method, path, body=None, content_type='application/json', headers=None, timeout=10):
        data = None
        hdrs = dict(headers or {})
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            hdrs['Content-Type'] = content_type
        if self.token:
            hdrs.setdefault('Authorization', f'Bearer {self.token}')
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=hdrs)
        try:
            with urllib.request.urlopen(req, timeout=timeout, context=self.context) as resp:
                raw, status, rh = resp.read(), resp.status, dict(resp.headers)
        except urllib.error.HTTPError as e:
            raw, status, rh = e.read(), e.code, dict(e.headers)
        try:
            payload = json.loads(raw) if raw else None
        except ValueError:
            payload = raw.decode()
        return status, rh, payload

    def get(self, path, **kw):
        return self.request('GET', path, **kw)

    def post(self, path, body, **kw):
        return self.request('POST', path, body, **kw)

    def put(self, path, body, **kw):
        return self.request('PUT', path, body, **kw)

    def patch(self, path, body, content_type='application/strategic-merge-patch+json', **kw):
        return self.request('PATCH', path, body, content_type=content_type, **kw)

    def delete(self, path, body=None, **kw):
        return self.request('DELETE', path, body, **kw)


@pytest.fixture
def http(kubesim):
    return Http(kubesim.url, token=getattr(kubesim, 'token', None), ca_pem=getattr(kubesim, 'ca_pem', None))


def deployment(name='web', replicas=2, image='nginx:1.25', labels=None):
    labels = labels or {'app': name}
    return manifests.workload('Deployment', name, image, replicas, labels=labels, pod_labels=labels)


def watch_events(url, path, *, count=None, timeout=5.0, token=None, ca_pem=None, until=None):
    """Open a watch (``path`` includes the query) and collect events until ``count`` arrived,
    ``until(event)`` is true, the server ends the stream, or ``timeout`` seconds pass.

    Returns (events, ended_by_server)."""
    import http.client
    import socket
    import time
    import urllib.parse

    parts = urllib.parse.urlsplit(url)
    if parts.scheme == 'https':
        ctx = ssl.create_default_context(cadata=ca_pem.decode())
        conn = http.client.HTTPSConnection(parts.hostname, parts.port, timeout=timeout, context=ctx)
    else:
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    headers = {'Authorization': f'Bearer {token}'} if token else {}
    conn.request('GET', path, headers=headers)
    resp = conn.getresponse()
    assert resp.status == 200, resp.read()
    events, ended, deadline = [], False, time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            conn.sock.settimeout(max(0.05, deadline - time.monotonic()))
            try:
                line = resp.readline()
            except (socket.timeout, TimeoutError):
                break
            if not line:
                ended = True
                break
            if not line.strip():
                continue
            events.append(json.loads(line))
            if (count is not None and len(events) >= count) or (until and until(events[-1])):
                break
    finally:
        conn.close()
    return events, ended


def configmap(name, data=None, labels=None):
    return {'apiVersion': 'v1', 'kind': 'ConfigMap',
            'metadata': {'name': name, **({'labels': labels} if labels else {})},
            'data': data or {'k': 'v'}}


def wait_for(fn, what='condition', timeout=10.0, interval=0.05):
    """Poll ``fn()`` until it returns something true, and return that; fail naming ``what`` after
    ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = fn()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f'timed out waiting for {what}')
        time.sleep(interval)

"""A real concurrent writer between the modules' read and their guarded write: the API server's
answer (a bare 422 Invalid for a failed JSON-patch `test`, exactly as kubesim now gives it) is taken
as a conflict, the object is read again and the decision made again; the other writer's change
survives.

The writer is real ``kubectl`` run against kubesim at the precise moment: a small reverse proxy
between the module and kubesim holds the module's guarded PATCH, runs kubectl, then lets the PATCH
through.
"""

import http.client
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.kubesim.kubeconfig import write_kubeconfig

from .conftest import Kube, task, workload
from .rc import Rcs, rc_manifest

pytestmark = pytest.mark.integration

KUBECTL = str(Path(sys.executable).parent / 'kubectl')


class Interposer:
    """Forwards every request to ``upstream``; before forwarding the first PATCH that carries a
    JSON-patch ``test`` operation and whose path ends with ``target``, runs ``before_write``."""

    def __init__(self, upstream, target, before_write):
        self.upstream = urlsplit(upstream)
        self.target = target
        self.before_write = before_write
        self.fired = threading.Event()
        self.answers = []  # (method, path, status) of every forwarded request
        self._lock = threading.Lock()
        interposer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'

            def log_message(self, *_a):
                pass

            def do_GET(self):
                interposer._forward(self)

            do_PATCH = do_PUT = do_POST = do_DELETE = do_GET

        self.server = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self):
        return 'http://127.0.0.1:%d' % self.server.server_address[1]

    def _forward(self, handler):
        body = handler.rfile.read(int(handler.headers.get('Content-Length') or 0))
        path = urlsplit(handler.path).path
        if (handler.command == 'PATCH' and path.endswith(self.target) and b'"op":"test"' in body
                and not self.fired.is_set()):
            with self._lock:
                if not self.fired.is_set():
                    self.before_write()
                    self.fired.set()
        upstream = http.client.HTTPConnection(self.upstream.hostname, self.upstream.port, timeout=60)
        headers = {k: v for k, v in handler.headers.items() if k.lower() not in ('host', 'connection')}
        upstream.request(handler.command, handler.path, body=body or None, headers=headers)
        resp = upstream.getresponse()
        with self._lock:
            self.answers.append((handler.command, path, resp.status))
        handler.send_response(resp.status)
        for key, value in resp.getheaders():
            if key.lower() not in ('transfer-encoding', 'connection', 'content-length'):
                handler.send_header(key, value)
        handler.send_header('Transfer-Encoding', 'chunked')
        handler.end_headers()
        while True:
            data = resp.read1(65536)
            if not data:
                break
            handler.wfile.write(b'%x\r\n%s\r\n' % (len(data), data))
            handler.wfile.flush()
        handler.wfile.write(b'0\r\n\r\n')
        upstream.close()

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *_exc):
        self.server.shutdown()
        self.server.server_close()


def kubectl(sim, *args):
    subprocess.run([KUBECTL, '--kubeconfig', str(sim.kubeconfig), *args], check=True,
                   capture_output=True, text=True, timeout=60)


def test_undo_meets_a_concurrent_label_and_decides_again(kubesim_factory, play, tmp_path):
    sim = kubesim_factory()
    kube = Kube(sim.kubeconfig)
    kube.create(workload('Deployment', 'web', image='nginx:1.25'))
    kube.rolled_out('Deployment', 'web')
    kube.patch('Deployment', 'web', {'spec': {'template': {'spec': {'containers': [
        {'name': 'app', 'image': 'nginx:1.26'}]}}}})
    kube.rolled_out('Deployment', 'web')

    def other_writer():
        kubectl(sim, 'label', 'deployment', 'web', 'other-team=touched')

    with Interposer(sim.url, '/deployments/web', other_writer) as proxy:
        kubeconfig = write_kubeconfig(tmp_path / 'via-proxy', proxy.url)
        result = play(kubeconfig, [task('undo', 'rollout_undo', kind='Deployment', name='web')])
        r = result.ok('undo')
    assert proxy.fired.is_set()
    patches = [status for method, path, status in proxy.answers
               if method == 'PATCH' and path.endswith('/deployments/web')]
    assert patches == [422, 200], proxy.answers  # the guard tripped, then the fresh decision landed
    assert r['changed']
    live = kube.get('Deployment', 'web')
    assert live['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1.25'
    assert live['metadata']['labels']['other-team'] == 'touched'  # the other write survived


def test_rc_scaling_meets_a_concurrent_scale_and_decides_again(kubesim_factory, play, tmp_path):
    sim = kubesim_factory(ready_delay=0.1)
    rcs = Rcs(Kube(sim.kubeconfig), 'default')
    rcs.create(rc_manifest('web', 'nginx:1.25', 3))
    rcs.wait_ready('web')

    def other_writer():
        # Someone scales the new controller to what the update wanted anyway (it is created at 1,
        # its first scale-up): the guarded write must see that its test no longer holds, read
        # again, and go on from there.
        kubectl(sim, 'scale', 'rc', 'web-v2', '--replicas=2')

    with Interposer(sim.url, '/replicationcontrollers/web-v2', other_writer) as proxy:
        kubeconfig = write_kubeconfig(tmp_path / 'via-proxy', proxy.url)
        result = play(kubeconfig, [{
            'name': 'update', 'ignore_errors': True, 'kubeops.rollout.rolling_update_rc': {
                'name': 'web', 'new_name': 'web-v2', 'image': 'nginx:1.26',
                'update_period': 0.05, 'poll_interval': 0.05, 'timeout': 60}}])
        r = result.ok('update')
    assert proxy.fired.is_set()
    statuses = [status for method, path, status in proxy.answers
                if method == 'PATCH' and path.endswith('/replicationcontrollers/web-v2')]
    assert statuses[0] == 422 and 200 in statuses, proxy.answers
    assert r['changed']
    new = rcs.get('web-v2')
    assert new['spec']['replicas'] == 3
    assert new['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1.26'

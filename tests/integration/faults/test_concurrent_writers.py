"""A real concurrent writer between the modules' read and their guarded write: the API server's
answer (a bare 422 Invalid for a failed JSON-patch `test`, exactly as kubesim now gives it) is taken
as a conflict, the object is read again and the decision made again; the other writer's change
survives. A write the decision did not depend on (an undo's: a status write, a label) is no
conflict at all: the one guarded write lands.

The writer is real ``kubectl`` run against kubesim at the precise moment: a small reverse proxy
between the module and kubesim holds the module's guarded PATCH, runs kubectl, then lets the PATCH
through.
"""

import http.client
import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.kubesim.apiserver.kubeconfig import write_kubeconfig

from ..conftest import Kube, task, workload
from ..rc import Rcs, rc_manifest

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
        self.patch_bodies = []  # the decoded body of every forwarded PATCH, in order
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
        if handler.command == 'PATCH':
            with self._lock:
                self.patch_bodies.append(json.loads(body))
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


def _two_revisions(kube, kind, name):
    kube.create(workload(kind, name, image='nginx:1.25'))
    kube.rolled_out(kind, name)
    kube.patch(kind, name, {'spec': {'template': {'spec': {'containers': [
        {'name': 'app', 'image': 'nginx:1.26'}]}}}})
    kube.rolled_out(kind, name)


def status_and_label_writer(sim, kube, kind, seen):
    """A writer that changes what a decision must not depend on: a status condition (as a
    controller writes mid-rollout) and a label. ``seen`` gets the workload's metadata before and
    after, to show the resourceVersion moved and the generation did not."""
    def write():
        before = kube.get(kind, 'web')['metadata']
        kubectl(sim, 'patch', kind.lower(), 'web', '--subresource=status', '--type=merge', '-p',
                json.dumps({'status': {'conditions': [{'type': 'Probed', 'status': 'True'}]}}))
        kubectl(sim, 'label', kind.lower(), 'web', 'other-team=touched')
        seen.update(before=before, after=kube.get(kind, 'web')['metadata'])
    return write


def _module_requests(proxy, plural, name):
    """(method, status) of the module's requests on the workload and its revisions, in order."""
    out = []
    for method, path, status in proxy.answers:
        if path.endswith('/%s/%s' % (plural, name)):
            out.append((method, status))
        elif path.endswith('/replicasets') or path.endswith('/controllerrevisions'):
            out.append(('LIST', status))
    return out


@pytest.mark.parametrize('kind, plural', [('Deployment', 'deployments'), ('StatefulSet', 'statefulsets')])
def test_undo_is_not_retried_for_a_status_write_between_read_and_write(kubesim_factory, play, tmp_path,
                                                                       kind, plural):
    """A controller writes status all through a rollout; an undo issued then must not pay for it."""
    sim = kubesim_factory()
    kube = Kube(sim.kubeconfig)
    _two_revisions(kube, kind, 'web')
    seen = {}
    with Interposer(sim.url, '/%s/web' % plural, status_and_label_writer(sim, kube, kind, seen)) as proxy:
        kubeconfig = write_kubeconfig(tmp_path / 'via-proxy', proxy.url)
        result = play(kubeconfig, [task('undo', 'rollout_undo', kind=kind, name='web')])
        r = result.ok('undo')
    assert proxy.fired.is_set()
    # the writes really came between the module's read and its write: the resourceVersion moved, the
    # generation (what the undo was decided from) did not
    assert seen['after']['resourceVersion'] != seen['before']['resourceVersion']
    assert seen['after']['generation'] == seen['before']['generation']
    assert _module_requests(proxy, plural, 'web') == [('GET', 200), ('LIST', 200), ('PATCH', 200)], \
        proxy.answers
    assert r['changed']
    live = kube.get(kind, 'web')
    assert live['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1.25'
    assert live['metadata']['labels']['other-team'] == 'touched'  # the other write survived


def test_undo_meets_a_concurrent_spec_write_and_decides_again(kubesim_factory, play, tmp_path):
    sim = kubesim_factory()
    kube = Kube(sim.kubeconfig)
    _two_revisions(kube, 'StatefulSet', 'web')
    generations = []

    def spec_writer():
        kubectl(sim, 'scale', 'statefulset', 'web', '--replicas=3')
        generations.append(kube.get('StatefulSet', 'web')['metadata']['generation'])

    with Interposer(sim.url, '/statefulsets/web', spec_writer) as proxy:
        kubeconfig = write_kubeconfig(tmp_path / 'via-proxy', proxy.url)
        result = play(kubeconfig, [task('undo', 'rollout_undo', kind='StatefulSet', name='web',
                                        to_revision=1)])
        r = result.ok('undo')
    assert proxy.fired.is_set()
    # the guard tripped, then a fresh read and a fresh decision landed
    assert _module_requests(proxy, 'statefulsets', 'web') == [('GET', 200), ('LIST', 200), ('PATCH', 422),
                                                              ('GET', 200), ('LIST', 200), ('PATCH', 200)], \
        proxy.answers
    first, second = proxy.patch_bodies
    assert first[0]['path'] == second[0]['path'] == '/metadata/generation'
    assert second[0]['value'] == generations[0] == first[0]['value'] + 1
    assert r['changed']
    live = kube.get('StatefulSet', 'web')
    assert live['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1.25'
    assert live['spec']['replicas'] == 3  # the other write survived


def test_deployment_undo_meets_a_concurrent_annotation_write_and_keeps_it(kubesim_factory, play, tmp_path):
    """The Deployment undo replaces the annotations whole (keeping the Deployment's own ones such as
    last-applied-configuration): one written between read and write must not be put back."""
    sim = kubesim_factory()
    kube = Kube(sim.kubeconfig)
    _two_revisions(kube, 'Deployment', 'web')
    applied = '{"kind":"Deployment","note":"applied by someone else"}'

    def annotation_writer():
        kubectl(sim, 'annotate', 'deployment', 'web',
                'kubectl.kubernetes.io/last-applied-configuration=' + applied)

    with Interposer(sim.url, '/deployments/web', annotation_writer) as proxy:
        kubeconfig = write_kubeconfig(tmp_path / 'via-proxy', proxy.url)
        result = play(kubeconfig, [task('undo', 'rollout_undo', kind='Deployment', name='web')])
        r = result.ok('undo')
    assert proxy.fired.is_set()
    statuses = [status for method, status in _module_requests(proxy, 'deployments', 'web')
                if method == 'PATCH']
    assert statuses == [422, 200], proxy.answers
    assert r['changed']
    live = kube.get('Deployment', 'web')
    assert live['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1.25'
    assert live['metadata']['annotations']['kubectl.kubernetes.io/last-applied-configuration'] == applied


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


def _config_restart_setup(kube, kind):
    kube.create({'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': 'settings'},
                 'data': {'level': 'info'}})
    kube.create(workload(kind, 'web', image='nginx:1.25'))
    kube.rolled_out(kind, 'web')


@pytest.mark.parametrize('kind, plural', [('Deployment', 'deployments'), ('DaemonSet', 'daemonsets')])
def test_config_restart_is_not_retried_for_a_status_write_between_read_and_write(
        kubesim_factory, play, tmp_path, kind, plural):
    sim = kubesim_factory()
    kube = Kube(sim.kubeconfig)
    _config_restart_setup(kube, kind)
    seen = {}
    with Interposer(sim.url, '/%s/web' % plural, status_and_label_writer(sim, kube, kind, seen)) as proxy:
        kubeconfig = write_kubeconfig(tmp_path / 'via-proxy', proxy.url)
        result = play(kubeconfig, [task('restart', 'rollout_restart', kind=kind, name='web',
                                        config_maps=['settings'])])
        r = result.ok('restart')
    assert proxy.fired.is_set()
    assert seen['after']['resourceVersion'] != seen['before']['resourceVersion']
    assert seen['after']['generation'] == seen['before']['generation']
    patches = [status for method, status in _module_requests(proxy, plural, 'web') if method == 'PATCH']
    assert patches == [200], proxy.answers
    assert r['changed'] and r['workloads'][0]['config_changes']
    live = kube.get(kind, 'web')
    assert live['spec']['template']['metadata']['annotations']['kubeops.rollout/config-digest'] \
        == r['workloads'][0]['config_digest']
    assert live['metadata']['labels']['other-team'] == 'touched'


def test_config_restart_meets_a_concurrent_template_write_and_decides_again(kubesim_factory, play, tmp_path):
    """Someone restarts the Deployment with the same configuration between our read and our write:
    the decision (restart, because the template records no digest) is made again from the template
    as it is now, and their change survives."""
    sim = kubesim_factory()
    kube = Kube(sim.kubeconfig)
    _config_restart_setup(kube, 'Deployment')

    def template_writer():
        kubectl(sim, 'set', 'env', 'deployment/web', 'TEAM=other')

    with Interposer(sim.url, '/deployments/web', template_writer) as proxy:
        kubeconfig = write_kubeconfig(tmp_path / 'via-proxy', proxy.url)
        result = play(kubeconfig, [task('restart', 'rollout_restart', kind='Deployment', name='web',
                                        config_maps=['settings'])])
        r = result.ok('restart')
    assert proxy.fired.is_set()
    patches = [status for method, status in _module_requests(proxy, 'deployments', 'web')
               if method == 'PATCH']
    assert patches == [422, 200], proxy.answers
    first, second = proxy.patch_bodies
    assert first[0]['path'] == second[0]['path'] == '/metadata/generation'
    assert second[0]['value'] == first[0]['value'] + 1
    assert r['changed']
    live = kube.get('Deployment', 'web')
    assert live['spec']['template']['spec']['containers'][0]['env'] == [{'name': 'TEAM', 'value': 'other'}]
    assert live['spec']['template']['metadata']['annotations']['kubeops.rollout/config-digest'] \
        == r['workloads'][0]['config_digest']

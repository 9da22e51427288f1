"""Driving kubesim from unit tests through the collection's own client: a client for a KubeSim,
its request log, waits on what the controllers do, and kubeconfig files written for a test."""

import json
import pathlib
import time

import yaml

from ansible_collections.kubeops.rollout.plugins.module_utils.api.client import ApiClient

WRITE_METHODS = ('POST', 'PUT', 'PATCH', 'DELETE')


def api_client(sim, **params):
    """An ApiClient on ``sim``'s kubeconfig (``params``: more connection options); no back-off sleeps."""
    client = ApiClient.from_params(dict({'kubeconfig': str(sim.kubeconfig)}, **params), env={})
    client.sleep = lambda _seconds: None
    return client


def read_log(path):
    """The entries of a kubesim request log (``request_log=path``), oldest first."""
    p = pathlib.Path(path)
    if not p.exists():
        return []
    return [json.loads(line) for line in p.read_text().splitlines() if line.strip()]


def writes(entries, dry_run=None):
    """The write requests among ``entries`` (only the dry runs, or only the real ones, if asked)."""
    return [e for e in entries
            if e['method'] in WRITE_METHODS and (dry_run is None or e['dry_run'] is dry_run)]


def wait_until(check, what, timeout=20, interval=0.02):
    """``check()``'s first truthy answer; AssertionError naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError('timed out waiting for %s' % what)
        time.sleep(interval)


def settled(client, path):
    """The workload at ``path`` once its controller observed its spec and every replica is ready and
    updated (a Deployment, StatefulSet or DaemonSet)."""
    def check():
        obj = client.get(path)
        spec, status = obj.get('spec') or {}, obj.get('status') or {}
        if status.get('observedGeneration') != obj['metadata'].get('generation'):
            return None
        if obj['kind'] == 'DaemonSet':
            want = status.get('desiredNumberScheduled')
            ok = want is not None and status.get('numberReady') == want \
                and status.get('updatedNumberScheduled') == want
        else:
            want = spec.get('replicas', 1)
            ok = status.get('readyReplicas', 0) == want and status.get('updatedReplicas', 0) == want \
                and status.get('replicas', 0) == want
            if obj['kind'] == 'StatefulSet':
                ok = ok and status.get('currentRevision') == status.get('updateRevision')
        return obj if ok else None
    return wait_until(check, '%s to settle' % path)


def create_settled(client, obj, namespace='default'):
    """Create a workload (a ``manifests.workload``) and wait until it has settled."""
    kind = obj['kind']
    plural = {'Deployment': 'deployments', 'StatefulSet': 'statefulsets', 'DaemonSet': 'daemonsets'}[kind]
    collection = '/apis/apps/v1/namespaces/%s/%s' % (namespace, plural)
    client.create(collection, obj)
    return settled(client, '%s/%s' % (collection, obj['metadata']['name']))


# ---- kubeconfig files -----------------------------------------------------------------------------

TOKEN = 'sekret-token-0123456789'


def write_kubeconfig(path, users=None, contexts=None, current='main', clusters=None, **extra):
    """A kubeconfig file at ``path``: cluster ``c1`` (https://10.0.0.1:6443, CA file ``ca.crt``
    beside it), user ``u1`` (token ``TOKEN``), context ``main`` (namespace ``shop``), unless given."""
    config = {
        'apiVersion': 'v1', 'kind': 'Config', 'current-context': current,
        'clusters': clusters or [{'name': 'c1', 'cluster': {'server': 'https://10.0.0.1:6443',
                                                            'certificate-authority': 'ca.crt'}}],
        'users': users or [{'name': 'u1', 'user': {'token': TOKEN}}],
        'contexts': contexts or [{'name': 'main',
                                  'context': {'cluster': 'c1', 'user': 'u1', 'namespace': 'shop'}}],
    }
    config.update(extra)
    pathlib.Path(path).write_text(yaml.safe_dump(config))
    return str(path)

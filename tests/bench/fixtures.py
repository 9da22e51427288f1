"""Workloads the benchmark runs against, made through the API, and waits for their rollouts.

Every object is plain JSON. Revisions for the scale runs (ReplicaSets, ControllerRevisions) are
created directly instead of by real rollouts: what is measured is reading a long history, not making
one.
"""

import concurrent.futures
import hashlib
import json
import time

from .kube import ApiClient
from tests.support import manifests

NAMESPACE = 'bench'
# kubernetes.core's k8s_rollback lists revisions by the selector's label *keys* only (it joins the
# matchLabels dict), so it can pick another Deployment's ReplicaSet in a shared namespace; its
# workloads get a namespace of their own.
CORE_NAMESPACE = 'bench-core'
CONTAINER = 'web'
IMAGE = 'registry.example/web:{}'

PATHS = {
    'Deployment': '/apis/apps/v1/namespaces/{ns}/deployments',
    'StatefulSet': '/apis/apps/v1/namespaces/{ns}/statefulsets',
    'DaemonSet': '/apis/apps/v1/namespaces/{ns}/daemonsets',
    'ReplicaSet': '/apis/apps/v1/namespaces/{ns}/replicasets',
    'ControllerRevision': '/apis/apps/v1/namespaces/{ns}/controllerrevisions',
    'ReplicationController': '/api/v1/namespaces/{ns}/replicationcontrollers',
    'Pod': '/api/v1/namespaces/{ns}/pods',
}

# How kubectl names each kind on its command line.
KUBECTL_NAMES = {'Deployment': 'deployment', 'StatefulSet': 'statefulset', 'DaemonSet': 'daemonset',
                 'ReplicationController': 'replicationcontroller'}


def collection(kind, ns=NAMESPACE):
    return PATHS[kind].format(ns=ns)


def item(kind, name, ns=NAMESPACE):
    return f'{collection(kind, ns)}/{name}'


def _template(app, image, extra_labels=None):
    labels = {'app': app, **(extra_labels or {})}
    return {'metadata': {'labels': labels},
            'spec': {'containers': [{'name': CONTAINER, 'image': image}],
                     'terminationGracePeriodSeconds': 0}}


def workload(kind, name, replicas=2, image=None, labels=None, history_limit=None, ns=NAMESPACE):
    """A Deployment, StatefulSet, DaemonSet or ReplicationController selecting ``app=<name>``."""
    extra = {'revisionHistoryLimit': history_limit} if history_limit is not None else {}
    return manifests.workload(kind, name, image or IMAGE.format(1), replicas, namespace=ns,
                              labels={'app': name, **(labels or {})}, container=CONTAINER,
                              template_spec={'terminationGracePeriodSeconds': 0}, **extra)


def namespace(api, name=NAMESPACE):
    try:
        api.create('/api/v1/namespaces', {'apiVersion': 'v1', 'kind': 'Namespace',
                                          'metadata': {'name': name}})
    except RuntimeError as e:
        if getattr(e, 'code', None) != 409:
            raise


def delete(api, kind, name, ns=NAMESPACE):
    """Delete with the default (background) propagation: what it owns goes with it."""
    api.delete(item(kind, name, ns))


def create(api, obj):
    return api.create(collection(obj['kind'], obj['metadata'].get('namespace', NAMESPACE)), obj)


def set_image(api, kind, name, image, ns=NAMESPACE):
    return api.patch(item(kind, name, ns), {'spec': {'template': {'spec': {
        'containers': [{'name': CONTAINER, 'image': image}]}}}})


def rollout_complete(obj, kind=None):
    """The same conditions `kubectl rollout status` waits for, per kind (LIST items carry no kind)."""
    kind = kind or obj['kind']
    spec, status = obj.get('spec', {}), obj.get('status') or {}
    if status.get('observedGeneration', 0) < obj['metadata'].get('generation', 1):
        return False
    if kind == 'Deployment':
        if spec.get('paused'):
            return True  # nothing will move: settled as far as the benchmark is concerned
        want = spec.get('replicas', 1)
        updated = status.get('updatedReplicas', 0)
        return (updated >= want and status.get('replicas', 0) <= updated
                and status.get('availableReplicas', 0) >= updated)
    if kind == 'StatefulSet':
        want = spec.get('replicas', 1)
        return (status.get('readyReplicas', 0) >= want
                and status.get('updateRevision') == status.get('currentRevision'))
    if kind == 'DaemonSet':
        desired = status.get('desiredNumberScheduled', 0)
        return (status.get('updatedNumberScheduled', 0) >= desired
                and status.get('numberAvailable', 0) >= status.get('updatedNumberScheduled', 0))
    if kind == 'ReplicationController':
        return status.get('readyReplicas', 0) >= spec.get('replicas', 1)
    raise ValueError(kind)


def wait_complete(api, refs, timeout=120, ns=NAMESPACE):
    """Wait until every (kind, name) has finished rolling out."""
    pending = list(refs)
    deadline = time.monotonic() + timeout
    while pending:
        pending = [ref for ref in pending if not rollout_complete(api.get(item(*ref, ns=ns)))]
        if not pending:
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f'rollouts did not complete within {timeout}s: {pending[:5]}')
        time.sleep(0.05)


def wait_all_complete(api, kind, label_selector, timeout=180, ns=NAMESPACE):
    deadline = time.monotonic() + timeout
    while True:
        items = api.get(collection(kind, ns), labelSelector=label_selector)['items']
        pending = [o['metadata']['name'] for o in items if not rollout_complete(o, kind)]
        if not pending:
            return len(items)
        if time.monotonic() > deadline:
            raise RuntimeError(f'rollouts did not complete within {timeout}s: {pending[:5]}')
        time.sleep(0.1)


def with_two_revisions(api, refs, ns=NAMESPACE):
    """Create the workloads, then change their image once, so every verb (undo too) applies."""
    for kind, name in refs:
        create(api, workload(kind, name, ns=ns))
    wait_complete(api, refs, ns=ns)
    for kind, name in refs:
        set_image(api, kind, name, IMAGE.format(2), ns=ns)
    wait_complete(api, refs, ns=ns)


def _hash(value):
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:10]


def _owner(obj):
    meta = obj['metadata']
    return {'apiVersion': obj['apiVersion'], 'kind': obj['kind'], 'name': meta['name'],
            'uid': meta['uid'], 'controller': True, 'blockOwnerDeletion': True}


def fake_history(api, kind, name, count, workers=8):
    """Give a Deployment or StatefulSet ``count`` revisions in total by adding old ones directly.

    Old revisions are numbered from 2 up so none collides with the live revision 1; they differ
    only in their image tag, and hold zero replicas as old revisions do. Several connections post
    at once: kubesim's controllers run a pass between requests, so one connection would wait for a
    pass per object.
    """
    owner = api.get(item(kind, name))
    objects = [_old_revision(kind, name, owner, n) for n in range(count - 1)]
    clients = [ApiClient(api.kubeconfig) for _ in range(workers)]

    def post(worker):
        for obj in objects[worker::workers]:
            create(clients[worker], obj)

    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        list(pool.map(post, range(workers)))
    for client in clients:
        client.close()


def _old_revision(kind, name, owner, n):
    revision = n + 2
    template = _template(name, IMAGE.format(f'old-{n}'))
    digest = _hash(template)
    if kind == 'Deployment':
        template['metadata']['labels']['pod-template-hash'] = digest
        return {'apiVersion': 'apps/v1', 'kind': 'ReplicaSet',
                'metadata': {'name': f'{name}-{digest}', 'namespace': NAMESPACE,
                             'labels': {'app': name, 'pod-template-hash': digest},
                             'annotations': {'deployment.kubernetes.io/revision': str(revision)},
                             'ownerReferences': [_owner(owner)]},
                'spec': {'replicas': 0,
                         'selector': {'matchLabels': {'app': name, 'pod-template-hash': digest}},
                         'template': template}}
    if kind == 'StatefulSet':
        return {'apiVersion': 'apps/v1', 'kind': 'ControllerRevision',
                'metadata': {'name': f'{name}-{digest}', 'namespace': NAMESPACE,
                             'labels': {'app': name, 'controller.kubernetes.io/hash': digest},
                             'ownerReferences': [_owner(owner)]},
                'revision': revision,
                'data': {'spec': {'template': {**template, '$patch': 'replace'}}}}
    raise ValueError(kind)


def count_owned(api, kind, name):
    """How many revisions (ReplicaSets / ControllerRevisions) the workload owns right now."""
    owner = api.get(item(kind, name))
    child = 'ReplicaSet' if kind == 'Deployment' else 'ControllerRevision'
    items = api.get(collection(child), labelSelector=f'app={name}')['items']
    uid = owner['metadata']['uid']
    return sum(1 for o in items
               if any(r.get('uid') == uid for r in o['metadata'].get('ownerReferences') or []))

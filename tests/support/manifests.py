"""API objects for every test suite: one workload factory with each suite's defaults on top of it
(``workload``; the unit tests' recorded shapes ``deployment``, ``statefulset`` and their history
objects ``replica_set``, ``controller_revision``), and the pods and events a kubelet or controller
reports (``pod``, ``event``)."""

import copy

# The uids of the unit tests' workloads (their history objects and pods name them as controller).
DEPLOY_UID = 'd-uid-1'
STS_UID = 's-uid-1'


def merged(base, extra):
    """``base`` with ``extra`` merged in, maps key by key (a copy; neither is changed)."""
    out = copy.deepcopy(base)
    for key, value in extra.items():
        both = isinstance(value, dict) and isinstance(out.get(key), dict)
        out[key] = merged(out[key], value) if both else copy.deepcopy(value)
    return out


def workload(kind, name, image='nginx:1.25', replicas=2, namespace=None, labels=None, pod_labels=None,
             container='app', service_name=True, template_spec=None, extra_template=None, **spec):
    """A Deployment, StatefulSet, DaemonSet or ReplicationController running one container
    (``container``), its pods labelled ``pod_labels`` (default ``app=<name>``) and selected by them.

    ``labels``: the object's own labels (none unless given); ``namespace``: none unless given;
    ``replicas=None`` leaves the count to the API server (a DaemonSet has none); a StatefulSet gets
    ``serviceName: <name>`` unless ``service_name`` is false; ``template_spec``: more pod spec fields;
    ``extra_template``: merged into the pod template, map by map (``merged``); ``spec``: more spec
    fields (they win)."""
    pod_labels = dict(pod_labels or {'app': name})
    meta = {'name': name}
    if namespace is not None:
        meta['namespace'] = namespace
    if labels is not None:
        meta['labels'] = dict(labels)
    pod_spec = {'containers': [{'name': container, 'image': image}]}
    pod_spec.update(copy.deepcopy(template_spec or {}))
    selector = dict(pod_labels) if kind == 'ReplicationController' else {'matchLabels': dict(pod_labels)}
    body = {'selector': selector, 'template': {'metadata': {'labels': dict(pod_labels)}, 'spec': pod_spec}}
    if extra_template:
        body['template'] = merged(body['template'], extra_template)
    if kind != 'DaemonSet' and replicas is not None:
        body['replicas'] = replicas
    if kind == 'StatefulSet' and service_name:
        body['serviceName'] = name
    body.update(spec)
    api_version = 'v1' if kind == 'ReplicationController' else 'apps/v1'
    return {'apiVersion': api_version, 'kind': kind, 'metadata': meta, 'spec': body}


# ---- recorded shapes (as the API server returns them), for unit tests ---------------------------

def template(image='nginx:1.25', labels=None, annotations=None, init_image=None, extra_spec=None):
    """A pod template as the API server returns it inside a workload: container ``web``."""
    t = {'metadata': {'labels': dict(labels or {'app': 'web'}), 'creationTimestamp': None},
         'spec': {'containers': [{'name': 'web', 'image': image, 'resources': {}}],
                  'restartPolicy': 'Always'}}
    if annotations:
        t['metadata']['annotations'] = dict(annotations)
    if init_image:
        t['spec']['initContainers'] = [{'name': 'migrate', 'image': init_image}]
    if extra_spec:
        t['spec'].update(extra_spec)
    return t


def _read_back(obj, uid, rv, generation, annotations=None, **template_kw):
    """``obj`` (a ``workload``) as read back: uid, resourceVersion, generation observed, the
    recorded template."""
    obj['metadata'].update(uid=uid, resourceVersion=rv, generation=generation)
    if annotations is not None:
        obj['metadata']['annotations'] = dict(annotations)
    obj['spec']['template'] = template(**template_kw)
    obj['status'] = {'observedGeneration': generation}
    return obj


def deployment(image='nginx:1.25', annotations=None, paused=False, rv='100', replicas=3, **kw):
    """Deployment ``default/web`` at revision 4, as read back."""
    d = workload('Deployment', 'web', replicas=replicas, namespace='default', pod_labels={'app': 'web'})
    if paused:
        d['spec']['paused'] = True
    return _read_back(d, DEPLOY_UID, rv, 4,
                      annotations if annotations is not None else {'deployment.kubernetes.io/revision': '4'},
                      image=image, **kw)


def statefulset(image='redis:7', rv='200', **kw):
    """StatefulSet ``default/db`` (2 replicas, RollingUpdate at partition 0), as read back."""
    s = workload('StatefulSet', 'db', replicas=2, namespace='default', service_name=False,
                 updateStrategy={'type': 'RollingUpdate', 'rollingUpdate': {'partition': 0}})
    return _read_back(s, STS_UID, rv, 2, image=image, labels={'app': 'db'}, **kw)


def _controlled_by(kind, name, uid, controller=True):
    return [{'apiVersion': 'apps/v1', 'kind': kind, 'name': name, 'uid': uid, 'controller': controller}]


def replica_set(revision, image, owner_uid=DEPLOY_UID, controller=True, annotations=None, name=None,
                replicas=0, **kw):
    """The ReplicaSet of ``deployment()``'s revision ``revision`` (pod-template-hash ``h<revision>``)."""
    h = 'h%s' % revision
    t = template(image, labels={'app': 'web', 'pod-template-hash': h}, **kw)
    ann = {'deployment.kubernetes.io/revision': str(revision)}
    ann.update(annotations or {})
    return {'metadata': {'name': name or 'web-%s' % h, 'namespace': 'default',
                         'creationTimestamp': '2026-01-0%dT00:00:00Z' % revision,
                         'labels': {'app': 'web', 'pod-template-hash': h}, 'annotations': ann,
                         'ownerReferences': _controlled_by('Deployment', 'web', owner_uid, controller)},
            'spec': {'replicas': replicas,
                     'selector': {'matchLabels': {'app': 'web', 'pod-template-hash': h}},
                     'template': t}}


def controller_revision(revision, image, owner_uid=STS_UID, labels=None, **kw):
    """The ControllerRevision ``db-r<revision>`` of ``statefulset()`` (hash ``r<revision>``)."""
    t = copy.deepcopy(template(image, labels=labels or {'app': 'db'}, **kw))
    t['$patch'] = 'replace'
    return {'metadata': {'name': 'db-r%s' % revision, 'namespace': 'default',
                         'creationTimestamp': '2026-02-0%dT00:00:00Z' % revision,
                         'labels': {'app': 'db', 'controller-revision-hash': 'r%s' % revision},
                         'ownerReferences': _controlled_by('StatefulSet', 'db', owner_uid)},
            'data': {'spec': {'template': t}},
            'revision': revision}


# ---- pods and events ----------------------------------------------------------------------------

def pod(name, ready=True, labels=None, namespace='default', owner=None, phase='Running', containers=None,
        init_containers=None, deleting=False, spec=None, ready_since=None, conditions=None):
    """A pod as the kubelet reports it. ``ready``: its Ready condition (True, False, or None for
    none), ``ready_since`` that condition's lastTransitionTime; ``owner``: (kind, uid) of its
    controller; ``containers`` / ``init_containers``: container statuses; ``conditions``: more
    conditions; ``deleting``: terminating; ``spec``: its spec."""
    meta = {'name': name, 'namespace': namespace, 'uid': 'uid-' + name, 'resourceVersion': '1',
            'labels': dict(labels or {})}
    if owner is not None:
        meta['ownerReferences'] = [{'kind': owner[0], 'uid': owner[1], 'controller': True}]
    if deleting:
        meta['deletionTimestamp'] = '2026-01-01T00:00:00Z'
    status = {'phase': phase, 'conditions': list(conditions or [])}
    if ready is not None:
        ready_condition = {'type': 'Ready', 'status': 'True' if ready else 'False'}
        if ready_since is not None:
            ready_condition['lastTransitionTime'] = ready_since
        status['conditions'].append(ready_condition)
    if containers is not None:
        status['containerStatuses'] = containers
    if init_containers is not None:
        status['initContainerStatuses'] = init_containers
    out = {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': meta, 'status': status}
    if spec is not None:
        out['spec'] = spec
    return out


def event(name, kind, obj_name, message, reason='Failed', type_='Warning', namespace='default',
          last_seen='2026-03-02T10:00:00Z', count=1, **fields):
    """An Event about ``kind``/``obj_name``; ``fields``: more fields (``series``, ``eventTime``...)."""
    out = {'apiVersion': 'v1', 'kind': 'Event', 'metadata': {'name': name, 'namespace': namespace},
           'involvedObject': {'kind': kind, 'name': obj_name, 'namespace': namespace},
           'type': type_, 'reason': reason, 'message': message, 'count': count,
           'source': {'component': 'kubelet'}}
    if last_seen is not None:
        out['lastTimestamp'] = last_seen
    out.update(fields)
    return out

"""Workload manifests for every test suite: one factory, each suite's defaults on top of it."""

import copy


def workload(kind, name, image='nginx:1.25', replicas=2, namespace=None, labels=None, pod_labels=None,
             container='app', service_name=True, template_spec=None, **spec):
    """A Deployment, StatefulSet, DaemonSet or ReplicationController running one container
    (``container``), its pods labelled ``pod_labels`` (default ``app=<name>``) and selected by them.

    ``labels``: the object's own labels (none unless given); ``namespace``: none unless given;
    ``replicas=None`` leaves the count to the API server (a DaemonSet has none); a StatefulSet gets
    ``serviceName: <name>`` unless ``service_name`` is false; ``template_spec``: more pod spec fields;
    ``spec``: more spec fields (they win)."""
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
    if kind != 'DaemonSet' and replicas is not None:
        body['replicas'] = replicas
    if kind == 'StatefulSet' and service_name:
        body['serviceName'] = name
    body.update(spec)
    api_version = 'v1' if kind == 'ReplicationController' else 'apps/v1'
    return {'apiVersion': api_version, 'kind': kind, 'metadata': meta, 'spec': body}

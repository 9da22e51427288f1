"""The StatefulSet controller's claims (pkg/controller/statefulset/stateful_set_utils.go and
stateful_pod_control.go): each pod `<set>-<ordinal>` has one PersistentVolumeClaim per
`volumeClaimTemplates` entry, `<template>-<set>-<ordinal>`, created before the pod (labelled with the
template's labels and the selector's matchLabels) and named in the pod's `volumes` under the
template's name. A rolling update never touches them. `persistentVolumeClaimRetentionPolicy`
(GA, defaults Retain/Retain) sets their owner references: `whenDeleted: Delete` makes the set their
controller (deleting the set deletes them, through the garbage collector), `whenScaled: Delete`
makes a pod condemned by a scale-down their only owner before it is deleted (so they go with it).
"""

import copy

from ..apiserver.recorders import CONTROLLER_MANAGER, recorder
from ..machinery.errors import ApiError
from .common import name_of, ns_of, uid_of
from .events import WARNING

CLAIMS = '/persistentvolumeclaims'


def claim_name(template, sts, ordinal):
    return f'{name_of(template)}-{name_of(sts)}-{ordinal}'


def _templates(sts):
    return [t for t in sts['spec'].get('volumeClaimTemplates') or [] if name_of(t)]


def _policy(sts):
    policy = sts['spec'].get('persistentVolumeClaimRetentionPolicy') or {}
    return policy.get('whenDeleted') or 'Retain', policy.get('whenScaled') or 'Retain'


def mount_claims(sts, pod, ordinal):
    """updateStorage: the pod's volumes name its claims (replacing a template volume of that name)."""
    templates = _templates(sts)
    if not templates:
        return
    names = {name_of(t) for t in templates}
    volumes = [v for v in pod['spec'].get('volumes') or [] if v.get('name') not in names]
    for template in templates:
        volumes.append({'name': name_of(template),
                        'persistentVolumeClaim': {'claimName': claim_name(template, sts, ordinal)}})
    pod['spec']['volumes'] = volumes


def _ordinal(pod):
    return int(name_of(pod).rpartition('-')[2])


def _set_ref(sts):
    return {'apiVersion': 'apps/v1', 'kind': 'StatefulSet', 'name': name_of(sts), 'uid': uid_of(sts),
            'controller': True, 'blockOwnerDeletion': True}


def _pod_ref(pod):
    return {'apiVersion': 'v1', 'kind': 'Pod', 'name': name_of(pod), 'uid': uid_of(pod)}


def create_claims(ctl, sts, pod):
    """createPersistentVolumeClaims: the pod's missing claims, before the pod itself."""
    ordinal = _ordinal(pod)
    when_deleted, _ = _policy(sts)
    selector_labels = (sts['spec'].get('selector') or {}).get('matchLabels') or {}
    for template in _templates(sts):
        name = claim_name(template, sts, ordinal)
        if ctl.store.get(CLAIMS, ns_of(sts), name) is not None:
            continue
        meta = template.get('metadata') or {}
        claim = {'apiVersion': 'v1', 'kind': 'PersistentVolumeClaim',
                 'metadata': {'name': name, 'namespace': ns_of(sts),
                              'labels': {**(meta.get('labels') or {}), **selector_labels}},
                 'spec': copy.deepcopy(template.get('spec') or {})}
        if meta.get('annotations'):
            claim['metadata']['annotations'] = dict(meta['annotations'])
        if when_deleted == 'Delete':
            claim['metadata']['ownerReferences'] = [_set_ref(sts)]
        try:
            ctl.store.create(CLAIMS, claim, manager=recorder(CLAIMS, CONTROLLER_MANAGER))
        except ApiError as err:
            if err.code == 409:
                continue
            ctl.mgr.events.record(sts, WARNING, 'FailedCreate',
                                  f'create Claim {name} for Pod {name_of(pod)} in StatefulSet {name_of(sts)} '
                                  f'failed error: {err.message}', 'statefulset-controller')
            raise


def _update_refs(ctl, sts, claim, want_set, pod, want_pod):
    refs = [r for r in claim['metadata'].get('ownerReferences') or []
            if r.get('uid') not in (uid_of(sts), uid_of(pod) if pod else None)]
    if want_set:
        refs.append(_set_ref(sts))
    if want_pod and pod is not None:
        refs.append(_pod_ref(pod))
    old = claim['metadata'].get('ownerReferences') or []
    if sorted(map(str, refs)) == sorted(map(str, old)):
        return
    if refs:
        claim['metadata']['ownerReferences'] = refs
    else:
        claim['metadata'].pop('ownerReferences', None)
    ctl.store.update(CLAIMS, claim, manager=recorder(CLAIMS, CONTROLLER_MANAGER))


def update_retention(ctl, sts, pods, condemned_pod=None):
    """updateClaimOwnerRefForSetAndPod for each pod's claims: the references the policy asks for."""
    if not _templates(sts) or sts['metadata'].get('deletionTimestamp'):
        return
    when_deleted, when_scaled = _policy(sts)
    start = int((sts['spec'].get('ordinals') or {}).get('start') or 0)
    count = sts['spec'].get('replicas', 1)
    for pod in pods:
        if not uid_of(pod):
            continue
        ordinal = _ordinal(pod)
        condemned = pod is condemned_pod or not start <= ordinal < start + count
        for template in _templates(sts):
            claim = ctl.store.get(CLAIMS, ns_of(sts), claim_name(template, sts, ordinal))
            if claim is None or claim['metadata'].get('deletionTimestamp'):
                continue
            scaled_away = when_scaled == 'Delete' and condemned
            # A claim of a pod a scale-down condemns is the pod's alone (the set lets it go).
            _update_refs(ctl, sts, claim, when_deleted == 'Delete' and not scaled_away, pod, scaled_away)


def release_on_scale_down(ctl, sts, pod):
    """Before a scale-down deletes a pod: its claims follow the policy (whenScaled)."""
    update_retention(ctl, sts, [pod], condemned_pod=pod)

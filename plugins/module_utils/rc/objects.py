# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The objects of an update (pure): kubectl's annotations and labels, the deployment label's hash,
reading RCs and pods, the new RC's target and bodies, and whether an RC runs a target."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import hashlib
import json
from collections import namedtuple

from ansible_collections.kubeops.rollout.plugins.module_utils.common import times
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import UpdateError
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.pods import (
    ready_condition,
    selector_string,
)

# ---- kubectl's annotations, labels and defaults -------------------------------------------------
ANNOTATION_PREFIX = 'kubectl.kubernetes.io/'
SOURCE_ID_ANNOTATION = ANNOTATION_PREFIX + 'update-source-id'
DESIRED_REPLICAS_ANNOTATION = ANNOTATION_PREFIX + 'desired-replicas'
ORIGINAL_REPLICAS_ANNOTATION = ANNOTATION_PREFIX + 'original-replicas'
NEXT_CONTROLLER_ANNOTATION = ANNOTATION_PREFIX + 'next-controller-id'
UPDATE_ANNOTATIONS = (SOURCE_ID_ANNOTATION, DESIRED_REPLICAS_ANNOTATION,
                      ORIGINAL_REPLICAS_ANNOTATION, NEXT_CONTROLLER_ANNOTATION)
ORIG_SUFFIX = '-orig'


def _md5_hex(data):
    try:
        digest = hashlib.md5(data, usedforsecurity=False)
    except TypeError:  # Python < 3.9
        digest = hashlib.md5(data)  # nosec - a label value, not a security measure
    return digest.hexdigest()


def template_hash(template, selector, key):
    """kubectl's deployment label value: md5, as 32 hex digits, of the new controller's JSON.

    kubectl hashed the whole object as its client encoded it, server fields (resourceVersion,
    status) included, so its value can never be computed again. This hashes the same way but only
    the pod template and selector, without the deployment label itself: the same target always
    gives the same hash, which is what lets re-runs and check mode name the same new RC.
    """
    template = copy.deepcopy(template or {})
    labels = (template.get('metadata') or {}).get('labels')
    if labels:
        labels.pop(key, None)
    selector = {k: v for k, v in (selector or {}).items() if k != key}
    data = json.dumps({'selector': selector, 'template': template}, sort_keys=True, separators=(',', ':'))
    return _md5_hex(data.encode('utf-8'))


def orig_label_value(rc, key):
    """The deployment label kubectl puts on an old RC that has none: its own hash plus ``-orig``."""
    spec = rc.get('spec') or {}
    return template_hash(spec.get('template'), spec.get('selector'), key) + ORIG_SUFFIX


def annotations_of(obj):
    return (obj.get('metadata') or {}).get('annotations') or {}


def replicas_of(obj):
    return int((obj.get('spec') or {}).get('replicas') or 0)


def name_of(obj):
    return (obj.get('metadata') or {}).get('name')


def source_id(rc):
    """``<name>:<uid>``, the value of update-source-id on the RC that replaces ``rc``."""
    meta = rc.get('metadata') or {}
    return '%s:%s' % (meta.get('name'), meta.get('uid'))


def desired_replicas(rc):
    """The desired-replicas annotation of the RC being scaled up, as kubectl requires it."""
    value = annotations_of(rc).get(DESIRED_REPLICAS_ANNOTATION)
    try:
        number = int(value)
        if number < 0:
            raise ValueError
        return number
    except (TypeError, ValueError):
        raise UpdateError('unable to parse annotation for %s: %s=%s'
                          % (name_of(rc), DESIRED_REPLICAS_ANNOTATION, value))


def original_replicas(rc):
    """The old RC's size before the update (annotation, else its current size)."""
    value = annotations_of(rc).get(ORIGINAL_REPLICAS_ANNOTATION)
    try:
        return int(value)
    except (TypeError, ValueError):
        return replicas_of(rc)


def containers_of(template):
    return ((template or {}).get('spec') or {}).get('containers') or []


def container_index(rc, container):
    """Index of the container to update (kubectl's --container rules), or UpdateError."""
    containers = containers_of((rc.get('spec') or {}).get('template'))
    names = ', '.join(c.get('name', '?') for c in containers)
    if container:
        for i, c in enumerate(containers):
            if c.get('name') == container:
                return i
        raise UpdateError('container "%s" not found in the pod template of ReplicationController "%s" '
                          '(containers: %s)' % (container, name_of(rc), names or 'none'))
    if not containers:
        raise UpdateError('the pod template of ReplicationController "%s" has no containers' % name_of(rc))
    if len(containers) > 1:
        raise UpdateError('ReplicationController "%s" has %d containers (%s): set container to the one whose '
                          'image to update' % (name_of(rc), len(containers), names))
    return 0


Target = namedtuple('Target', 'name template selector labels annotations replicas')


def _clean_annotations(annotations):
    return {k: v for k, v in (annotations or {}).items() if k not in UPDATE_ANNOTATIONS}


def image_target(old, image, container, pull_policy, key, label_value=None):
    """The new RC kubectl's ``--image`` builds: a copy of the old one with the image (and pull
    policy) changed and ``key=<hash>`` on selector and template labels. ``name`` is left None."""
    spec = old.get('spec') or {}
    template = copy.deepcopy(spec.get('template') or {})
    index = container_index(old, container)
    target_container = template['spec']['containers'][index]
    target_container['image'] = image
    if pull_policy:
        target_container['imagePullPolicy'] = pull_policy
    selector = dict(spec.get('selector') or (template.get('metadata') or {}).get('labels') or {})
    value = label_value or template_hash(template, selector, key)
    template.setdefault('metadata', {})
    template['metadata']['labels'] = dict(template['metadata'].get('labels') or {}, **{key: value})
    selector[key] = value
    meta = old.get('metadata') or {}
    return Target(None, template, selector, dict(meta.get('labels') or {}),
                  _clean_annotations(meta.get('annotations')), original_replicas(old))


def definition_target(definition, old, namespace, new_name=None):
    """The new RC from a full definition (kubectl's ``-f``), validated as kubectl did."""
    if not isinstance(definition, dict):
        raise UpdateError('new_controller must be a ReplicationController definition (a dictionary)')
    kind = definition.get('kind')
    if kind and kind != 'ReplicationController':
        raise UpdateError('new_controller is a %s, not a ReplicationController' % kind)
    api_version = definition.get('apiVersion')
    if api_version and api_version != 'v1':
        raise UpdateError('new_controller has apiVersion %s; ReplicationControllers are v1' % api_version)
    meta = definition.get('metadata') or {}
    name = meta.get('name')
    if name and new_name and name != new_name:
        raise UpdateError('new_name "%s" differs from new_controller metadata.name "%s"' % (new_name, name))
    name = name or new_name
    if not name:
        raise UpdateError('new_controller needs metadata.name (or set new_name)')
    if meta.get('namespace') and meta['namespace'] != namespace:
        raise UpdateError('new_controller is in namespace "%s" but the update runs in "%s": both controllers '
                          'must be in the same namespace' % (meta['namespace'], namespace))
    spec = definition.get('spec') or {}
    template = copy.deepcopy(spec.get('template'))
    if not template or not containers_of(template):
        raise UpdateError('new_controller needs spec.template with at least one container')
    selector = dict(spec.get('selector') or (template.get('metadata') or {}).get('labels') or {})
    replicas = spec.get('replicas')
    if replicas is None:
        replicas = original_replicas(old) if old else 0
    return Target(name, template, selector, dict(meta.get('labels') or {}),
                  _clean_annotations(meta.get('annotations')), int(replicas))


def check_distinct_selectors(old, target):
    """kubectl: the new selector must have a key of the old one with another value."""
    old_selector = (old.get('spec') or {}).get('selector') or {}
    for k, v in old_selector.items():
        if k in target.selector and target.selector[k] != v:
            return
    raise UpdateError('the new controller must have a selector key of ReplicationController "%s" with a '
                      'different value (old selector: %s; new: %s)'
                      % (name_of(old), selector_string(old_selector) or 'none',
                         selector_string(target.selector) or 'none'))


def new_controller_body(target, name, namespace, old, desired, replicas=0):
    """The new RC to create: ``replicas`` (kubectl's 0, or the first scale-up), desired-replicas
    and update-source-id annotations."""
    annotations = dict(target.annotations)
    annotations[DESIRED_REPLICAS_ANNOTATION] = str(desired)
    annotations[SOURCE_ID_ANNOTATION] = source_id(old)
    metadata = {'name': name, 'namespace': namespace, 'annotations': annotations}
    if target.labels:
        metadata['labels'] = dict(target.labels)
    spec = {}
    old_spec = old.get('spec') or {}
    if 'minReadySeconds' in old_spec:
        spec['minReadySeconds'] = old_spec['minReadySeconds']
    spec.update(replicas=replicas, selector=dict(target.selector), template=copy.deepcopy(target.template))
    return {'apiVersion': 'v1', 'kind': 'ReplicationController', 'metadata': metadata, 'spec': spec}


def renamed_body(old, source, desired):
    """The old RC taking over the new one's pods at the end (cleanup ``rename``).

    kubectl deleted the old RC and re-created the new one under the old name. Here the old RC is
    updated in place instead: it keeps its uid, and at no moment is there no RC recording the
    update (a killed run finds it again). ``source`` holds the metadata labels/annotations and the
    spec to take over; the update annotations are dropped.
    """
    body = copy.deepcopy(old)
    body.pop('status', None)
    meta = body['metadata']
    src_meta = source.get('metadata') or {}
    if src_meta.get('labels'):
        meta['labels'] = dict(src_meta['labels'])
    else:
        meta.pop('labels', None)
    annotations = _clean_annotations(src_meta.get('annotations'))
    if annotations:
        meta['annotations'] = annotations
    else:
        meta.pop('annotations', None)
    spec = copy.deepcopy(source.get('spec') or {})
    spec['replicas'] = desired
    body['spec'] = spec
    return body


def subset_matches(wanted, actual):
    """Every field of ``wanted`` is in ``actual`` with the same value (server defaults ignored)."""
    if isinstance(wanted, dict):
        if not isinstance(actual, dict):
            return False
        return all(k in actual and subset_matches(v, actual[k]) for k, v in wanted.items()
                   if v is not None) and all(actual.get(k) is None for k, v in wanted.items() if v is None)
    if isinstance(wanted, list):
        if not isinstance(actual, list) or len(wanted) != len(actual):
            return False
        return all(subset_matches(w, a) for w, a in zip(wanted, actual))
    return wanted == actual


def target_matches(rc, target, image_mode, container=None, image=None, pull_policy=None):
    """Whether ``rc`` already runs the target template.

    Image mode compares the updated container only (the deployment label of an RC kubectl created
    holds kubectl's own hash); a definition must be contained in the RC's template and selector.
    """
    spec = rc.get('spec') or {}
    if image_mode:
        containers = containers_of(spec.get('template'))
        if container:
            found = [c for c in containers if c.get('name') == container]
        else:
            found = containers[:1]
        if not found or found[0].get('image') != image:
            return False
        return not pull_policy or found[0].get('imagePullPolicy') == pull_policy
    return spec.get('selector') == target.selector and subset_matches(target.template, spec.get('template'))


def container_image(rc, container=None):
    containers = containers_of((rc.get('spec') or {}).get('template'))
    if container:
        containers = [c for c in containers if c.get('name') == container]
    return containers[0].get('image') if containers else None


# ---- pods ------------------------------------------------------------------------------------------
def pod_available(pod, min_ready_seconds, now):
    """Ready for at least ``min_ready_seconds`` and not being deleted (kubectl's readyPods)."""
    if (pod.get('metadata') or {}).get('deletionTimestamp'):
        return False
    cond = ready_condition(pod)
    if cond is None or cond.get('status') != 'True':
        return False
    if not min_ready_seconds:
        return True
    since = times.parse(cond.get('lastTransitionTime'))
    return since is None or since + min_ready_seconds <= now


def controller_ref(obj):
    for ref in (obj.get('metadata') or {}).get('ownerReferences') or []:
        if ref.get('controller'):
            return ref
    return None


def orphans_for(pods, old, key):
    """Pods released by a new RC deleted for the rename: no controller, not being deleted, and a
    deployment label other than the old RC's. Returns (label value, pods) for the commonest value."""
    own = ((old.get('spec') or {}).get('selector') or {}).get(key)
    by_value = {}
    for pod in pods:
        meta = pod.get('metadata') or {}
        value = (meta.get('labels') or {}).get(key)
        if value is None or value == own or meta.get('deletionTimestamp') or controller_ref(pod):
            continue
        by_value.setdefault(value, []).append(pod)
    if not by_value:
        return None, []
    value = max(sorted(by_value), key=lambda v: len(by_value[v]))
    return value, by_value[value]

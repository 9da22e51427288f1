# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""kubectl's ``rolling-update`` for ReplicationControllers: the plan and its driver.

The update replaces an RC's pods by scaling a second RC up and the old one down, within
``max_surge`` / ``max_unavailable``, then cleans up (delete, preserve or rename). It keeps kubectl's
annotations and labels, so an update kubectl started can be finished here and the other way round:

- old RC: ``kubectl.kubernetes.io/next-controller-id`` (the new RC's name) and
  ``kubectl.kubernetes.io/original-replicas``; with an image update, the deployment label
  ``<key>=<hash>-orig`` on its selector, template and pods when it has no such label yet;
- new RC: ``kubectl.kubernetes.io/desired-replicas`` and ``kubectl.kubernetes.io/update-source-id``
  (``<old name>:<old uid>``), created with 0 replicas; selector and template carry ``<key>=<hash>``.

Nothing is remembered between runs: every step is derived again from what the API shows (the
annotations above and the replica counts), so a run killed between any two requests is resumed by
running it again with the same arguments.

The first half of this file is pure (step math, hashes, target building, state detection); the
``RollingUpdate`` class at the end does the I/O.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import calendar
import copy
import hashlib
import json
import time
import traceback
from collections import namedtuple

from ansible_collections.kubeops.rollout.plugins.module_utils.client import ApiClient
from ansible_collections.kubeops.rollout.plugins.module_utils.connection import load_connection
from ansible_collections.kubeops.rollout.plugins.module_utils.errors import ApiError, ConfigError, KubeError
from ansible_collections.kubeops.rollout.plugins.module_utils.module import DEFAULT_NAMESPACE, describe_error
from ansible_collections.kubeops.rollout.plugins.module_utils.workloads import (
    ReplicationController,
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

DEFAULT_DEPLOYMENT_KEY = 'deployment'
DEFAULT_MAX_SURGE = 1
DEFAULT_MAX_UNAVAILABLE = 0
DEFAULT_UPDATE_PERIOD = 1.0  # kubectl: 1m; readiness gates every scale-down anyway
DEFAULT_POLL_INTERVAL = 1.0  # kubectl: 3s
DEFAULT_TIMEOUT = 300.0  # kubectl: 5m

CLEANUP_DELETE = 'delete'
CLEANUP_PRESERVE = 'preserve'
CLEANUP_RENAME = 'rename'
CLEANUP_POLICIES = (CLEANUP_DELETE, CLEANUP_PRESERVE, CLEANUP_RENAME)
PULL_POLICIES = ('Always', 'IfNotPresent', 'Never')

# Fields of an RC's metadata that belong to the stored object, not to a copy of it.
SERVER_METADATA = ('uid', 'resourceVersion', 'creationTimestamp', 'generation', 'managedFields',
                   'selfLink', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'ownerReferences',
                   'finalizers', 'generateName')


class UpdateError(Exception):
    """The update cannot start or go on; ``message`` says why and what to do."""

    def __init__(self, message):
        super(UpdateError, self).__init__(message)
        self.message = message


# ---- step math (kubectl's RollingUpdater) ---------------------------------------------------------
def _scaled_value(value, total, round_up, what):
    """An int, a digit string or "N%" -> an absolute count (percentages of ``total``)."""
    if isinstance(value, bool):
        raise UpdateError('%s must be an integer or a percentage like "25%%", not %r' % (what, value))
    if isinstance(value, int):
        number = value
    else:
        text = str(value).strip()
        try:
            if text.endswith('%'):
                percent = int(text[:-1])
                if percent < 0:
                    raise ValueError
                product = percent * total
                return -(-product // 100) if round_up else product // 100
            number = int(text)
        except ValueError:
            raise UpdateError('%s must be an integer or a percentage like "25%%", not %r' % (what, value))
    if number < 0:
        raise UpdateError('%s must not be negative (got %s)' % (what, value))
    return number


def _is_zero(value):
    text = str(value).strip()
    return text in ('0', '0%')


def check_fenceposts(max_surge, max_unavailable):
    """Reject what validation rejects for Deployments: both limits explicitly zero, bad values."""
    _scaled_value(max_surge, 0, True, 'max_surge')
    _scaled_value(max_unavailable, 0, False, 'max_unavailable')
    if _is_zero(max_surge) and _is_zero(max_unavailable):
        raise UpdateError('max_surge and max_unavailable cannot both be 0: nothing could be scaled')


def resolve_fenceposts(max_surge, max_unavailable, desired):
    """(surge, unavailable) for ``desired`` replicas: surge rounds up, unavailable rounds down and
    becomes 1 when both resolve to 0 (kubectl's deployment util ResolveFenceposts)."""
    surge = _scaled_value(max_surge, desired, True, 'max_surge')
    unavailable = _scaled_value(max_unavailable, desired, False, 'max_unavailable')
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


Limits = namedtuple('Limits', 'desired surge unavailable min_available')


def limits(max_surge, max_unavailable, desired, old_replicas):
    """The bounds of one update. With 0 desired everything old may go at once (as kubectl)."""
    surge, unavailable = resolve_fenceposts(max_surge, max_unavailable, desired)
    if desired == 0:
        return Limits(0, surge, old_replicas, 0)
    return Limits(desired, surge, unavailable, max(0, desired - unavailable))


def scale_up_target(old, new, lim):
    """New replica count for the new RC, or None when it cannot (or need not) grow now."""
    if new == lim.desired:
        return None
    if old == 0:
        increment = lim.desired - new  # nothing old left: all the way
    else:
        increment = (lim.desired + lim.surge) - (old + new)
    if increment <= 0:
        return None
    return min(new + increment, lim.desired)


def scale_down_target(old, new, new_available, lim):
    """New replica count for the old RC, or None. Keeps ``old + new_available >= min_available``."""
    if old == 0:
        return None
    new_unavailable = new - new_available
    decrement = (old + new) - lim.min_available - new_unavailable
    if decrement <= 0:
        return None
    target = max(0, old - decrement)
    if new == lim.desired and new_available >= lim.desired:
        target = 0
    return target


Step = namedtuple('Step', 'action controller from_replicas to_replicas old_replicas new_replicas')


def step_dict(step):
    return {'action': step.action, 'controller': step.controller, 'from': step.from_replicas,
            'to': step.to_replicas, 'old_replicas': step.old_replicas, 'new_replicas': step.new_replicas}


def plan_steps(old, new, lim, old_name='old', new_name='new', ready=None, max_rounds=100000):
    """The scale steps the loop takes from (old, new), simulated.

    ``ready(new_replicas, round) -> available new pods`` models readiness; by default every new pod
    is available by the time the old RC is scaled down. Rounds without a step count toward
    ``max_rounds`` (a readiness model that never lets the update finish ends there).
    """
    steps = []
    rnd = 0
    while not (new == lim.desired and old == 0):
        rnd += 1
        if rnd > max_rounds:
            raise UpdateError('the simulated update made no progress in %d rounds' % max_rounds)
        up = scale_up_target(old, new, lim)
        if up is not None:
            steps.append(Step('scale up', new_name, new, up, old, up))
            new = up
        available = new if ready is None else min(new, ready(new, rnd))
        down = scale_down_target(old, new, available, lim)
        if down is not None:
            steps.append(Step('scale down', old_name, old, down, down, new))
            old = down
    return steps


# ---- the objects: hashes, targets, annotations --------------------------------------------------
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


def new_controller_body(target, name, namespace, old, desired):
    """The new RC to create: 0 replicas, desired-replicas and update-source-id annotations."""
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
    spec.update(replicas=0, selector=dict(target.selector), template=copy.deepcopy(target.template))
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
def _parse_time(text):
    try:
        return calendar.timegm(time.strptime(text.split('.')[0].rstrip('Z'), '%Y-%m-%dT%H:%M:%S'))
    except (AttributeError, ValueError):
        return None


def pod_available(pod, min_ready_seconds, now):
    """Ready for at least ``min_ready_seconds`` and not being deleted (kubectl's readyPods)."""
    if (pod.get('metadata') or {}).get('deletionTimestamp'):
        return False
    for cond in (pod.get('status') or {}).get('conditions') or []:
        if cond.get('type') == 'Ready':
            if cond.get('status') != 'True':
                return False
            if not min_ready_seconds:
                return True
            since = _parse_time(cond.get('lastTransitionTime'))
            return since is None or since + min_ready_seconds <= now
    return False


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


# ---- options ---------------------------------------------------------------------------------------
class Options:
    """What the module was asked to do, validated once."""

    FIELDS = ('name', 'namespace', 'new_name', 'image', 'container', 'image_pull_policy', 'new_controller',
              'deployment_label_key', 'max_surge', 'max_unavailable', 'update_period', 'poll_interval',
              'timeout', 'cleanup_policy', 'rollback')

    def __init__(self, **params):
        for field in self.FIELDS:
            setattr(self, field, params.get(field))
        if self.deployment_label_key is None:
            self.deployment_label_key = DEFAULT_DEPLOYMENT_KEY
        if self.max_surge is None:
            self.max_surge = DEFAULT_MAX_SURGE
        if self.max_unavailable is None:
            self.max_unavailable = DEFAULT_MAX_UNAVAILABLE
        if self.update_period is None:
            self.update_period = DEFAULT_UPDATE_PERIOD
        if self.poll_interval is None:
            self.poll_interval = DEFAULT_POLL_INTERVAL
        if self.timeout is None:
            self.timeout = DEFAULT_TIMEOUT
        self.rollback = bool(self.rollback)
        self.validate()

    def validate(self):
        if not self.name:
            raise UpdateError('name (the ReplicationController to update) is required')
        if not self.deployment_label_key:
            raise UpdateError('deployment_label_key cannot be empty')
        if self.rollback:
            if self.image or self.new_controller:
                raise UpdateError("don't set image or new_controller with rollback: true")
        else:
            if not self.image and not self.new_controller:
                raise UpdateError('set image (with container for multi-container pods) or new_controller')
            if self.image and self.new_controller:
                raise UpdateError('image and new_controller are mutually exclusive')
        if self.image_pull_policy and self.image_pull_policy not in PULL_POLICIES:
            raise UpdateError('image_pull_policy must be one of %s' % ', '.join(PULL_POLICIES))
        if self.cleanup_policy and self.cleanup_policy not in CLEANUP_POLICIES:
            raise UpdateError('cleanup_policy must be one of %s' % ', '.join(CLEANUP_POLICIES))
        check_fenceposts(self.max_surge, self.max_unavailable)
        for field in ('update_period', 'poll_interval', 'timeout'):
            if float(getattr(self, field)) < 0:
                raise UpdateError('%s must not be negative' % field)
        if float(self.timeout) == 0:
            raise UpdateError('timeout must be more than 0 seconds')

    @property
    def image_mode(self):
        return bool(self.image)

    @property
    def explicit_new_name(self):
        if self.new_controller and isinstance(self.new_controller, dict):
            return ((self.new_controller.get('metadata') or {}).get('name')) or self.new_name
        return self.new_name

    def target(self, old, namespace, label_value=None):
        """The new RC's Target, built from the old RC (image) or the definition."""
        if self.image_mode:
            return image_target(old, self.image, self.container, self.image_pull_policy,
                                self.deployment_label_key, label_value)
        return definition_target(self.new_controller, old, namespace, self.new_name)

    def matches(self, rc, target):
        return target_matches(rc, target, self.image_mode, self.container, self.image, self.image_pull_policy)

    def check_can_start(self, old, target):
        """kubectl's checks before it creates the new RC."""
        if not self.image_mode:
            check_distinct_selectors(old, target)
            return
        current = containers_of(old['spec']['template'])[container_index(old, self.container)].get('image')
        if current == self.image and not self.image_pull_policy:
            raise UpdateError('image_pull_policy (Always, IfNotPresent or Never) must be given when image is '
                              'the same as the current image of ReplicationController "%s" (%s)'
                              % (self.name, current))

    @property
    def policy(self):
        """kubectl's rule: keep the old name (rename) unless a new name was given (delete)."""
        if self.cleanup_policy:
            return self.cleanup_policy
        return CLEANUP_DELETE if self.explicit_new_name else CLEANUP_RENAME


# ---- state detection -------------------------------------------------------------------------------
# Phases, from what the API shows (see RollingUpdate.observe):
COMPLETE = 'complete'  # nothing to do
START = 'start'  # no new RC yet: label the old one, create the new one
SCALING = 'scaling'  # both exist, update in progress (or finished, cleanup pending)
CLEANUP = 'cleanup'  # the new RC lost its update annotations (kubectl's cleanup began)
ADOPT = 'adopt'  # renaming: the new RC was deleted, its pods wait for the old RC to adopt them

State = namedtuple('State', 'phase old new new_name target reason')


def classify(opts, old, new, new_name, target, ptr_missing_orphans=None):
    """The phase of a forward update from observed objects (pure).

    ``old``: the RC named ``opts.name`` (exists); ``new``: the RC named ``new_name`` or None;
    ``ptr_missing_orphans``: (label value, pods) when the old RC's next-controller-id names a
    missing RC and released pods are waiting (the rename was interrupted).
    """
    old_name = name_of(old)
    ptr = annotations_of(old).get(NEXT_CONTROLLER_ANNOTATION)
    if new is None:
        if ptr_missing_orphans and ptr_missing_orphans[1] and replicas_of(old) == 0:
            return State(ADOPT, old, None, ptr, target, 'renaming %s to %s' % (ptr, old_name))
        if opts.matches(old, target) and _runs_exact_target(old, target, opts):
            return State(COMPLETE, old, None, None, target, 'ReplicationController "%s" already runs the '
                         'requested template' % old_name)
        return State(START, old, None, new_name, target, 'start')
    src = annotations_of(new).get(SOURCE_ID_ANNOTATION)
    if src is not None:
        if src != source_id(old):
            raise UpdateError('ReplicationController "%s" exists and is the new controller of another update '
                              '(update-source-id %s, expected %s)' % (new_name, src, source_id(old)))
        if not opts.matches(new, target):
            raise UpdateError(_in_progress_message(opts, old_name, new_name, new))
        return State(SCALING, old, new, new_name, target, 'in progress')
    if ptr == new_name and replicas_of(old) == 0:
        if not opts.matches(new, target):
            raise UpdateError('ReplicationController "%s" (the finished update of "%s") does not run the '
                              'requested template; give another new_name to update again'
                              % (new_name, old_name))
        return State(CLEANUP, old, new, new_name, target, 'cleanup')
    raise UpdateError('ReplicationController "%s" already exists and is not part of an update of "%s"; '
                      'choose another new_name' % (new_name, old_name))


def _without_key(template, selector, key):
    template = copy.deepcopy(template or {})
    labels = (template.get('metadata') or {}).get('labels')
    if labels:
        labels.pop(key, None)
    return template, {k: v for k, v in (selector or {}).items() if k != key}


def _runs_exact_target(old, target, opts):
    """Whether a finished update produced ``old``'s current template.

    Image mode: the selector has the deployment label (not an ``-orig`` one) and, that label aside,
    template and selector are the target's; the label's value may be kubectl's own hash.
    Definitions compare by containment (server defaults), and the selector exactly.
    """
    spec = old.get('spec') or {}
    if not opts.image_mode:
        return spec.get('selector') == target.selector
    key = opts.deployment_label_key
    value = (spec.get('selector') or {}).get(key)
    if not value or value.endswith(ORIG_SUFFIX):
        return False
    if ((spec.get('template') or {}).get('metadata') or {}).get('labels', {}).get(key) != value:
        return False
    return _without_key(spec.get('template'), spec.get('selector'), key) == \
        _without_key(target.template, target.selector, key)


def _in_progress_message(opts, old_name, new_name, new):
    if opts.image_mode:
        current = container_image(new, opts.container)
        return ('found an update of "%s" in progress to image %s (ReplicationController "%s"): continue it '
                'with image: %s, or abort it with rollback: true' % (old_name, current, new_name, current))
    return ('found an update of "%s" in progress to ReplicationController "%s" with another template: '
            'continue it with the same new_controller, or abort it with rollback: true'
            % (old_name, new_name))


# ---- the driver ------------------------------------------------------------------------------------
class _Retry(Exception):
    """The observed state changed under us (a failed compare-and-set): observe again."""


class RollingUpdate:
    """Runs (or, in check mode, plans) one rolling update or rollback against the API.

    ``api`` is an ApiClient (get/list/create/replace/patch/delete on raw JSON). ``sleep`` and
    ``clock`` are injectable for tests.
    """

    def __init__(self, api, opts, check_mode=False, sleep=time.sleep, clock=time.time):
        self.api = api
        self.opts = opts
        self.ns = opts.namespace
        self.check_mode = check_mode
        self.sleep = sleep
        self.clock = clock
        self.steps = []
        self.changed = False
        self.done = []  # the changes made, for the failure message
        self.new_name = None
        self.diff = None
        self.in_progress = False  # an update exists in the API (a failure can be resumed)

    # -- API helpers
    def _rc_path(self, name=None):
        if name is None:
            return ReplicationController.collection_path(self.ns)
        return ReplicationController.object_path(self.ns, name)

    def _pods_path(self):
        return '/api/v1/namespaces/%s/pods' % self.ns

    def get_rc(self, name):
        try:
            return self.api.get(self._rc_path(name))
        except ApiError as e:
            if e.status == 404:
                return None
            raise

    def must_get_rc(self, name):
        rc = self.get_rc(name)
        if rc is None:
            raise UpdateError('ReplicationController "%s" disappeared from namespace "%s" during the update'
                              % (name, self.ns))
        return rc

    def list_pods(self, selector):
        return self.api.list(self._pods_path(), label_selector=selector_string(selector)).get('items') or []

    def list_rcs(self):
        return self.api.list(self._rc_path()).get('items') or []

    def _write(self, what):
        self.changed = True
        self.in_progress = True
        self.done.append(what)

    def update_rc(self, name, mutate, what):
        """Read-modify-write with the resourceVersion guard, again on conflict. ``mutate(obj)``
        changes obj in place; nothing is sent when it changes nothing. Returns the RC."""
        for _attempt in range(10):
            rc = self.must_get_rc(name)
            new = copy.deepcopy(rc)
            mutate(new)
            if new == rc:
                return rc
            try:
                stored = self.api.replace(self._rc_path(name), new)
            except ApiError as e:
                if e.status == 409:
                    continue
                raise
            self._write(what)
            return stored
        raise UpdateError('ReplicationController "%s" kept changing while updating it (%s)' % (name, what))

    def scale(self, rc, replicas, action, other):
        """Compare-and-set spec.replicas (JSON patch test), then wait as kubectl's scaler did.
        ``other`` is the RC on the other side: a step records both counts, the replaced RC's as
        ``old_replicas``."""
        name = name_of(rc)
        current = replicas_of(rc)
        body = [{'op': 'test', 'path': '/spec/replicas', 'value': (rc.get('spec') or {}).get('replicas')},
                {'op': 'replace', 'path': '/spec/replicas', 'value': replicas}]
        if (rc.get('spec') or {}).get('replicas') is None:
            body = [{'op': 'add', 'path': '/spec/replicas', 'value': replicas}]
        try:
            self.api.patch(self._rc_path(name), body, content_type='application/json-patch+json')
        except ApiError as e:
            if e.is_conflict:
                raise _Retry()
            raise
        self._write('scaled %s to %d' % (name, replicas))
        if action == 'scale up':
            old_count, new_count = replicas_of(other), replicas
        else:
            old_count, new_count = replicas, replicas_of(other)
        self.steps.append(Step(action, name, current, replicas, old_count, new_count))
        return self.wait_replicas(name)

    def wait_replicas(self, name, what=None):
        """Until status shows the spec's replica count (kubectl's ControllerHasDesiredReplicas)."""
        deadline = self.clock() + float(self.opts.timeout)
        while True:
            rc = self.must_get_rc(name)
            status = rc.get('status') or {}
            generation = (rc.get('metadata') or {}).get('generation') or 0
            if status.get('observedGeneration', 0) >= generation and \
                    int(status.get('replicas') or 0) == replicas_of(rc):
                return rc
            if self.clock() > deadline:
                raise UpdateError('timed out after %ss waiting for ReplicationController "%s" to have %d '
                                  'replicas%s (it has %s)' % (self.opts.timeout, name, replicas_of(rc),
                                                              what or '', status.get('replicas', 0)))
            self.sleep(float(self.opts.poll_interval))

    def available_pods(self, rc):
        min_ready = int((rc.get('spec') or {}).get('minReadySeconds') or 0)
        now = self.clock()
        return sum(1 for pod in self.list_pods((rc.get('spec') or {}).get('selector'))
                   if pod_available(pod, min_ready, now))

    # -- entry point
    def run(self):
        if self.opts.rollback:
            return self.rollback()
        return self.forward()

    # -- forward update
    def resolve_target(self, old):
        return self.opts.target(old, self.ns)

    def observe(self):
        """Read what the update needs and classify it (forward direction)."""
        opts = self.opts
        old = self.get_rc(opts.name)
        if old is None:
            return None
        if (old.get('metadata') or {}).get('deletionTimestamp'):
            raise UpdateError('ReplicationController "%s" is being deleted' % opts.name)
        target = self.resolve_target(old)
        ptr = annotations_of(old).get(NEXT_CONTROLLER_ANNOTATION)
        marker = annotations_of(old).get(SOURCE_ID_ANNOTATION)
        if marker is not None and marker.rsplit(':', 1)[0] != ptr:
            source = marker.rsplit(':', 1)[0]
            raise UpdateError('ReplicationController "%s" is the new controller of an update of "%s" that is '
                              'in progress: run the update with name: %s to finish it'
                              % (opts.name, source, source))
        ptr_rc = self.get_rc(ptr) if ptr else None
        explicit = opts.explicit_new_name
        if explicit:
            new_name = explicit
        elif ptr_rc is not None:
            new_name = ptr
        else:
            new_name = '%s-%s' % (opts.name, target.selector[opts.deployment_label_key])
        if new_name == opts.name:
            raise UpdateError('the new controller cannot have the same name as the existing '
                              'ReplicationController "%s"' % opts.name)
        if ptr_rc is not None and ptr != new_name and \
                annotations_of(ptr_rc).get(SOURCE_ID_ANNOTATION) == source_id(old):
            raise UpdateError('an update of "%s" to "%s" is in progress: finish it first (new_name: %s and '
                              'its image or definition) or abort it with rollback: true'
                              % (opts.name, ptr, ptr))
        new = ptr_rc if ptr == new_name else self.get_rc(new_name)
        if new is not None and (new.get('metadata') or {}).get('deletionTimestamp'):
            self.wait_gone(new_name)
            return self.observe()
        orphans = None
        if new is None and ptr and ptr_rc is None and replicas_of(old) == 0 and \
                ORIGINAL_REPLICAS_ANNOTATION in annotations_of(old):
            orphans = self.find_orphans(old, target)
        return classify(opts, old, new, new_name, target, orphans)

    def released_pods(self, old):
        """Pods of a deleted new RC, found by the deployment label (value, pods)."""
        key = self.opts.deployment_label_key
        selector = {k: v for k, v in ((old.get('spec') or {}).get('selector') or {}).items() if k != key}
        return orphans_for(self.list_pods(selector), old, key)

    def find_orphans(self, old, target):
        if self.opts.image_mode:
            return self.released_pods(old)
        pods = [p for p in self.list_pods(target.selector)
                if not controller_ref(p) and not (p.get('metadata') or {}).get('deletionTimestamp')]
        return (None, pods)

    def forward(self):
        state = self.observe()
        if state is None:
            return self.old_missing()
        self.new_name = state.new_name
        self.diff = {'before': (state.old.get('spec') or {}).get('template'), 'after': state.target.template}
        self.in_progress = state.phase != START
        if state.phase == COMPLETE:
            self.new_name = self.opts.name
            self.diff = None
            return self.result(state.old, state.reason)
        if self.opts.rollback is False and SOURCE_ID_ANNOTATION in annotations_of(state.old):
            self.cancel_rollback(state.old)
        if self.check_mode:
            return self.plan(state)
        if state.phase == ADOPT:
            rc = self.adopt(state)
            return self.result(rc, 'finished renaming %s to %s' % (state.new_name, self.opts.name))
        if state.phase == START:
            self.start(state)
        elif state.phase == SCALING:
            self.prepare_old(state.old, state.new_name)
        if state.phase in (START, SCALING):
            self.scale_loop(self.opts.name, self.new_name)
        rc = self.cleanup(self.opts.name, self.new_name)
        return self.result(rc, self.summary())

    def cancel_rollback(self, old):
        """A rollback was in progress and the update is wanted again: drop the rollback markers."""
        if self.check_mode:
            return

        def mutate(rc):
            annotations = rc['metadata'].get('annotations') or {}
            annotations.pop(SOURCE_ID_ANNOTATION, None)
            annotations.pop(DESIRED_REPLICAS_ANNOTATION, None)
        self.update_rc(self.opts.name, mutate, 'dropped the rollback annotations of %s' % self.opts.name)

    def old_missing(self):
        """The old RC is gone: a finished update (delete policy) or one whose last step is left."""
        opts = self.opts
        name = opts.name
        candidates = []
        explicit = opts.explicit_new_name
        if explicit:
            rc = self.get_rc(explicit)
            if rc is not None:
                candidates.append(rc)
        else:
            rcs = self.list_rcs()
            candidates = [rc for rc in rcs
                          if (annotations_of(rc).get(SOURCE_ID_ANNOTATION) or '').startswith(name + ':')]
            if not candidates and opts.image_mode:
                candidates = self.finished_by_derived_name(rcs)
        for rc in candidates:
            src = annotations_of(rc).get(SOURCE_ID_ANNOTATION)
            self.new_name = name_of(rc)
            if src is not None and src.startswith(name + ':'):
                if self.check_mode:
                    self.changed = True
                    return self.result(rc, 'would remove the update annotations of "%s" (the old controller '
                                       '"%s" is already deleted)' % (self.new_name, name))
                rc = self.strip_update_annotations(self.new_name)
                return self.result(rc, 'finished the update of "%s": "%s" replaced it'
                                   % (name, self.new_name))
            target = None if opts.image_mode else opts.target(None, self.ns)
            if src is None and opts.matches(rc, target):
                return self.result(rc, 'ReplicationController "%s" already replaced "%s" (which is deleted)'
                                   % (self.new_name, name))
        raise UpdateError('ReplicationController "%s" not found in namespace "%s"' % (name, self.ns))

    def finished_by_derived_name(self, rcs):
        """A finished image update with cleanup ``delete`` and no new name: the old RC is gone and the
        new one lost its update annotations, but its name is still ``<name>-<value>``, ``value`` being
        its deployment label (kubectl named it the same way). Returns [that RC] when it runs the
        requested image, [] when none does; several are ambiguous."""
        opts = self.opts
        key = opts.deployment_label_key
        found = []
        for rc in rcs:
            spec = rc.get('spec') or {}
            value = (spec.get('selector') or {}).get(key)
            labels = ((spec.get('template') or {}).get('metadata') or {}).get('labels') or {}
            if not value or value.endswith(ORIG_SUFFIX) or labels.get(key) != value or \
                    name_of(rc) != '%s-%s' % (opts.name, value) or \
                    any(k in annotations_of(rc) for k in UPDATE_ANNOTATIONS):
                continue
            if opts.matches(rc, None):
                found.append(rc)
        if len(found) > 1:
            raise UpdateError('ReplicationController "%s" not found in namespace "%s", and several finished '
                              'updates of it run the requested image (%s): set new_name to the one to use'
                              % (opts.name, self.ns, ', '.join(sorted(name_of(rc) for rc in found))))
        return found

    def start(self, state):
        """Point the old RC at the new one, label it apart (image mode), create the new RC at 0."""
        opts = self.opts
        old = state.old
        opts.check_can_start(old, state.target)
        old = self.prepare_old(old, state.new_name)
        desired = state.target.replicas
        body = new_controller_body(state.target, state.new_name, self.ns, old, desired)
        try:
            self.api.create(self._rc_path(), body)
        except ApiError as e:
            if e.status != 409:
                raise
            # Created by a run that did not see the answer: it is ours if its source id says so.
            existing = self.must_get_rc(state.new_name)
            if annotations_of(existing).get(SOURCE_ID_ANNOTATION) != source_id(old):
                raise UpdateError('ReplicationController "%s" already exists and is not part of an update of '
                                  '"%s"' % (state.new_name, opts.name))
        else:
            self._write('created %s' % state.new_name)

    def prepare_old(self, old, new_name):
        """kubectl's UpdateExistingReplicationController: next-controller-id (and original-replicas),
        and in image mode the ``<key>=<hash>-orig`` label on template, pods, then selector."""
        opts = self.opts
        key = opts.deployment_label_key
        name = opts.name
        selector = (old.get('spec') or {}).get('selector') or {}
        needs_label = opts.image_mode and key not in selector
        value = orig_label_value(old, key)

        def annotate(rc):
            annotations = rc['metadata'].setdefault('annotations', {})
            annotations[NEXT_CONTROLLER_ANNOTATION] = new_name
            annotations.setdefault(ORIGINAL_REPLICAS_ANNOTATION, str(replicas_of(rc)))
            if needs_label:
                template_meta = rc['spec']['template'].setdefault('metadata', {})
                template_meta.setdefault('labels', {})[key] = value
        old = self.update_rc(name, annotate, 'annotated %s' % name)
        if not needs_label:
            return old
        # Label the running pods first so that the new selector keeps them.
        for pod in self.list_pods(selector):
            if (pod['metadata'].get('labels') or {}).get(key) != value:
                self.label_pod(pod, key, value)

        def select(rc):
            rc['spec'].setdefault('selector', dict(selector))[key] = value
        old = self.update_rc(name, select, 'added %s=%s to the selector of %s' % (key, value, name))
        # A pod made from the unlabelled template in between would be left behind: delete it.
        for pod in self.list_pods(selector):
            if key not in (pod['metadata'].get('labels') or {}):
                self.delete_pod(pod)
        return old

    def label_pod(self, pod, key, value):
        name = pod['metadata']['name']
        try:
            self.api.patch('%s/%s' % (self._pods_path(), name), {'metadata': {'labels': {key: value}}},
                           content_type='application/merge-patch+json', retry=True)
        except ApiError as e:
            if e.status != 404:
                raise
        else:
            self._write('labelled pod %s' % name)

    def delete_pod(self, pod):
        name = pod['metadata']['name']
        try:
            self.api.delete('%s/%s' % (self._pods_path(), name))
        except ApiError as e:
            if e.status != 404:
                raise
        else:
            self._write('deleted stray pod %s' % name)

    def scale_loop(self, src_name, dst_name):
        """kubectl's loop: scale dst up within the surge, wait update_period, scale src down within
        availability; repeat until dst has its desired replicas and src none. Any scale is progress;
        none for ``timeout`` seconds fails."""
        opts = self.opts
        deadline = self.clock() + float(opts.timeout)
        while True:
            src = self.must_get_rc(src_name)
            dst = self.must_get_rc(dst_name)
            desired = desired_replicas(dst)
            lim = limits(opts.max_surge, opts.max_unavailable, desired, replicas_of(src))
            if replicas_of(dst) == desired and replicas_of(src) == 0:
                return
            before = (replicas_of(src), replicas_of(dst))
            try:
                up = scale_up_target(replicas_of(src), replicas_of(dst), lim)
                if up is not None:
                    dst = self.scale(dst, up, 'scale up', src)
                    self.sleep(float(opts.update_period))
                src = self.must_get_rc(src_name)
                down = scale_down_target(replicas_of(src), replicas_of(dst), self.available_pods(dst), lim)
                if down is not None:
                    src = self.scale(src, down, 'scale down', dst)
            except _Retry:
                continue
            if (replicas_of(src), replicas_of(dst)) != before:
                deadline = self.clock() + float(opts.timeout)
            elif self.clock() > deadline:
                raise UpdateError('timed out waiting for any update progress to be made (no scaling possible '
                                  'for %ss: are the new pods becoming ready?)' % opts.timeout)
            else:
                self.sleep(float(opts.poll_interval))

    def strip_update_annotations(self, name):
        def mutate(rc):
            annotations = rc['metadata'].get('annotations') or {}
            annotations.pop(SOURCE_ID_ANNOTATION, None)
            annotations.pop(DESIRED_REPLICAS_ANNOTATION, None)
            if not annotations:
                rc['metadata'].pop('annotations', None)
        return self.update_rc(name, mutate, 'removed the update annotations of %s' % name)

    def cleanup(self, old_name, new_name):
        """After the loop: wait for the new RC's pods, then the cleanup policy. Every order here is
        chosen so that a killed run still finds the update from what is left."""
        policy = self.opts.policy
        new = self.wait_replicas(new_name)
        if policy == CLEANUP_PRESERVE:
            new = self.strip_update_annotations(new_name)
            return new
        if policy == CLEANUP_DELETE:
            self.delete_rc(old_name)
            return self.strip_update_annotations(new_name)
        old = self.must_get_rc(old_name)
        return self.rename(old, new)

    def delete_rc(self, name, orphan=False):
        body = {'kind': 'DeleteOptions', 'apiVersion': 'v1',
                'propagationPolicy': 'Orphan' if orphan else 'Background'}
        try:
            self.api.delete(self._rc_path(name), body=body)
        except ApiError as e:
            if e.status != 404:
                raise
        else:
            self._write('deleted %s%s' % (name, ' (its pods orphaned)' if orphan else ''))
        self.wait_gone(name)

    def wait_gone(self, name):
        deadline = self.clock() + float(self.opts.timeout)
        while self.get_rc(name) is not None:
            if self.clock() > deadline:
                raise UpdateError('timed out waiting for ReplicationController "%s" to be deleted' % name)
            self.sleep(float(self.opts.poll_interval))

    def rename(self, old, new):
        """Give the old RC the new one's pods: delete the new RC orphaning its pods, then update the
        old RC in place to the new selector/template/size; it adopts the released pods."""
        desired = replicas_of(new)
        self.delete_rc(name_of(new), orphan=True)
        return self.take_over(old, new, desired)

    def take_over(self, old, source, desired):
        """Update the old RC in place to ``source``'s labels, annotations and spec at ``desired``."""
        name = name_of(old)
        # Its scale-down to 0 must be carried out first: an old pod still there when the selector
        # changes is released, not deleted, and stays behind for good (a run killed right after
        # that scale-down never waited for it).
        self.wait_replicas(name, ' before adopting the pods of "%s"' % name_of(source))
        for _attempt in range(10):
            live = self.must_get_rc(name)
            try:
                self.api.replace(self._rc_path(name), renamed_body(live, source, desired))
            except ApiError as e:
                if e.status == 409:
                    continue
                raise
            self._write('renamed %s to %s' % (name_of(source), name))
            break
        else:
            raise UpdateError('ReplicationController "%s" kept changing while renaming' % name)
        return self.wait_replicas(name, ' after adopting the pods of "%s"' % name_of(source))

    def adoption_source(self, state):
        """The deleted new RC of an interrupted rename, rebuilt from the target (in image mode with
        the deployment label its released pods carry): (source object, desired replicas)."""
        old = state.old
        value, _pods = self.find_orphans(old, state.target)
        target = self.opts.target(old, self.ns, label_value=value) if self.opts.image_mode else state.target
        metadata = {'name': state.new_name, 'labels': target.labels, 'annotations': target.annotations}
        spec = dict(copy.deepcopy(old.get('spec') or {}), selector=target.selector, template=target.template)
        source = {'metadata': metadata, 'spec': spec}
        return source, target.replicas

    def adopt(self, state):
        """The rename was interrupted after the new RC was deleted: the old RC takes its pods over."""
        source, desired = self.adoption_source(state)
        return self.take_over(state.old, source, desired)

    # -- rollback
    def rollback(self):
        """kubectl's --rollback: swap the roles and scale the old RC back to its original size,
        then delete the partial new RC (kubectl's cleanup for an abort)."""
        opts = self.opts
        old = self.get_rc(opts.name)
        if old is None:
            raise UpdateError('ReplicationController "%s" not found in namespace "%s"' % (opts.name, self.ns))
        annotations = annotations_of(old)
        partial_name = opts.new_name or annotations.get(NEXT_CONTROLLER_ANNOTATION)
        if not partial_name and annotations.get(SOURCE_ID_ANNOTATION):
            partial_name = annotations[SOURCE_ID_ANNOTATION].rsplit(':', 1)[0]
        self.new_name = partial_name
        if not partial_name:
            return self.result(old, 'no rolling update of "%s" in progress: nothing to roll back' % opts.name)
        partial = self.get_rc(partial_name)
        if partial is None:
            if replicas_of(old) == 0 and ORIGINAL_REPLICAS_ANNOTATION in annotations and \
                    self.released_pods(old)[1]:
                raise UpdateError('the update of "%s" to "%s" was finishing its rename (the pods of "%s" '
                                  'wait for "%s" to adopt them): run the update again without rollback to '
                                  'finish it' % (opts.name, partial_name, partial_name, opts.name))
            if any(k in annotations for k in UPDATE_ANNOTATIONS):
                if self.check_mode:
                    self.changed = True
                    return self.result(old, 'would remove the leftover update annotations of "%s"'
                                       % opts.name)
                old = self.clear_old_annotations(opts.name)
                return self.result(old, 'rollback of "%s" finished' % opts.name)
            return self.result(old, 'no rolling update of "%s" in progress: nothing to roll back' % opts.name)
        partial_src = annotations_of(partial).get(SOURCE_ID_ANNOTATION)
        rollback_src = annotations.get(SOURCE_ID_ANNOTATION)
        if partial_src != source_id(old) and rollback_src != source_id(partial) and \
                annotations.get(NEXT_CONTROLLER_ANNOTATION) != partial_name:
            raise UpdateError('ReplicationController "%s" is not the new controller of an update of "%s": '
                              'nothing to roll back' % (partial_name, opts.name))
        if ORIGINAL_REPLICAS_ANNOTATION not in annotations:
            raise UpdateError("couldn't find original replica count of \"%s\" (annotation %s)"
                              % (opts.name, ORIGINAL_REPLICAS_ANNOTATION))
        original = original_replicas(old)
        self.diff = {'before': (partial.get('spec') or {}).get('template'),
                     'after': (old.get('spec') or {}).get('template')}
        if self.check_mode:
            lim = limits(opts.max_surge, opts.max_unavailable, original, replicas_of(partial))
            self.steps = plan_steps(replicas_of(partial), replicas_of(old), lim, partial_name, opts.name)
            self.changed = True
            final = copy.deepcopy(old)
            final['spec']['replicas'] = original
            return self.result(final, 'would roll "%s" back to "%s" (%d replicas) and delete "%s"'
                               % (partial_name, opts.name, original, partial_name), planned=True)

        def mark(rc):
            rc_annotations = rc['metadata'].setdefault('annotations', {})
            rc_annotations[SOURCE_ID_ANNOTATION] = source_id(partial)
            rc_annotations[DESIRED_REPLICAS_ANNOTATION] = str(original)
        self.update_rc(opts.name, mark, 'marked %s as the rollback target' % opts.name)
        self.scale_loop(partial_name, opts.name)
        self.wait_replicas(opts.name)
        self.delete_rc(partial_name)
        old = self.clear_old_annotations(opts.name)
        return self.result(old, 'rolled back "%s" to "%s" and deleted "%s"'
                           % (partial_name, opts.name, partial_name))

    def clear_old_annotations(self, name):
        def mutate(rc):
            annotations = rc['metadata'].get('annotations') or {}
            for key in UPDATE_ANNOTATIONS:
                annotations.pop(key, None)
            if not annotations:
                rc['metadata'].pop('annotations', None)
        return self.update_rc(name, mutate, 'removed the update annotations of %s' % name)

    # -- check mode
    def plan(self, state):
        """The update as it would run, without a persisted write (the new RC is validated by a
        server-side dry run when it does not exist yet)."""
        opts = self.opts
        old = state.old
        if state.phase == CLEANUP and opts.policy == CLEANUP_PRESERVE and \
                DESIRED_REPLICAS_ANNOTATION not in annotations_of(state.new) and \
                SOURCE_ID_ANNOTATION not in annotations_of(old):
            # A finished update that keeps the old RC: the real run would write nothing either.
            return self.result(state.new, self.summary())
        self.changed = True
        key = opts.deployment_label_key
        if state.phase == ADOPT:
            source, desired = self.adoption_source(state)
            final = renamed_body(old, source, desired)
            return self.result(final, 'would finish renaming %s to %s' % (state.new_name, opts.name),
                               planned=True)
        if state.phase == START:
            opts.check_can_start(old, state.target)
            desired = state.target.replicas
            body = new_controller_body(state.target, state.new_name, self.ns, old, desired)
            new = self.api.create(self._rc_path(), body, dry_run=True)
            new_replicas = 0
        else:
            new = state.new
            desired = desired_replicas(new) if state.phase == SCALING else replicas_of(new)
            new_replicas = replicas_of(new)
        old_replicas = replicas_of(old)
        lim = limits(opts.max_surge, opts.max_unavailable, desired, old_replicas)
        self.steps = plan_steps(old_replicas, new_replicas, lim, opts.name, state.new_name)
        final = copy.deepcopy(new)
        final['spec']['replicas'] = desired
        for k in (SOURCE_ID_ANNOTATION, DESIRED_REPLICAS_ANNOTATION):
            (final['metadata'].get('annotations') or {}).pop(k, None)
        msg = 'would update "%s" to "%s" ' % (opts.name, state.new_name)
        if opts.policy == CLEANUP_RENAME:
            final = renamed_body(old, final, desired)
            msg += 'and rename it back to "%s"' % opts.name
        elif opts.policy == CLEANUP_DELETE:
            msg += 'and delete "%s"' % opts.name
        else:
            msg += 'and keep "%s" at 0 replicas' % opts.name
        if opts.image_mode and key not in ((old.get('spec') or {}).get('selector') or {}):
            msg += ' (labelling its pods %s=%s)' % (key, orig_label_value(old, key))
        return self.result(final, msg, planned=True)

    # -- results
    def summary(self):
        if not self.changed:
            return '"%s" already replaced "%s" (cleanup policy %s: nothing left to do)' % (
                self.new_name, self.opts.name, self.opts.policy)
        how = {CLEANUP_RENAME: 'then renamed back to "%s"' % self.opts.name,
               CLEANUP_DELETE: 'and deleted "%s"' % self.opts.name,
               CLEANUP_PRESERVE: 'and kept "%s" at 0 replicas' % self.opts.name}[self.opts.policy]
        return 'rolling updated "%s" to "%s" in %d scale steps %s' % (
            self.opts.name, self.new_name, len(self.steps), how)

    def result(self, rc, msg, planned=False):
        # Not "rc": Ansible reads a result key rc as a return code and fails the task when it is not 0.
        out = {'changed': self.changed, 'msg': msg, 'steps': [step_dict(s) for s in self.steps],
               'replication_controller': rc, 'new_name': self.final_name(rc)}
        if planned:
            out['planned'] = True
        return out

    def final_name(self, rc):
        return self.new_name or (name_of(rc) if rc else None)

    def progress(self):
        """How far the update got, for a failure message."""
        parts = []
        try:
            for name in (self.opts.name, self.new_name):
                if not name:
                    continue
                rc = self.get_rc(name)
                if rc is None:
                    parts.append('"%s" does not exist' % name)
                else:
                    parts.append('"%s" has %d replicas' % (name, replicas_of(rc)))
        except KubeError:
            pass
        if self.done:
            parts.append('last change in this run: %s' % self.done[-1])
        return '; '.join(parts)


# ---- Ansible ---------------------------------------------------------------------------------------
ARGUMENT_SPEC = {
    'name': {'type': 'str', 'required': True},
    'namespace': {'type': 'str'},
    'new_name': {'type': 'str'},
    'image': {'type': 'str'},
    'container': {'type': 'str'},
    'image_pull_policy': {'type': 'str', 'choices': list(PULL_POLICIES)},
    'new_controller': {'type': 'dict'},
    'deployment_label_key': {'type': 'str', 'default': DEFAULT_DEPLOYMENT_KEY, 'no_log': False},
    'max_surge': {'type': 'raw', 'default': DEFAULT_MAX_SURGE},
    'max_unavailable': {'type': 'raw', 'default': DEFAULT_MAX_UNAVAILABLE},
    'update_period': {'type': 'float', 'default': DEFAULT_UPDATE_PERIOD},
    'poll_interval': {'type': 'float', 'default': DEFAULT_POLL_INTERVAL},
    'timeout': {'type': 'float', 'default': DEFAULT_TIMEOUT},
    'cleanup_policy': {'type': 'str', 'choices': list(CLEANUP_POLICIES)},
    'rollback': {'type': 'bool', 'default': False},
}


def run_module(module):
    """Connect with the collection's connection options, run the update, exit the module."""
    params = module.params
    try:
        connection = load_connection(params)
        module.no_log_values.update(connection.secrets())
        api = ApiClient(connection)
    except ConfigError as e:
        module.fail_json(msg='cannot configure the Kubernetes connection: %s' % e.message)
    namespace = params.get('namespace') or connection.namespace or DEFAULT_NAMESPACE
    try:
        opts = Options(namespace=namespace, **{k: params.get(k) for k in Options.FIELDS if k != 'namespace'})
    except UpdateError as e:
        module.fail_json(msg=e.message)
    updater = RollingUpdate(api, opts, check_mode=module.check_mode)
    details = {}
    try:
        result = updater.run()
    except Exception as e:  # every failure says how far the update got and how to resume it
        if isinstance(e, ApiError):
            message = describe_error(e, 'rolling update of ReplicationController "%s"' % opts.name,
                                     connection)
        elif isinstance(e, (UpdateError, KubeError)):
            message = e.message
        else:
            message = 'unexpected error (%s: %s)' % (type(e).__name__, e)
            details['exception'] = traceback.format_exc()
        if updater.in_progress and not module.check_mode:
            progress = updater.progress()
            message = '%s. %s%s' % (message.rstrip('.'), ('Progress: %s. ' % progress) if progress else '',
                                    'Run the task again with the same arguments to resume'
                                    + ('' if opts.rollback else ', or with rollback: true to return to "%s"'
                                       % opts.name) + '.')
        module.fail_json(msg=message, changed=updater.changed, steps=[step_dict(s) for s in updater.steps],
                         new_name=updater.new_name, **details)
    if module._diff and updater.diff and result['changed']:
        result['diff'] = updater.diff
    module.exit_json(**result)

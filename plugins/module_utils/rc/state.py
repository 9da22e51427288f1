# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What the module was asked (``Options``) and where an update stands (pure): the phase of a
forward update and the decision of a rollback, from the objects the API shows."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
from collections import namedtuple

from ansible_collections.kubeops.rollout.plugins.module_utils.common import vocabulary
from ansible_collections.kubeops.rollout.plugins.module_utils.common.vocabulary import setting
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import UpdateError
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.objects import (
    NEXT_CONTROLLER_ANNOTATION,
    ORIG_SUFFIX,
    ORIGINAL_REPLICAS_ANNOTATION,
    SOURCE_ID_ANNOTATION,
    UPDATE_ANNOTATIONS,
    annotations_of,
    check_distinct_selectors,
    container_image,
    container_index,
    containers_of,
    definition_target,
    image_target,
    name_of,
    original_replicas,
    replicas_of,
    source_id,
    target_matches,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.steps import check_fenceposts
from ansible_collections.kubeops.rollout.plugins.module_utils.common.validation import (
    SUBDOMAIN_MAX,
    subdomain_problem,
)

DERIVED_SUFFIX = 33  # "-" and the 32 hex digits of the deployment label's hash

CLEANUP_DELETE = 'delete'
CLEANUP_PRESERVE = 'preserve'
CLEANUP_RENAME = 'rename'


# ---- options ---------------------------------------------------------------------------------------
class Options:
    """What the module was asked to do: the module's parameters (``FIELDS``, with the argument
    spec's defaults applied), the namespace resolved."""

    FIELDS = ('name', 'namespace', 'new_name', 'image', 'container', 'image_pull_policy', 'new_controller',
              'deployment_label_key', 'max_surge', 'max_unavailable', 'update_period', 'poll_interval',
              'timeout', 'cleanup_policy', 'rollback', 'lease_duration', 'wait_for_lease')

    def __init__(self, **params):
        for field in self.FIELDS:
            setattr(self, field, params.get(field))
        self.validate()

    def validate(self):
        """What the argument spec cannot say (its types, choices, defaults and mutual exclusions
        are checked by AnsibleModule before this runs)."""
        if not self.deployment_label_key:
            raise UpdateError('deployment_label_key cannot be empty')
        # Every name before the first write: a new RC the API server would refuse must not be
        # found out after the old one was changed.
        names = [('name', self.name), ('new_name', self.new_name)]
        if isinstance(self.new_controller, dict):
            meta = self.new_controller.get('metadata')
            if meta is not None and not isinstance(meta, dict):
                raise UpdateError('new_controller.metadata must be a mapping')
            if (meta or {}).get('name') is not None:
                names.append(('new_controller.metadata.name', meta['name']))
        for field, value in names:
            problem = None if value is None else subdomain_problem(value)
            if problem:
                raise UpdateError('%s %s' % (field, problem))
        if self.image and not self.explicit_new_name and not self.rollback \
                and len(self.name or '') + DERIVED_SUFFIX > SUBDOMAIN_MAX:
            raise UpdateError('name "%s..." is too long for the name of the new ReplicationController '
                              'derived from it (the name, "-" and 32 hex digits, at most %d characters): '
                              'give new_name'
                              % (self.name[:40], SUBDOMAIN_MAX))
        if self.image is not None and (not self.image.strip() or self.image != self.image.strip()):
            raise UpdateError('image "%s" is empty or has leading or trailing whitespace' % self.image)
        if self.rollback:
            if self.image or self.new_controller:
                raise UpdateError("don't set image or new_controller with %s" % setting('rollback', True))
        elif not self.image and not self.new_controller:
            raise UpdateError('set image (with container for multi-container pods) or new_controller')
        check_fenceposts(self.max_surge, self.max_unavailable)
        for field in ('update_period', 'poll_interval', 'timeout'):
            if float(getattr(self, field)) < 0:
                raise UpdateError('%s must not be negative' % field)
        if float(self.timeout) == 0:
            raise UpdateError('timeout must be more than 0 seconds')
        if int(self.lease_duration) < 1:
            raise UpdateError('lease_duration must be at least 1 second')

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
FINISHED = 'complete'  # nothing to do
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
            return State(FINISHED, old, None, None, target, 'ReplicationController "%s" already runs the '
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
                'with %s, or roll it back with %s'
                % (old_name, current, new_name, setting('image', current), setting('rollback', True)))
    return ('found an update of "%s" in progress to ReplicationController "%s" with another template: '
            'continue it with the same %s, or roll it back with %s'
            % (old_name, new_name, vocabulary.name('new_controller'), setting('rollback', True)))


def finished_by_derived_name(opts, rcs):
    """A finished image update with cleanup ``delete`` and no new name: the old RC is gone and the
    new one lost its update annotations, but its name is still ``<name>-<value>``, ``value`` being
    its deployment label (kubectl named it the same way). Returns [that RC] when it runs the
    requested image, [] when none does; several are ambiguous."""
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
                          % (opts.name, opts.namespace, ', '.join(sorted(name_of(rc) for rc in found))))
    return found


# ---- rollback ----------------------------------------------------------------------------------
# Decisions of a rollback (see classify_rollback):
NOTHING = 'nothing'  # no update to abort
LEFTOVERS = 'leftovers'  # the new RC is gone; the old one still carries update annotations
ROLL_BACK = 'roll back'  # scale the old RC back to its original size, then delete the new one

Rollback = namedtuple('Rollback', 'phase partial_name original')


def rollback_partial_name(opts, old):
    """The RC a rollback aborts: new_name, else the one the old RC's annotations name."""
    annotations = annotations_of(old)
    name = opts.new_name or annotations.get(NEXT_CONTROLLER_ANNOTATION)
    if not name and annotations.get(SOURCE_ID_ANNOTATION):
        name = annotations[SOURCE_ID_ANNOTATION].rsplit(':', 1)[0]
    return name


def rename_may_be_pending(old):
    """Whether the old RC may be taking over the pods of a deleted new RC (its released pods tell)."""
    return replicas_of(old) == 0 and ORIGINAL_REPLICAS_ANNOTATION in annotations_of(old)


def classify_rollback(opts, old, partial_name, partial, released_pods=()):
    """What a rollback does, from observed objects (pure).

    ``partial``: the RC named ``partial_name``, or None; ``released_pods``: the pods of a deleted
    new RC waiting to be adopted (looked for only when ``partial`` is missing and
    ``rename_may_be_pending(old)``).
    """
    annotations = annotations_of(old)
    if not partial_name:
        return Rollback(NOTHING, None, None)
    if partial is None:
        if rename_may_be_pending(old) and released_pods:
            raise UpdateError('the update of "%s" to "%s" was finishing its rename (the pods of "%s" '
                              'wait for "%s" to adopt them): run the update again without rollback to '
                              'finish it' % (opts.name, partial_name, partial_name, opts.name))
        if any(k in annotations for k in UPDATE_ANNOTATIONS):
            return Rollback(LEFTOVERS, partial_name, None)
        return Rollback(NOTHING, partial_name, None)
    partial_src = annotations_of(partial).get(SOURCE_ID_ANNOTATION)
    rollback_src = annotations.get(SOURCE_ID_ANNOTATION)
    if partial_src != source_id(old) and rollback_src != source_id(partial) and \
            annotations.get(NEXT_CONTROLLER_ANNOTATION) != partial_name:
        raise UpdateError('ReplicationController "%s" is not the new controller of an update of "%s": '
                          'nothing to roll back' % (partial_name, opts.name))
    if ORIGINAL_REPLICAS_ANNOTATION not in annotations:
        raise UpdateError("couldn't find original replica count of \"%s\" (annotation %s)"
                          % (opts.name, ORIGINAL_REPLICAS_ANNOTATION))
    return Rollback(ROLL_BACK, partial_name, original_replicas(old))

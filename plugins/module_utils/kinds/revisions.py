# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Rollout history: revisions (ReplicaSets or ControllerRevisions), lookup and template equality.

Pure functions over raw API objects; no I/O. A Deployment's revisions are the ReplicaSets it
controls (revision number in an annotation); a StatefulSet's or DaemonSet's are the
ControllerRevisions it controls (``.revision``, template inside ``.data`` as a strategic merge patch).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

POD_TEMPLATE_HASH_LABEL = 'pod-template-hash'
# The label a StatefulSet's or DaemonSet's pods and ControllerRevisions carry: the revision's hash.
CONTROLLER_REVISION_HASH_LABEL = 'controller-revision-hash'
REVISION_ANNOTATION = 'deployment.kubernetes.io/revision'
REVISION_HISTORY_ANNOTATION = 'deployment.kubernetes.io/revision-history'
DEPLOYMENT_DESIRED_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/desired-replicas'
MAX_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/max-replicas'
LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration'
ROLLBACK_TO_ANNOTATION = 'deprecated.deployment.rollback.to'
CHANGE_CAUSE_ANNOTATION = 'kubernetes.io/change-cause'

# Deployment annotations the controller never copies to a ReplicaSet; on undo they stay as the
# Deployment has them, every other annotation comes from the ReplicaSet (kubectl's rollback.go).
ANNOTATIONS_TO_SKIP = frozenset([
    LAST_APPLIED_ANNOTATION,
    REVISION_ANNOTATION,
    REVISION_HISTORY_ANNOTATION,
    DEPLOYMENT_DESIRED_REPLICAS_ANNOTATION,
    MAX_REPLICAS_ANNOTATION,
    ROLLBACK_TO_ANNOTATION,
])


class RevisionNotFound(Exception):
    def __init__(self, number, existing):
        self.number = number
        self.existing = existing
        listing = ', '.join(str(n) for n in existing) or 'none'
        super(RevisionNotFound, self).__init__(
            'unable to find specified revision %s in history (existing revisions: %s)' % (number, listing))


class Revision:
    """One entry of a workload's rollout history."""

    def __init__(self, number, source, template, replicas=None, former_numbers=()):
        self.number = number
        self.source = source  # the raw ReplicaSet or ControllerRevision
        self.template = template  # pod template, pod-template-hash removed
        self.replicas = replicas
        # Numbers this template had before a rollback renumbered it (Deployments keep them in the
        # revision-history annotation; ControllerRevisions keep none).
        self.former_numbers = tuple(former_numbers)

    @property
    def name(self):
        return self.source.get('metadata', {}).get('name')

    @property
    def created(self):
        return self.source.get('metadata', {}).get('creationTimestamp')

    @property
    def annotations(self):
        return self.source.get('metadata', {}).get('annotations') or {}

    @property
    def change_cause(self):
        return self.annotations.get(CHANGE_CAUSE_ANNOTATION)

    def summary(self, current=False):
        images, init = container_images(self.template)
        out = {'revision': self.number, 'change_cause': self.change_cause, 'name': self.name,
               'created': self.created, 'images': images, 'init_containers': init, 'current': current}
        if self.replicas is not None:
            out['replicas'] = self.replicas
        return out


# ---- templates -------------------------------------------------------------------------------

def strip_hash(template):
    """A deep copy of a pod template without the ``pod-template-hash`` label."""
    template = copy.deepcopy(template or {})
    labels = (template.get('metadata') or {}).get('labels')
    if labels and POD_TEMPLATE_HASH_LABEL in labels:
        del labels[POD_TEMPLATE_HASH_LABEL]
    return template


def normalize(value):
    """Drop nulls and empty maps/lists: the API treats them as absent (apimachinery's semantic
    equality does the same for nil and empty)."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            v = normalize(v)
            if v is None or v == {} or v == []:
                continue
            out[k] = v
        return out
    if isinstance(value, list):
        return [normalize(v) for v in value]
    return value


def templates_equal(a, b):
    """Pod templates equal, ignoring ``pod-template-hash`` and null/empty fields."""
    return normalize(strip_hash(a)) == normalize(strip_hash(b))


def template_differences(a, b, limit=3):
    """Where pod templates ``a`` and ``b`` differ (as ``templates_equal`` compares them): up to
    ``limit`` paths such as ``spec.containers[0].securityContext``, then ``...`` if there are more."""
    found = []

    def walk(x, y, path):
        if len(found) > limit or x == y:
            return
        if isinstance(x, dict) and isinstance(y, dict):
            for key in sorted(set(x) | set(y)):
                walk(x.get(key), y.get(key), '%s.%s' % (path, key) if path else key)
        elif isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
            for i, (u, v) in enumerate(zip(x, y)):
                walk(u, v, '%s[%d]' % (path, i))
        else:
            found.append(path or '(the whole template)')

    walk(normalize(strip_hash(a)), normalize(strip_hash(b)), '')
    return found[:limit] + (['...'] if len(found) > limit else [])


def container_images(template):
    """({container name: image} for init containers and containers, [init container names])."""
    spec = (template or {}).get('spec') or {}
    images = {}
    init = []
    for c in spec.get('initContainers') or []:
        images[c.get('name')] = c.get('image')
        init.append(c.get('name'))
    for c in spec.get('containers') or []:
        images[c.get('name')] = c.get('image')
    return images, init


# ---- ownership and parsing -------------------------------------------------------------------

def controlled_by(obj, owner_uid):
    """True when ``obj`` has a controller ownerReference to ``owner_uid`` (metav1.IsControlledBy)."""
    for ref in (obj.get('metadata') or {}).get('ownerReferences') or []:
        if ref.get('controller') and ref.get('uid') == owner_uid:
            return True
    return False


def _int(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def replica_set_revisions(replica_sets, owner_uid):
    """Revisions from ReplicaSets (a LIST's items), keeping those the Deployment controls and that
    carry a valid revision annotation; oldest first."""
    out = []
    for rs in replica_sets:
        if not controlled_by(rs, owner_uid):
            continue
        annotations = (rs.get('metadata') or {}).get('annotations') or {}
        number = _int(annotations.get(REVISION_ANNOTATION))
        if number is None:
            continue
        history = (annotations.get(REVISION_HISTORY_ANNOTATION) or '').split(',')
        former = [n for n in (_int(v) for v in history) if n is not None]
        spec = rs.get('spec') or {}
        out.append(Revision(number, rs, strip_hash(spec.get('template')), replicas=spec.get('replicas', 1),
                            former_numbers=former))
    return sorted(out, key=lambda r: r.number)


def controller_revision_template(cr):
    """The pod template stored in a ControllerRevision's ``.data`` (without ``$patch``)."""
    template = copy.deepcopy((((cr.get('data') or {}).get('spec') or {}).get('template')) or {})
    template.pop('$patch', None)
    return template


def controller_revisions(revisions, owner_uid):
    """Revisions from ControllerRevisions the StatefulSet/DaemonSet controls; oldest first."""
    out = []
    for cr in revisions:
        if not controlled_by(cr, owner_uid):
            continue
        number = _int(cr.get('revision'))
        if number is None:
            continue
        out.append(Revision(number, cr, strip_hash(controller_revision_template(cr))))
    return sorted(out, key=lambda r: r.number)


# ---- lookup ----------------------------------------------------------------------------------

def numbers(revisions):
    return sorted(r.number for r in revisions)


def find(revisions, number, current_template=None):
    """The revision with ``number``; RevisionNotFound lists the existing ones.

    With ``current_template``, a number that a rollback renumbered still finds its revision when
    that revision is the current one: re-running "undo to N" after it succeeded is then a no-op
    instead of kubectl's "unable to find specified revision N".
    """
    for r in revisions:
        if r.number == number:
            return r
    if current_template is not None:
        for r in revisions:
            if number in r.former_numbers and templates_equal(r.template, current_template):
                return r
    raise RevisionNotFound(number, numbers(revisions))


def recorded_revision(deployment):
    """The revision a Deployment's controller recorded in its annotation (None when absent or not a
    positive number)."""
    value = _int(((deployment.get('metadata') or {}).get('annotations') or {}).get(REVISION_ANNOTATION))
    return value if value and value > 0 else None


def before_and_after(revisions, template, changes_template):
    """(revision now, revision after a write): a changed template becomes the next revision, the
    highest + 1, as the controllers number it (a template seen before is renumbered the same way)."""
    now = current(revisions, template)
    highest = max(numbers(revisions)) if revisions else 0
    before = now.number if now else (highest or None)
    return before, (highest + 1 if changes_template else before)


def previous(revisions):
    """kubectl's "previous" revision: the second highest number (history 1, 3, 4 -> 3), or None."""
    ordered = sorted(revisions, key=lambda r: r.number)
    return ordered[-2] if len(ordered) >= 2 else None


def before(revisions, number):
    """The revision just before ``number`` (the highest lower number), or None."""
    lower = [r for r in revisions if r.number < number]
    return max(lower, key=lambda r: r.number) if lower else None


def current(revisions, template):
    """The revision whose template equals the workload's, or None (not yet recorded)."""
    matches = [r for r in revisions if templates_equal(r.template, template)]
    return max(matches, key=lambda r: r.number) if matches else None


# ---- comparing two templates -----------------------------------------------------------------

# Labels a controller adds to pod templates or pods; never part of what a user changed.
CONTROLLER_MANAGED_LABELS = frozenset([POD_TEMPLATE_HASH_LABEL, CONTROLLER_REVISION_HASH_LABEL])


def comparable(template):
    """A pod template as a diff shows it: controller-managed labels and null/empty fields dropped."""
    template = copy.deepcopy(template or {})
    labels = (template.get('metadata') or {}).get('labels')
    for key in CONTROLLER_MANAGED_LABELS:
        if labels and key in labels:
            del labels[key]
    return normalize(template)


def _as_yaml(value):
    try:
        import yaml
    except ImportError:  # PyYAML is a requirement, but a diff must not depend on it
        import json
        return json.dumps(value, indent=2, sort_keys=True) + '\n'
    return yaml.safe_dump(value, default_flow_style=False, sort_keys=True)


def template_diff(before, after, before_label='before', after_label='after'):
    """A unified diff (text) of two pod templates as YAML, compared as ``comparable`` shows them;
    '' when they are equal."""
    import difflib
    lines = difflib.unified_diff(_as_yaml(comparable(before)).splitlines(True),
                                 _as_yaml(comparable(after)).splitlines(True),
                                 fromfile=before_label, tofile=after_label)
    return ''.join(lines)

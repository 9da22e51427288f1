# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Pure patch builders, one per verb, plus the local "after" each patch produces (for check mode
and diffs without a write). The bodies are the ones kubectl sends."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

# The patch content types, defined with the client that sends them.
from ansible_collections.kubeops.rollout.plugins.module_utils.api.client import (  # noqa: F401
    JSON_PATCH,
    MERGE_PATCH,
    STRATEGIC_MERGE,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.revisions import (
    ANNOTATIONS_TO_SKIP,
    CHANGE_CAUSE_ANNOTATION,
    POD_TEMPLATE_HASH_LABEL,
    controller_revision_template,
    strip_hash,
)


RESTARTED_AT_ANNOTATION = 'kubectl.kubernetes.io/restartedAt'
WILDCARD = '*'


class UnknownContainer(Exception):
    def __init__(self, missing, existing):
        self.missing = missing
        self.existing = existing
        super(UnknownContainer, self).__init__(
            'unable to find container%s named %s (containers: %s)' % (
                's' if len(missing) > 1 else '', ', '.join('"%s"' % m for m in missing),
                ', '.join(existing) or 'none'))


# ---- pause / resume --------------------------------------------------------------------------

def pause_patch(paused):
    """Strategic merge patch for ``spec.paused``; resuming removes the field, as kubectl does."""
    return {'spec': {'paused': True if paused else None}}


# ---- restart ---------------------------------------------------------------------------------

def restart_patch(timestamp):
    return {'spec': {'template': {'metadata': {'annotations': {RESTARTED_AT_ANNOTATION: timestamp}}}}}


def restarted_template(template, timestamp):
    template = copy.deepcopy(template or {})
    template.setdefault('metadata', {}).setdefault('annotations', {})[RESTARTED_AT_ANNOTATION] = timestamp
    return template


# ---- set image -------------------------------------------------------------------------------

def _container_lists(template):
    spec = (template or {}).get('spec') or {}
    return [('initContainers', spec.get('initContainers') or []),
            ('containers', spec.get('containers') or [])]


def resolve_images(template, images):
    """{container: image} for every container (init containers too) the request names.

    ``*`` applies to every container (kubectl set image's wildcard); a name given explicitly wins
    over the wildcard. Unknown names raise UnknownContainer listing the containers that exist.
    """
    names = [c.get('name') for _field, items in _container_lists(template) for c in items]
    wanted = {}
    if WILDCARD in images:
        wanted = dict.fromkeys(names, images[WILDCARD])
    missing = sorted(n for n in images if n != WILDCARD and n not in names)
    if missing:
        raise UnknownContainer(missing, names)
    for name, image in images.items():
        if name != WILDCARD:
            wanted[name] = image
    return wanted


def image_patch(template, images, annotations=None, change_cause=None, partition=None,
                current_partition=None):
    """Strategic merge patch setting container images (merged by name) and, when given, the
    workload's ``kubernetes.io/change-cause`` and a StatefulSet's rolling update ``partition``
    (``current_partition``: its value now) in the same request.

    Returns the patch, or None when every image (and the change-cause, partition) is already as requested.
    """
    wanted = resolve_images(template, images)
    spec_patch = {}
    for field, items in _container_lists(template):
        changed = [{'name': c['name'], 'image': wanted[c['name']]}
                   for c in items if c.get('name') in wanted and c.get('image') != wanted[c['name']]]
        if changed:
            spec_patch[field] = changed
    patch = {}
    if spec_patch:
        patch['spec'] = {'template': {'spec': spec_patch}}
    if change_cause is not None and (annotations or {}).get(CHANGE_CAUSE_ANNOTATION) != change_cause:
        patch['metadata'] = {'annotations': {CHANGE_CAUSE_ANNOTATION: change_cause}}
    if partition is not None and partition != current_partition:
        patch.setdefault('spec', {}).update(partition_patch(partition)['spec'])
    return patch or None


def imaged_template(template, images):
    """The template after ``image_patch`` (for check mode and diffs)."""
    wanted = resolve_images(template, images)
    template = copy.deepcopy(template or {})
    for _field, items in _container_lists(template):
        for c in items:
            if c.get('name') in wanted:
                c['image'] = wanted[c['name']]
    return template


# ---- StatefulSet partition -------------------------------------------------------------------

def update_partition(spec):
    """A StatefulSet's ``updateStrategy.rollingUpdate.partition`` (0 when unset, as the API server
    defaults it); None for the OnDelete strategy, which has no partition."""
    strategy = (spec or {}).get('updateStrategy') or {}
    if strategy.get('type', 'RollingUpdate') != 'RollingUpdate':
        return None
    return (strategy.get('rollingUpdate') or {}).get('partition') or 0


def partition_patch(partition):
    """Strategic merge patch of the partition: only ordinals >= partition take the update revision."""
    return {'spec': {'updateStrategy': {'rollingUpdate': {'partition': partition}}}}


# ---- undo ------------------------------------------------------------------------------------

def deployment_undo_annotations(deployment_annotations, replica_set_annotations):
    """The Deployment's annotations after an undo: skip-listed ones kept from the Deployment, every
    other one taken from the ReplicaSet (so an annotation only the Deployment has is dropped)."""
    out = {}
    for key, value in (deployment_annotations or {}).items():
        if key in ANNOTATIONS_TO_SKIP:
            out[key] = value
    for key, value in (replica_set_annotations or {}).items():
        if key not in ANNOTATIONS_TO_SKIP:
            out[key] = value
    return out


def json_pointer(*tokens):
    """The RFC 6901 pointer to ``tokens`` (``~`` and ``/`` inside a token escaped as ``~0``, ``~1``)."""
    return ''.join('/' + str(t).replace('~', '~0').replace('/', '~1') for t in tokens)


def _test(path, value):
    return {'op': 'test', 'path': path, 'value': value}


def spec_guard(metadata):
    """The `test` that fails once the spec changed since ``metadata`` was read: ``generation``, which
    every spec write bumps and status or metadata writes never do, so a controller writing status
    mid-rollout does not trip it. (``resourceVersion``, which every write bumps, for an object
    without a generation.)"""
    if metadata.get('generation') is not None:
        return _test('/metadata/generation', metadata['generation'])
    return _test('/metadata/resourceVersion', metadata.get('resourceVersion'))


def annotations_guard(metadata):
    """The `test` that fails once the annotations changed since ``metadata`` was read: the whole map
    as read. A JSON patch cannot test that something is absent, so without annotations it is the
    ``resourceVersion`` (then any write since the read trips it)."""
    if metadata.get('annotations'):
        return _test('/metadata/annotations', metadata['annotations'])
    return _test('/metadata/resourceVersion', metadata.get('resourceVersion'))


def _guarded(tests, changes):
    """``tests`` (each once) then ``changes``: the server applies all of it or nothing."""
    out = []
    for op in tests:
        if op not in out:
            out.append(op)
    return out + changes


def deployment_undo_patch(deployment, replica_set):
    """JSON patch restoring a ReplicaSet's template and annotations onto its Deployment (kubectl's
    two ``replace`` operations), guarded by what the decision was made from: the spec (generation)
    and, since the annotations are replaced whole, the annotations as read. If either changed
    since the read, the server rejects the patch instead of overwriting that change; a status
    write in between does not.
    """
    meta = deployment.get('metadata') or {}
    template = strip_hash((replica_set.get('spec') or {}).get('template'))
    annotations = deployment_undo_annotations(meta.get('annotations'),
                                              (replica_set.get('metadata') or {}).get('annotations'))
    return _guarded([spec_guard(meta), annotations_guard(meta)], [
        {'op': 'replace', 'path': '/spec/template', 'value': template},
        # "replace" needs the member to exist; "add" sets it either way.
        {'op': 'replace' if meta.get('annotations') else 'add', 'path': '/metadata/annotations',
         'value': annotations},
    ])


def controller_revision_undo_annotations(workload_annotations, controller_revision):
    """The StatefulSet's / DaemonSet's annotations after an undo to ``controller_revision``: its
    ``kubernetes.io/change-cause`` set to the revision's, or removed when the revision has none.

    The controller copies the workload's annotations into each ControllerRevision it creates, so the
    revision's change-cause is the one the workload had when that template was rolled out; it is put
    back, as a Deployment undo puts back the ReplicaSet's. Other annotations are left alone: the
    copy is a snapshot of the workload's annotations at that time, not annotations that belong to
    the template.
    """
    out = dict(workload_annotations or {})
    revision_annotations = (controller_revision.get('metadata') or {}).get('annotations') or {}
    wanted = revision_annotations.get(CHANGE_CAUSE_ANNOTATION)
    if wanted is None:
        out.pop(CHANGE_CAUSE_ANNOTATION, None)
    else:
        out[CHANGE_CAUSE_ANNOTATION] = wanted
    return out


def controller_revision_undo_patch(workload, controller_revision):
    """JSON patch restoring a StatefulSet's / DaemonSet's template from a ControllerRevision (the
    template in its ``.data``, which the controller applies as a strategic merge patch replacing the
    whole template) and its change-cause (``controller_revision_undo_annotations``).

    Guarded by the spec (generation) and, when the change-cause changes, by that annotation as read
    (the whole map when the key was absent: JSON patch cannot test an absence). A status write
    between the read and this patch does not trip it.
    """
    meta = workload.get('metadata') or {}
    annotations = meta.get('annotations') or {}
    tests = [spec_guard(meta)]
    changes = [{'op': 'replace', 'path': '/spec/template',
                'value': controller_revision_template(controller_revision)}]
    after = controller_revision_undo_annotations(annotations, controller_revision)
    _change_cause_ops(meta, after.get(CHANGE_CAUSE_ANNOTATION), after, tests, changes)
    return _guarded(tests, changes)


def _change_cause_ops(meta, wanted, after, tests, changes):
    """Append the guarded ops that make the change-cause annotation ``wanted`` (None: absent);
    ``after``: the annotations as they will be, written whole when the object has none."""
    annotations = meta.get('annotations') or {}
    have = annotations.get(CHANGE_CAUSE_ANNOTATION)
    pointer = json_pointer('metadata', 'annotations', CHANGE_CAUSE_ANNOTATION)
    if have is not None and have != wanted:
        tests.append(_test(pointer, have))
        changes.append({'op': 'remove', 'path': pointer} if wanted is None
                       else {'op': 'replace', 'path': pointer, 'value': wanted})
    elif have is None and wanted is not None:
        tests.append(annotations_guard(meta))
        changes.append({'op': 'add', 'path': pointer, 'value': wanted} if annotations
                       else {'op': 'add', 'path': '/metadata/annotations', 'value': after})


def template_restore_patch(workload, template, change_cause):
    """JSON patch putting back a pod template exactly (``template``, as read before a release changed
    it) and the change-cause it had (None: absent), onto ``workload`` as the release left it.

    Guarded by the generation the release's own write produced (a spec write by anyone since then
    trips it, so it is never overwritten) and by the change-cause as the release wrote it. A repeat
    after a lost answer trips the guard too: the caller then reads again and finds the template back.
    """
    meta = workload.get('metadata') or {}
    annotations = meta.get('annotations') or {}
    tests = [spec_guard(meta)]
    changes = [{'op': 'replace', 'path': '/spec/template', 'value': template}]
    after = dict(annotations, **{CHANGE_CAUSE_ANNOTATION: change_cause})
    _change_cause_ops(meta, change_cause, after, tests, changes)
    return _guarded(tests, changes)


def template_view(template, annotations, partition=None):
    """The diff of every verb that changes a pod template: the part of the object it may change
    (with ``partition``, the StatefulSet's rolling update partition too)."""
    spec = {'template': template}
    if partition is not None:
        spec['updateStrategy'] = {'rollingUpdate': {'partition': partition}}
    return {'metadata': {'annotations': dict(annotations or {})}, 'spec': spec}


def template_write_patch(obj, template, annotations):
    """JSON patch writing ``template`` as the pod template of ``obj`` (as read) and the
    ``annotations`` given (a value of None removes one), guarded by what the decision was made from:
    the generation (the spec as read) and the annotations as read (the whole map, written back whole
    with the changes, so nothing else in it is lost). A change by anyone since the read fails it."""
    meta = obj.get('metadata') or {}
    have = meta.get('annotations') or {}
    after = dict(have)
    for key, value in annotations.items():
        if value is None:
            after.pop(key, None)
        else:
            after[key] = value
    changes = [{'op': 'replace', 'path': '/spec/template', 'value': template}]
    if after != have:
        changes.append({'op': 'add', 'path': '/metadata/annotations', 'value': after})
    return _guarded([spec_guard(meta), annotations_guard(meta)], changes)


def annotation_removal(obj, key):
    """JSON patch operations removing the annotation ``key`` from ``obj`` (as read), guarded by its
    exact text: none when it has no such annotation."""
    text = ((obj.get('metadata') or {}).get('annotations') or {}).get(key)
    if text is None:
        return []
    pointer = json_pointer('metadata', 'annotations', key)
    return [{'op': 'test', 'path': pointer, 'value': text}, {'op': 'remove', 'path': pointer}]


def annotated(annotations, patch):
    """``annotations`` after a strategic/merge patch's ``metadata.annotations`` (None deletes)."""
    out = dict(annotations or {})
    for key, value in (((patch or {}).get('metadata') or {}).get('annotations') or {}).items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


__all__ = [
    'STRATEGIC_MERGE', 'JSON_PATCH', 'MERGE_PATCH', 'RESTARTED_AT_ANNOTATION', 'POD_TEMPLATE_HASH_LABEL',
    'UnknownContainer', 'pause_patch', 'restart_patch', 'restarted_template',
    'resolve_images', 'image_patch', 'imaged_template', 'update_partition', 'partition_patch',
    'deployment_undo_annotations', 'deployment_undo_patch', 'json_pointer', 'spec_guard', 'annotations_guard',
    'controller_revision_undo_annotations', 'controller_revision_undo_patch', 'annotated',
    'template_restore_patch', 'CHANGE_CAUSE_ANNOTATION',
]

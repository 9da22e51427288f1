# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Restart on configuration change: which ConfigMaps and Secrets a pod template uses, a digest of
their content, and the pod-template annotation that records it. Pure functions, no I/O.

The annotation holds one sha256 per object, ``ConfigMap/app=<hex>,Secret/db=<hex>`` (sorted), so
a later run can say which object changed. A digest covers exactly:
- ConfigMap: ``data`` and ``binaryData`` (keys and values);
- Secret: ``data`` (keys and the base64 values the API returns; ``stringData`` is write-only and
  already merged into ``data`` by the API server) and ``type``;
serialized as JSON with sorted keys. Labels, annotations and other metadata are not covered, so
relabelling a ConfigMap restarts nothing. An optional reference to a missing object is recorded as
``absent``: creating the object later changes the digest.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import hashlib
import json

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import patches

CONFIG_DIGEST_ANNOTATION = 'kubeops.rollout/config-digest'
CONFIG_MAP = 'ConfigMap'
SECRET = 'Secret'
ABSENT = 'absent'

# What each kind's digest covers (see the module docstring).
_COVERED = {CONFIG_MAP: ('data', 'binaryData'), SECRET: ('data', 'type')}


class ConfigRef:
    """A ConfigMap or Secret a workload uses; ``optional`` when every reference to it says so
    (kubelet starts a pod without an optional object, and refuses to without a required one)."""

    def __init__(self, kind, name, optional=False):
        self.kind = kind
        self.name = name
        self.optional = optional

    @property
    def key(self):
        return '%s/%s' % (self.kind, self.name)

    def __eq__(self, other):
        return isinstance(other, ConfigRef) and (self.key, self.optional) == (other.key, other.optional)

    def __hash__(self):
        return hash((self.key, self.optional))

    def __repr__(self):
        return 'ConfigRef(%r, %r, optional=%r)' % (self.kind, self.name, self.optional)


# ---- references ------------------------------------------------------------------------------

def _containers(pod_spec):
    for field in ('initContainers', 'containers', 'ephemeralContainers'):
        yield from pod_spec.get(field) or []


def _template_refs(template):
    """(kind, name, optional) for every reference in a pod template, duplicates included."""
    spec = (template or {}).get('spec') or {}
    for volume in spec.get('volumes') or []:
        if volume.get('configMap'):
            yield CONFIG_MAP, volume['configMap'].get('name'), volume['configMap'].get('optional')
        if volume.get('secret'):
            yield SECRET, volume['secret'].get('secretName'), volume['secret'].get('optional')
        for source in (volume.get('projected') or {}).get('sources') or []:
            if source.get('configMap'):
                yield CONFIG_MAP, source['configMap'].get('name'), source['configMap'].get('optional')
            if source.get('secret'):
                yield SECRET, source['secret'].get('name'), source['secret'].get('optional')
    for c in _containers(spec):
        for env_from in c.get('envFrom') or []:
            for field, kind in (('configMapRef', CONFIG_MAP), ('secretRef', SECRET)):
                if env_from.get(field):
                    yield kind, env_from[field].get('name'), env_from[field].get('optional')
        for env in c.get('env') or []:
            source = env.get('valueFrom') or {}
            if source.get('configMapKeyRef'):
                ref = source['configMapKeyRef']
                yield CONFIG_MAP, ref.get('name'), ref.get('optional')
            if source.get('secretKeyRef'):
                ref = source['secretKeyRef']
                yield SECRET, ref.get('name'), ref.get('optional')


def references(template=None, config_maps=(), secrets=()):
    """The objects to digest, sorted by kind and name: those named explicitly (always required)
    and, with ``template``, those the pod template references. An object referenced several times
    is optional only if every reference is."""
    found = {}
    named = [(CONFIG_MAP, n, False) for n in config_maps or ()] + [(SECRET, n, False) for n in secrets or ()]
    template_refs = list(_template_refs(template)) if template is not None else []
    for kind, name, optional in named + template_refs:
        if not name:
            continue
        key = (kind, name)
        found[key] = found.get(key, True) and bool(optional)
    return [ConfigRef(kind, name, optional) for (kind, name), optional in sorted(found.items())]


# ---- digests ---------------------------------------------------------------------------------

def object_digest(kind, obj):
    """sha256 (hex) of what the digest covers for a ConfigMap or Secret (raw API JSON)."""
    covered = {field: obj[field] for field in _COVERED[kind] if obj.get(field) not in (None, {}, '')}
    text = json.dumps(covered, sort_keys=True, separators=(',', ':'), ensure_ascii=True)
    return hashlib.sha256(text.encode('utf-8')).hexdigest()


def digests(refs, objects):
    """{``Kind/name``: hex digest or ``absent``} for ``refs``; ``objects`` maps ``Kind/name`` to
    the object read (no entry when it does not exist; see ``missing_required``)."""
    out = {}
    for ref in refs:
        obj = objects.get(ref.key)
        out[ref.key] = ABSENT if obj is None else object_digest(ref.kind, obj)
    return out


def missing_required(refs, objects):
    """The required references whose object does not exist."""
    return [ref for ref in refs if not ref.optional and objects.get(ref.key) is None]


def missing_message(refs, namespace):
    names = ', '.join('%s "%s"' % (r.kind, r.name) for r in refs)
    return ('%s not found in namespace "%s"; nothing was restarted. Create %s, or mark the pod template '
            'reference optional: true if the workload runs without it'
            % (names, namespace, 'them' if len(refs) > 1 else 'it'))


def describe_changes(previous_value, change_list):
    """Why a restart happens, in one line."""
    if not previous_value:
        return 'no configuration digest recorded yet'
    if not change_list:
        return 'the recorded digest is not in the expected format'
    return ', '.join('%s %s' % (c['object'], c['change']) for c in change_list)


def format_annotation(per_object):
    """``Kind/name=<digest>`` pairs, sorted, comma separated (names cannot contain ``,`` or ``=``)."""
    return ','.join('%s=%s' % (key, per_object[key]) for key in sorted(per_object))


def parse_annotation(value):
    """The inverse of ``format_annotation``; anything unreadable yields {} (as if never recorded)."""
    out = {}
    for part in (value or '').split(','):
        key, sep, digest = part.partition('=')
        if not sep or '/' not in key:
            return {}
        out[key] = digest
    return out


def recorded(template):
    """The annotation value on a pod template, or None."""
    return (((template or {}).get('metadata') or {}).get('annotations') or {}).get(CONFIG_DIGEST_ANNOTATION)


def recorded_on_workload(workload):
    """The digest a first run recorded on the workload itself (``first_run=record``), or None. It
    stands for the pods' configuration only while the pod template records none."""
    return (((workload or {}).get('metadata') or {}).get('annotations') or {}).get(CONFIG_DIGEST_ANNOTATION)


def record_patch(workload, annotation):
    """JSON patch recording the digest on the workload's own annotations, which no controller acts
    on, so no pod is replaced; guarded by the generation (the decision was made from a template
    without a digest)."""
    metadata = (workload or {}).get('metadata') or {}
    if metadata.get('annotations') is None:
        change = {'op': 'add', 'path': '/metadata/annotations',
                  'value': {CONFIG_DIGEST_ANNOTATION: annotation}}
    else:
        change = {'op': 'add', 'value': annotation,
                  'path': patches.json_pointer('metadata', 'annotations', CONFIG_DIGEST_ANNOTATION)}
    return [patches.spec_guard(metadata), change]


def recorded_annotations(annotations, annotation):
    """The workload's annotations after ``record_patch`` (for check mode and diffs)."""
    out = dict(annotations or {})
    out[CONFIG_DIGEST_ANNOTATION] = annotation
    return out


def changes(before, after):
    """What changed between two per-object maps: [{object, change}] with change ``changed``,
    ``added`` (newly referenced) or ``removed`` (no longer referenced), sorted by object."""
    out = []
    for key in sorted(set(before) | set(after)):
        if key not in before:
            out.append({'object': key, 'change': 'added'})
        elif key not in after:
            out.append({'object': key, 'change': 'removed'})
        elif before[key] != after[key]:
            out.append({'object': key, 'change': 'changed'})
    return out


def restart_patch(workload, timestamp, annotation, restarted_at_key):
    """JSON patch setting the digest and the restart stamp in one request, guarded by the spec
    (``patches.spec_guard``: the generation as read). The restart was decided from the digest the
    template recorded when it was read: if the template changed since, the patch fails and the
    decision is made again; a status write in between does not trip it."""
    template = ((workload.get('spec') or {}).get('template')) or {}
    values = {CONFIG_DIGEST_ANNOTATION: annotation, restarted_at_key: timestamp}
    stale = recorded_on_workload(workload)
    template_meta = template.get('metadata')
    if template_meta is None:
        changes = [{'op': 'add', 'path': '/spec/template/metadata', 'value': {'annotations': values}}]
    elif template_meta.get('annotations') is None:
        changes = [{'op': 'add', 'path': '/spec/template/metadata/annotations', 'value': values}]
    else:
        # "add" sets a member whether or not it exists.
        changes = [{'op': 'add', 'value': value,
                    'path': patches.json_pointer('spec', 'template', 'metadata', 'annotations', key)}
                   for key, value in sorted(values.items())]
    if stale is not None:
        # The template records the digest from now on: the first run's record on the workload goes,
        # if it is still the value read.
        pointer = patches.json_pointer('metadata', 'annotations', CONFIG_DIGEST_ANNOTATION)
        changes += [{'op': 'test', 'path': pointer, 'value': stale}, {'op': 'remove', 'path': pointer}]
    return [patches.spec_guard(workload.get('metadata') or {})] + changes


def restarted_template(template, timestamp, annotation, restarted_at_key):
    """The template after ``restart_patch`` (for check mode and diffs)."""
    template = copy.deepcopy(template or {})
    annotations = template.setdefault('metadata', {}).setdefault('annotations', {})
    annotations[CONFIG_DIGEST_ANNOTATION] = annotation
    annotations[restarted_at_key] = timestamp
    return template

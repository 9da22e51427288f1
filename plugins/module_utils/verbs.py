# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The rollout verbs, one function each: read, decide (with the pure helpers), write, report.

Each takes an ApiClient and a Workload (already read) and returns an ``Outcome``; in check mode
nothing is written and the outcome (changed, diff) is computed locally from the same patch.
Per-kind behaviour comes from the Workload class (workloads.py), never from ``if kind == ...``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.kubeops.rollout.plugins.module_utils import config_digest, patches, revisions
from ansible_collections.kubeops.rollout.plugins.module_utils.client import path_quote, retry_on_conflict
from ansible_collections.kubeops.rollout.plugins.module_utils.errors import ApiError
from ansible_collections.kubeops.rollout.plugins.module_utils.workloads import NotSupported, Refused

ROLLBACK_SUCCESS = 'rolled back'
ROLLBACK_SKIPPED = 'skipped rollback'


class Outcome:
    """What one verb did to one workload: the result entry, and before/after for diff mode."""

    def __init__(self, workload, changed, fields=None, before=None, after=None, obj=None, error=None,
                 diff_unchanged=False):
        self.workload = workload
        self.diff_unchanged = diff_unchanged  # a diff worth showing without a change (history's comparison)
        self.error = error  # a failure to report while still listing the entry
        self.changed = changed
        self.fields = fields or {}
        self.before = before
        self.after = after
        self.obj = obj if obj is not None else workload.obj  # latest known object, to wait from

    def entry(self):
        out = self.workload.identity()
        out['changed'] = self.changed
        out.update(self.fields)
        return out

    def diff(self):
        header = '%s %s/%s' % (self.workload.kind, self.workload.namespace, self.workload.name)
        return {'before': self.before, 'after': self.after, 'before_header': header, 'after_header': header}


def _template_of(obj):
    return ((obj or {}).get('spec') or {}).get('template') or {}


# ---- conflicts -------------------------------------------------------------------------------

def _decide_and_write(client, workload, attempt):
    """``attempt(workload, conflicted)`` under ``retry_on_conflict``: after a conflict the workload is
    read again and the decision made again from it."""
    latest = [workload]

    def once(conflicted):
        if conflicted:
            latest[0] = type(workload)(client.get(workload.path))
        return attempt(latest[0], conflicted)

    return retry_on_conflict(once)


# ---- history ---------------------------------------------------------------------------------

CURRENT = 'current'


def history(client, workload, revision=None, compare_to=None):
    """Revisions oldest first; with ``revision``, also that revision's pod template.

    With ``compare_to`` (a revision number or ``current``, the workload's template now), also the
    difference from that side to ``revision`` (default: the current template), as a unified diff of
    the templates and, for diff mode, before/after of the same shape rollout_undo shows.
    """
    revs = workload.history(client)
    current = revisions.current(revs, workload.template)
    fields = {'revisions': [r.summary(current=current is not None and r is current) for r in revs],
              'current_revision': current.number if current else None,
              'replicas': workload.replicas, 'partition': workload.partition}
    if revision:
        fields['template'] = revisions.find(revs, revision).template
    if compare_to is None:
        return Outcome(workload, False, fields)

    def side(which):
        if which == CURRENT:
            label = 'current template' + (' (revision %d)' % current.number if current else '')
            return workload.template, label
        return revisions.find(revs, which).template, 'revision %d' % which

    before, before_label = side(compare_to)
    after, after_label = side(revision or CURRENT)
    text = revisions.template_diff(before, after, before_label, after_label)
    fields['compare'] = {'from': before_label, 'to': after_label, 'equal': not text}
    fields['template_diff'] = text
    return Outcome(workload, False, fields, before, after, diff_unchanged=True)


# ---- pause / resume --------------------------------------------------------------------------

def pause(client, workload, paused, check_mode=False):
    def attempt(workload, conflicted):
        content_type, body = workload.pause_patch(paused)  # NotSupported for all kinds but Deployment
        before = {'spec': {'paused': workload.paused}}
        if workload.paused == bool(paused):
            return Outcome(workload, conflicted, {'paused': workload.paused})
        after = {'spec': {'paused': bool(paused)}}
        obj = workload.obj
        if not check_mode:
            # Setting an absolute value: repeating the request changes nothing, so it may be retried.
            obj = client.patch(workload.path, body, content_type, retry=True)
            after = {'spec': {'paused': bool((obj.get('spec') or {}).get('paused'))}}
        return Outcome(workload, True, {'paused': after['spec']['paused']}, before, after, obj)

    return _decide_and_write(client, workload, attempt)


# ---- restart ---------------------------------------------------------------------------------

def restart(client, workload, check_mode=False, now=patches.rfc3339_now, sleep=time.sleep):
    """Always a change (like a service restart); refuses a paused Deployment."""
    def attempt(workload, _conflicted):
        workload.check_restartable()
        current = (_template_of(workload.obj).get('metadata') or {}).get('annotations') or {}
        stamp = now()
        if current.get(patches.RESTARTED_AT_ANNOTATION) == stamp:
            # Restarted within this very second: a second-precision stamp would not change the
            # template, so nothing would restart. Wait for the next second instead of failing.
            sleep(1.0)
            stamp = now()
        content_type, body = workload.restart_patch(stamp)
        before = workload.template
        after = patches.restarted_template(before, stamp)
        obj = workload.obj
        if not check_mode:
            obj = client.patch(workload.path, body, content_type, retry=True)
            after = _template_of(obj)
        return Outcome(workload, True, {'restarted_at': stamp}, before, after, obj)

    return _decide_and_write(client, workload, attempt)


# ---- restart on configuration change ---------------------------------------------------------

_CONFIG_PATHS = {config_digest.CONFIG_MAP: 'configmaps', config_digest.SECRET: 'secrets'}


def read_configs(client, namespace, refs, cache=None):
    """{``Kind/name``: object} for the referenced objects that exist (one GET each; ``cache``, a dict
    shared by the calls of one task, reads an object used by several workloads once)."""
    cache = {} if cache is None else cache
    out = {}
    for ref in refs:
        key = (namespace, ref.key)
        if key not in cache:
            path = '/api/v1/namespaces/%s/%s/%s' % (path_quote(namespace), _CONFIG_PATHS[ref.kind],
                                                    path_quote(ref.name))
            try:
                cache[key] = client.get(path)
            except ApiError as e:
                if e.status != 404:
                    raise
                cache[key] = None
        if cache[key] is not None:
            out[ref.key] = cache[key]
    return out


def config_references(client, workload, config_maps=(), secrets=(), from_template=False, cache=None):
    """(refs, objects) for a workload; a missing required object is refused (nothing written)."""
    refs = config_digest.references(workload.template if from_template else None, config_maps, secrets)
    objects = read_configs(client, workload.namespace, refs, cache)
    missing = config_digest.missing_required(refs, objects)
    if missing:
        message = config_digest.missing_message(missing, workload.namespace)
        raise Refused('%s: %s' % (workload.describe(), message))
    return refs, objects


def config_restart(client, workload, config_maps=(), secrets=(), from_template=False, check_mode=False,
                   cache=None, now=patches.rfc3339_now):
    """Restart only when the digest of the configuration differs from the one recorded in the pod
    template; the digest (never the content) is recorded in the same patch as the restart stamp."""
    def attempt(workload, conflicted):
        refs, objects = config_references(client, workload, config_maps, secrets, from_template, cache)
        digests = config_digest.digests(refs, objects)
        annotation = config_digest.format_annotation(digests)
        previous = config_digest.recorded(workload.template)
        change_list = config_digest.changes(config_digest.parse_annotation(previous), digests)
        fields = {'config_digest': annotation, 'config_objects': sorted(digests),
                  'config_changes': change_list, 'restarted_at': None, 'restart_reason': None}
        if (previous or '') == annotation:
            return Outcome(workload, conflicted, fields)
        workload.check_restartable()  # a paused Deployment is refused only when it needs a restart
        stamp = now()
        fields['restarted_at'] = stamp
        fields['restart_reason'] = config_digest.describe_changes(previous, change_list)
        body = config_digest.restart_patch(stamp, annotation, patches.RESTARTED_AT_ANNOTATION)
        # Guarded: a template changed since it was read is decided again from a fresh read.
        body['metadata'] = {'resourceVersion': workload.resource_version}
        before = workload.template
        after = config_digest.restarted_template(before, stamp, annotation, patches.RESTARTED_AT_ANNOTATION)
        obj = workload.obj
        if not check_mode:
            obj = client.patch(workload.path, body, patches.STRATEGIC_MERGE, retry=True)
            after = _template_of(obj)
        return Outcome(workload, True, fields, before, after, obj)

    return _decide_and_write(client, workload, attempt)


# ---- set image -------------------------------------------------------------------------------

def _change_cause(obj):
    return ((obj.get('metadata') or {}).get('annotations') or {}).get(revisions.CHANGE_CAUSE_ANNOTATION)


def image(client, workload, images, change_cause=None, check_mode=False, partition=None):
    """Set images; with ``partition`` (StatefulSets), also the rolling update partition, in the same patch."""
    def attempt(workload, conflicted):
        previous, init = revisions.container_images(workload.template)
        # UnknownContainer names what exists; NotSupported / Refused for a partition that cannot be set
        patch = workload.image_patch(images, change_cause, partition=partition)
        if patch is None:
            fields = {'images': previous, 'previous_images': previous, 'init_containers': init}
            if partition is not None:
                fields['partition'] = workload.partition
            return Outcome(workload, conflicted, fields)
        content_type, body = patch
        before = {'template': workload.template, 'change_cause': _change_cause(workload.obj)}
        after = {'template': patches.imaged_template(workload.template, images),
                 'change_cause': change_cause if change_cause is not None else before['change_cause']}
        if partition is not None:
            before['partition'], after['partition'] = workload.partition, partition
        obj = workload.obj
        if not check_mode:
            # Merged by container name with absolute values: a repeat changes nothing.
            obj = client.patch(workload.path, body, content_type, retry=True)
            after = dict(after, template=_template_of(obj), change_cause=_change_cause(obj))
            if partition is not None:
                after['partition'] = patches.update_partition(obj.get('spec'))
        now_images = revisions.container_images(after['template'])[0]
        if before['change_cause'] is None and after['change_cause'] is None:
            del before['change_cause'], after['change_cause']
            if partition is None:
                before, after = before['template'], after['template']
        fields = {'images': now_images, 'previous_images': previous, 'init_containers': init}
        if partition is not None:
            fields['partition'] = after['partition']
        return Outcome(workload, True, fields, before, after, obj)

    return _decide_and_write(client, workload, attempt)


# ---- undo ------------------------------------------------------------------------------------

def _undo_target(workload, revs, to_revision):
    if to_revision:
        return revisions.find(revs, to_revision, current_template=workload.template)
    target = revisions.previous(revs)
    if target is None:
        raise workload.no_previous_revision()
    return target


def undo(client, workload, to_revision=0, check_mode=False):
    """Roll back to ``to_revision`` (0: kubectl's previous, the second highest revision).

    The write is guarded by the workload's resourceVersion; if the workload changed between read
    and write, the whole decision is made again from a fresh read (bounded).
    """
    def attempt(workload, conflicted):
        workload.check_undoable()  # before the lookup, as kubectl: a paused Deployment is the first problem
        revs = workload.history(client)
        target = _undo_target(workload, revs, to_revision)
        current = revisions.current(revs, workload.template)
        from_revision = current.number if current else (max(revisions.numbers(revs)) if revs else None)
        fields = {'from_revision': from_revision, 'to_revision': target.number, 'message': ROLLBACK_SUCCESS}
        if revisions.templates_equal(target.template, workload.template):
            if conflicted:
                return Outcome(workload, True, fields)
            fields['message'] = '%s (current template already matches revision %d)' % (
                ROLLBACK_SKIPPED, target.number)
            return Outcome(workload, False, fields)
        content_type, body = workload.undo_patch(target)
        if content_type != patches.JSON_PATCH:
            # Strategic merge patches get the same guard through metadata.resourceVersion.
            body = dict(body, metadata={'resourceVersion': workload.resource_version})
        before = workload.template
        if check_mode:
            return Outcome(workload, True, fields, before, target.template)
        obj = client.patch(workload.path, body, content_type, retry=True)
        return Outcome(workload, True, fields, before, _template_of(obj), obj)

    return _decide_and_write(client, workload, attempt)


# ---- status ----------------------------------------------------------------------------------

def status(client, workload):
    """The rollout status now (no waiting: the module waits with status.wait_all)."""
    result = workload.rollout_status()
    error = '%s "%s": %s' % (workload.kind, workload.name, result.message) if result.failed else None
    return Outcome(workload, False, result.as_dict(), error=error)


__all__ = ['Outcome', 'history', 'pause', 'restart', 'config_restart', 'config_references', 'read_configs',
           'image', 'undo', 'status', 'NotSupported', 'Refused', 'CURRENT']

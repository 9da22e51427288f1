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

from ansible_collections.kubeops.rollout.plugins.module_utils import patches, revisions
from ansible_collections.kubeops.rollout.plugins.module_utils.client import retry_on_conflict
from ansible_collections.kubeops.rollout.plugins.module_utils.workloads import NotSupported, Refused

ROLLBACK_SUCCESS = 'rolled back'
ROLLBACK_SKIPPED = 'skipped rollback'


class Outcome:
    """What one verb did to one workload: the result entry, and before/after for diff mode."""

    def __init__(self, workload, changed, fields=None, before=None, after=None, obj=None, error=None):
        self.workload = workload
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

def history(client, workload, revision=None):
    """Revisions oldest first; with ``revision``, also that revision's pod template."""
    revs = workload.history(client)
    current = revisions.current(revs, workload.template)
    fields = {'revisions': [r.summary(current=current is not None and r is current) for r in revs],
              'current_revision': current.number if current else None}
    if revision:
        fields['template'] = revisions.find(revs, revision).template
    return Outcome(workload, False, fields)


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


# ---- set image -------------------------------------------------------------------------------

def _change_cause(obj):
    return ((obj.get('metadata') or {}).get('annotations') or {}).get(revisions.CHANGE_CAUSE_ANNOTATION)


def image(client, workload, images, change_cause=None, check_mode=False):
    def attempt(workload, conflicted):
        previous, init = revisions.container_images(workload.template)
        patch = workload.image_patch(images, change_cause)  # UnknownContainer names what exists
        if patch is None:
            fields = {'images': previous, 'previous_images': previous, 'init_containers': init}
            return Outcome(workload, conflicted, fields)
        content_type, body = patch
        before = {'template': workload.template, 'change_cause': _change_cause(workload.obj)}
        after = {'template': patches.imaged_template(workload.template, images),
                 'change_cause': change_cause if change_cause is not None else before['change_cause']}
        obj = workload.obj
        if not check_mode:
            # Merged by container name with absolute values: a repeat changes nothing.
            obj = client.patch(workload.path, body, content_type, retry=True)
            after = {'template': _template_of(obj), 'change_cause': _change_cause(obj)}
        now_images = revisions.container_images(after['template'])[0]
        if before['change_cause'] is None and after['change_cause'] is None:
            before, after = before['template'], after['template']
        fields = {'images': now_images, 'previous_images': previous, 'init_containers': init}
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


__all__ = ['Outcome', 'history', 'pause', 'restart', 'image', 'undo', 'status', 'NotSupported', 'Refused']

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The rollout verbs, one function each: read, decide (with the pure helpers), write, report.

Each takes an ApiClient and a Workload (already read) and returns an ``Outcome``; in check mode
the same patch is sent with dryRun=All (nothing persists; the API server validates and defaults
it), or, when the credentials may not write (403), the outcome is computed locally with a warning.
Per-kind behaviour comes from the Workload class (workloads.py), never from ``if kind == ...``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import patches, revisions
from ansible_collections.kubeops.rollout.plugins.module_utils.common import times
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.wait_options import DEFAULT_TIMEOUT
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workload import NotSupported, Refused
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.writes import (
    Outcome,
    annotations_of,
    decide_and_write,
    template_of,
    write,
)

ROLLBACK_SUCCESS = 'rolled back'
ROLLBACK_SKIPPED = 'skipped rollback'


# ---- checks before the first write ------------------------------------------------------------
# Each raises what the verb (or the wait after it) would raise, judged from what is already read,
# so that a task with several targets refuses them all before changing any.

def check_image(workload, images, wait=False, partition=None):
    patch = workload.image_patch(images, partition=partition)  # UnknownContainer, a partition refused
    if wait and patch is not None:
        workload.check_can_progress()


def check_restart(workload, wait=False):
    workload.check_restartable()
    if wait:
        workload.check_can_progress()


def check_undo(client, workload, to_revision=0, wait=False):
    """Reads the history (kept for the undo itself, so that no extra request is made) and finds the
    target revision."""
    workload.check_undoable()
    if wait:
        workload.check_can_progress()
    revs = workload.history(client)
    _undo_target(workload, revs, to_revision)
    workload.preread_history = revs


# ---- history ---------------------------------------------------------------------------------

CURRENT = 'current'
PREVIOUS = 'previous'


def history(client, workload, revision=None, compare_to=None):
    """Revisions oldest first; with ``revision``, also that revision's pod template.

    With ``compare_to`` (a revision number, ``current``, the workload's template now, or
    ``previous``, the revision before ``revision``, or before the current one), also the difference
    from that side to ``revision`` (default: the current template), as a unified diff of the
    templates and, for diff mode, before/after of the same shape rollout_undo shows.
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
    if compare_to == PREVIOUS:
        compare_to = _previous_of(workload, revs, revision or (current.number if current else None))

    def side(which):
        """(the workload as it is, or as an undo to that revision would make it; label)"""
        if which == CURRENT:
            label = 'current template' + (' (revision %d)' % current.number if current else '')
            return patches.template_view(workload.template, workload.annotations), label
        return _undone_view(workload, revisions.find(revs, which)), 'revision %d' % which

    before, before_label = side(compare_to)
    after, after_label = side(revision or CURRENT)
    text = revisions.template_diff(before['spec']['template'], after['spec']['template'], before_label,
                                   after_label)
    fields['compare'] = {'from': before_label, 'to': after_label, 'equal': not text}
    fields['template_diff'] = text
    return Outcome(workload, False, fields, before, after, diff_unchanged=True)


def _previous_of(workload, revs, number):
    """The number of the revision before ``number``; None: before the current template, which no
    revision records yet (a rollout not yet seen by the controller), so the newest revision."""
    if number is None:
        if not revs:
            raise Refused('%s has no revision to compare with' % workload.label())
        return max(revisions.numbers(revs))
    revisions.find(revs, number)  # RevisionNotFound for an unknown one
    found = revisions.before(revs, number)
    if found is None:
        raise Refused('%s: revision %d is the oldest in the history (%s), so it has no previous revision '
                      'to compare with' % (workload.label(), number,
                                           ', '.join(str(n) for n in sorted(revisions.numbers(revs)))))
    return found.number


def _refuse_in_flight(client, workload, verb):
    # Imported by the writing verbs only: history and status never load the release record (nor
    # its lease).
    from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import (
        record as release_record,
    )
    problem, step = release_record.in_flight_refusal(client, workload, verb)
    if problem:
        raise Refused(problem, next_step=step)


# ---- pause / resume --------------------------------------------------------------------------

def pause(client, workload, paused, check_mode=False):
    decided = {}

    def attempt(workload, conflicted):
        content_type, body = workload.pause_patch(paused)  # NotSupported for all kinds but Deployment
        before = {'spec': {'paused': workload.paused}}
        if workload.paused == bool(paused):
            if decided:  # the write decided first is in place (its answer lost, or an identical write)
                return Outcome(workload, True, {'paused': workload.paused}, decided['before'],
                               {'spec': {'paused': workload.paused}})
            return Outcome(workload, conflicted, {'paused': workload.paused})
        decided.setdefault('before', before)
        warnings = []
        obj = write(client, workload, content_type, body, check_mode,
                    lambda: dict(workload.obj, spec=dict(workload.spec, paused=bool(paused))), warnings)
        after = {'spec': {'paused': bool((obj.get('spec') or {}).get('paused'))}}
        if check_mode:
            obj = workload.obj
        return Outcome(workload, True, {'paused': after['spec']['paused']}, before, after, obj,
                       warnings=warnings)

    return decide_and_write(client, workload, attempt)


# ---- restart ---------------------------------------------------------------------------------

def restart(client, workload, check_mode=False, now=times.rfc3339_now, sleep=time.sleep,
            read_revisions=False):
    """Always a change (like a service restart); refuses a paused Deployment. ``read_revisions``: list
    a StatefulSet's or DaemonSet's revisions for ``revision_before``/``revision_after`` (one more
    request than kubectl's GET and PATCH; a Deployment's come from its annotation).

    One ``restartedAt`` value per call: after a conflict the same stamp is written again, and a
    template that already carries it (this call's write, its answer lost) is the restart done."""
    decided = {}

    def attempt(workload, _conflicted):
        workload.check_restartable()
        _refuse_in_flight(client, workload, 'restart')
        current = (template_of(workload.obj).get('metadata') or {}).get('annotations') or {}
        if 'stamp' in decided:
            stamp = decided['stamp']
            if current.get(patches.RESTARTED_AT_ANNOTATION) == stamp:
                after = patches.template_view(workload.template, workload.annotations)
                return Outcome(workload, True, dict(decided['fields']), decided['before'], after)
        else:
            stamp = now()
            if current.get(patches.RESTARTED_AT_ANNOTATION) == stamp:
                # Restarted within this very second: a second-precision stamp would not change the
                # template, so nothing would restart. Wait for the next second instead of failing.
                sleep(1.0)
                stamp = now()
        content_type, body = workload.restart_patch(stamp)
        revision_before, revision_after = workload.revision_numbers(client, True, read_revisions)
        before = patches.template_view(workload.template, workload.annotations)
        fields = {'restarted_at': stamp, 'revision_before': revision_before, 'revision_after': revision_after}
        if 'stamp' not in decided:
            decided.update(stamp=stamp, fields=fields, before=before)
        warnings = []
        obj = write(client, workload, content_type, body, check_mode,
                    lambda: {'metadata': workload.metadata,
                             'spec': {'template': patches.restarted_template(workload.template, stamp)}},
                    warnings)
        after = patches.template_view(template_of(obj), annotations_of(obj))
        return Outcome(workload, True, fields, before, after, workload.obj if check_mode else obj,
                       warnings=warnings)

    return decide_and_write(client, workload, attempt)


def last_replaced(client, workload):
    """When the workload's pods were last replaced: the later of its template's ``restartedAt`` and the
    creation of its current revision (one LIST); None when neither is known."""
    annotations = (template_of(workload.obj).get('metadata') or {}).get('annotations') or {}
    current = revisions.current(workload.history(client), workload.template)
    found = [t for t in (times.parse_datetime(annotations.get(patches.RESTARTED_AT_ANNOTATION)),
                         times.parse_datetime(current.created if current else None)) if t is not None]
    return max(found) if found else None


def restarted_since(workload, last, since_text):
    """The unchanged outcome of a workload whose pods were replaced at ``last``, after ``since``."""
    outcome = Outcome(workload, False, {'restarted_at': None, 'revision_before': None, 'revision_after': None,
                                        'skipped': True,
                                        'last_replaced': last.isoformat().replace('+00:00', 'Z'),
                                        'message': 'restarted or rolled out since %s' % since_text})
    outcome.waits = False  # nothing was asked of it: not waited for
    return outcome


# ---- set image -------------------------------------------------------------------------------

def image(client, workload, images, change_cause=None, check_mode=False, partition=None,
          read_revisions=False):
    """Set images; with ``partition`` (StatefulSets), also the rolling update partition, in the same
    patch. ``change_cause`` None or empty: the change-cause annotation is left as it is.
    ``read_revisions``: as for ``restart``."""
    change_cause = change_cause or None
    decided = {}  # the fields and diff side of the first decision

    def attempt(workload, conflicted):
        previous, init = revisions.container_images(workload.template)
        # UnknownContainer names what exists; NotSupported / Refused for a partition that cannot be set
        patch = workload.image_patch(images, change_cause, partition=partition)
        if patch is not None:
            _refuse_in_flight(client, workload, 'change of images')
        changes_template = patch is not None and 'template' in (patch[1].get('spec') or {})
        revision_before, revision_after = workload.revision_numbers(client, changes_template, read_revisions)
        fields = {'images': previous, 'previous_images': previous, 'init_containers': init,
                  'revision_before': revision_before, 'revision_after': revision_after}
        if partition is not None:
            fields['partition'] = workload.partition
        if patch is None:
            if 'fields' in decided:
                # The write decided first is in place (its answer lost, or an identical write).
                first = dict(decided['fields'], images=previous)
                if partition is not None:
                    first['partition'] = workload.partition
                after = patches.template_view(workload.template, workload.annotations,
                                              workload.partition if partition is not None else None)
                return Outcome(workload, True, first, decided['before'], after)
            return Outcome(workload, conflicted, fields)
        content_type, body = patch
        if 'fields' not in decided:
            shown_partition = workload.partition if partition is not None else None
            before = patches.template_view(workload.template, workload.annotations, shown_partition)
            decided.update(fields=dict(fields), before=before)

        def local_after():
            spec = {'template': patches.imaged_template(workload.template, images)}
            if partition is not None:
                spec['updateStrategy'] = {'rollingUpdate': {'partition': partition}}
            return {'metadata': {'annotations': patches.annotated(workload.annotations, body)}, 'spec': spec}

        warnings = []
        obj = write(client, workload, content_type, body, check_mode, local_after, warnings)
        before = patches.template_view(workload.template, workload.annotations,
                                       workload.partition if partition is not None else None)
        shown = patches.update_partition(obj.get('spec')) if partition is not None else None
        after = patches.template_view(template_of(obj), annotations_of(obj), shown)
        fields['images'] = revisions.container_images(after['spec']['template'])[0]
        if partition is not None:
            fields['partition'] = patches.update_partition(obj.get('spec'))
        return Outcome(workload, True, fields, before, after, workload.obj if check_mode else obj,
                       warnings=warnings)

    return decide_and_write(client, workload, attempt)


# ---- undo ------------------------------------------------------------------------------------

def _undo_target(workload, revs, to_revision):
    if to_revision:
        try:
            return revisions.find(revs, to_revision, current_template=workload.template)
        except revisions.RevisionNotFound as e:
            if workload.history_plural == 'controllerrevisions':
                e.args = (str(e) + '. A %s keeps no record of a revision\'s former number: an undo made '
                          'the revision it restored the newest one, so an undo to the same number cannot '
                          'be repeated (read the numbers again with rollout_history)' % workload.kind,)
            raise
    target = revisions.previous(revs)
    if target is None:
        raise workload.no_previous_revision()
    return target


def _same_template(revs, decided):
    """The revision of ``revs`` holding ``decided``'s template (the highest number when several do:
    the one a rollback renumbered), else ``decided`` itself (its template is what is restored)."""
    matches = [r for r in revs if revisions.templates_equal(r.template, decided.template)]
    return max(matches, key=lambda r: r.number) if matches else decided


def _undo_body(workload, target):
    """The undo patch for ``target`` (guarded by the generation and what it replaces beyond the spec)
    and the object it leaves, as far as an undo changes it (for check mode without write permission,
    and history's comparison)."""
    content_type, body = workload.undo_patch(target)
    local = {'metadata': {'annotations': workload.undo_annotations(target)},
             'spec': {'template': target.template}}
    return content_type, body, local


def _undone_view(workload, target):
    """The diff side of ``workload`` undone to ``target``: what rollout_undo's diff shows as "after"."""
    after = _undo_body(workload, target)[2]
    return patches.template_view(after['spec']['template'], after['metadata']['annotations'])


def undo(client, workload, to_revision=0, check_mode=False, replace_stuck_pods=False,
         timeout=DEFAULT_TIMEOUT):
    """Roll back to ``to_revision`` (0: kubectl's previous, the second highest revision).

    The write is guarded by what the decision was made from: the workload's generation (any spec
    write bumps it; the controllers' status writes do not) and the annotations the undo replaces. If
    either changed between read and write, the whole decision is made again from a fresh read
    (bounded); a status write in between changes nothing.

    ``replace_stuck_pods`` (StatefulSets): then delete, one at a time, the pods stuck on another
    revision, which the controller would otherwise wait for forever (``forced_rollback.replace_stuck``).
    """
    target_of = {}
    decided = {}  # the first decision: the target template and the fields reported for it

    def attempt(workload, conflicted):
        workload.check_undoable()  # before the lookup, as kubectl: a paused Deployment is the first problem
        _refuse_in_flight(client, workload, 'rollback')
        revs = getattr(workload, 'preread_history', None)
        revs = workload.history(client) if revs is None or conflicted else revs
        if 'target' in decided:
            # Decided once: an earlier write may have landed (its answer lost), after which "the
            # previous revision" names another one. The target stays the template decided first,
            # wherever the history now numbers it.
            target = _same_template(revs, decided['target'])
        else:
            target = _undo_target(workload, revs, to_revision)
        target_of['revision'] = target
        current = revisions.current(revs, workload.template)
        from_revision = current.number if current else (max(revisions.numbers(revs)) if revs else None)
        same = revisions.templates_equal(target.template, workload.template)
        revision_after = max(revisions.numbers(revs)) + 1 if not same else target.number
        fields = {'from_revision': from_revision, 'to_revision': target.number, 'message': ROLLBACK_SUCCESS,
                  'revision_before': from_revision, 'revision_after': revision_after}
        if same:
            if 'fields' in decided:
                # The write decided first is in place (this call's, its answer lost, or an identical
                # one): success, without a second change.
                after = patches.template_view(revisions.strip_hash(workload.template), workload.annotations)
                return Outcome(workload, True, dict(decided['fields']), decided['before'], after)
            if conflicted:
                return Outcome(workload, True, fields)
            fields['message'] = '%s (current template already matches revision %d)' % (
                ROLLBACK_SKIPPED, target.number)
            return Outcome(workload, False, fields)
        content_type, body, local = _undo_body(workload, target)
        before = patches.template_view(workload.template, workload.annotations)
        if 'fields' not in decided:
            decided.update(target=target, fields=fields, before=before)
        warnings = []
        obj = write(client, workload, content_type, body, check_mode, lambda: local, warnings)
        after = patches.template_view(revisions.strip_hash(template_of(obj)), annotations_of(obj))
        return Outcome(workload, True, fields, before, after, workload.obj if check_mode else obj,
                       warnings=warnings)

    outcome = decide_and_write(client, workload, attempt)
    if replace_stuck_pods and outcome.workload.replaces_stuck_pods():
        # Imported for the StatefulSets a task asks it of only.
        from ansible_collections.kubeops.rollout.plugins.module_utils.engine.forced_rollback import (
            replace_stuck,
        )
        written = type(outcome.workload)(outcome.obj)
        error, replaced = replace_stuck(client, written, target_of['revision'].name, check_mode, timeout)
        outcome.fields['replaced_pods'] = replaced
        outcome.changed = outcome.changed or bool(replaced)
        if error:
            outcome.error = error
    return outcome


# ---- status ----------------------------------------------------------------------------------

def status(client, workload):
    """The rollout status now (no waiting: the module waits with status.wait_all)."""
    from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.status import PAUSED

    result = workload.rollout_status()
    # Without waiting, a paused rollout is a state to report, not a failure: only a rollout that
    # can never finish whatever happens (progress deadline, unsupported strategy) fails.
    failed = result.failed and result.reason != PAUSED
    error = '%s: %s' % (workload.label(), result.message) if failed else None
    return Outcome(workload, False, result.as_dict(), error=error)


__all__ = ['Outcome', 'history', 'pause', 'restart', 'image', 'undo', 'status', 'last_replaced',
           'restarted_since', 'NotSupported', 'Refused', 'CURRENT', 'PREVIOUS']

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A canary release in three calls of ``rollout_release`` (``canary: start``, ``promote``, ``abort``),
with the user's verification between them; the same transaction as a release (``release.py``):
preflight before any write, guarded writes that a lost answer cannot repeat, one wait for all, the
health gate, and on failure every changed workload put back to the exact template it had.

- ``start``: the new images, and a record of what each workload had before (its template,
  change-cause, and a StatefulSet's partition) in the annotation ``kubeops.rollout/canary``, in one
  write per workload. A StatefulSet gets a partition so that only its ``canary_ordinals`` highest
  ordinals update; a Deployment is paused once the controller has started the new ReplicaSet. The
  call returns when the canary pods are Ready (early stop on pull errors, crash loops, ...).
- ``promote``: the rest of the rollout (Deployment resumed, StatefulSet partition back to what it
  was), the wait, the soak and the analysis; on success the record is removed.
- ``abort``: every workload with a record is put back as it was, record removed.

The record lives on the workload, so promote and abort work from another play or job (an AWX
workflow's approval node between them, for instance); a second start of the same images, a second
promote or abort, are no-ops.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import patches, revisions
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases import release
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import status as status_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError, KubeError
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workloads import observed

CANARY_ANNOTATION = 'kubeops.rollout/canary'
PHASES = ('start', 'promote', 'abort')


def record_of(obj):
    """The canary record of a workload (dict), or None; a record that does not parse is None."""
    text = ((obj.get('metadata') or {}).get('annotations') or {}).get(CANARY_ANNOTATION)
    if not text:
        return None
    try:
        record = json.loads(text)
    except ValueError:
        return None
    return record if isinstance(record, dict) and isinstance(record.get('template'), dict) else None


def _record_text(t):
    w = t.workload
    record = {
        'images': dict(sorted(t.images.items())),
        'template': w.template,
        'changeCause': w.annotations.get(release.CHANGE_CAUSE_ANNOTATION),
    }
    if w.canary_hold == 'partition':
        record['partition'] = w.partition
    return json.dumps(record, sort_keys=True, separators=(',', ':'))


def _canary_deployment(obj):
    """A paused Deployment's canary: the controller has seen the pause, the new ReplicaSet has pods,
    and every pod is available."""
    spec, st = obj.get('spec') or {}, obj.get('status') or {}
    if not spec.get('paused') or not observed(obj):
        return status_mod.RolloutStatus(False, 'Waiting for the pause to be observed...', 'SpecNotObserved')
    updated, unavailable = st.get('updatedReplicas') or 0, st.get('unavailableReplicas') or 0
    if updated < 1 or unavailable > 0:
        return status_mod.RolloutStatus(
            False, 'Waiting for the canary: %d new pods, %d pods unavailable...' % (updated, unavailable),
            'CanaryNotReady')
    return status_mod.RolloutStatus(True, 'canary of %d pods ready' % updated, 'CanaryReady')


def _started(before, written):
    """The predicate of a Deployment's first new pods after ``written``."""
    generation = (written.get('metadata') or {}).get('generation') or 0

    def predicate(obj):
        st = obj.get('status') or {}
        if (st.get('observedGeneration') or 0) < generation:
            return status_mod.RolloutStatus(False, 'Waiting for the new template to be observed...',
                                            'SpecNotObserved')
        # A progress deadline or a failure of the new revision ends it as a rollout would end.
        verdict = status_mod.after_change(status_mod.deployment_status, before, written)(obj)
        if verdict.failed or verdict.done:
            return verdict
        if (st.get('updatedReplicas') or 0) >= 1:
            return status_mod.RolloutStatus(True, 'the new ReplicaSet has pods', 'CanaryStarted')
        return status_mod.RolloutStatus(False, 'Waiting for the first new pods...', 'CanaryStarting')
    return predicate


class CanaryRelease(release.Release):
    """One phase of a canary (``options.canary``) over the targets."""

    def __init__(self, client, targets, options, **kwargs):
        super(CanaryRelease, self).__init__(client, targets, options, **kwargs)
        self.phase = options.canary

    # -- preflight
    def _refusal(self, t):
        w = t.workload
        if w.canary_hold is None:
            return ('%s: a canary needs a Deployment (paused while it is verified) or a StatefulSet '
                    '(partitioned); release it without canary' % t.label())
        if w.canary_hold == 'partition' and w.partition is None:
            return ('%s uses the OnDelete update strategy, which has no partition for a canary; '
                    'switch it to RollingUpdate or release it without canary' % t.label())
        t.record = record_of(w.obj)
        if t.record is not None and not _running(w.template, t.record.get('images')):
            # A record whose images no longer run (copied back by an undo, say) is no canary.
            self.warnings.append('%s: its %s annotation names images it no longer runs (%s): ignored'
                                 % (t.label(), CANARY_ANNOTATION, _images_text(t.record.get('images'))))
            t.record = None
        if self.phase == 'start':
            if t.record is not None and t.record.get('images') != t.images:
                return ('%s has a canary of other images in progress (%s): promote or abort it first'
                        % (t.label(), _images_text(t.record.get('images'))))
            if t.record is None and w.paused:
                return ('%s is paused: a paused Deployment does not roll out; resume it first '
                        '(rollout_pause with state=resumed)' % t.label())
        elif self.phase == 'promote' and t.record is not None and t.record.get('images') != t.images:
            return ('%s has a canary of other images (%s): promote it with those images, or abort it'
                    % (t.label(), _images_text(t.record.get('images'))))
        elif self.phase == 'promote' and t.record is None and not self.options.check_mode:
            # Promoted already (the record goes last), or never started.
            if w.image_patch(t.images) is not None or w.paused:
                return ('%s has no canary of these images to promote (no %s annotation): start one '
                        'first (canary: start)' % (t.label(), CANARY_ANNOTATION))
        return None

    def _patch_of(self, t):
        w = t.workload
        if self.phase == 'start':
            if t.record is not None:
                return None  # started already: a repeat changes nothing
            partition = None
            if w.canary_hold == 'partition':
                partition = max(w.partition, (w.replicas if w.replicas is not None else 1)
                                - self.options.canary_ordinals)
            if w.image_patch(t.images) is None:
                return None  # the images are there already: nothing to try
            content_type, body = w.image_patch(t.images, t.change_cause, partition=partition) \
                if w.canary_hold == 'partition' else w.image_patch(t.images, t.change_cause)
            body.setdefault('metadata', {}).setdefault('annotations', {})[CANARY_ANNOTATION] = _record_text(t)
            return content_type, body
        if self.phase == 'promote':
            if t.record is None:
                # Check mode (no start was written) or promoted already: what a release would do.
                return None if not self.options.check_mode else super(CanaryRelease, self)._patch_of(t)
            if w.canary_hold == 'partition':
                if w.partition == (t.record.get('partition') or 0):
                    return None
                return patches.STRATEGIC_MERGE, patches.partition_patch(t.record.get('partition') or 0)
            return (patches.STRATEGIC_MERGE, patches.pause_patch(False)) if w.paused else None
        return None  # abort writes only by putting back

    # -- wait
    def wait_all(self):
        if self.phase != 'start':
            return super(CanaryRelease, self).wait_all()
        calls = []
        for t in self.targets:
            if t.workload.canary_hold == 'pause' and t.written is not None:
                calls.append(lambda t=t: self._start_deployment(t))
            else:
                obj = t.written or t.workload.obj
                calls.append(lambda t=t, obj=obj: self._wait_one(
                    t, obj, self.options.timeout,
                    status_mod.after_change(t.kind(obj).rollout_status, t.workload.obj, t.written)
                    if t.written is not None else
                    (_canary_deployment if t.workload.canary_hold == 'pause' and t.record is not None
                     else None)))
        for t, result in zip(self.targets, self._parallel(calls)):
            t.status = result
            if not result.done:
                t.cause = result.message

    def _start_deployment(self, t):
        """The first new pods, then the pause, then the canary Ready."""
        begun = self._wait_one(t, t.written, self.options.timeout, _started(t.workload.obj, t.written))
        if not begun.done:
            return begun
        paused = self.client.patch(t.workload.path, patches.pause_patch(True), patches.STRATEGIC_MERGE,
                                   retry=True)
        self.progress('%s: paused with the canary pods of the new ReplicaSet' % t.label())
        return self._wait_one(t, paused, self.options.timeout, _canary_deployment)

    # -- put back
    def _restore_patch(self, t, current):
        """The template and change-cause back, a StatefulSet's partition back, a Deployment resumed
        (a paused one would not roll back), the record removed: one guarded JSON patch."""
        body = patches.template_restore_patch(current, t.original_template, t.original_cause)
        meta = current.get('metadata') or {}
        if current.get('spec', {}).get('paused'):
            body.append({'op': 'replace', 'path': '/spec/paused', 'value': False})
        if t.kind.canary_hold == 'partition' and t.record is not None:
            wanted = t.record.get('partition') or 0
            if patches.update_partition(current.get('spec')) != wanted:
                body.append({'op': 'add', 'path': '/spec/updateStrategy/rollingUpdate/partition',
                             'value': wanted})
        pointer = patches.json_pointer('metadata', 'annotations', CANARY_ANNOTATION)
        text = (meta.get('annotations') or {}).get(CANARY_ANNOTATION)
        if text is not None:
            body.extend([{'op': 'test', 'path': pointer, 'value': text}, {'op': 'remove', 'path': pointer}])
        return body

    def _restored(self, current):
        spec = current.get('spec') or {}
        return record_of(current) is None and not spec.get('paused')

    def _finish(self, t):
        """Promoted: the record goes (guarded by its text, so a repeat changes nothing)."""
        current = self.client.get(t.workload.path)
        text = ((current.get('metadata') or {}).get('annotations') or {}).get(CANARY_ANNOTATION)
        if text is None:
            return
        pointer = patches.json_pointer('metadata', 'annotations', CANARY_ANNOTATION)
        try:
            self.client.patch(t.workload.path, [{'op': 'test', 'path': pointer, 'value': text},
                                                {'op': 'remove', 'path': pointer}], patches.JSON_PATCH,
                              retry=True)
        except ApiError as e:
            if not e.is_conflict:
                raise

    # -- the whole
    def _run(self):
        if self.phase != 'abort':
            result = super(CanaryRelease, self)._run()
            if self.phase == 'promote' and not result.failed and not self.options.check_mode:
                for t in self.targets:
                    if t.record is not None:
                        try:
                            self._finish(t)
                        except KubeError as e:
                            self.warnings.append('%s: promoted, but its %s annotation could not be removed: '
                                                 '%s' % (t.label(), CANARY_ANNOTATION, release._text(e)))
            return result
        problems = self.preflight()
        if problems:
            return self._refused(problems)
        with_record = [t for t in self.targets if t.record is not None]
        for t in self.targets:
            if t.record is None:
                t.outcome = release.UNCHANGED
        if self.options.check_mode:
            for t in with_record:
                t.outcome, t.would_change = release.ROLLED_BACK, True
            return self._summary()
        self.put_back([], chosen=with_record)
        for t in with_record:
            t.write_sent = t.outcome in (release.ROLLED_BACK, release.ROLLBACK_FAILED)
            if t.outcome == release.ROLLED_BACK:
                t.cause = None  # put back as asked: not a failure
        return self._summary()

    def _words(self):
        words = super(CanaryRelease, self)._words()
        check = self.options.check_mode
        if self.phase == 'start':
            words[release.UPGRADED] = 'Would start a canary of' if check else 'Canary started'
        elif self.phase == 'promote':
            words[release.UPGRADED] = 'Would promote' if check else 'Promoted'
        else:
            words[release.ROLLED_BACK] = 'Would abort the canary of' if check else 'Canary aborted'
            words[release.UNCHANGED] = 'No canary to abort'
        return words


def _running(template, images):
    """Whether every container named in ``images`` runs that image in ``template``."""
    try:
        have = revisions.container_images(template)[0]
    except (TypeError, AttributeError):
        return False
    if '*' in (images or {}):
        return all(v == images['*'] for v in have.values())
    return all(have.get(name) == image for name, image in (images or {}).items())


def _images_text(images):
    return ', '.join('%s=%s' % (k, v) for k, v in sorted((images or {}).items())) or 'none'

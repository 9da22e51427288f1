# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A canary release in three calls of ``rollout_release`` (``canary: start``, ``promote``, ``rollback``),
with the user's verification between them; each phase is a release strategy (``release.Release``):
preflight before any write, guarded writes that a lost answer cannot repeat, one wait for all on
the engine, the health gate, and on failure every changed workload put back to the exact template
it had.

- ``CanaryStart``: the new images, and a record of what each workload had before (its template,
  change-cause, and what the kind's hold keeps, such as a StatefulSet's partition) in the
  annotation ``kubeops.rollout/canary``, in one write per workload. The hold is the kind's
  (``Workload.canary_*``): a StatefulSet is partitioned so that only its ``canary_ordinals`` highest
  ordinals update; a Deployment is paused once the controller has started the new ReplicaSet. The
  call returns when the canary pods are Ready (early stop on pull errors, crash loops, ...).
- ``CanaryPromote``: the rest of the rollout (the hold released), the wait, the soak and the
  analysis; on success the record is removed.
- ``CanaryRollback``: every workload with a record is put back as it was, record removed.

The record lives on the workload, so promote and rollback work from another play or job (an AWX
workflow's approval node between them, for instance); a second start of the same images, a second
promote or rollback, are no-ops.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


from ansible_collections.kubeops.rollout.plugins.module_utils.common.vocabulary import setting
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import (
    ApiError,
    KubeError,
    error_text,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.engine import records
from ansible_collections.kubeops.rollout.plugins.module_utils.engine.rollouts import Rollout
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import patches, revisions
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.patches import CHANGE_CAUSE_ANNOTATION
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import record as release_record
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release.release import Release
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release.targets import (
    ROLLED_BACK,
    UNCHANGED,
    UPGRADED,
)

CANARY_ANNOTATION = release_record.CANARY_ANNOTATION
# The note of a canary whose start is met: held (paused, or partitioned), not rolled out.
CANARY_HELD = 'canary pods Ready, held until the promotion or the abort'


def record_of(obj):
    """The canary record of a workload (dict), or None; a record that does not parse (within the
    bounds of engine/records.py) is None."""
    text = ((obj.get('metadata') or {}).get('annotations') or {}).get(CANARY_ANNOTATION)
    if not text:
        return None
    try:
        record = records.decode(text)
    except records.Malformed:
        return None
    if not isinstance(record.get('template'), dict):
        return None
    images = record.get('images')
    if not isinstance(images, dict):
        return None
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in images.items()):
        return None
    return record


def record_text(workload, images, release):
    """The record a start of ``release`` writes on ``workload`` (as read) for ``images``."""
    record = {
        'id': release,
        'images': dict(sorted(images.items())),
        'template': workload.template,
        'changeCause': workload.annotations.get(CHANGE_CAUSE_ANNOTATION),
    }
    record.update(workload.canary_record())
    return records.encode(record)


class _CanaryPhase(Release):
    """What every phase shares: the kind's hold, the record read and checked, the put-back from it."""

    def __init__(self, client, targets, options, **kwargs):
        super(_CanaryPhase, self).__init__(client, targets, options, **kwargs)
        self.records = {}  # id(target) -> its canary record, when it has one

    def record(self, t):
        return self.records.get(id(t))

    def recorded(self, t):
        return self.record(t) is not None

    def refusal(self, t):
        w = t.workload
        problem = w.canary_refusal()
        if problem:
            return problem
        if release_record.text_of(w.obj) is not None:
            return ('%s carries a %s record: a release of it did not finish; resume it or put it back '
                    '(%s or %s) before a canary'
                    % (t.label(), release_record.RECORD_ANNOTATION, setting('recover', 'resume'),
                       setting('recover', 'rollback')))
        record = record_of(w.obj)
        if record is None and w.annotations.get(CANARY_ANNOTATION):
            return ('%s carries a %s annotation that is not a canary record (not JSON, or without a '
                    'template or images): it is not acted on. Check the workload (paused? partitioned?), '
                    'then remove it (%s) and resume or roll back by hand'
                    % (t.label(), CANARY_ANNOTATION, release_record.clear_command(w, CANARY_ANNOTATION)))
        if record is not None and not _running(w.template, record.get('images')):
            # A record whose images no longer run (copied back by an undo, say) is no canary.
            self.warnings.append('%s: its %s annotation names images it no longer runs (%s): ignored'
                                 % (t.label(), CANARY_ANNOTATION, _images_text(record.get('images'))))
            record = None
        if record is not None:
            problem = _changed_since_start(t, w, record)
            if problem:
                return problem
            # What a rollback puts back comes from the record: only from one its start sealed.
            unsealed = release_record.verify(self.client, self._lease_namespace(), w, record.get('id'),
                                             CANARY_ANNOTATION)
            if unsealed:
                return ('%s carries a %s record that is not acted on: %s. Nothing was written from it. '
                        'Check the workload (paused? partitioned?), then remove the record (%s) and resume '
                        'or roll back by hand' % (t.label(), CANARY_ANNOTATION, unsealed,
                                                  release_record.clear_command(w, CANARY_ANNOTATION)))
            t.seal_key = records.seal_key(w.obj)
            self.records[id(t)] = record
            t.original_template, t.original_cause = record['template'], record.get('changeCause')
        return self.phase_refusal(t, record)

    def phase_refusal(self, t, record):
        """Why this phase cannot act on ``t`` (as read, with its ``record`` or None), or None."""
        return None

    def _release_lease(self):
        """The Lease, then the seals of the records this run removed that another release's start
        wrote (their Lease goes with its last seal)."""
        super(_CanaryPhase, self)._release_lease()
        for t in self.targets:
            record = self.record(t)
            if t.record_gone and record is not None and record.get('id') != self.id:
                release_record.drop_seal(self.client, self._lease_namespace(), record.get('id'), t.seal_key,
                                         self.warnings)

    def finish(self):
        """A canary phase keeps no release record: nothing to remove."""

    def restore_patch(self, t, current):
        """The template and change-cause back, the hold undone (a paused Deployment would not roll
        back), the record removed: one guarded JSON patch."""
        body = patches.template_restore_patch(current, t.original_template, t.original_cause)
        # The record read, else the one this run wrote (a start that failed): the hold it undoes.
        record = self.record(t) or (record_of(t.written) if t.written is not None else None) or {}
        body.extend(t.workload.canary_restore_ops(current, record))
        body.extend(patches.annotation_removal(current, CANARY_ANNOTATION))
        return body

    def restored(self, current):
        return record_of(current) is None and not (current.get('spec') or {}).get('paused')


class CanaryStart(_CanaryPhase):
    """``canary: start``: the images and the record in one write, held by the kind, canary Ready."""

    def phase_refusal(self, t, record):
        if record is not None and record.get('images') != t.images:
            return ('%s has a canary of other images in progress (%s): promote it or roll it back (%s) first'
                    % (t.label(), _images_text(record.get('images')), setting('canary', 'rollback')))
        if record is None and t.workload.paused:
            return ('%s is paused: a paused Deployment does not roll out; resume it first '
                    '(rollout_pause with %s)' % (t.label(),
                                                 setting('state', 'resumed', module='rollout_pause')))
        return None

    def patch_of(self, t):
        w = t.workload
        if self.record(t) is not None or w.image_patch(t.images) is None:
            return None  # started already, or the images are there: a repeat changes nothing
        t.canary_text = record_text(w, t.images, self.id)
        self.sealed(t, CANARY_ANNOTATION, t.canary_text)
        return w.canary_write(t.images, t.change_cause, self.options.canary_ordinals,
                              {CANARY_ANNOTATION: t.canary_text})

    def owns(self, t, current):
        """The start's write is applied (its answer lost) when the record it wrote is there."""
        text = ((current.get('metadata') or {}).get('annotations') or {}).get(CANARY_ANNOTATION)
        return text is not None and text == getattr(t, 'canary_text', None)

    def rollout_of(self, t):
        w = t.workload
        if t.written is None:
            record = self.record(t)
            if record is not None and w.canary_hold_patch() is not None and not w.paused:
                # A start stopped between its write and its hold: the hold now, as after the write.
                before = dict(w.obj, spec=dict(w.spec, template=record['template']))
                return Rollout(w, w.obj, w.canary_started(before, w.obj), written=True, label=t.label(),
                               drive=self._hold, ending=CANARY_HELD)
            if record is None:
                return Rollout(w, label=t.label())
            return Rollout(w, predicate=w.canary_ready, label=t.label(), ending=CANARY_HELD)
        return Rollout(w, t.written, w.canary_started(w.obj, t.written), written=True, label=t.label(),
                       drive=self._hold, ending=CANARY_HELD)

    def _hold(self, engine, rollout, timeout):
        """The first canary pods, then the kind's hold when the write did not hold it, then the
        canary Ready."""
        begun = engine.watch(rollout, rollout.predicate, timeout)
        hold = rollout.workload.canary_hold_patch()
        if not begun.done or hold is None:
            return begun
        held = self.client.patch(rollout.workload.path, hold, patches.STRATEGIC_MERGE, retry=True)
        self.note('%s: paused with the canary pods of the new ReplicaSet' % rollout.label)
        return engine.watch(rollout, rollout.workload.canary_ready, timeout, obj=held)

    def words(self):
        words = super(CanaryStart, self).words()
        words[UPGRADED] = 'Would start a canary of' if self.options.check_mode else 'Canary started'
        return words


class CanaryPromote(_CanaryPhase):
    """``canary: promote``: the hold released, the rest of the rollout judged, the record removed."""

    def phase_refusal(self, t, record):
        if record is not None and record.get('images') != t.images:
            return ('%s has a canary of other images (%s): promote it with those images, or roll it back (%s)'
                    % (t.label(), _images_text(record.get('images')), setting('canary', 'rollback')))
        if record is None and not self.options.check_mode:
            # Promoted already (the record goes last), or never started.
            if t.workload.image_patch(t.images) is not None or t.workload.paused:
                return ('%s has no canary of these images to promote (no %s annotation): start one '
                        'first (%s)' % (t.label(), CANARY_ANNOTATION, setting('canary', 'start')))
        return None

    def patch_of(self, t):
        record = self.record(t)
        if record is None:
            # Check mode (no start was written) or promoted already: what a release would do.
            return super(CanaryPromote, self).patch_of(t) if self.options.check_mode else None
        return t.workload.canary_release_patch(record)

    def finish(self):
        """Promoted: each record goes (guarded by its text, so a repeat changes nothing)."""
        for t in self.targets:
            if self.record(t) is None:
                continue
            try:
                current = self.client.get(t.workload.path)
                removal = patches.annotation_removal(current, CANARY_ANNOTATION)
                if removal:
                    self.client.patch(t.workload.path, removal, patches.JSON_PATCH, retry=True)
                t.record_gone = True
            except ApiError as e:
                if not e.is_conflict:
                    self._unremoved(t, e)
            except KubeError as e:
                self._unremoved(t, e)

    def _unremoved(self, t, err):
        self.warnings.append('%s: promoted, but its %s annotation could not be removed: %s'
                             % (t.label(), CANARY_ANNOTATION, error_text(err)))

    def words(self):
        words = super(CanaryPromote, self).words()
        words[UPGRADED] = 'Would promote' if self.options.check_mode else 'Promoted'
        return words


class CanaryRollback(_CanaryPhase):
    """``canary: rollback``: every workload with a record put back as the record says."""

    def _run(self):
        problems = self.preflight()
        if problems:
            return self._refused(problems)
        with_record = [t for t in self.targets if self.record(t) is not None]
        running = [t for t in self.targets
                   if '*' not in t.images and t.workload.image_patch(t.images) is None]
        if not with_record and running:
            # No canary anywhere, and the images run: promoted (its records went last), or released.
            # (Beside a canary in progress, a workload that runs the images was so before its start.)
            return self._refused([_promoted(t) for t in running])
        if self.options.check_mode:
            for t in self.targets:
                t.outcome, t.would_change = (ROLLED_BACK, True) if t in with_record else (UNCHANGED, False)
            return self._summary()
        return self.put_back_as_asked(with_record)

    def patch_of(self, t):
        return None  # a rollback writes only by putting back

    def words(self):
        words = super(CanaryRollback, self).words()
        words[ROLLED_BACK] = ('Would roll back the canary of' if self.options.check_mode
                              else 'Canary rolled back')
        words[UNCHANGED] = 'No canary to roll back'
        return words


# The strategy of each phase of the ``canary`` option.
PHASES = {'start': CanaryStart, 'promote': CanaryPromote, 'rollback': CanaryRollback}


def _running(template, images):
    """Whether every container named in ``images`` runs that image in ``template``."""
    try:
        have = revisions.container_images(template)[0]
    except (TypeError, AttributeError):
        return False
    if '*' in (images or {}):
        return all(v == images['*'] for v in have.values())
    return all(have.get(name) == image for name, image in (images or {}).items())


def _changed_since_start(t, workload, record):
    """Why a canary's record cannot be acted on because the template was changed since the start by
    other than the canary (a hotfix a rollback would overwrite, an edit a promote would roll out
    unverified), or None."""
    try:
        expected = patches.imaged_template(record['template'], record.get('images') or {})
    except (patches.UnknownContainer, AttributeError, TypeError):
        expected = None
    if expected is not None and revisions.templates_equal(expected, workload.template):
        return None
    where = ', '.join(revisions.template_differences(expected or {}, workload.template))
    return ('%s: its pod template was changed since the canary started, other than by the canary (%s); '
            'a rollback would overwrite that change and a promotion would roll it out unverified. Decide by '
            'hand: check the workload, then remove the record (%s) and release or roll back as wanted'
            % (t.label(), where, release_record.clear_command(workload, CANARY_ANNOTATION)))


def _promoted(t):
    return ('%s runs %s and carries no %s record: the canary was promoted already (or these images were '
            'released another way); there is no canary to roll back. To go back to the previous version, '
            'roll back: kubeops.rollout.rollout_undo (playbooks/rollback.yml)'
            % (t.label(), _images_text(t.images), CANARY_ANNOTATION))


def _images_text(images):
    return ', '.join('%s=%s' % (k, v) for k, v in sorted((images or {}).items())) or 'none'

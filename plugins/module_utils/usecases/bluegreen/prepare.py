# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The preview of a blue/green release, as a release strategy (``release.Release``): the idle
color's Deployment gets the live color's pod template with the idle color's label and the new
images, scaled to the live color's current replicas (or ``preview_replicas``), through the
release's preflight (server-side dry run, Helm and Argo CD warnings, records of other releases),
its guarded write with the release record, its wait with early stop, its soak and analysis, and its
put-back on failure (the template, change-cause and replicas the idle color had).

The release record (``kubeops.rollout/release``, release/record.py) on the idle Deployment holds as
``template`` the live color's template recolored (the one the images were set in), so that every
other module recognises it as a release in flight, and ``replicasBefore``: the put-back restores
the replicas too. The records go once the preview passed every gate.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.kubeops.rollout.plugins.module_utils.common.vocabulary import setting
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import patches, revisions
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import record as release_record
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release.release import Release
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release.targets import (
    UNCHANGED,
    UPGRADED,
)

REPLICAS_BEFORE = 'replicasBefore'


class Prepare(Release):
    """The preview of each target (a release_targets.Target with ``base``: the live template
    recolored, and ``replicas``: how many pods the preview runs)."""

    def __init__(self, client, targets, options, **kwargs):
        super(Prepare, self).__init__(client, targets, options, **kwargs)
        self._by_name = {t.name: t for t in targets}

    def refusal(self, t):
        problem = super(Prepare, self).refusal(t)
        if problem:
            return problem
        t.original_replicas = t.workload.replicas
        if t.record is not None:
            before = t.record.get(REPLICAS_BEFORE)
            if not isinstance(before, int) or not isinstance(t.record.get('before'), dict):
                return (
                    '%s carries a release record without the preview\'s %s and before: it was not written '
                    'by a blue/green preview; finish that release with rollout_release (%s or %s) first'
                    % (t.label(), REPLICAS_BEFORE, setting('recover', 'resume', module='rollout_release'),
                       setting('recover', 'rollback', module='rollout_release'))
                )
            t.original_replicas = before
            t.original_template = t.record['before']
        return None

    def desired(self, t):
        return patches.imaged_template(t.base, t.images)

    def patch_of(self, t):
        w = t.workload
        if t.resumed:
            return None
        desired = self.desired(t)
        if revisions.templates_equal(w.template, desired) and (w.replicas or 0) >= t.replicas:
            return None
        generation = (w.metadata.get('generation') or 0) + 1
        record = release_record.record_text(
            self.id,
            w,
            t.images,
            generation,
            self.runner,
            self.started,
            template=t.base,
            extra={REPLICAS_BEFORE: w.replicas or 0, 'before': w.template},
        )
        self.sealed(t, release_record.RECORD_ANNOTATION, record)
        body = patches.template_write_patch(
            w.obj,
            desired,
            {patches.CHANGE_CAUSE_ANNOTATION: t.change_cause, release_record.RECORD_ANNOTATION: record},
        )
        body.append({'op': 'replace', 'path': '/spec/replicas', 'value': t.replicas})
        return patches.JSON_PATCH, body

    def restore_patch(self, t, current):
        body = super(Prepare, self).restore_patch(t, current)
        body.append({'op': 'replace', 'path': '/spec/replicas', 'value': t.original_replicas})
        return body

    def restored(self, current):
        t = self._by_name.get((current.get('metadata') or {}).get('name'))
        replicas = (current.get('spec') or {}).get('replicas')
        return super(Prepare, self).restored(current) and (t is None or replicas == t.original_replicas)

    def rollout_of(self, t):
        rollout = super(Prepare, self).rollout_of(t)
        rollout.ending = 'preview pods Ready' + (', soaking next' if self.options.gates.soaks else '')
        return rollout

    def words(self):
        words = super(Prepare, self).words()
        words[UPGRADED] = 'Would prepare the preview' if self.options.check_mode else 'Preview ready'
        words[UNCHANGED] = 'Preview already ready'
        return words

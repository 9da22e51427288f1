# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""kubectl's ``--rollback`` of a rolling update: ``Rollback``, the part of ``driver.RollingUpdate``
that aborts an update in progress."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import UpdateError
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.objects import (
    DESIRED_REPLICAS_ANNOTATION,
    SOURCE_ID_ANNOTATION,
    UPDATE_ANNOTATIONS,
    replicas_of,
    source_id,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.state import (
    LEFTOVERS,
    NOTHING,
    classify_rollback,
    rename_may_be_pending,
    rollback_partial_name,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.steps import limits, plan_steps


class Rollback:
    """``RollingUpdate``'s rollback (a mixin: ``self`` is the ``RollingUpdate``)."""

    def rollback(self):
        """kubectl's --rollback: swap the roles and scale the old RC back to its original size,
        then delete the partial new RC (kubectl's cleanup for an abort)."""
        opts = self.opts
        view = self.watched()
        old = view.get(opts.name)
        if old is None:
            raise UpdateError('ReplicationController "%s" not found in namespace "%s"' % (opts.name, self.ns))
        partial_name = rollback_partial_name(opts, old)
        self.new_name = partial_name
        partial = view.get(partial_name) if partial_name else None
        released = []
        if partial_name and partial is None and rename_may_be_pending(old):
            released = self.released_pods(old)[1]
        decision = classify_rollback(opts, old, partial_name, partial, released)
        if decision.phase == NOTHING:
            return self.result(old, 'no rolling update of "%s" in progress: nothing to roll back' % opts.name)
        if decision.phase == LEFTOVERS:
            if self.check_mode:
                self.changed = True
                return self.result(old, 'would remove the leftover update annotations of "%s"' % opts.name)
            old = self.clear_old_annotations(opts.name)
            return self.result(old, 'rollback of "%s" finished' % opts.name)
        original = decision.original
        self.diff = {'before': (partial.get('spec') or {}).get('template'),
                     'after': (old.get('spec') or {}).get('template')}
        if self.check_mode:
            lim = limits(opts.max_surge, opts.max_unavailable, original, replicas_of(partial))
            self.steps = plan_steps(replicas_of(partial), replicas_of(old), lim, partial_name, opts.name)
            self.changed = True
            final = copy.deepcopy(old)
            final['spec']['replicas'] = original
            return self.result(final, 'would roll "%s" back to "%s" (%d replicas) and delete "%s"'
                               % (partial_name, opts.name, original, partial_name), planned=True)

        def mark(rc):
            rc_annotations = rc['metadata'].setdefault('annotations', {})
            rc_annotations[SOURCE_ID_ANNOTATION] = source_id(partial)
            rc_annotations[DESIRED_REPLICAS_ANNOTATION] = str(original)
        self.update_rc(opts.name, mark, 'marked %s as the rollback target' % opts.name)
        self.scale_loop(partial_name, opts.name)
        self.wait_replicas(opts.name)
        self.delete_rc(partial_name, uid=(partial.get('metadata') or {}).get('uid'))
        old = self.clear_old_annotations(opts.name)
        return self.result(old, 'rolled back "%s" to "%s" and deleted "%s"'
                           % (partial_name, opts.name, partial_name))

    def clear_old_annotations(self, name):
        def mutate(rc):
            annotations = rc['metadata'].get('annotations') or {}
            for key in UPDATE_ANNOTATIONS:
                annotations.pop(key, None)
            if not annotations:
                rc['metadata'].pop('annotations', None)
        return self.update_rc(name, mutate, 'removed the update annotations of %s' % name)

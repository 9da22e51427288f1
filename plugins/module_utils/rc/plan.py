# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Check mode of a rolling update: ``CheckModePlan``, the part of ``driver.RollingUpdate`` that
plans a forward update without a persisted write."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.lease import UpdateLease
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.objects import (
    DESIRED_REPLICAS_ANNOTATION,
    SOURCE_ID_ANNOTATION,
    annotations_of,
    desired_replicas,
    name_of,
    new_controller_body,
    orig_label_value,
    renamed_body,
    replicas_of,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.state import (
    ADOPT,
    CLEANUP,
    CLEANUP_DELETE,
    CLEANUP_PRESERVE,
    CLEANUP_RENAME,
    SCALING,
    START,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.steps import limits, plan_steps


class CheckModePlan:
    """``RollingUpdate``'s check mode (a mixin: ``self`` is the ``RollingUpdate``)."""

    def note_lease_holder(self):
        """Check mode takes no lease; it says when another run holds one (its plan may be overtaken)."""
        lease = UpdateLease(self.api, self.ns, self.opts.name, self.opts.lease_duration, clock=self.clock)
        try:
            found = lease.read()
        except ApiError as e:
            if e.status == 403:
                return  # no right to read leases: nothing to say
            raise
        if found is not None and not lease.expired(found, self.clock()):
            self.warnings.append('another run is updating ReplicationController "%s" (%s): this plan is from '
                                 'the state it has reached so far' % (self.opts.name, lease.describe(found)))

    def plan(self, state):
        """The update as it would run, without a persisted write (the new RC is validated by a
        server-side dry run when it does not exist yet)."""
        opts = self.opts
        old = state.old
        if state.phase == CLEANUP and opts.policy == CLEANUP_PRESERVE and \
                DESIRED_REPLICAS_ANNOTATION not in annotations_of(state.new) and \
                SOURCE_ID_ANNOTATION not in annotations_of(old):
            # A finished update that keeps the old RC: the real run would write nothing either.
            return self.result(state.new, self.summary())
        self.changed = True
        key = opts.deployment_label_key
        if state.phase == ADOPT:
            source, desired = self.adoption_source(state)
            final = renamed_body(old, source, desired)
            return self.result(final, 'would finish renaming %s to %s' % (state.new_name, opts.name),
                               planned=True)
        if state.phase == START:
            opts.check_can_start(old, state.target)
            desired = state.target.replicas
            body = new_controller_body(state.target, state.new_name, self.ns, old, desired)
            new = self.dry_run_create(body)
            new_replicas = 0
        else:
            new = state.new
            desired = desired_replicas(new) if state.phase == SCALING else replicas_of(new)
            new_replicas = replicas_of(new)
        old_replicas = replicas_of(old)
        lim = limits(opts.max_surge, opts.max_unavailable, desired, old_replicas)
        self.steps = plan_steps(old_replicas, new_replicas, lim, opts.name, state.new_name)
        final = copy.deepcopy(new)
        final['spec']['replicas'] = desired
        for k in (SOURCE_ID_ANNOTATION, DESIRED_REPLICAS_ANNOTATION):
            (final['metadata'].get('annotations') or {}).pop(k, None)
        msg = 'would update "%s" to "%s" ' % (opts.name, state.new_name)
        if opts.policy == CLEANUP_RENAME:
            final = renamed_body(old, final, desired)
            msg += 'and rename it back to "%s"' % opts.name
        elif opts.policy == CLEANUP_DELETE:
            msg += 'and delete "%s"' % opts.name
        else:
            msg += 'and keep "%s" at 0 replicas' % opts.name
        if opts.image_mode and key not in ((old.get('spec') or {}).get('selector') or {}):
            msg += ' (labelling its pods %s=%s)' % (key, orig_label_value(old, key))
        return self.result(final, msg, planned=True)

    def dry_run_create(self, body):
        """The new RC as the API would store it; with no right to create (403), the body itself and
        a warning: the plan is then computed locally, without the server's validation."""
        try:
            return self.api.create(self._rc_path(), body, dry_run=True)
        except ApiError as e:
            if e.status != 403:
                raise
        self.warnings.append('check mode could not validate the new ReplicationController "%s" with a '
                             'dry-run create (forbidden: these credentials may not create '
                             'ReplicationControllers in namespace "%s"); the plan was computed locally'
                             % (name_of(body), self.ns))
        return copy.deepcopy(body)

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What check mode predicts of a release, beyond its preflight (the same reads and server-side dry
runs as a real run): the outcome of each target as the real run would end, and its refusals that
come from what is already there.

- The Lease: another live run holding the release's Lease refuses the real run before any write; one
  read of it says so in check mode (nothing is taken).
- A target the real run waits for as it is (nothing written to it: its images run already): its
  pods are looked at once. A cause it cannot get past by itself (a crash loop, an image that does not
  pull, ... ``health.BLOCKING``) is its cause, as the early stop names it in the real run; the other
  targets are then put back as a failed release puts them back. A rollout still under way is a
  warning: only the wait can tell.
- The images of a release put back (``recover: rollback``) are said to be NOT released, with what
  is put back (``put_back_text``).

New images that were never run cannot be judged before they run: check mode says what would be
written, the wait's verdict is the real run's.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.kubeops.rollout.plugins.module_utils.gates import health
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import revisions
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import record as release_record
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release.targets import (
    ROLLED_BACK,
    UNCHANGED,
    UNTOUCHED,
    UPGRADED,
    WAIT,
)


def lease_problem(run):
    """Why the real run of ``run`` (a Release) would be refused at its Lease, or None."""
    if not any(t.patch is not None or t.resumed for t in run.targets):
        return None
    problem = release_record.held_problem(run.client, run.targets[0].namespace, run._lease_name(), run.id,
                                          run.options.lease_seconds, run.runner)
    if problem:
        run.suggest(WAIT)
    return problem


def waits(run):
    """Each target ``run`` would wait for as it is: its cause when a blocking cause is seen on its
    pods now; a warning when its rollout is still under way."""
    for t in run.targets:
        if t.patch is not None or t.resumed or t.workload is None:
            continue
        rollout = run.rollout_of(t)
        status = rollout.predicate(rollout.obj)
        if status.done:
            continue
        blocked = health.blocked_now(run.client, t.workload) if rollout.gated else None
        if blocked:
            t.cause = blocked  # its lines name the workload
        else:
            run.warnings.append('%s is not rolled out yet (%s): a real run waits for it (up to %d s) '
                                'and fails if it does not finish'
                                % (t.label(), status.message, run.options.timeout))


def outcomes(run):
    """Each target's outcome, cause and ``would_change`` as the real run of ``run`` would end them."""
    o = run.options
    back = o.recover == 'rollback'
    if not back:
        waits(run)
    failed = any(t.cause for t in run.targets)
    for t in run.targets:
        t.would_change = t.patch is not None or t.resumed
        if back:
            t.outcome = ROLLED_BACK if t.resumed else UNCHANGED
            t.would_change = t.resumed
        elif t.cause:
            t.outcome = UNTOUCHED
        elif not t.would_change:
            t.outcome = UNCHANGED
        elif failed and o.rollback and o.atomic:
            t.outcome, t.cause = ROLLED_BACK, 'put back because the release failed'
        else:
            t.outcome = UPGRADED


def put_back_text(t, check_mode):
    """What a put-back as asked (``recover: rollback``) of ``t`` means: the images of the release it
    carried were NOT released, and what it runs again."""
    record = t.record or {}
    recorded = ', '.join('%s=%s' % kv for kv in sorted((record.get('images') or {}).items())) or '?'
    before = ', '.join('%s=%s' % kv for kv in sorted(
        revisions.container_images(t.original_template or {})[0].items())) or '?'
    text = ('the images of release %s (%s) %s NOT released: %s %s again'
            % (record.get('id', '?'), recorded, 'would be' if check_mode else 'were',
               'it would run' if check_mode else 'it runs', before))
    if t.images and t.images != record.get('images'):
        text += ('; the images of this task (%s) were not released either: run it again without recover '
                 'to release them' % ', '.join('%s=%s' % kv for kv in sorted(t.images.items())))
    return text

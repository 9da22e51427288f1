# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""How every verb writes and reports: the ``Outcome`` of one verb on one workload, the write (a real
PATCH, or in check mode the same request with dryRun=All), and the read-decide-write loop that
decides again after a conflict."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.kubeops.rollout.plugins.module_utils.api.client import retry_on_conflict
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError


class Outcome:
    """What one verb did to one workload: the result entry, and before/after for diff mode."""

    def __init__(self, workload, changed, fields=None, before=None, after=None, obj=None, error=None,
                 diff_unchanged=False, warnings=None):
        self.workload = workload
        self.diff_unchanged = diff_unchanged  # a diff worth showing without a change (history's comparison)
        self.error = error  # a failure to report while still listing the entry
        self.changed = changed
        self.fields = fields or {}
        self.before = before
        self.after = after
        self.obj = obj if obj is not None else workload.obj  # latest known object, to wait from
        self.warnings = list(warnings or [])

    def entry(self):
        out = self.workload.identity()
        out['changed'] = self.changed
        out.update(self.fields)
        return out

    def diff(self):
        header = self.workload.label()
        return {'before': self.before, 'after': self.after, 'before_header': header, 'after_header': header}


def template_of(obj):
    return ((obj or {}).get('spec') or {}).get('template') or {}


def annotations_of(obj):
    return ((obj or {}).get('metadata') or {}).get('annotations') or {}


# ---- writes ----------------------------------------------------------------------------------

DRY_RUN_FORBIDDEN = ('check mode: the API server refused a dry-run of the change to %s (403 Forbidden: the '
                     'credentials may not write it), so the result was computed locally; a real run needs '
                     'the patch permission')


def write(client, workload, content_type, body, check_mode, local_after, warnings):
    """PATCH ``body``; in check mode the same request with dryRun=All, so that the API server's own
    validation and defaulting decide the answer. Credentials that may only read get a 403 for the
    dry run: then ``local_after()`` stands in, with a warning."""
    if not check_mode:
        # Every patch sent here is guarded (a resourceVersion or a JSON patch `test`) or sets
        # absolute values: a repeat changes nothing, so it may be retried.
        return client.patch(workload.path, body, content_type, retry=True)
    try:
        return client.patch(workload.path, body, content_type, dry_run=True, retry=True)
    except ApiError as e:
        if e.status != 403:
            raise
        warnings.append(DRY_RUN_FORBIDDEN % workload.label())
        return local_after()


# ---- conflicts -------------------------------------------------------------------------------

def decide_and_write(client, workload, attempt):
    """``attempt(workload, conflicted)`` under ``retry_on_conflict``: after a conflict the workload is
    read again and the decision made again from it."""
    latest = [workload]

    def once(conflicted):
        if conflicted:
            latest[0] = type(workload)(client.get(workload.path))
        return attempt(latest[0], conflicted)

    return retry_on_conflict(once)

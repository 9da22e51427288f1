# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A StatefulSet's forced rollback: after ``verbs.undo`` has put the template back, replace the pods
stuck on another revision, which an OrderedReady StatefulSet would wait for forever."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.kubeops.rollout.plugins.module_utils.api.client import path_quote
from ansible_collections.kubeops.rollout.plugins.module_utils.api.shared_lists import SharedLists
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError
from ansible_collections.kubeops.rollout.plugins.module_utils.engine.watch import wait_for
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.wait_options import DEFAULT_TIMEOUT
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import status as status_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.services import PODS
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.status import observed
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.pods import (
    POD_REVISION_LABEL,
    pod_ready,
    stuck_pods,
)


def _observed_revision(revision_name):
    def predicate(obj):
        if observed(obj) and (obj.get('status') or {}).get('updateRevision') == revision_name:
            return status_mod.RolloutStatus(True, 'revision %s observed' % revision_name, status_mod.OBSERVED)
        return status_mod.RolloutStatus(False, 'waiting for the controller to adopt revision %s'
                                        % revision_name, status_mod.SPEC_NOT_OBSERVED)
    return predicate


def replace_stuck(client, workload, revision_name, check_mode=False, timeout=DEFAULT_TIMEOUT,
                  clock=time.monotonic):
    """The forced rollback of the Kubernetes StatefulSet documentation: after the template is back,
    delete the pods still stuck on another revision (not Ready, or in an image/crash back-off), which
    an OrderedReady StatefulSet would wait for forever.

    Once the controller has adopted ``revision_name`` as its update revision, the stuck pods are
    deleted one at a time, lowest ordinal first (the order in which the controller creates pods),
    each replacement becoming Ready before the next deletion. A deletion is guarded by the pod's uid
    and resourceVersion: a pod that changed since it was read (say, became Ready) is judged again.
    A pod of ``revision_name`` is never deleted. In check mode the pods that would be deleted now are
    listed and nothing is deleted.

    ``workload``: the StatefulSet (a Workload) as its template was just written back. Returns (an
    error message or None, the names of the pods deleted, or in check mode that would be).
    """
    deadline = clock() + timeout
    if check_mode:
        stuck = stuck_pods(workload.pods(client), workload.uid, workload.name, revision_name)
        return None, [p['metadata']['name'] for p in stuck]
    seen = wait_for(client, workload.collection_path(workload.namespace), workload.obj,
                    _observed_revision(revision_name), timeout)
    if not seen.done:
        return '%s: stuck pods not replaced: %s' % (workload.label(), seen.message), []
    # The pods are read from a copy LISTed once and kept current by a WATCH: a replacement's wait
    # waits for a change, never polls.
    reader = SharedLists.waiting(client, clock=clock)
    try:
        return _replace(reader, workload, revision_name, deadline, timeout, clock)
    finally:
        reader.close()


def _replace(reader, workload, revision_name, deadline, timeout, clock):
    replaced = []
    error = None
    while True:
        stuck = stuck_pods(workload.pods(reader), workload.uid, workload.name, revision_name)
        if not stuck:
            break
        pod = stuck[0]
        if replaced:
            # The previous replacement is not Ready yet (the controller works in order): wait.
            if clock() >= deadline:
                error = ('%s: timed out after %ss replacing stuck pods (replaced %s; still stuck: %s)'
                         % (workload.label(), timeout, ', '.join(replaced),
                            ', '.join(p['metadata']['name'] for p in stuck)))
                break
            if not _replacement_ready(reader, workload, replaced[-1], revision_name):
                reader.wait_until(deadline)
                continue
        meta = pod['metadata']
        guard = {'uid': meta['uid'], 'resourceVersion': meta['resourceVersion']}
        try:
            reader.delete(workload.pod_path(meta['name']),
                          body={'kind': 'DeleteOptions', 'apiVersion': 'v1', 'preconditions': guard})
        except ApiError as e:
            if e.status in (404, 409):
                # Gone or changed since read: judge the pods again once the copy has the change.
                reader.wait_until(deadline)
                continue
            raise
        replaced.append(meta['name'])
    return error, replaced


def _replacement_ready(reader, workload, name, revision_name):
    """Whether the pod ``name`` (the newest replacement, from the watched copy) is of
    ``revision_name`` and Ready; not there yet: not ready."""
    items = reader.list(PODS % path_quote(workload.namespace),
                        field_selector='metadata.name=%s' % name).get('items') or []
    if not items:
        return False
    labels = (items[0].get('metadata') or {}).get('labels') or {}
    return labels.get(POD_REVISION_LABEL) == revision_name and pod_ready(items[0])

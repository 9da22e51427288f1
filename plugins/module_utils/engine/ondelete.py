# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Rolling out an ``OnDelete`` StatefulSet: its controller changes no pod until one is deleted, so
the release deletes them, highest ordinal first (the order of a RollingUpdate), one at a time, each
replacement Ready on the update revision before the next deletion."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.kubeops.rollout.plugins.module_utils.api.shared_lists import SharedLists
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.status import (
    COMPLETE,
    DELETED,
    SPEC_NOT_OBSERVED,
    TIMEOUT,
    UPDATING,
    RolloutStatus,
    observed,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.pods import (
    POD_REVISION_LABEL,
    pod_ordinal,
    pod_ready,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workloads import StatefulSet


def _observed(obj):
    return observed(obj) and (obj.get('status') or {}).get('updateRevision')


def _revision(pod):
    return ((pod.get('metadata') or {}).get('labels') or {}).get(POD_REVISION_LABEL)


def _terminating(pod):
    return bool((pod.get('metadata') or {}).get('deletionTimestamp'))


def plan(pods, set_name, revision):
    """The pods to delete, in order: live pods not on ``revision``, highest ordinal first."""
    out = [p for p in pods if not _terminating(p) and _revision(p) != revision]
    return sorted(out, key=lambda p: -(pod_ordinal(p, set_name) or 0))


def roll(
    client,
    obj,
    timeout,
    probe=None,
    probe_interval=5,
    clock=time.monotonic,
    progress=None,
    stopped=None,
):
    """Replace the pods of the OnDelete StatefulSet ``obj`` (as written) that are not on its update
    revision. Returns (RolloutStatus, names of the pods deleted). ``probe(obj)``: the early stop, as
    for ``status.wait_for``. The StatefulSet and its pods are read from copies LISTed once and kept
    current by a WATCH each (api/shared_lists.py): between two looks it waits for a change, never
    polls."""
    reader = SharedLists.waiting(client, clock=clock)
    try:
        return _roll(reader, obj, timeout, probe, probe_interval, clock, progress, stopped)
    finally:
        reader.close()


def _roll(reader, obj, timeout, probe, probe_interval, clock, progress, stopped):
    workload = StatefulSet(obj)
    deadline = clock() + timeout
    next_probe = clock() + probe_interval if probe else None
    deleted = []
    deleted_uids = set()
    last_message = [None]
    latest = obj
    sets = StatefulSet.collection_path(workload.namespace)

    def say(message, reason):
        if progress and message != last_message[0]:
            last_message[0] = message
            progress(latest, RolloutStatus(False, message, reason))

    def wait():
        due = deadline if next_probe is None else min(deadline, next_probe)
        reader.wait_until(due)

    while True:
        if clock() >= deadline or (stopped is not None and stopped()):
            return RolloutStatus(
                False,
                'timed out after %ss replacing the pods of %s (replaced: %s)'
                % (timeout, workload.label(), ', '.join(deleted) or 'none'),
                TIMEOUT,
            ), deleted
        if probe is not None and clock() >= next_probe:
            verdict = probe(latest)
            next_probe = clock() + probe_interval
            if verdict is not None:
                return verdict, deleted
        found = reader.list(sets, field_selector='metadata.name=%s' % workload.name).get('items') or []
        if not found:
            return RolloutStatus(False, '%s was deleted while its pods were replaced' % workload.label(),
                                 DELETED, failed=True), deleted
        latest = found[0]
        current = StatefulSet(latest)
        if not _observed(latest):
            say('Waiting for statefulset spec update to be observed...', SPEC_NOT_OBSERVED)
            wait()
            continue
        revision = latest['status']['updateRevision']
        pods = current.pods(reader)
        todo = plan(pods, current.name, revision)
        replicas = (latest.get('spec') or {}).get('replicas', 1)
        live = [p for p in pods if not _terminating(p)]
        on_revision = [p for p in live if _revision(p) == revision]
        ready = [p for p in on_revision if pod_ready(p)]
        if not todo and len(ready) >= replicas:
            return RolloutStatus(
                True,
                'statefulset "%s" OnDelete update complete: %d pods at revision %s'
                % (current.name, len(ready), revision),
                COMPLETE,
            ), deleted
        # One at a time: every pod there should be is there, none is terminating, and every pod
        # already on the revision (the last replacement among them) is Ready.
        if todo and todo[0]['metadata'].get('uid') in deleted_uids:
            wait()  # its deletion is not in the watched copy yet
            continue
        if todo and len(live) >= replicas and len(live) == len(pods) and len(ready) == len(on_revision):
            pod = todo[0]
            meta = pod['metadata']
            deleted_uids.add(meta.get('uid'))
            say(
                'Waiting for statefulset "%s" OnDelete update: deleting pod %s (%d of %d pods on the new '
                'revision)' % (current.name, meta['name'], len(on_revision), replicas),
                UPDATING,
            )
            try:
                reader.delete(
                    current.pod_path(meta['name']),
                    body={'kind': 'DeleteOptions', 'apiVersion': 'v1', 'preconditions': {'uid': meta['uid']}},
                )
                deleted.append(meta['name'])
            except ApiError as e:
                if e.status not in (404, 409):
                    raise
            wait()
            continue
        say(
            'Waiting for statefulset "%s" OnDelete update: %d of %d pods on the new revision are ready...'
            % (current.name, len(ready), replicas),
            UPDATING,
        )
        wait()

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Following one object with a WATCH (no polling) until a predicate says done or failed."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.status import (
    DELETED,
    TIMEOUT,
    RolloutStatus,
)

# Server-side timeout of one watch request; the waiter re-watches until its own deadline.
WATCH_CHUNK_SECONDS = 290


class _Reporter:
    """Calls ``progress(obj, status)`` when a workload's status message changes (not on every event)."""

    def __init__(self, progress):
        self.progress = progress
        self.last = None

    def __call__(self, obj, result):
        if self.progress and result.message != self.last:
            self.last = result.message
            self.progress(obj, result)
        return result


def wait_for(client, collection_path, obj, predicate, timeout, clock=time.monotonic, progress=None,
             probe=None, probe_interval=None, stopped=None):
    """Follow one object with WATCH until ``predicate`` says done or failed, or ``timeout`` passes.

    Starts from ``obj`` (a fresh GET or write response) and watches from its resourceVersion with a
    metadata.name field selector; re-watches when the server ends the stream, re-reads on 410 Gone.
    Returns the last RolloutStatus (reason Timeout / Deleted when those end the wait).
    ``progress(obj, status)``, if given, hears each change of the status message as it happens.
    ``probe(obj)``, if given, is called with the newest object once the rollout has not moved (its
    status message unchanged) for ``probe_interval`` seconds, and again every interval while it does
    not move (each watch request then lasts at most one interval): a rollout that progresses is not
    looked at. A RolloutStatus it returns ends the wait (early stop).
    ``stopped()``, if given and true, ends the wait at the next event or interval (reason Timeout).
    """
    name = obj['metadata']['name']
    path = collection_path.rstrip('/')
    report = _Reporter(progress)
    result = report(obj, predicate(obj))
    if result.done or result.failed:
        return result
    start = clock()
    deadline = start + timeout
    next_probe = [start + probe_interval if probe else None]
    latest = [obj]
    rv = obj['metadata'].get('resourceVersion')

    def probed():
        """The probe's verdict when one is due, else None."""
        if probe is None or clock() < next_probe[0]:
            return None
        verdict = probe(latest[0])
        next_probe[0] = clock() + probe_interval
        return verdict

    while True:
        remaining = deadline - clock()
        if remaining <= 0 or (stopped is not None and stopped()):
            return RolloutStatus(False, 'timed out after %ss waiting for the rollout: %s'
                                 % (timeout, result.message), TIMEOUT, counts=result.counts)
        verdict = probed()
        if verdict is not None:
            return verdict
        try:
            chunk = min(WATCH_CHUNK_SECONDS, max(1, int(remaining + 0.999)))
            if probe is not None:
                chunk = min(chunk, max(1, int(next_probe[0] - clock() + 0.999)))
            events = client.watch(path, resource_version=rv, field_selector='metadata.name=%s' % name,
                                  timeout_seconds=chunk)
            for event_type, event_obj in events:
                meta = event_obj.get('metadata') or {}
                rv = meta.get('resourceVersion') or rv
                if event_type == 'BOOKMARK' or meta.get('name') != name:
                    if clock() >= deadline:  # a stream of noise must not outlast the deadline
                        break
                    continue
                if event_type == 'DELETED':
                    return RolloutStatus(False, '%s was deleted while waiting for its rollout' % name,
                                         DELETED, failed=True)
                latest[0] = event_obj
                before = result.message
                result = report(event_obj, predicate(event_obj))
                if probe is not None and result.message != before:
                    # The rollout moved: its pods are looked at only once it stops moving.
                    next_probe[0] = clock() + probe_interval
                if result.done or result.failed:
                    return result
                if clock() >= deadline or (probe is not None and clock() >= next_probe[0]):
                    break
                if stopped is not None and stopped():
                    break
        except ApiError as e:
            if e.status != 410:
                raise
            fresh = client.get('%s/%s' % (path, name))
            rv = fresh['metadata'].get('resourceVersion')
            latest[0] = fresh
            result = report(fresh, predicate(fresh))
            if result.done or result.failed:
                return result


def settled(obj, predicate):
    """Whether ``predicate`` already judges ``obj`` done or failed: ``wait_for`` then answers at once,
    without a request. A predicate that raises is not settled (the wait reports its error)."""
    try:
        result = predicate(obj)
    except Exception:
        return False
    return bool(result.done or result.failed)

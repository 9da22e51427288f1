# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Following one object with a WATCH (no polling) until a predicate says done or failed."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import queue
import threading
import time

from ansible_collections.kubeops.rollout.plugins.module_utils.common import threads
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.status import (
    DELETED,
    TIMEOUT,
    RolloutStatus,
)

# Server-side timeout of one watch request; the waiter re-watches until its own deadline.
WATCH_CHUNK_SECONDS = 290
# A wait with a probe that can be stopped looks at ``stopped()`` at least this often, events or not.
STOP_CHECK_SECONDS = 2.0


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


class _Pump:
    """One WATCH stream read in a helper thread, its events queued for the waiting thread: that thread
    can look at the pods between two events without ending the watch. ``stop`` leaves the stream to
    end by itself (at the next event, or its server-side timeout), and nothing more is queued."""

    def __init__(self, client, path, query, timeout_seconds):
        self.queue = queue.Queue()
        self._stopped = threading.Event()
        threads.start(self._run, (client, path, query, timeout_seconds), name='watch %s' % path)

    def _run(self, client, path, query, timeout_seconds):
        try:
            for event in client.watch(path, timeout_seconds=timeout_seconds, **query):
                if self._stopped.is_set():
                    return
                self.queue.put(event)
        except Exception as e:  # handed to the waiting thread, which decides
            self.queue.put(e)
            return
        self.queue.put(None)  # the server ended the stream

    def stop(self):
        self._stopped.set()


def _stream(client, path, query, chunk, seconds):
    """``(next_item, close)`` of one watch request: ``next_item()`` is the next event, None at the end
    of the stream, an exception as raised, or ``WAITING`` when nothing came within ``seconds()``
    seconds. Read in this thread when ``seconds`` is None (nothing else to do meanwhile), else in a
    helper thread."""
    if seconds is None:
        events = iter(client.watch(path, timeout_seconds=chunk, **query))

        def next_item():
            try:
                return next(events, None)
            except ApiError as e:
                return e
        return next_item, getattr(events, 'close', lambda: None)
    pump = _Pump(client, path, query, chunk)

    def next_item():
        try:
            return pump.queue.get(timeout=max(0.01, seconds()))
        except queue.Empty:
            return WAITING
    return next_item, pump.stop


# What a watch's ``next_item`` answers when nothing came in time (the waiting thread looks around).
WAITING = object()


def wait_for(client, collection_path, obj, predicate, timeout, clock=time.monotonic, progress=None,
             probe=None, probe_interval=None, stopped=None):
    """Follow one object with WATCH until ``predicate`` says done or failed, or ``timeout`` passes.

    Starts from ``obj`` (a fresh GET or write response) and watches from its resourceVersion with a
    metadata.name field selector; re-watches when the server ends the stream, re-reads on 410 Gone.
    Returns the last RolloutStatus (reason Timeout / Deleted when those end the wait).
    ``progress(obj, status)``, if given, hears each change of the status message as it happens.
    ``probe(obj)``, if given, is called with the newest object once the rollout has not moved (its
    status message unchanged) for ``probe_interval`` seconds, and again every interval while it does
    not move: a rollout that progresses is not looked at. A RolloutStatus it returns ends the wait
    (early stop). The watch stays open across the probe's looks (it is read in a helper thread).
    ``stopped()``, if given and true, ends the wait at the next event or, with a probe, within
    STOP_CHECK_SECONDS (reason Timeout).
    """
    name = obj['metadata']['name']
    path = collection_path.rstrip('/')
    report = _Reporter(progress)
    result = report(obj, predicate(obj))
    if result.done or result.failed:
        return result
    start = clock()
    deadline = start + timeout
    next_probe = start + probe_interval if probe else None
    latest = obj
    rv = obj['metadata'].get('resourceVersion')
    threaded = probe is not None

    def seconds():
        """How long the waiting thread may wait for the next event before it looks around."""
        due = deadline if next_probe is None else min(deadline, next_probe)
        return min(due - clock(), STOP_CHECK_SECONDS) if stopped is not None else due - clock()

    close = None
    try:
        while True:
            remaining = deadline - clock()
            if remaining <= 0 or (stopped is not None and stopped()):
                return RolloutStatus(False, 'timed out after %ss waiting for the rollout: %s'
                                     % (timeout, result.message), TIMEOUT, counts=result.counts)
            if probe is not None and clock() >= next_probe:
                verdict = probe(latest)
                next_probe = clock() + probe_interval
                if verdict is not None:
                    return verdict
            if close is None:
                chunk = min(WATCH_CHUNK_SECONDS, max(1, int(remaining + 0.999)))
                query = {'resource_version': rv, 'field_selector': 'metadata.name=%s' % name}
                next_item, close = _stream(client, path, query, chunk, seconds if threaded else None)
            item = next_item()
            if item is WAITING:
                continue
            if item is None:  # the server ended the stream: watch again from the newest version
                close()
                close = None
                continue
            if isinstance(item, Exception):
                close()
                close = None
                if not (isinstance(item, ApiError) and item.status == 410):
                    raise item
                fresh = client.get('%s/%s' % (path, name))
                rv = fresh['metadata'].get('resourceVersion')
                latest = fresh
                result = report(fresh, predicate(fresh))
                if result.done or result.failed:
                    return result
                continue
            event_type, event_obj = item
            meta = event_obj.get('metadata') or {}
            rv = meta.get('resourceVersion') or rv
            if event_type == 'BOOKMARK' or meta.get('name') != name:
                continue
            if event_type == 'DELETED':
                return RolloutStatus(False, '%s was deleted while waiting for its rollout' % name,
                                     DELETED, failed=True)
            latest = event_obj
            before = result.message
            result = report(event_obj, predicate(event_obj))
            if probe is not None and result.message != before:
                # The rollout moved: its pods are looked at only once it stops moving.
                next_probe = clock() + probe_interval
            if result.done or result.failed:
                return result
    finally:
        if close is not None:
            close()


def settled(obj, predicate):
    """Whether ``predicate`` already judges ``obj`` done or failed: ``wait_for`` then answers at once,
    without a request. A predicate that raises is not settled (the wait reports its error)."""
    try:
        result = predicate(obj)
    except Exception:
        return False
    return bool(result.done or result.failed)

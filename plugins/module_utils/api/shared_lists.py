# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""One LIST of a collection shared by many readers that want parts of it, kept current by a WATCH.

When many rollouts in one namespace are probed (their pods, their ReplicaSets, the namespace's
warnings), each asking the API server with its own selector costs a request per rollout per round.
``SharedLists`` answers each selector LIST from one copy of the whole collection and filters it here
as the API server would. The copy is an informer's: the first read LISTs the collection, then one
WATCH from the list's resourceVersion applies every change to it, so later reads send no request
and see what a LIST would, but for the watch's delivery delay. Where the watch cannot be kept (410
Gone, a broken stream, no permission to watch) the copy is LISTed again, or, once the watch is given
up, at most once per ``ttl`` seconds. A selector it cannot evaluate (a field selector other than
equality on a plain field path) goes to the server unchanged.

A reader for one rollout (``scoped``) keeps a narrower copy: each path's copy is LISTed and watched
with the selectors of its scope (the workload's pods, its ReplicaSets, the Warning events), and it
answers the LISTs whose selectors hold every term of the scope (filtering the rest here); any other
LIST of that path goes to the server."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import threading
import time

from ansible_collections.kubeops.rollout.plugins.module_utils.common import threads
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError

# Watches of a collection that end in an error in a row, none of them having delivered an event,
# after which it is LISTed per ttl instead (a server that keeps refusing it is not asked again and
# again). A watch refused outright (401, 403: no permission; 404, 405: no such watch) is given up at
# once.
WATCH_FAILURES = 3
# ``close`` joins a watch thread in steps this long, for at most ``CLOSE_SECONDS`` in all: a thread
# still reading a quiet stream then ends with it (the watch's server-side timeout is ``ttl``).
JOIN_STEP = 0.05
CLOSE_SECONDS = 0.2
# A reader waiting for a change where its watches were refused: the lists are read again this often.
UNWATCHED_SECONDS = 1.0
# A waiting reader's WATCH request lasts this long; between two looks it waits at most
# STOP_CHECK_SECONDS (an interruption, a deadline is noticed within it).
WAIT_WATCH_SECONDS = 60
STOP_CHECK_SECONDS = 2.0

# ---- label selectors ---------------------------------------------------------------------------


def _terms(selector):
    """Split a selector's text at the commas that are not inside a set's parentheses."""
    terms, depth, current = [], 0, ''
    for char in selector:
        if char == '(':
            depth += 1
        elif char == ')':
            depth -= 1
        if char == ',' and depth == 0:
            terms.append(current.strip())
            current = ''
        else:
            current += char
    if current.strip():
        terms.append(current.strip())
    return terms


def _set_values(text):
    return {v.strip() for v in text.strip()[1:-1].split(',') if v.strip()}


def _term_matches(term, labels):
    words = term.split()
    if len(words) >= 2 and words[1] in ('in', 'notin'):
        key, values = words[0], _set_values(term.split(None, 2)[2])
        if words[1] == 'in':
            return labels.get(key) in values
        return labels.get(key) not in values
    if term.startswith('!'):
        return term[1:].strip() not in labels
    for operator in ('!=', '==', '='):
        if operator in term:
            key, value = (part.strip() for part in term.split(operator, 1))
            return (labels.get(key) == value) != (operator == '!=')
    return term in labels


def selector_matches(selector, labels):
    """Whether ``labels`` (a dict) match a label selector's text (equality, ``in``, ``notin``,
    existence and ``!`` terms, as ``kubectl`` and the API server read them). Empty matches all."""
    labels = labels or {}
    return all(_term_matches(term, labels) for term in _terms(selector or ''))


# ---- field selectors ---------------------------------------------------------------------------


def _field_terms(selector):
    """``[(path, value, equal)]`` of a field selector of equality terms, or None when it has others."""
    terms = []
    for term in _terms(selector or ''):
        for operator in ('!=', '==', '='):
            if operator in term:
                path, value = (part.strip() for part in term.split(operator, 1))
                terms.append((path.split('.'), value, operator != '!='))
                break
        else:
            return None
    return terms


def _field(obj, path):
    for key in path:
        if not isinstance(obj, dict):
            return ''
        obj = obj.get(key)
    return '' if obj is None else str(obj)


# ---- the shared reader -------------------------------------------------------------------------


def _key(obj):
    meta = obj.get('metadata') or {}
    return meta.get('namespace') or '', meta.get('name') or ''


def _older(version, than):
    """Whether resourceVersion ``version`` is older than ``than``. Versions are opaque to clients;
    the API server's are numbers, compared as such. Others cannot be ordered: not older."""
    if not (isinstance(version, str) and isinstance(than, str) and version.isdigit() and than.isdigit()):
        return False
    return int(version) < int(than)


class _Copy:
    """One collection as LISTed at ``read_at`` and, while ``watched``, kept current by a watch."""

    def __init__(self, answer, read_at):
        self.metadata = answer.get('metadata') or {}
        self.version = self.metadata.get('resourceVersion')
        self.items = {_key(item): item for item in answer.get('items') or []}
        self.read_at = read_at
        self.watched = False
        self.thread = None

    def apply(self, kind, obj):
        """One watch event: a BOOKMARK moves the resourceVersion on; ADDED, MODIFIED and DELETED
        change the item unless the copy holds a newer version of it."""
        version = (obj.get('metadata') or {}).get('resourceVersion')
        if version and not _older(version, self.version):
            self.version = version
        if kind == 'BOOKMARK':
            return
        key = _key(obj)
        held = self.items.get(key)
        if held is not None and _older(version, (held.get('metadata') or {}).get('resourceVersion')):
            return
        if kind == 'DELETED':
            self.items.pop(key, None)
        else:
            self.items[key] = obj

    def answer(self):
        """The copy as a LIST's answer would be: its items in the server's order (namespace, name)."""
        metadata = dict(self.metadata)
        if self.version:
            metadata['resourceVersion'] = self.version
        return metadata, [self.items[key] for key in sorted(self.items)]


class SharedLists:
    """A client whose ``list`` is answered from a shared, watched copy of the collection (one LIST
    per collection path, then its WATCH; LISTed at most once per ``ttl`` seconds where the watch is
    given up); every other call goes to ``client``. Safe to use from many threads: readers of one
    collection wait for one LIST. ``close`` (or leaving a ``with`` block) ends the watches."""

    def __init__(self, client, ttl, clock=time.monotonic, watch_seconds=None, scopes=None):
        """``ttl``: how long an unwatched copy serves; ``watch_seconds``: how long one WATCH request
        lasts before it is sent again (default ``ttl``); ``scopes``: path -> (label selector, field
        selector) its copy is LISTed and watched with (default: the whole collection)."""
        self.client = client
        self.scopes = dict(scopes or {})
        self.ttl = ttl
        self.watch_seconds = int(watch_seconds or ttl)
        self.clock = clock
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._changed = threading.Condition(self._lock)  # notified on each event applied, each watch end
        self._copies = {}  # path -> its _Copy
        self._failures = {}  # path -> watches that failed in a row (WATCH_FAILURES: given up)

    def __getattr__(self, name):
        return getattr(self.client, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _watching(self, path):
        return not self._closed.is_set() and self._failures.get(path, 0) < WATCH_FAILURES

    def _collection(self, path):
        """The collection's metadata and items: the watched copy, else a LIST (which starts the
        watch again while it is not given up, else serves for ``ttl``)."""
        with self._lock:
            copy = self._copies.get(path)
            fresh = copy is not None and (copy.watched or (
                not self._watching(path) and self.clock() - copy.read_at < self.ttl))
            if not fresh:
                answer = self.client.list(path, **self._scope(path))
                copy = self._copies[path] = _Copy(answer, self.clock())
                if self._watching(path):
                    copy.watched = True
                    copy.thread = threads.start(self._follow, (path, copy), name='watch %s' % path)
            return copy.answer()

    def _follow(self, path, copy):
        """The watch thread of ``copy``: applies the events, watches again from the newest
        resourceVersion when the server ends the stream, and on an error (410 Gone included) leaves
        the copy unwatched, so the next read LISTs it again."""
        while not self._closed.is_set():
            delivered = False
            try:
                events = self.client.watch(path, resource_version=copy.version,
                                           timeout_seconds=self.watch_seconds, **self._scope(path))
                for kind, obj in events:
                    with self._lock:
                        if self._closed.is_set():
                            break
                        copy.apply(kind, obj)
                        self._changed.notify_all()
                    delivered = True
            except Exception as e:  # 410 Gone, a broken stream, a refused watch: LIST again, or poll
                refused = isinstance(e, ApiError) and e.status in (401, 403, 404, 405)
                with self._lock:
                    copy.watched = False
                    before = 0 if delivered else self._failures.get(path, 0)
                    self._failures[path] = WATCH_FAILURES if refused else before + 1
                    self._changed.notify_all()
                return
            with self._lock:
                self._failures[path] = 0
        with self._lock:
            copy.watched = False

    @classmethod
    def waiting(cls, client, clock=time.monotonic):
        """A reader for a wait (a switch, a traffic step, an OnDelete rollout, a forced rollback):
        its lists LISTed once and watched for WAIT_WATCH_SECONDS at a time, read again every
        UNWATCHED_SECONDS where the watches are refused. Close it when the wait ends."""
        return cls(client, UNWATCHED_SECONDS, clock=clock, watch_seconds=WAIT_WATCH_SECONDS)

    @classmethod
    def scoped(cls, client, scopes, clock=time.monotonic):
        """A reader for one wait whose copies hold only ``scopes`` (path -> (label selector, field
        selector)): each LISTed once and watched for WAIT_WATCH_SECONDS at a time. Close it when the
        wait ends."""
        return cls(client, UNWATCHED_SECONDS, clock=clock, watch_seconds=WAIT_WATCH_SECONDS, scopes=scopes)

    def _scope(self, path):
        """The selectors of ``path``'s copy, as keyword arguments of a LIST or WATCH."""
        labels, fields = self.scopes.get(path, (None, None))
        return {k: v for k, v in (('label_selector', labels), ('field_selector', fields)) if v}

    def _within(self, path, label_selector, field_selector):
        """Whether a LIST of ``path`` with these selectors asks for part of the path's copy: every
        term of its scope is one of the LIST's terms (a path without a scope: always)."""
        if path not in self.scopes:
            return True
        labels, fields = self.scopes[path]
        return (set(_terms(labels or '')) <= set(_terms(label_selector or ''))
                and set(_terms(fields or '')) <= set(_terms(field_selector or '')))

    def wait_until(self, due):
        """Until a watched copy changes, or ``due`` (on this reader's clock), at most
        STOP_CHECK_SECONDS: the caller looks again, and at its deadline or stop, after each return."""
        self.wait_change(min(max(due - self.clock(), 0.01), STOP_CHECK_SECONDS))

    def wait_change(self, timeout):
        """Until a watched copy changes (an event applied, a watch ended), or ``timeout`` passes; a
        reader that re-reads its lists after each return waits for the cluster, never polls. Where
        no copy is watched (the watches were refused), at most UNWATCHED_SECONDS: the lists are then
        LISTed again at that pace."""
        with self._lock:
            if self._closed.is_set() or timeout <= 0:
                return
            watched = any(c.watched for c in self._copies.values())
            self._changed.wait(timeout if watched else min(timeout, UNWATCHED_SECONDS))

    def close(self):
        """End the watches: no event is applied and no watch opened after this; the threads are
        joined in short steps for a moment (a thread in a quiet stream ends with the stream)."""
        self._closed.set()
        with self._lock:
            self._changed.notify_all()
            helpers = [c.thread for c in self._copies.values() if c.thread is not None]
            for copy in self._copies.values():
                copy.watched = False
        deadline = time.monotonic() + CLOSE_SECONDS
        for thread in helpers:
            while thread.is_alive() and time.monotonic() < deadline:
                thread.join(JOIN_STEP)

    def list(self, path, label_selector=None, field_selector=None, query=None):
        fields = _field_terms(field_selector)
        if query or fields is None or not self._within(path, label_selector, field_selector):
            return self.client.list(path, label_selector=label_selector, field_selector=field_selector,
                                    query=query)
        metadata, items = self._collection(path)
        chosen = [
            item for item in items
            if selector_matches(label_selector, (item.get('metadata') or {}).get('labels'))
            and all((_field(item, p) == value) == equal for p, value, equal in fields)
        ]
        return {'kind': 'List', 'apiVersion': 'v1', 'metadata': metadata, 'items': chosen}

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""One LIST of a collection shared by many readers that want parts of it.

When many rollouts in one namespace are probed (their pods, their ReplicaSets, the namespace's
warnings), each asking the API server with its own selector costs a request per rollout per round.
``SharedLists`` answers each selector LIST from one LIST of the whole collection, read at most once
per ``ttl`` seconds, and filters it here as the API server would. A selector it cannot evaluate (a
field selector other than equality on a plain field path) goes to the server unchanged."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import threading
import time

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


class SharedLists:
    """A client whose ``list`` is answered from a shared LIST of the collection (at most one per
    ``ttl`` seconds per collection path); every other call goes to ``client``. Safe to use from many
    threads: readers of one collection wait for one LIST."""

    def __init__(self, client, ttl, clock=time.monotonic):
        self.client = client
        self.ttl = ttl
        self.clock = clock
        self._lock = threading.Lock()
        self._collections = {}  # path -> (read at, the list's items, the list's metadata)

    def __getattr__(self, name):
        return getattr(self.client, name)

    def _collection(self, path):
        with self._lock:
            cached = self._collections.get(path)
            if cached is None or self.clock() - cached[0] >= self.ttl:
                answer = self.client.list(path)
                cached = (self.clock(), answer.get('items') or [], answer.get('metadata') or {})
                self._collections[path] = cached
            return cached

    def list(self, path, label_selector=None, field_selector=None, query=None):
        fields = _field_terms(field_selector)
        if query or fields is None:
            return self.client.list(path, label_selector=label_selector, field_selector=field_selector,
                                    query=query)
        _read, items, metadata = self._collection(path)
        chosen = [
            item for item in items
            if selector_matches(label_selector, (item.get('metadata') or {}).get('labels'))
            and all((_field(item, p) == value) == equal for p, value, equal in fields)
        ]
        return {'kind': 'List', 'apiVersion': 'v1', 'metadata': dict(metadata), 'items': chosen}

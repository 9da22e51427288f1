# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The one codec of every record the collection keeps on the objects it changes, and their seals.

A record is an annotation holding JSON (``kubeops.rollout/release``, ``/canary``, ``/traffic-canary``
on workloads, ``/bluegreen`` on Services). Whoever may edit those objects may edit their
annotations, so a record is a hint, never a source of content on its own:

- ``decode`` parses a record within bounds (at most ``MAX_BYTES`` of text, nested at most
  ``MAX_DEPTH`` levels; checked before the JSON parser sees it, so a hostile record is refused, never
  a crash) and refuses anything that is not a JSON object;
- ``encode`` is the one writer (sorted keys, compact, the format ``VERSION``);
- every record the operator writes is **sealed**: the sha256 of the object's identity (kind,
  namespace, name, uid), the annotation and the exact text is kept on the release's Lease
  (``coordination.k8s.io``, where the bootstrap ``edit`` and ``admin`` roles grant nothing), in its
  annotation ``kubeops.rollout/seals``, before the record itself is written. ``verify`` reads that
  Lease (its name computed from the release id, in the namespace the caller names, never a field of
  the record) and accepts a record only when its digest is there. The Lease lives as long as a
  sealed record does: a run that ends leaving records keeps it (without a holder); the last run
  removing them deletes it.

``clear_command`` is the ``kubectl annotate ... NAME-`` way out every refusal of a record names.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json
import re

MAX_BYTES = 32 * 1024
MAX_DEPTH = 8
VERSION = 2
SEALS_ANNOTATION = 'kubeops.rollout/seals'
SEALS_KEPT = 2  # per object: the newest digest and the one before (a write whose answer was lost)
LEASE_PREFIX = 'kubeops-release-'
# A release id names a Lease: letters, digits and dashes only (anything else is no id of ours).
_ID = re.compile(r'^[a-z0-9][a-z0-9-]{0,62}$')


class Malformed(ValueError):
    """A record that is not acted on; ``str()`` says why."""


def _too_deep(text, limit):
    """Whether the JSON ``text`` nests objects or arrays deeper than ``limit`` (a scan, no parsing)."""
    depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == '\\':
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in '[{':
            depth += 1
            if depth > limit:
                return True
        elif ch in ']}':
            depth -= 1
    return False


def decode(text):
    """The record ``text`` as a dict; raises Malformed (too large, too deep, not a JSON object)."""
    if not isinstance(text, str):
        raise Malformed('it is not text')
    size = len(text.encode('utf-8'))
    if size > MAX_BYTES:
        raise Malformed('it is %d bytes, more than a record may hold (%d)' % (size, MAX_BYTES))
    if _too_deep(text, MAX_DEPTH):
        raise Malformed('it is nested more than %d levels deep' % MAX_DEPTH)
    try:
        record = json.loads(text)
    except ValueError:
        raise Malformed('it is not JSON')
    if not isinstance(record, dict):
        raise Malformed('it is not a JSON object')
    return record


def encode(record):
    """The text of ``record`` (a dict), as every record is written."""
    out = dict(record)
    out['v'] = VERSION
    return json.dumps(out, sort_keys=True, separators=(',', ':'))


def fields(record, wanted):
    """The keys of ``wanted`` ((key, type), ...) missing from ``record`` or of another type."""
    return [key for key, kind in wanted if not isinstance(record.get(key), kind) or
            (kind is int and isinstance(record.get(key), bool))]


# -- the way out
def clear_command(kind, name, namespace, annotation):
    """The kubectl command that removes ``annotation`` from an object (check it first)."""
    return 'kubectl annotate %s %s -n %s %s-' % (kind.lower(), name, namespace, annotation)


# -- seals
def lease_name(release_id):
    """The Lease of ``release_id``; None for a value that is no release id of ours."""
    if not isinstance(release_id, str) or not _ID.match(release_id):
        return None
    return LEASE_PREFIX + release_id


def seal_key(obj):
    """Which object a seal is about: kind/namespace/name (its uid is in the digest)."""
    meta = obj.get('metadata') or {}
    return '%s/%s/%s' % (obj.get('kind') or '', meta.get('namespace') or '', meta.get('name') or '')


def digest(obj, annotation, text):
    """The seal of the record ``text`` in ``annotation`` on ``obj`` (as read: its uid counts)."""
    meta = obj.get('metadata') or {}
    material = '\n'.join([seal_key(obj), meta.get('uid') or '', annotation, text])
    return hashlib.sha256(material.encode('utf-8')).hexdigest()


def seals_of(lease):
    """The seals kept on ``lease`` (as read): {key: [digest, ...]} ({} when none or unreadable)."""
    text = (((lease or {}).get('metadata') or {}).get('annotations') or {}).get(SEALS_ANNOTATION)
    if not text:
        return {}
    try:
        seals = json.loads(text) if len(text) <= 4 * MAX_BYTES else {}
    except ValueError:
        return {}
    if not isinstance(seals, dict):
        return {}
    return {k: [d for d in v if isinstance(d, str)] for k, v in seals.items() if isinstance(v, list)}


def with_seals(seals, updates):
    """``seals`` with ``updates`` ({key: digest, a list of digests (newest first), or None to drop
    the key}) applied; the newest first, at most SEALS_KEPT a key."""
    out = {k: list(v) for k, v in seals.items()}
    for key, value in updates.items():
        if value is None:
            out.pop(key, None)
        else:
            new = [value] if isinstance(value, str) else list(value)
            out[key] = (new + [d for d in out.get(key, []) if d not in new])[:SEALS_KEPT]
    return out


def seals_text(seals):
    return json.dumps(seals, sort_keys=True, separators=(',', ':'))


def unsealed(lease, obj, annotation, text):
    """Why the record ``text`` on ``obj`` is not sealed by ``lease`` (as read, or None), or None."""
    if lease is None:
        return 'its release\'s Lease, which holds the seals of the records the operator wrote, does not exist'
    if digest(obj, annotation, text) not in seals_of(lease).get(seal_key(obj), []):
        return ('its seal is not on its release\'s Lease %s/%s: the operator did not write it as it is '
                '(edited, copied, or written by an earlier version of the collection)'
                % ((lease.get('metadata') or {}).get('namespace'), (lease.get('metadata') or {}).get('name')))
    return None

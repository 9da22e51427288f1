# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Times as the API writes them: RFC 3339 as Go parses it (``2026-01-02T03:04:05Z``; fractions and offsets,
``MicroTime`` with microseconds), read and written in one place."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import calendar
import datetime
import re
import time

_RFC3339 = re.compile(r'^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$')


def parse(value):
    """An RFC 3339 time -> seconds since the epoch (float), or None when it is not one."""
    match = _RFC3339.match(value.strip()) if isinstance(value, str) else None
    if not match:
        return None
    year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60 and second < 61):
        return None
    try:
        seconds = calendar.timegm((year, month, day, hour, minute, second, 0, 0, 0))
    except (OverflowError, ValueError):
        return None
    if match.group(7):
        seconds += float(match.group(7))
    zone = match.group(8)
    if zone != 'Z':
        sign = 1 if zone[0] == '+' else -1
        seconds -= sign * (int(zone[1:3]) * 3600 + int(zone[4:6]) * 60)
    return seconds


def parse_datetime(value):
    """An RFC 3339 time -> an aware datetime (UTC), or None."""
    seconds = parse(value)
    if seconds is None:
        return None
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc)


def as_datetime(value):
    """``value`` as an aware datetime: a datetime as it is, an RFC 3339 string parsed (None when it is
    not one), None as the current time (UTC)."""
    if value is None:
        return datetime.datetime.now(datetime.timezone.utc)
    if isinstance(value, str):
        return parse_datetime(value)
    return value


def format_utc(when):
    """An aware datetime as RFC 3339 in UTC, seconds precision (``2026-01-02T03:04:05Z``): how the
    API writes ``lastTimestamp`` and ``creationTimestamp``. None stays None."""
    if when is None:
        return None
    return when.astimezone(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')


def rfc3339_now(now=None):
    """Local time with offset, seconds precision, as Go's time.RFC3339 formats it (``Z`` for UTC):
    what kubectl writes into ``restartedAt``. ``now``: an aware datetime."""
    now = now or datetime.datetime.now().astimezone()
    text = now.replace(microsecond=0).isoformat()
    return text[:-6] + 'Z' if text.endswith('+00:00') else text


def micro_time(t):
    """A ``MicroTime`` (RFC 3339 with microseconds), as Leases store times."""
    return time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(t)) + '.%06dZ' % int((t % 1) * 1000000)

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The record blue/green keeps on each live Service it switches: the annotation
``kubeops.rollout/bluegreen``, JSON, written in the same request as the selector it explains.

Fields: ``release`` (the id of the release that switched), ``from`` and ``to`` (the colors),
``selectorBefore`` (the selector the switch replaced), ``switchedAt`` and ``scaleDownAt`` (RFC 3339:
when it switched, when the color it left may be scaled down), ``phase``, ``hpa`` (``{name, from, to}``
when an HPA follows), ``fromImages`` (what the color it left ran, each container's image: the only
images ``rolled_back`` goes back to), ``runner`` and ``launcher`` (the ansible-playbook process and
the AWX job that ran it). Encoded and bounded by engine/records.py, and sealed on the Lease of its
release (``kubeops-release-<release>`` in the app's namespace): a record whose seal is not there is
never acted on.

Phases: ``switching`` (the selector is switched, the traffic not yet verified: a run stopped here
is resumed or put back), ``switched`` (verified), ``rolled_back`` (switched back: ``from`` is the
color left, ``to`` the color restored), ``adopted`` (the selector got the color label).

The record is acted on only while the Service selects its ``to`` color with the rest of the
selector as recorded; anything else (an edit by hand, a record copied elsewhere) is reported and
never acted on. Its way out: ``kubectl annotate service NAME -n NAMESPACE kubeops.rollout/bluegreen-``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json
import time

from ansible_collections.kubeops.rollout.plugins.module_utils.common import times
from ansible_collections.kubeops.rollout.plugins.module_utils.engine import lease as lease_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.engine import records
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.services import COLORS
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release.record import (
    clear_command,
    json_fields,
)

ANNOTATION = 'kubeops.rollout/bluegreen'
SWITCHING, SWITCHED, ROLLED_BACK, ADOPTED = 'switching', 'switched', 'rolled_back', 'adopted'
PHASES = (SWITCHING, SWITCHED, ROLLED_BACK, ADOPTED)
# Seconds from a switch to scaleDownAt when the switch is given no delay.
DEFAULT_SCALE_DOWN_DELAY = 300


def release_id(apps):
    """The id of a blue/green release: each app's namespace, Service and images (not the colors, so
    that the same task run again, before or after its switch, is the same release)."""
    text = json.dumps(
        [[a.namespace, a.service_name, sorted((a.images or {}).items())] for a in apps], sort_keys=True
    )
    return 'bg-' + hashlib.sha256(text.encode('utf-8')).hexdigest()[:12]


def record_text(
    release, from_color, to_color, selector_before, phase, scale_down_delay, runner, hpa=None, now=None,
    from_images=None,
):
    """The record of a switch from ``from_color`` (running ``from_images``) to ``to_color`` made
    ``now`` (seconds since the epoch, default the current time); ``scale_down_delay`` None is the
    default delay."""
    when = now if now is not None else time.time()
    if scale_down_delay is None:
        scale_down_delay = DEFAULT_SCALE_DOWN_DELAY
    return records.encode(
        {
            'release': release,
            'from': from_color,
            'to': to_color,
            'selectorBefore': selector_before,
            'phase': phase,
            'switchedAt': _stamp(when),
            'scaleDownAt': _stamp(when + scale_down_delay),
            'hpa': hpa,
            'fromImages': from_images or {},
            'runner': runner,
            'launcher': lease_mod.launcher(),
        }
    )


def with_phase(text, phase):
    """The record ``text`` in ``phase`` (nothing else changed)."""
    record = records.decode(text)
    record['phase'] = phase
    return records.encode(record)


def _stamp(seconds):
    return times.micro_time(seconds)[:19] + 'Z'


def parse(text):
    """(record, problem): the record when its shape is right, else None and what is wrong."""
    record, wrong, problem = json_fields(text, (('release', str), ('from', str), ('to', str), ('phase', str),
                                                ('selectorBefore', dict), ('switchedAt', str),
                                                ('scaleDownAt', str)))
    if problem:
        return None, problem
    if not wrong and (
        record['from'] not in COLORS
        or record['to'] not in COLORS
        or record['phase'] not in PHASES
        or times.parse(record['scaleDownAt']) is None
    ):
        wrong.append('from, to, phase or scaleDownAt')
    if record.get('hpa') is not None and not (
        isinstance(record['hpa'], dict)
        and all(isinstance(record['hpa'].get(k), str) for k in ('name', 'from', 'to'))
    ):
        wrong.append('hpa')
    if wrong:
        return None, 'its %s %s missing or of the wrong value' % (
            ', '.join(wrong),
            'is' if len(wrong) == 1 else 'are',
        )
    return record, None


def check(service, label):
    """(record, problem) of ``service`` (a services.Service, as read): (None, None) without a record;
    the record when it explains the Service as it is (it selects ``to`` by ``label``, the rest of the
    selector as recorded); else None and why it is not acted on."""
    text = service.annotations.get(ANNOTATION)
    if text is None:
        return None, None
    record, problem = parse(text)
    if problem:
        return None, problem
    selector = service.selector
    if selector.get(label) != record['to']:
        return None, (
            'it says the Service selects %s=%s, and it selects %s'
            % (label, record['to'], '%s=%s' % (label, selector[label]) if label in selector else 'no color')
        )
    rest = {k: v for k, v in selector.items() if k != label}
    before = {k: v for k, v in record['selectorBefore'].items() if k != label}
    if rest != before:
        return None, 'the rest of the Service\'s selector changed since the switch (%s, recorded %s)' % (
            _selector_text(rest),
            _selector_text(before),
        )
    return record, None


def scale_down_time(record, delay=None):
    """When the color ``record`` left may be scaled down (seconds since the epoch): its
    ``scaleDownAt``, or, with a ``delay`` given now, the switch time plus ``delay`` when earlier."""
    at = times.parse(record['scaleDownAt'])
    switched = times.parse(record['switchedAt']) if delay is not None else None
    return at if switched is None else min(at, switched + delay)


def scale_down_stamp(record, delay=None):
    """``scale_down_time`` as the record writes times (RFC 3339)."""
    return record['scaleDownAt'] if delay is None else _stamp(scale_down_time(record, delay))


def scale_down_due(record, now, delay=None):
    """Seconds until the color ``record`` left may be scaled down (0 or less: now)."""
    return scale_down_time(record, delay) - now


def clear(service):
    """The command that removes the record by hand (check the Service selects what you want first)."""
    return clear_command(service, ANNOTATION)


def _selector_text(selector):
    return ','.join('%s=%s' % kv for kv in sorted(selector.items())) or 'empty'

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The step math of kubectl's RollingUpdater (pure): fenceposts, limits, the next scale of each
RC, and the whole plan of steps simulated (check mode)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from collections import namedtuple

from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import UpdateError


def _scaled_value(value, total, round_up, what):
    """An int, a digit string or "N%" -> an absolute count (percentages of ``total``)."""
    if isinstance(value, bool):
        raise UpdateError('%s must be an integer or a percentage like "25%%", not %r' % (what, value))
    if isinstance(value, int):
        number = value
    else:
        text = str(value).strip()
        try:
            if text.endswith('%'):
                percent = int(text[:-1])
                if percent < 0:
                    raise ValueError
                product = percent * total
                return -(-product // 100) if round_up else product // 100
            number = int(text)
        except ValueError:
            raise UpdateError('%s must be an integer or a percentage like "25%%", not %r' % (what, value))
    if number < 0:
        raise UpdateError('%s must not be negative (got %s)' % (what, value))
    return number


def _is_zero(value):
    text = str(value).strip()
    return text in ('0', '0%')


def check_fenceposts(max_surge, max_unavailable):
    """Reject what validation rejects for Deployments: both limits explicitly zero, bad values."""
    _scaled_value(max_surge, 0, True, 'max_surge')
    _scaled_value(max_unavailable, 0, False, 'max_unavailable')
    if _is_zero(max_surge) and _is_zero(max_unavailable):
        raise UpdateError('max_surge and max_unavailable cannot both be 0: nothing could be scaled')


def resolve_fenceposts(max_surge, max_unavailable, desired):
    """(surge, unavailable) for ``desired`` replicas: surge rounds up, unavailable rounds down and
    becomes 1 when both resolve to 0 (kubectl's deployment util ResolveFenceposts)."""
    surge = _scaled_value(max_surge, desired, True, 'max_surge')
    unavailable = _scaled_value(max_unavailable, desired, False, 'max_unavailable')
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


Limits = namedtuple('Limits', 'desired surge unavailable min_available')


def limits(max_surge, max_unavailable, desired, old_replicas):
    """The bounds of one update. With 0 desired everything old may go at once (as kubectl)."""
    surge, unavailable = resolve_fenceposts(max_surge, max_unavailable, desired)
    if desired == 0:
        return Limits(0, surge, old_replicas, 0)
    return Limits(desired, surge, unavailable, max(0, desired - unavailable))


def scale_up_target(old, new, lim):
    """New replica count for the new RC, or None when it cannot (or need not) grow now."""
    if new == lim.desired:
        return None
    if old == 0:
        increment = lim.desired - new  # nothing old left: all the way
    else:
        increment = (lim.desired + lim.surge) - (old + new)
    if increment <= 0:
        return None
    return min(new + increment, lim.desired)


def scale_down_target(old, new, new_available, lim):
    """New replica count for the old RC, or None. Keeps ``old + new_available >= min_available``."""
    if old == 0:
        return None
    new_unavailable = new - new_available
    decrement = (old + new) - lim.min_available - new_unavailable
    if decrement <= 0:
        return None
    target = max(0, old - decrement)
    if new == lim.desired and new_available >= lim.desired:
        target = 0
    return target


Step = namedtuple('Step', 'action controller from_replicas to_replicas old_replicas new_replicas')


def step_dict(step):
    return {'action': step.action, 'controller': step.controller, 'from': step.from_replicas,
            'to': step.to_replicas, 'old_replicas': step.old_replicas, 'new_replicas': step.new_replicas}


def step_line(step):
    """A step as a progress line, in kubectl rolling-update's words."""
    return ('Scaling %s %s from %d to %d (old replicas %d, new replicas %d)'
            % (step.controller, 'up' if step.action == 'scale up' else 'down', step.from_replicas,
               step.to_replicas, step.old_replicas, step.new_replicas))


def plan_steps(old, new, lim, old_name='old', new_name='new', ready=None, max_rounds=100000):
    """The scale steps the loop takes from (old, new), simulated.

    ``ready(new_replicas, round) -> available new pods`` models readiness; by default every new pod
    is available by the time the old RC is scaled down. Rounds without a step count toward
    ``max_rounds`` (a readiness model that never lets the update finish ends there).
    """
    steps = []
    rnd = 0
    while not (new == lim.desired and old == 0):
        rnd += 1
        if rnd > max_rounds:
            raise UpdateError('the simulated update made no progress in %d rounds' % max_rounds)
        up = scale_up_target(old, new, lim)
        if up is not None:
            steps.append(Step('scale up', new_name, new, up, old, up))
            new = up
        available = new if ready is None else min(new, ready(new, rnd))
        down = scale_down_target(old, new, available, lim)
        if down is not None:
            steps.append(Step('scale down', old_name, old, down, down, new))
            old = down
    return steps

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""``state: finished``: once a Service's record says the color it left may be scaled down
(``scaleDownAt``: the switch time plus the switch's ``scale_down_delay``; a ``scale_down_delay``
given to this run counts from the switch time too, and the earlier of the two applies), that
color's Deployment is scaled to 0
(guarded by its generation as read). Before that, nothing is written and the summary says when. An
HPA still scaling that color refuses it; so does an app with no switch recorded whose idle color
still runs pods."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import KubeError, error_text
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen import record as record_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen.apps import (
    REFUSED,
    SCALED_DOWN,
    UNCHANGED,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen.switch import (
    ChangedElsewhere,
)


def finish(run):
    """Scale down, per app of ``run`` (a bluegreen.BlueGreen), the color its Service left."""
    now = run.now()
    for a in run.apps:
        r = a.record
        if r is None or r['phase'] == record_mod.ADOPTED or r['from'] == r['to']:
            left = a.idle
            if (a.deployment(left).replicas or 0) == 0:
                a.outcome = UNCHANGED
                continue
            a.outcome = REFUSED
            a.cause = ('no switch is recorded on it: %s still runs %d pods; scale it down by hand if it '
                       'is not needed' % (a.deployment(left).label(), a.deployment(left).replicas))
            continue
        left = r['from']
        a.scale_down_at = record_mod.scale_down_stamp(r, run.options.scale_down_delay)
        d = a.deployment(left)
        if (d.replicas or 0) == 0:
            a.outcome = UNCHANGED
            continue
        due = record_mod.scale_down_due(r, now, run.options.scale_down_delay)
        if due > 0:
            a.outcome = UNCHANGED
            run.lines.append('%s: %s may be scaled down at %s (in %d s)' % (a.label(), d.label(),
                                                                            a.scale_down_at, due + 0.5))
            continue
        if a.preview is not None and a.preview.color(run.label) == left:
            a.outcome, a.cause = REFUSED, ('the preview Service %s selects %s: it is being prepared, not '
                                           'left behind; not scaled down' % (a.preview.label(), d.label()))
            continue
        if a.hpa is not None and a.hpa.target == d.name:
            a.outcome, a.cause = REFUSED, 'HPA %s scales %s: retarget it first' % (a.hpa_name, d.name)
            continue
        try:
            run.traffic.scale(a, left, 0)
            a.outcome = SCALED_DOWN
        except (KubeError, ChangedElsewhere) as e:
            a.outcome, a.cause = REFUSED, error_text(e) if isinstance(e, KubeError) else str(e)

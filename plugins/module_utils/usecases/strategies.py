# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The strategies, chosen once per task from its options: the plain release, one phase of a canary,
or a canary measured in traffic (``strategy``); the state of a blue/green task (``bluegreen_state``).
Every one runs in the one lifecycle (usecases/lifecycle.py). A new strategy is a new file in this
folder and one line here."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release.release import Release


def strategy(options):
    """The strategy class of a release with ``options`` (release_targets.ReleaseOptions)."""
    if options.traffic:
        from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.traffic import (
            canary as traffic_canary,
        )
        return traffic_canary.TrafficCanary
    if options.fleet and not options.canary:
        # Imported for a fleet's release only.
        from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import fleet
        return fleet.FleetRelease
    if not options.canary:
        return Release
    # Imported for a canary's task only.
    from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release.canary import PHASES
    return PHASES[options.canary]


def bluegreen_state(state):
    """The step of blue/green's ``state``: a function of the run (a bluegreen.BlueGreen)."""
    from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen.states import STATES
    return STATES[state]

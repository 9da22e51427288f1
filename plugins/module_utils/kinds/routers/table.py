# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The traffic routers by the name the traffic option gives them (router.py is their interface).
Each is imported here by name, so that a module's payload on the module path carries it."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers.httproute import HTTPRouteRouter
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers.mesh_httproute import (
    MeshHTTPRouteRouter)
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers.grpcroute import GRPCRouteRouter
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers.virtualservice import (
    VirtualServiceRouter)
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers.openshift_route import (
    OpenShiftRouteRouter)

# router name (the traffic option's `router`) -> the router (a router holds no state: one of each)
ROUTERS = {
    'httproute': HTTPRouteRouter(),
    'virtualservice': VirtualServiceRouter(),
    'mesh_httproute': MeshHTTPRouteRouter(),
    'grpcroute': GRPCRouteRouter(),
    'openshift_route': OpenShiftRouteRouter(),
}
DEFAULT = 'httproute'
# The choices of the router option, in the order the documentation lists them.
NAMES = ('httproute', 'virtualservice', 'openshift_route', 'mesh_httproute', 'grpcroute')

# The options only some routers read, as a module's argument spec writes them (one home for both the
# traffic option of rollout_release and rollout_traffic's own options).
OPTION_SPEC = {
    'router': {'type': 'str', 'choices': list(NAMES), 'default': DEFAULT},
    'settle_seconds': {'type': 'float'},
    'destination_rule': {'type': 'dict', 'options': {
        'name': {'type': 'str', 'required': True},
        'stable_subset': {'type': 'str', 'default': 'stable'},
        'canary_subset': {'type': 'str', 'default': 'canary'},
    }},
}


def problems(options):
    """What is wrong with a traffic option's router and its own options (``options``: the keys of
    router.py's ``options``, with ``router``), before any request."""
    try:
        chosen = router(options.get('router'))
    except ValueError as e:
        return [str(e)]
    return chosen.check(options)


def router(name=None):
    """The router named ``name`` (default: the Gateway API HTTPRoute); ValueError for another."""
    name = name or DEFAULT
    if name not in ROUTERS:
        raise ValueError('no traffic router %r: %s' % (name, ', '.join(sorted(ROUTERS))))
    return ROUTERS[name]

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The Gateway API ``GRPCRoute`` router (``GRPCRouteRouter``, router.py's interface): a GRPCRoute on
Gateways as a traffic canary reads and writes it (gateway-api ``apis/v1/grpcroute_types.go``). Its
rules hold weighted ``backendRefs`` as an HTTPRoute's do, and the HTTPRoute router's code serves it
(httproute.py); what differs is the kind and path, and the header route's match: a GRPCRoute's
matches have a ``method`` and ``headers[]`` (``type`` Exact or RegularExpression) and no path, so a
header route beside a rule without matches matches the header alone.

Pure: no request is made here.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers.httproute import HTTPRouteRouter


class GRPCRouteRouter(HTTPRouteRouter):
    kind = 'GRPCRoute'
    name = 'grpcroute'
    plural = 'grpcroutes'
    parents = 'Gateway'
    elsewhere = {}

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The Gateway API mesh router (``MeshHTTPRouteRouter``, router.py's interface): an HTTPRoute whose
parents are Services (GAMMA: ``parentRefs[]`` of ``group: ""``, ``kind: Service``), which a service
mesh serves to the Service's clients (a route in the Service's namespace to every client, one in
another namespace to that namespace's clients). The route is written as the HTTPRoute router writes
one (httproute.py); what differs is the parents it must have, and that the mesh judges it: each
Service parent's ``status.parents[]`` entry, written by the mesh's controller, must say
``Accepted`` and ``ResolvedRefs`` at the route's generation.

Pure: no request is made here.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers.httproute import HTTPRouteRouter


class MeshHTTPRouteRouter(HTTPRouteRouter):
    name = 'mesh_httproute'
    parents = 'Service'
    elsewhere = {'Gateway': 'httproute'}
    judge = 'mesh'

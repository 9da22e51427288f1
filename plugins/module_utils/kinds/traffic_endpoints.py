# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What a Service's EndpointSlices route to, as a gateway reads them (``pkg/controller/endpointslice``,
``staging/src/k8s.io/endpointslice``): the slices labelled ``kubernetes.io/service-name``, one
endpoint per pod, ready unless ``conditions.ready`` is false. A gateway sends a backend's share only
to those; a Service without one answers 503.

Pure: no request is made here.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import math

from ansible_collections.kubeops.rollout.plugins.module_utils.api.client import path_quote

SERVICE_NAME_LABEL = 'kubernetes.io/service-name'
ENDPOINTSLICES = '/apis/discovery.k8s.io/v1/namespaces/%s/endpointslices'
SERVICES = '/api/v1/namespaces/%s/services'


def slices_path(namespace):
    return ENDPOINTSLICES % path_quote(namespace)


def service_path(namespace, name):
    return '%s/%s' % (SERVICES % path_quote(namespace), path_quote(name))


def selector_of(service):
    return '%s=%s' % (SERVICE_NAME_LABEL, service)


def ready_endpoints(slices):
    """The ready endpoints of a Service's ``slices`` (a LIST's items): each pod (or address) once."""
    seen = set()
    for s in slices:
        for e in s.get('endpoints') or []:
            if (e.get('conditions') or {}).get('ready') is False:
                continue
            ref = e.get('targetRef') or {}
            seen.add(ref.get('name') or tuple(e.get('addresses') or ()))
    return len(seen)


def needed_endpoints(percent, other_ready):
    """The ready endpoints a backend needs before it takes ``percent`` of the requests from a
    backend with ``other_ready`` ready endpoints: as many pods as that share of its capacity
    (ceil(percent x other_ready / 100), Argo Rollouts' canary replica rule), and at least one."""
    if percent <= 0:
        return 0
    return max(1, int(math.ceil(percent * other_ready / 100.0)))


def selects(selector, labels):
    """Whether a Service ``selector`` (a map) selects pods with ``labels``."""
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    # Which workloads a module acts on.
    DOCUMENTATION = r'''
options:
  kind:
    description:
      - Kind of the workload - V(Deployment), V(StatefulSet) or V(DaemonSet); or several, as a list or
        comma separated like C(kubectl rollout restart deploy,sts) (V(deploy,sts)), to act on every
        workload of those kinds that I(label_selectors) selects (one list request per kind).
      - Any of C(kubectl)'s spellings is accepted - any case, plural, short name (V(deploy), V(sts),
        V(ds)), with or without the group (V(deployments.apps)). Results always name the kind as above.
      - Omitted with I(label_selectors), all three kinds. Required with I(name), and then exactly one.
    type: list
    elements: str
  name:
    description:
      - Name of the workload.
      - A workload of that name that does not exist is a failure.
      - Exactly one of I(name) and I(label_selectors) is required (or I(workloads), in the modules that
        take it).
    type: str
  label_selectors:
    description:
      - Label selectors (for example C(app=web), C(tier in (front,back)), C(!canary)); a workload must
        match all of them. Every matching workload of I(kind) in I(namespace) is acted on.
      - A selection that matches nothing is not a failure (unless I(require_match=true)); the result
        then has C(workloads=[]) and C(changed=false), with a warning naming the selectors, the kinds
        and the namespace.
    type: list
    elements: str
  require_match:
    description:
      - Fail when I(label_selectors) matches no workload, instead of warning - for a selector that
        must select something (a typo in a label or the wrong namespace would otherwise pass
        unnoticed).
    type: bool
    default: false
  namespace:
    description:
      - Namespace of the workloads (after I(workload_namespace)).
      - Defaults to the namespace of the kubeconfig context (or of the in-cluster service account),
        else V(default).
    type: str
  workload_namespace:
    description:
      - Namespace of the workloads, before I(namespace). For roles - a role passes its own namespace
        variable here, so that when it is unset the play's C(module_defaults) still give I(namespace)
        (a task argument templated to C(omit) hides a module default).
    type: str
'''

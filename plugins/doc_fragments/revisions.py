# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    # The modules that write a workload's pod template and return the revision before and after it.
    DOCUMENTATION = r'''
options:
  read_revisions:
    description:
      - Also list the ControllerRevisions of a StatefulSet or DaemonSet to return C(revision_before) and
        C(revision_after) - one request more than C(kubectl) sends (a GET and a PATCH). Without it,
        those two are null for StatefulSets and DaemonSets, which record no revision number on the
        workload itself.
      - A Deployment always returns them, from its C(deployment.kubernetes.io/revision) annotation
        (from its ReplicaSets until the controller has observed its spec).
    type: bool
    default: false
'''

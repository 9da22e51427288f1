#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: rollout_status
short_description: Wait for (or report) the rollout of Deployments, StatefulSets and DaemonSets
version_added: 0.1.0
description:
  - Like C(kubectl rollout status) - reports whether the latest rollout has finished, with kubectl's
    rules and messages, and by default waits until it has.
  - Deployment - done when the controller has observed the latest spec and every replica is updated
    and available with no old replica left; fails at once when the C(Progressing) condition says
    C(ProgressDeadlineExceeded), and when the Deployment is paused (it would never finish).
  - StatefulSet - done when every replica is ready and the updated replicas reach
    C(replicas - partition). DaemonSet - done when every scheduled pod is updated and available.
    Both only with the C(RollingUpdate) update strategy, as in kubectl.
  - Waiting follows the workload with a watch (no polling); several workloads are waited for at
    the same time, so the task takes as long as the slowest one.
  - Never changes anything.
author:
  - kubeops.rollout contributors (!UNKNOWN)
options:
  wait:
    description:
      - Wait until the rollout has finished (or failed, or I(wait_timeout) passed).
      - With V(false), report the current status; only a failed rollout (progress deadline exceeded,
        unsupported strategy) fails the task then.
    type: bool
    default: true
  wait_timeout:
    description:
      - How long to wait, in seconds. The task fails when the rollout has not finished by then.
    type: int
    default: 300
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
  - kubeops.rollout.connection
  - kubeops.rollout.target
attributes:
  action:
    support: none
  async:
    support: full
  bypass_host_loop:
    support: none
  platform:
    platforms: posix
  check_mode:
    support: full
  diff_mode:
    support: none
notes:
  - "RBAC: C(get) (with I(name)) or C(list) (with I(label_selectors)) and C(watch) on the workload's
    resource (C(deployments), C(statefulsets) or C(daemonsets) in C(apps)). See C(docs/rbac.md)."
  - Runs the same in check mode (it only reads).
seealso:
  - module: kubeops.rollout.rollout_restart
  - module: kubeops.rollout.rollout_image
'''

EXAMPLES = r'''
- name: Wait up to 10 minutes for a Deployment to roll out
  kubeops.rollout.rollout_status:
    kind: Deployment
    name: web
    wait_timeout: 600

- name: Report without waiting
  kubeops.rollout.rollout_status:
    kind: StatefulSet
    name: db
    wait: false
  register: db_status

- name: Wait for every DaemonSet of the node agents at once
  kubeops.rollout.rollout_status:
    kind: DaemonSet
    namespace: kube-system
    label_selectors:
      - tier=node
'''

RETURN = r'''
workloads:
  description: One entry per workload (empty when I(label_selectors) matched nothing).
  returned: always
  type: list
  elements: dict
  contains:
    kind:
      description: Kind of the workload.
      type: str
      sample: Deployment
    name:
      description: Name of the workload.
      type: str
      sample: web
    namespace:
      description: Namespace of the workload.
      type: str
      sample: default
    changed:
      description: Always false.
      type: bool
    done:
      description: Whether the rollout has finished.
      type: bool
      sample: true
    message:
      description: kubectl's status message.
      type: str
      sample: deployment "web" successfully rolled out
    reason:
      description:
        - Why the rollout is (not) done - V(Complete), V(SpecNotObserved), V(UpdatingReplicas),
          V(OldReplicasPendingTermination), V(ReplicasUnavailable), V(PodsNotReady), V(RevisionPending),
          V(ProgressDeadlineExceeded), V(Paused), V(UnsupportedStrategy), V(Timeout) or V(Deleted).
      type: str
      sample: Complete
changed:
  description: Always false.
  returned: always
  type: bool
'''

from ansible_collections.kubeops.rollout.plugins.module_utils import verbs  # noqa: E402
from ansible_collections.kubeops.rollout.plugins.module_utils.module import RolloutModule  # noqa: E402


def main():
    module = RolloutModule(wait=True)
    module.run(verbs.status, status_inline=True)


if __name__ == '__main__':
    main()

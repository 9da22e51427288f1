#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: rollout_restart
short_description: Restart the pods of Deployments, StatefulSets and DaemonSets
version_added: 0.1.0
description:
  - Like C(kubectl rollout restart) - sets the pod template annotation
    C(kubectl.kubernetes.io/restartedAt) to the current time (RFC 3339) with a strategic merge patch,
    so the controller replaces every pod with its usual rollout strategy.
  - Always reports C(changed=true), like restarting a service.
  - A paused Deployment is refused with kubectl's message (resume it first).
author:
  - kubeops.rollout contributors (!UNKNOWN)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
  - kubeops.rollout.connection
  - kubeops.rollout.target
  - kubeops.rollout.wait
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
    support: full
    details: Shows the pod template before and after.
notes:
  - "RBAC: C(get) (with I(name)) or C(list) (with I(label_selectors)) and C(patch) on the workload's
    resource (C(deployments), C(statefulsets) or C(daemonsets) in C(apps)); C(watch) as well with
    I(wait=true). See C(docs/rbac.md)."
  - Check mode sends no write.
  - Two restarts within the same second would produce the same timestamp and restart nothing; the
    module then waits for the next second.
seealso:
  - module: kubeops.rollout.rollout_status
'''

EXAMPLES = r'''
- name: Restart a Deployment and wait until every pod is replaced
  kubeops.rollout.rollout_restart:
    kind: Deployment
    name: web
    wait: true

- name: Restart every StatefulSet of an application
  kubeops.rollout.rollout_restart:
    kind: StatefulSet
    namespace: shop
    label_selectors:
      - app.kubernetes.io/part-of=shop
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
      description: Always true.
      type: bool
    restarted_at:
      description: The value set in C(kubectl.kubernetes.io/restartedAt).
      type: str
      sample: '2026-01-02T03:04:05+01:00'
    status:
      description: The result of waiting (C(done), C(message), C(reason)).
      returned: when I(wait=true)
      type: dict
    diagnosis:
      description:
        - Why the rollout did not finish, read once the wait ended without success (progress
          deadline exceeded or timeout); the failure message has one line per cause.
        - About the pods of the revision being rolled out (the new ReplicaSet's, the StatefulSet's
          update revision's, the DaemonSet's newest revision's), read with at most three requests
          (the workload's ReplicaSets or ControllerRevisions, those pods, the namespace's Warning
          events).
      returned: when a waited-for rollout failed or timed out
      type: dict
      contains:
        kind:
          description: Kind of the workload.
          type: str
        namespace:
          description: Namespace of the workload.
          type: str
        name:
          description: Name of the workload.
          type: str
        revision:
          description:
            - The revision being rolled out (C(kind) V(ReplicaSet) or V(ControllerRevision), C(name),
              C(hash)); null when the controller has not created it.
          type: dict
        desired:
          description: Pods wanted at that revision now; null when unknown.
          type: int
        pods:
          description: Pods of that revision found (terminating pods not counted).
          type: int
        ready:
          description: Of those, how many are Ready.
          type: int
        causes:
          description:
            - One entry per distinct cause, most pods first, with C(reason) (e.g. V(ImagePullBackOff),
              V(CrashLoopBackOff), V(CreateContainerConfigError), V(Unschedulable), V(NotReady),
              V(FailedCreate)), C(category) (V(container), V(scheduling), V(readiness), V(pod),
              V(creation)), C(count) (pods affected; for V(creation), pods missing), C(pods) (up to
              5 names), C(message) and, when known, C(container), C(image), C(restarts) (highest),
              C(last_termination) (C(reason), C(exit_code)), C(not_ready_seconds) (longest).
          type: list
          elements: dict
        events:
          description:
            - The last few (at most 5) Warning events of the workload, its ReplicaSets and those pods,
              newest first, each with C(object), C(reason), C(message), C(count), C(last_seen).
          type: list
          elements: dict
        lines:
          description: One readable line per cause, as in the failure message.
          type: list
          elements: str
          sample:
            - 'Deployment shop/web: 3/3 new pods not ready: ImagePullBackOff
              (registry.example.com/shop/web:2.0-brokn: not found)'
        errors:
          description: What could not be read (the rest is still reported); empty when every read succeeded.
          type: list
          elements: str
changed:
  description: True when at least one workload was restarted.
  returned: always
  type: bool
diff:
  description: Per workload, the pod template before and after.
  returned: in diff mode
  type: list
  elements: dict
'''

from ansible_collections.kubeops.rollout.plugins.module_utils import verbs  # noqa: E402
from ansible_collections.kubeops.rollout.plugins.module_utils.module import RolloutModule  # noqa: E402


def main(runtime=None):
    module = RolloutModule(wait=False, runtime=runtime)
    module.run(lambda client, workload: verbs.restart(client, workload, module.module.check_mode),
               precheck=lambda workload: workload.check_restartable())


if __name__ == '__main__':
    main()

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
    C(replicas - partition). The partition counts from the set's first ordinal
    (C(spec.ordinals.start)), so it is the same rule whatever the pods are numbered from; with
    C(rollingUpdate.maxUnavailable) (Kubernetes 1.35 and later) the controller replaces that many pods
    at once and the rule does not change. DaemonSet - done when every scheduled pod is updated and available.
    Both only with the C(RollingUpdate) update strategy, as in kubectl.
  - Waiting follows the workload with a watch (no polling); several workloads are waited for at
    the same time, so the task takes as long as the slowest one.
  - "When the rollout fails or the wait times out, the failure message names why, one line per
    cause (such as C(3/3 new pods not ready: ImagePullBackOff)), from the pods of the revision being
    rolled out and the recent Warning events; C(diagnosis) has the details."
  - Never changes anything.
author:
  - kubeops.rollout contributors (!UNKNOWN)
options:
  wait:
    description:
      - Wait until the rollout has finished (or failed, or I(timeout) passed).
      - With V(false), report the current status; only a failed rollout (progress deadline exceeded,
        unsupported strategy) fails the task then. A paused Deployment is reported (C(reason=Paused))
        without failing; with V(true) it fails at once, as it could never finish.
    type: bool
    default: true
  timeout:
    description:
      - How long to wait, in seconds. The task fails when the rollout has not finished by then.
      - The same option as I(timeout) in M(kubeops.rollout.rollout_release); V(wait_timeout) is
        another name for it.
    type: int
    default: 300
    aliases: [wait_timeout]
  wait_for_terminating:
    description:
      - With I(wait=true), a Deployment is done only once its old pods are gone too - while its
        C(status.terminatingReplicas) (Kubernetes 1.35 and later) counts pods being deleted, the wait
        goes on (reason V(Terminating)). C(kubectl rollout status) does not wait for them (the
        default, V(false)).
      - An API server that does not report the field is taken at its word. StatefulSets and
        DaemonSets are not affected.
    type: bool
    default: false
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
  - kubeops.rollout.attributes
  - kubeops.rollout.connection
  - kubeops.rollout.option_names
  - kubeops.rollout.gates
  - kubeops.rollout.analysis
  - kubeops.rollout.target
  - kubeops.rollout.workloads
attributes:
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
    timeout: 600

- name: Wait until the old pods of a Deployment are gone too (status.terminatingReplicas)
  kubeops.rollout.rollout_status:
    kind: Deployment
    name: web
    wait_for_terminating: true

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

- name: Wait for every Deployment and StatefulSet of the shop (kubectl rollout status deploy,sts -l ...)
  kubeops.rollout.rollout_status:
    kind: deploy,sts
    namespace: shop
    label_selectors:
      - app.kubernetes.io/part-of=shop

- name: Connect with several kubeconfig files merged as kubectl merges KUBECONFIG (first one wins)
  kubeops.rollout.rollout_status:
    kind: Deployment
    name: web
  environment:
    K8S_AUTH_KUBECONFIG: "{{ lookup('env', 'HOME') }}/.kube/config:{{ lookup('env', 'HOME') }}/.kube/staging"

- name: Wait for the shop's workloads, failing if the selector matches none (a typo, a wrong namespace)
  kubeops.rollout.rollout_status:
    namespace: shop
    label_selectors:
      - app.kubernetes.io/part-of=shop
    require_match: true

- name: Wait for several workloads at once, each named (kubectl rollout status deploy/cart sts/orders)
  kubeops.rollout.rollout_status:
    namespace: shop
    workloads:
      - {kind: Deployment, name: cart}
      - {kind: StatefulSet, name: orders}
      - {kind: DaemonSet, name: node-exporter, namespace: kube-system}
  register: rollouts
  ignore_errors: true

- name: List the rollouts that did not complete
  ansible.builtin.debug:
    msg: "{{ rollouts.outcome.failed | map(attribute='msg') | list }}"

- name: Report every Deployment, StatefulSet and DaemonSet of the shop (kind omitted - all three)
  kubeops.rollout.rollout_status:
    namespace: shop
    label_selectors:
      - app.kubernetes.io/part-of=shop
    wait: false
'''

RETURN = r'''
# shared: analysis
analysis:
  description:
    - What the I(analysis) checks measured (the last 10 measurements of each check); with no credentials.
  returned: when I(analysis) was given and measured
  type: dict
  contains:
    # shared: analysis_measurements
    passed:
      description: Whether every check stayed within its I(failure_limit).
      type: bool
    measured:
      description: How many times the checks were measured.
      type: int
    failure_limit:
      description: The I(failure_limit) applied.
      type: int
    inconclusive:
      description: What a measurement without data counted as.
      type: str
    message:
      description: Why the gate failed (the check, the value and the bound), or null.
      type: str
    checks:
      description: One entry per check - C(name), C(type), C(url), the query and bounds or the expected
        statuses (a C(job) check - C(namespace), C(timeout) and C(jobs), the names of the last Jobs it
        created), C(failures), and C(measurements) (C(outcome) passed, failed, inconclusive, error or
        skipped (check mode, not measured), C(value) (a C(job) check's - its Job's name), C(message),
        C(at) in epoch seconds).
      type: list
      elements: dict
    # end: analysis_measurements
  sample:
    passed: false
    measured: 2
    failure_limit: 0
    inconclusive: fail
    message: 'analysis failed: check "error-rate": value 2.5 is out of bounds (max 0.5) (1 failed measurement,
      failure_limit 0)'
    checks:
      - name: error-rate
        type: prometheus
        url: http://prometheus.monitoring:9090
        query: sum(rate(http_requests_total{app="web",code=~"5.."}[1m]))
        min: null
        max: 0.5
        failures: 1
        measurements:
          - {outcome: passed, value: 0.0, message: 'check "error-rate": value 0 within bounds (max 0.5)',
             at: 1795000000.0}
          - {outcome: failed, value: 2.5, message: 'check "error-rate": value 2.5 is out of bounds (max 0.5)',
             at: 1795000005.0}
# end: analysis
workloads:
  description: One entry per workload, kind by kind in the order of I(kind) (empty when
    I(label_selectors) matched nothing).
  returned: always
  type: list
  elements: dict
  contains:
    # shared: workload_identity
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
    # end: workload_identity
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
    replicas:
      description:
        - Replicas wanted - C(spec.replicas) for a Deployment or StatefulSet, the nodes that should run
          a pod (C(status.desiredNumberScheduled)) for a DaemonSet.
        - This and the three counts below are from the last state of the workload that was looked at
          (absent when the workload was deleted while waiting).
      type: int
      sample: 3
    updated:
      description: Replicas (pods) of the latest revision.
      type: int
      sample: 3
    ready:
      description: Ready replicas (pods).
      type: int
      sample: 3
    available:
      description: Available replicas (pods) - ready for at least C(minReadySeconds).
      type: int
      sample: 3
    # shared: diagnosis
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
    # end: diagnosis
outcome:
  description:
    - What happened to each workload, for a caller that reports on many (the collection's roles keep
      it as their result fact).
  returned: always, once the workloads were read
  type: dict
  contains:
    done:
      description:
        - The workloads the task completed (rolled out; with I(wait=false), every workload read), each with
          C(kind), C(name), C(namespace), C(workload) (C(Deployment shop/web)) and C(changed).
      type: list
      elements: dict
    failed:
      description:
        - The workloads that failed (the rollout failed or did not finish in time, or the workload of an entry
          does not exist), each with C(kind), C(name), C(namespace), C(workload),
          C(msg) (the failure, naming the workload), C(message) (the same without the name), C(reason)
          (the rollout status reason, such as V(ProgressDeadlineExceeded) or V(Timeout), else null),
          C(causes) (one line per cause when the rollout was diagnosed, else empty) and C(diagnosis)
          (as in C(workloads), else null).
      type: list
      elements: dict
    not_reached:
      description: Always empty (the rollouts are waited for together).
      type: list
      elements: dict
    lines:
      description: A readable summary, one line per workload, then one C(FAILED ...) line per failure.
      type: list
      elements: str
failures:
  description:
    - With I(workloads), the entries naming a workload that does not exist, each with C(kind), C(name),
      C(namespace) and C(msg); the other workloads are still waited for, and the task fails.
  returned: when an entry of I(workloads) names a missing workload
  type: list
  elements: dict
  sample: [{"kind": "Deployment", "name": "cart", "namespace": "shop",
            "msg": "Deployment shop/cart not found"}]
changed:
  description: Always false.
  returned: always
  type: bool
'''

from ansible_collections.kubeops.rollout.plugins.module_utils.usecases import verbs  # noqa: E402
from ansible_collections.kubeops.rollout.plugins.module_utils.adapter.rollout_module import (  # noqa: E402
    RolloutModule,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.wait_options import (  # noqa: E402
    ANALYSIS_ARG_SPEC,
)


def _analysis():
    # Imported for a task with analysis checks only; named here, so this module's payload holds it.
    from ansible_collections.kubeops.rollout.plugins.module_utils.gates import analysis
    return analysis


def main(runtime=None):
    module = RolloutModule(argument_spec=ANALYSIS_ARG_SPEC, wait=True, runtime=runtime, entry_options={},
                           analysis=_analysis)
    # each_alone: an entry of workloads naming a missing workload is reported (failures, outcome) and
    # the others are still waited for.
    module.run(verbs.status, status_inline=True, each_alone=True, report=True)


if __name__ == '__main__':
    main()

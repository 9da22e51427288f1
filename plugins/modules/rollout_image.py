#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: rollout_image
short_description: Set container images of Deployments, StatefulSets and DaemonSets
version_added: 0.1.0
description:
  - Like C(kubectl set image) - a strategic merge patch of container images (merged by container
    name, so nothing else in the pod template is touched), starting a rollout.
  - Optionally records why in the workload's C(kubernetes.io/change-cause) annotation in the same
    request; the controller copies it to the new revision, where M(kubeops.rollout.rollout_history)
    shows it.
  - Idempotent - when every image (and the change-cause and partition, if given) is already as
    requested, nothing is sent and C(changed=false).
  - For a StatefulSet, I(partition) sets C(spec.updateStrategy.rollingUpdate.partition) in the same
    request, so a canary (only the highest C(replicas - partition) pods take the new template) starts
    without a moment in which every pod would be updated.
author:
  - kubeops.rollout contributors (!UNKNOWN)
options:
  images:
    description:
      - Container name to image. Init containers are included.
      - V(*) sets every container and init container, as C(kubectl set image '*=IMAGE') does; a
        container also named explicitly gets its own image.
      - A name that matches no container is a failure naming the containers that exist.
      - An image that is null, empty or has leading or trailing blanks is a failure before any
        request, in check mode too.
      - Required unless I(partition) is given; with only I(partition), the images stay as they are
        (for example to release a canary with I(partition=0)).
    type: dict
  change_cause:
    description:
      - Written to the workload's C(kubernetes.io/change-cause) annotation together with the images.
      - Omitted or empty (V("")), the annotation is left as it is - an empty value is taken as unset
        so that a templated C("{{ cause | default('') }}") never writes an empty change-cause.
    type: str
  partition:
    description:
      - StatefulSets only - the rolling update partition, C(spec.updateStrategy.rollingUpdate.partition),
        set in the same patch as the images. Only pods with an ordinal >= I(partition) are updated;
        with 3 replicas, V(2) updates the highest ordinal only (a canary) and V(0) updates them all.
      - The partition counts from the set's first ordinal - with C(spec.ordinals.start) (Kubernetes
        1.27 and later; the pods are numbered C(start) to C(start + replicas - 1)) the pods updated are
        those with C(ordinal - start >= partition), as the StatefulSet controller does. So V(2) is the
        highest pod of 3 replicas whatever C(start) is - C(db-5) when C(start) is 3, not C(db-2).
      - With I(wait=true), waiting ends when the pods at or above the partition are updated and
        every pod is ready (C(kubectl rollout status)'s partitioned rule).
      - A Deployment or DaemonSet, or a StatefulSet with the C(OnDelete) update strategy, is refused.
      - Unset (default) leaves the partition as it is.
      - At most 2147483647 (the API server keeps it as an int32).
    type: int
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
  - kubeops.rollout.attributes
  - kubeops.rollout.connection
  - kubeops.rollout.option_names
  - kubeops.rollout.gates
  - kubeops.rollout.revisions
  - kubeops.rollout.target
  - kubeops.rollout.wait
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
    details: Shows C(metadata.annotations), C(spec.template) (and, with I(partition), the partition)
      before and after.
notes:
  - "RBAC: C(get) (with I(name)) or C(list) (with I(label_selectors)) and C(patch) on the workload's
    resource (C(deployments), C(statefulsets) or C(daemonsets) in C(apps)); C(watch) as well with
    I(wait=true). See C(docs/rbac.md)."
  - Check mode sends the same change with C(dryRun=All), so the API server validates it and nothing
    is stored; C(changed), the diff and any refusal are what a real run would report. Credentials that
    may not write get a 403 for the dry run - the result is then computed locally and a warning says so.
seealso:
  - module: kubeops.rollout.rollout_status
  - module: kubeops.rollout.rollout_undo
'''

EXAMPLES = r'''
- name: Update the web container and wait for the rollout
  kubeops.rollout.rollout_image:
    kind: Deployment
    name: web
    images:
      web: registry.example.com/web:2.4.1
    change_cause: release 2.4.1
    wait: true

# The partition counts from spec.ordinals.start: with start 3 (pods db-3, db-4, db-5) this updates db-5.
- name: Canary - update only the highest ordinal of a 3-replica StatefulSet (db-2), and wait for it
  kubeops.rollout.rollout_image:
    kind: StatefulSet
    name: db
    images:
      db: registry.example.com/db:16.4
    partition: 2
    wait: true

- name: Release the canary - let every pod of the StatefulSet update
  kubeops.rollout.rollout_image:
    kind: StatefulSet
    name: db
    partition: 0
    wait: true

- name: Update a StatefulSet and report its revision numbers (one more request, to list its revisions)
  kubeops.rollout.rollout_image:
    kind: StatefulSet
    name: db
    images:
      db: registry.example.com/db:16.5
    read_revisions: true
  register: db_image

- name: Keep the rollback point
  ansible.builtin.set_fact:
    db_rollback_to: "{{ db_image.workloads[0].revision_before }}"

- name: Same image for every container of a DaemonSet
  kubeops.rollout.rollout_image:
    kind: DaemonSet
    name: node-agent
    images:
      '*': registry.example.com/agent:7
'''

RETURN = r'''
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
      description: Whether an image or the change-cause was changed.
      type: bool
    images:
      description: Image of every container after the task, init containers included.
      type: dict
      sample: {"web": "registry.example.com/web:2.4.1"}
    previous_images:
      description: Image of every container before the task.
      type: dict
      sample: {"web": "registry.example.com/web:2.4.0"}
    init_containers:
      description: Which of the names in C(images) are init containers.
      type: list
      elements: str
      sample: []
    partition:
      description: The StatefulSet's rolling update partition after the task.
      returned: when I(partition) is given
      type: int
      sample: 2
    # shared: revision_before
    revision_before:
      description:
        - The revision current before the task (null when the controller has recorded none yet).
        - Null for a StatefulSet or DaemonSet unless I(read_revisions=true).
      type: int
      sample: 4
    # end: revision_before
    revision_after:
      description:
        - The revision of the new template - the highest revision + 1, as the controller numbers it
          when it records the change (shortly after, or when a paused Deployment is resumed) - or
          C(revision_before) when no image changed. A rollback point for M(kubeops.rollout.rollout_undo)
          is C(revision_before).
        - Null for a StatefulSet or DaemonSet unless I(read_revisions=true).
      type: int
      sample: 5
    status:
      description: The result of waiting (C(done), C(message), C(reason)).
      returned: when I(wait=true)
      type: dict
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
changed:
  description: Whether any workload changed.
  returned: always
  type: bool
diff:
  description:
    - Per changed workload, C(metadata.annotations) (where the change-cause is) and C(spec.template)
      (and C(spec.updateStrategy.rollingUpdate.partition) with I(partition)) before and after; always
      this shape.
  returned: in diff mode
  type: list
  elements: dict
# shared: next_step_refused
next_step:
  description:
    - When a workload was refused because it carries the record of a release that has not ended
      (or a record that is not one), the one step the message names, as data.
    - "C(wait): the release's runner lives (wait for it to end, then run the task again);
      C(kubeops.rollout.rollout_release recover: rollback): finish that release first
      (C(recover: resume) keeps it instead); a C(kubectl annotate ...) command: remove a record
      that is not acted on, after checking the workload."
  returned: when such a refusal failed the task
  type: str
  sample: wait
# end: next_step_refused
'''

from ansible_collections.kubeops.rollout.plugins.module_utils.usecases import verbs  # noqa: E402
from ansible_collections.kubeops.rollout.plugins.module_utils.adapter.rollout_module import (  # noqa: E402
    RolloutModule,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.common.validation import (  # noqa: E402
    image_problems,
)


def main(runtime=None):
    module = RolloutModule({'images': {'type': 'dict'}, 'change_cause': {'type': 'str'},
                            'partition': {'type': 'int'},
                            'read_revisions': {'type': 'bool', 'default': False}},
                           wait=False, required_one_of=[('images', 'partition')], runtime=runtime)
    problems = image_problems(module.params['images'] or {})
    if problems:
        module.fail('images: %s. Give every container an image, e.g. images: {app: "nginx:1.27"}'
                    % '; '.join(problems))
    images = {str(k): str(v) for k, v in (module.params['images'] or {}).items()}
    partition = module.params['partition']
    if not images and partition is None:
        module.fail('images must name at least one container (or "*")')
    if partition is not None and partition < 0:
        module.fail('partition must be 0 or more (got %d)' % partition)
    change_cause = module.params['change_cause']
    check_mode = module.module.check_mode
    read_revisions = module.params['read_revisions']
    module.run(lambda client, workload: verbs.image(client, workload, images, change_cause, check_mode,
                                                    partition=partition, read_revisions=read_revisions),
               precheck=lambda workload: verbs.check_image(workload, images, module.params['wait'],
                                                           partition))


if __name__ == '__main__':
    main()

#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: rollout_history
short_description: Show the rollout history of Deployments, StatefulSets and DaemonSets
version_added: 0.1.0
description:
  - The revisions of a workload, like C(kubectl rollout history), as data.
  - A Deployment's revisions are the ReplicaSets it controls; a StatefulSet's or DaemonSet's are the
    ControllerRevisions it controls (owner reference with C(controller=true), not mere label matches).
  - With I(compare_to), also what differs between two pod templates, as a unified diff of their
    YAML - for example between the current template and the revision an undo would restore.
  - Never changes anything.
author:
  - kubeops.rollout contributors (!UNKNOWN)
options:
  revision:
    description:
      - Also return this revision's pod template (C(kubectl rollout history --revision)).
      - A revision that is not in the history is a failure listing the existing ones.
      - With I(compare_to), the side compared to it (the "after" of the diff); without it, that side
        is the current template.
    type: int
  compare_to:
    description:
      - Compare a pod template to this one - a revision number, V(current) for the workload's
        template now, or V(previous) for the revision before I(revision) (without I(revision), the
        revision before the current one - "what changed in the last release"). Returns
        C(template_diff), the changes from I(compare_to) to I(revision) (default the current
        template), and, in diff mode, the two templates as C(diff).
      - V(previous) is the highest revision number below the other side's (history 1, 3, 4 - before
        4 is 3); the oldest revision has none, which is a failure. While the current template is in
        no revision yet (the controller has not recorded it), V(previous) is the newest revision.
      - "O(revision=N) with O(compare_to=current) shows exactly what an undo to revision N would change
        (the same before/after as M(kubeops.rollout.rollout_undo) in check and diff mode)."
      - The templates are compared without the labels controllers add (C(pod-template-hash),
        C(controller-revision-hash)) and without null or empty fields.
    type: raw
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
  - kubeops.rollout.attributes
  - kubeops.rollout.connection
  - kubeops.rollout.option_names
  - kubeops.rollout.target
  - kubeops.rollout.workloads
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
    details:
      - With I(compare_to), the two templates as before/after. The task never changes anything, and
        the default callback prints diffs of changed tasks only - read C(diff) or C(template_diff)
        from the registered result.
notes:
  - "RBAC: C(get) and C(list) on the workload's resource (C(deployments), C(statefulsets) or
    C(daemonsets) in C(apps)), and C(list) on C(replicasets) (Deployments) or C(controllerrevisions)
    (StatefulSets, DaemonSets). See C(docs/rbac.md)."
  - API requests per workload with I(name) - one GET and one LIST.
seealso:
  - module: kubeops.rollout.rollout_undo
'''

EXAMPLES = r'''
- name: Show the history of a Deployment
  kubeops.rollout.rollout_history:
    kind: Deployment
    name: web
    namespace: shop
  register: history

- name: Print revision numbers with their change-cause
  ansible.builtin.debug:
    msg: "{{ item.revision }}: {{ item.change_cause | default('<none>', true) }}"
  loop: "{{ history.workloads[0].revisions }}"

- name: Pod template of revision 2 of a StatefulSet
  kubeops.rollout.rollout_history:
    kind: StatefulSet
    name: db
    revision: 2
  register: rev2

- name: What would an undo to revision 2 change?
  kubeops.rollout.rollout_history:
    kind: Deployment
    name: web
    revision: 2
    compare_to: current
  register: preview

- name: Show it as a unified diff
  ansible.builtin.debug:
    msg: "{{ preview.workloads[0].template_diff.splitlines() }}"

- name: What changed in the last release (the revision before the current one, to the current template)
  kubeops.rollout.rollout_history:
    kind: Deployment
    name: web
    compare_to: previous
  register: last_release

- name: Show it
  ansible.builtin.debug:
    msg: "{{ last_release.workloads[0].template_diff.splitlines() }}"

- name: What revision 2 changed from revision 1 (the one before it)
  kubeops.rollout.rollout_history:
    kind: Deployment
    name: web
    revision: 2
    compare_to: previous

- name: What changed from revision 3 to the current template
  kubeops.rollout.rollout_history:
    kind: StatefulSet
    name: db
    compare_to: 3

- name: History of a Deployment and a StatefulSet in one task
  kubeops.rollout.rollout_history:
    workloads:
      - {kind: Deployment, name: web}
      - {kind: StatefulSet, name: db}

- name: History of every DaemonSet labelled tier=node
  kubeops.rollout.rollout_history:
    kind: DaemonSet
    label_selectors:
      - tier=node

- name: History of every workload of the shop, whatever its kind
  kubeops.rollout.rollout_history:
    namespace: shop
    label_selectors:
      - app.kubernetes.io/part-of=shop
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
      description: Always false.
      type: bool
      sample: false
    current_revision:
      description:
        - The revision whose pod template is the workload's current one.
        - Null when the controller has not recorded it yet.
      type: int
      sample: 3
    revisions:
      description: The revisions, oldest first.
      type: list
      elements: dict
      contains:
        revision:
          description: Revision number.
          type: int
          sample: 3
        change_cause:
          description: The C(kubernetes.io/change-cause) annotation of the revision, or null.
          type: str
          sample: image updated to nginx:1.27
        name:
          description: Name of the ReplicaSet or ControllerRevision.
          type: str
          sample: web-5d4f8c7b9
        created:
          description: Creation time of the ReplicaSet or ControllerRevision.
          type: str
          sample: '2026-01-02T03:04:05Z'
        images:
          description: Image of every container of the revision, init containers included.
          type: dict
          sample: {"nginx": "nginx:1.27", "migrate": "app:2"}
        init_containers:
          description: Which of the names in C(images) are init containers.
          type: list
          elements: str
          sample: ["migrate"]
        replicas:
          description: Desired replicas of the ReplicaSet (Deployments only).
          type: int
          sample: 3
        current:
          description: Whether this is the current revision.
          type: bool
          sample: true
    replicas:
      description: The workload's desired replicas (C(spec.replicas)); null for a DaemonSet.
      type: int
      sample: 3
    partition:
      description:
        - A StatefulSet's rolling update partition (C(spec.updateStrategy.rollingUpdate.partition));
          null for the other kinds and for the C(OnDelete) update strategy.
      type: int
      sample: 0
    template:
      description: The pod template of I(revision) (without the C(pod-template-hash) label).
      returned: when I(revision) is given
      type: dict
    template_diff:
      description:
        - Unified diff of the two pod templates as YAML, from I(compare_to) to I(revision) (or the
          current template); empty when they are equal.
      returned: when I(compare_to) is given
      type: str
      sample: "--- revision 3\n+++ revision 2\n@@ -3 +3 @@\n-  image: web:2.5\n+  image: web:2.4\n"
    compare:
      description: What was compared - C(from) and C(to) (labels as in the diff headers) and C(equal).
      returned: when I(compare_to) is given
      type: dict
      sample: {"from": "current template (revision 3)", "to": "revision 2", "equal": false}
changed:
  description: Always false.
  returned: always
  type: bool
diff:
  description:
    - Per workload, the template of I(compare_to) (before) and of I(revision) or the current one (after).
  returned: in diff mode, when I(compare_to) is given
  type: list
  elements: dict
'''

from ansible_collections.kubeops.rollout.plugins.module_utils.usecases import verbs  # noqa: E402
from ansible_collections.kubeops.rollout.plugins.module_utils.adapter.rollout_module import (  # noqa: E402
    RolloutModule,
)


def main(runtime=None):
    module = RolloutModule({'revision': {'type': 'int'}, 'compare_to': {'type': 'raw'}},
                           runtime=runtime, entry_options={})
    revision = module.params['revision']
    compare_to = _revision_or_current(module, module.params['compare_to'])
    module.run(lambda client, workload: verbs.history(client, workload, revision, compare_to))


def _revision_or_current(module, value):
    if value is None or value in (verbs.CURRENT, verbs.PREVIOUS):
        return value
    try:
        number = int(str(value).strip())
    except ValueError:
        number = 0
    if number < 1:
        module.fail('compare_to must be a revision number (1 or more), "%s" or "%s", not "%s"'
                    % (verbs.CURRENT, verbs.PREVIOUS, value))
    return number


if __name__ == '__main__':
    main()

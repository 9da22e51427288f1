#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: rollout_undo
short_description: Roll back Deployments, StatefulSets and DaemonSets to an earlier revision
version_added: 0.1.0
description:
  - Like C(kubectl rollout undo) - restores the pod template of an earlier revision.
  - Deployment - a JSON patch replacing C(spec.template) with the ReplicaSet's template (without
    C(pod-template-hash)) and C(metadata.annotations) with the ReplicaSet's annotations (keeping the
    Deployment's own C(deployment.kubernetes.io/*), C(last-applied-configuration) and rollback
    annotations).
  - StatefulSet, DaemonSet - a JSON patch replacing C(spec.template) with the ControllerRevision's
    template (the object ends as the strategic merge of the revision's data leaves it) and setting
    its C(kubernetes.io/change-cause) (the controller copied the workload's annotations into the
    revision when it created it; an undo puts the change-cause back, or removes it when the revision
    has none, as a Deployment undo does from the ReplicaSet). Other annotations are left as they
    are - the revision's copy is a snapshot of the workload's annotations at that time, not part of
    the template.
  - Every kind's patch is guarded by what the undo was decided from - C(test) operations on
    C(metadata.generation) (which any change of the spec bumps) and on the annotations it replaces
    (a Deployment's whole map, a StatefulSet's or DaemonSet's change-cause; the
    C(metadata.resourceVersion) when there were none to test) - so a concurrent change of those is
    never overwritten (the undo is then decided again from a fresh read, up to 5 times), while the
    controllers' status writes during a rollout do not make it start over.
  - If the current template already equals the target revision's, nothing is changed and the
    message is kubectl's C(skipped rollback (current template already matches revision N)).
  - A paused Deployment is refused, as kubectl does. With I(wait=true), a StatefulSet or DaemonSet
    with the C(OnDelete) strategy is refused before anything is changed (its rollout status cannot
    be followed).
  - With several workloads (I(label_selectors)), as C(kubectl rollout undo -l) does, every workload
    that can be rolled back is, and then the task fails listing each one that could not and why (a
    paused Deployment, no earlier revision, an unknown I(to_revision), an API error) - in the message
    and in C(failures). Check mode reports the same.
  - With I(replace_stuck_pods), the forced rollback of a StatefulSet (see the option).
author:
  - kubeops.rollout contributors (!UNKNOWN)
options:
  to_revision:
    description:
      - The revision to roll back to.
      - V(0) or omitted means the previous revision as kubectl picks it - the highest revision below
        the newest one (with history 1, 3, 4 that is 3, not 2).
      - A revision that is not in the history is a failure listing the existing revisions; a
        negative number is a failure before any request.
      - Rolling back renumbers the target revision as the newest (history 1, 2, 3 becomes 1, 3, 4 after
        an undo to 2). A Deployment remembers the old number, so running the same task again reports
        C(changed=false) instead of failing as C(kubectl rollout undo --to-revision=2) would.
        StatefulSets and DaemonSets keep no such record; there a repeated run fails with the
        revisions that exist.
    type: int
    default: 0
  workloads:
    description:
      - Several targets in one task, like C(kubectl rollout undo deploy/a sts/b) - each entry names one
        workload (I(kind) and I(name)) or selects some (I(label_selectors), with one or more kinds,
        every rollout kind when it gives none), with its own I(to_revision). Exclusive with I(name)
        and I(label_selectors).
      - Every entry is checked before any request (kind, name, selectors, namespace, revision);
        entries that cannot be read fail the task, each named as C(workloads[i] (name)). All entries
        are resolved before the first write; as for several workloads selected by labels, a
        workload that is refused or does not exist does not stop the others, and the task fails at
        the end listing each (C(failures)).
      - I(kind), the namespace (I(workload_namespace), else I(namespace)) and I(to_revision) are those
        of the entries that give none (an empty namespace counts as none). A workload listed by
        several entries is rolled back once (entries that disagree on its revision fail the task).
    type: list
    elements: dict
    suboptions:
      kind:
        description:
          - Kind of the workload, or kinds with I(label_selectors), in any of C(kubectl)'s spellings.
            Default the task's I(kind).
        type: list
        elements: str
      name:
        description: Name of the workload. Exclusive with I(label_selectors); one of the two is required.
        type: str
      label_selectors:
        description: Label selectors (all must match).
        type: list
        elements: str
      namespace:
        description: Namespace of the entry. Default the task's I(workload_namespace), else I(namespace).
        type: str
      to_revision:
        description: The revision to roll back to (V(0), the previous one). Default the task's I(to_revision).
        type: int
  replace_stuck_pods:
    description:
      - StatefulSets only (ignored for other kinds) - the "forced rollback" of the Kubernetes
        StatefulSet documentation. With the C(OrderedReady) pod management policy, a pod stuck on a
        broken revision is never replaced by the controller after the template is put back; this
        option replaces it.
      - After the undo (or when the template already matches, so that a re-run repairs a rollback
        that got stuck), once the controller has adopted the restored revision, every pod on another
        revision that is not Ready or whose container waits in an image or crash back-off is deleted,
        one at a time, lowest ordinal first (the order in which the controller creates pods); each
        replacement must be Ready before the next pod is deleted, within I(timeout).
      - A pod of the restored revision is never deleted, Ready or not. A deletion is guarded by the
        pod's uid and resourceVersion, so a pod that changed since it was read is judged again.
      - Check mode lists the pods that would be deleted (C(replaced_pods)) and deletes none.
      - Needs C(list) and C(delete) on C(pods) (and C(get) while a replacement starts).
    type: bool
    default: false
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
  - kubeops.rollout.attributes
  - kubeops.rollout.connection
  - kubeops.rollout.option_names
  - kubeops.rollout.gates
  - kubeops.rollout.target
  - kubeops.rollout.wait
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
    details: Shows C(metadata.annotations) and C(spec.template) before and after.
notes:
  - "RBAC: C(get) (with I(name)) or C(list) (with I(label_selectors)) and C(patch) on the workload's
    resource (C(deployments), C(statefulsets) or C(daemonsets) in C(apps)); C(list) on C(replicasets)
    (Deployments) or C(controllerrevisions) (StatefulSets, DaemonSets); C(watch) with I(wait=true).
    See C(docs/rbac.md)."
  - Check mode sends the same change with C(dryRun=All), so the API server validates it and nothing
    is stored; C(changed), the diff and any refusal are what a real run would report. Credentials that
    may not write get a 403 for the dry run - the result is then computed locally and a warning says so.
  - An undo makes the restored template the newest revision again - its ReplicaSet or
    ControllerRevision gets the next revision number (history 1, 2, 3 undone to 2 becomes 1, 3, 4).
  - "Running the same task twice - for a Deployment with an explicit I(to_revision), the second run
    reports C(changed=false); for a StatefulSet or DaemonSet with an explicit I(to_revision), the
    second run fails (the revision was renumbered, see I(to_revision)); for any kind with the default
    (previous revision), each run flips between the last two revisions, as C(kubectl rollout undo) does."
  - I(kind) accepts C(kubectl)'s spellings (for example V(sts)).
seealso:
  - module: kubeops.rollout.rollout_history
'''

EXAMPLES = r'''
- name: Roll a Deployment back to its previous revision and wait for it
  kubeops.rollout.rollout_undo:
    kind: Deployment
    name: web
    wait: true

- name: Roll back a Deployment to revision 1 and a DaemonSet to its previous revision, both waited for
  kubeops.rollout.rollout_undo:
    namespace: shop
    workloads:
      - {kind: Deployment, name: cart, to_revision: 1}
      - {kind: ds, name: agent}
    wait: true

- name: Roll a Deployment back to revision 1 (a second run changes nothing)
  kubeops.rollout.rollout_undo:
    kind: Deployment
    name: web
    to_revision: 1

- name: Roll back every workload of the shop (one that cannot be fails the task, listed in failures)
  kubeops.rollout.rollout_undo:
    namespace: shop
    label_selectors:
      - app.kubernetes.io/part-of=shop

- name: Put back a StatefulSet whose upgrade is stuck on a broken image, replacing the stuck pod
  kubeops.rollout.rollout_undo:
    kind: sts
    name: db
    replace_stuck_pods: true
    wait: true
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
      description: Whether the template was rolled back.
      type: bool
    from_revision:
      description: The revision that was current before the task.
      type: int
      sample: 4
    to_revision:
      description: The revision whose template was restored (its number before the undo renumbered it).
      type: int
      sample: 3
    revision_before:
      description: The revision current before the task (same as C(from_revision)).
      type: int
      sample: 4
    revision_after:
      description:
        - The revision number of the template after the task - the restored revision renumbered as
          the newest (the highest + 1, which the controller gives it), or C(to_revision) when nothing changed.
      type: int
      sample: 5
    replaced_pods:
      description:
        - StatefulSets with I(replace_stuck_pods) - the pods deleted (in check mode, that would be deleted)
          because they were stuck on another revision, in the order they were deleted.
      returned: when I(replace_stuck_pods=true) and the workload is a StatefulSet
      type: list
      elements: str
      sample: [db-2]
    message:
      description:
        - C(rolled back), or kubectl's C(skipped rollback (current template already matches revision N)).

      type: str
      sample: rolled back
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
outcome:
  description:
    - What happened to each workload, for a caller that reports on many (the collection's roles keep
      it as their result fact).
  returned: always, once the workloads were read
  type: dict
  contains:
    done:
      description:
        - The workloads the task completed (rolled back, or already on the revision asked for; rolled out
          when waited for), each with C(kind), C(name), C(namespace), C(workload) (C(Deployment shop/web))
          and C(changed).
      type: list
      elements: dict
    failed:
      description:
        - The workloads that failed (refused, not found, or the rollback did not roll out), each with C(kind),
          C(name), C(namespace), C(workload),
          C(msg) (the failure, naming the workload), C(message) (the same without the name), C(reason)
          (the rollout status reason, such as V(ProgressDeadlineExceeded) or V(Timeout), else null),
          C(causes) (one line per cause when the rollout was diagnosed, else empty) and C(diagnosis)
          (as in C(workloads), else null).
      type: list
      elements: dict
    not_reached:
      description: Always empty (every workload is tried).
      type: list
      elements: dict
    lines:
      description:
        - "A readable summary, one line per workload (C(Deployment shop/web: rolled back (revision 4 -> 2)),
          C(would be rolled back) in check mode), then one C(FAILED ...) line per failure."
      type: list
      elements: str
failures:
  description:
    - The workloads that could not be rolled back (the others were), each with C(kind), C(name),
      C(namespace) and C(msg), the reason; the task then fails with the same reasons in its message.
  returned: when a workload could not be rolled back
  type: list
  elements: dict
  sample: [{"kind": "Deployment", "name": "cart", "namespace": "shop",
            "msg": "Deployment shop/cart: no rollout history found for deployment \"cart\""}]
changed:
  description: Whether any workload was rolled back.
  returned: always
  type: bool
diff:
  description:
    - Per changed workload, C(metadata.annotations) and C(spec.template) before and after (the same
      shape for every kind).
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


def summarize(check_mode):
    """One line per workload rolled back or left alone: ``Kind ns/name: rolled back (revision 4 -> 2)``."""
    def add(outcome, entries):
        lines = []
        for done in outcome['done']:
            entry = entries[done['workload']]
            lines.append('%s: %s%s (revision %s -> %s)' % (
                done['workload'], 'would be ' if check_mode and done['changed'] else '', entry.get('message'),
                entry.get('from_revision'), entry.get('to_revision')))
        outcome['lines'] = lines
    return add


def main(runtime=None):
    module = RolloutModule({'to_revision': {'type': 'int', 'default': 0},
                            'replace_stuck_pods': {'type': 'bool', 'default': False}},
                           wait=False, runtime=runtime, entry_options={'to_revision': {'type': 'int'}})
    params, check_mode = module.params, module.module.check_mode

    def undo(client, workload):
        return verbs.undo(client, workload, module.option(workload, 'to_revision'), check_mode,
                          params['replace_stuck_pods'], params['timeout'])

    def precheck(workload):
        verbs.check_undo(module.client, workload, module.option(workload, 'to_revision'), params['wait'])

    module.run(undo, precheck=precheck, each_alone=True, summarize=summarize(check_mode))


if __name__ == '__main__':
    main()

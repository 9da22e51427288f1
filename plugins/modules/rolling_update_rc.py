#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: rolling_update_rc
short_description: Rolling update of a ReplicationController, as the removed kubectl rolling-update did
version_added: 0.1.0
description:
  - Replaces the pods of a ReplicationController (RC) with pods of a new template, the way
    C(kubectl rolling-update) did before kubectl 1.18 removed it - a second RC is created with 0
    replicas, then scaled up while the old one is scaled down, within I(max_surge) and
    I(max_unavailable), and the cleanup policy is applied at the end.
  - The new version is either a new I(image) for one container (the new RC is a copy of the old one)
    or a full I(new_controller) definition.
  - Uses kubectl's annotations and labels (C(kubectl.kubernetes.io/next-controller-id),
    C(kubectl.kubernetes.io/original-replicas), C(kubectl.kubernetes.io/desired-replicas),
    C(kubectl.kubernetes.io/update-source-id) and the I(deployment_label_key) label), so an update
    started by kubectl can be finished by this module and the other way round.
  - Resumable - nothing is kept in memory between steps. Every step is derived again from the
    annotations and replica counts the API shows, so a run that was killed or failed at any point
    is continued by running the task again with the same arguments; no second new RC is created
    and no pod is lost.
  - Idempotent - when the RC already runs the requested template (a finished update, no update in
    progress), nothing is sent and C(changed=false).
  - With I(rollback=true), an update in progress is aborted - the old RC is scaled back to its
    original size, the new one down to 0 and deleted.
  - One run at a time - a run takes the C(coordination.k8s.io/v1) Lease C(rolling-update-rc-<name>)
    in the RC's namespace before it reads what to do, renews it every third of I(lease_duration)
    while it works, and deletes it at the end. Another run of the same update finds the lease held
    and waits (I(wait_for_lease)), then decides from what the first run left - usually nothing to do.
  - Every write is fenced by what it was decided from - scales by a JSON-patch C(test) of the RC's
    uid, replicas, selector and update annotations, other writes by C(resourceVersion) or a
    deletion precondition on the uid. A run that finds its view stale, or that lost its lease, stops
    and says so instead of acting on it.
  - Waits follow the RCs with one watch (no polling), re-opened when the server ends it.
author:
  - kubeops.rollout contributors (!UNKNOWN)
options:
  name:
    description:
      - Name of the ReplicationController to update (kubectl's C(OLD_CONTROLLER_NAME)).
    type: str
    required: true
  namespace:
    description:
      - Namespace of the RC. Both RCs are in this namespace.
      - Defaults to the kubeconfig context's namespace, else V(default).
    type: str
  workload_namespace:
    description:
      - Namespace of the RC, before I(namespace). For roles - a role passes its own namespace
        variable here, so that when it is unset the play's C(module_defaults) still give
        I(namespace) (a task argument templated to C(omit) hides a module default).
    type: str
  new_name:
    description:
      - Name of the new RC. Every name (I(name), I(new_name), the name in I(new_controller)) is
        checked as the API server checks it before the first write.
      - When not given, with I(image) the name comes from an update in progress
        (C(kubectl.kubernetes.io/next-controller-id) on the old RC) or is C(<name>-<hash>); with
        I(new_controller) it is the definition's C(metadata.name).
      - Also decides the default I(cleanup_policy) as kubectl did - without I(new_name) the new RC
        takes the old name at the end (V(rename)), with it the old RC is deleted (V(delete)).
    type: str
  image:
    description:
      - New image of the container I(container) (of the only container when the pod has one).
      - The new RC is a copy of the old one with this image, and the label
        I(deployment_label_key)=C(<hash of the new template>) on its selector and pod template. When
        the old RC has no such label, it gets I(deployment_label_key)=C(<hash>-orig) on its
        selector, template and running pods first, so that the two selectors never overlap.
      - When the image is the one the container already runs, I(image_pull_policy) is required
        (kubectl's rule; the update then only changes the pull policy, for example to pull a moved
        tag again).
      - Mutually exclusive with I(new_controller).
    type: str
  container:
    description:
      - Name of the container whose image to update. Required when the pod has several containers.
    type: str
  image_pull_policy:
    description:
      - C(imagePullPolicy) of the updated container in the new RC.
      - Required when I(image) is the current image.
    type: str
    choices: [ Always, IfNotPresent, Never ]
  new_controller:
    description:
      - Full definition of the new RC (kubectl's C(-f NEW_CONTROLLER_SPEC)) - C(metadata.name)
        (or I(new_name)), C(spec.selector), C(spec.template) and optionally C(spec.replicas)
        (default - the old RC's size).
      - Its selector must have a key of the old RC's selector with a different value.
      - Mutually exclusive with I(image).
    type: dict
  deployment_label_key:
    description:
      - Label key that tells the old and the new pods apart in image updates.
    type: str
    default: deployment
  max_surge:
    description:
      - How many pods may exist above the desired count during the update - a number, or a
        percentage of the desired count such as V(25%) (rounded up).
    type: raw
    default: 1
  max_unavailable:
    description:
      - How many pods may be unavailable below the desired count during the update - a number, or a
        percentage such as V(25%) (rounded down).
      - I(max_surge) and I(max_unavailable) cannot both be 0. If both resolve to 0 (small
        percentages), 1 pod may be unavailable, as for Deployments.
    type: raw
    default: 0
  update_period:
    description:
      - Seconds to wait after scaling the new RC up before scaling the old one down.
      - kubectl waited 1 minute; every scale-down here waits for the new pods to be ready anyway, so
        the default is 1 second.
      - I(update_period), I(poll_interval), I(timeout) and I(lease_duration) are at most 604800
        (7 days).
    type: float
    default: 1
  poll_interval:
    description:
      - Seconds between two counts of the new pods while ready pods wait out the RC's
        C(minReadySeconds). Every other wait follows the RCs with a watch and needs no interval.
    type: float
    default: 1
  timeout:
    description:
      - The update fails when it made no progress (no scaling possible, for example because new
        pods never become ready) for this many seconds. Also bounds each wait for an RC to reach its
        replica count. Running the task again resumes the update.
    type: float
    default: 300
  cleanup_policy:
    description:
      - What happens when the new RC runs all the pods.
      - V(delete) deletes the old RC.
      - V(preserve) keeps the old RC (with 0 replicas and its update annotations).
      - V(rename) gives the new RC's pods, selector and template to the old RC, which keeps its name
        (and uid), and deletes the new RC. kubectl deleted the old RC and re-created the new one under
        the old name; updating the old RC in place leaves no moment without an RC that records the
        update.
      - Default - V(rename) without I(new_name), V(delete) with it (kubectl's behaviour).
    type: str
    choices: [ delete, preserve, rename ]
  rollback:
    description:
      - Abort the update in progress of RC I(name) (to the RC named by I(new_name) or by its
        C(kubectl.kubernetes.io/next-controller-id) annotation) - scale the old RC back to its
        original size and the new one down, then delete the new RC and the update annotations.
      - I(image) and I(new_controller) must not be set.
      - Nothing to roll back is not an error (C(changed=false)).
    type: bool
    default: false
  wait_for_lease:
    description:
      - What a run does when another run holds the RC's lease.
      - V(true) waits for it to be released or to expire, up to I(timeout) seconds, then continues
        from what the API shows. This is the default because a second run of the same task (a job
        launched twice, a re-run after a killed play whose module is still working) then converges
        to the same end instead of failing.
      - V(false) fails at once, naming the holder (C(<host>/<pid>/<random id>)) and since when it
        holds the lease.
    type: bool
    default: true
  lease_duration:
    description:
      - Seconds the RC's lease stays valid without renewal; the holder renews it every third of
        that. A run that died leaves a lease that expires after this long, and the next run takes
        it over and resumes the update.
      - A run that could not renew its lease for this long (lost connection) stops before its
        next write, since another run may have taken over.
    type: int
    default: 30
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
  - kubeops.rollout.attributes
  - kubeops.rollout.connection
  - kubeops.rollout.option_names
attributes:
  check_mode:
    support: full
    details: >-
      Reports the plan - the new RC's name, every scale step (computed as if each new pod became
      ready at once) and the final RC - with no persisted write and without taking the lease (a
      warning says when another run holds it). The new RC is validated by a server-side dry run
      (C(dryRun=All)) when it does not exist yet; when that create is forbidden (read-only
      credentials), the plan is computed locally and a warning says so.
  diff_mode:
    support: full
    details: Shows the pod template before (the old RC) and after (the new one).
notes:
  - "RBAC: on C(replicationcontrollers) C(get), C(list), C(watch), C(create), C(update), C(patch) and
    C(delete); on C(leases) (API group C(coordination.k8s.io)) C(get), C(watch), C(create), C(update)
    and C(delete); on C(pods) C(list), and C(patch) for image updates of an RC without the
    deployment label (its pods are labelled). Check mode needs only C(get), C(list) (and
    C(create) for its dry run; without it the plan is computed locally). See C(docs/rbac.md)."
  - Invariants kept at every step, as in kubectl - the old RC's replicas plus the new RC's available
    pods never fall below the desired count minus I(max_unavailable), and the replicas of both never
    exceed the desired count plus I(max_surge). A pod counts as available once ready for the RC's
    C(minReadySeconds).
  - 0 desired replicas is accepted (kubectl refused it) - the old RC is scaled to 0 in one step.
  - Deviation from kubectl - the deployment label value is the md5 of the new pod template and
    selector (without the label), 32 hex digits like kubectl's. kubectl hashed its whole client-side
    object, server fields included, so its values cannot be computed again; existing values are
    read, never recomputed, so updates kubectl started are recognised.
  - With I(cleanup_policy=delete) and no I(new_name), the old RC is gone once the update finished; a
    run of the same task then finds the new RC by its name C(<name>-<value>) (I(value) being its
    I(deployment_label_key) label, as kubectl named it) and reports C(changed=false) when it runs the
    requested image. With another image it fails (the RC I(name) does not exist any more).
  - A failure says how far the update got; running the task again with the same arguments resumes
    it, and I(rollback=true) aborts it.
seealso:
  - name: kubectl rolling-update (Kubernetes 1.17)
    description: The removed command this module replaces.
    link: https://v1-17.docs.kubernetes.io/docs/reference/generated/kubectl/kubectl-commands#rolling-update
'''

EXAMPLES = r'''
- name: Update the image of RC frontend; the new RC takes the name frontend at the end
  kubeops.rollout.rolling_update_rc:
    name: frontend
    namespace: shop
    image: registry.example.com/frontend:2.4.1

- name: Two pods at a time, 25% may be unavailable, keep the old RC around
  kubeops.rollout.rolling_update_rc:
    name: frontend-v1
    new_name: frontend-v2
    container: web
    image: registry.example.com/frontend:2.4.1
    max_surge: 2
    max_unavailable: 25%
    cleanup_policy: preserve
    timeout: 600

- name: Same image, pulled again (the pull policy makes the new template)
  kubeops.rollout.rolling_update_rc:
    name: frontend
    image: registry.example.com/frontend:latest
    image_pull_policy: Always

- name: Replace with a full definition
  kubeops.rollout.rolling_update_rc:
    name: frontend-v1
    new_controller:
      metadata:
        name: frontend-v2
      spec:
        replicas: 4
        selector:
          app: frontend
          version: v2
        template:
          metadata:
            labels:
              app: frontend
              version: v2
          spec:
            containers:
              - name: web
                image: registry.example.com/frontend:2.5.0

- name: Abort the update in progress and return to frontend-v1
  kubeops.rollout.rolling_update_rc:
    name: frontend-v1
    rollback: true
'''

RETURN = r'''
new_name:
  description:
    - Name of the new RC (the temporary one when it was renamed back to I(name)). On completion with
      nothing to do, the RC that runs the template. With I(rollback=true), the aborted RC.
  returned: always
  type: str
  sample: frontend-5b3f0a6f0c0a4ad1a52c5f4cf3b3e0a1
steps:
  description:
    - The scale steps, in order. In check mode, the planned steps.
  returned: always
  type: list
  elements: dict
  contains:
    action:
      description: V(scale up) (the new RC) or V(scale down) (the RC being replaced).
      type: str
      sample: scale up
    controller:
      description: Name of the RC scaled.
      type: str
      sample: frontend-5b3f0a6f0c0a4ad1a52c5f4cf3b3e0a1
    from:
      description: Its replicas before the step.
      type: int
      sample: 0
    to:
      description: Its replicas after the step.
      type: int
      sample: 1
    old_replicas:
      description: Replicas of the RC being replaced after the step.
      type: int
      sample: 3
    new_replicas:
      description: Replicas of the RC scaled up after the step.
      type: int
      sample: 1
  sample:
    - {action: scale up, controller: frontend-5b3f, from: 0, to: 1, old_replicas: 3, new_replicas: 1}
    - {action: scale down, controller: frontend, from: 3, to: 2, old_replicas: 2, new_replicas: 1}
replication_controller:
  description:
    - The ReplicationController that runs the pods at the end, as the API returned it. In check mode,
      the predicted object (never stored).
    - Not called C(rc) - Ansible reads a result key C(rc) as a return code.
  returned: success
  type: dict
planned:
  description: Set in check mode when C(steps) and C(replication_controller) are a plan.
  returned: in check mode, when an update would run
  type: bool
  sample: true
msg:
  description: What was done (or would be done), or why nothing was needed.
  returned: always
  type: str
  sample: rolling updated "frontend" to "frontend-5b3f..." in 6 scale steps then renamed back to "frontend"
lines:
  description:
    - A readable summary - C(msg), then one line per scale step of C(steps) (C(action), C(controller),
      replicas before and after), as the C(kubeops.rollout.rc_upgrade) role shows it.
  returned: always
  type: list
  elements: str
  sample:
    - rolling updated "frontend" to "frontend-5b3f..." in 2 scale steps then renamed back to "frontend"
    - '  scale up frontend-5b3f: 0 -> 1'
    - '  scale down frontend: 1 -> 0'
diff:
  description: The pod template of the old RC (before) and the new one (after).
  returned: in diff mode, when changed
  type: dict
diagnosis:
  description:
    - Why the new RC's pods did not become ready when the update gave up (no progress for
      I(timeout) seconds); the message has one line per cause.
    - Read with at most two requests (the pods of the new RC, the namespace's Warning events).
  returned: when the update timed out waiting for progress
  type: dict
  contains:
    kind:
      description: V(ReplicationController).
      type: str
    namespace:
      description: Namespace of the RC.
      type: str
    name:
      description: Name of the RC whose pods were waited for.
      type: str
    revision:
      description: The RC itself (C(kind), C(name), C(hash)).
      type: dict
    desired:
      description: Replicas the RC wants now.
      type: int
    pods:
      description: Its pods found (terminating pods not counted).
      type: int
    ready:
      description: Of those, how many are Ready.
      type: int
    causes:
      description:
        - One entry per distinct cause, most pods first, with C(reason) (e.g. V(ImagePullBackOff),
          V(CrashLoopBackOff), V(Unschedulable), V(NotReady), V(FailedCreate)), C(category),
          C(count), C(pods) (up to 5 names), C(message) and, when known, C(container), C(image),
          C(restarts), C(last_termination), C(not_ready_seconds).
      type: list
      elements: dict
    events:
      description: The last few Warning events of the RC and its pods, newest first.
      type: list
      elements: dict
    lines:
      description: One readable line per cause, as in the failure message.
      type: list
      elements: str
      sample:
        - 'ReplicationController shop/web-5b3f: 3/3 new pods not ready: ImagePullBackOff
          (registry.example.com/web:2: not found)'
    errors:
      description: What could not be read (the rest is still reported).
      type: list
      elements: str
next_step:
  description:
    - When the update failed, the one step its message names, as data (a playbook or an AWX workflow
      can follow it without reading the message).
    - "C(rerun): the update stopped in progress; run the task again with the same arguments to resume
      it. C(wait): another run holds the RC's lease; wait for it to end (or set I(wait_for_lease)),
      then run the task again. C(null): nothing to follow (the message says what to fix)."
  returned: failure
  type: str
  sample: rerun
'''

import traceback  # noqa: E402

from ansible_collections.kubeops.rollout.plugins.module_utils.common.vocabulary import setting  # noqa: E402
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.wait_options import (  # noqa: E402
    DEFAULT_TIMEOUT,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import (  # noqa: E402
    ApiError,
    KubeError,
    UpdateError,
    describe_error,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.adapter.module import KubeModule  # noqa: E402
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.driver import RollingUpdate  # noqa: E402
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.state import Options  # noqa: E402
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.steps import (  # noqa: E402
    step_dict,
    step_line,
)

ARGUMENT_SPEC = {
    'name': {'type': 'str', 'required': True},
    'namespace': {'type': 'str'},
    'workload_namespace': {'type': 'str'},
    'new_name': {'type': 'str'},
    'image': {'type': 'str'},
    'container': {'type': 'str'},
    'image_pull_policy': {'type': 'str', 'choices': ['Always', 'IfNotPresent', 'Never']},
    'new_controller': {'type': 'dict'},
    'deployment_label_key': {'type': 'str', 'default': 'deployment', 'no_log': False},
    'max_surge': {'type': 'raw', 'default': 1},
    'max_unavailable': {'type': 'raw', 'default': 0},
    'update_period': {'type': 'float', 'default': 1.0},  # kubectl: 1m; readiness gates every scale-down
    'poll_interval': {'type': 'float', 'default': 1.0},  # kubectl polled every 3s; waits watch here
    'timeout': {'type': 'float', 'default': float(DEFAULT_TIMEOUT)},
    'cleanup_policy': {'type': 'str', 'choices': ['delete', 'preserve', 'rename']},
    'rollback': {'type': 'bool', 'default': False},
    'lease_duration': {'type': 'int', 'default': 30},
    'wait_for_lease': {'type': 'bool', 'default': True},
}


def summary_lines(msg, steps):
    """``msg``, then one line per scale step (``  scale up frontend-5b3f: 0 -> 1``), for a summary."""
    return [msg] + ['  %s %s: %s -> %s' % (s['action'], s['controller'], s['from'], s['to']) for s in steps]


def main(runtime=None):
    module = KubeModule(ARGUMENT_SPEC, runtime, mutually_exclusive=[('image', 'new_controller')])
    params = module.params
    try:
        opts = Options(**dict(params, namespace=module.namespace))
    except UpdateError as e:
        module.fail(e.message)
    updater = RollingUpdate(module.client, opts, check_mode=module.module.check_mode)
    updater.on_step = lambda step: module.module.progress(step_line(step))
    details = {}
    try:
        result = updater.run()
    except Exception as e:  # every failure says how far the update got and how to resume it
        if isinstance(e, ApiError):
            message = describe_error(e, 'rolling update of ReplicationController "%s"' % opts.name,
                                     module.connection)
        elif isinstance(e, (UpdateError, KubeError)):
            message = e.message
        else:
            message = 'unexpected error (%s: %s)' % (type(e).__name__, e)
            details['exception'] = traceback.format_exc()
        if updater.diagnosis:
            details['diagnosis'] = updater.diagnosis
            message = '; '.join([message.rstrip('.')] + updater.diagnosis['lines'])
        next_step = getattr(e, 'next_step', None)
        if updater.in_progress and not module.module.check_mode:
            next_step = next_step or 'rerun'
            progress = updater.progress()
            message = '%s. %s%s' % (message.rstrip('.'), ('Progress: %s. ' % progress) if progress else '',
                                    'Run the task again with the same arguments to resume'
                                    + ('' if opts.rollback else ', or with %s to return to "%s"'
                                       % (setting('rollback', True), opts.name)) + '.')
        for warning in updater.warnings:
            module.module.warn(warning)
        steps = [step_dict(s) for s in updater.steps]
        module.fail(message, changed=updater.changed, steps=steps, new_name=updater.new_name,
                    lines=summary_lines(message, steps), next_step=next_step, **details)
    for warning in updater.warnings:
        module.module.warn(warning)
    result['lines'] = summary_lines(result.get('msg'), result.get('steps') or [])
    if module.module.diff and updater.diff and result['changed']:
        result['diff'] = updater.diff
    module.module.exit_json(**result)


if __name__ == '__main__':
    main()

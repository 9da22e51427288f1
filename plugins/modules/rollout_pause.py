#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: rollout_pause
short_description: Pause or resume the rollout of Deployments
version_added: 0.1.0
description:
  - Sets C(spec.paused) of a Deployment, like C(kubectl rollout pause) and C(kubectl rollout resume).
    While paused, changes to the pod template do not roll out.
  - Idempotent - a Deployment already in the requested state is left alone (C(changed=false)).
  - Only Deployments can be paused, as in kubectl; other kinds fail with kubectl's
    C(pausing is not supported) / C(resuming is not supported).
author:
  - kubeops.rollout contributors (!UNKNOWN)
options:
  kind:
    description:
      - Kind of the workload; only V(Deployment) (or one of kubectl's spellings of it, such as V(deploy))
        can be paused, so it is the default, also with I(label_selectors).
      - Several kinds (a list, or V(deploy,sts)) select every workload of those kinds that
        I(label_selectors) matches; a StatefulSet or DaemonSet among them fails with kubectl's
        C(pausing is not supported), and the Deployments are still paused.
    type: list
    elements: str
    default: [Deployment]
  state:
    description:
      - V(paused) pauses the rollout, V(resumed) resumes it (removing C(spec.paused), as kubectl does).
    type: str
    choices: [ paused, resumed ]
    default: paused
  wait:
    description:
      - With I(state=resumed), wait until the rollout has finished (see M(kubeops.rollout.rollout_status)).
      - With I(state=paused), wait until the Deployment controller has observed the pause.
      - Not done in check mode.
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
  - kubeops.rollout.attributes
  - kubeops.rollout.connection
  - kubeops.rollout.option_names
  - kubeops.rollout.gates
  - kubeops.rollout.target
  - kubeops.rollout.workloads
  - kubeops.rollout.wait
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
    details: Shows C(spec.paused) before and after.
notes:
  - "RBAC: C(get) (with I(name)) or C(list) (with I(label_selectors)) and C(patch) on C(deployments) in
    C(apps); C(watch) as well with I(wait=true). See C(docs/rbac.md)."
  - Check mode sends the same change with C(dryRun=All), so the API server validates it and nothing
    is stored; C(changed), the diff and any refusal are what a real run would report. Credentials that
    may not write get a 403 for the dry run - the result is then computed locally and a warning says so.
seealso:
  - module: kubeops.rollout.rollout_status
'''

EXAMPLES = r'''
- name: Pause a Deployment before changing several things
  kubeops.rollout.rollout_pause:
    name: web

- name: Resume it and wait for the rollout to finish
  kubeops.rollout.rollout_pause:
    kind: Deployment
    name: web
    state: resumed
    wait: true
    timeout: 600

- name: Pause two Deployments named in one task (kubectl rollout pause deploy/web deploy/api)
  kubeops.rollout.rollout_pause:
    workloads:
      - {name: web}
      - {name: api}

- name: Pause every Deployment of the shop
  kubeops.rollout.rollout_pause:
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
      description: Whether C(spec.paused) was changed.
      type: bool
    paused:
      description: C(spec.paused) after the task.
      type: bool
      sample: true
    status:
      description: The result of waiting (C(done), C(message), C(reason)).
      returned: when I(wait=true)
      type: dict
      sample: {"done": true, "message": "deployment \"web\" successfully rolled out", "reason": "Complete"}
changed:
  description: Whether any workload changed.
  returned: always
  type: bool
diff:
  description: Per changed workload, C(spec.paused) before and after.
  returned: in diff mode
  type: list
  elements: dict
'''

from ansible_collections.kubeops.rollout.plugins.module_utils.usecases import verbs  # noqa: E402
from ansible_collections.kubeops.rollout.plugins.module_utils.adapter.rollout_module import (  # noqa: E402
    RolloutModule,
)


def observed(workload):
    """After a pause, waiting means until the controller has seen it."""
    from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import status  # only when waiting
    return status.observed_status


def main(runtime=None):
    module = RolloutModule({'kind': {'type': 'list', 'elements': 'str', 'default': ['Deployment']},
                            'state': {'type': 'str', 'default': 'paused', 'choices': ['paused', 'resumed']}},
                           wait=False, runtime=runtime, entry_options={})
    paused = module.params['state'] == 'paused'
    wait_for = observed if paused else None
    module.run(lambda client, workload: verbs.pause(client, workload, paused, module.module.check_mode),
               wait_predicate=wait_for)


if __name__ == '__main__':
    main()

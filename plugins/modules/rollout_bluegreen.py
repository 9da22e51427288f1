#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: rollout_bluegreen
short_description: Blue/green releases - a preview, a switch verified on the endpoints, an instant way back
version_added: 0.3.0
description:
  - "Each app has two Deployments, one per color (C(blue), C(green)), and a live Service whose selector
    names the color with the label I(color_label). The pod template of each color carries that label
    with its color. The task brings every app in I(apps) to I(state); each state is safe to repeat."
  - "V(prepared): the idle color's Deployment gets the live color's pod template with the idle color's
    label and the new I(images), scaled to the live color's current replicas (or I(preview_replicas)),
    and the app's I(apps[].preview_service) selects the idle color. The change goes through the
    preflight of M(kubeops.rollout.rollout_release) (server-side dry run, Helm and Argo CD warnings,
    records of other releases), its guarded write with the release record
    (C(kubeops.rollout/release), with the replicas the idle color had), the wait with early stop, the
    soak and the analysis; a failure puts the idle color back (template, change-cause, replicas) and
    the preview Service back to what it selected before the task (a guarded patch; left, with a
    warning, when someone changed it since), so that it does not route to a color put back to no
    pods. Live traffic is not touched."
  - "V(switched): prepares if needed, then switches the apps in order. Before each switch, read fresh:
    the new color's Deployment is complete (observed generation; updated, available and ready equal
    its replicas, at least the live color's current replicas: a smaller preview is scaled up first);
    the preview Service's EndpointSlices route to exactly that many Ready, not terminating pods of the
    new color with every port of the Service; the live selector and record are as read; the HPA
    scales one of the two colors. The switch is one JSON patch of the live Service - a C(test) of the
    selector and of the record as read, then the new color and the record - so a lost answer or a
    concurrent change cannot switch twice or switch over someone else's edit. Then the task waits
    until the live Service's EndpointSlices route to exactly the new color's Ready pods, at least as
    many as the live color had (up to I(timeout); early stop when fewer Ready pods than that are seen
    for I(fail_fast_seconds)), points the HPA at the new color (a C(test) of its target as read), and
    runs the soak and the analysis on the new color. Any failure switches back, in reverse order,
    every app this task switched (with I(atomic)) or the failed one."
  - "V(finished): once the record's C(scaleDownAt) (the switch time plus the switch's
    I(scale_down_delay_seconds)) has passed, or the switch time plus the I(scale_down_delay_seconds) given
    to this task when that is earlier, the color the live Service left is scaled to 0; before that,
    nothing is changed and the result says when (C(scale_down_at))."
  - "V(rolled_back): the live Service goes back to the color the record says it left, the HPA too.
    Instant while that color has enough Ready pods; otherwise it is scaled up first and waited for,
    and the result says it was not instant (C(instant=false))."
  - "V(adopted): the one-time step for an app that has one Deployment today (the one I(apps[].deployments)
    names for one color): the color label is added to its pod template (a rollout, waited for), the
    other color's Deployment is created from it with 0 replicas, then the live Service's selector gets
    the color. The Service routes to the app's pods throughout - never zero ready endpoints."
  - "B(The record) - the annotation C(kubeops.rollout/bluegreen) on each live Service, JSON, written in
    the same request as its selector - holds the release id, the colors C(from) and C(to), the
    C(selectorBefore), C(switchedAt), C(scaleDownAt), the C(phase) (C(switching) until the traffic
    is verified, then C(switched); C(rolled_back); C(adopted)), the HPA and the Lease of the runner. A
    run stopped after a switch and before its verification (SIGTERM, an AWX cancel) leaves
    C(switching): the same task again resumes it (verifies, keeps it or switches back); another
    release is refused until I(recover) says what to do, V(rollback) switches it back. A record that
    does not describe the Service as it is (an edit by hand) is never acted on; the message gives the
    C(kubectl annotate service NAME -n NAMESPACE kubeops.rollout/bluegreen-) that removes it."
  - "Check mode sends every write with C(dryRun=All) (the API server validates it, nothing persists) and
    answers, per app, C(safe_to_switch) - is it safe to switch now? - from the new color, the preview's
    endpoints, the HPA and the record. What no wait changes fails the task as the real run fails it (a
    new color whose pods crash-loop or cannot pull their images, named with the pod, container, reason
    and restarts; another live run holding the release's Lease); what only the real run's wait can tell
    (pods still starting) is a warning. With I(recover=rollback) it says the switch would be put back and
    its images would NOT be released, as the real run says they were not. With C(--diff), every
    selector, replica and HPA change."
author:
  - kubeops.rollout contributors (!UNKNOWN)
options:
  state:
    description: What each app should be (see the description).
    type: str
    required: true
    choices: [prepared, switched, finished, rolled_back, adopted]
  apps:
    description: The apps, switched in this order (and switched back in reverse order).
    type: list
    elements: dict
    required: true
    suboptions:
      service:
        description: The live Service, whose selector names the color.
        type: str
        required: true
      preview_service:
        description:
          - A Service of its own that selects the idle color while it is prepared and verified (your
            analysis checks and smoke tests can use it). Its EndpointSlices are checked before a switch.
            Unset, that check is left out.
        type: str
      deployments:
        description: "The Deployment of each color, C({blue: NAME, green: NAME})."
        type: dict
        required: true
      images:
        description:
          - "New image per container name, for example C(web: registry.example.com/web:2.4.1); C(*) sets
            every container. Required with I(state=prepared) and I(state=switched)."
        type: dict
      hpa:
        description:
          - A HorizontalPodAutoscaler (C(autoscaling/v2)) that scales the live color; it is pointed at the
            new color after a switch and back after a switch back.
        type: str
  namespace:
    description:
      - Namespace of the apps (after I(workload_namespace)). Unset, the kubeconfig context's namespace.
    type: str
  workload_namespace:
    description:
      - Namespace of the apps, before I(namespace). For roles - a role passes its own namespace variable
        here, so that when it is unset the play's C(module_defaults) still give I(namespace).
    type: str
  color_label:
    description:
      - The label whose value (C(blue) or C(green)) the Services' selectors and the pod templates carry.
    type: str
    default: kubeops.rollout/color
  preview_replicas:
    description:
      - Replicas of the preview. Unset, the live color's current replicas. A smaller preview is scaled
        to the live color's replicas before the switch.
    type: int
  scale_down_delay_seconds:
    description:
      - Seconds after a switch (or a switch back) before I(state=finished) scales the color left to 0;
        until then a switch back is instant. Unset, 300 at the switch (recorded as C(scaleDownAt)).
      - Given with I(state=finished), the earlier of the switch time plus this delay and the recorded
        C(scaleDownAt) applies; V(0) scales the color left down now. Unset there, the recorded time.
      - The alias I(scale_down_delay) is its old name, deprecated and removed in version 3.0.0 of the
        collection.
    type: int
    aliases: [scale_down_delay]
  atomic:
    description: On a failure, switch back every app this task switched (V(true)) or only the failed one.
    type: bool
    default: true
  timeout:
    description: Seconds each wait may take (the preview's rollout, the endpoints after a switch, a scale-up).
    type: int
    default: 300
    aliases: [wait_timeout]
  release_id:
    description:
      - The name of this release in the records. Unset, derived from the apps' Services and images.
    type: str
  recover:
    description:
      - What to do with a switch another run left unverified (C(phase=switching)), or with the release
        record of another release on a preview. V(resume) verifies it and keeps it or switches back;
        V(rollback) switches it back (a preview - puts it back). A resumed switch of another release is
        kept as it was, with that release's images; this task's images are not released by the same run
        (a warning says so); running the task again without I(recover) releases them.
    type: str
    choices: [resume, rollback]
  change_cause:
    description: "Change-cause of the preview's write. Unset, C(rollout_bluegreen: <container>=<image>, ...)."
    type: str
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
  - kubeops.rollout.attributes
  - kubeops.rollout.connection
  - kubeops.rollout.option_names
  - kubeops.rollout.gates
  - kubeops.rollout.analysis
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
notes:
  - "I(soak_seconds) and I(analysis) apply twice in a switch - to the preview before it and to the live
    color after it - and to the preview in I(state=prepared)."
  - "RBAC: C(get) and C(patch) on C(services); C(list) and C(watch) on C(endpointslices.discovery.k8s.io);
    C(get), C(list), C(watch), C(patch) (and C(create) for I(state=adopted)) on C(deployments); C(get)
    and C(patch) on C(horizontalpodautoscalers.autoscaling); C(list) on C(pods), C(events) and
    C(replicasets); C(leases.coordination.k8s.io) C(get), C(create), C(update), C(delete).
    See C(docs/rbac.md)."
seealso:
  - module: kubeops.rollout.rollout_release
  - module: kubeops.rollout.rollout_analysis
'''

EXAMPLES = r'''
- name: Prepare the new version beside the live one, checked through its preview Service
  kubeops.rollout.rollout_bluegreen:
    state: prepared
    namespace: shop
    apps:
      - service: web
        preview_service: web-preview
        deployments: {blue: web-blue, green: web-green}
        images: {web: registry.example.com/shop/web:2.4.1}
        hpa: web
    soak_seconds: 5

- name: Switch web and api together (switched back together if either fails)
  kubeops.rollout.rollout_bluegreen:
    state: switched
    namespace: shop
    apps:
      - {service: web, preview_service: web-preview, deployments: {blue: web-blue, green: web-green},
         images: {web: registry.example.com/shop/web:2.4.1}}
      - {service: api, preview_service: api-preview, deployments: {blue: api-blue, green: api-green},
         images: {api: registry.example.com/shop/api:2.4.1}}
  register: switch

- name: Is it safe to switch now? (nothing is written)
  kubeops.rollout.rollout_bluegreen:
    state: switched
    namespace: shop
    apps:
      - {service: web, preview_service: web-preview, deployments: {blue: web-blue, green: web-green},
         images: {web: registry.example.com/shop/web:2.4.1}}
  check_mode: true
  register: plan              # plan.apps[0].safe_to_switch

- name: Back to the previous color (instant while it is up)
  kubeops.rollout.rollout_bluegreen:
    state: rolled_back
    namespace: shop
    apps:
      - {service: web, deployments: {blue: web-blue, green: web-green}}

- name: Scale the old color down once the delay has passed
  kubeops.rollout.rollout_bluegreen:
    state: finished
    namespace: shop
    apps:
      - {service: web, deployments: {blue: web-blue, green: web-green}}

- name: Make an app with one Deployment (legacy) a blue/green app, once
  kubeops.rollout.rollout_bluegreen:
    state: adopted
    namespace: shop
    apps:
      - {service: legacy, deployments: {blue: legacy, green: legacy-green}}
'''

RETURN = r'''
# shared: next_step
next_step:
  description:
    - When the task failed because it was refused or interrupted, the one step its message names, as data
      (a playbook, an AWX workflow or a test can follow it without reading the message).
    - "C(rerun) runs the same task again (it resumes); C(wait) means another live run holds what the task
      needs (wait for it to end, then run the task again); C(recover: rollback), C(recover: resume),
      C(state: finished) and the like are an option of this task to set before running it again, named
      as I(option_names) names it (C(traffic_canary_recover: rollback) from the role traffic_canary); a
      C(kubectl ...) or C(kubeops.rollout.rollout_undo) is a command or module to run, after checking what
      the message says."
    - C(null) when the task succeeded, or when what it needs is a fix of its input (the message says which).
  returned: always
  type: str
  sample: 'recover: rollback'
# end: next_step
apps:
  description: One entry per app, in the order given.
  returned: always
  type: list
  elements: dict
  contains:
    service:
      description: The live Service.
      type: str
    preview_service:
      description: The preview Service (null without one).
      type: str
    namespace:
      description: Namespace of the app.
      type: str
    deployments:
      description: The Deployment of each color.
      type: dict
    outcome:
      description:
        - V(prepared) (the preview is ready), V(switched), V(scaled_down) (the old color at 0),
          V(adopted), V(unchanged) (nothing to do, or not reached), V(rolled_back) (switched back, or a
          failed preview put back), V(rollback_failed) (see C(cause)), V(refused) (nothing written to it).
      type: str
      sample: switched
    cause:
      description: Why it failed or was not reached (null when it did not fail).
      type: str
    changed:
      description: Whether anything of the app was written (in check mode, would be).
      type: bool
    active_before:
      description: The color the live Service selected before the task (null when it selected none).
      type: str
      sample: blue
    active:
      description: The color the live Service selects after the task.
      type: str
      sample: green
    selector_diff:
      description: The live Service's selector before and after (null when it did not change).
      type: dict
      sample:
        before: {app: web, kubeops.rollout/color: blue}
        after: {app: web, kubeops.rollout/color: green}
    endpoints:
      description:
        - What the live Service's EndpointSlices routed to when the wait after a switch ended (null
          without one). Pod names in C(ready), C(not_ready), C(terminating); C(unexpected) (ready
          endpoints of other pods); C(expected) (the Ready pods of the color); C(missing) (those without a
          ready endpoint); C(missing_ports); C(exact); C(seconds) from the switch to exact.
      type: dict
    scale_down_at:
      description:
        - When the color the Service left may be scaled down (RFC 3339), from the record; with
          V(finished), the earlier time a I(scale_down_delay_seconds) given to the task makes.
      type: str
      sample: '2026-05-01T10:05:00Z'
    instant:
      description: With a switch back - whether it was instant (the color had enough Ready pods).
      type: bool
      returned: when the app was switched back
    safe_to_switch:
      description:
        - Check mode with I(state=switched) - C(safe) and the C(reasons) it is not (the new color, the
          preview's endpoints, the HPA, the record).
      type: dict
      returned: in check mode, for the apps a switch would change
      sample:
        safe: false
        reasons: ['the preview Service shop/web-preview does not route to exactly 3 Ready green pods']
    hpa:
      description:
        - The HPA after the task (C(name), C(target), C(target_before), replicas) when it was retargeted.
      type: dict
    analysis:
      description:
        - What the I(analysis) checks measured, as they stood when the last gate that judged this app
          ended - the preview's before a switch, the live color's after it - and which gate (C(gate)).
          One gate measures the checks once for all the apps it judges together; the task's
          C(analysis) is the same measurements at the end of the task.
      returned: when I(analysis) was given and measured for the app
      type: dict
      contains:
        gate:
          description: V(preview) (the idle color, before a switch) or V(live) (after the switch).
          type: str
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
    steps:
      description: What was written (in check mode, would be), in order.
      type: list
      elements: str
prepared:
  description: Labels (C(Service namespace/name)) of the apps by outcome; the same for every outcome.
  returned: always
  type: list
  elements: str
switched:
  description: Labels of the apps switched.
  returned: always
  type: list
  elements: str
rolled_back:
  description: Labels of the apps switched back (or whose preview was put back).
  returned: always
  type: list
  elements: str
rollback_failed:
  description: Labels of the apps not switched back after a failure.
  returned: always
  type: list
  elements: str
summary:
  description: One line per app, then what is left to do.
  returned: always
  type: list
  elements: str
  sample: ['Switched: Service shop/web (blue -> green)']
diff:
  description: Before and after of each selector, template, replica and HPA change.
  returned: in diff mode, for the changes
  type: list
  elements: dict
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
'''


from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import (  # noqa: E402
    ConnectionFailure,
    KubeError,
    describe_error,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.adapter.module import KubeModule  # noqa: E402
from ansible_collections.kubeops.rollout.plugins.module_utils.common import vocabulary  # noqa: E402
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.wait_options import (  # noqa: E402
    ANALYSIS_ARG_SPEC,
    DEFAULT_TIMEOUT,
    GATE_ARG_SPEC,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen import (  # noqa: E402
    apps as bluegreen_apps,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases import strategies  # noqa: E402

APP_OPTIONS = {
    'service': {'type': 'str', 'required': True},
    'preview_service': {'type': 'str'},
    'deployments': {'type': 'dict', 'required': True},
    'images': {'type': 'dict'},
    'hpa': {'type': 'str'},
}

ARGUMENT_SPEC = {
    'state': {'type': 'str', 'required': True, 'choices': list(bluegreen_apps.STATES)},
    'apps': {'type': 'list', 'elements': 'dict', 'required': True, 'options': APP_OPTIONS},
    'namespace': {'type': 'str'},
    'workload_namespace': {'type': 'str'},
    'color_label': {'type': 'str', 'default': bluegreen_apps.DEFAULT_COLOR_LABEL},
    'preview_replicas': {'type': 'int'},
    'scale_down_delay_seconds': {'type': 'int', 'aliases': ['scale_down_delay'],
                                 'deprecated_aliases': [vocabulary.deprecated_alias('scale_down_delay')]},
    'atomic': {'type': 'bool', 'default': True},
    'timeout': {'type': 'int', 'default': DEFAULT_TIMEOUT, 'aliases': ['wait_timeout']},
    'release_id': {'type': 'str'},
    'recover': {'type': 'str', 'choices': ['resume', 'rollback']},
    'change_cause': {'type': 'str'},
}
ARGUMENT_SPEC.update(GATE_ARG_SPEC)
ARGUMENT_SPEC.update(ANALYSIS_ARG_SPEC)


def _analysis():
    from ansible_collections.kubeops.rollout.plugins.module_utils.gates import analysis
    return analysis


def main(runtime=None):
    module = KubeModule(ARGUMENT_SPEC, runtime, analysis=_analysis)
    params = module.params
    if params['timeout'] <= 0:
        module.fail('timeout must be greater than 0 (got %s)' % params['timeout'])
    if not params['apps']:
        module.fail('apps is empty: give at least one app')
    if (params['scale_down_delay_seconds'] or 0) < 0:
        module.fail('scale_down_delay_seconds must be 0 or more seconds (got %s)'
                    % params['scale_down_delay_seconds'])
    if not (params['color_label'] or '').strip():
        module.fail('color_label is empty: give the label key the colors are named by')
    from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen.states import BlueGreen
    try:
        apps = bluegreen_apps.build_apps(params['apps'], module.namespace, params['state'])
    except bluegreen_apps.BadApps as e:
        module.fail('blue/green refused before any request: %s' % '; '.join(e.args[0]), changed=False,
                    summary=list(e.args[0]))
    options = bluegreen_apps.BlueGreenOptions(
        params['state'], params['color_label'], params['preview_replicas'],
        params['scale_down_delay_seconds'],
        params['atomic'], params['timeout'], module.gate_options(), module.module.check_mode,
        params['release_id'], params['recover'], params['change_cause'])
    try:
        result = module.run_strategy(BlueGreen(module.client, apps, options, progress=module.module.progress,
                                               note=module.module.note,
                                               step=strategies.bluegreen_state(options.state)))
    except ConnectionFailure as e:
        module.fail(e.message)
    except KubeError as e:
        module.fail(describe_error(e, 'blue/green release', module._connection))
    for warning in result.warnings:
        module.module.warn(warning)
    out = dict(bluegreen_apps.result_fields(result.apps, result.lines), changed=result.changed,
               next_step=result.next_step)
    if options.gates.analysis is not None and options.gates.analysis.measurements:
        out['analysis'] = options.gates.analysis.result()
    if module.module.diff:
        out['diff'] = [{'before': before, 'after': after, 'before_header': '%s: %s' % (a.label(), header),
                        'after_header': '%s: %s' % (a.label(), header)}
                       for a in result.apps for header, before, after in a.diffs]
    if result.failed:
        module.fail(result.message, **out)
    module.module.show(result.lines)
    module.module.exit_json(msg=result.message, **out)


if __name__ == '__main__':
    main()

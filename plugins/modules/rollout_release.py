#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: rollout_release
short_description: Release new images to several workloads as one transaction, put back on failure
version_added: 0.2.0
description:
  - Sets new container images on any number of Deployments, StatefulSets (C(RollingUpdate) and
    C(OnDelete)) and DaemonSets in one task, like C(helm upgrade --atomic) does for a chart.
  - "B(Preflight), before any write: every workload exists and is of a rollout kind, none is paused,
    every container named exists, and every change passes a server-side dry run (C(dryRun=All)). Any
    problem fails the task with one message listing each workload that failed and why, and nothing is
    changed. A workload managed by Helm or Argo CD (their labels, annotations or C(managedFields)) gets
    a warning: their next upgrade or sync reverts the change."
  - "B(Write) all the changes: per workload one JSON patch of the template with the new images, the
    change-cause and the release record (the C(kubeops.rollout/release) annotation: the release id, the
    images, the template and change-cause it had, the generation the write produced, the Lease of the
    runner), guarded by the generation and annotations the preflight read. A change made by anyone in
    between fails that workload (C(not written: it was changed by someone else since the preflight read
    it)) and is never written over; a write whose answer was lost is recognised by its record and
    counted as written. While it writes and waits, the run holds a Lease (C(coordination.k8s.io/v1),
    C(kubeops-release-<id>) in the first workload's namespace, renewed every 10 s): another run of the
    same release is refused while it lives."
  - "B(Wait) for all the rollouts at once, with the rules of M(kubeops.rollout.rollout_status) and
    the early stop of I(fail_fast_seconds) for every kind. An C(OnDelete) StatefulSet has its pods
    deleted by the release, highest ordinal first, one at a time, each replacement Ready on the new
    revision before the next, so the release ends with every pod on it."
  - "B(Health gate) once every rollout is complete: I(soak_seconds) with I(max_restarts), and the
    I(analysis) checks measured during that window."
  - "B(Put back) on any failure (a write refused, a rollout failed, stuck or timed out, a gate failed):
    with I(atomic=true) every workload this task changed, else only the failed ones, gets back the
    exact template and change-cause it had, by a JSON patch guarded by the generation of the release's
    own write: a repeat after a lost answer finds the template back and stops, and a change made by
    anyone else since the release wrote is never overwritten (reported as C(rollback_failed)). A
    StatefulSet whose pods are stuck on the broken revision has them replaced. The put-back waits up
    to I(rollback_timeout)."
  - The task fails with one summary when anything failed; C(workloads) has one entry per workload with
    its C(outcome). C(changed) is true when anything was written, even if it was put back.
  - Check mode runs the preflight (the dry runs are the change, validated by the API server) and
    reports what would change; with C(--diff), the template diff per workload. Nothing persists. It
    fails where the real run would be refused by what is already there (another live run holding the
    release's Lease; a workload whose images run already and whose pods show a cause it cannot get
    past by itself, such as CrashLoopBackOff or ImagePullBackOff, named with its pods), and warns for
    what only the wait can tell (pods still starting). New images are judged by the real run's wait.
  - "A workload whose spec changes while the release waits for it or soaks it (someone else's edit, a
    revert) fails the release as C(changed by someone else since the release wrote it) and is never
    put back over that change."
  - "B(A release survives its runner). Ctrl-C (SIGINT) and SIGTERM (an AWX cancel, a kill) end the
    task at once, reporting what was written and how to go on (on the controller path, printed even as
    ansible-playbook exits; within 5 s at most). Every written workload keeps its release record. The
    same task run
    again (the same workloads, images and change-cause, or the same I(release_id)) resumes the release:
    it writes nothing more, waits, runs the gates and puts back on failure, or removes the records on
    success. Any other release of a workload with a record is refused, naming the release, when and by
    whom it started, with the two ways out: I(recover=resume) finishes the recorded release (its
    images), I(recover=rollback) puts it back. A record is acted on only when the workload is as the
    release left it (the recorded template with the recorded images, at the recorded generation); a
    record that fails that check (an edit since, or an old record brought back by an undo) is never
    acted on, and the refusal names the C(kubectl annotate) command that removes it."
  - "A plain release refuses a workload with a canary in progress (the C(kubeops.rollout/canary)
    annotation) or a StatefulSet partition above 0: it would leave pods on two versions."
  - "B(Canary), with I(canary): the same transaction in three calls, your verification between them.
    V(start) writes the new images together with a record of what each workload had (the
    C(kubeops.rollout/canary) annotation); a StatefulSet gets a partition so that only its
    I(canary_ordinals) highest ordinals update, a Deployment is paused as soon as the controller has
    started the new ReplicaSet; the task returns once the canary pods are Ready. V(promote) releases
    the rest (Deployment resumed, partition back to what it was), waits, runs the health gate, and
    removes the record. V(rollback) puts back every workload that has a record, exactly as it was; it
    fails, writing nothing, on a workload that runs the images with no record (promoted already). Any
    failure in V(start) or V(promote) puts back what the call changed, as above. The record lives on
    the workload, so promote and rollback can run in another play or job; each phase repeated changes
    nothing. DaemonSets and C(OnDelete) StatefulSets have no canary."
  - "On the controller (the C(local) connection, without C(become)) the task tells what it does as it
    goes, at every verbosity (AWX's default included): each write, what the wait waits for, each
    rollout's end, a blocking cause as soon as the early-stop probe sees it (C(web: ImagePullBackOff
    on 1 pod (web-7d9c-x2k), stopping in 30 s unless it clears)) and when it clears, a line every
    30 s saying what is still waited for (or soaked) and for how long at most, and each put-back.
    C(-v) adds kubectl's status line of each rollout as it changes. A release that succeeds prints
    its summary lines; one that fails prints one message (each cause once, then the workloads by
    outcome), and the lines are in C(summary). Elsewhere (the module path) the task prints nothing
    while it runs: everything is in its result."
author:
  - kubeops.rollout contributors (!UNKNOWN)
options:
  workloads:
    description: The workloads to release, each with its new images.
    type: list
    elements: dict
    required: true
    suboptions:
      kind:
        description:
          - C(Deployment), C(StatefulSet) or C(DaemonSet), in any of C(kubectl)'s spellings (C(deploy),
            C(sts), C(ds), plural, any case, with or without C(.apps)).
        type: str
        required: true
      name:
        description: Name of the workload.
        type: str
        required: true
      namespace:
        description: Namespace of the workload (default I(namespace)).
        type: str
      images:
        description:
          - "New image per container name (init containers too), for example
            C(web: registry.example.com/web:2.4.1); C(*) sets every container."
        type: dict
        required: true
      change_cause:
        description: Recorded in the C(kubernetes.io/change-cause) annotation (default I(change_cause)).
        type: str
  namespace:
    description:
      - Namespace of the entries that name none (after I(workload_namespace)). Unset, the kubeconfig
        context's namespace.
    type: str
  workload_namespace:
    description:
      - Namespace of the entries that name none, before I(namespace). For roles - a role passes its
        own namespace variable here, so that when it is unset the play's C(module_defaults) still
        give I(namespace) (a task argument templated to C(omit) hides a module default).
    type: str
  change_cause:
    description:
      - "Change-cause of the entries that give none. Unset, C(rollout_release: <container>=<image>, ...)."
    type: str
  atomic:
    description:
      - On failure, put back every workload this task changed (V(true)), or only the ones that failed
        (V(false)); the others keep their new images.
    type: bool
    default: true
  timeout:
    description:
      - Seconds the rollouts may take, all together (they run at the same time).
      - The same option as I(timeout) in the other modules; V(wait_timeout) is another name for it.
    type: int
    default: 300
    aliases: [wait_timeout]
  rollback_timeout:
    description: Seconds the put-back rollouts may take. Unset, I(timeout).
    type: int
  rollback:
    description:
      - Put back what failed (as I(atomic) says). V(false) leaves every workload as the failure left
        it, and only reports.
    type: bool
    default: true
  canary:
    description:
      - The phase of a canary release - V(start), V(promote) or V(rollback) (see the description). Unset,
        the whole release in one call.
      - V(abort) is the old name of V(rollback), deprecated (a deprecation warning) and removed in
        version 3.0.0 of the collection.
    type: str
    choices: [start, promote, rollback, abort]
  release_id:
    description:
      - The name of this release in the records it writes. Unset, derived from the workloads, their
        images and change-causes, so that the same task run again is the same release.
    type: str
  recover:
    description:
      - What to do with the record of another release that did not finish (its runner stopped) on a
        workload of this task. V(resume) finishes that release (its images - wait, gates, put back on
        failure); V(rollback) puts every workload of this task that has a record back as the record
        says, and its message says that the images of that release (and of this task) were NOT
        released and what each workload runs again (check mode says the same as a preview). Unset, such
        a workload is refused.
    type: str
    choices: [resume, rollback]
  fleet:
    description:
      - "This cluster's part of a fleet release (C(playbooks/fleet.yml) with C(fleet_atomic), see
        C(docs/fleet.md)). Every record the release writes also names the fleet (I(fleet.id)) and the
        I(fleet.wave). A record of another fleet, or of no fleet, is refused unless I(recover) says what
        to do with it."
      - "With I(fleet.keep_records), a release that passes every gate keeps its records, each marked
        C(released) and sealed again on the release's Lease: the cluster is released, waiting for the
        fleet. The same task with I(recover=rollback) puts it back from them; with I(fleet.finish) it
        removes them once the whole fleet has passed."
      - Not with I(canary) or I(traffic).
    type: dict
    suboptions:
      id:
        description: The fleet release's id, the same on every cluster of the fleet (letters, digits, dashes).
        type: str
        required: true
      wave:
        description: The wave this cluster belongs to (1 for the first).
        type: int
      keep_records:
        description: Keep the records of a release that passed, marked released (see above).
        type: bool
        default: false
      finish:
        description:
          - Write no images; remove every record of this fleet from the workloads (the fleet has passed),
            and the release's Lease with the last seal.
        type: bool
        default: false
  canary_ordinals:
    description:
      - With I(canary=start), how many of a StatefulSet's highest ordinals run the new images while the
        canary is verified (its partition becomes C(replicas - canary_ordinals), or stays higher if it
        already was).
    type: int
    default: 1
  traffic:
    description:
      - "B(Canary by traffic) (Argo Rollouts' C(setWeight) steps, Flagger's promotion): release the one
        Deployment of I(workloads) through a second Deployment, C(<name>-canary) (the stable one's pod
        template with the new images and the label I(traffic.track_label) set to C(canary) in its
        selector and pods), and the weights of the route I(traffic.router) names (a Gateway API HTTPRoute
        by default). Each step scales the canary to
        C(ceil(weight x replicas / 100)) and waits for it, sets the weight (as
        M(kubeops.rollout.rollout_traffic) does: one guarded patch, the gateway's verdict, the ready
        endpoints), pauses and measures the I(analysis) checks. Then the promotion: the canary at full
        size and weight 100, the stable Deployment released with the new images (preflight, wait, soak,
        put back on failure), the weight back to the stable Service, the canary scaled to 0. A failed
        step or promotion rolls back: weight 0 and the header route removed in one patch first, then the
        canary scaled to 0."
      - The state is the annotation C(kubeops.rollout/traffic-canary) on the canary Deployment, written
        with each change of it; the same task run again resumes the step it names, I(recover=rollback)
        rolls it back.
      - The stable Service must select the stable track (the label I(traffic.track_label)), the canary
        Service the canary track; the preflight refuses a Service that would reach the other's pods.
    type: dict
    suboptions:
      router:
        description:
          - What splits the requests (see C(docs/routers/)) - a Gateway API C(HTTPRoute) at the edge
            (V(httproute)), an Istio C(VirtualService) (V(virtualservice)), an OpenShift C(Route)
            (V(openshift_route)), a Gateway API C(HTTPRoute) whose parent is a Service, for the mesh
            (V(mesh_httproute)), or a C(GRPCRoute) (V(grpcroute)).
          - The same steps, checks, guarded writes and rollback for each; what each router verifies is
            in its page under C(docs/routers/).
        type: str
        choices: [httproute, virtualservice, openshift_route, mesh_httproute, grpcroute]
        default: httproute
      route:
        description:
          - The routing object of the router (C(name), and C(namespace), default the workloads'
            namespace) - the HTTPRoute, VirtualService, Route or GRPCRoute.
        type: dict
        required: true
        suboptions:
          name:
            description: Its name.
            type: str
            required: true
          namespace:
            description: Its namespace.
            type: str
      rule:
        description:
          - The part of the route whose weights are set - an HTTPRoute's or GRPCRoute's rule (name or
            index), a VirtualService's C(http[].name). Unset, every rule holding both Services (an
            HTTPRoute, a GRPCRoute), the one C(http) route holding both destinations (a VirtualService).
          - Not for an OpenShift Route, which has one set of backends.
        type: str
      stable_service:
        description:
          - The stable Service (a backend of the route). With I(traffic.destination_rule), the one
            Service of both subsets (the VirtualService's destination host).
        type: str
        required: true
      canary_service:
        description:
          - The canary Service (a backend of the route, weight V(0) to start). Required but with
            I(traffic.destination_rule).
        type: str
      settle_seconds:
        description:
          - Seconds each step waits after the judge accepted its write, for the router's data plane to
            serve it where the API cannot say when it does (an OpenShift router applies new weights at
            its next reload, within 5 s by default); the canary is scaled down only after it. Unset -
            the router's own (V(5) for V(openshift_route), V(1) for V(virtualservice), whose proxies
            take istiod's push unobserved, V(0) for the others).
        type: float
      destination_rule:
        description:
          - For a subset-level Istio VirtualService (I(traffic.router=virtualservice)) - the
            C(DestinationRule) of the I(traffic.stable_service) host whose two subsets tell the tracks
            apart by their labels (read, never written). Unset, the VirtualService is host-level (two
            Services).
        type: dict
        suboptions:
          name:
            description: Name of the DestinationRule (in the route's namespace).
            type: str
            required: true
          stable_subset:
            description: The subset of the stable track.
            type: str
            default: stable
          canary_subset:
            description: The subset of the canary track.
            type: str
            default: canary
      track_label:
        description: The pod label that tells the tracks apart (V(stable), V(canary)).
        type: str
        default: track
      header_route:
        description:
          - A rule matching a header that sends all its requests to the canary, present from the first
            step with a weight above 0 until the promotion or the abort removes it
            (see M(kubeops.rollout.rollout_traffic)).
        type: dict
        suboptions:
          name:
            description: Name of its rule.
            type: str
            required: true
          header:
            description: The header.
            type: str
            required: true
          value:
            description: Its value.
            type: str
            required: true
          type:
            description: How the value matches.
            type: str
            choices: [Exact, RegularExpression]
            default: Exact
      steps:
        description: The steps, in order.
        type: list
        elements: dict
        required: true
        suboptions:
          weight:
            description: The canary's percent of the requests (1 to 100).
            type: int
            required: true
          pause:
            description:
              - Seconds to hold the step (the analysis checks are measured meanwhile), or V(next_run) -
                the task ends after the step, successfully, and the next run of the same task goes on
                (an AWX workflow's approval node between two jobs).
            type: raw
            default: 0
          analysis:
            description: Whether the I(analysis) checks judge this step.
            type: bool
            default: true
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
  - "RBAC: C(get), C(patch) and C(watch) on the workloads' resources; C(list) on C(pods), C(events),
    C(replicasets) and C(controllerrevisions) (early stop, soak, put-back of a StatefulSet); C(delete)
    on C(pods) for C(OnDelete) StatefulSets and stuck pods. See C(docs/rbac.md)."
seealso:
  - module: kubeops.rollout.rollout_image
  - module: kubeops.rollout.rollout_status
'''

EXAMPLES = r'''
- name: Release 2.4.1 of the shop, put everything back if any part fails
  kubeops.rollout.rollout_release:
    namespace: shop
    change_cause: release 2.4.1
    workloads:
      - kind: Deployment
        name: web
        images: {web: registry.example.com/shop/web:2.4.1}
      - kind: StatefulSet
        name: db
        images: {db: registry.example.com/shop/db:2.4.1}
    soak_seconds: 10       # new pods stay Ready and never restart for 10 s
    fail_fast_seconds: 30  # a pull error or crash loop that lasts 30 s stops the release
  register: release

- name: Show what happened to each workload
  ansible.builtin.debug:
    msg: "{{ release.workloads | map(attribute='outcome') | list }}"

- name: Start a canary of web 2.5.0 (a few pods of the new ReplicaSet, then paused)
  kubeops.rollout.rollout_release:
    namespace: shop
    canary: start
    workloads:
      - kind: Deployment
        name: web
        images: {web: registry.example.com/shop/web:2.5.0}

# Here your verification: tests against the canary, kubeops.rollout.rollout_analysis, an approval.

- name: Promote the canary once it is verified (the rest of the rollout, a soak, the record removed)
  kubeops.rollout.rollout_release:
    namespace: shop
    canary: promote
    soak_seconds: 5
    workloads:
      - kind: Deployment
        name: web
        images: {web: registry.example.com/shop/web:2.5.0}

- name: Start a canary of web 2.6.0
  kubeops.rollout.rollout_release:
    namespace: shop
    canary: start
    workloads:
      - kind: Deployment
        name: web
        images: {web: registry.example.com/shop/web:2.6.0}

- name: Roll it back when the verification rejected it (put back as it was; no canary, no change)
  kubeops.rollout.rollout_release:
    namespace: shop
    canary: rollback
    workloads:
      - kind: Deployment
        name: web
        images: {web: registry.example.com/shop/web:2.6.0}

- name: Canary by traffic - 10%, then 50% until the next run of this task (an approval between)
  kubeops.rollout.rollout_release:
    namespace: shop
    workloads:
      - kind: Deployment
        name: storefront
        images: {app: registry.example.com/shop/storefront:3.1.0}
    traffic:
      route: {name: storefront}
      stable_service: storefront-stable
      canary_service: storefront-canary
      steps:
        - {weight: 10}
        - {weight: 50, pause: next_run}
  register: canary                    # canary.traffic.phase: paused

- name: The same task, run again after the approval - step 2 is done, so the promotion
  kubeops.rollout.rollout_release:
    namespace: shop
    workloads:
      - kind: Deployment
        name: storefront
        images: {app: registry.example.com/shop/storefront:3.1.0}
    traffic:
      route: {name: storefront}
      stable_service: storefront-stable
      canary_service: storefront-canary
      steps:
        - {weight: 10}
        - {weight: 50, pause: next_run}
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
  description: One entry per workload, in the order given.
  returned: always
  type: list
  elements: dict
  contains:
    kind:
      description: The kind, as the API spells it.
      type: str
    name:
      description: Name.
      type: str
    namespace:
      description: Namespace.
      type: str
    workload:
      description: C(Kind namespace/name), as the lists by outcome name it.
      type: str
      sample: Deployment shop/web
    outcome:
      description:
        - C(upgraded) (new images, healthy; in check mode, would be), C(unchanged) (had the images
          already), C(rolled_back) (changed, then put back), C(rollback_failed) (changed, and the
          put-back did not complete or was not safe), C(untouched) (not changed by this task).
      type: str
      sample: upgraded
    cause:
      description: Why it failed or was put back (null when it did not).
      type: str
    changed:
      description: Whether this task wrote it (even if it was put back).
      type: bool
    images_before:
      description: Container images before the task.
      type: dict
    images:
      description: Container images as the task wrote them (or would, in check mode).
      type: dict
    status:
      description: The result of the wait, soak or put-back (C(done), C(message), C(reason) and counts).
      type: dict
      returned: when a wait ran
    diagnosis:
      description: Why the rollout was stopped early (see M(kubeops.rollout.rollout_status)).
      type: dict
      returned: when the early stop ended the wait
    deleted_pods:
      description: Pods the task deleted (C(OnDelete) StatefulSets, stuck pods of a put-back).
      type: list
      elements: str
      returned: when there were some
    rollback:
      description: What the put-back did, in words.
      type: str
      returned: when the workload was put back or its put-back failed
upgraded:
  description:
    - Labels (C(Kind namespace/name)) of the workloads written and kept (with I(canary), started or
      promoted); the lists below group the others by outcome, so that a role can register this result
      as its result fact.
  returned: always
  type: list
  elements: str
  sample: ['Deployment shop/web']
unchanged:
  description: Labels of the workloads that had the images already (or no canary to roll back).
  returned: always
  type: list
  elements: str
rolled_back:
  description: Labels of the workloads changed and put back (with I(canary=rollback), the canaries put back).
  returned: always
  type: list
  elements: str
rollback_failed:
  description: Labels of the workloads changed and not put back.
  returned: always
  type: list
  elements: str
untouched:
  description: Labels of the workloads not changed (a failed preflight, or the release stopped before them).
  returned: always
  type: list
  elements: str
summary:
  description: One line per workload.
  returned: always
  type: list
  elements: str
  sample: ['Upgraded: Deployment shop/web', 'Already up to date: StatefulSet shop/db']
traffic:
  description:
    - The traffic canary - its C(canary) Deployment, the C(route), the C(phase) it reached (C(paused)
      after a step paused until the next run, C(promoted), C(aborted), or the step it stopped at), and
      per step taken by this run its C(step) number, C(weight), C(replicas), whether the route
      C(changed) and its C(outcome) (C(passed), C(failed), C(planned) in check mode).
  returned: with I(traffic)
  type: dict
  sample: {"canary": "web-canary", "route": {"namespace": "shop", "name": "web"}, "phase": "promoted",
           "steps": [{"step": 1, "weight": 5, "replicas": 1, "changed": true, "outcome": "passed"}]}
diff:
  description:
    - Before and after of each workload's template and annotations (with I(recover=rollback), the
      template the release record says it had before).
    - With I(traffic), also the route's weights and header route before this run and as it leaves them
      (in check mode, as the real run would leave them).
  returned: in diff mode, for the workloads and routes that change
  type: list
  elements: dict
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
'''


from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import (  # noqa: E402
    record as release_record,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases import strategies  # noqa: E402
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import (  # noqa: E402
    targets as release_targets,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import (  # noqa: E402
    ConnectionFailure,
    KubeError,
    describe_error,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.adapter.module import KubeModule  # noqa: E402
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers import table as routers  # noqa: E402
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.wait_options import (  # noqa: E402
    ANALYSIS_ARG_SPEC,
    DEFAULT_TIMEOUT,
    GATE_ARG_SPEC,
)

WORKLOAD_OPTIONS = {
    'kind': {'type': 'str', 'required': True},
    'name': {'type': 'str', 'required': True},
    'namespace': {'type': 'str'},
    'images': {'type': 'dict', 'required': True},
    'change_cause': {'type': 'str'},
}

ARGUMENT_SPEC = {
    'workloads': {'type': 'list', 'elements': 'dict', 'required': True, 'options': WORKLOAD_OPTIONS},
    'namespace': {'type': 'str'},
    'workload_namespace': {'type': 'str'},
    'change_cause': {'type': 'str'},
    'atomic': {'type': 'bool', 'default': True},
    'timeout': {'type': 'int', 'default': DEFAULT_TIMEOUT, 'aliases': ['wait_timeout']},
    'rollback_timeout': {'type': 'int'},
    'rollback': {'type': 'bool', 'default': True},
    'canary': {'type': 'str', 'choices': ['start', 'promote', 'rollback', 'abort']},
    'canary_ordinals': {'type': 'int', 'default': 1},
    'release_id': {'type': 'str'},
    'recover': {'type': 'str', 'choices': ['resume', 'rollback']},
    'fleet': {'type': 'dict', 'options': {
        'id': {'type': 'str', 'required': True}, 'wave': {'type': 'int'},
        'keep_records': {'type': 'bool', 'default': False}, 'finish': {'type': 'bool', 'default': False}}},
    'traffic': {'type': 'dict', 'options': {
        'route': {'type': 'dict', 'required': True, 'options': {'name': {'type': 'str', 'required': True},
                                                                'namespace': {'type': 'str'}}},
        'rule': {'type': 'str'},
        'stable_service': {'type': 'str', 'required': True},
        'canary_service': {'type': 'str'},
        'track_label': {'type': 'str', 'default': 'track'},
        'router': routers.OPTION_SPEC['router'],
        'settle_seconds': routers.OPTION_SPEC['settle_seconds'],
        'destination_rule': routers.OPTION_SPEC['destination_rule'],
        'header_route': {'type': 'dict', 'options': {
            'name': {'type': 'str', 'required': True}, 'header': {'type': 'str', 'required': True},
            'value': {'type': 'str', 'required': True},
            'type': {'type': 'str', 'choices': ['Exact', 'RegularExpression'], 'default': 'Exact'}}},
        'steps': {'type': 'list', 'elements': 'dict', 'required': True, 'options': {
            'weight': {'type': 'int', 'required': True}, 'pause': {'type': 'raw', 'default': 0},
            'analysis': {'type': 'bool', 'default': True}}},
    }},
}
ARGUMENT_SPEC.update(GATE_ARG_SPEC)
ARGUMENT_SPEC.update(ANALYSIS_ARG_SPEC)


def _analysis():
    # Imported for a release with analysis checks only; named here, so this module's payload holds it.
    from ansible_collections.kubeops.rollout.plugins.module_utils.gates import analysis
    return analysis


def _traffic(module):
    """The traffic option, its steps checked; None without it."""
    traffic = module.params.get('traffic')
    if not traffic:
        return None
    if module.params['canary']:
        module.fail('traffic and canary are two kinds of canary: give one')
    if len(module.params['workloads']) != 1:
        module.fail('a traffic canary releases one Deployment: give one entry in workloads')
    if not traffic['steps']:
        module.fail('traffic.steps is empty: give at least one step, such as {weight: 10, pause: 60}')
    problems = routers.problems(traffic)
    if problems:
        module.fail('traffic: %s' % '; '.join(problems))
    for i, step in enumerate(traffic['steps']):
        if not 1 <= step['weight'] <= 100:
            module.fail('traffic.steps[%d].weight is the canary\'s percent: 1 to 100 (got %d)'
                        % (i, step['weight']))
        pause = step['pause']
        if pause != 'next_run':
            try:
                seconds = float(pause)
            except (TypeError, ValueError):
                seconds = -1
            if not 0 <= seconds <= 86400:
                module.fail('traffic.steps[%d].pause is a number of seconds (0 to 86400) or next_run (got %r)'
                            % (i, pause))
    return traffic


def _fleet(module):
    """The fleet option, checked; None without it."""
    fleet = module.params.get('fleet')
    if not fleet:
        return None
    if module.params['canary'] or module.params.get('traffic'):
        module.fail('fleet is for a plain release: not with canary or traffic')
    if release_record.records.lease_name(fleet['id']) is None:
        module.fail('fleet.id must be lower-case letters, digits and dashes, at most 63 (got %r)'
                    % fleet['id'])
    if fleet['wave'] is not None and fleet['wave'] < 1:
        module.fail('fleet.wave must be 1 or more (got %d)' % fleet['wave'])
    return fleet


def main(runtime=None):
    module = KubeModule(ARGUMENT_SPEC, runtime, analysis=_analysis)
    params = module.params
    module.renamed_value('canary', 'abort', 'rollback')
    for name in ('timeout', 'rollback_timeout'):
        if params.get(name) is not None and params[name] <= 0:
            module.fail('%s must be greater than 0 (got %s)' % (name, params[name]))
    if not params['workloads']:
        module.fail('workloads is empty: give at least one workload to release')
    if params['canary_ordinals'] < 1:
        module.fail('canary_ordinals must be 1 or more (got %d)' % params['canary_ordinals'])
    try:
        options = release_targets.ReleaseOptions(
            params['atomic'], params['timeout'], params['rollback_timeout'], module.gate_options(),
            module.module.check_mode, params['rollback'], params['canary'], params['canary_ordinals'],
            params['release_id'], params['recover'], traffic=_traffic(module), fleet=_fleet(module))
        namespace = params['workload_namespace'] or module.namespace
        targets = release_targets.build_targets(params['workloads'], namespace, params['change_cause'])
        # SIGINT (Ctrl-C), SIGTERM (an AWX cancel, a kill) end the release at once with its report.
        strategy = strategies.strategy(options)
        runner = strategy(module.client, targets, options, progress=module.module.progress,
                          note=module.module.note)
        result = module.run_strategy(runner)
    except release_targets.PreflightFailed as e:
        summary = ['preflight failed, nothing was changed:'] + list(e.args[0])
        module.fail('release refused before any write: %s' % '; '.join(e.args[0]), changed=False,
                    **release_targets.result_fields([], summary))
    except ConnectionFailure as e:
        module.fail(e.message)
    except KubeError as e:
        module.fail(describe_error(e, 'release', module._connection))
    for warning in result.warnings:
        module.module.warn(warning)
    fields = dict(result.fields)
    route_diff = fields.pop('route_diff', None)
    out = dict(release_targets.result_fields([t.entry() for t in result.targets], result.lines),
               changed=result.changed, **fields)
    if options.gates.analysis is not None and options.gates.analysis.measurements:
        out['analysis'] = options.gates.analysis.result()
    if module.module.diff:
        diffs = []
        hidden = (release_record.RECORD_ANNOTATION,)
        for t in result.targets:
            if t.patch is not None and t.workload is not None:
                before, after = release_targets.diff_of(t, hidden=hidden)
            elif options.recover == 'rollback' and t.resumed and t.outcome == 'rolled_back':
                before, after = release_targets.put_back_diff(t, hidden=hidden)
            else:
                continue
            diffs.append({'before': before, 'after': after, 'before_header': t.label(),
                          'after_header': t.label()})
        diffs.extend(route_diff or [])  # a traffic canary's route, before and after
        if diffs:
            out['diff'] = diffs
    if result.failed:
        # One short message (each cause once, the workloads by outcome); the lines in the result.
        module.fail(result.message, **out)
    module.module.show(result.lines)
    module.module.exit_json(msg=result.message, **out)


if __name__ == '__main__':
    main()

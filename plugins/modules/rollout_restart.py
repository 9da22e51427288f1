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
  - Always reports C(changed=true), like restarting a service - unless the restart is tied to
    configuration (I(config_maps), I(secrets) or I(config_from_template)).
  - Tied to configuration, it restarts only when the configuration changed, which makes it idempotent.
    A sha256 digest of each ConfigMap and Secret is recorded in the pod template annotation
    C(kubeops.rollout/config-digest) (C(ConfigMap/name=<sha256>,Secret/name=<sha256>), sorted) in the
    same patch as C(restartedAt); a workload whose recorded digest equals the current one is left
    alone (C(changed=false)), the others are restarted, reporting which objects changed.
    The first such run on a workload restarts it, since no digest is recorded yet, unless
    I(first_run=record). Tied to configuration, an entry returns no C(revision_before) or
    C(revision_after), and I(read_revisions) is ignored.
  - "What a digest covers: a ConfigMap's C(data) and C(binaryData); a Secret's C(data) (as the API
    returns it) and C(type); keys and values, serialized as JSON with sorted keys. Labels, annotations
    and other metadata are not covered."
  - Secret contents never leave the module - neither the result, the diff nor an error message holds
    them, only their digest.
  - A paused Deployment is refused with kubectl's message (resume it first); tied to configuration,
    only when it would be restarted.
  - With I(wait=true), a StatefulSet or DaemonSet with the C(OnDelete) strategy is refused before
    anything is changed.
author:
  - kubeops.rollout contributors (!UNKNOWN)
options:
  config_maps:
    description:
      - Names of ConfigMaps (in the workload's namespace) whose content the restart is tied to.
      - Each must exist; a missing one fails the task before anything is restarted.
    type: list
    elements: str
  secrets:
    description:
      - Names of Secrets (in the workload's namespace) whose content the restart is tied to.
      - Each must exist; a missing one fails the task before anything is restarted.
    type: list
    elements: str
  config_from_template:
    description:
      - Also tie the restart to every ConfigMap and Secret the pod template references - volumes
        (C(configMap), C(secret), C(projected) sources), C(envFrom) and C(env[].valueFrom) key
        references of containers and init containers.
      - As the kubelet does, a reference marked C(optional=true) may name an object that does not
        exist (recorded as C(absent), so creating it later restarts the workload); a missing object
        referenced without C(optional=true) fails the task before anything is restarted, since the
        pods could not start without it.
    type: bool
    default: false
  first_run:
    description:
      - Tied to configuration, what a run does to a workload that has no digest recorded yet.
      - V(restart) restarts it and records the digest in the pod template, as any later change does.
      - V(record) restarts nothing and records the digest in the workload's own annotation
        C(kubeops.rollout/config-digest) (C(metadata.annotations), which no controller acts on), for
        pods already known to run the current configuration; the entry then has C(recorded_only=true)
        and the task C(changed=true). Later runs compare with it while the pod template records no
        digest; the first restart moves it into the pod template (and removes it from the workload).
      - A paused Deployment is not refused by V(record), since nothing restarts.
      - V(record) without I(config_maps), I(secrets) or I(config_from_template) is an error.
    type: str
    choices: [restart, record]
    default: restart
  serial:
    description:
      - One workload at a time - restart it, wait for its rollout (I(timeout)), then the next, in
        the order of the targets; the first workload that is refused or does not roll out stops it,
        and the rest are left alone (C(outcome.not_reached)). Implies waiting, whatever I(wait) says.
      - Every target is still read and checked before the first restart.
      - In check mode nothing rolls out, so every workload is reported as the other mode would.
    type: bool
    default: false
  since:
    description:
      - An RFC 3339 time such as C(2026-01-02T03:04:05Z) or C(2026-01-02T04:04:05.5+01:00). Only the
        workloads whose pods were not replaced since then are restarted - the later of the template's
        C(kubectl.kubernetes.io/restartedAt) and the creation of the workload's current revision (its
        ReplicaSet or ControllerRevision, one list request per workload) is before it. The others are
        left alone (C(changed=false), C(skipped=true)), so a second run with the same time changes
        nothing, for example "restart everything not restarted since the certificate was renewed".
      - Any other text fails the task before any request. Cannot be combined with I(config_maps),
        I(secrets) or I(config_from_template).
    type: str
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
  - kubeops.rollout.attributes
  - kubeops.rollout.connection
  - kubeops.rollout.option_names
  - kubeops.rollout.gates
  - kubeops.rollout.revisions
  - kubeops.rollout.target
  - kubeops.rollout.workloads
  - kubeops.rollout.wait
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
    details: Shows C(metadata.annotations) and C(spec.template) before and after (with the digest
      annotation, never Secret data).
notes:
  - "RBAC: C(get) (with I(name)) or C(list) (with I(label_selectors)) and C(patch) on the workload's
    resource (C(deployments), C(statefulsets) or C(daemonsets) in C(apps)); C(watch) as well with
    I(wait=true). See C(docs/rbac.md). Tied to configuration, also C(get) on C(configmaps) and
    C(secrets) in the workload's namespace."
  - Check mode sends the same change with C(dryRun=All), so the API server validates it and nothing
    is stored. Credentials that may not write get a 403 for the dry run - the result is then computed
    locally and a warning says so.
  - Anyone who can read the workload can read the digests; like any unsalted hash, a digest lets a
    reader confirm a guess of a whole Secret's content (as Helm's checksum annotations do). Do not tie
    restarts to Secrets whose content is guessable.
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

- name: Restart the Deployment only when its configuration changed (idempotent)
  kubeops.rollout.rollout_restart:
    kind: Deployment
    name: web
    config_from_template: true
    wait: true
  register: web_restart

- name: Say why
  ansible.builtin.debug:
    msg: "{{ web_restart.workloads[0].restart_reason | default('configuration unchanged', true) }}"

- name: Adopt workloads whose pods already run the current configuration (record, no restart)
  kubeops.rollout.rollout_restart:
    kind: Deployment
    name: web
    config_from_template: true
    first_run: record

- name: Tie the restart to named objects
  kubeops.rollout.rollout_restart:
    kind: Deployment
    name: worker
    config_maps: [worker-settings]
    secrets: [worker-credentials]

- name: Restart every StatefulSet of an application; a selector that matches none fails, restarting nothing
  kubeops.rollout.rollout_restart:
    kind: StatefulSet
    namespace: shop
    label_selectors:
      - app.kubernetes.io/part-of=shop
    require_match: true

- name: Restart its Deployments and StatefulSets (kubectl rollout restart deploy,sts -l ...)
  kubeops.rollout.rollout_restart:
    kind: [Deployment, StatefulSet]
    namespace: shop
    label_selectors:
      - app.kubernetes.io/part-of=shop

- name: Restart two workloads one at a time, each rolled out before the next (stops at the first failure)
  kubeops.rollout.rollout_restart:
    namespace: shop
    workloads:
      - {kind: StatefulSet, name: orders}
      - {kind: sts, label_selectors: [app=carts]}
    serial: true
    timeout: 600
  register: restart

- name: Show what was done
  ansible.builtin.debug:
    msg: "{{ restart.outcome.lines }}"

- name: Restart only what was not restarted since the certificate renewal (a re-run changes nothing)
  kubeops.rollout.rollout_restart:
    namespace: shop
    label_selectors:
      - app.kubernetes.io/part-of=shop
    since: '2026-03-01T12:00:00Z'
    wait: true

- name: Restart every Deployment, StatefulSet and DaemonSet of the application (kind omitted)
  kubeops.rollout.rollout_restart:
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
      description: Whether the workload was restarted (always true unless tied to configuration).
      type: bool
    restarted_at:
      description: The value set in C(kubectl.kubernetes.io/restartedAt); null when tied to
        configuration that did not change.
      type: str
      sample: '2026-01-02T03:04:05+01:00'
    config_digest:
      description: The digest annotation value for the current configuration.
      returned: when tied to configuration
      type: str
      sample: ConfigMap/web-settings=3c5f0e...,Secret/web-tls=9a1b42...
    config_objects:
      description: The ConfigMaps and Secrets the restart is tied to, as C(Kind/name).
      returned: when tied to configuration
      type: list
      elements: str
      sample: [ConfigMap/web-settings, Secret/web-tls]
    config_changes:
      description: Per object whose digest differs from the recorded one - C(object) (C(Kind/name)) and
        C(change) (V(changed), V(added) or V(removed)). Empty when nothing changed.
      returned: when tied to configuration
      type: list
      elements: dict
      sample: [{"object": "ConfigMap/web-settings", "change": "changed"}]
    restart_reason:
      description: Why the workload was restarted, in one line; null when it was not.
      returned: when tied to configuration
      type: str
      sample: ConfigMap/web-settings changed
    skipped:
      description: True when the workload was left alone because its pods were replaced after I(since).
      returned: with I(since), when the workload was left alone
      type: bool
      sample: true
    last_replaced:
      description: When the pods of a workload left alone by I(since) were last replaced (RFC 3339).
      returned: with I(since), when the workload was left alone
      type: str
      sample: '2026-01-02T05:00:00Z'
    message:
      description: Why a workload was left alone by I(since).
      returned: with I(since), when the workload was left alone
      type: str
      sample: restarted or rolled out since 2026-01-02T03:04:05Z
    recorded_only:
      description: True when the digest was recorded on the workload without a restart (a first run
        with I(first_run=record)).
      returned: when tied to configuration
      type: bool
      sample: false
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
        - The revision of the restarted template - the highest revision + 1, as the controller numbers
          it when it records the change.
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
outcome:
  description:
    - What happened to each workload, for a caller that reports on many (the collection's roles keep
      it as their result fact).
  returned: always, once the workloads were read
  type: dict
  contains:
    done:
      description:
        - The workloads the task completed (restarted, left alone, or recorded; rolled out when waited for),
          each with C(kind), C(name), C(namespace), C(workload) (C(Deployment shop/web)) and C(changed).
      type: list
      elements: dict
    failed:
      description:
        - The workloads that failed (refused, or the restart did not roll out), each with C(kind), C(name),
          C(namespace), C(workload),
          C(msg) (the failure, naming the workload), C(message) (the same without the name), C(reason)
          (the rollout status reason, such as V(ProgressDeadlineExceeded) or V(Timeout), else null),
          C(causes) (one line per cause when the rollout was diagnosed, else empty) and C(diagnosis)
          (as in C(workloads), else null).
      type: list
      elements: dict
    not_reached:
      description:
        - With I(serial=true), the workloads not restarted because an earlier one failed, each with
          C(kind), C(name), C(namespace) and C(workload).
      type: list
      elements: dict
    lines:
      description:
        - "A readable summary - C(Restarted: ...) (C(Would restart: ...) in check mode) with each reason
          when tied to configuration, C(Already restarted since ...), C(Unchanged: ...), then one
          C(FAILED ...) line per failure and the workloads not reached."
      type: list
      elements: str
    restarted:
      description: The workloads restarted (would be, in check mode), as C(Kind namespace/name).
      type: list
      elements: str
    recorded:
      description: The workloads whose configuration digest was recorded without a restart
        (I(first_run=record)).
      type: list
      elements: str
    skipped:
      description: The workloads left alone because their pods were replaced after I(since).
      type: list
      elements: str
    unchanged:
      description: The workloads left alone because their configuration did not change.
      type: list
      elements: str
    reasons:
      description: Tied to configuration, why each workload was restarted or left alone, by
        C(Kind namespace/name).
      type: dict
      sample: {"Deployment shop/web": "ConfigMap/web-settings changed"}
changed:
  description: True when at least one workload was restarted.
  returned: always
  type: bool
diff:
  description: Per workload, C(metadata.annotations) and C(spec.template) before and after.
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


from ansible_collections.kubeops.rollout.plugins.module_utils.common.vocabulary import setting  # noqa: E402
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases import (  # noqa: E402
    config_restart as on_config,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases import verbs  # noqa: E402
from ansible_collections.kubeops.rollout.plugins.module_utils.common.times import parse_datetime  # noqa: E402
from ansible_collections.kubeops.rollout.plugins.module_utils.adapter.rollout_module import (  # noqa: E402
    RolloutModule,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.common.validation import (  # noqa: E402
    subdomain_problem,
)


def check_since(module):
    """The ``since`` option as an aware datetime (None when unset); anything else fails the task."""
    text = module.params['since']
    if text is None or not text.strip():
        return None
    when = parse_datetime(text)
    if when is None:
        module.fail('since must be an RFC 3339 time such as 2026-01-02T03:04:05Z, not "%s"' % text)
    return when


def config_reason(entry, changed):
    """Why a restart tied to configuration restarted a workload or left it alone, in one line."""
    if entry.get('recorded_only'):
        return 'configuration digest recorded, no restart'
    if changed:
        return entry.get('restart_reason')
    if entry.get('config_objects'):
        return 'configuration digest unchanged'
    return 'no ConfigMap or Secret to tie the restart to'


def summarize(tied_to_config, since, check_mode):
    """The restart's own lists and lines in ``outcome``: restarted, recorded, skipped, unchanged, reasons."""
    def add(outcome, entries):
        restarted, recorded, skipped, unchanged, reasons = [], [], [], [], {}
        for done in outcome['done']:
            label, entry = done['workload'], entries[done['workload']]
            if entry.get('skipped'):
                skipped.append(label)
            elif entry.get('recorded_only'):
                recorded.append(label)
            elif done['changed']:
                restarted.append(label)
            else:
                unchanged.append(label)
            if tied_to_config:
                reasons[label] = config_reason(entry, done['changed'])

        def named(labels):
            return ', '.join('%s (%s)' % (w, reasons[w]) if w in reasons else w for w in labels)

        lines = [('Would restart: ' if check_mode else 'Restarted: ') + (named(restarted) or 'none')]
        if recorded:
            lines.append('%s the configuration digest, no restart: %s' % (
                'Would record' if check_mode else 'Recorded', named(recorded)))
        if skipped:
            lines.append('Already restarted since %s: %s' % (since, ', '.join(skipped)))
        if unchanged:
            lines.append('Unchanged: ' + named(unchanged))
        outcome.update(restarted=restarted, recorded=recorded, skipped=skipped, unchanged=unchanged,
                       reasons=reasons, lines=lines)
    return add


def main(runtime=None):
    module = RolloutModule({'config_maps': {'type': 'list', 'elements': 'str'},
                            'secrets': {'type': 'list', 'elements': 'str', 'no_log': False},  # names only
                            'config_from_template': {'type': 'bool', 'default': False},
                            'first_run': {'type': 'str', 'default': on_config.FIRST_RUN_RESTART,
                                          'choices': [on_config.FIRST_RUN_RESTART,
                                                      on_config.FIRST_RUN_RECORD]},
                            'read_revisions': {'type': 'bool', 'default': False},
                            'since': {'type': 'str'}},
                           wait=False, runtime=runtime, entry_options={}, serial=True)
    check_mode, wait = module.module.check_mode, module.params['wait'] or module.params['serial']
    config_maps, secrets = module.params['config_maps'] or [], module.params['secrets'] or []
    from_template = module.params['config_from_template']
    tied_to_config = bool(config_maps or secrets or from_template)
    for option, names in (('config_maps', config_maps), ('secrets', secrets)):
        for name in names:
            problem = subdomain_problem(name)
            if problem:
                module.fail('%s: %s; every entry must name a %s' % (
                    option, problem, 'ConfigMap' if option == 'config_maps' else 'Secret'))
    since = check_since(module)
    if since is not None and tied_to_config:
        module.fail('since cannot be combined with config_maps, secrets or config_from_template: give either '
                    'the time or the configuration that decides which workloads to restart')
    add_summary = summarize(tied_to_config, (module.params['since'] or '').strip(), check_mode)
    if not tied_to_config:
        if module.params['first_run'] == on_config.FIRST_RUN_RECORD:
            module.fail('%s applies to a restart tied to configuration: give config_maps, secrets or %s, '
                        'or leave first_run unset' % (setting('first_run', on_config.FIRST_RUN_RECORD),
                                                      setting('config_from_template', True)))
        read_revisions = module.params['read_revisions']
        replaced = {}  # uid -> when the pods were last replaced, when since is given and it is after it

        def precheck(workload):
            if since is not None:
                last = verbs.last_replaced(module.client, workload)
                if last is not None and last >= since:
                    replaced[workload.uid] = last
                    return  # left alone: nothing to refuse
            verbs.check_restart(workload, wait)

        def restart(client, workload):
            if workload.uid in replaced:
                return verbs.restarted_since(workload, replaced[workload.uid], module.params['since'].strip())
            return verbs.restart(client, workload, check_mode, read_revisions=read_revisions)

        module.run(restart, precheck=precheck, summarize=add_summary)
        return
    cache = {}  # each ConfigMap / Secret is read once per task, however many workloads use it

    def config_restart(client, workload):
        return on_config.config_restart(client, workload, config_maps, secrets, from_template, check_mode,
                                        cache, first_run=module.params['first_run'])

    def config_precheck(workload):
        # A missing required object fails the task before the first workload is restarted.
        on_config.config_references(module.client, workload, config_maps, secrets, from_template, cache)
        if wait:
            workload.check_waitable()

    module.run(config_restart, precheck=config_precheck, summarize=add_summary)


if __name__ == '__main__':
    main()

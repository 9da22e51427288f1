#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: rollout_fleet
short_description: Where a fleet release stands on every cluster, what to do next, and its summary
version_added: 0.3.0
description:
  - The decisions of C(playbooks/fleet.yml) with C(fleet_atomic) (see C(docs/fleet.md)); the clusters
    themselves are released by M(kubeops.rollout.rollout_release) with its I(fleet) option.
  - "V(inspect) reads, on every cluster of I(clusters) at once (one thread each) and without a write,
    each workload's release record (acted on only when it belongs to the workload as it is and its
    seal is on its release's Lease), whether a run holds that release's Lease now, and the fleet's
    C(released) mark on it. It returns where each cluster stands, the fleet id, and what to do:
    V(refuse) (a cluster unreachable, a live release, a record of another release or fleet, a record
    that is not acted on, or this fleet interrupted with no I(recover)), V(start), V(resume) (this
    fleet's records are there - the clusters that passed are skipped, the others released in their
    waves) or V(rollback) (every cluster holding a record of this fleet put back, last wave first).
    The task itself does not fail: the playbook branches on C(refused)."
  - "V(check) reads the clusters of I(hosts) (a wave's, just before it) again, as V(inspect) does, and
    returns in C(failures) each cluster that may not be released now (unreachable, a live release,
    another release's record), so that the wave writes nothing there and fails."
  - "V(gate) is the wave gate, after the releases of a wave's clusters (I(hosts)) passed their own
    gates: every workload of every cluster of I(hosts) whose release ran and passed (I(releases),
    I(failures)) is watched for I(soak_seconds) (each pod Ready, at most I(max_restarts) restarts;
    one thread per cluster) while the I(analysis) checks are measured, once for the whole wave, every
    I(analysis.interval) as M(kubeops.rollout.rollout_analysis) measures them (at least once). The
    wave passes only when every cluster and the analysis passed; otherwise C(failures) names every
    cluster of the wave with its cause, and the wave fails. C(job) checks run their Jobs on the cluster
    of the task's connection options. Nothing is soaked or measured when a cluster of the wave failed
    already, when no release ran, or in check mode."
  - "V(commit) marks, once every wave passed and before any record is removed, the Lease of every
    release of the fleet on every cluster of I(clusters) C(kubeops.rollout/fleet-passed) (one thread
    per cluster): the commit point. A fleet stopped after it is finished by the next run (with or
    without I(recover=resume)) and never put back (I(recover=rollback) is refused then), because the
    clusters already finished hold no record to put back from. It does not fail either: C(commit_failed)
    says whether a cluster could not be marked (the finish must not start then)."
  - "V(summary) turns what the run did on each cluster (I(results)) into the fleet's summary - one row
    per cluster (C(upgraded), C(rolled back), C(failed) with the cause, or C(not attempted)), as the
    fact C(fleet_summary) and as one table, printed at every verbosity. It does not fail either:
    C(fleet_failed) says whether the fleet failed."
author:
  - kubeops.rollout contributors (!UNKNOWN)
options:
  state:
    description: What to do, V(inspect), V(check), V(gate), V(commit) or V(summary) (see the description).
    type: str
    required: true
    choices: [inspect, check, gate, commit, summary]
  clusters:
    description:
      - "Every cluster of the fleet (every host of the inventory group, whatever C(--limit) says, so
        that a fleet in progress outside the limit is seen): its C(name) (the inventory host), its
        C(kubeconfig) and C(context) (unset, the task's connection options), the C(namespace) of its
        entries that name none (default C(default)) and its C(workloads), as
        M(kubeops.rollout.rollout_release) takes them."
      - With V(summary), only C(name) is read (the fleet id is computed from the same list).
    type: list
    elements: dict
    required: true
  hosts:
    description: The hosts of this run, in inventory order (after C(--limit)); unset, every cluster.
    type: list
    elements: str
  waves:
    description: The waves, as play C(serial) takes them (the same value as the play's).
    type: raw
    default: [1, '25%', '100%']
  fleet_id:
    description:
      - The fleet release's id. Unset, a hash of every cluster's name and its workloads with their images
        and change-causes (the same inventory and images give the same id).
    type: str
  recover:
    description:
      - What to do with this fleet's records left by a run that stopped - V(resume) goes on from where it
        stopped, V(rollback) puts every cluster back. Unset, an interrupted fleet is refused, a paused
        one (every cluster's release passed) goes on.
    type: str
    choices: [resume, rollback]
  releases:
    description:
      - With V(summary), the registered result of each host's M(kubeops.rollout.rollout_release) task in
        its wave, in the order of I(hosts) (V(null) or a skipped result - not run).
    type: list
    elements: raw
    default: []
  put_backs:
    description: With V(summary), the same for each host's put-back.
    type: list
    elements: raw
    default: []
  plan:
    description: With V(summary), the result of the V(inspect) task (each host's wave, refusal, earlier pass).
    type: dict
    default: {}
  failures:
    description:
      - With V(summary), why each host failed before or in its release (the playbook's checks, the release's
        message), in the order of I(hosts) (V(null) - none).
    type: list
    elements: raw
    default: []
  wave:
    description: With V(check) and V(gate), the number of the wave (in messages).
    type: int
  soak_seconds:
    description: With V(gate), seconds every workload of every cluster of the wave stays Ready (V(0), none).
    type: int
    default: 0
  max_restarts:
    description: With V(gate), restarts of a container the soak tolerates.
    type: int
    default: 0
  paused_after:
    description: With V(summary), the wave after which the run paused (C(fleet_pause=next_run)), if it did.
    type: int
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
  - kubeops.rollout.attributes
  - kubeops.rollout.connection
  - kubeops.rollout.option_names
  - kubeops.rollout.analysis
attributes:
  check_mode:
    support: full
    details: V(inspect), V(check), V(gate) and V(summary) never write; V(commit) writes nothing in check mode.
  diff_mode:
    support: none
notes:
  - "RBAC on each cluster: C(get) (or C(list)) on the workloads' resources and C(get) on C(leases)
    (C(coordination.k8s.io)) in the namespace of the first workload; V(commit) also C(update) on
    C(leases)."
seealso:
  - module: kubeops.rollout.rollout_release
'''

EXAMPLES = r'''
# playbooks/fleet.yml with fleet_atomic runs these for every cluster of the inventory; here one
# cluster, reached through the task's connection options (a cluster may name its own kubeconfig
# and context).
- name: Where the fleet stands, and what to do
  kubeops.rollout.rollout_fleet:
    state: inspect
    clusters:
      - name: shop-eu
        workloads:
          - {kind: Deployment, name: web, namespace: shop, images: {web: 'registry.example.com/web:2.4.1'}}
    waves: [1, '100%']
  register: fleet

- name: Show where each cluster stands (fleet.refused says whether the fleet may go on)
  ansible.builtin.debug:
    msg: "{{ fleet.standing }}"

- name: Sum up the fleet (one row per cluster, as data and as one table)
  kubeops.rollout.rollout_fleet:
    state: summary
    clusters: [{name: shop-eu}]
    plan: "{{ fleet }}"
  register: fleet_end
'''

RETURN = r'''
fleet_id:
  description: The fleet release's id.
  returned: always
  type: str
  sample: f-3a1c9e0b7d2f
action:
  description: C(refuse), C(start), C(resume) or C(rollback).
  returned: with I(state=inspect)
  type: str
  sample: start
refused:
  description: Whether the fleet release is refused (nothing may be written).
  returned: with I(state=inspect)
  type: bool
refusals:
  description: One line per refusal, naming the cluster and what to do.
  returned: with I(state=inspect)
  type: list
  elements: str
standing:
  description: One line per cluster of I(clusters) - where it stands.
  returned: with I(state=inspect)
  type: list
  elements: str
  sample: ['eu: this fleet - wave 1: released, waiting for the fleet', 'us: no record']
clusters:
  description:
    - Per cluster, C(cluster), C(state) (C(clean), C(fleet), C(other_fleet), C(release), C(live), C(blocked),
      C(unreachable)), C(wave), C(released), C(detail), C(records) (the workloads with a record) and
      C(would_change) (the workloads not running the images yet).
  returned: with I(state=inspect)
  type: list
  elements: dict
hosts:
  description:
    - Per host of the run, its C(wave), whether it is C(release)d in its wave, with which C(recover),
      whether it is C(put_back), and whether it C(passed) in an earlier run.
  returned: with I(state=inspect)
  type: dict
waves:
  description: The run's hosts, wave by wave.
  returned: with I(state=inspect)
  type: list
  elements: list
put_back_serial:
  description: The waves' sizes, last wave first (the put-back play's C(serial), hosts in reverse order).
  returned: with I(state=inspect)
  type: list
  elements: int
failures:
  description:
    - With V(check), each cluster of I(hosts) refused before any write in its wave, with the reason; with
      V(gate), each cluster of a wave that failed its gate, with the cause (empty - the wave passed).
  returned: with I(state=check) or I(state=gate)
  type: dict
  sample: {eu-2: 'wave 2 gate: Deployment shop/web: pod web-7d9f-x2 is not Ready during the soak'}
gated:
  description: Whether the wave gate soaked or measured anything.
  returned: with I(state=gate)
  type: bool
analysis:
  description: What the analysis checks measured (as M(kubeops.rollout.rollout_analysis) returns it).
  returned: with I(state=gate) and I(analysis)
  type: dict
commits:
  description:
    - Per cluster, C(name), C(error) (why it could not be marked, or V(null)), C(releases) (the fleet's
      release ids found there) and C(marked) (those whose Lease this task marked passed).
  returned: with I(state=commit)
  type: list
  elements: dict
commit_failed:
  description: Whether a cluster could not be marked passed.
  returned: with I(state=commit)
  type: bool
fleet_summary:
  description:
    - One row per cluster - C(cluster), C(wave), C(status) (C(upgraded), C(rolled back), C(failed),
      C(not attempted)), C(cause), C(changed), C(rolled_back), C(remains) (what a put-back that did not
      finish left) and C(next_step).
  returned: with I(state=summary)
  type: list
  elements: dict
table:
  description: The same as a table of text lines.
  returned: with I(state=summary)
  type: list
  elements: str
fleet_failed:
  description: Whether the fleet release failed.
  returned: with I(state=summary)
  type: bool
msg:
  description: What the fleet does, or how it ended.
  returned: always
  type: str
'''

from ansible_collections.kubeops.rollout.plugins.module_utils.gates import analysis  # noqa: E402
from ansible_collections.kubeops.rollout.plugins.module_utils.adapter.module import KubeModule  # noqa: E402
from ansible_collections.kubeops.rollout.plugins.module_utils.api.client import ApiClient  # noqa: E402
from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection.options import (  # noqa: E402
    CONNECTION_ARG_SPEC,
    load_connection,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.engine import records  # noqa: E402
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.fleet import (  # noqa: E402
    commit as fleet_commit,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.fleet import gate as fleet_gate  # noqa: E402
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.fleet import plan as fleet_plan  # noqa: E402
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.fleet import read as fleet_read  # noqa: E402
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.fleet import (  # noqa: E402
    summary as fleet_summary,
)

ARGUMENT_SPEC = {
    'state': {'type': 'str', 'required': True, 'choices': ['inspect', 'check', 'gate', 'commit', 'summary']},
    'clusters': {'type': 'list', 'elements': 'dict', 'required': True},
    'hosts': {'type': 'list', 'elements': 'str'},
    'waves': {'type': 'raw', 'default': [1, '25%', '100%']},
    'fleet_id': {'type': 'str'},
    'recover': {'type': 'str', 'choices': ['resume', 'rollback']},
    'releases': {'type': 'list', 'elements': 'raw', 'default': []},
    'put_backs': {'type': 'list', 'elements': 'raw', 'default': []},
    'plan': {'type': 'dict', 'default': {}},
    'paused_after': {'type': 'int'},
    'wave': {'type': 'int'},
    'soak_seconds': {'type': 'int', 'default': 0},
    'max_restarts': {'type': 'int', 'default': 0},
    'analysis': {'type': 'dict', 'options': analysis.ANALYSIS_OPTIONS},
    'failures': {'type': 'list', 'elements': 'raw', 'default': []},
}


def _client_of(module):
    base = {name: module.params.get(name) for name in CONNECTION_ARG_SPEC}

    def client_of(cluster):
        params = dict(base)
        for name in ('kubeconfig', 'context'):
            if cluster.get(name):
                params[name] = cluster[name]
        connection = load_connection(params, module.module.env, module.module.run_process)
        connection.on_secrets = module._register_secrets
        connection.register_secrets()
        return ApiClient(connection)
    return client_of


def _gate(module, params, clusters, hosts, fleet):
    wave = params['wave']
    gated = fleet_gate.to_gate(hosts, params['releases'], params['failures'])
    checks = module.analysis_gate()
    skipped = fleet_gate.skip_reason(gated, module.module.check_mode, params['soak_seconds'], checks)
    if skipped:
        module.module.exit_json(changed=False, fleet_id=fleet, failures={}, gated=False,
                                msg='wave %s: no wave gate (%s)' % (wave, skipped))
    wave_clusters = [c for c in clusters if c['name'] in gated]
    causes, result = fleet_gate.gate_wave(wave_clusters, _client_of(module), params['soak_seconds'], checks,
                                          params['max_restarts'])
    failures, message = fleet_gate.judge(wave, hosts, causes, result, params['soak_seconds'])
    out = {'analysis': result} if result is not None else {}
    module.module.exit_json(changed=False, fleet_id=fleet, failures=failures, gated=True, msg=message, **out)


def main(runtime=None):
    module = KubeModule(ARGUMENT_SPEC, runtime, analysis=lambda: analysis)
    params = module.params
    clusters = params['clusters']
    names = [c.get('name') for c in clusters]
    if not all(isinstance(n, str) and n for n in names) or len(set(names)) != len(names):
        module.fail('clusters: every entry needs a name of its own (got %s)' % ', '.join(map(str, names)))
    fleet = fleet_plan.fleet_id(clusters, params['fleet_id'])
    if records.lease_name(fleet) is None:
        module.fail('fleet_id must be lower-case letters, digits and dashes, at most 63 (got %r)' % fleet)
    hosts = params['hosts'] if params['hosts'] is not None else names
    if params['state'] == 'summary':
        results = fleet_summary.inputs(hosts, params['releases'], params['put_backs'], params['plan'],
                                       params['paused_after'], params['failures'])
        rows = fleet_summary.rows(results, module.module.check_mode)
        table = fleet_summary.table(rows)
        failed, message = fleet_summary.outcome(rows, fleet, params['recover'] == 'rollback')
        module.module.show(table)
        module.module.exit_json(changed=False, msg=message, fleet_id=fleet, fleet_summary=rows, table=table,
                                fleet_failed=failed, ansible_facts={'fleet_summary': rows})
    unknown = [h for h in hosts if h not in names]
    if unknown:
        module.fail('hosts: %s not among the clusters' % ', '.join(unknown))
    if params['state'] == 'check':
        wave = [c for c in clusters if c['name'] in hosts]
        standings, failures = fleet_gate.check_wave(wave, _client_of(module), fleet)
        module.module.exit_json(changed=False, fleet_id=fleet, failures=failures, clusters=standings,
                                msg='wave %s: %s' % (params['wave'], '; '.join(failures.values())
                                                     or 'every cluster may be released'))
    if params['state'] == 'gate':
        _gate(module, params, clusters, hosts, fleet)
    if params['state'] == 'commit':
        run = [c for c in clusters if c['name'] in hosts]
        results = fleet_commit.commit_fleet(run, _client_of(module), fleet, module.module.check_mode)
        failed, message = fleet_commit.outcome(results, fleet)
        module.module.exit_json(changed=any(r['marked'] for r in results), msg=message, fleet_id=fleet,
                                commits=results, commit_failed=failed)
    try:
        fleet_plan.waves(hosts, params['waves'])
    except (TypeError, ValueError):
        module.fail('waves must be what play serial takes: a number, a percentage or a list of them (got %r)'
                    % (params['waves'],))
    readings = fleet_read.read_fleet(clusters, _client_of(module))
    standings = [fleet_plan.standing(r, fleet) for r in readings]
    plan = fleet_plan.decide(standings, fleet, params['recover'], hosts, params['waves'])
    module.module.show(plan['standing'])
    module.module.exit_json(changed=False, msg=plan.pop('message'), clusters=standings, **plan)


if __name__ == '__main__':
    main()

#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: rollout_analysis
short_description: Judge a release by its metrics, endpoints and test Jobs (Prometheus, HTTP, Job checks)
version_added: 0.2.0
description:
  - Measures the I(analysis) checks every I(analysis.interval) seconds for I(duration) seconds and
    fails as soon as one check has more failed measurements than I(analysis.failure_limit), naming
    the check, the value and the bound.
  - The same checks as the I(analysis) option of M(kubeops.rollout.rollout_status) and
    M(kubeops.rollout.rollout_release), without a workload - for a canary while it is paused (the
    C(rollout_upgrade) role runs it there), or before and after a change window.
  - Sends requests to Kubernetes only for C(job) checks, which create a Job per measurement in the
    check's I(namespace) (default the task's I(namespace)), with the connection options; it is in
    the action group C(kubeops.rollout.rollout) for them.
author:
  - kubeops.rollout contributors (!UNKNOWN)
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
    details:
      - Prometheus and HTTP checks are measured in check mode too (they are requests chosen by the task,
        not changes).
      - A C(job) check's Job is only created with C(dryRun=All) (the API server checks it, nothing runs) and
        the measurement is C(skipped), reported as not measured.
  diff_mode:
    support: none
options:
  analysis:
    required: true
  namespace:
    description:
      - Where C(job) checks create their Jobs, unless a check names its own I(namespace).
      - Default the namespace of the kubeconfig context (or of the pod's service account), else C(default).
    type: str
  duration:
    description:
      - Seconds during which the checks are measured (the first measurement at once). V(0) measures
        once.
    type: float
    default: 0
notes:
  - See C(docs/analysis.md) for a canary judged by its error rate, and for a Job as a check (the
    permissions it needs are in C(docs/rbac.md)).
"""

EXAMPLES = r"""
- name: Judge the canary by its error rate and its health endpoint for ten seconds
  kubeops.rollout.rollout_analysis:
    duration: 10
    analysis:
      interval: 5
      failure_limit: 1
      checks:
        - name: error-rate
          prometheus:
            url: http://prometheus.monitoring:9090
            query: sum(rate(http_requests_total{app="web",code=~"5.."}[1m]))
          max: 0.5
        - name: smoke
          http:
            url: http://web.shop.svc:8080/healthz
            status: [200]
            body_regex: ok
  register: verdict

- name: Judge the release by a smoke test run as a Job (its pod's last log lines tell why it failed)
  kubeops.rollout.rollout_analysis:
    namespace: shop
    analysis:
      checks:
        - name: smoke-test
          timeout: 120
          job:
            backoffLimit: 0
            template:
              spec:
                restartPolicy: Never
                containers:
                  - name: smoke
                    image: busybox:1.36
                    command: [sh, -c, 'test -n "$TARGET" && echo "smoke test of $TARGET passed"']
                    env:
                      - name: TARGET
                        value: http://web.shop.svc:8080
  register: smoke

- name: Show what was measured
  ansible.builtin.debug:
    msg: "{{ verdict.analysis.checks | map(attribute='measurements') | map('last')
             | map(attribute='message') }}"
"""

RETURN = r"""
analysis:
  description: What the checks measured (the last 10 measurements of each check); with no credentials.
  returned: always
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
    passed: true
    measured: 1
    failure_limit: 0
    inconclusive: fail
    message: null
    checks:
      - name: smoke
        type: http
        url: https://web.example/healthz
        method: GET
        status: [200]
        body_regex: ok
        failures: 0
        measurements:
          - outcome: passed
            value: 200
            message: 'check "smoke": GET https://web.example/healthz answered 200'
            at: 1795000000.0
changed:
  description: Always false.
  returned: always
  type: bool
msg:
  description: The outcome in one line.
  returned: always
  type: str
  sample: 'analysis passed: 2 checks, 13 measurements each'
"""

from ansible_collections.kubeops.rollout.plugins.module_utils.gates import analysis  # noqa: E402
from ansible_collections.kubeops.rollout.plugins.module_utils.adapter.module import KubeModule  # noqa: E402

ARGUMENT_SPEC = {
    'analysis': {'type': 'dict', 'required': True, 'options': analysis.ANALYSIS_OPTIONS},
    'duration': {'type': 'float', 'default': 0},
    'namespace': {'type': 'str'},
}


def main(runtime=None):
    module = KubeModule(ARGUMENT_SPEC, runtime, analysis=lambda: analysis)
    if module.params['duration'] > 86400:
        module.fail('duration must be at most 86400 seconds (got %s)' % module.params['duration'])
    gate = module.analysis_gate()
    try:
        passed = gate.run(module.params['duration'])
    except KeyboardInterrupt:
        module.fail(
            'interrupted after %d measurements' % gate.measurements, changed=False, analysis=gate.result()
        )
    result = gate.result()
    if not passed:
        module.fail(gate.message, changed=False, analysis=result)
    # Checks measured by nothing but check mode's dry runs (a job check's Job).
    unmeasured = [c['name'] for c in result['checks']
                  if c['measurements'] and all(m['outcome'] == 'skipped' for m in c['measurements'])]
    module.module.exit_json(
        changed=False,
        analysis=result,
        msg='analysis passed: %d check%s, %d measurement%s each%s'
        % (
            len(gate.checks),
            '' if len(gate.checks) == 1 else 's',
            gate.measurements,
            '' if gate.measurements == 1 else 's',
            '; not measured in check mode: %s' % ', '.join(unmeasured) if unmeasured else '',
        ),
    )


if __name__ == '__main__':
    main()

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    # The analysis checks of a health gate (module_utils/gates/analysis/). The defaults are those of
    # the gate's and the providers' classes (tests/unit/plugins/doc_fragments/test_analysis.py).
    DOCUMENTATION = r'''
options:
  analysis:
    description:
      - Checks that judge the release by what it does, measured every I(interval) seconds during the
        soak (I(soak_seconds); at least once, right after the rollout completes, when the soak is V(0)).
      - A measurement fails when a Prometheus value is out of its bounds, an HTTP check gets another
        status or a body that does not match, the endpoint cannot be reached or answers an error, or
        (unless I(inconclusive=pass)) the query returns no data. When one check has more than
        I(failure_limit) failed measurements the wait fails (reason C(AnalysisFailed)) with a message
        naming the check, the value and the bound.
      - Bearer tokens, header values and passwords in URLs are secrets, never printed (raw, URL-encoded or
        base64-encoded). A token or header value with a line break (as a token read from a file often
        ends) is refused before anything is sent.
      - Text from an endpoint is shown with its control characters escaped and cut short.
      - The requests follow the proxy settings (C(http_proxy), C(https_proxy), C(no_proxy)) of the task's
        environment, the task's C(environment) keyword included.
      - See C(docs/analysis.md) for a worked example.
    type: dict
    suboptions:
      interval:
        description: Seconds between two measurements of every check, at least V(1).
        type: float
        default: 5
      failure_limit:
        description: Failed measurements of one check tolerated before the gate fails.
        type: int
        default: 0
      inconclusive:
        description:
          - What a measurement without data (an empty Prometheus result, NaN) counts as; also a C(job)
            check's Job that cannot pull its image or never starts. A Job deleted before it ended always
            counts as a failure.
        type: str
        choices: [fail, pass]
        default: fail
      checks:
        description:
          - The checks, each with a unique I(name) and exactly one of I(prometheus), I(http) or I(job).
        type: list
        elements: dict
        required: true
        suboptions:
          name:
            description:
              - Names the check in messages and results.
              - A C(job) check's name is the prefix of its Jobs' names (C(<name>-<5 characters>)) and the
                value of their C(kubeops.rollout/analysis) label - lowercase letters, digits and C(-), at
                most 57 characters.
            type: str
            required: true
          min:
            description: Lowest value a Prometheus query may return (each series of a vector).
            type: float
          max:
            description: Highest value a Prometheus query may return (each series of a vector).
            type: float
          job:
            description:
              - A C(batch/v1) Job spec (C(template), C(backoffLimit), C(activeDeadlineSeconds), ...) run as
                one Job per measurement - C(Complete) passes, C(Failed) fails (the message carries the last
                lines of its pod's log), a pod that cannot pull its image or a Job that never starts within
                I(timeout) is inconclusive, a Job still running at I(timeout) is an error (and deleted).
              - C(backoffLimit) defaults to V(0) and the pod's C(restartPolicy) to C(Never) (one try per
                measurement). The Job is named C(<name>-<5 characters>), labelled
                C(kubeops.rollout/analysis=<name>) and C(kubeops.rollout/release=<release id or run id>),
                and has no owner; the newest 5 finished Jobs of the check are kept, older ones deleted.
              - Only the Job the measurement created counts (by its uid); one deleted before it ended is
                inconclusive and counts as a failure even with I(inconclusive=pass). The next measurement
                starts I(interval) seconds after the Job ended.
              - Needs the Kubernetes connection options and the permissions in C(docs/rbac.md). In check mode
                the Job is only created with C(dryRun=All) and the measurement is C(skipped).
            type: dict
          namespace:
            description:
              - Where a C(job) check creates its Jobs; default the task's namespace (the workloads').
              - Only for C(job) checks.
            type: str
          timeout:
            description:
              - Seconds one measurement of a C(job) check may take, from the Job's creation to its end
                (default 300, at most 3600).
              - Only for C(job) checks (the other checks take I(timeout) under I(prometheus) or I(http)).
            type: float
          prometheus:
            description:
              - An instant query (C(/api/v1/query)) whose value, or every series of its vector, must be
                within I(min) and I(max) (at least one of them is required).
            type: dict
            suboptions:
              url:
                description: The Prometheus server, for example C(http://prometheus.monitoring:9090).
                type: str
                required: true
              query:
                description: The PromQL expression.
                type: str
                required: true
              bearer_token:
                description: 'Sent as C(Authorization: Bearer <token>).'
                type: str
              headers:
                description: Extra request headers (their values are treated as secrets).
                type: dict
              ca_cert:
                description: CA bundle that verifies the server's certificate.
                type: path
              client_cert:
                description: Client certificate (PEM).
                type: path
              client_key:
                description: Key of I(client_cert) (PEM).
                type: path
              insecure:
                description: Do not verify the server's certificate.
                type: bool
                default: false
              timeout:
                description:
                  - Seconds one measurement may take, all of it (connect, send, every read of the answer,
                    and I(body_regex)), not each read.
                type: float
                default: 5
          http:
            description: A request whose answer must have one of the I(status) codes and match I(body_regex).
            type: dict
            suboptions:
              url:
                description: The URL requested (redirects are not followed).
                type: str
                required: true
              method:
                description: The HTTP method.
                type: str
                default: GET
              status:
                description: The statuses that pass.
                type: list
                elements: int
                default: [200]
              body_regex:
                description:
                  - A regular expression the body must match (searched, not anchored), in the first MiB of
                    the body.
                  - Matched with a time limit (within I(timeout)) by the Python library C(regex), which must
                    be installed where the module runs (it is in the collection's C(requirements.txt));
                    without it a check with I(body_regex) is refused.
                type: str
              bearer_token:
                description: 'Sent as C(Authorization: Bearer <token>).'
                type: str
              headers:
                description: Extra request headers (their values are treated as secrets).
                type: dict
              ca_cert:
                description: CA bundle that verifies the server's certificate.
                type: path
              client_cert:
                description: Client certificate (PEM).
                type: path
              client_key:
                description: Key of I(client_cert) (PEM).
                type: path
              insecure:
                description: Do not verify the server's certificate.
                type: bool
                default: false
              timeout:
                description:
                  - Seconds one measurement may take, all of it (connect, send, every read of the answer,
                    and I(body_regex)), not each read.
                type: float
                default: 5
'''

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""``AnalysisGate``: the checks of one ``analysis`` option, measured every ``interval`` seconds and
judged against ``failure_limit``; and that option's argument spec (``ANALYSIS_OPTIONS``), built
from the gate's defaults and the providers' (``registry.CHECK_OPTIONS``)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.endpoint import open_endpoint
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.provider import (
    ERROR,
    FAILED,
    INCONCLUSIVE,
    SKIPPED,
    AnalysisError,
    duration,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.registry import (
    CHECK_OPTIONS,
    make_check,
)

# How many measurements of each check a result keeps (the last ones).
KEPT_MEASUREMENTS = 10


class AnalysisGate:
    """The checks of one ``analysis`` option.

    ``due()``: a measurement is due (``interval`` seconds after the last); ``measure()``: measure
    every check once; ``failed``/``message``: whether more than ``failure_limit`` measurements of a
    check failed, and the message naming it; ``result()``: what a task returns; ``probe()``: which
    checks cannot be measured at all (a preflight's question), without counting anything."""

    DEFAULT_INTERVAL = 5
    MIN_INTERVAL = 1  # a smaller one would send a check's requests back to back
    MAX_INTERVAL = 86400
    DEFAULT_FAILURE_LIMIT = 0
    MAX_FAILURE_LIMIT = 1000000
    DEFAULT_INCONCLUSIVE = 'fail'
    INCONCLUSIVE_CHOICES = ('fail', 'pass')

    def __init__(self, options, clock=time.time, opener=open_endpoint, cluster=None):
        """``cluster``: where job checks run their Jobs (a job.Cluster; None: the task has no
        Kubernetes connection, and a job check is refused)."""
        options = options or {}
        checks = options.get('checks') or []
        if not checks:
            raise AnalysisError('analysis needs at least one check')
        interval = options.get('interval', self.DEFAULT_INTERVAL)
        self.interval = duration(
            interval, 'analysis interval', self.MAX_INTERVAL, 'analysis interval', minimum=self.MIN_INTERVAL
        )
        self.failure_limit = int(options.get('failure_limit') or self.DEFAULT_FAILURE_LIMIT)
        if self.failure_limit < 0 or self.failure_limit > self.MAX_FAILURE_LIMIT:
            raise AnalysisError('analysis failure_limit must be between 0 and %d' % self.MAX_FAILURE_LIMIT)
        self.inconclusive = options.get('inconclusive') or self.DEFAULT_INCONCLUSIVE
        if self.inconclusive not in self.INCONCLUSIVE_CHOICES:
            choices = ' or '.join(self.INCONCLUSIVE_CHOICES)
            raise AnalysisError('analysis inconclusive must be %s, not %r' % (choices, self.inconclusive))
        self.cluster = cluster
        self.checks = [make_check(c or {}, cluster) for c in checks]
        names = [c.name for c in self.checks]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise AnalysisError('analysis check names must be unique: %s given twice' % ', '.join(twice))
        self.clock = clock
        self.opener = opener
        self.last = None
        self.measurements = 0
        self.failures = {c.name: 0 for c in self.checks}
        self.history = {c.name: [] for c in self.checks}
        self.failed = False
        self.message = None

    def secrets(self):
        return [s for c in self.checks for s in c.secrets()]

    def label(self, release_id):
        """The Jobs of job checks are labelled with ``release_id`` from now on (else a run id)."""
        if self.cluster is not None and release_id:
            self.cluster.run_id = release_id

    def due(self):
        return self.last is None or self.clock() - self.last >= self.interval

    def counts_as_failure(self, measurement):
        if measurement.outcome == INCONCLUSIVE:
            return self.inconclusive == 'fail' or measurement.always_counts
        if measurement.outcome == SKIPPED:
            return False
        return measurement.outcome in (FAILED, ERROR)

    def measure(self):
        """Measure every check once; the gate fails on the first check over its failure limit."""
        self.last = self.clock()
        self.measurements += 1
        for check in self.checks:
            at = self.clock()
            measurement = check.measure(self.opener)
            kept = self.history[check.name]
            kept.append(measurement.as_dict(round(at, 3)))
            del kept[:-KEPT_MEASUREMENTS]
            if self.counts_as_failure(measurement):
                self.failures[check.name] += 1
                if self.failures[check.name] > self.failure_limit and not self.failed:
                    self.failed = True
                    self.message = 'analysis failed: %s (%d failed measurement%s, failure_limit %d)' % (
                        measurement.message,
                        self.failures[check.name],
                        '' if self.failures[check.name] == 1 else 's',
                        self.failure_limit,
                    )
        if any(c.INTERVAL_FROM_END for c in self.checks):
            self.last = self.clock()  # a check that runs a Job: the interval counts from its end
        return not self.failed

    def probe(self):
        """Measure every check once, now, and return the problems of those that cannot be measured.

        For a preflight: a release calls it before its first write, so that a check that could
        never be measured stops the task before anything changes instead of failing the release
        after the whole rollout.

        Contract:

        - Returns a list of messages, one for each check that cannot be measured, in the order of
          the checks; an empty list when every check can be measured. Each message names its check
          (``check "<name>": ...``) and says why, as a failed measurement would: credentials
          redacted (every form), the endpoint's text escaped and cut short.
        - A check cannot be measured when its measurement is an ``error``: the endpoint does not
          answer (refused, no route, TLS, the name does not resolve, no complete answer within the
          check's ``timeout``), a Prometheus check gets an answer that is not a 2xx, not a
          Prometheus result, a query error or a result that is neither a number nor an instant
          vector (a range vector), or an HTTP check's ``body_regex`` cannot finish in time. An
          answer that fails its check (a value out of bounds, another HTTP status, a body that does
          not match) or has no data (an empty result, NaN) is a measurement, not a problem: the
          release is judged by those during its soak.
        - Counts nothing: ``measurements``, ``failures``, the kept measurements, ``failed``,
          ``message`` and when the next measurement is due are as before the call (the soak's
          first measurement is still made as soon as the rollout completes).
        - Sends one request per check, the checks one after the other, each bounded by its own
          ``timeout``: it returns within the sum of the checks' timeouts (5 s each by default),
          and never raises for what an endpoint does.
        - Whether to call it in check mode is the caller's choice (its requests change nothing).
        """
        problems = []
        for check in self.checks:
            measurement = check.probe(self.opener)
            if measurement.outcome == ERROR:
                problems.append(measurement.message)
        return problems

    def run(self, seconds, sleep=time.sleep, stopped=lambda: False):
        """Measure for ``seconds`` (at least once), every ``interval``; stop at the first failure."""
        deadline = self.clock() + seconds
        while True:
            if self.due():
                self.measure()
                if self.failed:
                    return False
            remaining = deadline - self.clock()
            if remaining <= 0 or stopped():
                return True
            sleep(min(remaining, max(0.0, self.interval - (self.clock() - self.last))))

    def result(self):
        checks = []
        for check in self.checks:
            entry = check.describe()
            entry['failures'] = self.failures[check.name]
            entry['measurements'] = self.history[check.name]
            checks.append(entry)
        return {
            'passed': self.measurements > 0 and not self.failed,
            'measured': self.measurements,
            'failure_limit': self.failure_limit,
            'inconclusive': self.inconclusive,
            'message': self.message,
            'checks': checks,
        }


# The ``analysis`` option (wait_options.ANALYSIS_OPTIONS and ANALYSIS_ARG_SPEC are these).
ANALYSIS_OPTIONS = {
    'interval': {'type': 'float', 'default': AnalysisGate.DEFAULT_INTERVAL},
    'failure_limit': {'type': 'int', 'default': AnalysisGate.DEFAULT_FAILURE_LIMIT},
    'inconclusive': {
        'type': 'str',
        'choices': list(AnalysisGate.INCONCLUSIVE_CHOICES),
        'default': AnalysisGate.DEFAULT_INCONCLUSIVE,
    },
    'checks': {'type': 'list', 'elements': 'dict', 'required': True, 'options': CHECK_OPTIONS},
}

ANALYSIS_ARG_SPEC = {'analysis': {'type': 'dict', 'options': ANALYSIS_OPTIONS}}

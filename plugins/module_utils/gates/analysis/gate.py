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
    check failed, and the message naming it; ``result()``: what a task returns."""

    DEFAULT_INTERVAL = 5
    MAX_INTERVAL = 86400
    DEFAULT_FAILURE_LIMIT = 0
    MAX_FAILURE_LIMIT = 1000000
    DEFAULT_INCONCLUSIVE = 'fail'
    INCONCLUSIVE_CHOICES = ('fail', 'pass')

    def __init__(self, options, clock=time.time, opener=open_endpoint):
        options = options or {}
        checks = options.get('checks') or []
        if not checks:
            raise AnalysisError('analysis needs at least one check')
        interval = options.get('interval', self.DEFAULT_INTERVAL)
        self.interval = duration(interval, 'analysis interval', self.MAX_INTERVAL, 'analysis interval')
        self.failure_limit = int(options.get('failure_limit') or self.DEFAULT_FAILURE_LIMIT)
        if self.failure_limit < 0 or self.failure_limit > self.MAX_FAILURE_LIMIT:
            raise AnalysisError('analysis failure_limit must be between 0 and %d' % self.MAX_FAILURE_LIMIT)
        self.inconclusive = options.get('inconclusive') or self.DEFAULT_INCONCLUSIVE
        if self.inconclusive not in self.INCONCLUSIVE_CHOICES:
            choices = ' or '.join(self.INCONCLUSIVE_CHOICES)
            raise AnalysisError('analysis inconclusive must be %s, not %r' % (choices, self.inconclusive))
        self.checks = [make_check(c or {}) for c in checks]
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

    def due(self):
        return self.last is None or self.clock() - self.last >= self.interval

    def counts_as_failure(self, measurement):
        if measurement.outcome == INCONCLUSIVE:
            return self.inconclusive == 'fail'
        return measurement.outcome in (FAILED, ERROR)

    def measure(self):
        """Measure every check once; the gate fails on the first check over its failure limit."""
        self.last = self.clock()
        self.measurements += 1
        for check in self.checks:
            measurement = check.measure(self.opener)
            kept = self.history[check.name]
            kept.append(measurement.as_dict(round(self.last, 3)))
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
        return not self.failed

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

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The HTTP provider: a request whose answer must have one of the expected statuses and a body
that matches a regular expression (redirects are answers, not followed).

The body is the endpoint's, so ``body_regex`` runs with a time limit: it is matched by the
``regex`` library (PyPI, in the collection's requirements.txt), whose searches take a ``timeout``,
within what is left of the check's ``timeout``. Without that library a check with ``body_regex`` is
refused, not run unbounded. A pattern whose counted repetitions would make it too large to compile
quickly (``(?:a{1000}){1000}``) is refused too."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

try:
    import regex

    HAS_REGEX = True
except ImportError:
    regex = None
    HAS_REGEX = False

try:  # the standard library's parser of regular expressions, to size a pattern before compiling it
    from re import _constants as sre_constants, _parser as sre_parse  # Python 3.11+
except ImportError:  # pragma: no cover - Python 3.10 and older
    import sre_constants
    import sre_parse

from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.provider import (
    ERROR,
    FAILED,
    PASSED,
    AnalysisError,
    Measurement,
    Provider,
    fmt,
)

# The largest pattern compiled: its atoms, each counted repetition multiplying what it repeats.
MAX_PATTERN_SIZE = 10000


def pattern_size(pattern):
    """How large ``pattern`` compiles: its atoms, a counted repetition (``{m,n}``) multiplying what it
    repeats by its largest finite count (``regex`` unrolls them). Raises re.error when Python's own
    parser refuses it."""

    def size(sub):
        total = 0
        for op, av in sub:
            if getattr(op, 'name', str(op)).endswith('_REPEAT'):
                low, high, body = av
                count = high if high != sre_constants.MAXREPEAT else low
                total += max(count, 1) * size(body)
            else:
                total += 1 + sum(size(part) for part in parts(av))
        return total

    def parts(av):
        if isinstance(av, sre_parse.SubPattern):
            yield av
        elif isinstance(av, (list, tuple)):
            for item in av:
                yield from parts(item)

    return size(sre_parse.parse(pattern))


def compile_body_regex(name, pattern):
    """``pattern`` compiled by the ``regex`` library; AnalysisError when it cannot be matched with a
    time limit (no ``regex`` library), is not a regular expression, or is too large to compile."""
    if not HAS_REGEX:
        raise AnalysisError(
            'analysis check "%s": body_regex needs the Python library "regex" (pip install regex; it is in '
            "the collection's requirements.txt) where the module runs: without it a regular expression "
            'cannot be matched with a time limit' % name
        )
    try:
        size = pattern_size(pattern)
    except (re.error, OverflowError, RecursionError) as e:
        raise AnalysisError('analysis check "%s": body_regex is not a regular expression: %s' % (name, e))
    if size > MAX_PATTERN_SIZE:
        raise AnalysisError(
            'analysis check "%s": body_regex is too large to compile (its counted repetitions make %d '
            'atoms, at most %d)' % (name, size, MAX_PATTERN_SIZE)
        )
    try:
        return regex.compile(pattern)
    except (regex.error, OverflowError, RecursionError) as e:
        raise AnalysisError('analysis check "%s": body_regex is not a regular expression: %s' % (name, e))


class HttpProvider(Provider):
    """A check's ``http`` option: ``url``, ``method``, the ``status`` codes that pass and an optional
    ``body_regex`` (searched in the first ``MAX_BODY`` bytes, within the check's ``timeout``). It has
    no value to bound: a check with ``min`` or ``max`` is refused."""

    KEY = 'http'
    DEFAULT_METHOD = 'GET'
    DEFAULT_STATUS = (200,)
    OPTIONS = dict(
        Provider.ENDPOINT_OPTIONS,
        method={'type': 'str', 'default': DEFAULT_METHOD},
        status={'type': 'list', 'elements': 'int', 'default': list(DEFAULT_STATUS)},
        body_regex={'type': 'str'},
    )

    def __init__(self, name, options, low=None, high=None):
        if low is not None or high is not None:
            raise AnalysisError(
                'analysis check "%s": min and max bound a Prometheus value; an http check '
                'is judged by status and body_regex' % name
            )
        super(HttpProvider, self).__init__(name, options, low, high)
        pattern = self.endpoint.get('body_regex')
        self.body_regex = compile_body_regex(name, pattern) if pattern else None
        self.statuses = [int(s) for s in (self.endpoint.get('status') or self.DEFAULT_STATUS)]
        method = (self.endpoint.get('method') or self.DEFAULT_METHOD).upper()
        if not re.match(r'^[A-Z]+$', method):
            raise AnalysisError('analysis check "%s": method %r is not an HTTP method' % (name, method))
        self.method = method

    def describe(self):
        out = super(HttpProvider, self).describe()
        out.update(method=self.method, status=self.statuses)
        if self.body_regex is not None:
            out['body_regex'] = self.body_regex.pattern
        return out

    def _measure(self, opener):
        status, body = self.request(opener, self.endpoint['url'], self.method)
        asked = '%s %s' % (self.method, self.where)
        if status not in self.statuses:
            expected = ' or '.join(str(s) for s in self.statuses)
            message = 'check "%s": %s answered %d, expected %s' % (self.name, asked, status, expected)
            return Measurement(FAILED, message, status)
        if self.body_regex is not None:
            try:
                found = self.body_regex.search(
                    body.decode('utf-8', 'replace'), timeout=max(self.time_left(), 0.001), concurrent=True
                )
            except TimeoutError:
                why = 'body_regex %r did not finish on the body of %s (%d) within the timeout (%s s)' % (
                    self.body_regex.pattern, asked, status, fmt(self.endpoint['timeout']))
                return Measurement(ERROR, 'check "%s": %s' % (self.name, why))
            if not found:
                message = 'check "%s": the body of %s (%d) does not match %r' % (
                    self.name, asked, status, self.body_regex.pattern)
                return Measurement(FAILED, message, status)
        return Measurement(PASSED, 'check "%s": %s answered %d' % (self.name, asked, status), status)

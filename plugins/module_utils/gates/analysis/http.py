# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The HTTP provider: a request whose answer must have one of the expected statuses and a body
that matches a regular expression (redirects are answers, not followed)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.provider import (
    FAILED,
    PASSED,
    AnalysisError,
    Measurement,
    Provider,
)


class HttpProvider(Provider):
    """A check's ``http`` option: ``url``, ``method``, the ``status`` codes that pass and an optional
    ``body_regex`` (searched in the first ``MAX_BODY`` bytes). It has no value to bound: a check
    with ``min`` or ``max`` is refused."""

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
        regex = self.endpoint.get('body_regex')
        try:
            self.body_regex = re.compile(regex) if regex else None
        except re.error as e:
            raise AnalysisError('analysis check "%s": body_regex is not a regular expression: %s' % (name, e))
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
        if self.body_regex is not None and not self.body_regex.search(body.decode('utf-8', 'replace')):
            message = 'check "%s": the body of %s (%d) does not match %r' % (
                self.name, asked, status, self.body_regex.pattern)
            return Measurement(FAILED, message, status)
        return Measurement(PASSED, 'check "%s": %s answered %d' % (self.name, asked, status), status)

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Analysis checks: judging a release by what it does (``AnalysisGate``).

The ``analysis`` option of ``rollout_status``, ``rollout_release`` and the upgrade role names
checks, each a Prometheus query with bounds or an HTTP request with an expected answer. The soak
(``health.Soak``) measures them all every ``interval`` seconds during its window; every failed
measurement of a check counts, and more than ``failure_limit`` of them fails the gate, naming the
check, the value and the bound.

A measurement fails when a value is out of its bounds, the endpoint cannot be reached, the answer
is not what was asked (an HTTP status or body, a Prometheus error), or, unless ``inconclusive:
pass``, when it has no data (an empty Prometheus result or NaN). Credentials (bearer tokens,
passwords in a URL, header values) are secrets: ``secrets()`` lists them for redaction, and no
result carries them.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import math
import re
import time

try:
    from urllib.parse import urlencode, urlsplit, urlunsplit
except ImportError:  # pragma: no cover - Python 2 is not supported, this keeps sanity's import test quiet
    from urllib import urlencode  # noqa: F401
    from urlparse import urlsplit, urlunsplit  # noqa: F401

# Outcomes of one measurement of one check.
PASSED = 'passed'
FAILED = 'failed'
INCONCLUSIVE = 'inconclusive'
ERROR = 'error'

# A body longer than this is not read further (an HTTP check's regex runs on this much).
MAX_BODY = 1024 * 1024
# How many measurements of each check a result keeps (the last ones).
KEPT_MEASUREMENTS = 10


class AnalysisError(Exception):
    """Options that cannot be measured (raised before any request)."""


class Measurement:
    """One measurement of one check: outcome, value (a number, an HTTP status, or None), message."""

    def __init__(self, outcome, message, value=None):
        self.outcome = outcome
        self.message = message
        self.value = value

    def as_dict(self, at):
        return {'outcome': self.outcome, 'value': self.value, 'message': self.message, 'at': at}


def _number(value, what):
    if value is None:
        return None
    number = float(value)
    if math.isnan(number) or math.isinf(number):
        raise AnalysisError('%s must be a finite number, not %r' % (what, value))
    return number


def _public_url(url):
    """The URL without a password (and without a user name beside it)."""
    parts = urlsplit(url)
    if parts.password is None and parts.username is None:
        return url
    host = parts.hostname or ''
    if ':' in host:
        host = '[%s]' % host
    if parts.port is not None:
        host += ':%d' % parts.port
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


def _bounds(low, high):
    if low is not None and high is not None:
        return 'between %s and %s' % (_fmt(low), _fmt(high))
    if low is not None:
        return 'min %s' % _fmt(low)
    return 'max %s' % _fmt(high)


def _fmt(number):
    if number is None:
        return 'none'
    if float(number) == int(number) and abs(number) < 1e15:
        return '%d' % int(number)
    return '%g' % number


class Check:
    """One named check: ``measure(opener) -> Measurement``."""

    def __init__(self, options):
        self.name = options.get('name')
        if not self.name or not str(self.name).strip():
            raise AnalysisError('every analysis check needs a name')
        prometheus, http = options.get('prometheus'), options.get('http')
        if bool(prometheus) == bool(http):
            raise AnalysisError('analysis check "%s" needs exactly one of prometheus or http' % self.name)
        self.min = _number(options.get('min'), 'min of analysis check "%s"' % self.name)
        self.max = _number(options.get('max'), 'max of analysis check "%s"' % self.name)
        if prometheus and self.min is None and self.max is None:
            raise AnalysisError(
                'analysis check "%s" needs min or max: the bounds its query\'s value must '
                'stay within' % self.name
            )
        if http and (self.min is not None or self.max is not None):
            raise AnalysisError(
                'analysis check "%s": min and max bound a Prometheus value; an http check '
                'is judged by status and body_regex' % self.name
            )
        if self.min is not None and self.max is not None and self.min > self.max:
            raise AnalysisError(
                'analysis check "%s": min %s is above max %s' % (self.name, _fmt(self.min), _fmt(self.max))
            )
        self.kind = 'prometheus' if prometheus else 'http'
        self.endpoint = dict(prometheus or http)
        url = self.endpoint.get('url') or ''
        scheme = urlsplit(url).scheme
        if scheme not in ('http', 'https') or not urlsplit(url).hostname:
            raise AnalysisError(
                'analysis check "%s": url must be an http:// or https:// URL, not %r'
                % (self.name, _public_url(url))
            )
        timeout = _number(self.endpoint.get('timeout', 5), 'timeout of analysis check "%s"' % self.name)
        if timeout is None or timeout <= 0 or timeout > 3600:
            raise AnalysisError('analysis check "%s": timeout must be between 0 and 3600 seconds' % self.name)
        self.endpoint['timeout'] = timeout
        if http:
            regex = http.get('body_regex')
            try:
                self.body_regex = re.compile(regex) if regex else None
            except re.error as e:
                raise AnalysisError(
                    'analysis check "%s": body_regex is not a regular expression: %s' % (self.name, e)
                )
            self.statuses = [int(s) for s in (http.get('status') or [200])]
            method = (http.get('method') or 'GET').upper()
            if not re.match(r'^[A-Z]+$', method):
                raise AnalysisError(
                    'analysis check "%s": method %r is not an HTTP method' % (self.name, method)
                )
            self.method = method

    def secrets(self):
        found = []
        token = self.endpoint.get('bearer_token')
        if token:
            found.append(token)
        for value in (self.endpoint.get('headers') or {}).values():
            if value:
                found.append(str(value))
        parts = urlsplit(self.endpoint.get('url') or '')
        if parts.password:
            found.append(parts.password)
        return found

    @property
    def where(self):
        return _public_url(self.endpoint['url'])

    def describe(self):
        """What is measured, for results (no credentials)."""
        out = {'name': self.name, 'type': self.kind, 'url': self.where}
        if self.kind == 'prometheus':
            out.update(query=self.endpoint['query'], min=self.min, max=self.max)
        else:
            out.update(method=self.method, status=self.statuses)
            if self.body_regex is not None:
                out['body_regex'] = self.body_regex.pattern
        return out

    def _request(self, opener, url, method='GET'):
        headers = {str(k): str(v) for k, v in (self.endpoint.get('headers') or {}).items()}
        if self.endpoint.get('bearer_token'):
            headers['Authorization'] = 'Bearer %s' % self.endpoint['bearer_token']
        return opener(
            url,
            method=method,
            headers=headers,
            timeout=self.endpoint['timeout'],
            validate_certs=not self.endpoint.get('insecure'),
            ca_path=self.endpoint.get('ca_cert'),
            client_cert=self.endpoint.get('client_cert'),
            client_key=self.endpoint.get('client_key'),
        )

    def measure(self, opener):
        try:
            if self.kind == 'prometheus':
                return self._measure_prometheus(opener)
            return self._measure_http(opener)
        except Exception as e:  # anything the endpoint does is a failed measurement, never a traceback
            return Measurement(ERROR, 'check "%s": %s unreachable: %s' % (self.name, self.where, _reason(e)))

    def _measure_http(self, opener):
        status, body = self._request(opener, self.endpoint['url'], self.method)
        if status not in self.statuses:
            return Measurement(
                FAILED,
                'check "%s": %s %s answered %d, expected %s'
                % (self.name, self.method, self.where, status, ' or '.join(str(s) for s in self.statuses)),
                status,
            )
        if self.body_regex is not None:
            text = body.decode('utf-8', 'replace')
            if not self.body_regex.search(text):
                return Measurement(
                    FAILED,
                    'check "%s": the body of %s %s (%d) does not match %r'
                    % (self.name, self.method, self.where, status, self.body_regex.pattern),
                    status,
                )
        return Measurement(
            PASSED, 'check "%s": %s %s answered %d' % (self.name, self.method, self.where, status), status
        )

    def _measure_prometheus(self, opener):
        base = self.endpoint['url'].rstrip('/')
        url = '%s/api/v1/query?%s' % (base, urlencode({'query': self.endpoint['query']}))
        status, body = self._request(opener, url)
        try:
            answer = json.loads(body.decode('utf-8', 'replace'))
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            return Measurement(
                ERROR,
                'check "%s": %s answered %d without a Prometheus result' % (self.name, self.where, status),
            )
        if answer.get('status') != 'success':
            return Measurement(
                ERROR,
                'check "%s": the query failed at %s (%d): %s'
                % (
                    self.name,
                    self.where,
                    status,
                    answer.get('error') or answer.get('errorType') or 'no error given',
                ),
            )
        values = _values(answer.get('data'))
        if values is None:
            return Measurement(
                ERROR,
                'check "%s": %s answered a %s, not a number or a vector'
                % (self.name, self.where, (answer.get('data') or {}).get('resultType')),
            )
        numbers = [(labels, v) for labels, v in values if not math.isnan(v)]
        if not numbers:
            return Measurement(
                INCONCLUSIVE,
                'check "%s": the query returned no data%s' % (self.name, ' (NaN)' if values else ''),
            )
        for labels, value in numbers:
            if (self.min is not None and value < self.min) or (self.max is not None and value > self.max):
                return Measurement(
                    FAILED,
                    'check "%s": value %s%s is out of bounds (%s)'
                    % (self.name, _fmt(value), labels, _bounds(self.min, self.max)),
                    value,
                )
        value = numbers[0][1] if len(numbers) == 1 else [v for _labels, v in numbers]
        return Measurement(
            PASSED,
            'check "%s": value %s within bounds (%s)'
            % (
                self.name,
                _fmt(numbers[0][1]) if len(numbers) == 1 else ', '.join(_fmt(v) for _l, v in numbers),
                _bounds(self.min, self.max),
            ),
            value,
        )


def _values(data):
    """[(label text, float)] of a Prometheus instant-query result, or None for another shape."""
    if not isinstance(data, dict):
        return None
    kind, result = data.get('resultType'), data.get('result')
    try:
        if kind == 'scalar':
            return [('', float(result[1]))]
        if kind == 'vector':
            out = []
            for sample in result:
                metric = dict(sample.get('metric') or {})
                name = metric.pop('__name__', '')
                labels = ', '.join('%s="%s"' % (k, metric[k]) for k in sorted(metric))
                series = name + ('{%s}' % labels if labels else '')
                out.append((' of %s' % series if series else '', float(sample['value'][1])))
            return out
    except (TypeError, ValueError, KeyError, IndexError, AttributeError):
        return None
    return None


def _reason(err):
    reason = getattr(err, 'reason', None)
    if reason is not None and not isinstance(reason, str):
        reason = str(reason)
    return reason or str(err) or type(err).__name__


def open_endpoint(
    url,
    method='GET',
    headers=None,
    timeout=5,
    validate_certs=True,
    ca_path=None,
    client_cert=None,
    client_key=None,
):
    """(status, body) of one request; any status is an answer (only a lost connection raises)."""
    # Imported only when a check runs: it brings in cryptography, a tenth of a task's start.
    from ansible.module_utils.urls import open_url

    try:
        response = open_url(
            url,
            method=method,
            headers=headers,
            timeout=timeout,
            validate_certs=validate_certs,
            ca_path=ca_path,
            client_cert=client_cert,
            client_key=client_key,
            follow_redirects='none',
            use_proxy=True,
        )
    except Exception as e:
        code = getattr(e, 'code', None)
        if isinstance(code, int) and hasattr(e, 'read'):
            try:
                body = e.read(MAX_BODY)
            except Exception:
                body = b''
            return code, body
        raise
    try:
        return response.getcode(), response.read(MAX_BODY)
    finally:
        response.close()


class AnalysisGate:
    """The checks of one ``analysis`` option.

    ``due()``: a measurement is due (``interval`` seconds after the last); ``measure()``: measure
    every check once; ``failed``/``message``: whether more than ``failure_limit`` measurements of a
    check failed, and the message naming it; ``result()``: what a task returns."""

    def __init__(self, options, clock=time.time, opener=open_endpoint):
        options = options or {}
        checks = options.get('checks') or []
        if not checks:
            raise AnalysisError('analysis needs at least one check')
        self.interval = _number(options.get('interval', 5), 'analysis interval')
        if self.interval is None or self.interval <= 0 or self.interval > 86400:
            raise AnalysisError('analysis interval must be between 0 and 86400 seconds')
        self.failure_limit = int(options.get('failure_limit') or 0)
        if self.failure_limit < 0 or self.failure_limit > 1000000:
            raise AnalysisError('analysis failure_limit must be between 0 and 1000000')
        self.inconclusive = options.get('inconclusive') or 'fail'
        if self.inconclusive not in ('fail', 'pass'):
            raise AnalysisError('analysis inconclusive must be fail or pass, not %r' % self.inconclusive)
        self.checks = [Check(c or {}) for c in checks]
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

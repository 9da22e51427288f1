# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What every analysis provider shares: the ``Provider`` base class (an endpoint with its TLS and
credential options, measured into a ``Measurement``), the outcomes, ``AnalysisError`` and the
helpers that check and print numbers and URLs."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import math

try:
    from urllib.parse import urlsplit, urlunsplit
except ImportError:  # pragma: no cover - Python 2 is not supported, this keeps sanity's import test quiet
    from urlparse import urlsplit, urlunsplit  # noqa: F401

# Outcomes of one measurement of one check.
PASSED = 'passed'
FAILED = 'failed'
INCONCLUSIVE = 'inconclusive'
ERROR = 'error'


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


def number(value, what):
    """``value`` as a float (None stays None); AnalysisError when it is NaN or infinite."""
    if value is None:
        return None
    result = float(value)
    if math.isnan(result) or math.isinf(result):
        raise AnalysisError('%s must be a finite number, not %r' % (what, value))
    return result


def duration(value, what, maximum, label):
    """A duration option: a finite number above 0 and at most ``maximum`` seconds, else the
    AnalysisError ``<label> must be between 0 and <maximum> seconds``."""
    result = number(value, what)
    if result is None or result <= 0 or result > maximum:
        raise AnalysisError('%s must be between 0 and %d seconds' % (label, maximum))
    return result


def fmt(value):
    """A number as messages print it: whole numbers without a fraction."""
    if value is None:
        return 'none'
    if float(value) == int(value) and abs(value) < 1e15:
        return '%d' % int(value)
    return '%g' % value


def public_url(url):
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


def reason(err):
    """Why a request failed, in a few words."""
    why = getattr(err, 'reason', None)
    if why is not None and not isinstance(why, str):
        why = str(why)
    return why or str(err) or type(err).__name__


class Provider:
    """One kind of endpoint a check measures; an instance is one check's endpoint.

    A provider is a subclass: ``KEY``, the check option that selects it (its value the provider's
    options); ``OPTIONS``, the argument spec of those options, ``ENDPOINT_OPTIONS`` included, with
    their defaults (the ``analysis`` option's spec is built from it); ``_measure(opener)``, one
    measurement (anything it raises is an ``error`` outcome); ``describe()``, what it measures. A
    check's ``min`` and ``max`` reach every provider, which refuses them when it has no value to
    bound (``__init__`` of the subclass, before this one's)."""

    KEY = None
    DEFAULT_TIMEOUT = 5  # seconds one request may take
    MAX_TIMEOUT = 3600
    # The TLS and credential options of an endpoint, as for the API server's connection.
    ENDPOINT_OPTIONS = {
        'url': {'type': 'str', 'required': True},
        'bearer_token': {'type': 'str', 'no_log': True},
        'headers': {'type': 'dict', 'no_log': True},
        'ca_cert': {'type': 'path'},
        'client_cert': {'type': 'path'},
        'client_key': {'type': 'path'},
        'insecure': {'type': 'bool', 'default': False},
        'timeout': {'type': 'float', 'default': DEFAULT_TIMEOUT},
    }
    OPTIONS = ENDPOINT_OPTIONS

    def __init__(self, name, options, low=None, high=None):
        """``options``: the provider's options (the value of ``KEY``); ``low``, ``high``: the check's
        ``min`` and ``max`` (finite numbers or None)."""
        self.name = name
        self.min = low
        self.max = high
        if low is not None and high is not None and low > high:
            raise AnalysisError('analysis check "%s": min %s is above max %s' % (name, fmt(low), fmt(high)))
        self.endpoint = dict(options)
        url = self.endpoint.get('url') or ''
        if urlsplit(url).scheme not in ('http', 'https') or not urlsplit(url).hostname:
            raise AnalysisError(
                'analysis check "%s": url must be an http:// or https:// URL, not %r'
                % (name, public_url(url))
            )
        self.endpoint['timeout'] = duration(
            self.endpoint.get('timeout', self.DEFAULT_TIMEOUT),
            'timeout of analysis check "%s"' % name,
            self.MAX_TIMEOUT,
            'analysis check "%s": timeout' % name,
        )

    def secrets(self):
        """The credentials of the endpoint (for redaction)."""
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
        return public_url(self.endpoint['url'])

    def describe(self):
        """What is measured, for results (no credentials); subclasses add their own fields."""
        return {'name': self.name, 'type': self.KEY, 'url': self.where}

    def request(self, opener, url, method):
        """(status, body) of one request to ``url`` with the endpoint's credentials and TLS options."""
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
        """One ``Measurement``; ``opener(url, **options) -> (status, body)`` sends the request."""
        try:
            return self._measure(opener)
        except Exception as e:  # anything the endpoint does is a failed measurement, never a traceback
            return Measurement(ERROR, 'check "%s": %s unreachable: %s' % (self.name, self.where, reason(e)))

    def _measure(self, opener):
        raise NotImplementedError

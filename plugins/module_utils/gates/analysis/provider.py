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
import re
import time
import unicodedata

try:
    from urllib.parse import unquote, urlsplit, urlunsplit
except ImportError:  # pragma: no cover - Python 2 is not supported, this keeps sanity's import test quiet
    from urllib import unquote  # noqa: F401
    from urlparse import urlsplit, urlunsplit  # noqa: F401

from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import redact

# Outcomes of one measurement of one check.
PASSED = 'passed'
FAILED = 'failed'
INCONCLUSIVE = 'inconclusive'
ERROR = 'error'
# Not measured: check mode, where a job check's Job is only created with dryRun=All. Counts as
# neither a pass nor a failure.
SKIPPED = 'skipped'

# Text an endpoint chose (an error, a label, a reason) is shown cut to this many characters; a whole
# measurement message to MAX_MESSAGE.
MAX_SHOWN = 200
MAX_MESSAGE = 2000
# A header name: an RFC 9110 token.
HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")


class AnalysisError(Exception):
    """Options that cannot be measured (raised before any request)."""


class TimedOut(Exception):
    """A measurement's deadline passed (``timeout`` seconds for all of it)."""

    def __init__(self, seconds):
        super(TimedOut, self).__init__('no complete answer within %s seconds (timeout)' % fmt(seconds))
        self.seconds = seconds


class Measurement:
    """One measurement of one check: outcome, value (a number, a list of numbers, an HTTP status, or
    None), message."""

    def __init__(self, outcome, message, value=None):
        self.outcome = outcome
        self.message = message
        self.value = value
        # An inconclusive measurement that counts as a failure even with ``inconclusive: pass`` (a
        # job check whose Job was deleted before it ended: tolerating it would let a deletion pass).
        self.always_counts = False

    def as_dict(self, at):
        return {'outcome': self.outcome, 'value': json_value(self.value), 'message': self.message, 'at': at}


def json_value(value):
    """``value`` as results carry it: JSON has no infinity or NaN, so those are Prometheus's spelling
    (``+Inf``, ``-Inf``, ``NaN``), as strings."""
    if isinstance(value, list):
        return [json_value(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return fmt(value)
    return value


def number(value, what):
    """``value`` as a float (None stays None); AnalysisError when it is NaN or infinite."""
    if value is None:
        return None
    result = float(value)
    if math.isnan(result) or math.isinf(result):
        raise AnalysisError('%s must be a finite number, not %r' % (what, value))
    return result


def duration(value, what, maximum, label, minimum=0):
    """A duration option: a finite number above 0 (at least ``minimum`` when it is given) and at
    most ``maximum`` seconds, else the AnalysisError ``<label> must be between <minimum> and
    <maximum> seconds``."""
    result = number(value, what)
    if result is None or result <= 0 or result < minimum or result > maximum:
        raise AnalysisError('%s must be between %s and %d seconds' % (label, fmt(minimum), maximum))
    return result


def fmt(value):
    """A number as messages print it: whole numbers without a fraction; infinities and NaN as
    Prometheus spells them (``+Inf``, ``-Inf``, ``NaN``)."""
    if value is None:
        return 'none'
    value = float(value)
    if math.isnan(value):
        return 'NaN'
    if math.isinf(value):
        return '+Inf' if value > 0 else '-Inf'
    if value == int(value) and abs(value) < 1e15:
        return '%d' % int(value)
    return '%g' % value


def _escaped(char):
    if char in '\n\r\t':
        return {'\n': '\\n', '\r': '\\r', '\t': '\\t'}[char]
    if unicodedata.category(char) in ('Cc', 'Cf', 'Cs', 'Zl', 'Zp'):
        code = ord(char)
        return '\\x%02x' % code if code < 0x100 else '\\u%04x' % code if code < 0x10000 else '\\U%08x' % code
    return char


def shown(text, limit=MAX_SHOWN):
    """Text that came from an endpoint, as a message may show it: control and format characters
    escaped (a line break as ``\\n``, ESC as ``\\x1b``, a bidi override as ``\\u202e``), so it cannot
    forge lines or colours of the output, and cut to ``limit`` characters, saying how many more
    there were. Bytes are read as UTF-8."""
    if isinstance(text, bytes):
        text = text.decode('utf-8', 'replace')
    text = str(text)
    out, size = [], 0
    for index, char in enumerate(text):
        piece = _escaped(char)
        if size + len(piece) > limit:
            out.append('... (%d more characters)' % (len(text) - index))
            break
        out.append(piece)
        size += len(piece)
    return ''.join(out)


def header_problem(name, value, where=None):
    """Why a request header cannot be sent as given (None when it can), without its value: a name
    that is not a token, a value with a line break or another control character (a token read from
    a file or a Secret often ends in a newline), or one that is not Latin-1 text. ``where`` names
    the value in the message (``the value of header <name>`` unless given)."""
    if not HEADER_NAME.match(name):
        return 'header name %s is not a valid HTTP header name' % shown(repr(name), 60)
    where = where or 'the value of header %s' % name
    if any(c in value for c in '\r\n'):
        return ('%s contains a line break (CR or LF), which would end the header; a token read from a '
                'file or a Secret often ends in a newline: strip it (for example with | trim)' % where)
    if any(unicodedata.category(c) == 'Cc' and c != '\t' for c in value):
        return '%s contains a control character' % where
    try:
        value.encode('latin-1')
    except UnicodeError:
        return '%s is not Latin-1 text (HTTP header values are)' % where
    return None


def url_problem(url):
    """Why ``url`` cannot be requested (None when it can): not http(s), no host, a bad port, or a
    space or control character in it."""
    if any(c.isspace() or unicodedata.category(c) in ('Cc', 'Cf') for c in url):
        return 'url contains a space or a control character'
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - a port that is not a number raises ValueError here
    except ValueError:
        return 'url %s has an invalid port' % shown(repr(public_url(url)), 300)
    if parts.scheme not in ('http', 'https') or not parts.hostname:
        return 'url must be an http:// or https:// URL, not %s' % shown(repr(public_url(url)), 300)
    return None


def public_url(url):
    """The URL without a password (and without a user name beside it)."""
    try:
        parts = urlsplit(url)
        if parts.password is None and parts.username is None:
            return url
        port = parts.port
    except ValueError:
        return re.sub(r'//[^/@]*@', '//', url)
    host = parts.hostname or ''
    if ':' in host:
        host = '[%s]' % host
    if port is not None:
        host += ':%d' % port
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


def reason(err):
    """Why a request failed, in a few words."""
    why = getattr(err, 'reason', None)
    if why is not None and not isinstance(why, str):
        why = str(why)
    if why and why in str(err):  # an ssl.SSLError's reason is a code its text explains
        why = str(err)
    return why or str(err) or type(err).__name__


class Provider:
    """One kind of endpoint a check measures; an instance is one check's endpoint.

    A provider is a subclass: ``KEY``, the check option that selects it (its value the provider's
    options); ``OPTIONS``, the argument spec of those options, ``ENDPOINT_OPTIONS`` included, with
    their defaults (the ``analysis`` option's spec is built from it); ``_measure(opener)``, one
    measurement (anything it raises is an ``error`` outcome; ``time_left()`` is what remains of its
    ``timeout``); ``describe()``, what it measures. A check's ``min`` and ``max`` reach every
    provider, which refuses them when it has no value to bound (``__init__`` of the subclass, before
    this one's).

    Every message a measurement carries is cleaned here: secrets (every form of ``secrets()``)
    redacted, control characters escaped, its length bounded. Text from the endpoint goes through
    ``endpoint_text`` first, which also cuts it short."""

    KEY = None
    # Options of the check itself (beside name, min and max) the provider reads: given to its
    # ``__init__`` as keyword arguments, refused on a check of another provider.
    CHECK_LEVEL_OPTIONS = ()
    # Whether the next measurement is due ``interval`` seconds after this one ended (not began).
    INTERVAL_FROM_END = False
    DEFAULT_TIMEOUT = 5  # seconds one measurement may take, all of it
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
        problem = url_problem(self.endpoint.get('url') or '')
        if problem:
            raise AnalysisError('analysis check "%s": %s' % (name, problem))
        self.endpoint['timeout'] = duration(
            self.endpoint.get('timeout', self.DEFAULT_TIMEOUT),
            'timeout of analysis check "%s"' % name,
            self.MAX_TIMEOUT,
            'analysis check "%s": timeout' % name,
        )
        # Refused before anything is sent: http.client would otherwise refuse it with the value in
        # its message (a secret), and a line break in a value would split the request.
        options = self.endpoint.get('headers') or {}
        given = [(str(k), str(v), None) for k, v in options.items() if v is not None]
        if self.endpoint.get('bearer_token'):
            given.append(('Authorization', 'Bearer %s' % self.endpoint['bearer_token'], 'bearer_token'))
        for header, value, where in given:
            problem = header_problem(header, value, where)
            if problem:
                raise AnalysisError('analysis check "%s": %s' % (name, problem))
        self.deadline = None

    def headers(self):
        """The request headers: the ``headers`` option's and ``Authorization`` from ``bearer_token``."""
        headers = {str(k): str(v) for k, v in (self.endpoint.get('headers') or {}).items() if v is not None}
        if self.endpoint.get('bearer_token'):
            headers['Authorization'] = 'Bearer %s' % self.endpoint['bearer_token']
        return headers

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
            # As written in the URL, decoded, and as basic auth sends it (user:password, base64).
            for password in (parts.password, unquote(parts.password)):
                found.append(password)
                found.append('%s:%s' % (unquote(parts.username or ''), password))
        return sorted(set(found), key=found.index)

    @property
    def where(self):
        return public_url(self.endpoint['url'])

    def describe(self):
        """What is measured, for results (no credentials); subclasses add their own fields."""
        return {'name': self.name, 'type': self.KEY, 'url': self.where}

    def time_left(self):
        """Seconds left of the measurement under way (its ``timeout`` counts from its start)."""
        if self.deadline is None:
            return self.endpoint['timeout']
        return self.deadline - time.monotonic()

    def endpoint_text(self, text, limit=MAX_SHOWN):
        """Text from the endpoint as a message may show it: secrets redacted, then ``shown``."""
        if isinstance(text, bytes):
            text = text.decode('utf-8', 'replace')
        return shown(redact(text, self.secrets()), limit)

    def request(self, opener, url, method):
        """(status, body) of one request to ``url`` with the endpoint's credentials and TLS options."""
        return opener(
            url,
            method=method,
            headers=self.headers(),
            timeout=self.endpoint['timeout'],
            validate_certs=not self.endpoint.get('insecure'),
            ca_path=self.endpoint.get('ca_cert'),
            client_cert=self.endpoint.get('client_cert'),
            client_key=self.endpoint.get('client_key'),
        )

    def measure(self, opener):
        """One ``Measurement``; ``opener(url, **options) -> (status, body)`` sends the request and
        raises ``TimedOut`` when its ``timeout`` has passed."""
        self.deadline = time.monotonic() + self.endpoint['timeout']
        try:
            measurement = self._measure(opener)
        except TimedOut as e:
            measurement = Measurement(ERROR, 'check "%s": %s: %s' % (self.name, self.where, e))
        except Exception as e:  # anything the endpoint does is a failed measurement, never a traceback
            why = self.endpoint_text(reason(e))
            measurement = Measurement(ERROR, 'check "%s": %s unreachable: %s' % (self.name, self.where, why))
        finally:
            self.deadline = None
        measurement.message = shown(redact(measurement.message, self.secrets()), MAX_MESSAGE)
        return measurement

    def probe(self, opener):
        """A preflight's look: whether the check can be measured at all (an ``error`` measurement
        when not). Here one measurement; a provider whose measurement changes something (a job
        check creates a Job) asks without changing anything."""
        return self.measure(opener)

    def _measure(self, opener):
        """Each provider class measures its own kind of check (prometheus.py, http.py, job.py)."""
        raise NotImplementedError('%s does not say how to measure its checks' % type(self).__name__)

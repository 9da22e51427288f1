# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""``ApiClient``: raw JSON requests to the Kubernetes API (verbs, bounded retries, decoding).

Every request and response body is plain JSON (dicts and lists), never a typed client model, so a
field the client library does not know survives a read-modify-write. Where the API is and how to
authenticate comes from the ``connection`` package; the bytes go through ``transport.py``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import http.client
import json
import math
import re
import ssl
import time

try:
    from urllib.parse import quote, urlencode
except ImportError:  # pragma: no cover - Python 2 is not supported, this keeps sanity's import test quiet
    quote = urlencode = None

from ansible_collections.kubeops.rollout.plugins.module_utils.common.vocabulary import setting
from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection.certificates import ssl_context
from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection.options import load_connection
from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection.tokens import auth_headers
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import (
    ApiError,
    ConnectionFailure,
    redact,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.api.transport import (
    MAX_RESPONSE_BYTES,
    READ_TIMEOUT,
    ConnectFailed,
    RequestTimeout,
    ResponseTooLarge,
    Transport,
)

USER_AGENT = 'kubeops.rollout'
FIELD_MANAGER = 'kubeops-rollout'

# Retry policy: bounded, with exponential backoff and jitter.
MAX_ATTEMPTS = 5
CONNECT_ATTEMPTS = 3  # an API that refuses connections is most likely down: fail fast
BACKOFF_BASE = 0.2
BACKOFF_MAX = 2.0
RETRY_AFTER_MAX = 10.0
RETRIABLE_STATUS = (500, 502, 503, 504)
# A write that meets a conflict is decided again from a fresh read, this many times in all.
WRITE_ATTEMPTS = 5
# A watch the server ends at once (empty, after one event, or nothing but noise) is re-opened after
# a growing, jittered pause, so a broken server is not hammered.
REWATCH_BACKOFF_BASE = 0.25
REWATCH_BACKOFF_MAX = 4.0
QUICK_WATCH_SECONDS = 1.0

# The content types of a PATCH (kinds/patches.py builds the bodies).
STRATEGIC_MERGE = 'application/strategic-merge-patch+json'
JSON_PATCH = 'application/json-patch+json'
MERGE_PATCH = 'application/merge-patch+json'


class ApiClient:
    """Raw JSON requests to one API server, with bounded retries of what is safe to retry.

    Paths are API paths (``/apis/apps/v1/namespaces/default/deployments/web``); bodies and results
    are plain dicts. Thread-safe (the transport is), so waiters can share one client.
    """

    def __init__(self, connection, transport=None, sleep=time.sleep, request_timeout=READ_TIMEOUT):
        self.connection = connection
        self.sleep = sleep
        self.base = connection.server
        self.request_timeout = getattr(connection, 'request_timeout', None) or request_timeout
        self._quick_watches = 0
        self._credential = None  # the exec plugin's credential the transport was built for
        self._transport = transport if transport is not None else self._make_transport()

    @classmethod
    def from_params(cls, params, env=None):
        return cls(load_connection(params, env))

    def _exec_credential(self):
        """The exec plugin's current credential (runs the plugin when needed), its secrets registered."""
        credential = self.connection.exec_provider.get()
        self.connection.register_secrets()
        return credential

    def _make_transport(self):
        conn = self.connection
        if conn.exec_provider is not None:
            credential = self._credential = self._exec_credential()
            if credential.client_certificate_data:
                conn.cert_file = conn.key_file = None
                conn.cert_data = credential.client_certificate_data.encode('utf-8')
                conn.key_data = credential.client_key_data.encode('utf-8')
        context = ssl_context(conn) if self.base.startswith('https://') else None
        return Transport(self.base, conn, context)

    def _use_credential(self, credential):
        """Switch to a new exec credential: a new client certificate needs new connections."""
        old, self._credential = self._credential, credential
        if (old is None or old.client_certificate_data != credential.client_certificate_data) \
                and credential.client_certificate_data:
            stale, self._transport = self._transport, self._make_transport()
            stale.close()

    def _headers(self, content_type=None):
        """Request headers as (name, value) pairs: Impersonate-Group repeats, one per group."""
        conn = self.connection
        headers = [('Accept', 'application/json'), ('User-Agent', USER_AGENT)]
        if content_type:
            headers.append(('Content-Type', content_type))
        token = conn.token
        if conn.exec_provider is not None:
            credential = self._exec_credential()
            if credential is not self._credential:
                self._use_credential(credential)
            token = credential.token
        headers.extend(auth_headers(conn, token))
        return headers

    def _reauthenticate(self):
        """After a 401: a new credential if one can be had (exec plugin, token file, auth-provider).
        Returns whether to try again."""
        conn = self.connection
        if conn.exec_provider is not None:
            credential = conn.exec_provider.refresh(stale=self._credential)
            conn.register_secrets()
            self._use_credential(credential)
            return True
        if conn.refresh:
            try:
                conn.token = conn.refresh()
            except Exception:  # a failed refresh leaves the 401 as the answer
                return False
            conn.register_secrets()
            return True
        return False

    # -- core request
    def _url(self, path, query):
        """The request target: the API path and its query string (the transport knows the server)."""
        if query:
            path += '?' + urlencode([(k, v) for k, v in query.items() if v is not None])
        return path

    def _backoff(self, attempt):
        import random  # only when retrying
        delay = min(BACKOFF_MAX, BACKOFF_BASE * (2 ** (attempt - 1)))
        return delay * (0.75 + random.random() / 2)

    def _where(self):
        return redact(self.base, [])

    def request(self, method, path, query=None, body=None, content_type=None, retry=None,
                stream=False, read_timeout=None):
        """Send one request; returns the decoded JSON (or the streaming response when ``stream``).

        ``retry``: whether the request may be repeated after a server error or a dropped connection
        (default: only for GET). 429 is always retried (the server did not process the request), as
        is a refused connection (nothing was sent).
        """
        if retry is None:
            retry = method == 'GET'
        target = self._url(path, query)
        data = None
        if body is not None:
            data = encode_body(body)
            content_type = content_type or 'application/json'
        refreshed = False
        attempt = 0
        timeout = read_timeout or self.request_timeout
        while True:
            attempt += 1
            try:
                resp = self._transport.request(method, target, data, self._headers(content_type),
                                               stream=stream, read_timeout=timeout)
            except RequestTimeout:
                # Not retried: a server that let the whole deadline pass will most likely do it again.
                raise ConnectionFailure('the Kubernetes API at %s did not answer %s %s within %ss (connect, '
                                        'headers and body together); is the API server overloaded or '
                                        'the network path broken?' % (self._where(), method, path,
                                                                      _seconds(timeout)))
            except ResponseTooLarge:
                raise ApiError(0, 'ResponseTooLarge', 'the answer of the Kubernetes API at %s to %s %s is '
                               'larger than %d MiB; refusing to read it (narrow the request, e.g. with '
                               'label_selectors)' % (self._where(), method, path, MAX_RESPONSE_BYTES >> 20))
            except ConnectFailed as e:
                if isinstance(e.error, ssl.SSLError) or 'CERTIFICATE_VERIFY_FAILED' in str(e):
                    raise self._tls_failure(e.error)
                if attempt < CONNECT_ATTEMPTS:
                    self.sleep(self._backoff(attempt))
                    continue
                proxy = getattr(self._transport, 'proxy_url', None)
                if proxy:
                    raise ConnectionFailure(
                        'cannot reach the Kubernetes API at %s through the proxy %s (%s): %s. Check the '
                        'proxy (proxy option or kubeconfig proxy-url) is running and lets the request '
                        'through.' % (self._where(), proxy, self.connection.source, self._reason(e.error)))
                raise ConnectionFailure('cannot reach the Kubernetes API at %s (%s): %s. Check the host or '
                                        'kubeconfig server address and that the API server is running.'
                                        % (self._where(), self.connection.source, self._reason(e.error)))
            except (OSError, http.client.HTTPException) as e:
                if 'CERTIFICATE_VERIFY_FAILED' in str(e):
                    raise self._tls_failure(e)
                if retry and attempt < MAX_ATTEMPTS:
                    self.sleep(self._backoff(attempt))
                    continue
                raise ConnectionFailure('the connection to the Kubernetes API at %s failed during %s %s: %s'
                                        % (self._where(), method, path, self._reason(e)))
            if 200 <= resp.status < 300:
                if stream:
                    return resp
                return self._decode(resp, method, path)
            error = self._error(resp, method, path)
            if stream:
                resp.close()
            if error.status == 401 and not refreshed:
                refreshed = True
                if self._reauthenticate():
                    attempt -= 1
                    continue
            if error.status == 429 and attempt < MAX_ATTEMPTS:
                delay = error.retry_after if error.retry_after is not None else self._backoff(attempt)
                self.sleep(min(RETRY_AFTER_MAX, max(0.0, delay)))
                continue
            if error.status in RETRIABLE_STATUS and retry and attempt < MAX_ATTEMPTS:
                self.sleep(self._backoff(attempt))
                continue
            raise error

    def _reason(self, exc):
        text = str(exc) or type(exc).__name__  # e.g. "timed out", "[Errno 111] Connection refused"
        m = re.search(r'(\[Errno -?\d+\][^)\'"]*)', text)
        if m:
            text = m.group(1).strip()
        return redact(text, self.connection.secrets())

    def _tls_failure(self, exc):
        text = self._reason(exc)
        m = re.search(r'certificate verify failed:?\s*([^(\')"]*)', str(exc))
        detail = ('certificate verify failed: ' + m.group(1).strip()) if m else text
        if 'mismatch' in detail.lower():
            return ConnectionFailure(
                'TLS handshake with the Kubernetes API at %s failed (%s): the server\'s certificate is for '
                'another host name. Check the server address; a certificate valid for another name of '
                'this server needs tls-server-name in the kubeconfig set to that name.'
                % (self._where(), detail.rstrip('. ')), tls=True)
        return ConnectionFailure(
            'TLS handshake with the Kubernetes API at %s failed (%s). Set ca_cert (or the kubeconfig '
            'certificate-authority) to the CA that signed the API server certificate; %s skips the check '
            '(testing only).' % (self._where(), detail.rstrip('. '), setting('validate_certs', False)),
            tls=True)

    def _bad_answer(self, status, method, path, problem):
        return ApiError(status, 'BadResponse', 'the Kubernetes API at %s answered %s %s with %s (is %s '
                        'really a Kubernetes API server, or is a proxy in the way?)'
                        % (self._where(), method, path, problem, self._where()))

    def _decode(self, resp, method, path):
        raw = resp.data
        if not raw:
            return {}
        try:
            value = json.loads(raw.decode('utf-8'))
        except (ValueError, UnicodeDecodeError):
            raise self._bad_answer(resp.status, method, path, 'a body that is not JSON')
        except RecursionError:
            raise self._bad_answer(resp.status, method, path, 'JSON nested too deeply to read')
        if not isinstance(value, dict):
            raise self._bad_answer(resp.status, method, path, 'a JSON %s, not an object'
                                   % _json_type(value))
        return value

    def _error(self, resp, method, path):
        try:
            raw = resp.data or b''
        except (ResponseTooLarge, RequestTimeout, OSError, http.client.HTTPException):
            raw = b''  # the status says enough
        if 300 <= resp.status < 400:
            location = redact(resp.headers.get('Location') or 'nowhere', self.connection.secrets())
            return ApiError(resp.status, 'Redirect', 'the Kubernetes API at %s answered %s %s with a '
                            'redirect (%d %s) to %s, which is not followed: an API server never redirects, '
                            'so the server address is wrong or a login page or proxy is in the way'
                            % (self._where(), method, path, resp.status, resp.reason or 'Redirect',
                               _short_text(location, 200)))
        body = None
        try:
            body = json.loads(raw.decode('utf-8'))
        except (ValueError, UnicodeDecodeError, RecursionError):
            pass
        retry_after = _seconds_or_none(resp.headers.get('Retry-After'))
        if isinstance(body, dict) and body.get('kind') == 'Status':
            message = body.get('message') or resp.reason or 'error'
            reason = body.get('reason') or ''
            if not isinstance(message, str) or not isinstance(reason, str):
                message, reason = str(message), str(reason)
            if retry_after is None:
                details = body.get('details')
                retry_after = _seconds_or_none((details if isinstance(details, dict) else {})
                                               .get('retryAfterSeconds'))
        else:
            message = raw.decode('utf-8', 'replace').strip()[:300] or (resp.reason or 'error')
            reason = resp.reason or ''
        message = redact(message, self.connection.secrets())
        return ApiError(resp.status, reason, message, body if isinstance(body, dict) else None, retry_after)

    # -- verbs
    def _write_query(self, dry_run, query=None):
        q = dict(query or {})
        q['fieldManager'] = FIELD_MANAGER
        if dry_run:
            q['dryRun'] = 'All'
        return q

    def get(self, path, query=None):
        return self.request('GET', path, query=query)

    def list(self, path, label_selector=None, field_selector=None, query=None):
        q = dict(query or {})
        if label_selector:
            q['labelSelector'] = label_selector
        if field_selector:
            q['fieldSelector'] = field_selector
        return self.request('GET', path, query=q)

    def create(self, path, body, dry_run=False, retry=False):
        """``retry``: set it when the caller takes a 409 AlreadyExists for what a lost answer left
        (it reads the object and decides whether it is its own). Otherwise a create is not
        repeated after a dropped connection or a server error: it may have been stored."""
        return self.request('POST', path, query=self._write_query(dry_run), body=body, retry=retry)

    def replace(self, path, body, dry_run=False):
        # Safe to retry: the body's metadata.resourceVersion makes a repeat a 409, never a double write.
        retry = bool((body.get('metadata') or {}).get('resourceVersion'))
        return self.request('PUT', path, query=self._write_query(dry_run), body=body, retry=retry)

    def patch(self, path, body, content_type=STRATEGIC_MERGE, dry_run=False,
              retry=False):
        """``retry``: set it for patches that are safe to repeat (guarded by a resourceVersion test,
        or setting absolute values so that a repeat changes nothing).

        A JSON patch carrying a ``test`` operation that the server answers with 422 is a conflict
        (``ApiError.is_conflict``): that is how the API server reports a failed ``test``."""
        try:
            return self.request('PATCH', path, query=self._write_query(dry_run), body=body,
                                content_type=content_type, retry=retry)
        except ApiError as e:
            if content_type == JSON_PATCH and isinstance(body, list) \
                    and any(isinstance(op, dict) and op.get('op') == 'test' for op in body):
                e.patch_had_test = True
            raise

    def delete(self, path, body=None, dry_run=False, query=None):
        return self.request('DELETE', path, query=self._write_query(dry_run, query), body=body, retry=True)

    def watch(self, path, resource_version=None, field_selector=None, label_selector=None,
              timeout_seconds=60):
        """Yield (type, object) events until the server ends the stream (re-watch from the last
        resourceVersion then). An ``ERROR`` event is raised as ApiError (410 Gone: list again)."""
        query = {'watch': 'true', 'timeoutSeconds': int(max(1, timeout_seconds)),
                 'allowWatchBookmarks': 'true'}
        if resource_version:
            query['resourceVersion'] = resource_version
        if field_selector:
            query['fieldSelector'] = field_selector
        if label_selector:
            query['labelSelector'] = label_selector
        started = time.monotonic()
        resp = self.request('GET', path, query=query, stream=True, read_timeout=timeout_seconds + 5)
        yield from self._stream_events(resp, path)
        if time.monotonic() - started < QUICK_WATCH_SECONDS:
            # The server ended the watch at once (empty, or after an event or two: a server or proxy
            # that ends every watch early), long before its timeoutSeconds: pause before the caller
            # re-watches, longer each time, so that such a server is not hammered.
            import random  # only when backing off
            self._quick_watches += 1
            delay = min(REWATCH_BACKOFF_MAX, REWATCH_BACKOFF_BASE * (2 ** (self._quick_watches - 1)))
            self.sleep(delay * (0.5 + random.random() / 2))
        else:
            self._quick_watches = 0

    def _stream_events(self, resp, path=''):
        """The events of a watch response, one JSON document per line; closes the response."""
        buf = b''
        try:
            while True:
                try:
                    chunk = resp.read1(65536)  # what has arrived, up to a chunk: events are not delayed
                except RequestTimeout:
                    return  # the server kept the watch open past its timeoutSeconds: re-watch
                if not chunk:
                    break
                buf += chunk
                if len(buf) > MAX_RESPONSE_BYTES:
                    raise ApiError(0, 'ResponseTooLarge', 'a watch event from the Kubernetes API at %s '
                                   '(watching %s) is larger than %d MiB'
                                   % (self._where(), path, MAX_RESPONSE_BYTES >> 20))
                while b'\n' in buf:
                    line, buf = buf.split(b'\n', 1)
                    event = self._event(line, path)
                    if event is not None:
                        yield event
            event = self._event(buf, path)
            if event is not None:
                yield event
        except (OSError, http.client.HTTPException):
            return  # the stream ended early: the caller re-watches from its last resourceVersion
        finally:
            resp.close()

    def _bad_event(self, path, problem):
        return ApiError(0, 'BadWatchEvent', 'the Kubernetes API at %s sent a malformed watch event while '
                        'watching %s: %s (is %s really a Kubernetes API server, or is a proxy in the way?)'
                        % (self._where(), path, problem, self._where()))

    def _event(self, line, path=''):
        line = line.strip()
        if not line:
            return None
        try:
            event = json.loads(line.decode('utf-8'))
        except (UnicodeDecodeError, ValueError):
            raise self._bad_event(path, 'not JSON (%d bytes)' % len(line))
        except RecursionError:
            raise self._bad_event(path, 'JSON nested too deeply to read')
        if not isinstance(event, dict):
            raise self._bad_event(path, 'a JSON %s, not an object' % type(event).__name__)
        kind, obj = event.get('type'), event.get('object')
        if kind not in ('ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'):
            raise self._bad_event(path, 'unknown event type %s' % _short(kind))
        if not isinstance(obj, dict):
            raise self._bad_event(path, '%s event without an object' % kind)
        if kind == 'ERROR':
            code = obj.get('code')
            message = obj.get('message')
            return_code = code if isinstance(code, int) and not isinstance(code, bool) else 500
            raise ApiError(return_code, obj.get('reason') if isinstance(obj.get('reason'), str) else '',
                           message if isinstance(message, str) and message else 'watch error', obj)
        if kind != 'BOOKMARK' and not isinstance(obj.get('metadata'), dict):
            raise self._bad_event(path, '%s event whose object has no metadata' % kind)
        return kind, obj


# What Go's encoding/json escapes beyond JSON's minimum (it writes other non-ASCII text as is).
_GO_ESCAPES = (('<', '\\u003c'), ('>', '\\u003e'), ('&', '\\u0026'),
               ('\u2028', '\\u2028'), ('\u2029', '\\u2029'))


def encode_body(body):
    """``body`` as JSON bytes spelled as the API server spells the objects it stores (Go's
    encoding/json). The server's JSON patch compares a `test` operation's string values byte for
    byte with the stored object as it encodes it, so an annotation holding ``&`` (``\\u0026`` there)
    or non-ASCII text would otherwise fail the test whatever happened to the object."""
    text = json.dumps(body, separators=(',', ':'), ensure_ascii=False)
    for char, escape in _GO_ESCAPES:
        text = text.replace(char, escape)
    try:
        return text.encode('utf-8')
    except UnicodeEncodeError:  # a lone surrogate: only an escape can carry it
        return json.dumps(body, separators=(',', ':')).encode('ascii')


def retry_on_conflict(attempt, attempts=WRITE_ATTEMPTS, exhausted=None):
    """Run ``attempt(conflicted)`` (read, decide, write) again after each conflict (409, or a failed
    JSON-patch `test`: ``ApiError.is_conflict``), at most ``attempts`` times in all; the attempt
    reads afresh each time.

    ``conflicted`` tells the attempt that an earlier write may have landed (its answer lost, or a
    concurrent writer got there first). When the last attempt conflicts too, ``exhausted()`` is
    raised if given, else the conflict.
    """
    for number in range(1, attempts + 1):
        try:
            return attempt(number > 1)
        except ApiError as e:
            if not e.is_conflict:
                raise
            if number == attempts:
                if exhausted is not None:
                    raise exhausted()
                raise
    raise AssertionError('unreachable')  # pragma: no cover


def _seconds(value):
    return ('%g' % value) if isinstance(value, float) else str(value)


def _seconds_or_none(value):
    """A Retry-After / retryAfterSeconds value as seconds, or None when it is not a finite number."""
    if value is None or isinstance(value, bool):
        return None
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return None
    if not math.isfinite(seconds) or seconds < 0:
        return None
    return seconds


def _json_type(value):
    return {list: 'array', str: 'string', bool: 'boolean', type(None): 'null'}.get(
        type(value), 'number' if isinstance(value, (int, float)) else type(value).__name__)


def _short_text(text, limit):
    return text if len(text) <= limit else text[:limit - 3] + '...'


def _short(value):
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + '...'


def path_quote(segment):
    """Quote one path segment (object names are DNS names, but be safe)."""
    return quote(str(segment), safe='')

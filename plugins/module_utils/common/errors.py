# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The errors every request can raise (``KubeError`` and its kinds), how a message names them
(``describe_error``, ``error_text``) and ``redact``, which keeps secrets out of the messages users
see."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import json
import re

try:
    from urllib.parse import quote, quote_plus
except ImportError:  # pragma: no cover - Python 2 is not supported, this keeps sanity's import test quiet
    from urllib import quote, quote_plus  # noqa: F401

MIN_SECRET_LENGTH = 4

# The message of apimachinery's NewGenericServerResponse for 422, which the patch handler uses for a
# JSON patch that does not apply.
PATCH_NOT_APPLIED = 'the server rejected our request due to an error in our request'


# What a secret is replaced with, in every output.
REDACTED = '********'


class KubeError(Exception):
    """Anything that stops a request; ``message`` is safe to show (no secrets)."""

    def __init__(self, message):
        super(KubeError, self).__init__(message)
        self.message = message


class ConfigError(KubeError):
    """The connection could not be configured (no kubeconfig, unknown context, unreadable file)."""


class ConnectionFailure(KubeError):
    """The API server could not be reached or its TLS certificate was not trusted."""

    def __init__(self, message, tls=False):
        super(ConnectionFailure, self).__init__(message)
        self.tls = tls


class ApiError(KubeError):
    """The API server answered with an error ``Status``."""

    def __init__(self, status, reason, message, body=None, retry_after=None):
        super(ApiError, self).__init__(message)
        self.status = status
        self.reason = reason
        self.body = body or {}
        self.retry_after = retry_after
        # Set by the client when this answers a JSON patch that carried a `test` operation.
        self.patch_had_test = False

    @property
    def is_conflict(self):
        """A failed optimistic-concurrency guard: 409 Conflict, or the API server's answer to a JSON
        patch whose `test` operation failed. The patch handler reports any JSON patch that does not
        apply (a failed `test`, a path no longer there) as a bare 422 Invalid: the generic message
        and no causes, unlike a validation error (``<kind> "<name>" is invalid: ...`` with causes).
        Only the sender knows the patch carried a `test`; for a patch built from what was read,
        either way it no longer applies means the object changed since."""
        if self.status == 409:
            return True
        return self.status == 422 and self.patch_had_test and self.patch_not_applied

    @property
    def patch_not_applied(self):
        """The patch handler's answer to a JSON patch that does not apply (422, generic message,
        no causes)."""
        details = self.body.get('details') if isinstance(self.body, dict) else None
        causes = details.get('causes') if isinstance(details, dict) else None
        return self.status == 422 and self.message == PATCH_NOT_APPLIED and not causes


# The names of environment variables that hold credentials (AWS_SECRET_ACCESS_KEY, VAULT_TOKEN,
# DB_PASSWORD, ...): their values are secrets. Other values (a region, a namespace, a cluster
# name) are settings, which may equal any field of a result.
_SECRET_NAME = r'(?i)(secret|token|passw|pwd|credential|private|api_?key|access_?key|auth|_key$|^key$)'


def secret_name(name):
    """Whether a setting called ``name`` (an exec plugin's env variable) holds a credential."""
    # Compiled on first use (the re module keeps it): only exec plugins' settings are asked about.
    return bool(re.search(_SECRET_NAME, str(name or '')))


def secret_forms(value):
    """The forms in which a secret can show up in a message: the value itself, without the space or
    line break around it (a token read from a file), URL-encoded (as a query parameter or a form
    echoes it: ``%2B`` or ``%2b``, ``+`` for a space, with or without ``/`` kept) and base64-encoded
    (standard and URL-safe, with and without padding)."""
    if not value or len(value) < MIN_SECRET_LENGTH:
        return []
    if not isinstance(value, str):
        return [value]
    plain = [value]
    if value.strip() != value and len(value.strip()) >= MIN_SECRET_LENGTH:
        plain.append(value.strip())
    forms = []
    for text in plain:
        for form in (text, quote(text, safe=''), quote(text), quote_plus(text, safe=''), quote_plus(text)):
            # Percent escapes in either case: %2F and %2f.
            for spelling in (form, re.sub(r'%[0-9A-F]{2}', lambda m: m.group().lower(), form)):
                if spelling not in forms:
                    forms.append(spelling)
    for text in plain:
        try:
            raw = text.encode('utf-8')
        except UnicodeError:
            continue
        for encoded in (base64.b64encode(raw), base64.urlsafe_b64encode(raw)):
            for form in (encoded.decode('ascii'), encoded.rstrip(b'=').decode('ascii')):
                if len(form) >= MIN_SECRET_LENGTH and form not in forms:
                    forms.append(form)
    return forms


_USERINFO = re.compile(r'(?<![A-Za-z])([A-Za-z][A-Za-z0-9+.-]{0,31}://)[^/@\s]+@')


def redact(text, secrets):
    """``text`` with every form of every secret (``secret_forms``: raw, URL-encoded, base64) and URL
    userinfo replaced, for messages users see."""
    text = str(text)
    values = set()
    for secret in secrets:
        values.update(secret_forms(secret))
    for secret in sorted(values, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    # A scheme is a letter and at most 31 more characters: a long run of letters is not tried again
    # from each of its characters (linear in the text, which may be an endpoint's megabyte).
    return _USERINFO.sub(r'\1' + REDACTED + '@', text)


# The authorization filter's 403 (apiserver endpoints/handlers/responsewriters/errors.go,
# forbiddenMessage): who may not do what, on a resource or a non-resource path.
_FORBIDDEN_RESOURCE = re.compile(
    r'User "(?P<user>(?:[^"\\]|\\.)*)" cannot (?P<verb>\S+) resource "(?P<resource>[^"]*)" in API group '
    r'"(?P<group>[^"]*)" (?:in the namespace "(?P<namespace>[^"]*)"|at the cluster scope)')
_FORBIDDEN_PATH = re.compile(r'User "(?P<user>(?:[^"\\]|\\.)*)" cannot (?P<verb>\S+) path "(?P<path>[^"]*)"')


def missing_permission(message):
    """What an API server's 403 message says is missing, or None when it is another refusal (a
    quota, an admission plugin, an escalation check): a dict with ``user``, ``verb``, ``what``
    (``deployments.apps``, ``deployments.apps/scale``, ``pods``, or ``the path "/apis"``), ``where``
    (``in namespace "shop"``, ``at the cluster scope`` or empty), ``rule`` (the RBAC rule that grants
    it) and ``holder`` (``Role`` or ``ClusterRole``)."""
    match = _FORBIDDEN_RESOURCE.search(message or '')
    if match:
        resource, _sep, subresource = match.group('resource').partition('/')
        group, namespace = match.group('group'), match.group('namespace')
        what = resource + ('.' + group if group else '') + ('/' + subresource if subresource else '')
        rule = {'apiGroups': [group], 'resources': [match.group('resource')], 'verbs': [match.group('verb')]}
        return {'user': match.group('user'), 'verb': match.group('verb'), 'what': what,
                'where': 'in namespace "%s"' % namespace if namespace is not None else 'at the cluster scope',
                'rule': rule, 'holder': 'Role' if namespace is not None else 'ClusterRole'}
    match = _FORBIDDEN_PATH.search(message or '')
    if match:
        return {'user': match.group('user'), 'verb': match.group('verb'),
                'what': 'the path "%s"' % match.group('path'), 'where': '',
                'rule': {'nonResourceURLs': [match.group('path')], 'verbs': [match.group('verb')]},
                'holder': 'ClusterRole'}
    return None


def forbidden_text(message):
    """A 403 as what to do: `forbidden (403): the user "alice" may not patch deployments.apps in
    namespace "shop": add {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["patch"]} to
    its Role (see docs/rbac.md)`; any other refusal with the API server's message."""
    missing = missing_permission(message)
    if missing is None:
        return ('forbidden (403): %s. Grant the RBAC verbs listed in the module notes (docs/rbac.md '
                'has a minimal Role).' % message)
    where = (' ' + missing['where']) if missing['where'] else ''
    return ('forbidden (403): the user "%s" may not %s %s%s: add %s to its %s (see docs/rbac.md)'
            % (missing['user'], missing['verb'], missing['what'], where, json.dumps(missing['rule']),
               missing['holder']))


def describe_error(err, action, connection=None):
    """A message for a KubeError that says what failed (``action``) and what to do."""
    return '%s: %s' % (action, error_text(err, connection))


def error_text(err, connection=None):
    """What went wrong in ``err`` (a KubeError, or any exception) and what to do, without saying
    what was being done. ``connection``: where the credentials came from, for a 401."""
    if isinstance(err, ApiError):
        if err.status == 401:
            source = (' (credentials from %s)' % connection.source) if connection else ''
            return ('the API server rejected the credentials (401 Unauthorized)%s. Check api_key, the '
                    'kubeconfig user token or client certificate, or K8S_AUTH_API_KEY.' % source)
        if err.status == 403:
            return forbidden_text(err.message)
        return '%s (%s %s)' % (err.message, err.status, err.reason or 'error')
    return getattr(err, 'message', None) or str(err)


class UpdateError(Exception):
    """A rolling update of a ReplicationController cannot start or go on; ``message`` says why and
    what to do; ``next_step``: that step as data, when it is one (``wait``: another run holds it)."""

    def __init__(self, message, next_step=None):
        super(UpdateError, self).__init__(message)
        self.message = message
        self.next_step = next_step

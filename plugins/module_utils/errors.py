# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The errors every request can raise (``KubeError`` and its kinds) and ``redact``, which keeps
secrets out of the messages users see."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import re

MIN_SECRET_LENGTH = 4


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
        """A failed optimistic-concurrency guard: 409 Conflict, or 422 Invalid answering a JSON patch
        with a `test` operation. The API server reports a failed `test` as a bare 422 Invalid (no
        causes, no "test" in the message), so only the sender knows what the 422 means; any other
        way the patch no longer applies also says the object changed since it was read."""
        if self.status == 409:
            return True
        return self.status == 422 and self.patch_had_test


def secret_forms(value):
    """``value`` and its base64 encoding: the forms in which a secret can show up in a message."""
    if not value or len(value) < MIN_SECRET_LENGTH:
        return []
    forms = [value]
    try:
        forms.append(base64.b64encode(value.encode('utf-8')).decode('ascii'))
    except (UnicodeError, AttributeError):
        pass
    return forms


def redact(text, secrets):
    """``text`` with every secret value (raw or base64) and URL userinfo replaced, for messages
    users see."""
    text = str(text)
    values = set()
    for secret in secrets:
        values.update(secret_forms(secret))
    for secret in sorted(values, key=len, reverse=True):
        text = text.replace(secret, '********')
    return re.sub(r'(\w+://)[^/@\s]+@', r'\1********@', text)


class UpdateError(Exception):
    """A rolling update of a ReplicationController cannot start or go on; ``message`` says why and
    what to do."""

    def __init__(self, message):
        super(UpdateError, self).__init__(message)
        self.message = message

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The errors every request can raise (``KubeError`` and its kinds) and ``redact``, which keeps
secrets out of the messages users see."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

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

    @property
    def is_conflict(self):
        """A failed optimistic-concurrency guard: 409, or the 422 a failed JSON-patch `test` gives."""
        if self.status == 409:
            return True
        return self.status == 422 and 'test' in (self.message or '').lower()


def redact(text, secrets):
    """``text`` with every secret value and URL userinfo replaced, for messages users see."""
    text = str(text)
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, '********')
    return re.sub(r'(\w+://)[^/@\s]+@', r'\1********@', text)



class UpdateError(Exception):
    """A rolling update of a ReplicationController cannot start or go on; ``message`` says why and
    what to do."""

    def __init__(self, message):
        super(UpdateError, self).__init__(message)
        self.message = message

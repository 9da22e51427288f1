# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The resolved connection settings (``Connection``): filled in by the kubeconfig, token,
certificate, auth-provider and exec-plugin modules of this package, read by the client and its
transport."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64

try:
    from urllib.parse import unquote, urlsplit
except ImportError:  # pragma: no cover - Python 2 is not supported, this keeps sanity's import test quiet
    unquote = urlsplit = None

from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ConfigError


def read_text(path, what):
    """A credential or setting file's text; an unreadable file is a ``ConfigError`` naming it."""
    try:
        with open(path) as f:
            return f.read()
    except (IOError, OSError) as e:
        raise ConfigError('cannot read %s file %s: %s' % (what, path, e.strerror or e))


def proxy_userinfo(proxy):
    """(username, password) from a proxy URL's userinfo (percent-decoded), else None."""
    if not proxy or '@' not in proxy:
        return None
    try:
        url = urlsplit(proxy if '://' in proxy else 'http://' + proxy)
    except ValueError:
        return None
    if url.username is None:
        return None
    return unquote(url.username), unquote(url.password or '')


def proxy_secrets(url):
    """The credentials in a proxy URL's userinfo, in every form they could be printed."""
    userinfo = proxy_userinfo(url) if isinstance(url, str) else None
    if not userinfo:
        return []
    raw = urlsplit(url if '://' in url else 'http://' + url).netloc.rsplit('@', 1)[0]
    return [userinfo[1], '%s:%s' % userinfo, raw] + raw.split(':', 1)[1:]


class Connection:
    """Resolved connection settings: where the API is and how to authenticate. Every setting starts
    as its class attribute below; the parts of this package set it on the instance."""

    server = None
    token = None
    username = None
    password = None
    ca_file = None
    ca_data = None  # PEM text
    cert_file = None
    key_file = None
    cert_data = None  # PEM bytes
    key_data = None
    verify = True
    tls_server_name = None
    proxy = None
    no_proxy = None
    proxy_headers = None
    impersonate_user = None
    impersonate_groups = None
    impersonate_uid = None
    impersonate_extra = None  # {key: [values]}
    namespace = None
    source = 'module options'
    refresh = None  # callable returning a new token (token file, auth-provider fallback)
    exec_provider = None  # exec_plugin.ExecCredentialProvider: its credential is fetched per request
    allow_insecure_credentials = False
    request_timeout = None  # seconds for one whole request (None: the client's default)
    # Called with the secrets known so far whenever new ones appear (exec results, refreshes),
    # so the module can keep them out of its output.
    on_secrets = None

    def __init__(self):
        self.warnings = []

    def secrets(self):
        """Every secret value known for this connection, for redaction (never shown)."""
        out = [self.token, self.password]
        if self.username and self.password:
            pair = '%s:%s' % (self.username, self.password)
            out.extend([pair, base64.b64encode(pair.encode('utf-8')).decode('ascii')])
        for data in (self.key_data,):
            if data:
                out.append(data.decode('utf-8', 'replace') if isinstance(data, bytes) else data)
        if self.proxy_headers:
            out.extend(self.proxy_headers.values())
        out.extend(proxy_secrets(self.proxy))
        if self.exec_provider is not None:
            out.extend(self.exec_provider.secrets)
        return [s for s in out if s]

    def register_secrets(self):
        if self.on_secrets is not None:
            self.on_secrets(self.secrets())

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Bearer tokens and basic auth: a kubeconfig user's ``token``, ``tokenFile`` (re-read after a 401),
``username``/``password``; the in-cluster service account's token (re-read: bound tokens rotate);
and the request headers that carry a credential and the impersonation a kubeconfig or the options
ask for."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import os

try:
    from urllib.parse import quote
except ImportError:  # pragma: no cover - Python 2 is not supported, this keeps sanity's import test quiet
    quote = None

from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection.settings import (
    Connection,
    read_text,
)

SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount'


def basic_auth(credentials):
    """The value of a basic ``Authorization`` (or ``Proxy-Authorization``) header for ``user:password``."""
    return 'Basic ' + base64.b64encode(credentials.encode('latin-1')).decode('ascii')


def from_user(conn, user):
    """A kubeconfig user's token (inline, else from its tokenFile) and basic-auth pair."""
    if user.get('token'):
        conn.token = user['token']
    elif user.get('tokenFile'):
        path = user['tokenFile']
        conn.token = read_text(path, 'token').strip()
        conn.refresh = lambda: read_text(path, 'token').strip()
    conn.username = user.get('username') or None
    conn.password = user.get('password') or None


def in_cluster_available(env):
    return bool(env.get('KUBERNETES_SERVICE_HOST') and env.get('KUBERNETES_SERVICE_PORT')
                and os.path.exists(os.path.join(SERVICE_ACCOUNT_DIR, 'token')))


def load_in_cluster(env=None):
    """The ``Connection`` of the pod's service account (its token, CA and namespace)."""
    env = os.environ if env is None else env
    conn = Connection()
    host = env['KUBERNETES_SERVICE_HOST']
    if ':' in host:  # IPv6
        host = '[%s]' % host
    conn.server = 'https://%s:%s' % (host, env['KUBERNETES_SERVICE_PORT'])
    token_path = os.path.join(SERVICE_ACCOUNT_DIR, 'token')
    conn.token = read_text(token_path, 'service account token').strip()
    ca = os.path.join(SERVICE_ACCOUNT_DIR, 'ca.crt')
    if os.path.exists(ca):
        conn.ca_file = ca
    ns = os.path.join(SERVICE_ACCOUNT_DIR, 'namespace')
    if os.path.exists(ns):
        conn.namespace = read_text(ns, 'service account namespace').strip() or None
    conn.source = 'in-cluster service account'
    # Bound service account tokens rotate: re-read the file when the server says 401.
    conn.refresh = lambda: read_text(token_path, 'service account token').strip()
    return conn


def auth_headers(conn, token):
    """The identity headers of a request as (name, value) pairs: the bearer ``token`` (the exec
    plugin's when there is one, else ``conn.token``) or basic auth, then impersonation
    (Impersonate-Group repeats, one per group)."""
    headers = []
    if token:
        headers.append(('Authorization', 'Bearer ' + token))
    elif conn.username and conn.password is not None:
        headers.append(('Authorization', basic_auth('%s:%s' % (conn.username, conn.password))))
    if conn.impersonate_user:
        headers.append(('Impersonate-User', conn.impersonate_user))
    for group in conn.impersonate_groups or []:
        headers.append(('Impersonate-Group', group))
    if conn.impersonate_uid:
        headers.append(('Impersonate-Uid', conn.impersonate_uid))
    for key, values in sorted((conn.impersonate_extra or {}).items()):
        for value in values:
            headers.append(('Impersonate-Extra-' + quote(key, safe=''), value))
    return headers

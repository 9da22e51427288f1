# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The connection options every module takes (``CONNECTION_ARG_SPEC``, names, types and
``K8S_AUTH_*`` variables as in kubernetes.core, so playbooks and module_defaults carry over), the
secrets inside them, and ``load_connection``: options, else a kubeconfig (``kubeconfig.py``), else
the in-cluster service account (``tokens.py``), with explicit options overriding what was loaded.

Every module run starts a new Python process, so imports are paid each time: see ``kubeconfig.py``
for what is imported only when a kubeconfig is read.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import os
import re

from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection.certificates import (
    check_transport_security,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection.kubeconfig import (
    default_kubeconfig_paths,
    load_kubeconfig,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection.settings import (
    Connection,
    proxy_secrets,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection.tokens import (
    in_cluster_available,
    load_in_cluster,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ConfigError, secret_name

ENV_PREFIX = 'K8S_AUTH_'


# Connection options, shared by every module (names, types and K8S_AUTH_* variables as in
# kubernetes.core, so playbooks and module_defaults carry over).
PROXY_HEADERS_SPEC = {
    'proxy_basic_auth': {'type': 'str', 'no_log': True},
    'basic_auth': {'type': 'str', 'no_log': True},
    'user_agent': {'type': 'str'},
}
CONNECTION_ARG_SPEC = {
    'kubeconfig': {'type': 'raw'},
    'context': {'type': 'str'},
    'host': {'type': 'str'},
    'api_key': {'type': 'str', 'no_log': True},
    'username': {'type': 'str'},
    'password': {'type': 'str', 'no_log': True},
    'validate_certs': {'type': 'bool', 'aliases': ['verify_ssl']},
    'ca_cert': {'type': 'path', 'aliases': ['ssl_ca_cert']},
    'client_cert': {'type': 'path', 'aliases': ['cert_file']},
    'client_key': {'type': 'path', 'aliases': ['key_file']},
    'proxy': {'type': 'str'},
    'no_proxy': {'type': 'str'},
    'proxy_headers': {'type': 'dict', 'options': PROXY_HEADERS_SPEC},
    'impersonate_user': {'type': 'str'},
    'impersonate_groups': {'type': 'list', 'elements': 'str'},
    'allow_insecure_credentials': {'type': 'bool'},
    'request_timeout': {'type': 'float'},
}
# Option -> extra environment variable names accepted besides K8S_AUTH_<OPTION> (kubernetes.core's
# historical spellings).
ENV_ALIASES = {
    'validate_certs': ['VERIFY_SSL'],
    'ca_cert': ['SSL_CA_CERT'],
    'client_cert': ['CERT_FILE'],
    'client_key': ['KEY_FILE'],
}


def _env_bool(value):
    return value.strip().lower() not in ('0', 'false', 'no', 'off', '')


# ---- secrets in option values ------------------------------------------------------------------

_SECRET_USER_FIELDS = ('token', 'password', 'client-key-data')
_SECRET_PROVIDER_FIELDS = ('id-token', 'refresh-token', 'access-token', 'client-secret')


def param_secrets(params):
    """Secret values inside the options themselves, known before anything is loaded: an inline
    kubeconfig's tokens, passwords, keys, auth-provider tokens, exec env values and proxy-url
    credentials, and the credentials in the proxy option's URL. Exec env values only when their
    name says they hold a credential (``errors.secret_name``): the others are settings."""
    out = proxy_secrets((params or {}).get('proxy'))
    kubeconfig = (params or {}).get('kubeconfig')
    if not isinstance(kubeconfig, dict):
        return [s for s in out if s]
    for item in kubeconfig.get('users') or []:
        user = item.get('user') if isinstance(item, dict) else None
        if not isinstance(user, dict):
            continue
        for field in _SECRET_USER_FIELDS:
            value = user.get(field)
            if isinstance(value, str):
                out.append(value)
                if field.endswith('-data'):
                    try:
                        out.append(base64.b64decode(value).decode('utf-8', 'replace'))
                    except (TypeError, ValueError):
                        pass
        if isinstance(user.get('username'), str) and isinstance(user.get('password'), str):
            out.append('%s:%s' % (user['username'], user['password']))
        provider = user.get('auth-provider')
        config = provider.get('config') if isinstance(provider, dict) else None
        for field in _SECRET_PROVIDER_FIELDS:
            if isinstance(config, dict) and isinstance(config.get(field), str):
                out.append(config[field])
        exec_config = user.get('exec')
        for env in (exec_config.get('env') if isinstance(exec_config, dict) else None) or []:
            if isinstance(env, dict) and isinstance(env.get('value'), str) and secret_name(env.get('name')):
                out.append(env['value'])
    for item in kubeconfig.get('clusters') or []:
        cluster = item.get('cluster') if isinstance(item, dict) else None
        if isinstance(cluster, dict):
            out.extend(proxy_secrets(cluster.get('proxy-url')))
    return [s for s in out if s]


# ---- option resolution -----------------------------------------------------------------------

def auth_options(params, env=None):
    """Connection options from module params, else K8S_AUTH_* environment variables."""
    env = os.environ if env is None else env
    opts = {}
    for name, spec in CONNECTION_ARG_SPEC.items():
        value = (params or {}).get(name)
        if value is None and name == 'proxy_headers':
            headers = {}
            for key in PROXY_HEADERS_SPEC:
                env_value = env.get('%sPROXY_HEADERS_%s' % (ENV_PREFIX, key.upper()))
                if env_value is not None:
                    headers[key] = env_value
            value = headers or None
        elif value is None:
            for env_name in [name.upper()] + ENV_ALIASES.get(name, []):
                env_value = env.get(ENV_PREFIX + env_name)
                if env_value is not None:
                    value = env_value
                    break
            if value is not None and spec.get('type') == 'bool':
                value = _env_bool(value)
            elif value is not None and spec.get('type') == 'list':
                value = [v.strip() for v in value.split(',') if v.strip()]
            elif value is not None and spec.get('type') == 'path':
                value = os.path.expanduser(value)
            elif value is not None and spec.get('type') == 'float':
                try:
                    value = float(value)
                except ValueError:
                    value = float('nan')
                if not (0 < value < float('inf')):
                    raise ConfigError('%s%s must be a number greater than 0'
                                      % (ENV_PREFIX, name.upper()))
        opts[name] = value
    if isinstance(opts.get('kubeconfig'), str):
        opts['kubeconfig'] = os.path.expanduser(opts['kubeconfig'])
    return opts


def load_connection(params, env=None, runner=None):
    """Resolve module params / environment / kubeconfig / in-cluster into a ``Connection``;
    ``runner`` runs a kubeconfig exec plugin's program (the runtime's ``run_process``).

    Same precedence as kubernetes.core: host with a token or basic auth needs no kubeconfig; a
    kubeconfig or context option loads the kubeconfig; otherwise the in-cluster service account is
    tried first, then the default kubeconfig. Explicit options always override what was loaded.
    """
    env = os.environ if env is None else env
    opts = auth_options(params, env)

    def given(*names):
        return all(opts.get(n) for n in names)

    if opts.get('host'):
        opts['host'] = opts['host'].rstrip('/')

    if given('host', 'api_key') or given('host', 'username', 'password'):
        conn = Connection()
    elif opts.get('kubeconfig') or opts.get('context'):
        conn = load_kubeconfig(opts.get('kubeconfig'), opts.get('context'), env, runner)
    elif in_cluster_available(env):
        conn = load_in_cluster(env)
    else:
        paths = default_kubeconfig_paths(env)
        if not any(os.path.exists(p) for p in paths):
            if opts.get('host'):
                conn = Connection()  # e.g. client certificate options, or an unauthenticated API
            else:
                raise ConfigError(
                    'no Kubernetes connection configured: found no kubeconfig at %s and no in-cluster '
                    'service account. Set the kubeconfig or host option (or K8S_AUTH_KUBECONFIG / '
                    'K8S_AUTH_HOST).' % ', '.join(paths))
        else:
            conn = load_kubeconfig(None, None, env, runner)

    _apply_overrides(conn, opts)
    if not conn.server:
        raise ConfigError('no API server address: set the host option or a cluster server in the kubeconfig')
    if not re.match(r'^https?://', conn.server):
        conn.server = 'https://' + conn.server
    check_transport_security(conn)
    return conn


def _apply_overrides(conn, opts):
    if opts.get('host'):
        conn.server = opts['host']
    if opts.get('api_key') or opts.get('password') or opts.get('client_cert'):
        conn.exec_provider = None  # explicit credentials win over the kubeconfig's exec plugin
    if opts.get('api_key'):
        conn.token = opts['api_key']
        conn.refresh = None
    if opts.get('username'):
        conn.username = opts['username']
    if opts.get('password'):
        conn.password = opts['password']
    if opts.get('validate_certs') is not None:
        conn.verify = bool(opts['validate_certs'])
    if opts.get('ca_cert'):
        conn.ca_file, conn.ca_data = opts['ca_cert'], None
    if opts.get('client_cert'):
        conn.cert_file, conn.cert_data = opts['client_cert'], None
    if opts.get('client_key'):
        conn.key_file, conn.key_data = opts['client_key'], None
    if opts.get('proxy'):
        conn.proxy = opts['proxy']
    if opts.get('no_proxy'):
        conn.no_proxy = opts['no_proxy']
    if opts.get('proxy_headers'):
        conn.proxy_headers = {k: v for k, v in opts['proxy_headers'].items() if v is not None} or None
    if opts.get('impersonate_user'):
        conn.impersonate_user = opts['impersonate_user']
    if opts.get('impersonate_groups'):
        conn.impersonate_groups = list(opts['impersonate_groups'])
    if opts.get('allow_insecure_credentials'):
        conn.allow_insecure_credentials = True
    if opts.get('request_timeout'):
        conn.request_timeout = opts['request_timeout']

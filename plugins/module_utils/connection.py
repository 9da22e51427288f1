# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Where the API is and how to authenticate: module options, ``K8S_AUTH_*`` environment variables,
a kubeconfig (read by ``kubeconfig.py``) and the in-cluster service account, resolved into one
``Connection``.

Every auth method kubectl knows is supported: token, token file, client certificate, basic auth,
exec credential plugins (run natively by ``exec_credential.py``), CA, insecure TLS, proxy-url,
impersonation (user, groups, uid, extra), in-cluster service account. Every module run starts a new
Python process, so imports are paid each time: see ``kubeconfig.py`` for what is imported only when
a kubeconfig is read.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import os
import re

try:
    from urllib.parse import unquote, urlsplit
except ImportError:  # pragma: no cover - Python 2 is not supported, this keeps sanity's import test quiet
    unquote = urlsplit = None

from ansible_collections.kubeops.rollout.plugins.module_utils.errors import ConfigError, redact, secret_name
from ansible_collections.kubeops.rollout.plugins.module_utils.kubeconfig import (
    _default_kubeconfig_paths,
    _read_text,
    load_kubeconfig,
)

ENV_PREFIX = 'K8S_AUTH_'
SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount'


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


class Connection:
    """Resolved connection settings: where the API is and how to authenticate."""

    def __init__(self):
        self.server = None
        self.token = None
        self.username = None
        self.password = None
        self.ca_file = None
        self.ca_data = None  # PEM text
        self.cert_file = None
        self.key_file = None
        self.cert_data = None  # PEM bytes
        self.key_data = None
        self.verify = True
        self.tls_server_name = None
        self.proxy = None
        self.no_proxy = None
        self.proxy_headers = None
        self.impersonate_user = None
        self.impersonate_groups = None
        self.impersonate_uid = None
        self.impersonate_extra = None  # {key: [values]}
        self.namespace = None
        self.source = 'module options'
        self.refresh = None  # callable returning a new token (token file, auth-provider fallback)
        self.exec_provider = None  # ExecCredentialProvider: its credential is fetched per request
        self.allow_insecure_credentials = False
        self.request_timeout = None  # seconds for one whole request (None: the client's default)
        self.warnings = []
        # Called with the secrets known so far whenever new ones appear (exec results, refreshes),
        # so the module can keep them out of its output.
        self.on_secrets = None

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
        userinfo = proxy_userinfo(self.proxy)
        if userinfo:
            out.extend([userinfo[1], '%s:%s' % userinfo])
            raw = urlsplit(self.proxy if '://' in self.proxy else 'http://' + self.proxy).netloc
            out.append(raw.rsplit('@', 1)[0])
        if self.exec_provider is not None:
            out.extend(self.exec_provider.secrets)
        return [s for s in out if s]

    def register_secrets(self):
        if self.on_secrets is not None:
            self.on_secrets(self.secrets())


# ---- secrets in option values ------------------------------------------------------------------

_SECRET_USER_FIELDS = ('token', 'password', 'client-key-data')
_SECRET_PROVIDER_FIELDS = ('id-token', 'refresh-token', 'access-token', 'client-secret')


def _proxy_secrets(url):
    userinfo = proxy_userinfo(url) if isinstance(url, str) else None
    if not userinfo:
        return []
    raw = urlsplit(url if '://' in url else 'http://' + url).netloc.rsplit('@', 1)[0]
    return [userinfo[1], '%s:%s' % userinfo, raw] + raw.split(':', 1)[1:]


def param_secrets(params):
    """Secret values inside the options themselves, known before anything is loaded: an inline
    kubeconfig's tokens, passwords, keys, auth-provider tokens, exec env values and proxy-url
    credentials, and the credentials in the proxy option's URL. Exec env values only when their
    name says they hold a credential (``errors.secret_name``): the others are settings."""
    out = _proxy_secrets((params or {}).get('proxy'))
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
            out.extend(_proxy_secrets(cluster.get('proxy-url')))
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


def _in_cluster_available(env):
    return bool(env.get('KUBERNETES_SERVICE_HOST') and env.get('KUBERNETES_SERVICE_PORT')
                and os.path.exists(os.path.join(SERVICE_ACCOUNT_DIR, 'token')))


def load_connection(params, env=None):
    """Resolve module params / environment / kubeconfig / in-cluster into a ``Connection``.

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
        conn = load_kubeconfig(opts.get('kubeconfig'), opts.get('context'), env)
    elif _in_cluster_available(env):
        conn = load_in_cluster(env)
    else:
        paths = _default_kubeconfig_paths(env)
        if not any(os.path.exists(p) for p in paths):
            if opts.get('host'):
                conn = Connection()  # e.g. client certificate options, or an unauthenticated API
            else:
                raise ConfigError(
                    'no Kubernetes connection configured: found no kubeconfig at %s and no in-cluster '
                    'service account. Set the kubeconfig or host option (or K8S_AUTH_KUBECONFIG / '
                    'K8S_AUTH_HOST).' % ', '.join(paths))
        else:
            conn = load_kubeconfig(None, None, env)

    _apply_overrides(conn, opts)
    if not conn.server:
        raise ConfigError('no API server address: set the host option or a cluster server in the kubeconfig')
    if not re.match(r'^https?://', conn.server):
        conn.server = 'https://' + conn.server
    _check_transport_security(conn)
    return conn


def _check_transport_security(conn):
    """kubectl never sends credentials in the clear: refuse a token or password over plain http
    unless the user opts in; warn whenever the API server's identity is not checked."""
    plain = conn.server.startswith('http://')
    credentials = conn.token or conn.password or conn.exec_provider is not None or conn.refresh
    if plain and credentials:
        if not conn.allow_insecure_credentials:
            raise ConfigError(
                'refusing to send credentials (a bearer token or password) to %s over plain http, '
                'where anyone on the path can read them. Use an https:// server address, or set '
                'allow_insecure_credentials: true (K8S_AUTH_ALLOW_INSECURE_CREDENTIALS=true) to send '
                'them anyway (test clusters only)' % redact(conn.server, []))
        conn.warnings.append('sending credentials to %s over plain http (allow_insecure_credentials is '
                             'set): anyone on the path can read them' % redact(conn.server, []))
    if not plain and not conn.verify:
        conn.warnings.append('TLS certificate verification of the Kubernetes API at %s is off '
                             '(validate_certs: false or insecure-skip-tls-verify): the server\'s '
                             'identity is not checked' % redact(conn.server, []))


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


def load_in_cluster(env=None):
    env = os.environ if env is None else env
    conn = Connection()
    host = env['KUBERNETES_SERVICE_HOST']
    if ':' in host:  # IPv6
        host = '[%s]' % host
    conn.server = 'https://%s:%s' % (host, env['KUBERNETES_SERVICE_PORT'])
    token_path = os.path.join(SERVICE_ACCOUNT_DIR, 'token')
    conn.token = _read_text(token_path, 'service account token').strip()
    ca = os.path.join(SERVICE_ACCOUNT_DIR, 'ca.crt')
    if os.path.exists(ca):
        conn.ca_file = ca
    ns = os.path.join(SERVICE_ACCOUNT_DIR, 'namespace')
    if os.path.exists(ns):
        conn.namespace = _read_text(ns, 'service account namespace').strip() or None
    conn.source = 'in-cluster service account'
    # Bound service account tokens rotate: re-read the file when the server says 401.
    conn.refresh = lambda: _read_text(token_path, 'service account token').strip()
    return conn

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Where the API is and how to authenticate: module options, ``K8S_AUTH_*`` environment variables,
kubeconfig files and the in-cluster service account, resolved into one ``Connection``.

The common auth methods (token, token file, client certificate, basic auth, CA, insecure TLS,
proxy-url, impersonation, in-cluster service account) are read here. Every module run starts a new
Python process, so imports are paid each time: PyYAML is imported only when a kubeconfig file is
read, and exec plugins and auth-providers fall back to the ``kubernetes`` library (imported only
then: the import alone costs about half a second).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import os
import re

from ansible_collections.kubeops.rollout.plugins.module_utils.errors import ConfigError, redact

ENV_PREFIX = 'K8S_AUTH_'
SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount'
DEFAULT_KUBECONFIG = '~/.kube/config'


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
}
# Option -> extra environment variable names accepted besides K8S_AUTH_<OPTION> (kubernetes.core's
# historical spellings).
ENV_ALIASES = {
    'validate_certs': ['VERIFY_SSL'],
    'ca_cert': ['SSL_CA_CERT'],
    'client_cert': ['CERT_FILE'],
    'client_key': ['KEY_FILE'],
}

def _b64decode(value, what):
    try:
        return base64.b64decode(value)
    except (TypeError, ValueError):
        raise ConfigError('kubeconfig field %s is not valid base64' % what)


def _env_bool(value):
    return value.strip().lower() not in ('0', 'false', 'no', 'off', '')


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
        self.namespace = None
        self.source = 'module options'
        self.refresh = None  # callable returning a new token (exec / auth-provider fallback)

    def secrets(self):
        out = [self.token, self.password]
        if self.proxy_headers:
            out.extend(self.proxy_headers.values())
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
    return conn


def _apply_overrides(conn, opts):
    if opts.get('host'):
        conn.server = opts['host']
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


def _read_text(path, what):
    try:
        with open(path) as f:
            return f.read()
    except (IOError, OSError) as e:
        raise ConfigError('cannot read %s file %s: %s' % (what, path, e.strerror or e))


# ---- kubeconfig ------------------------------------------------------------------------------

def _default_kubeconfig_paths(env):
    value = env.get('KUBECONFIG')
    if value:
        return [os.path.expanduser(p) for p in value.split(os.pathsep) if p]
    return [os.path.expanduser(DEFAULT_KUBECONFIG)]


def _absolutize(entry, base_dir, keys):
    for key in keys:
        value = entry.get(key)
        if value and isinstance(value, str) and not os.path.isabs(os.path.expanduser(value)):
            entry[key] = os.path.join(base_dir, value)
        elif value and isinstance(value, str):
            entry[key] = os.path.expanduser(value)


def _yaml():
    try:
        import yaml
    except ImportError:
        raise ConfigError('reading a kubeconfig file needs the Python library PyYAML on the managed '
                          'node (pip install PyYAML); host with api_key (or K8S_AUTH_HOST and '
                          'K8S_AUTH_API_KEY) needs no kubeconfig')
    return yaml


def read_kubeconfig(source, env=None):
    """Load and merge kubeconfig(s) into one dict with absolute file paths.

    ``source``: a path, a dict (inline kubeconfig) or None (KUBECONFIG, else ~/.kube/config).
    Merging follows kubectl: for clusters, users and contexts the first file naming an entry wins,
    and so does the first ``current-context``.
    Returns (config, description).
    """
    env = os.environ if env is None else env
    if isinstance(source, dict):
        docs = [(source, os.getcwd())]
        description = 'the kubeconfig option (inline)'
    else:
        paths = [source] if source else _default_kubeconfig_paths(env)
        docs = []
        for path in paths:
            if not os.path.exists(path):
                if source:
                    raise ConfigError('kubeconfig file %s does not exist' % path)
                continue
            yaml = _yaml()
            try:
                with open(path) as f:
                    data = yaml.safe_load(f) or {}
            except yaml.YAMLError as e:
                raise ConfigError('kubeconfig file %s is not valid YAML: %s' % (path, e))
            except (IOError, OSError) as e:
                raise ConfigError('cannot read kubeconfig file %s: %s' % (path, e.strerror or e))
            if not isinstance(data, dict):
                raise ConfigError('kubeconfig file %s is not a kubeconfig (expected a mapping)' % path)
            docs.append((data, os.path.dirname(os.path.abspath(path))))
        if not docs:
            raise ConfigError('no kubeconfig found at %s' % ', '.join(paths))
        description = 'kubeconfig ' + ', '.join(paths)

    merged = {'clusters': {}, 'users': {}, 'contexts': {}, 'current-context': None}
    for data, base in docs:
        for section, inner, path_keys in (
                ('clusters', 'cluster', ('certificate-authority',)),
                ('users', 'user', ('client-certificate', 'client-key', 'tokenFile')),
                ('contexts', 'context', ())):
            for item in data.get(section) or []:
                if not isinstance(item, dict) or 'name' not in item or item['name'] in merged[section]:
                    continue
                entry = dict(item.get(inner) or {})
                _absolutize(entry, base, path_keys)
                merged[section][item['name']] = entry
        if not merged['current-context'] and data.get('current-context'):
            merged['current-context'] = data['current-context']
    return merged, description


# User fields handled natively; anything else that authenticates (exec, auth-provider) falls back.
_NATIVE_USER_FIELDS = {
    'token', 'tokenFile', 'client-certificate', 'client-certificate-data', 'client-key',
    'client-key-data', 'username', 'password', 'as', 'as-groups', 'as-uid', 'as-user-extra',
    'extensions',
}


def load_kubeconfig(source, context=None, env=None):
    """A ``Connection`` from a kubeconfig (path, inline dict or the default location)."""
    config, description = read_kubeconfig(source, env)
    name = context or config['current-context']
    if not name:
        raise ConfigError('%s has no current-context: set the context option (contexts: %s)'
                          % (description, ', '.join(sorted(config['contexts'])) or 'none'))
    ctx = config['contexts'].get(name)
    if ctx is None:
        raise ConfigError('context "%s" not found in %s (contexts: %s)'
                          % (name, description, ', '.join(sorted(config['contexts'])) or 'none'))
    cluster = config['clusters'].get(ctx.get('cluster'))
    if cluster is None:
        raise ConfigError('cluster "%s" of context "%s" not found in %s'
                          % (ctx.get('cluster'), name, description))
    user = config['users'].get(ctx.get('user')) or {}

    conn = Connection()
    conn.source = '%s (context "%s")' % (description, name)
    conn.namespace = ctx.get('namespace') or None
    conn.server = (cluster.get('server') or '').rstrip('/') or None
    conn.verify = not cluster.get('insecure-skip-tls-verify', False)
    conn.tls_server_name = cluster.get('tls-server-name') or None
    conn.proxy = cluster.get('proxy-url') or None
    if cluster.get('certificate-authority-data'):
        conn.ca_data = _b64decode(cluster['certificate-authority-data'],
                                  'certificate-authority-data').decode('utf-8', 'replace')
    elif cluster.get('certificate-authority'):
        conn.ca_file = cluster['certificate-authority']

    if set(user) - _NATIVE_USER_FIELDS:
        _load_with_kubernetes_library(conn, config, name, sorted(set(user) - _NATIVE_USER_FIELDS))
    else:
        if user.get('token'):
            conn.token = user['token']
        elif user.get('tokenFile'):
            path = user['tokenFile']
            conn.token = _read_text(path, 'token').strip()
            conn.refresh = lambda: _read_text(path, 'token').strip()
        if user.get('client-certificate-data'):
            conn.cert_data = _b64decode(user['client-certificate-data'], 'client-certificate-data')
        elif user.get('client-certificate'):
            conn.cert_file = user['client-certificate']
        if user.get('client-key-data'):
            conn.key_data = _b64decode(user['client-key-data'], 'client-key-data')
        elif user.get('client-key'):
            conn.key_file = user['client-key']
        conn.username = user.get('username') or None
        conn.password = user.get('password') or None
    conn.impersonate_user = user.get('as') or None
    conn.impersonate_groups = list(user.get('as-groups') or []) or None
    return conn


def _load_with_kubernetes_library(conn, config, context, fields):
    """Authenticate through the kubernetes library (exec plugins, auth-providers, ...)."""
    try:
        import kubernetes.client
        import kubernetes.config
    except ImportError:
        raise ConfigError(
            'the kubeconfig user of context "%s" authenticates with %s, which needs the Python '
            'library "kubernetes" on the managed node (pip install kubernetes)'
            % (context, ', '.join(fields)))
    raw = {
        'apiVersion': 'v1', 'kind': 'Config', 'current-context': context,
        'clusters': [{'name': k, 'cluster': v} for k, v in config['clusters'].items()],
        'users': [{'name': k, 'user': v} for k, v in config['users'].items()],
        'contexts': [{'name': k, 'context': v} for k, v in config['contexts'].items()],
    }
    cfg = kubernetes.client.Configuration()
    try:
        kubernetes.config.load_kube_config_from_dict(raw, context=context, client_configuration=cfg)
    except Exception as e:  # the library raises many types; all mean "cannot authenticate"
        raise ConfigError('cannot load credentials of context "%s" (%s): %s'
                          % (context, ', '.join(fields), redact(e, [])))

    def token_of(configuration):
        value = (configuration.api_key or {}).get('authorization') or ''
        return value[len('Bearer '):] if value.startswith('Bearer ') else (value or None)

    conn.token = token_of(cfg)
    if cfg.cert_file:
        conn.cert_file = cfg.cert_file
    if cfg.key_file:
        conn.key_file = cfg.key_file
    if cfg.ssl_ca_cert and not (conn.ca_file or conn.ca_data):
        conn.ca_file = cfg.ssl_ca_cert

    def refresh():
        hook = getattr(cfg, 'refresh_api_key_hook', None)
        if hook:
            hook(cfg)
        return token_of(cfg)

    conn.refresh = refresh

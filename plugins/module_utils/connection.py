# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Where the API is and how to authenticate: module options, ``K8S_AUTH_*`` environment variables,
kubeconfig files and the in-cluster service account, resolved into one ``Connection``.

Every auth method kubectl knows is read here: token, token file, client certificate, basic auth,
exec credential plugins (run natively by ``exec_credential.py``), CA, insecure TLS, proxy-url,
impersonation (user, groups, uid, extra), in-cluster service account. Every module run starts a new
Python process, so imports are paid each time: PyYAML is imported only when a kubeconfig file is
read; only auth-providers (oidc and the old gcp/azure ones) fall back to the ``kubernetes`` library
(imported only then: the import alone costs about half a second).
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

def _b64decode(value, what):
    try:
        return base64.b64decode(value)
    except (TypeError, ValueError):
        raise ConfigError('kubeconfig field %s is not valid base64' % what)


def _env_bool(value):
    return value.strip().lower() not in ('0', 'false', 'no', 'off', '')


def _kubeconfig_bool(entry, key, what):
    """A kubeconfig boolean as kubectl reads it: YAML true/false; anything else is an error."""
    value = entry.get(key)
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    raise ConfigError('kubeconfig field %s of %s must be true or false (a YAML boolean), not %s %s; '
                      'remove the quotes' % (key, what, type(value).__name__, _shown(value)))


def _shown(value):
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + '...'


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
    credentials, and the credentials in the proxy option's URL."""
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
            if isinstance(env, dict) and isinstance(env.get('value'), str):
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
                    # libyaml's parser where PyYAML has it: the same safe constructor, ten times faster.
                    data = yaml.load(f, Loader=getattr(yaml, 'CSafeLoader', yaml.SafeLoader)) or {}
            except yaml.YAMLError as e:
                # Only where: the parser's message quotes the offending line, which may hold a secret.
                mark = getattr(e, 'problem_mark', None)
                where = (' (line %d, column %d)' % (mark.line + 1, mark.column + 1)) if mark else ''
                raise ConfigError('kubeconfig file %s is not valid YAML%s' % (path, where))
            except (IOError, OSError) as e:
                raise ConfigError('cannot read kubeconfig file %s: %s' % (path, e.strerror or e))
            if not isinstance(data, dict):
                raise ConfigError('kubeconfig file %s is not a kubeconfig (expected a mapping)' % path)
            docs.append((data, os.path.dirname(os.path.abspath(path))))
        if not docs:
            raise ConfigError('no kubeconfig found at %s' % ', '.join(paths))
        description = 'kubeconfig ' + ', '.join(paths)

    # user-dirs: the directory of the file that defined each user (exec commands are relative to it).
    merged = {'clusters': {}, 'users': {}, 'contexts': {}, 'current-context': None, 'user-dirs': {}}
    for data, base in docs:
        for section, inner, path_keys in (
                ('clusters', 'cluster', ('certificate-authority',)),
                ('users', 'user', ('client-certificate', 'client-key', 'tokenFile')),
                ('contexts', 'context', ())):
            for item in data.get(section) or []:
                if not isinstance(item, dict) or 'name' not in item or item['name'] in merged[section]:
                    continue
                entry = item.get(inner) or {}
                if not isinstance(entry, dict):
                    raise ConfigError('%s entry "%s" in %s is not a mapping'
                                      % (section, item['name'], description))
                entry = dict(entry)
                _absolutize(entry, base, path_keys)
                merged[section][item['name']] = entry
                if section == 'users':
                    merged['user-dirs'][item['name']] = base
        if not merged['current-context'] and data.get('current-context'):
            merged['current-context'] = data['current-context']
    return merged, description


# Static credentials of a kubeconfig user; with any of them an exec plugin is not run (as kubectl).
_STATIC_AUTH_FIELDS = ('token', 'tokenFile', 'client-certificate', 'client-certificate-data',
                       'client-key', 'client-key-data', 'username', 'password')


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
    conn.verify = not _kubeconfig_bool(cluster, 'insecure-skip-tls-verify',
                                       'cluster "%s"' % ctx.get('cluster'))
    conn.tls_server_name = cluster.get('tls-server-name') or None
    conn.proxy = cluster.get('proxy-url') or None
    if cluster.get('certificate-authority-data'):
        conn.ca_data = _b64decode(cluster['certificate-authority-data'],
                                  'certificate-authority-data').decode('utf-8', 'replace')
    elif cluster.get('certificate-authority'):
        conn.ca_file = cluster['certificate-authority']

    static = any(user.get(field) for field in _STATIC_AUTH_FIELDS)
    if user.get('auth-provider') and not static:
        _load_with_kubernetes_library(conn, config, name, ['auth-provider'])
    elif user.get('exec') and not static:
        from ansible_collections.kubeops.rollout.plugins.module_utils.exec_credential import (
            ExecCredentialProvider,
        )
        conn.exec_provider = ExecCredentialProvider(
            user['exec'], cluster=cluster, base_dir=config['user-dirs'].get(ctx.get('user')),
            user=ctx.get('user'), environ=env)
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
    conn.impersonate_uid = user.get('as-uid') or None
    extra = user.get('as-user-extra') or {}
    if not isinstance(extra, dict):
        raise ConfigError('kubeconfig field as-user-extra of user "%s" must be a mapping of lists'
                          % ctx.get('user'))
    conn.impersonate_extra = {str(k): [str(v) for v in (vals if isinstance(vals, list) else [vals])]
                              for k, vals in extra.items()} or None
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

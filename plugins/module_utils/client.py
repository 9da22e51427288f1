# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Connection to the Kubernetes API: options / environment / kubeconfig -> raw JSON requests.

The common auth methods (token, token file, client certificate, basic auth, CA, insecure TLS,
proxy-url, impersonation, in-cluster service account) are read here from the kubeconfig and sent
with the standard library's ``http.client`` and ``ssl``. Every module run starts a new Python
process, so imports are paid each time: PyYAML is imported only when a kubeconfig file is read, and
exec plugins and auth-providers fall back to the ``kubernetes`` library (imported only then: the
import alone costs about half a second).

Every request and response body is plain JSON (dicts and lists), never a typed client model, so a
field the client library does not know survives a read-modify-write.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import http.client
import json
import os
import re
import select
import ssl
import threading
import time

try:
    from urllib.parse import quote, urlencode, urlsplit
except ImportError:  # pragma: no cover - Python 2 is not supported, this keeps sanity's import test quiet
    quote = urlencode = urlsplit = None


ENV_PREFIX = 'K8S_AUTH_'
SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount'
DEFAULT_KUBECONFIG = '~/.kube/config'
USER_AGENT = 'kubeops.rollout'
FIELD_MANAGER = 'kubeops-rollout'

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

# Retry policy: bounded, with exponential backoff and jitter.
MAX_ATTEMPTS = 5
CONNECT_ATTEMPTS = 3  # an API that refuses connections is most likely down: fail fast
BACKOFF_BASE = 0.2
BACKOFF_MAX = 2.0
RETRY_AFTER_MAX = 10.0
RETRIABLE_STATUS = (500, 502, 503, 504)
CONNECT_TIMEOUT = 10.0
READ_TIMEOUT = 60.0


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


# ---- HTTP ------------------------------------------------------------------------------------

def _no_proxy_matches(host, no_proxy):
    if not no_proxy:
        return False
    host = (host or '').lower()
    for entry in [e.strip().lower() for e in no_proxy.split(',') if e.strip()]:
        if entry == '*':
            return True
        if '/' in entry:
            try:
                import ipaddress
                if ipaddress.ip_address(host) in ipaddress.ip_network(entry, strict=False):
                    return True
            except ValueError:
                pass
            continue
        entry = entry.lstrip('.')
        if host == entry or host.endswith('.' + entry):
            return True
    return False


def _basic(credentials):
    return 'Basic ' + base64.b64encode(credentials.encode('latin-1')).decode('ascii')


def proxy_header_list(proxy_headers):
    """The ``proxy_headers`` option as HTTP headers for the proxy (kubernetes.core's names)."""
    headers = []
    for key, value in sorted((proxy_headers or {}).items()):
        if value is None:
            continue
        if key == 'proxy_basic_auth':
            headers.append(('Proxy-Authorization', _basic(value)))
        elif key == 'basic_auth':
            headers.append(('Authorization', _basic(value)))
        elif key == 'user_agent':
            headers.append(('User-Agent', value))
    return headers


class _ConnectFailed(Exception):
    """No connection (TCP, proxy tunnel or TLS handshake): nothing was sent, a retry is safe."""

    def __init__(self, error):
        super(_ConnectFailed, self).__init__(str(error))
        self.error = error


class _TLSConnection(http.client.HTTPSConnection):
    """HTTPS with the kubeconfig's ``tls-server-name`` as SNI and verified name when set."""

    server_hostname = None

    def connect(self):
        http.client.HTTPConnection.connect(self)  # TCP, and the CONNECT tunnel through a proxy
        name = self.server_hostname or getattr(self, '_tunnel_host', None) or self.host
        self.sock = self._context.wrap_socket(self.sock, server_hostname=name)


class _Response:
    def __init__(self, status, reason, headers, data):
        self.status = status
        self.reason = reason
        self.headers = headers
        self.data = data


class _Stream:
    """A streaming response; closing it gives its connection back when the body was read to the end."""

    def __init__(self, transport, conn, resp):
        self._transport, self._conn, self._resp = transport, conn, resp
        self.status, self.reason, self.headers = resp.status, resp.reason, resp.msg
        self._ended = False

    @property
    def data(self):  # an error response is read whole
        return self.read()

    def read(self):
        data = self._resp.read()
        self._ended = True
        return data

    def read1(self, amount):
        data = self._resp.read1(amount)
        if not data:
            self._ended = True
        return data

    def close(self):
        if self._conn is None:
            return
        conn, self._conn = self._conn, None
        if self._ended and self._resp.isclosed():
            self._transport.put(conn, self._resp)
        else:
            self._resp.close()
            conn.close()


class Transport:
    """Keep-alive HTTP(S) connections to one API server (direct, forwarded through an HTTP proxy,
    or tunnelled through it with CONNECT), on the standard library: ``http.client`` and ``ssl``.

    Shared by the waiter's threads: each request takes an idle connection or opens one.
    """

    MAX_IDLE = 16

    def __init__(self, base, connection, ssl_context=None):
        url = urlsplit(base)
        self.https = url.scheme == 'https'
        self.host = url.hostname
        self.port = url.port or (443 if self.https else 80)
        self.ssl_context = ssl_context
        self.server_hostname = connection.tls_server_name
        self.headers = []  # sent to the proxy with each forwarded request (plain HTTP only)
        self.tunnel_headers = None
        self.proxy = None
        if connection.proxy and not _no_proxy_matches(self.host, connection.no_proxy):
            raw = connection.proxy if '://' in connection.proxy else 'http://' + connection.proxy
            try:
                proxy = urlsplit(raw)
                port = proxy.port or 80
            except ValueError as e:
                raise ConfigError('invalid proxy %s: %s' % (redact(connection.proxy, []), e))
            if proxy.scheme != 'http' or not proxy.hostname:
                raise ConfigError('invalid proxy %s: only http:// proxy URLs are supported'
                                  % redact(connection.proxy, []))
            self.proxy = (proxy.hostname, port)
            headers = proxy_header_list(connection.proxy_headers)
            if self.https:
                self.tunnel_headers = dict(headers)
            else:
                self.headers = headers
        self._idle = []
        self._lock = threading.Lock()
        self.connections_opened = 0

    def _open(self):
        host, port = self.proxy or (self.host, self.port)
        if self.https:
            conn = _TLSConnection(host, port, timeout=CONNECT_TIMEOUT, context=self.ssl_context)
            conn.server_hostname = self.server_hostname
            if self.proxy:
                conn.set_tunnel(self.host, self.port, headers=self.tunnel_headers)
        else:
            conn = http.client.HTTPConnection(host, port, timeout=CONNECT_TIMEOUT)
        try:
            conn.connect()
        except (OSError, http.client.HTTPException) as e:
            conn.close()
            raise _ConnectFailed(e)
        self.connections_opened += 1
        return conn

    def _take(self):
        while True:
            with self._lock:
                if not self._idle:
                    return None
                conn = self._idle.pop()
            # The server may have closed an idle connection: readable now means EOF (or junk).
            try:
                if conn.sock is not None and not select.select([conn.sock], [], [], 0)[0]:
                    return conn
            except (OSError, ValueError):
                pass
            conn.close()

    def put(self, conn, resp):
        """Keep a connection whose last response was read completely, unless it must close."""
        if conn.sock is None or resp.will_close:
            conn.close()
            return
        with self._lock:
            if len(self._idle) < self.MAX_IDLE:
                self._idle.append(conn)
                return
        conn.close()

    def request(self, method, path, body, headers, stream=False, read_timeout=READ_TIMEOUT):
        """Send one request; a _Response (body read) or, with ``stream``, a _Stream to close.

        Raises _ConnectFailed when no connection could be made, OSError or HTTPException when an
        established one failed (the request may or may not have reached the server).
        """
        conn = self._take() or self._open()
        target = path
        if self.proxy and not self.https:
            target = 'http://%s:%d%s' % (('[%s]' % self.host) if ':' in self.host else self.host,
                                         self.port, path)
        try:
            conn.sock.settimeout(read_timeout)
            conn.putrequest(method, target, skip_accept_encoding=True)
            for name, value in list(headers) + self.headers:
                conn.putheader(name, value)
            if body is not None:
                conn.putheader('Content-Length', str(len(body)))
            conn.endheaders(body)
            resp = conn.getresponse()
            if stream:
                return _Stream(self, conn, resp)
            data = resp.read()
        except BaseException:
            conn.close()
            raise
        self.put(conn, resp)
        return _Response(resp.status, resp.reason, resp.msg, data)

    def close(self):
        with self._lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()


class ApiClient:
    """Raw JSON requests to one API server, with bounded retries of what is safe to retry.

    Paths are API paths (``/apis/apps/v1/namespaces/default/deployments/web``); bodies and results
    are plain dicts. Thread-safe (the transport is), so waiters can share one client.
    """

    def __init__(self, connection, transport=None, sleep=time.sleep):
        self.connection = connection
        self.sleep = sleep
        self.base = connection.server
        self._transport = transport if transport is not None else self._make_transport()
        self.requests_sent = 0

    @classmethod
    def from_params(cls, params, env=None):
        return cls(load_connection(params, env))

    # -- setup
    def _ssl_context(self):
        conn = self.connection
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        if conn.verify:
            try:
                if conn.ca_file:
                    ctx.load_verify_locations(cafile=conn.ca_file)
                elif conn.ca_data:
                    ctx.load_verify_locations(cadata=conn.ca_data)
                else:
                    ctx.load_default_certs()
            except (IOError, OSError, ssl.SSLError) as e:
                raise ConfigError('cannot load the CA certificate %s: %s'
                                  % (conn.ca_file or '(certificate-authority-data)',
                                     getattr(e, 'strerror', None) or e))
        else:
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
        if conn.cert_file or conn.cert_data:
            self._load_client_cert(ctx)
        return ctx

    def _load_client_cert(self, ctx):
        conn = self.connection
        tmpdir = None
        try:
            cert, key = conn.cert_file, conn.key_file
            if conn.cert_data or conn.key_data:
                import shutil
                import tempfile
                # ssl only loads certificates from files: write them to a private directory and
                # delete them as soon as they are loaded (the context keeps them in memory).
                tmpdir = tempfile.mkdtemp(prefix='kubeops-rollout-')
                if conn.cert_data:
                    cert = os.path.join(tmpdir, 'client.crt')
                    with os.fdopen(os.open(cert, os.O_WRONLY | os.O_CREAT, 0o600), 'wb') as f:
                        f.write(conn.cert_data)
                if conn.key_data:
                    key = os.path.join(tmpdir, 'client.key')
                    with os.fdopen(os.open(key, os.O_WRONLY | os.O_CREAT, 0o600), 'wb') as f:
                        f.write(conn.key_data)
            if not key:
                raise ConfigError('a client certificate needs a client key '
                                  '(client_key or the kubeconfig client-key)')
            ctx.load_cert_chain(cert, key)
        except (IOError, OSError, ssl.SSLError) as e:
            raise ConfigError('cannot load the client certificate/key (%s, %s): %s'
                              % (conn.cert_file or 'client-certificate-data',
                                 conn.key_file or 'client-key-data', getattr(e, 'strerror', None) or e))
        finally:
            if tmpdir:
                shutil.rmtree(tmpdir, ignore_errors=True)

    def _make_transport(self):
        context = self._ssl_context() if self.base.startswith('https://') else None
        return Transport(self.base, self.connection, context)

    def _headers(self, content_type=None):
        """Request headers as (name, value) pairs: Impersonate-Group repeats, one per group."""
        conn = self.connection
        headers = [('Accept', 'application/json'), ('User-Agent', USER_AGENT)]
        if content_type:
            headers.append(('Content-Type', content_type))
        if conn.token:
            headers.append(('Authorization', 'Bearer ' + conn.token))
        elif conn.username and conn.password is not None:
            headers.append(('Authorization', _basic('%s:%s' % (conn.username, conn.password))))
        if conn.impersonate_user:
            headers.append(('Impersonate-User', conn.impersonate_user))
        for group in conn.impersonate_groups or []:
            headers.append(('Impersonate-Group', group))
        return headers

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
            data = json.dumps(body, separators=(',', ':')).encode('utf-8')
            content_type = content_type or 'application/json'
        refreshed = False
        attempt = 0
        while True:
            attempt += 1
            self.requests_sent += 1
            try:
                resp = self._transport.request(method, target, data, self._headers(content_type),
                                               stream=stream, read_timeout=read_timeout or READ_TIMEOUT)
            except _ConnectFailed as e:
                if isinstance(e.error, ssl.SSLError) or 'CERTIFICATE_VERIFY_FAILED' in str(e):
                    raise self._tls_failure(e.error)
                if attempt < CONNECT_ATTEMPTS:
                    self.sleep(self._backoff(attempt))
                    continue
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
            if error.status == 401 and self.connection.refresh and not refreshed:
                refreshed = True
                try:
                    self.connection.token = self.connection.refresh()
                except Exception:  # a failed refresh leaves the 401 as the answer
                    raise error
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
        return ConnectionFailure(
            'TLS handshake with the Kubernetes API at %s failed (%s). Set ca_cert (or the kubeconfig '
            'certificate-authority) to the CA that signed the API server certificate; validate_certs: '
            'false skips the check (testing only).' % (self._where(), detail.rstrip('. ')), tls=True)

    def _decode(self, resp, method, path):
        raw = resp.data
        if not raw:
            return {}
        try:
            return json.loads(raw.decode('utf-8'))
        except ValueError:
            raise ApiError(resp.status, 'BadResponse', 'the API server answered %s %s with a body that is '
                           'not JSON (is %s really a Kubernetes API server?)' % (method, path, self._where()))

    def _error(self, resp, method, path):
        raw = resp.data or b''
        body = None
        try:
            body = json.loads(raw.decode('utf-8'))
        except ValueError:
            pass
        retry_after = None
        header = resp.headers.get('Retry-After')
        if header:
            try:
                retry_after = float(header)
            except ValueError:
                retry_after = None
        if isinstance(body, dict) and body.get('kind') == 'Status':
            message = body.get('message') or resp.reason or 'error'
            reason = body.get('reason') or ''
            if retry_after is None:
                retry_after = (body.get('details') or {}).get('retryAfterSeconds')
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

    def create(self, path, body, dry_run=False):
        # A create is not retried after a dropped connection: it may have been stored.
        return self.request('POST', path, query=self._write_query(dry_run), body=body, retry=False)

    def replace(self, path, body, dry_run=False):
        # Safe to retry: the body's metadata.resourceVersion makes a repeat a 409, never a double write.
        retry = bool((body.get('metadata') or {}).get('resourceVersion'))
        return self.request('PUT', path, query=self._write_query(dry_run), body=body, retry=retry)

    def patch(self, path, body, content_type='application/strategic-merge-patch+json', dry_run=False,
              retry=False):
        """``retry``: set it for patches that are safe to repeat (guarded by a resourceVersion test,
        or setting absolute values so that a repeat changes nothing)."""
        return self.request('PATCH', path, query=self._write_query(dry_run), body=body,
                            content_type=content_type, retry=retry)

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
        resp = self.request('GET', path, query=query, stream=True, read_timeout=timeout_seconds + 15)
        yield from self._stream_events(resp)

    def _stream_events(self, resp):
        """The events of a watch response, one JSON document per line; closes the response."""
        buf = b''
        try:
            while True:
                chunk = resp.read1(65536)  # what has arrived, up to a chunk: events are not delayed
                if not chunk:
                    break
                buf += chunk
                while b'\n' in buf:
                    line, buf = buf.split(b'\n', 1)
                    event = self._event(line)
                    if event is not None:
                        yield event
            event = self._event(buf)
            if event is not None:
                yield event
        except (OSError, http.client.HTTPException):
            return  # the stream ended early: the caller re-watches from its last resourceVersion
        finally:
            resp.close()

    def _event(self, line):
        line = line.strip()
        if not line:
            return None
        try:
            event = json.loads(line.decode('utf-8'))
        except ValueError:
            return None
        if event.get('type') == 'ERROR':
            obj = event.get('object') or {}
            raise ApiError(obj.get('code') or 500, obj.get('reason') or '',
                           obj.get('message') or 'watch error', obj)
        return event.get('type'), event.get('object') or {}


def path_quote(segment):
    """Quote one path segment (object names are DNS names, but be safe)."""
    return quote(str(segment), safe='')

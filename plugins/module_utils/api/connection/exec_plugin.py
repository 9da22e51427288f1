# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""kubectl's exec credential plugins (``users[].user.exec`` in a kubeconfig), run natively.

How EKS, GKE, AKS and OIDC logins authenticate: the kubeconfig names a command; it prints an
``ExecCredential`` (``client.authentication.k8s.io/v1`` or ``v1beta1``) holding a bearer token or a
client certificate and key, and maybe an expiry. This module runs the command the way client-go
does (environment, ``KUBERNETES_EXEC_INFO``, relative command paths, interactive modes) and reads
the answer, without importing the ``kubernetes`` library. The program itself is started by the
runner the module's runtime hands over (``exec_process.py``: run_command on the module path).

Differences from kubectl, all because a module runs unattended: the plugin never gets a terminal
(``interactiveMode: Always`` is an error, ``IfAvailable`` runs non-interactively), its run is bounded
in time and output size, and its stderr is captured (trimmed, secrets redacted) into the error
message instead of being printed.

    provider = ExecCredentialProvider(user['exec'], cluster=cluster_entry, base_dir=kubeconfig_dir,
                                      runner=runtime.run_process)
    credential = provider.get()        # runs the plugin once, then caches until expiry
    ...                                # on a 401: provider.refresh(stale=credential)
    secrets = provider.secrets         # every secret value seen so far, for redaction

Errors are ``ExecCredentialError`` (``message`` is safe to show: it never holds a credential).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import json
import os
import re
import shutil
import signal
import threading
import time

from ansible_collections.kubeops.rollout.plugins.module_utils.common import times
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import (
    REDACTED,
    ConfigError,
    redact,
    secret_name,
)

GROUP = 'client.authentication.k8s.io'
API_VERSIONS = (GROUP + '/v1', GROUP + '/v1beta1')
KIND = 'ExecCredential'
EXEC_INFO_ENV = 'KUBERNETES_EXEC_INFO'
# The cluster extension whose content client-go hands to the plugin as spec.cluster.config.
EXEC_EXTENSION = GROUP + '/exec'
INTERACTIVE_MODES = ('Never', 'IfAvailable', 'Always')

DEFAULT_TIMEOUT = 60.0  # seconds for one plugin run; cloud CLIs take a few seconds at most
MAX_OUTPUT = 1024 * 1024  # bytes of stdout (and of stderr) kept before the plugin is stopped
STDERR_SHOWN = 1000  # characters of the plugin's stderr quoted in an error message
MIN_SECRET_LENGTH = 4

INSTALL_HELP = (
    'It looks like you are trying to use a client-go credential plugin that is not installed on the '
    'managed node. See https://kubernetes.io/docs/reference/access-authn-authz/authentication/'
    '#client-go-credential-plugins')

# Credential shapes redacted from a plugin's stderr even when their value is not known here:
# (pattern, group kept in front of the redaction mark).
_SECRET_PATTERNS = (
    (re.compile(r'-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)', re.S), None),
    (re.compile(r'\beyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]*'), None),  # JSON web tokens (OIDC, service accounts)
    (re.compile(r'\bk8s-aws-v1\.[\w-]+'), None),  # EKS tokens
    (re.compile(r'(?i)\b((?:bearer|basic)\s+)[\w.~+/=-]{8,}'), 1),
    (re.compile(r'(?i)("?(?:token|access_token|id_token|refresh_token|password|secret|'
                r'client-key-data|clientKeyData)"?\s*[:=]\s*)"?[^\s",}]+"?'), 1),
)


class ExecCredentialError(ConfigError):
    """The plugin could not give a credential; ``message`` is safe to show (no secret in it)."""


class ExecConfigError(ExecCredentialError):
    """The kubeconfig's ``exec`` section itself is wrong (found before running anything)."""


def _secret_parts(value):
    """``value`` and the pieces of it that could show up on their own (PEM body lines, base64)."""
    if not value:
        return []
    parts = [value]
    if '-----BEGIN' in value:
        body = [line.strip() for line in value.splitlines()
                if line.strip() and not line.startswith('-----')]
        parts.extend(line for line in body if len(line) >= 16)
        parts.append(''.join(body))
    parts.append(base64.b64encode(value.encode('utf-8')).decode('ascii'))
    return parts


def redact_text(text, secrets):
    """``text`` with every known secret (``errors.redact``) and anything shaped like a credential
    replaced."""
    text = redact(text, [s for s in secrets if s and len(s) >= MIN_SECRET_LENGTH])
    for pattern, kept in _SECRET_PATTERNS:
        text = pattern.sub(lambda m, kept=kept: (m.group(kept) if kept else '') + REDACTED, text)
    return text


class Credential:
    """What one plugin run gave: a bearer token and/or a client certificate, and when it expires."""

    def __init__(self, token=None, client_certificate_data=None, client_key_data=None, expires_at=None):
        self.token = token or None
        self.client_certificate_data = client_certificate_data or None  # PEM text
        self.client_key_data = client_key_data or None  # PEM text
        self.expires_at = expires_at  # seconds since the epoch, or None: valid until a 401

    def expired(self, now=None):
        """True once the expiry has passed (a credential without expiry never expires)."""
        if self.expires_at is None:
            return False
        return (time.time() if now is None else now) >= self.expires_at

    @property
    def secrets(self):
        """Every value of this credential that must never be shown (raw, base64 and PEM pieces)."""
        out = []
        for value in (self.token, self.client_key_data):
            out.extend(_secret_parts(value))
        return out

    def __repr__(self):
        return '<Credential token=%s client_certificate=%s expires_at=%r>' % (
            'yes' if self.token else 'no', 'yes' if self.client_certificate_data else 'no', self.expires_at)


def _cluster_info(cluster, base_dir):
    """The kubeconfig cluster entry as the ``spec.cluster`` client-go gives the plugin."""
    cluster = cluster or {}
    info = {'server': cluster.get('server') or ''}
    if cluster.get('tls-server-name'):
        info['tls-server-name'] = cluster['tls-server-name']
    if cluster.get('insecure-skip-tls-verify') is True:
        info['insecure-skip-tls-verify'] = True
    ca_data = cluster.get('certificate-authority-data')
    if not ca_data and cluster.get('certificate-authority'):
        path = cluster['certificate-authority']
        if base_dir and not os.path.isabs(path):
            path = os.path.join(base_dir, path)
        try:
            with open(path, 'rb') as handle:
                ca_data = base64.b64encode(handle.read()).decode('ascii')
        except (IOError, OSError) as e:
            raise ExecConfigError('cannot read certificate-authority %s for the exec plugin: %s'
                                  % (path, e.strerror or e))
    if ca_data:
        info['certificate-authority-data'] = ca_data
    if cluster.get('proxy-url'):
        info['proxy-url'] = cluster['proxy-url']
    if cluster.get('disable-compression') is True:
        info['disable-compression'] = True
    for extension in cluster.get('extensions') or []:
        if isinstance(extension, dict) and extension.get('name') == EXEC_EXTENSION:
            info['config'] = extension.get('extension')
    return info


class ExecCredentialProvider:
    """Runs one kubeconfig user's exec plugin and caches its credential until it expires.

    ``exec_config`` is the user's ``exec`` mapping; ``cluster`` the kubeconfig cluster entry (sent
    to the plugin with ``provideClusterInfo: true``); ``base_dir`` the directory of the kubeconfig
    file that defined the user (a command containing a path separator is relative to it);
    ``user`` names the kubeconfig user in messages; ``runner`` runs the program (the runtime's
    ``run_process``, see ``exec_process.py``). Thread safe: concurrent callers share one run.
    """

    def __init__(self, exec_config, cluster=None, base_dir=None, user=None, timeout=DEFAULT_TIMEOUT,
                 environ=None, runner=None):
        self.user = user
        self._runner = runner
        # The environment the plugin inherits: the task's (controller path) or the process's.
        self._environ = environ
        self.timeout = float(timeout)
        self._cluster = cluster
        self._base_dir = base_dir
        self._lock = threading.Lock()
        self._credential = None
        self._seen = []
        self._read_config(exec_config)

    # ---- configuration ----

    def _config_error(self, problem):
        who = ' of kubeconfig user "%s"' % self.user if self.user else ''
        return ExecConfigError('exec plugin%s: %s' % (who, problem))

    def _read_config(self, config):
        if not isinstance(config, dict):
            raise self._config_error('"exec" must be a mapping with at least apiVersion and command')
        self.api_version = config.get('apiVersion')
        if not self.api_version:
            raise self._config_error('apiVersion must be specified (%s)' % ' or '.join(API_VERSIONS))
        if self.api_version not in API_VERSIONS:
            raise self._config_error('invalid apiVersion "%s" (supported: %s)'
                                     % (self.api_version, ', '.join(API_VERSIONS)))
        command = config.get('command')
        if not command or not isinstance(command, str):
            raise self._config_error('command must be specified')
        # client-go resolves a command with a path separator against the kubeconfig's directory.
        if os.sep in command and not os.path.isabs(command) and self._base_dir:
            command = os.path.normpath(os.path.join(self._base_dir, command))
        self.command = command
        args = config.get('args') or []
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise self._config_error('args must be a list of strings')
        self.args = args
        self.env = []
        for item in config.get('env') or []:
            if not isinstance(item, dict) or not item.get('name'):
                raise self._config_error('every env entry needs a name and a value')
            if not isinstance(item.get('value'), str):
                raise self._config_error('env variable %s value must be specified as a string' % item['name'])
            self.env.append((item['name'], item['value']))
        mode = config.get('interactiveMode')
        if not mode:
            if self.api_version.endswith('/v1'):
                raise self._config_error('interactiveMode must be specified for %s (one of %s)'
                                         % (self.api_version, ', '.join(INTERACTIVE_MODES)))
            mode = 'IfAvailable'  # the v1beta1 default
        if mode not in INTERACTIVE_MODES:
            raise self._config_error('invalid interactiveMode "%s" (one of %s)'
                                     % (mode, ', '.join(INTERACTIVE_MODES)))
        self.interactive_mode = mode
        self.provide_cluster_info = config.get('provideClusterInfo') is True
        self.install_hint = config.get('installHint') or None

    # ---- public ----

    @property
    def secrets(self):
        """Every secret value this provider has seen or sent, for the caller's redaction: the
        credentials (all of them, old ones too), the configured environment values whose names say
        they hold one (``secret_name``) and the values of such flags among the arguments. Other
        settings are no secrets: a result field that equals a region or a namespace set for the
        plugin is never hidden."""
        with self._lock:
            values = [v for name, v in self.env if secret_name(name)] + self._secret_args()
            return list(self._seen) + [v for v in values if v and len(v) >= MIN_SECRET_LENGTH]

    def _secret_args(self):
        """Argument values given to a flag whose name says it takes a credential or a key
        (``--token X``, ``--password=X``, ``--service-account-key-file X``)."""
        out = []
        for i, arg in enumerate(self.args):
            if not arg.startswith('-'):
                continue
            flag, eq, value = arg.lstrip('-').partition('=')
            if secret_name(flag) or 'key' in flag.lower():
                if eq:
                    out.append(value)
                elif i + 1 < len(self.args) and not self.args[i + 1].startswith('-'):
                    out.append(self.args[i + 1])
        return out

    def get(self):
        """The cached credential, or a new one when there is none yet or it has expired."""
        with self._lock:
            if self._credential is None or self._credential.expired():
                self._credential = self._run()
            return self._credential

    def refresh(self, stale=None):
        """A new credential after the server refused one (401): runs the plugin again unless
        another caller already replaced ``stale``."""
        with self._lock:
            if stale is None or stale is self._credential or self._credential is None:
                self._credential = self._run()
            return self._credential

    # ---- running the plugin ----

    def _config_secrets(self):
        # Values in exec env and long non-flag arguments are often keys (AWS secret keys, service
        # account keys passed as arguments); redact them from anything the plugin itself says.
        values = [value for _name, value in self.env]
        values.extend(a for a in self.args if len(a) >= 16 and not a.startswith('-'))
        return [v for v in values if v and len(v) >= MIN_SECRET_LENGTH]

    def _fail(self, problem):
        return ExecCredentialError('getting credentials: %s' % problem)

    def _exec_info(self):
        spec = {'interactive': False}
        if self.provide_cluster_info:
            spec['cluster'] = _cluster_info(self._cluster, self._base_dir)
        return json.dumps({'kind': KIND, 'apiVersion': self.api_version, 'spec': spec},
                          separators=(',', ':'))

    def _executable(self):
        if os.sep in self.command:
            found = self.command if os.path.isfile(self.command) else None
        else:
            # Looked up in the caller's PATH, as Go's exec.Command does (not the plugin's env).
            found = shutil.which(self.command, mode=os.F_OK)
        if not found:
            message = 'exec: executable %s not found\n\n%s' % (self.command, INSTALL_HELP)
            if self.install_hint:
                message += '\n\n' + self.install_hint.strip()
            raise self._fail(message)
        if not os.access(found, os.X_OK):
            raise self._fail('exec: executable %s is not executable (permission denied)' % self.command)
        return found

    def _run(self):
        if self.interactive_mode == 'Always':
            raise self._fail(
                'exec plugin cannot support interactive mode: standard input is not a terminal '
                '(the plugin %s has interactiveMode Always, but modules run without a terminal; '
                'log in beforehand so the plugin can answer from its cache, or use a kubeconfig '
                'user whose plugin works with interactiveMode Never or IfAvailable)' % self.command)
        executable = self._executable()
        env = dict(os.environ if self._environ is None else self._environ)
        env.update(self.env)
        env[EXEC_INFO_ENV] = self._exec_info()
        if self._runner is None:
            raise ValueError('ExecCredentialProvider needs a runner (the runtime\'s run_process) to run %s'
                             % self.command)
        try:
            rc, stdout, stderr, problem = self._runner([executable] + self.args, env, self.timeout,
                                                       MAX_OUTPUT)
        except OSError as e:
            raise self._fail('exec: executable %s could not be started: %s'
                             % (self.command, e.strerror or e.__class__.__name__))
        if problem:
            raise self._fail('exec: executable %s %s%s' % (self.command, problem, self._stderr_note(stderr)))
        if rc < 0:
            try:
                name = signal.Signals(-rc).name
            except ValueError:
                name = 'signal %d' % -rc
            raise self._fail('exec: executable %s was killed by %s%s'
                             % (self.command, name, self._stderr_note(stderr)))
        if rc != 0:
            raise self._fail('exec: executable %s failed with exit code %d%s'
                             % (self.command, rc, self._stderr_note(stderr)))
        credential = self._parse(stdout)
        self._seen.extend(s for s in credential.secrets if s not in self._seen)
        return credential

    def _stderr_note(self, stderr):
        text = stderr.decode('utf-8', 'replace').strip()
        if not text:
            return ''
        text = redact_text(text, self._seen + self._config_secrets())
        if len(text) > STDERR_SHOWN:
            text = '...' + text[-STDERR_SHOWN:]
        return '; its stderr: %s' % text

    def _parse(self, stdout):
        """The ExecCredential on stdout -> ``Credential``; messages never quote the output."""
        if not stdout.strip():
            raise self._fail('decoding stdout: the exec plugin %s printed nothing; it must print an '
                             '%s object' % (self.command, KIND))
        try:
            answer = json.loads(stdout.decode('utf-8'))
        except (UnicodeDecodeError, ValueError):
            raise self._fail('decoding stdout: the output of the exec plugin %s (%d bytes) is not JSON'
                             % (self.command, len(stdout)))
        if not isinstance(answer, dict):
            raise self._fail('decoding stdout: the output of the exec plugin %s is not a JSON object'
                             % self.command)
        version, kind = answer.get('apiVersion'), answer.get('kind')
        if version != self.api_version:
            shown = version if isinstance(version, str) and re.match(r'^[\w./-]{1,100}$', version) \
                else 'none' if version is None else 'an invalid one'
            raise self._fail('exec plugin is configured to use API version %s, plugin returned version %s'
                             % (self.api_version, shown))
        if kind != KIND:
            raise self._fail('decoding stdout: the exec plugin %s returned kind %s, not %s'
                             % (self.command, kind if isinstance(kind, str) and len(kind) < 64 else 'none',
                                KIND))
        status = answer.get('status')
        if not isinstance(status, dict):
            raise self._fail("exec plugin didn't return a status field")
        token = status.get('token') or None
        cert = status.get('clientCertificateData') or None
        key = status.get('clientKeyData') or None
        for field, value in (('token', token), ('clientCertificateData', cert), ('clientKeyData', key)):
            if value is not None and not isinstance(value, str):
                raise self._fail('decoding stdout: status.%s of the exec plugin %s is not a string'
                                 % (field, self.command))
        # Registered before any further check, so a caller redacting after a failure knows them.
        self._seen.extend(s for s in Credential(token, cert, key).secrets if s not in self._seen)
        if not (token or cert or key):
            raise self._fail("exec plugin didn't return a token or cert/key pair")
        if bool(cert) != bool(key):
            raise self._fail('exec plugin returned only certificate or key, not both')
        if cert and not ('-----BEGIN' in cert and '-----BEGIN' in key):
            raise self._fail('failed parsing client key/certificate: the exec plugin %s must return '
                             'PEM-encoded clientCertificateData and clientKeyData' % self.command)
        expires_at = None
        raw_expiry = status.get('expirationTimestamp')
        if raw_expiry:
            expires_at = times.parse(raw_expiry)
            if expires_at is None:
                raise self._fail('decoding stdout: status.expirationTimestamp of the exec plugin %s is '
                                 'not an RFC 3339 time' % self.command)
        return Credential(token, cert, key, expires_at)

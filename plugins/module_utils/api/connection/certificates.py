# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""TLS: the API server's CA (kubeconfig ``certificate-authority``/``-data``, the ``ca_cert`` option,
the system's CAs), client certificates (files or kubeconfig data), the ``ssl`` context built from
them, and the rule that credentials never travel in the clear."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import os
import shutil
import ssl
import tempfile

from ansible_collections.kubeops.rollout.plugins.module_utils.common.vocabulary import setting
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ConfigError, redact


def b64decode(value, what):
    """A kubeconfig ``*-data`` field's bytes; not base64 is a ``ConfigError`` naming the field."""
    try:
        return base64.b64decode(value)
    except (TypeError, ValueError):
        raise ConfigError('kubeconfig field %s is not valid base64' % what)


def ca_data(value, where):
    """certificate-authority-data as PEM text; empty, not base64 or no certificate is an error
    (never a silent fallback to the system's CAs)."""
    if not value.strip():
        raise ConfigError('kubeconfig field certificate-authority-data of %s is empty: set it to the '
                          'base64 of the CA certificate (PEM), or remove it to use the system\'s CAs' % where)
    try:
        pem = base64.b64decode(''.join(value.split()), validate=True).decode('utf-8')
    except (TypeError, ValueError):
        raise ConfigError('kubeconfig field certificate-authority-data of %s is not valid base64' % where)
    if '-----BEGIN CERTIFICATE-----' not in pem:
        raise ConfigError('kubeconfig field certificate-authority-data of %s holds no PEM certificate '
                          '(-----BEGIN CERTIFICATE-----): it must be the base64 of the CA certificate'
                          % where)
    return pem


def from_cluster(conn, cluster, insecure, where):
    """The server's identity checks of a kubeconfig cluster: its CA, or no verification at all
    (``insecure``), never both (kubectl refuses that too)."""
    conn.verify = not insecure
    conn.tls_server_name = cluster.get('tls-server-name') or None
    has_ca = cluster.get('certificate-authority-data') is not None \
        or bool(cluster.get('certificate-authority'))
    if has_ca and insecure:
        raise ConfigError('%s sets both a CA (certificate-authority or certificate-authority-data) and '
                          'insecure-skip-tls-verify: true, which kubectl refuses too: remove one of them'
                          % where)
    if cluster.get('certificate-authority-data') is not None:
        conn.ca_data = ca_data(cluster['certificate-authority-data'], where)
    elif cluster.get('certificate-authority'):
        conn.ca_file = cluster['certificate-authority']


def from_user(conn, user):
    """A kubeconfig user's client certificate and key (data or files)."""
    if user.get('client-certificate-data'):
        conn.cert_data = b64decode(user['client-certificate-data'], 'client-certificate-data')
    elif user.get('client-certificate'):
        conn.cert_file = user['client-certificate']
    if user.get('client-key-data'):
        conn.key_data = b64decode(user['client-key-data'], 'client-key-data')
    elif user.get('client-key'):
        conn.key_file = user['client-key']


def check_transport_security(conn):
    """kubectl never sends credentials in the clear: refuse a token or password over plain http
    unless the user opts in; warn whenever the API server's identity is not checked."""
    plain = conn.server.startswith('http://')
    credentials = conn.token or conn.password or conn.exec_provider is not None or conn.refresh
    if plain and credentials:
        if not conn.allow_insecure_credentials:
            raise ConfigError(
                'refusing to send credentials (a bearer token or password) to %s over plain http, '
                'where anyone on the path can read them. Use an https:// server address, or set '
                '%s (K8S_AUTH_ALLOW_INSECURE_CREDENTIALS=true) to send them anyway (test clusters only)'
                % (redact(conn.server, []), setting('allow_insecure_credentials', True)))
        conn.warnings.append('sending credentials to %s over plain http (allow_insecure_credentials is '
                             'set): anyone on the path can read them' % redact(conn.server, []))
    if not plain and not conn.verify:
        conn.warnings.append('TLS certificate verification of the Kubernetes API at %s is off '
                             '(validate_certs: false or insecure-skip-tls-verify): the server\'s '
                             'identity is not checked' % redact(conn.server, []))


def ssl_context(conn):
    """The TLS context for ``conn``: its CA (or the system's), client certificate, verification."""
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
        _load_client_cert(conn, ctx)
    return ctx


def _load_client_cert(conn, ctx):
    tmpdir = None
    try:
        cert, key = conn.cert_file, conn.key_file
        if conn.cert_data or conn.key_data:
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

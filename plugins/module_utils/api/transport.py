# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""HTTP(S) to one API server on the standard library (``http.client`` and ``ssl``), with the TLS
context ``connection/certificates.py`` builds: HTTP proxies (forwarding and CONNECT tunnels),
keep-alive pooling and streaming responses. Knows nothing of Kubernetes: ``client.py`` sends the requests."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import http.client
import select
import socket
import threading
import time

try:
    from urllib.parse import urlsplit
except ImportError:  # pragma: no cover - Python 2 is not supported, this keeps sanity's import test quiet
    urlsplit = None

from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection.settings import proxy_userinfo
from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection.tokens import basic_auth
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ConfigError, redact

CONNECT_TIMEOUT = 10.0
READ_TIMEOUT = 60.0  # one request, all of it: connect, headers and body
MAX_RESPONSE_BYTES = 64 * 1024 * 1024  # a body larger than this is refused, not read


class RequestTimeout(Exception):
    """A request's total deadline passed (connect, headers and body counted together)."""


class ResponseTooLarge(Exception):
    """A response body is larger than ``MAX_RESPONSE_BYTES``."""

    def __init__(self, size):
        super(ResponseTooLarge, self).__init__('response larger than %d bytes' % size)
        self.size = size


def _split_host_port(entry):
    """'host', 'host:port', '[v6]:port', 'v6' -> (host, port or '')."""
    if entry.startswith('['):
        host, _sep, rest = entry[1:].partition(']')
        return host, rest[1:] if rest.startswith(':') else ''
    if entry.count(':') == 1:
        host, port = entry.split(':')
        return host, port
    return entry, ''


def _no_proxy_matches(host, no_proxy, port=None):
    """Whether ``no_proxy`` exempts ``host``:``port``, by Go's NO_PROXY rules: ``*`` matches all; an
    IP or CIDR matches addresses; ``example.com`` matches it and its subdomains, ``.example.com``
    and ``*.example.com`` its subdomains only; a ``:port`` suffix restricts an entry to that port."""
    if not no_proxy:
        return False
    import ipaddress
    host = (host or '').lower().strip('[]')
    port = str(port or '')
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    for entry in [e.strip().lower() for e in no_proxy.split(',') if e.strip()]:
        if entry == '*':
            return True
        if '/' in entry:
            try:
                if address is not None and address in ipaddress.ip_network(entry, strict=False):
                    return True
            except ValueError:
                pass
            continue
        name, entry_port = _split_host_port(entry)
        if entry_port and entry_port != port:
            continue
        try:
            entry_address = ipaddress.ip_address(name)
        except ValueError:
            entry_address = None
        if entry_address is not None:
            if address == entry_address:
                return True
            continue
        if name.startswith('*.'):
            name = name[1:]
        if name.startswith('.'):
            if host.endswith(name):
                return True
        elif host == name or host.endswith('.' + name):
            return True
    return False


def proxy_header_list(proxy_headers):
    """The ``proxy_headers`` option as HTTP headers for the proxy (kubernetes.core's names)."""
    headers = []
    for key, value in sorted((proxy_headers or {}).items()):
        if value is None:
            continue
        if key == 'proxy_basic_auth':
            headers.append(('Proxy-Authorization', basic_auth(value)))
        elif key == 'basic_auth':
            headers.append(('Authorization', basic_auth(value)))
        elif key == 'user_agent':
            headers.append(('User-Agent', value))
    return headers


class ConnectFailed(Exception):
    """No connection (TCP, proxy tunnel or TLS handshake): nothing was sent, a retry is safe."""

    def __init__(self, error):
        super(ConnectFailed, self).__init__(str(error))
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


def _read_body(conn, resp, deadline, limit=MAX_RESPONSE_BYTES):
    """The whole body, chunk by chunk, each read bounded by ``deadline``; at most ``limit`` bytes."""
    length = resp.getheader('Content-Length')
    if length and length.isdigit() and int(length) > limit:
        raise ResponseTooLarge(limit)
    parts, size = [], 0
    while True:
        data = _read1(conn, resp, 65536, deadline)
        if not data:
            return b''.join(parts)
        size += len(data)
        if size > limit:
            raise ResponseTooLarge(limit)
        parts.append(data)


def _read1(conn, resp, amount, deadline):
    """What has arrived (up to ``amount`` bytes), waiting no later than ``deadline``."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise RequestTimeout()
    if conn.sock is not None:
        conn.sock.settimeout(remaining)
    try:
        data = resp.read1(amount)
        if not data:
            resp.read()  # at the end of a Content-Length body: marks the response complete
        return data
    except socket.timeout:
        if time.monotonic() >= deadline - 0.01:
            raise RequestTimeout()
        raise


class _Stream:
    """A streaming response; closing it gives its connection back when the body was read to the end.
    Every read is bounded by the request's deadline."""

    def __init__(self, transport, conn, resp, deadline):
        self._transport, self._conn, self._resp = transport, conn, resp
        self.status, self.reason, self.headers = resp.status, resp.reason, resp.msg
        self._ended = False
        self._deadline = deadline
        self._sock = conn

    @property
    def data(self):  # an error response is read whole
        return self.read()

    def read(self):
        data = _read_body(self._sock, self._resp, self._deadline)
        self._ended = True
        return data

    def read1(self, amount):
        data = _read1(self._sock, self._resp, amount, self._deadline)
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
        self.proxy_url = None
        if connection.proxy and not _no_proxy_matches(self.host, connection.no_proxy, self.port):
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
            self.proxy_url = 'http://%s:%d' % (proxy.hostname, port)
            headers = proxy_header_list(connection.proxy_headers)
            userinfo = proxy_userinfo(connection.proxy)
            if userinfo and not any(name == 'Proxy-Authorization' for name, _v in headers):
                headers.append(('Proxy-Authorization', basic_auth('%s:%s' % userinfo)))
            if self.https:
                self.tunnel_headers = dict(headers)
            else:
                self.headers = headers
        self._idle = []
        self._lock = threading.Lock()
        self.connections_opened = 0

    def _open(self, deadline):
        host, port = self.proxy or (self.host, self.port)
        timeout = max(0.01, min(CONNECT_TIMEOUT, deadline - time.monotonic()))
        if self.https:
            conn = _TLSConnection(host, port, timeout=timeout, context=self.ssl_context)
            conn.server_hostname = self.server_hostname
            if self.proxy:
                conn.set_tunnel(self.host, self.port, headers=self.tunnel_headers)
        else:
            conn = http.client.HTTPConnection(host, port, timeout=timeout)
        try:
            conn.connect()
        except (OSError, http.client.HTTPException) as e:
            conn.close()
            raise ConnectFailed(e)
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

        ``read_timeout`` bounds the whole request (connect, headers, body; a stream's every read).
        Raises ConnectFailed when no connection could be made, RequestTimeout when the time is up,
        ResponseTooLarge for an oversized body, OSError or HTTPException when an established
        connection failed (the request may or may not have reached the server).
        """
        deadline = time.monotonic() + read_timeout
        conn = self._take() or self._open(deadline)
        target = path
        if self.proxy and not self.https:
            target = 'http://%s:%d%s' % (('[%s]' % self.host) if ':' in self.host else self.host,
                                         self.port, path)
        try:
            conn.sock.settimeout(max(0.01, deadline - time.monotonic()))
            conn.putrequest(method, target, skip_accept_encoding=True)
            for name, value in list(headers) + self.headers:
                conn.putheader(name, value)
            if body is not None:
                conn.putheader('Content-Length', str(len(body)))
            conn.endheaders(body)
            try:
                resp = conn.getresponse()
            except socket.timeout:
                if time.monotonic() >= deadline - 0.01:
                    raise RequestTimeout()
                raise
            if stream:
                return _Stream(self, conn, resp, deadline)
            data = _read_body(conn, resp, deadline)
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

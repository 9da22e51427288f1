# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""``open_endpoint``: one request of a check (the providers' opener unless a test gives another), on
the standard library (``http.client``, ``ssl``), with one deadline for all of it.

``timeout`` bounds the whole request, not each socket operation: the name lookup, the connection,
a proxy's CONNECT tunnel, the TLS handshake, sending the request and every read of the status line,
the headers and the body. Each of them waits at most for what is left of it, so an endpoint that
trickles its answer a byte at a time is cut off when the time is up (``TimedOut``).

Proxies are taken from the environment (``http_proxy``, ``https_proxy``, ``no_proxy``, as urllib
reads them); an ``https`` URL goes through a CONNECT tunnel. Redirects are answers, not followed. A
user and password in the URL are sent as basic auth unless the request has an ``Authorization``
header.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import http.client
import io
import ipaddress
import socket
import ssl
import time

try:
    from urllib.parse import unquote, urlsplit
    from urllib.request import getproxies_environment, proxy_bypass_environment
except ImportError:  # pragma: no cover - Python 2 is not supported, this keeps sanity's import test quiet
    unquote = urlsplit = getproxies_environment = proxy_bypass_environment = None

from ansible_collections.kubeops.rollout.plugins.module_utils.common import threads
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import redact
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.provider import (
    Provider,
    TimedOut,
    header_problem,
)

# A body longer than this is not read further (an HTTP check's regex runs on this much).
MAX_BODY = 1024 * 1024
# What a proxy may answer to CONNECT: lines of at most MAX_LINE bytes, at most MAX_TUNNEL_LINES.
MAX_LINE = 65536
MAX_TUNNEL_LINES = 100
USER_AGENT = 'kubeops.rollout-analysis'


class Deadline:
    """The end of one request, ``seconds`` from now; ``left()`` raises ``TimedOut`` once it passed."""

    def __init__(self, seconds, clock=time.monotonic):
        self.seconds = seconds
        self.clock = clock
        self.at = clock() + seconds

    def left(self):
        left = self.at - self.clock()
        if left <= 0:
            raise TimedOut(self.seconds)
        return left


class DeadlineSocket:
    """A connected socket (plain or TLS) whose every send and receive waits at most for what is left
    of the deadline. ``http.client`` sees it as its socket; as a socket's, its close waits until the
    files made from it (a response's) are closed."""

    def __init__(self, sock, deadline):
        self.sock = sock
        self.deadline = deadline
        self._files = 0
        self._closing = False

    def recv_into(self, buffer, nbytes=0):
        self.sock.settimeout(self.deadline.left())
        return self.sock.recv_into(buffer, nbytes)

    def sendall(self, data):
        view = memoryview(data)
        while len(view):
            self.sock.settimeout(self.deadline.left())
            view = view[self.sock.send(view):]

    def makefile(self, mode='rb', *_args, **_kwargs):
        if mode != 'rb':
            raise ValueError('only reading is supported')
        self._files += 1
        return io.BufferedReader(_Reader(self, owned=True))

    def file_closed(self):
        self._files -= 1
        if self._closing and self._files <= 0:
            self.sock.close()

    def close(self):
        self._closing = True
        if self._files <= 0:
            self.sock.close()


class _Reader(io.RawIOBase):
    """The raw reads of a DeadlineSocket; closing a file made by ``makefile`` (``owned``) lets the
    socket close."""

    def __init__(self, sock, owned=False):
        super(_Reader, self).__init__()
        self._sock = sock
        self._owned = owned

    def readable(self):
        return True

    def readinto(self, buffer):
        return self._sock.recv_into(buffer)

    def close(self):
        if not self.closed and self._owned:
            self._sock.file_closed()
        super(_Reader, self).close()


def _addresses(host, port, deadline):
    """getaddrinfo for ``host``, given up on at the deadline: a lookup that hangs is left to end in
    its own thread (which holds no socket)."""
    try:
        ipaddress.ip_address(host)
        return socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM, 0, socket.AI_NUMERICHOST)
    except ValueError:
        pass
    found = {}

    def lookup():
        try:
            found['addresses'] = socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM)
        except Exception as e:  # handed to the caller
            found['error'] = e

    thread = threads.start(lookup, name='analysis-lookup')
    thread.join(deadline.left())
    if thread.is_alive():
        raise TimedOut(deadline.seconds)
    if 'error' in found:
        raise found['error']
    return found['addresses']


def _connect(host, port, deadline):
    """A TCP connection to the first address of ``host`` that accepts one before the deadline."""
    error = OSError('%s has no address' % host)
    for family, kind, proto, _name, address in _addresses(host, port, deadline):
        sock = socket.socket(family, kind, proto)
        try:
            sock.settimeout(deadline.left())
            sock.connect(address)
            return sock
        except (socket.timeout, TimedOut):
            sock.close()
            raise
        except OSError as e:
            sock.close()
            error = e
    raise error


def _tunnel(sock, host, port, headers):
    """CONNECT ``host``:``port`` through the proxy at the other end of ``sock``."""
    authority = '%s:%d' % ('[%s]' % host if ':' in host else host, port)
    lines = ['CONNECT %s HTTP/1.1' % authority, 'Host: %s' % authority]
    lines.extend('%s: %s' % item for item in headers.items())
    sock.sendall(('\r\n'.join(lines) + '\r\n\r\n').encode('latin-1'))
    reader = _Reader(sock)  # unbuffered: reads nothing past the proxy's answer
    status = reader.readline(MAX_LINE).split(None, 2)
    if len(status) < 2 or not status[0].startswith(b'HTTP/') or not status[1].isdigit():
        raise OSError('the proxy did not answer CONNECT with an HTTP status')
    for _line in range(MAX_TUNNEL_LINES):
        if reader.readline(MAX_LINE) in (b'\r\n', b'\n', b''):
            break
    else:
        raise OSError('the proxy answered CONNECT with more than %d header lines' % MAX_TUNNEL_LINES)
    if int(status[1]) != 200:
        raise OSError('the proxy refused the tunnel to %s (%d)' % (authority, int(status[1])))


class _Connection(http.client.HTTPConnection):
    """One connection to ``host``:``port`` for one request, reached directly, through a proxy
    (``dial``: the address to connect to) and its CONNECT tunnel (``tunnel``: its headers), over TLS
    (``tls``: the context), every step bounded by ``deadline``."""

    def __init__(self, host, port, deadline, dial=None, tunnel=None, tls=None):
        http.client.HTTPConnection.__init__(self, host, port)
        self.deadline = deadline
        self.dial = dial or (host, port)
        self.tunnel = tunnel
        self.tls = tls

    def connect(self):
        raw = _connect(self.dial[0], self.dial[1], self.deadline)
        try:
            self.sock = DeadlineSocket(raw, self.deadline)
            if self.tunnel is not None:
                _tunnel(self.sock, self.host, self.port, self.tunnel)
            if self.tls is not None:
                raw.settimeout(self.deadline.left())  # the handshake, all of it
                tls = self.tls.wrap_socket(raw, server_hostname=self.host)
                self.sock = DeadlineSocket(tls, self.deadline)
        except BaseException:
            raw.close()
            self.sock = None
            raise


def tls_context(validate_certs=True, ca_path=None, client_cert=None, client_key=None):
    """The TLS context of an https endpoint: verified against ``ca_path`` (else the system's CAs)
    unless ``validate_certs`` is false; ``client_cert``/``client_key``: a client certificate."""
    if validate_certs:
        context = ssl.create_default_context(cafile=ca_path)
    else:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    if client_cert:
        context.load_cert_chain(client_cert, client_key)
    return context


def basic_auth(user, password):
    return 'Basic ' + base64.b64encode(('%s:%s' % (user, password)).encode('utf-8')).decode('ascii')


def proxy_for(scheme, netloc):
    """(host, port, Proxy-Authorization value or None) of the proxy the environment names for a
    ``scheme`` URL to ``netloc``, or None (no proxy, or ``no_proxy`` exempts it)."""
    proxies = getproxies_environment()
    proxy = proxies.get(scheme)
    if not proxy or proxy_bypass_environment(netloc, proxies):
        return None
    parts = urlsplit(proxy if '://' in proxy else 'http://' + proxy)
    try:
        port = parts.port or 80
    except ValueError:
        port = None
    if parts.scheme != 'http' or not parts.hostname or port is None:
        raise OSError('the %s_proxy %s is not an http:// proxy URL' % (scheme, redact(proxy, [])))
    auth = None
    if parts.username is not None:
        auth = basic_auth(unquote(parts.username), unquote(parts.password or ''))
    return parts.hostname, port, auth


def open_endpoint(
    url,
    method='GET',
    headers=None,
    timeout=Provider.DEFAULT_TIMEOUT,
    validate_certs=True,
    ca_path=None,
    client_cert=None,
    client_key=None,
):
    """(status, body) of one request, all of it within ``timeout`` seconds; any status is an answer.
    Raises ``TimedOut`` when the time is up, another exception when there is no answer."""
    deadline = Deadline(timeout)
    parts = urlsplit(url)
    https = parts.scheme == 'https'
    host, port = parts.hostname, parts.port or (443 if https else 80)
    netloc = parts.netloc.rpartition('@')[2]
    target = (parts.path or '/') + ('?' + parts.query if parts.query else '')
    sent = {'User-Agent': USER_AGENT}
    sent.update(headers or {})
    if parts.username is not None and not any(k.lower() == 'authorization' for k in sent):
        sent['Authorization'] = basic_auth(unquote(parts.username), unquote(parts.password or ''))
    for name, value in sent.items():
        problem = header_problem(name, value)
        if problem:  # the providers refuse it before; never send it, never show the value
            raise ValueError(problem)
    proxy = proxy_for(parts.scheme, netloc)
    tls = tls_context(validate_certs, ca_path, client_cert, client_key) if https else None
    if proxy is None:
        conn = _Connection(host, port, deadline, tls=tls)
    elif https:
        tunnel = {'Proxy-Authorization': proxy[2]} if proxy[2] else {}
        conn = _Connection(host, port, deadline, dial=proxy[:2], tunnel=tunnel, tls=tls)
    else:
        conn = _Connection(host, port, deadline, dial=proxy[:2])
        target = 'http://%s%s' % (netloc, target)
        if proxy[2]:
            sent['Proxy-Authorization'] = proxy[2]
    try:
        conn.request(method, target, headers=sent)
        response = conn.getresponse()
        return response.status, response.read(MAX_BODY)
    except (socket.timeout, TimeoutError):
        raise TimedOut(timeout)
    finally:
        conn.close()

"""Who a request is: authentication (a bearer token, a token file, HTTP basic, a client
certificate; apiserver pkg/endpoints/filters/authentication.go) and impersonation
(`Impersonate-*` headers, filters/impersonation.go), recorded for the request log.

A user is a `UserInfo` (name, groups, uid), as `user.Info`: every authenticated user is also in
`system:authenticated` (the authenticators' group adder), kubesim's admin (its token, the plain
lines of the token file, every request when no authentication is set) in `system:masters`.
"""

import base64
import contextvars
import csv
import hashlib
import hmac
import time
from typing import NamedTuple
from urllib.parse import unquote

from aiohttp import web

from ..machinery.errors import ApiError

ADMIN_USER = 'kubesim-admin'
READONLY_USER = 'kubesim-viewer'
# What the system:public-info-viewer ClusterRole lets everyone read, unauthenticated requests
# included (an authentication configuration enabling anonymous requests for these paths only).
PUBLIC_INFO_PATHS = ('/healthz', '/livez', '/readyz', '/version', '/version/')
ANONYMOUS_USER = 'system:anonymous'
MASTERS = 'system:masters'
AUTHENTICATED = 'system:authenticated'
UNAUTHENTICATED = 'system:unauthenticated'
SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:'
# Who a request authenticated as and how, for the request log (see Authentication._authenticate).
AUTH = web.RequestKey('kubesim_auth', dict)
IMPERSONATE_EXTRA = 'impersonate-extra-'
# The UserInfo a request acts as (after impersonation), for authorization.
USER_INFO = web.RequestKey('kubesim_user_info', object)


class UserInfo(NamedTuple):
    """user.DefaultInfo: a name, groups (in order), a uid."""
    name: str
    groups: tuple = ()
    uid: str = ''


def authenticated(name, groups=(), uid=''):
    """A user as an authenticator returns it: its groups, then `system:authenticated`."""
    groups = tuple(groups)
    return UserInfo(name, groups if AUTHENTICATED in groups else groups + (AUTHENTICATED,), uid)


ADMIN = authenticated(ADMIN_USER, (MASTERS,))
READONLY = authenticated(READONLY_USER)
ANONYMOUS = UserInfo(ANONYMOUS_USER, (UNAUTHENTICATED,))
# The UserInfo of the request being served (what strategies that record the requester read).
REQUEST_USER = contextvars.ContextVar('kubesim_request_user', default=None)


def service_account_groups(namespace):
    """serviceaccount.MakeGroupNames."""
    return ('system:serviceaccounts', f'system:serviceaccounts:{namespace}')


def split_service_account(name):
    """(namespace, name) of `system:serviceaccount:NS:NAME`, else None (serviceaccount.SplitUsername)."""
    if not name.startswith(SERVICE_ACCOUNT_PREFIX):
        return None
    parts = name[len(SERVICE_ACCOUNT_PREFIX):].split(':')
    if len(parts) != 2 or not all(parts):
        return None
    return parts[0], parts[1]


def token_fingerprint(token):
    """What the request log shows of a bearer token: enough to tell tokens apart, never the token."""
    return 'sha256:' + hashlib.sha256(token.encode()).hexdigest()[:12]


def read_token_file(path):
    """{token: expiry (epoch seconds) or None} from a token file: one ``TOKEN [EXPIRES]`` a line,
    blank lines and ``#`` comments ignored. A missing file accepts nothing. Lines in
    kube-apiserver's `--token-auth-file` form (CSV) are read by ``read_token_users``."""
    tokens = {}
    for line in _token_lines(path):
        fields = line.split()
        if ',' not in line and fields and not fields[0].startswith('#'):
            tokens[fields[0]] = float(fields[1]) if len(fields) > 1 else None
    return tokens


def read_token_users(path):
    """{token: UserInfo} from the token file's lines in kube-apiserver's static token file form
    (`token,user,uid,"group1,group2"`, plugin/pkg/authenticator/token/tokenfile): such a token
    authenticates as that user, in those groups and `system:authenticated`."""
    users = {}
    lines = [line for line in _token_lines(path) if ',' in line and not line.lstrip().startswith('#')]
    for record in csv.reader(lines):
        if len(record) >= 2 and record[0].strip():
            groups = [g.strip() for g in record[3].split(',') if g.strip()] if len(record) > 3 else []
            users[record[0].strip()] = authenticated(record[1].strip(), groups,
                                                     record[2].strip() if len(record) > 2 else '')
    return users


def _token_lines(path):
    try:
        with open(path, encoding='utf-8') as f:
            return f.read().splitlines()
    except FileNotFoundError:
        return []


def _impersonation(headers):
    """The Impersonate-* headers as the API server reads them (extra keys lower-cased and
    percent-decoded), or None when there are none."""
    out = {}
    if 'Impersonate-User' in headers:
        out['user'] = headers['Impersonate-User']
    if 'Impersonate-Group' in headers:
        out['groups'] = headers.getall('Impersonate-Group')
    if 'Impersonate-Uid' in headers:
        out['uid'] = headers['Impersonate-Uid']
    for name in headers:
        if name.lower().startswith(IMPERSONATE_EXTRA):
            key = unquote(name[len(IMPERSONATE_EXTRA):].lower())
            if key not in out.setdefault('extra', {}):
                out['extra'][key] = headers.getall(name)
    return out or None


class Authentication:
    """The ApiServer's authenticators (its token, read-only token, token file, basic credential
    and client certificates)."""

    def _user(self, request):
        """The user the request acts as: authenticated (bearer token, token file, basic auth or
        client certificate, whichever are configured; 401 when none matches), then impersonated if
        Impersonate-User is given (which the authorizer must allow, see authorization.py). Records
        the outcome under AUTH for the request log and the UserInfo under USER_INFO; returns the
        name."""
        auth = request[AUTH] = {}
        scheme, _, given = request.headers.get('Authorization', '').partition(' ')
        given = given.strip()
        bearer = given if scheme.lower() == 'bearer' else ''
        if bearer:
            auth['token'] = token_fingerprint(bearer)
        impersonate = _impersonation(request.headers)
        if impersonate:
            auth['impersonate'] = impersonate
        info = self._authenticate(request, scheme.lower(), given, bearer, auth)
        if impersonate and 'user' in impersonate:
            info = self._impersonated(request, info, impersonate)
        request[USER_INFO] = info
        REQUEST_USER.set(info)
        auth['user'] = info.name
        return info.name

    def _impersonated(self, request, requestor, impersonate):
        """filters/impersonation.go: the user (a ServiceAccount's groups when no group is given),
        the groups, the uid; `system:authenticated` added unless a group says otherwise. Each
        impersonation is authorized first (`_authorize_impersonation`)."""
        name = impersonate['user']
        groups = list(impersonate.get('groups') or [])
        self._authorize_impersonation(request, requestor, impersonate)
        account = split_service_account(name)
        if account and not groups:
            groups = list(service_account_groups(account[0]))
        if name != ANONYMOUS_USER:
            if AUTHENTICATED not in groups and UNAUTHENTICATED not in groups:
                groups.append(AUTHENTICATED)
        elif UNAUTHENTICATED not in groups:
            groups.append(UNAUTHENTICATED)
        return UserInfo(name, tuple(groups), impersonate.get('uid', ''))

    def _authorize_impersonation(self, request, requestor, impersonate):
        """Overridden by the authorization filter; without one everybody may impersonate."""

    def _authenticates(self):
        """Whether any authentication is configured (else every request acts as the admin)."""
        return bool(self.token or self.readonly_token or self.token_file or self.basic_auth
                    or self.client_certs)

    def _authenticate(self, request, scheme, given, bearer, auth):
        if not self._authenticates():
            auth['auth'] = 'anonymous'
            return ADMIN
        if bearer:
            auth['auth'] = 'bearer'
            if self.token and hmac.compare_digest(bearer, self.token):
                return ADMIN
            if self.readonly_token and hmac.compare_digest(bearer, self.readonly_token):
                return READONLY
            if self.token_file:
                expires = read_token_file(self.token_file).get(bearer, 0)
                if expires is None or (expires and time.time() < expires):
                    return ADMIN
                user = read_token_users(self.token_file).get(bearer)
                if user is not None:
                    return user
        elif scheme == 'basic' and self.basic_auth:
            auth['auth'] = 'basic'
            try:
                pair = base64.b64decode(given, validate=True).decode()
            except (ValueError, UnicodeDecodeError):
                pair = ''
            if hmac.compare_digest(pair.encode(), self.basic_auth.encode()):
                return authenticated(pair.partition(':')[0])
        elif self.client_certs and request.transport is not None:
            cert = request.transport.get_extra_info('peercert')
            if cert:  # the handshake verified it against the CA
                auth['auth'] = 'x509'
                subject = [attr for rdn in cert['subject'] for attr in rdn]
                # The x509 authenticator: CN the user, each O a group.
                return authenticated(next(v for k, v in subject if k == 'commonName'),
                                     [v for k, v in subject if k == 'organizationName'])
        raise ApiError.unauthorized()

    def _credentialless(self, request):
        """Whether a request carries no credential any configured authenticator reads."""
        if 'Authorization' in request.headers:
            return False
        transport = request.transport
        return not (self.client_certs and transport is not None and transport.get_extra_info('peercert'))

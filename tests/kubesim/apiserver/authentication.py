"""Who a request is: authentication (a bearer token, a token file, HTTP basic, a client
certificate; apiserver pkg/endpoints/filters/authentication.go) and impersonation
(`Impersonate-*` headers, filters/impersonation.go), recorded for the request log."""

import base64
import hashlib
import hmac
import time
from urllib.parse import unquote

from aiohttp import web

from ..machinery.errors import ApiError

ADMIN_USER = 'kubesim-admin'
READONLY_USER = 'kubesim-viewer'
# What the system:public-info-viewer ClusterRole lets everyone read, unauthenticated requests
# included (an authentication configuration enabling anonymous requests for these paths only).
PUBLIC_INFO_PATHS = ('/healthz', '/livez', '/readyz', '/version', '/version/')
ANONYMOUS_USER = 'system:anonymous'
# Who a request authenticated as and how, for the request log (see Authentication._authenticate).
AUTH = web.RequestKey('kubesim_auth', dict)
IMPERSONATE_EXTRA = 'impersonate-extra-'


def token_fingerprint(token):
    """What the request log shows of a bearer token: enough to tell tokens apart, never the token."""
    return 'sha256:' + hashlib.sha256(token.encode()).hexdigest()[:12]


def read_token_file(path):
    """{token: expiry (epoch seconds) or None} from a token file: one ``TOKEN [EXPIRES]`` a line,
    blank lines and ``#`` comments ignored. A missing file accepts nothing."""
    tokens = {}
    try:
        with open(path, encoding='utf-8') as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return tokens
    for line in lines:
        fields = line.split()
        if fields and not fields[0].startswith('#'):
            tokens[fields[0]] = float(fields[1]) if len(fields) > 1 else None
    return tokens


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
        Impersonate-User is given. Records the outcome under AUTH for the request log."""
        auth = request[AUTH] = {}
        scheme, _, given = request.headers.get('Authorization', '').partition(' ')
        given = given.strip()
        bearer = given if scheme.lower() == 'bearer' else ''
        if bearer:
            auth['token'] = token_fingerprint(bearer)
        impersonate = _impersonation(request.headers)
        if impersonate:
            auth['impersonate'] = impersonate
        user = self._authenticate(request, scheme.lower(), given, bearer, auth)
        if impersonate and 'user' in impersonate:
            # The real API server first checks that `user` may impersonate; kubesim's users all may.
            user = impersonate['user']
        auth['user'] = user
        return user

    def _authenticates(self):
        """Whether any authentication is configured (else every request acts as the admin)."""
        return bool(self.token or self.readonly_token or self.token_file or self.basic_auth
                    or self.client_certs)

    def _authenticate(self, request, scheme, given, bearer, auth):
        if not self._authenticates():
            auth['auth'] = 'anonymous'
            return ADMIN_USER
        if bearer:
            auth['auth'] = 'bearer'
            if self.token and hmac.compare_digest(bearer, self.token):
                return ADMIN_USER
            if self.readonly_token and hmac.compare_digest(bearer, self.readonly_token):
                return READONLY_USER
            if self.token_file:
                expires = read_token_file(self.token_file).get(bearer, 0)
                if expires is None or (expires and time.time() < expires):
                    return ADMIN_USER
        elif scheme == 'basic' and self.basic_auth:
            auth['auth'] = 'basic'
            try:
                pair = base64.b64decode(given, validate=True).decode()
            except (ValueError, UnicodeDecodeError):
                pair = ''
            if hmac.compare_digest(pair.encode(), self.basic_auth.encode()):
                return pair.partition(':')[0]
        elif self.client_certs and request.transport is not None:
            cert = request.transport.get_extra_info('peercert')
            if cert:  # the handshake verified it against the CA
                auth['auth'] = 'x509'
                subject = [attr for rdn in cert['subject'] for attr in rdn]
                return next(v for k, v in subject if k == 'commonName')
        raise ApiError.unauthorized()

    def _credentialless(self, request):
        """Whether a request carries no credential any configured authenticator reads."""
        if 'Authorization' in request.headers:
            return False
        transport = request.transport
        return not (self.client_certs and transport is not None and transport.get_extra_info('peercert'))

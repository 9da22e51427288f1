"""kubesim's HTTP layer: the Kubernetes REST API over aiohttp, backed by the Store.

Every handler runs on the single event loop thread and finishes its store work before its first
`await` that could yield to another request, so requests are serialized without locks. Every error a
client sees is a `Status` object; an unexpected exception is logged to stderr and answered with a
500 Status, never a traceback.
"""

import asyncio
import base64
import hashlib
import hmac
import json
import sys
import time
import traceback
from urllib.parse import unquote

import yaml
from aiohttp import web

from . import discovery, fieldmanager, openapi_v2, tables, typed
from .registry import resources
from ..machinery import gotypes, patch, protobuf
from .strategies import core
from .strategies.validation import go_repr
from .registry.store import now_rfc3339
from ..machinery.errors import ApiError
from ..machinery.selectors import parse_field_selector, parse_label_selector

JSON = 'application/json'
# Bodies of create and update requests kubesim decodes (CBOR is an alpha feature, off in 1.37).
OBJECT_MEDIA_TYPES = (JSON, 'application/yaml', 'text/yaml', protobuf.CONTENT_TYPE)
# What a 415 for another body says is accepted.
DECLARED_MEDIA_TYPES = (JSON, 'application/yaml', protobuf.CONTENT_TYPE)
WRITE_METHODS = ('POST', 'PUT', 'PATCH', 'DELETE')
# Watches without timeoutSeconds end after this long (the real server picks 30-60 minutes).
DEFAULT_WATCH_TIMEOUT = 1800
# How often an idle watch checks whether its client went away.
WATCH_POLL = 0.5
ADMIN_USER = 'kubesim-admin'
READONLY_USER = 'kubesim-viewer'
HEALTH_PATHS = ('healthz', 'livez', 'readyz')
# What the system:public-info-viewer ClusterRole lets everyone read, unauthenticated requests
# included (an authentication configuration enabling anonymous requests for these paths only).
PUBLIC_INFO_PATHS = ('/healthz', '/livez', '/readyz', '/version', '/version/')
ANONYMOUS_USER = 'system:anonymous'
# Marks a request whose connection a fault dropped: it gets no request-log line for its response.
DROPPED = web.RequestKey('kubesim_dropped', bool)
# Who a request authenticated as and how, for the request log (see ApiServer._authenticate).
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


def _go_json(value):
    """JSON as Go's encoder writes it: compact, UTF-8, with <, >, & and U+2028/9 escaped.

    kubectl compares a ControllerRevision's raw `data` bytes with its own encoding of the workload
    (`rollout undo` says "skipped rollback" when they are equal), so the bytes must match Go's.
    """
    text = json.dumps(value, separators=(',', ':'), ensure_ascii=False)
    for char, escaped in (('<', '\\u003c'), ('>', '\\u003e'), ('&', '\\u0026'),
                          ('\u2028', '\\u2028'), ('\u2029', '\\u2029')):
        text = text.replace(char, escaped)
    return text


def _json_response(body, **kwargs):
    return web.json_response(body, dumps=_go_json, **kwargs)


class Route:
    """What a request addresses (one of: version, discovery, resource)."""

    def __init__(self, kind, *, resource=None, namespace=None, name=None, subresource=None,
                 watch=False, document=None):
        self.kind = kind
        self.resource = resource
        self.namespace = namespace
        self.name = name
        self.subresource = subresource
        self.watch = watch
        self.document = document

    @property
    def target(self):
        if self.resource is None or self.name is None:
            return None
        return (self.resource.key, self.namespace or '', self.name)


class PlainNotFound(ApiError):
    """A path no handler serves: Go's http.NotFound, a plain-text `404 page not found` (clients
    show it as NotFound, "the server could not find the requested resource")."""

    def __init__(self):
        super().__init__(404, 'NotFound', '404 page not found')


def _not_found_path(served_group_version=False):
    """404 for a path nothing serves. Under a served group-version's root (`/api/v1/...`,
    `/apis/apps/v1/...`) go-restful has no route and the API server's service error handler
    answers a NotFound Status with empty details; anywhere else the plain-text 404."""
    if not served_group_version:
        return PlainNotFound()
    return ApiError(404, 'NotFound', 'the server could not find the requested resource', {})


def parse_route(path, server_address):
    segs = [s for s in path.split('/') if s]
    if not segs:
        paths = ['/api', '/api/v1', '/apis']
        for group, versions in resources.groups().items():
            paths += [f'/apis/{group}'] + [f'/apis/{group}/{v}' for v in versions]
        return Route('discovery', document={'paths': paths + ['/healthz', '/livez', '/readyz', '/version']})
    head = segs[0]
    if head == 'version' and len(segs) == 1:
        return Route('version')
    if head == 'openapi':
        # /openapi/v2 (openapi_v2.py) and /openapi/v3, /openapi/v3/{api/v1|apis/G/V}.
        if segs[1:] == ['v2']:
            return Route('openapi_v2')
        if segs[1:2] == ['v3']:
            if len(segs) == 2:
                return Route('discovery', document=discovery.openapi_v3_root())
            gv = segs[2:]
            doc = None
            if gv[:1] == ['api'] and len(gv) == 2:
                doc = discovery.openapi_v3_document('', gv[1])
            elif gv[:1] == ['apis'] and len(gv) == 3:
                doc = discovery.openapi_v3_document(gv[1], gv[2])
            if doc is not None:
                return Route('discovery', document=doc)
        raise _not_found_path()
    if head == 'api':
        if len(segs) == 1:
            return Route('discovery', document=discovery.api_versions(server_address))
        group, version, rest = '', segs[1], segs[2:]
        if version != 'v1':
            raise _not_found_path()
    elif head == 'apis':
        if len(segs) == 1:
            return Route('discovery', document=discovery.api_group_list())
        if len(segs) == 2:
            if segs[1] not in resources.groups():
                raise _not_found_path()
            return Route('discovery', document=discovery.api_group(segs[1]))
        group, version, rest = segs[1], segs[2], segs[3:]
        if version not in resources.groups().get(group, ()):
            raise _not_found_path()
    else:
        raise _not_found_path()
    if not rest:
        return Route('discovery', document=discovery.api_resource_list(group, version))

    watch = False
    if rest[0] == 'watch':
        watch, rest = True, rest[1:]
    namespace = None
    if (len(rest) >= 3 and rest[0] == 'namespaces'
            and (res := resources.lookup(group, version, rest[2])) is not None and res.namespaced):
        namespace, rest = rest[1], rest[2:]
    if not rest or len(rest) > 3:
        raise _not_found_path(served_group_version=True)
    resource = resources.lookup(group, version, rest[0])
    if resource is None:
        raise _not_found_path(served_group_version=True)
    name = rest[1] if len(rest) > 1 else None
    subresource = rest[2] if len(rest) > 2 else None
    if resource.namespaced and namespace is None and name is not None:
        raise _not_found_path(served_group_version=True)
    if not resource.namespaced and namespace is not None:
        raise _not_found_path(served_group_version=True)
    if subresource is not None and subresource not in resource.subresources:
        raise _not_found_path(served_group_version=True)
    return Route('resource', resource=resource, namespace=namespace, name=name, subresource=subresource,
                 watch=watch)


def _is_true(value):
    return value in ('1', 'true', 'True')


def _dry_run(request, body_options=None):
    values = request.query.getall('dryRun', [])
    if body_options and body_options.get('dryRun'):
        values = values + list(body_options['dryRun'])
    for v in values:
        if v != 'All':
            raise ApiError.bad_request(f'Invalid dry run value: {v!r}, supported values: "All"')
    return bool(values)


def _list_item(obj):
    """List items carry no kind/apiVersion, as the real API server sends them."""
    obj.pop('kind', None)
    obj.pop('apiVersion', None)
    return obj


def selector_string(resource, obj):
    """The label selector of a workload as the text `Scale.status.selector` carries."""
    sel = (obj.get('spec') or {}).get('selector') or {}
    if resource.key == '/replicationcontrollers':
        return ','.join(f'{k}={v}' for k, v in sorted(sel.items()))
    reqs = []
    for k, v in (sel.get('matchLabels') or {}).items():
        reqs.append((k, f'{k}={v}'))
    for expr in sel.get('matchExpressions') or []:
        key, op, values = expr.get('key'), expr.get('operator'), sorted(expr.get('values') or [])
        text = {'In': f'{key} in ({",".join(values)})', 'NotIn': f'{key} notin ({",".join(values)})',
                'Exists': key, 'DoesNotExist': f'!{key}'}.get(op, key)
        reqs.append((key, text))
    return ','.join(text for _k, text in sorted(reqs))


def to_scale(resource, obj):
    meta = obj['metadata']
    return {
        'kind': 'Scale', 'apiVersion': 'autoscaling/v1',
        'metadata': {k: meta[k] for k in ('name', 'namespace', 'uid', 'resourceVersion',
                                          'creationTimestamp') if k in meta},
        'spec': {'replicas': (obj.get('spec') or {}).get('replicas', 1)},
        'status': {'replicas': (obj.get('status') or {}).get('replicas', 0),
                   'selector': selector_string(resource, obj)},
    }


class ApiServer:
    """The aiohttp application serving the Kubernetes API from ``store``."""

    def __init__(self, store, *, token=None, readonly_token=None, request_log=None, faults=None,
                 token_file=None, basic_auth=None, client_certs=False, max_watch_seconds=None):
        self.store = store
        self.token = token
        self.readonly_token = readonly_token
        self.token_file = token_file  # path, re-read on every request
        self.basic_auth = basic_auth  # 'user:password'
        self.client_certs = client_certs  # the TLS layer verified any certificate given
        self.max_watch_seconds = max_watch_seconds  # end watches sooner, as a proxy in front may
        self.request_log = request_log  # an open text file, or None
        self.faults = faults
        self.server_address = '127.0.0.1:0'
        self.watch_tasks = set()
        self._answering = 0  # requests being answered (watches aside)
        self._answered = 0.0  # monotonic time the last one was answered

    def make_app(self):
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route('*', '/{tail:.*}', self.handle)
        app.on_response_prepare.append(self._on_prepare)
        return app

    # ---- request log ---------------------------------------------------------------------
    async def _on_prepare(self, request, response):
        if not request.get(DROPPED):
            self._log(request, response.status)

    def _log(self, request, status):
        if self.request_log is None:
            return
        entry = {'method': request.method, 'path': request.path, 'query': request.query_string,
                 'content_type': request.headers.get('Content-Type', ''), 'status': status,
                 'dry_run': 'All' in request.query.getall('dryRun', []), 'time': round(time.time(), 3)}
        entry.update(request.get(AUTH) or {})
        self.request_log.write(json.dumps(entry) + '\n')
        self.request_log.flush()

    # ---- entry point ---------------------------------------------------------------------
    def quiet_seconds(self):
        """Seconds since the last request (watches aside) was answered; 0 while one is being answered."""
        if self._answering:
            return 0.0
        return time.monotonic() - self._answered

    async def handle(self, request):
        watch = '/watch/' in request.path or _is_true(request.query.get('watch'))
        if watch:
            return await self._handle_safely(request)
        self._answering += 1
        try:
            return await self._handle_safely(request)
        finally:
            self._answering -= 1
            self._answered = time.monotonic()

    async def _handle_safely(self, request):
        try:
            return self._negotiate(request, await self._handle(request))
        except ApiError as e:
            return self._negotiate(request, self.error_response(e))
        except asyncio.CancelledError:
            raise
        except (ConnectionResetError, BrokenPipeError):
            raise
        except Exception as e:
            print(f'kubesim: internal error on {request.method} {request.path_qs}:', file=sys.stderr)
            traceback.print_exc(file=sys.stderr)
            return self.error_response(ApiError.internal(f'{e.__class__.__name__}: {e}'))

    @staticmethod
    def _negotiate(request, response):
        """Answer in protobuf when the client asks for it first (kubectl does, for built-in kinds):
        an object, list or Status the Go type table knows; everything else stays JSON (Tables,
        discovery, watch streams)."""
        accept = request.headers.get('Accept', '').split(',')[0].strip()
        if not accept.startswith(protobuf.CONTENT_TYPE) or not isinstance(response, web.Response) \
                or response.content_type != JSON or not response.body:
            return response
        try:
            encoded = protobuf.encode(json.loads(response.body))
        except (ValueError, AttributeError):
            return response
        if encoded is None:
            return response
        headers = {k: v for k, v in response.headers.items() if k.lower() not in ('content-type',
                                                                                   'content-length')}
        answer = web.Response(status=response.status, body=encoded, content_type=protobuf.CONTENT_TYPE)
        for key, value in headers.items():
            answer.headers.add(key, value)
        return answer

    @staticmethod
    def error_response(err):
        if isinstance(err, PlainNotFound):
            return web.Response(status=404, text='404 page not found\n', content_type='text/plain')
        return _json_response(err.status(), status=err.code, headers=err.headers)

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

    async def _handle(self, request):
        if request.path in PUBLIC_INFO_PATHS and request.method in ('GET', 'HEAD') \
                and self._authenticates() and self._credentialless(request):
            # Anonymous: system:public-info-viewer may read these. (A bad credential is a 401
            # here too: the API server never takes a failed authentication as anonymous.)
            request[AUTH] = {'auth': 'anonymous', 'user': ANONYMOUS_USER}
            user = ANONYMOUS_USER
        else:
            user = self._user(request)
        if request.path.strip('/').split('/')[0] in HEALTH_PATHS:
            return web.Response(text='ok', content_type='text/plain')
        route = parse_route(request.path, self.server_address)
        if user == READONLY_USER and request.method in WRITE_METHODS:
            verb = {'POST': 'create', 'PUT': 'update', 'PATCH': 'patch',
                    'DELETE': 'delete' if route.name else 'deletecollection'}[request.method]
            what = route.resource.key if route.resource else '/'
            if route.subresource:
                what = f'{what}/{route.subresource}'
            raise ApiError.forbidden(user, verb, what, route.namespace)

        if self.faults is not None:
            watch = route.kind == 'resource' and (route.watch or _is_true(request.query.get('watch')))
            action = self.faults.decide(
                request.method, request.path, eligible=route.kind == 'resource' and not watch,
                target=route.target, write=request.method in ('PUT', 'PATCH', 'DELETE'),
                dry_run='All' in request.query.getall('dryRun', []))
            if action:
                return self._fault(request, route, action)

        if route.kind == 'version':
            return _json_response(discovery.SERVER_VERSION)
        if route.kind == 'openapi_v2':
            if openapi_v2.PROTOBUF in request.headers.get('Accept', ''):
                return web.Response(body=openapi_v2.protobuf_bytes(),
                                    content_type=openapi_v2.PROTOBUF_RETURNED)
            return web.Response(body=openapi_v2.json_bytes(), content_type=JSON)
        if route.kind == 'discovery':
            if request.method not in ('GET', 'HEAD'):
                raise ApiError.method_not_allowed()
            return _json_response(route.document)
        response = await self._resource(request, route)
        if self.faults is not None and request.method in WRITE_METHODS and route.kind == 'resource' \
                and 200 <= response.status < 300:
            target = route.target if request.method != 'POST' else _created_target(route, response)
            lost = self.faults.after_write(request.method, request.path, target,
                                           dry_run='All' in request.query.getall('dryRun', []))
            if lost == '500':
                raise ApiError.internal()
            if lost == 'drop':
                return self._fault(request, route, 'drop')
        return response

    def _fault(self, request, route, action):
        if action == 'conflict':
            raise ApiError.conflict(route.resource.key, route.name)
        if action == '429':
            raise ApiError.too_many_requests(self.faults.retry_after)
        if action == '500':
            raise ApiError.internal()
        if action == '503':
            raise ApiError.unavailable()
        # drop: close the connection without an answer (the response below goes nowhere).
        self._log(request, 0)
        request[DROPPED] = True
        if request.transport is not None:
            request.transport.abort()
        return web.Response(status=204)

    # ---- resources -----------------------------------------------------------------------
    async def _resource(self, request, route):
        method = request.method
        if method == 'GET' or method == 'HEAD':
            if route.name is None:
                if route.watch or _is_true(request.query.get('watch')):
                    return await self._watch(request, route)
                return self._list(request, route)
            if route.watch:
                return await self._watch(request, route, name=route.name)
            return self._get(request, route)
        if method == 'POST':
            if route.name is not None:
                raise ApiError.method_not_allowed()
            return await self._create(request, route)
        if method == 'PUT':
            if route.name is None:
                raise ApiError.method_not_allowed()
            return await self._update(request, route)
        if method == 'PATCH':
            if route.name is None:
                raise ApiError.method_not_allowed()
            return await self._patch(request, route)
        if method == 'DELETE':
            if route.subresource:
                raise ApiError.method_not_allowed()
            if route.name is None:
                return await self._delete_collection(request, route)
            return await self._delete(request, route)
        raise ApiError.method_not_allowed()

    def _selectors(self, request, route=None):
        return (parse_label_selector(request.query.get('labelSelector')),
                parse_field_selector(request.query.get('fieldSelector'), route.resource if route else None))

    def _get(self, request, route):
        obj = route.resource.shown(self.store.must_get(route.resource.key, route.namespace, route.name))
        if route.subresource == 'scale':
            obj = to_scale(route.resource, obj)
        elif route.subresource is None and tables.wants_table(request.headers.get('Accept')):
            meta = {'resourceVersion': obj['metadata']['resourceVersion']}
            obj = tables.table(route.resource.columns, [obj], meta)
        return _json_response(obj)

    def _list(self, request, route):
        res = route.resource
        labels, fields = self._selectors(request, route)
        items = [res.shown(o) for o in self.store.list(res.key, route.namespace, labels, fields)]
        meta = {'resourceVersion': str(self.store.resource_version)}
        cont = request.query.get('continue')
        if cont:
            try:
                after = tuple(json.loads(base64.urlsafe_b64decode(cont.encode())))
            except (ValueError, TypeError):
                raise ApiError(410, 'Expired', 'the provided continue parameter is too old to display a '
                               'consistent list result')
            items = [o for o in items
                     if (o['metadata'].get('namespace', ''), o['metadata']['name']) > after]
        limit = request.query.get('limit')
        if limit and limit.isdigit() and 0 < int(limit) < len(items):
            last = items[int(limit) - 1]['metadata']
            meta['continue'] = base64.urlsafe_b64encode(
                json.dumps([last.get('namespace', ''), last['name']]).encode()).decode()
            meta['remainingItemCount'] = len(items) - int(limit)
            items = items[: int(limit)]
        if tables.wants_table(request.headers.get('Accept')):
            return _json_response(tables.table(res.columns, items, meta))
        return _json_response({'kind': f'{res.kind}List', 'apiVersion': res.group_version,
                                  'metadata': meta, 'items': [_list_item(o) for o in items]})

    async def _body(self, request, route=None, *, allow_yaml=True):
        raw = await request.read()
        if not raw:
            raise ApiError.bad_request('the request body is empty')
        ctype = request.content_type
        if allow_yaml and 'Content-Type' in request.headers and ctype not in OBJECT_MEDIA_TYPES:
            raise ApiError.unsupported_media_type(DECLARED_MEDIA_TYPES)
        if ctype == protobuf.CONTENT_TYPE:
            res = route.resource
            try:
                return protobuf.decode(raw, gotypes.type_for(res.group, res.version, res.kind))
            except (protobuf.ProtobufError, ValueError) as err:
                raise ApiError.bad_request(f'{res.kind} in version "{res.version}" cannot be handled as a '
                                           f'{res.kind}: {err}') from None
        try:
            if allow_yaml and ctype in ('application/yaml', 'text/yaml'):
                return yaml.safe_load(raw)
            return json.loads(raw)
        except (ValueError, yaml.YAMLError) as e:
            fmt = 'YAML' if 'yaml' in ctype else 'JSON'
            raise ApiError.bad_request(f'the request body is not valid {fmt}: {e}')

    def _check_body(self, route, obj, *, name_required):
        """Type and identity checks the API server makes on a request body."""
        res = route.resource
        if not isinstance(obj, dict):
            raise ApiError.bad_request(f'the request body is not a {res.kind} object')
        api_version, kind = obj.get('apiVersion'), obj.get('kind')
        if api_version and api_version != res.group_version:
            raise ApiError.bad_request(f'the API version in the data ({api_version}) does not match the '
                                       f'expected API version ({res.group_version})')
        if kind and kind != res.kind:
            raise ApiError.bad_request(f'{kind} in version "{res.version}" cannot be handled as a '
                                       f'{res.kind}: the kind in the data does not match the URL')
        obj['apiVersion'], obj['kind'] = res.group_version, res.kind
        meta = obj.get('metadata')
        if meta is None:
            meta = obj['metadata'] = {}
        if not isinstance(meta, dict):
            raise ApiError.bad_request('metadata must be an object')
        if res.namespaced:
            if meta.get('namespace') and meta['namespace'] != route.namespace:
                raise ApiError.bad_request('the namespace of the provided object does not match the '
                                           'namespace sent on the request')
            meta['namespace'] = route.namespace
        else:
            meta.pop('namespace', None)
        if name_required:
            if meta.get('name') and meta['name'] != route.name:
                raise ApiError.bad_request(f'the name of the object ({meta["name"]}) does not match the '
                                           f'name on the URL ({route.name})')
            meta['name'] = route.name
        return obj

    @staticmethod
    def _typed(request, route, obj, *, patch_type=None, patch_body=None):
        """The typed round-trip (typed.py) and `fieldValidation` (default Warn): unknown fields are
        dropped, with a Warning each (Warn), an error (Strict) or silently (Ignore); a value the
        decoder refuses is an error. Returns the normalised object and the Warning header values.

        A create or update body that fails is a 400 (`Deployment in version "v1" cannot be handled
        as a Deployment: ...`); a patched object that fails is the patch handler's 422 naming the
        field `patch`, whose value is the patch as Go prints it (strategic merge patch) or the
        patched object's JSON (JSON and merge patches)."""
        res = route.resource
        directive = request.query.get('fieldValidation') or 'Warn'

        def refuse(message):
            if patch_type is None:
                raise ApiError.bad_request(f'{res.kind} in version "{res.version}" cannot be handled as a '
                                           f'{res.kind}: {message}')
            if patch_type == patch.STRATEGIC_MERGE_PATCH:
                shown = gotypes.go_map_text(patch_body)
            else:
                shown = _go_json(obj)
            raise ApiError.invalid('', '', [('patch', 'FieldValueInvalid',
                                             f'Invalid value: {go_repr(shown)}: {message}')], kind='')

        try:
            obj, unknown = typed.normalise(res.kind, obj, res.group, res.version,
                                           unstructured=patch_type == patch.STRATEGIC_MERGE_PATCH)
        except typed.DecodeError as err:
            refuse(str(err))
        if not unknown or directive == 'Ignore':
            return obj, []
        found = ', '.join(f'unknown field "{path}"' for path in unknown)
        if directive == 'Strict':
            refuse(f'strict decoding error: {found}')
        return obj, ['299 - ' + json.dumps(f'unknown field "{path}"') for path in unknown]

    @staticmethod
    def _warned(response, warnings):
        for warning in warnings:
            response.headers.add('Warning', warning)
        return response

    def _check_uid(self, route, obj, current):
        uid = obj['metadata'].get('uid')
        if uid and uid != current['metadata']['uid']:
            raise ApiError.conflict(route.resource.key, route.name,
                                    f'Precondition failed: UID in precondition: {uid}, UID in object '
                                    f'meta: {current["metadata"]["uid"]}')

    def _require_namespace(self, route):
        if route.resource.namespaced and self.store.get('/namespaces', '', route.namespace) is None:
            raise ApiError.not_found('/namespaces', route.namespace)

    async def _create(self, request, route):
        if route.subresource:
            raise ApiError.method_not_allowed()
        obj = self._check_body(route, await self._body(request, route), name_required=False)
        obj, warnings = self._typed(request, route, obj)
        dry_run = _dry_run(request)
        if route.resource.namespaced and route.namespace is None:
            raise ApiError.method_not_allowed('a namespaced object must be created in a namespace')
        self._require_namespace(route)
        created = self.store.create(route.resource.key, route.resource.stored(obj), dry_run=dry_run,
                                    manager=self._manager(request, route))
        return self._warned(_json_response(route.resource.shown(created), status=201), warnings)

    async def _update(self, request, route):
        obj = await self._body(request, route)
        dry_run = _dry_run(request)
        res = route.resource
        if route.subresource == 'scale':
            return self._write_scale(route, obj, dry_run, self._manager(request, route))
        obj = self._check_body(route, obj, name_required=True)
        obj, warnings = self._typed(request, route, obj)
        current = self.store.must_get(res.key, route.namespace, route.name)
        self._check_uid(route, obj, current)
        if route.subresource == 'resize':
            obj = core.resize_pod(current, res.stored(obj))
        updated = self.store.update(res.key, res.stored(obj), subresource=route.subresource, dry_run=dry_run,
                                    manager=self._manager(request, route),
                                   whole_object=True)
        return self._warned(_json_response(res.shown(updated)), warnings)

    def _write_scale(self, route, scale, dry_run, manager=None):
        res = route.resource
        if not isinstance(scale, dict):
            raise ApiError.bad_request('the request body is not a Scale object')
        current = self.store.must_get(res.key, route.namespace, route.name)
        meta = scale.get('metadata') or {}
        if meta.get('name') and meta['name'] != route.name:
            raise ApiError.bad_request(f'the name of the object ({meta["name"]}) does not match the name '
                                       f'on the URL ({route.name})')
        rv = meta.get('resourceVersion')
        if rv and rv != current['metadata']['resourceVersion']:
            raise ApiError.conflict(res.key, route.name)
        self._check_uid(route, {'metadata': meta}, current)
        replicas = (scale.get('spec') or {}).get('replicas', 0)
        if not isinstance(replicas, int) or isinstance(replicas, bool) or replicas < 0:
            raise ApiError.invalid(res.key, route.name, [('spec.replicas', 'FieldValueInvalid',
                                                          f'Invalid value: {json.dumps(replicas)}: must be '
                                                          'greater than or equal to 0')], kind='Scale')
        current.setdefault('spec', {})['replicas'] = replicas
        updated = self.store.update(res.key, current, dry_run=dry_run, manager=manager)
        return _json_response(to_scale(res, updated))

    @staticmethod
    def _manager(request, route):
        """The field manager of a write (fieldmanager.update as a store hook), None for kinds the
        type table does not know."""
        res = route.resource
        stored = resources.BY_KEY.get(res.key, res)
        type_name = gotypes.type_for(stored.group, stored.version, stored.kind)
        if type_name is None:
            return None
        name, api_version = fieldmanager.manager_name(request), res.group_version
        subresource = route.subresource or ''
        return lambda old, new: fieldmanager.update(old, new, type_name, name, api_version, subresource)

    async def _apply(self, request, route):
        """Server-side apply (a PATCH in `application/apply-patch+yaml`): fieldmanager.apply on the
        live object, or a create when there is none; through `status` only the status is applied,
        through `scale` a Scale's replicas."""
        res = route.resource
        if route.subresource not in (None, '', 'status', 'scale'):
            raise ApiError.unsupported_media_type()
        raw = await request.read()
        try:
            config = yaml.safe_load(raw) if raw else None
        except yaml.YAMLError as e:
            raise ApiError.bad_request(f'error decoding YAML: {e}') from None
        if not isinstance(config, dict):
            raise ApiError.bad_request('the apply configuration must be an object')
        if not config.get('apiVersion') or not config.get('kind'):
            raise ApiError.bad_request('apiVersion and kind must be set in the apply configuration')
        name = fieldmanager.manager_name(request)
        if not request.query.get('fieldManager'):
            raise ApiError.bad_request('PATCH requests of type application/apply-patch+yaml must specify a '
                                       'fieldManager')
        dry_run = _dry_run(request)
        force = _is_true(request.query.get('force'))
        if route.subresource == 'scale':
            return self._apply_scale(route, config, name, force, dry_run)
        config = self._check_body(route, config, name_required=True)
        # The decoder judges the configuration (types, unknown fields); the apply merges it as written.
        try:
            _decoded, unknown = typed.normalise(res.kind, config, res.group, res.version)
        except typed.DecodeError as err:
            raise ApiError.bad_request(f'{res.kind} in version "{res.version}" cannot be handled as a '
                                       f'{res.kind}: {err}') from None
        if unknown and request.query.get('fieldValidation') != 'Ignore':
            # structured-merge-diff refuses what the schema does not declare, whatever the directive.
            where = f'{route.namespace}/{route.name}' if route.namespace else route.name
            raise ApiError.bad_request(
                f'failed to create typed patch object ({where}; {res.group_version}, Kind={res.kind}): '
                + ', '.join(f'.{path}: field not declared in schema' for path in unknown))
        warnings = []
        config = gotypes.known_only(gotypes.type_for(res.group, res.version, res.kind), config)
        live = self.store.get(res.key, route.namespace, route.name)
        stored = resources.BY_KEY.get(res.key, res)
        type_name = gotypes.type_for(stored.group, stored.version, stored.kind)
        if route.subresource == 'status':
            if live is None:
                raise ApiError.not_found(res.key, route.name)
            # The status strategy puts back everything but the status (its reset fields): only
            # the status is applied, and owned.
            config = {'apiVersion': config['apiVersion'], 'kind': config['kind'],
                      'metadata': {k: v for k, v in config['metadata'].items() if k in ('name', 'namespace')},
                      **({'status': config['status']} if 'status' in config else {})}
            merged = fieldmanager.apply(live, res.stored(config), type_name, name, res.group_version, force,
                                        'status')
            fields = merged['metadata']['managedFields']
            ref = {k: live['metadata'][k] for k in ('name', 'namespace') if k in live['metadata']}
            out = self.store.update(res.key, {'metadata': ref, 'status': merged.get('status') or {}},
                                    subresource='status', dry_run=dry_run, manager=lambda _old, _new: fields)
            return self._warned(_json_response(res.shown(out)), warnings)
        merged = fieldmanager.apply(live, res.stored(config), type_name, name, res.group_version, force)
        if live is None:
            self._require_namespace(route)
            out = self.store.create(res.key, merged, dry_run=dry_run)
            return self._warned(_json_response(res.shown(out), status=201), warnings)
        merged['metadata']['resourceVersion'] = live['metadata']['resourceVersion']
        out = self.store.update(res.key, merged, dry_run=dry_run, whole_object=True)
        return self._warned(_json_response(res.shown(out)), warnings)

    def _apply_scale(self, route, config, manager, force, dry_run):
        """An apply through `scale`: the Scale's `spec.replicas` is the parent's (apiserver
        fieldmanager `scalehandler.go` maps the managers between the two), owned by the manager
        with subresource `scale` and the parent's apiVersion."""
        res = route.resource
        if config['apiVersion'] != 'autoscaling/v1':
            # The field manager's own check (apiserver fieldmanager structuredmerge.go, Apply).
            raise ApiError.bad_request('Incorrect version specified in apply patch. Specified patch version: '
                                       f'{config["apiVersion"]}, expected: autoscaling/v1')
        if config['kind'] != 'Scale':
            raise ApiError.bad_request(f'{config["kind"]} in version "{config["apiVersion"]}" cannot be '
                                       'handled as a Scale: the kind in the data does not match the URL')
        meta = config.get('metadata') or {}
        if not isinstance(meta, dict) or not isinstance(config.get('spec', {}), dict):
            raise ApiError.bad_request('the apply configuration is not a Scale object')
        if meta.get('name') and meta['name'] != route.name:
            raise ApiError.bad_request(f'the name of the object ({meta["name"]}) does not match the name '
                                       f'on the URL ({route.name})')
        live = self.store.must_get(res.key, route.namespace, route.name)
        stored = resources.BY_KEY.get(res.key, res)
        type_name = gotypes.type_for(stored.group, stored.version, stored.kind)
        ref = {k: live['metadata'][k] for k in ('name', 'namespace') if k in live['metadata']}
        parent = {'apiVersion': res.group_version, 'kind': res.kind, 'metadata': ref}
        if 'replicas' in (config.get('spec') or {}):
            parent['spec'] = {'replicas': config['spec']['replicas']}
        merged = fieldmanager.apply(live, parent, type_name, manager, res.group_version, force, 'scale')
        fields = merged['metadata']['managedFields']
        scale = to_scale(res, live)
        scale['spec']['replicas'] = (merged.get('spec') or {}).get('replicas', 1)
        return self._write_scale(route, scale, dry_run, lambda _old, _new: fields)

    async def _patch(self, request, route):
        ctype = request.content_type
        if ctype == patch.APPLY_PATCH:
            return await self._apply(request, route)
        if ctype not in patch.PATCH_TYPES:
            raise ApiError.unsupported_media_type()
        body = await self._body(request, allow_yaml=False)
        dry_run = _dry_run(request)
        res = route.resource
        current = res.shown(self.store.must_get(res.key, route.namespace, route.name))
        if route.subresource == 'scale':
            scale = to_scale(res, current)
            return self._write_scale(route, patch.apply_patch(ctype, scale, body), dry_run,
                                     self._manager(request, route))
        patched = patch.apply_patch(ctype, current, body)
        if not isinstance(patched, dict):
            raise ApiError.bad_request('the patched object is not an object')
        patched = self._check_body(route, patched, name_required=True)
        patched, warnings = self._typed(request, route, patched, patch_type=ctype, patch_body=body)
        self._check_uid(route, patched, current)
        if route.subresource == 'resize':
            patched = core.resize_pod(self.store.must_get(res.key, route.namespace, route.name),
                                           res.stored(patched))
        updated = self.store.update(res.key, res.stored(patched), subresource=route.subresource,
                                    manager=self._manager(request, route),
                                    dry_run=dry_run, whole_object=True)
        return self._warned(_json_response(res.shown(updated)), warnings)

    async def _delete_options(self, request):
        """(propagation policy or None, preconditions, dry run, grace period or None, whether
        `orphanDependents: false` was given) from the query and a DeleteOptions body."""
        raw = await request.read()
        options = {}
        if raw:
            try:
                options = json.loads(raw)
            except ValueError as e:
                raise ApiError.bad_request(f'the DeleteOptions body is not valid JSON: {e}')
            if not isinstance(options, dict):
                raise ApiError.bad_request('the DeleteOptions body is not an object')
        query = request.query
        policy = options.get('propagationPolicy') or query.get('propagationPolicy')
        orphan = options.get('orphanDependents')
        if orphan is None and 'orphanDependents' in query:
            orphan = _is_true(query['orphanDependents'])
        if policy and orphan is not None:
            raise ApiError.invalid('/deleteoptions', '', [('propagationPolicy', 'FieldValueForbidden',
                                   'Forbidden: orphanDependents and deletionPropagation cannot be both '
                                   'set')], kind='DeleteOptions')
        if policy and policy not in ('Background', 'Foreground', 'Orphan'):
            raise ApiError.invalid('/deleteoptions', '', [('propagationPolicy', 'FieldValueNotSupported',
                                   f'Unsupported value: "{policy}": supported values: "Foreground", '
                                   '"Background", "Orphan"')], kind='DeleteOptions')
        if orphan is not None:
            policy = 'Orphan' if orphan else 'Background'
        grace = options.get('gracePeriodSeconds')
        if grace is None and 'gracePeriodSeconds' in query:
            try:
                grace = int(query['gracePeriodSeconds'])
            except ValueError:
                raise ApiError.bad_request(f'invalid gracePeriodSeconds: {query["gracePeriodSeconds"]!r}')
        preconditions = options.get('preconditions') or {}
        return policy, preconditions, _dry_run(request, options), grace, orphan is False

    async def _delete(self, request, route):
        """The registry store's Delete (store.delete_request) and the handler's answer
        (apiserver endpoints/handlers/delete.go): an object removed at once is answered with a
        Success Status naming it (a pod with the pod itself, the pod strategy's
        ReturnDeletedObject); one left being deleted (graceful pod, finalizers, orphan or
        foreground propagation) with the object as it now is, 202 instead of 200 when
        `orphanDependents: false` asked for the cascade."""
        res = route.resource
        policy, preconditions, dry_run, grace, cascade = await self._delete_options(request)
        if res.key == '/namespaces':
            return self._delete_namespace(route, preconditions, dry_run)
        obj, removed = self.store.delete_request(res.key, route.namespace, route.name, propagation=policy,
                                                 dry_run=dry_run, preconditions=preconditions,
                                                 grace_seconds=grace)
        if removed and res.key != '/pods':
            details = {'name': route.name, 'group': res.group, 'kind': res.plural,
                       'uid': obj['metadata'].get('uid')}
            return _json_response({'kind': 'Status', 'apiVersion': 'v1', 'metadata': {}, 'status': 'Success',
                                   'details': {k: v for k, v in details.items() if v}})
        return _json_response(res.shown(obj), status=202 if cascade and not removed else 200)

    def _delete_namespace(self, route, preconditions, dry_run):
        """The namespace storage's Delete (pkg/registry/core/namespace/storage/storage.go): the
        first DELETE marks it (deletionTimestamp, phase Terminating) and answers it; the
        namespace controller (controllers/namespace.py) empties it and it goes. Deleting it again
        while its finalizers are pending is a 409."""
        current = self.store.must_get('/namespaces', None, route.name)
        if current['metadata'].get('deletionTimestamp'):
            if (current.get('spec') or {}).get('finalizers'):
                raise ApiError.conflict('/namespaces', route.name, 'The system is ensuring all content is '
                                        'removed from this namespace.  Upon completion, this namespace will '
                                        'automatically be purged by the system.')
            return _json_response(current)
        if dry_run:
            current['metadata']['deletionTimestamp'] = now_rfc3339()
            current.setdefault('status', {})['phase'] = 'Terminating'
            return _json_response(current)
        marked = self.store.mark_deleting('/namespaces', '', route.name, preconditions=preconditions,
                                          status={'phase': 'Terminating'})
        return _json_response(marked)

    async def _delete_collection(self, request, route):
        res = route.resource
        policy, _preconditions, dry_run, grace, _cascade = await self._delete_options(request)
        labels, fields = self._selectors(request, route)
        deleted = []
        for obj in self.store.list(res.key, route.namespace, labels, fields):
            meta = obj['metadata']
            if self.store.get(res.key, meta.get('namespace'), meta['name']) is None:
                continue  # garbage-collected along with an earlier item
            self.store.delete_request(res.key, meta.get('namespace'), meta['name'], propagation=policy,
                                      dry_run=dry_run, grace_seconds=grace)
            deleted.append(res.shown(obj))
        return _json_response({'kind': f'{res.kind}List', 'apiVersion': res.group_version,
                               'metadata': {'resourceVersion': str(self.store.resource_version)},
                               'items': [_list_item(o) for o in deleted]})

    # ---- watch ---------------------------------------------------------------------------
    async def _watch(self, request, route, name=None):
        res = route.resource
        labels, fields = self._selectors(request, route)
        if name is not None:
            fields = (fields or []) + [('metadata.name', '=', name)]
        query = request.query
        rv = query.get('resourceVersion')
        send_initial = _is_true(query.get('sendInitialEvents'))
        bookmarks = _is_true(query.get('allowWatchBookmarks'))
        try:
            timeout = int(query.get('timeoutSeconds') or 0)
        except ValueError:
            raise ApiError.bad_request(f'invalid timeoutSeconds: {query.get("timeoutSeconds")!r}: '
                                       'must be an integer')
        if timeout <= 0:
            timeout = DEFAULT_WATCH_TIMEOUT
        if self.max_watch_seconds:
            timeout = min(timeout, self.max_watch_seconds)
        initial = send_initial or rv in (None, '', '0')
        as_table = tables.wants_table(request.headers.get('Accept'))
        # A client asking for protobuf first gets the protobuf stream (kinds the type table has).
        as_protobuf = not as_table and _first_accept(request) == protobuf.CONTENT_TYPE and \
            gotypes.type_for(res.group, res.version, res.kind) is not None

        error = None
        try:
            watch = self.store.watch(res.key, route.namespace, None if initial else rv, labels, fields)
        except ApiError as e:
            if e.code != 410:
                raise
            watch, error = None, e
        except ValueError:
            raise ApiError.bad_request(f'invalid resourceVersion: {rv!r}')
        # Snapshot before the first await: later changes arrive through the watch queue.
        snapshot = [res.shown(o) for o in self.store.list(res.key, route.namespace, labels, fields)] \
            if watch and initial else []
        snapshot_rv = str(self.store.resource_version)

        content_type = protobuf.STREAM_CONTENT_TYPE if as_protobuf else JSON
        response = web.StreamResponse(status=200, headers={'Content-Type': content_type,
                                                           'Cache-Control': 'no-cache, private'})
        response.enable_chunked_encoding()
        task = asyncio.current_task()
        self.watch_tasks.add(task)
        try:
            await response.prepare(request)
            if error is not None:
                await self._send(response, 'ERROR', error.status(), as_protobuf=as_protobuf)
                return response
            for obj in snapshot:
                await self._send(response, 'ADDED', obj, as_table and res.columns, as_protobuf)
            if send_initial and bookmarks:
                await self._send(response, 'BOOKMARK', {
                    'kind': res.kind, 'apiVersion': res.group_version,
                    'metadata': {'resourceVersion': snapshot_rv,
                                 'annotations': {'k8s.io/initial-events-end': 'true'}}},
                    as_protobuf=as_protobuf)
            deadline = asyncio.get_running_loop().time() + timeout
            while True:
                remaining = deadline - asyncio.get_running_loop().time()
                if remaining <= 0:
                    break
                try:
                    event = await asyncio.wait_for(watch.queue.get(), min(remaining, WATCH_POLL))
                except asyncio.TimeoutError:
                    if request.transport is None or request.transport.is_closing():
                        break
                    continue
                if event is None:  # server shutting down
                    break
                typ, obj = event
                await self._send(response, typ, res.shown(obj), as_table and res.columns, as_protobuf)
            await response.write_eof()
        except (ConnectionResetError, BrokenPipeError):
            pass
        finally:
            self.watch_tasks.discard(task)
            if watch is not None:
                watch.close()
        return response

    @staticmethod
    async def _send(response, typ, obj, table_of=None, as_protobuf=False):
        """Write one watch event; ``table_of`` (a resource's columns) sends the object as a one-row
        Table, ``as_protobuf`` as a frame of the protobuf stream."""
        if as_protobuf:
            await response.write(protobuf.watch_frame(typ, obj))
            return
        if table_of:
            obj = tables.table(table_of, [obj], {'resourceVersion': obj['metadata']['resourceVersion']})
        await response.write(json.dumps({'type': typ, 'object': obj}, separators=(',', ':')).encode()
                             + b'\n')

    def close_watches(self):
        """End every open watch stream (at shutdown)."""
        for w in list(self.store.watches):
            w.queue.put_nowait(None)


def _first_accept(request):
    """The media type (without parameters) of the first entry of the Accept header."""
    return request.headers.get('Accept', '').split(',')[0].split(';')[0].strip().lower()


def _created_target(route, response):
    """The (resource key, namespace, name) of the object a POST created, from its answer."""
    if route.resource is None or route.subresource:
        return None
    try:
        name = json.loads(response.body)['metadata']['name']
    except (TypeError, ValueError, KeyError):
        return None
    return route.resource.key, route.namespace or '', name

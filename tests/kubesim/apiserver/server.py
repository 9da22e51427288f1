"""kubesim's HTTP layer: the Kubernetes REST API over aiohttp, backed by the Store.

Every handler runs on the single event loop thread and finishes its store work before its first
`await` that could yield to another request, so requests are serialized without locks. Every error a
client sees is a `Status` object; an unexpected exception is logged to stderr and answered with a
500 Status, never a traceback.

The handler chain is here (`ApiServer`): the request log, authentication (authentication.py),
health checks, what the path addresses (requestinfo.py), read-only users, fault injection,
the version, OpenAPI and discovery documents, then the handlers of the resource verbs
(handlers/), and content negotiation (protobuf) of the answer.
"""

import asyncio
import json
import sys
import time
import traceback

from aiohttp import web

from ..machinery import protobuf
from ..machinery.errors import ApiError
from . import discovery, openapi_v2
from .authentication import ANONYMOUS, ANONYMOUS_USER, AUTH, PUBLIC_INFO_PATHS, READONLY_USER, USER_INFO, \
    Authentication
from .authorization import Authorization, is_review
from .handlers.connect import ConnectHandlers
from .handlers.delete import DeleteHandlers
from .handlers.patch import PatchHandlers
from .handlers.responsewriters import JSON, _json_response, _raw_json_response, pretty_if_asked
from .handlers.rest import RestHandlers, _is_true
from .handlers.scale import ScaleHandlers
from .handlers.watch import WatchHandlers
from .requestinfo import PlainNotFound, parse_route

WRITE_METHODS = ('POST', 'PUT', 'PATCH', 'DELETE')
HEALTH_PATHS = ('healthz', 'livez', 'readyz')
# Marks a request whose connection a fault dropped: it gets no request-log line for its response.
DROPPED = web.RequestKey('kubesim_dropped', bool)


class ApiServer(Authorization, Authentication, RestHandlers, ScaleHandlers, PatchHandlers, DeleteHandlers,
                WatchHandlers, ConnectHandlers):
    """The aiohttp application serving the Kubernetes API from ``store``."""

    def __init__(self, store, *, token=None, readonly_token=None, request_log=None, faults=None,
                 token_file=None, basic_auth=None, client_certs=False, max_watch_seconds=None,
                 authorization_mode=None):
        self.store = store
        self._setup_authorization(authorization_mode)  # authorization.py: None/AlwaysAllow or RBAC
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
        discovery, watch streams), pretty-printed when the client asks (`pretty_if_asked`)."""
        accept = request.headers.get('Accept', '').split(',')[0].strip()
        if not accept.startswith(protobuf.CONTENT_TYPE) or not isinstance(response, web.Response) \
                or response.content_type != JSON or not response.body:
            return pretty_if_asked(request, response)
        try:
            encoded = protobuf.encode(json.loads(response.body))
        except (ValueError, AttributeError):
            return response
        if encoded is None:
            return pretty_if_asked(request, response)
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

    async def _handle(self, request):
        if request.path in PUBLIC_INFO_PATHS and request.method in ('GET', 'HEAD') \
                and self._authenticates() and self._credentialless(request):
            # Anonymous: system:public-info-viewer may read these. (A bad credential is a 401
            # here too: the API server never takes a failed authentication as anonymous.)
            request[AUTH] = {'auth': 'anonymous', 'user': ANONYMOUS_USER}
            request[USER_INFO] = ANONYMOUS
            user = ANONYMOUS_USER
        else:
            user = self._user(request)
        self._authorize_request(request)  # authorization.py: RBAC, when on
        if request.path.strip('/').split('/')[0] in HEALTH_PATHS:
            return web.Response(text='ok', content_type='text/plain')
        route = parse_route(request.path, self.server_address, self.store.registry)
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
            return _raw_json_response(discovery.SERVER_VERSION)
        if route.kind == 'openapi_v2':
            if openapi_v2.PROTOBUF in request.headers.get('Accept', ''):
                return web.Response(body=openapi_v2.protobuf_bytes(),
                                    content_type=openapi_v2.PROTOBUF_RETURNED)
            return web.Response(body=openapi_v2.json_bytes(), content_type=JSON)
        if route.kind == 'discovery':
            if request.method not in ('GET', 'HEAD'):
                raise ApiError.method_not_allowed()
            if route.raw:
                return _raw_json_response(route.document)
            return _json_response(route.document)
        if is_review(route):  # authorization.k8s.io/v1 reviews: answered, not stored
            return await self._review(request, route)
        response = await self._resource(request, route)
        if route.resource is not None and route.resource.warning and not response.prepared:
            # The deprecated API's warning (apiserver endpoints/deprecation), on every answer.
            response.headers.add('Warning', f'299 - "{route.resource.warning}"')
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


def _created_target(route, response):
    """The (resource key, namespace, name) of the object a POST created, from its answer."""
    if route.resource is None or route.subresource:
        return None
    try:
        name = json.loads(response.body)['metadata']['name']
    except (TypeError, ValueError, KeyError):
        return None
    return route.resource.key, route.namespace or '', name

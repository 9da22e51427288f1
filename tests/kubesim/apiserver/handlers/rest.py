"""What the handlers share (apiserver pkg/endpoints/handlers/rest.go and the request scope):
the media types of bodies, the query parameters (`dryRun`, selectors), decoding and
checking a body (the typed round-trip and `fieldValidation`), the field manager of a write; and
the verbs' dispatch with get, list, create and update (get.go, create.go, update.go)."""

import base64
import json

import yaml

from ...machinery import gotypes, patch, protobuf
from ...machinery.errors import ApiError
from ...machinery.selectors import parse_field_selector, parse_label_selector
from .. import fieldmanager, tables, typed
from ..strategies import core
from ..strategies.validation import go_repr
from . import metrics
from .connect import CONNECT_SUBRESOURCES
from .eviction import evict
from .responsewriters import JSON, _go_json, _json_response
from .scale import to_scale

# Bodies of create and update requests kubesim decodes (CBOR is an alpha feature, off in 1.37).
OBJECT_MEDIA_TYPES = (JSON, 'application/yaml', 'text/yaml', protobuf.CONTENT_TYPE)
# What a 415 for another body says is accepted.
DECLARED_MEDIA_TYPES = (JSON, 'application/yaml', protobuf.CONTENT_TYPE)
CUSTOM_MEDIA_TYPES = (JSON, 'application/yaml')


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


def _include_object(request):
    """The Table's `includeObject` option (metav1.TableOptions): Metadata when not given."""
    include = request.query.get('includeObject') or 'Metadata'
    if include not in ('None', 'Metadata', 'Object'):
        raise ApiError.bad_request(f'unrecognized includeObject value: "{include}"')
    return include


def _first_accept(request):
    """The media type (without parameters) of the first entry of the Accept header."""
    return request.headers.get('Accept', '').split(',')[0].split(';')[0].strip().lower()


class RestHandlers:
    """The verbs' dispatch and the handlers of get, list, create and update."""

    async def _resource(self, request, route):
        method = request.method
        if route.resource.group == metrics.GROUP:
            return metrics.answer(self.store, request, route, self._selectors(request, route))
        if route.subresource in CONNECT_SUBRESOURCES:
            return await self._pod_connect(request, route)
        if route.subresource == 'eviction':
            return await evict(self.store, request, route, _dry_run)
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
        elif route.subresource in (None, 'status') and tables.wants_table(request.headers.get('Accept')):
            # The status subresource's REST prints the object as the resource does.
            meta = {'resourceVersion': obj['metadata']['resourceVersion']}
            obj = tables.table(route.resource.columns, [obj], meta, _include_object(request))
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
            return _json_response(tables.table(res.columns, items, meta, _include_object(request)))
        return _json_response({'kind': f'{res.kind}List', 'apiVersion': res.group_version,
                                  'metadata': meta, 'items': [_list_item(o) for o in items]})

    async def _body(self, request, route=None, *, allow_yaml=True):
        raw = await request.read()
        if not raw:
            raise ApiError.bad_request('the request body is empty')
        ctype = request.content_type
        custom = route is not None and route.resource.custom is not None
        if allow_yaml and 'Content-Type' in request.headers and (
                ctype not in OBJECT_MEDIA_TYPES or (custom and ctype == protobuf.CONTENT_TYPE)):
            # The custom resource handler's serializers are JSON and YAML only.
            raise ApiError.unsupported_media_type(CUSTOM_MEDIA_TYPES if custom else DECLARED_MEDIA_TYPES)
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
        """The typed round-trip (../typed.py) and `fieldValidation` (default Warn): unknown fields are
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
            if res.decoder is not None:
                obj, unknown = res.decoder(obj)
            else:
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

    def _manager(self, request, route):
        """The field manager of a write (fieldmanager.update as a store hook), None for kinds the
        type table does not know."""
        res = route.resource
        stored = self.store.registry.by_key.get(res.key, res)
        type_name = stored.managed_type()
        if type_name is None:
            return None
        name, api_version = fieldmanager.manager_name(request), res.group_version
        subresource = route.subresource or ''
        return lambda old, new: fieldmanager.update(old, new, type_name, name, api_version, subresource)

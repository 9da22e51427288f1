"""PATCH (apiserver pkg/endpoints/handlers/patch.go): JSON patch, merge patch and strategic
merge patch applied to the object as its version shows it, and server-side apply
(`application/apply-patch+yaml`, the field manager's Apply)."""

import copy

import yaml

from ...machinery import gotypes, patch
from ...machinery.errors import ApiError
from .. import fieldmanager, lastapplied, typed
from ..strategies import core
from .responsewriters import _json_response
from .rest import _dry_run, _is_true
from .scale import to_scale


class PatchHandlers:
    """PATCH, server-side apply included."""

    async def _patch(self, request, route):
        ctype = request.content_type
        accepted = route.resource.patch_types
        if accepted is not None and ctype not in accepted:
            # Custom resources take no strategic merge patch (customresource_handler.go).
            raise ApiError.unsupported_media_type(accepted)
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
            if res.decoder is not None:
                _decoded, unknown = res.decoder(copy.deepcopy(config))
            else:
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
        if res.custom is not None:
            config = res.custom.known_only(config)
        elif res.decoder is None:
            config = gotypes.known_only(gotypes.type_for(res.group, res.version, res.kind), config)
        live = self.store.get(res.key, route.namespace, route.name)
        stored = self.store.registry.by_key.get(res.key, res)
        type_name = stored.managed_type()
        if route.subresource == 'status':
            if live is None:
                raise ApiError.not_found(res.key, route.name)
            # The status strategy puts back everything but the status (its reset fields): only
            # the status is applied, and owned.
            config = {'apiVersion': config['apiVersion'], 'kind': config['kind'],
                      'metadata': {k: v for k, v in config['metadata'].items() if k in ('name', 'namespace')},
                      **({'status': config['status']} if 'status' in config else {})}
            merged = lastapplied.apply(live, res.stored(config), type_name, name, res.group_version, force,
                                       'status', applied=config)
            fields = merged['metadata']['managedFields']
            ref = {k: live['metadata'][k] for k in ('name', 'namespace') if k in live['metadata']}
            out = self.store.update(res.key, {'metadata': ref, 'status': merged.get('status') or {}},
                                    subresource='status', dry_run=dry_run, manager=lambda _old, _new: fields)
            return self._warned(_json_response(res.shown(out)), warnings)
        merged = lastapplied.apply(live, res.stored(config), type_name, name, res.group_version, force,
                                   applied=config)
        if live is None:
            self._require_namespace(route)
            out = self.store.create(res.key, merged, dry_run=dry_run)
            return self._warned(_json_response(res.shown(out), status=201), warnings)
        merged['metadata']['resourceVersion'] = live['metadata']['resourceVersion']
        out = self.store.update(res.key, merged, dry_run=dry_run, whole_object=True)
        return self._warned(_json_response(res.shown(out)), warnings)

"""The `scale` subresource: a workload's replicas as an autoscaling/v1 Scale (the ScaleREST of
the workload kinds' storage), written by update, patch and apply (apiserver fieldmanager
scalehandler.go maps its field managers to the parent's)."""

import json

from ...machinery.errors import ApiError
from .. import fieldmanager
from .responsewriters import _json_response


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
    if resource.custom is not None:
        return resource.custom.to_scale(obj)  # the CRD's specReplicasPath, statusReplicasPath, ...
    meta = obj['metadata']
    return {
        'kind': 'Scale', 'apiVersion': 'autoscaling/v1',
        'metadata': {k: meta[k] for k in ('name', 'namespace', 'uid', 'resourceVersion',
                                          'creationTimestamp') if k in meta},
        'spec': {'replicas': (obj.get('spec') or {}).get('replicas', 1)},
        'status': {'replicas': (obj.get('status') or {}).get('replicas', 0),
                   'selector': selector_string(resource, obj)},
    }


class ScaleHandlers:
    """Writes through `scale`."""

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
        if res.custom is not None:
            res.custom.set_replicas(current, replicas)
        else:
            current.setdefault('spec', {})['replicas'] = replicas
        updated = self.store.update(res.key, current, dry_run=dry_run, manager=manager)
        return _json_response(to_scale(res, updated))

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
        stored = self.store.registry.by_key.get(res.key, res)
        type_name = stored.managed_type()
        ref = {k: live['metadata'][k] for k in ('name', 'namespace') if k in live['metadata']}
        parent = {'apiVersion': res.group_version, 'kind': res.kind, 'metadata': ref}
        path = res.custom.replicas_path() if res.custom is not None else ('spec', 'replicas')
        if 'replicas' in (config.get('spec') or {}):
            node = parent
            for part in path[:-1]:
                node = node.setdefault(part, {})
            node[path[-1]] = config['spec']['replicas']
        merged = fieldmanager.apply(live, parent, type_name, manager, res.group_version, force, 'scale')
        fields = merged['metadata']['managedFields']
        scale = to_scale(res, live)
        value = merged
        for part in path:
            value = (value or {}).get(part) if isinstance(value, dict) else None
        scale['spec']['replicas'] = value if value is not None else (1 if res.custom is None else 0)
        return self._write_scale(route, scale, dry_run, lambda _old, _new: fields)

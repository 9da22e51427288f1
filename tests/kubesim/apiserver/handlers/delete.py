"""DELETE and DELETE of a collection (apiserver pkg/endpoints/handlers/delete.go), with the
options (`propagationPolicy`, `orphanDependents`, preconditions, `gracePeriodSeconds`, dry run)
and the namespace storage's own Delete."""

import json

from ...machinery.errors import ApiError
from ...machinery.clock import now_rfc3339
from ..admission import namespacelifecycle
from .responsewriters import _json_response
from .rest import _dry_run, _is_true, _list_item


class DeleteHandlers:
    """DELETE of an object and of a collection."""

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
        Success Status naming it (finalizeDelete), or with the object as it was where the store
        sets ReturnDeletedObject (pods, services, ...: `Resource.returns_deleted_object`); one
        left being deleted (graceful pod, finalizers, orphan or foreground propagation) with the
        object as it now is, 202 instead of 200 when `orphanDependents: false` asked for the
        cascade."""
        res = route.resource
        policy, preconditions, dry_run, grace, cascade = await self._delete_options(request)
        if res.key == '/namespaces':
            namespacelifecycle.check_delete(route.name)  # admission runs before the storage's Delete
            return self._delete_namespace(route, preconditions, dry_run)
        obj, removed = self.store.delete_request(res.key, route.namespace, route.name, propagation=policy,
                                                 dry_run=dry_run, preconditions=preconditions,
                                                 grace_seconds=grace)
        if removed and not res.returns_deleted_object:
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

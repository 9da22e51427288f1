"""Watches (apiserver pkg/endpoints/handlers/watch.go): the initial events, bookmarks, the
store's events as JSON, Table rows or protobuf frames, until the timeout or shutdown."""

import asyncio

from aiohttp import web

from ...machinery import gotypes, protobuf
from ...machinery.errors import ApiError
from .. import tables
from .responsewriters import JSON, _encoded
from .rest import _first_accept, _is_true

# Watches without timeoutSeconds end after this long (the real server picks 30-60 minutes).
DEFAULT_WATCH_TIMEOUT = 1800
# How often an idle watch checks whether its client went away.
WATCH_POLL = 0.5


class WatchHandlers:
    """Watch streams, and ending them at shutdown."""

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
        await response.write(_encoded({'type': typ, 'object': obj}).encode())

    def close_watches(self):
        """End every open watch stream (at shutdown)."""
        for w in list(self.store.watches):
            w.queue.put_nowait(None)

"""A Gateway API implementation stand-in: the controller of the GatewayClass `kubesim`.

What a gateway controller does to the API objects, as the Gateway API specification asks of one
(kubernetes-sigs/gateway-api `apis/v1/shared_types.go` RouteParentStatus and the route condition
types and reasons, `gateway_types.go` and `gatewayclass_types.go` the Gateway and class conditions):

- the GatewayClasses naming its `controllerName` get `Accepted` True;
- the Gateways of those classes get `Accepted` and `Programmed` True, an address and one status per
  listener (`attachedRoutes`, `supportedKinds`, its conditions);
- an HTTPRoute or a GRPCRoute gets, for each parentRef naming a Gateway of such a class, one
  `status.parents[]` entry with this `controllerName` and the conditions `Accepted` and
  `ResolvedRefs`, each carrying the route's `metadata.generation` as `observedGeneration`. Entries
  other controllers wrote are kept; parentRefs naming anything else get none (not this controller's);
- the mesh (GAMMA, routes.py): for each parentRef naming a core Service, one entry with the
  controllerName `kubesim.io/mesh` and the same two conditions; `Accepted` False with
  `NoMatchingParent` when the Service does not exist or has no such port.
  - `Accepted` False: reject mode (`reject`, a reason such as `NotAllowedByListeners`), a listener
    whose `allowedRoutes.namespaces.from` is `Same` while the route lives in another namespace
    (`NotAllowedByListeners`), a `sectionName` or `port` no listener has (`NoMatchingParent`);
  - `ResolvedRefs` False: a backendRef of a kind other than a core Service (`InvalidKind`), in
    another namespace (`RefNotPermitted`: ReferenceGrants are not simulated), or naming a Service
    that does not exist (`BackendNotFound`); a mesh consumer route may name Services of its
    parent Service's namespace too.

The controller answers after `delay` seconds (changes within it coalesce), as a real gateway takes
a while to program its data plane. A route accepted by a parent is *programmed*: what the
simulated data plane (dataplane.py) serves, and the shares it gives each backend.
"""

import asyncio
import time

from ..machinery.clock import now_rfc3339
from ..machinery.errors import ApiError
from . import routes
from .dataplane import INVALID_BACKEND, NO_ENDPOINTS, SERVICE_NAME_LABEL, SERVICES, SLICES, DataPlane
from .routes import GROUP, KIND_OF, KINDS, MESH_CONTROLLER_NAME, parent_key

__all__ = ['INVALID_BACKEND', 'NO_ENDPOINTS', 'GatewayController', 'parent_key']

CLASSES = f'{GROUP}/gatewayclasses'
GATEWAYS = f'{GROUP}/gateways'
ROUTES = KINDS['HTTPRoute']
CONTROLLER_NAME = 'kubesim.io/gateway-controller'
CLASS_NAME = 'kubesim'


def _condition(cond_type, status, reason, message, generation, old_conditions):
    since = now_rfc3339()
    for old in old_conditions or []:
        if old.get('type') == cond_type and old.get('status') == status:
            since = old.get('lastTransitionTime') or since
    return {
        'type': cond_type,
        'status': status,
        'observedGeneration': generation,
        'lastTransitionTime': since,
        'reason': reason,
        'message': message,
    }


def _same_conditions(a, b):
    """Conditions equal but for their transition times."""

    def strip(conds):
        return [{k: v for k, v in c.items() if k != 'lastTransitionTime'} for c in conds or []]

    return strip(a) == strip(b)


class GatewayController(DataPlane):
    def __init__(
        self, store, *, delay=0.0, reject=None, controller_name=CONTROLLER_NAME, clock=time.monotonic
    ):
        self.store = store
        self.delay = float(delay)
        # None: accept routes; a reason text (e.g. 'NotAllowedByListeners'): refuse every route.
        self.reject = reject
        self.controller_name = controller_name
        self.clock = clock
        self.mesh_controller_name = MESH_CONTROLLER_NAME
        self._plane_init()
        self._pending = set()
        self._waiting = set()  # items whose delay is running
        self._addresses = {}  # gateway uid -> address

    # ---- wiring ---------------------------------------------------------------------------------
    def attach(self):
        self.store.listeners.append(self.observe)

    def install_class(self):
        """Create the GatewayClass `kubesim` (its status follows from the controller)."""
        self.store.create(
            CLASSES,
            {
                'apiVersion': f'{GROUP}/v1',
                'kind': 'GatewayClass',
                'metadata': {'name': CLASS_NAME},
                'spec': {'controllerName': self.controller_name, 'description': 'kubesim simulated gateway'},
            },
        )

    def resync(self):
        """Judge every class, Gateway and route again (after a change of reject or delay)."""
        for gateway_class in self.store.list(CLASSES):
            self._queue(('class', '', gateway_class['metadata']['name'], None))
        for gateway in self.store.list(GATEWAYS):
            self._queue(('gateway', gateway['metadata']['namespace'], gateway['metadata']['name'], None))
        self._queue(('all routes', None, None, None))

    def observe(self, event_type, resource, obj):
        meta = obj['metadata']
        if resource in KIND_OF:
            self._queue(('route', meta.get('namespace'), meta['name'], KIND_OF[resource]))
        elif resource in (GATEWAYS, CLASSES):
            self._queue(
                ('gateway', meta.get('namespace'), meta['name'], None)
                if resource == GATEWAYS
                else ('class', '', meta['name'], None)
            )
            self._queue(('all routes', None, None, None))
        elif resource == SERVICES:
            # a backend or a mesh parent (of a route in any namespace) came, went or changed ports
            self._queue(('all routes', None, None, None))
        elif resource == SLICES:
            service = (meta.get('labels') or {}).get(SERVICE_NAME_LABEL)
            if service and self._backends_in(meta.get('namespace')):
                self.store.defer(self._endpoints_changed, meta.get('namespace'), service)

    def _queue(self, item):
        """Judge ``item`` `delay` seconds after its change (at once without one); a change while it
        waits joins that judgement."""
        if self.delay <= 0:
            self._pending.add(item)
            self.store.defer(self._flush)
        elif item not in self._waiting:
            self._waiting.add(item)
            asyncio.get_running_loop().call_later(self.delay, self._ripe, item)

    def _ripe(self, item):
        self._waiting.discard(item)
        self._pending.add(item)
        self._flush()

    def _flush(self):
        pending, self._pending = self._pending, set()
        todo = set()
        for what, namespace, name, kind in sorted(pending, key=lambda p: tuple(x or '' for x in p)):
            if what == 'class':
                self._sync_class(name)
            elif what == 'gateway':
                self._sync_gateway(namespace, name)
            elif what == 'route':
                todo.add((kind, namespace, name))
            else:
                for kind, resource in KINDS.items():
                    for route in self.store.list(resource):
                        todo.add((kind, route['metadata']['namespace'], route['metadata']['name']))
        for kind, namespace, name in sorted(todo):
            if ('route', namespace, name, kind) in self._waiting:
                continue  # changed since: judged when its own delay is over
            self._sync_route(kind, namespace, name)

    # ---- GatewayClass and Gateway ---------------------------------------------------------------
    def _ours(self, gateway_class):
        return (
            gateway_class is not None
            and (gateway_class.get('spec') or {}).get('controllerName') == self.controller_name
        )

    def _write_status(self, resource, obj, status):
        if status == obj.get('status'):
            return
        meta = {'name': obj['metadata']['name']}
        if obj['metadata'].get('namespace'):
            meta['namespace'] = obj['metadata']['namespace']
        try:
            self.store.update(resource, {'metadata': meta, 'status': status}, subresource='status')
        except ApiError:
            pass  # gone meanwhile: its deletion queued nothing more to do

    def _sync_class(self, name):
        gateway_class = self.store.get(CLASSES, '', name)
        if not self._ours(gateway_class):
            return
        status = dict(gateway_class.get('status') or {})
        generation = gateway_class['metadata'].get('generation', 1)
        old = status.get('conditions')
        new = [_condition('Accepted', 'True', 'Accepted', 'accepted by the kubesim gateway', generation, old)]
        if not _same_conditions(old, new):
            status['conditions'] = new
            self._write_status(CLASSES, gateway_class, status)

    def _gateway_ours(self, gateway):
        if gateway is None:
            return False
        return self._ours(self.store.get(CLASSES, '', (gateway.get('spec') or {}).get('gatewayClassName')))

    def _sync_gateway(self, namespace, name):
        gateway = self.store.get(GATEWAYS, namespace, name)
        if not self._gateway_ours(gateway):
            return
        generation = gateway['metadata'].get('generation', 1)
        status = dict(gateway.get('status') or {})
        old = status.get('conditions')
        conditions = [
            _condition('Accepted', 'True', 'Accepted', 'accepted', generation, old),
            _condition('Programmed', 'True', 'Programmed', 'programmed', generation, old),
        ]
        uid = gateway['metadata'].get('uid')
        address = self._addresses.setdefault(
            uid, f'10.255.{len(self._addresses) // 250}.{len(self._addresses) % 250 + 1}'
        )
        attached = self._attached_routes(gateway)
        old_listeners = {item.get('name'): item for item in status.get('listeners') or []}
        listeners = []
        for listener in gateway['spec'].get('listeners') or []:
            before = (old_listeners.get(listener['name']) or {}).get('conditions')
            listeners.append(
                {
                    'name': listener['name'],
                    'attachedRoutes': attached.get(listener['name'], 0),
                    'supportedKinds': [{'group': GROUP, 'kind': kind} for kind in KINDS],
                    'conditions': [
                        _condition(t, 'True', t, t.lower(), generation, before)
                        for t in ('Accepted', 'Programmed', 'ResolvedRefs')
                    ],
                }
            )
        new = {
            'addresses': [{'type': 'IPAddress', 'value': address}],
            'conditions': conditions,
            'listeners': listeners,
        }
        if (
            _same_conditions(old, conditions)
            and status.get('addresses') == new['addresses']
            and _listeners_same(status.get('listeners'), listeners)
        ):
            return
        self._write_status(GATEWAYS, gateway, new)

    def _attached_routes(self, gateway):
        """Listener name -> number of routes accepted through it."""
        out = {}
        gw_ns, gw_name = gateway['metadata'].get('namespace'), gateway['metadata']['name']
        for route_kind, resource in KINDS.items():
            for route in self.store.list(resource):
                route_ns = route['metadata']['namespace']
                for ref in (route.get('spec') or {}).get('parentRefs') or []:
                    group, kind, ns, name, section, port = parent_key(ref, route_ns)
                    if (group, kind, ns, name) != (GROUP, 'Gateway', gw_ns, gw_name):
                        continue
                    for listener in self._listeners_for(gateway, section, port):
                        if self._admits(listener, gw_ns, route_ns, route_kind) and self.reject is None:
                            out[listener['name']] = out.get(listener['name'], 0) + 1
        return out

    # ---- HTTPRoute and GRPCRoute ----------------------------------------------------------------
    @staticmethod
    def _listeners_for(gateway, section, port):
        return [
            item
            for item in (gateway.get('spec') or {}).get('listeners') or []
            if (section is None or item.get('name') == section) and (port is None or item.get('port') == port)
        ]

    @staticmethod
    def _admits(listener, gateway_namespace, route_namespace, route_kind):
        allowed_routes = listener.get('allowedRoutes') or {}
        kinds = allowed_routes.get('kinds')
        if kinds and not any(
            k.get('group', GROUP) == GROUP and k.get('kind') == route_kind for k in kinds
        ):
            return False
        allowed = (allowed_routes.get('namespaces') or {}).get('from', 'Same')
        return (
            allowed == 'All'
            or (allowed == 'Same' and gateway_namespace == route_namespace)
            or (allowed == 'Selector')
        )  # a namespace selector admits every namespace here (not simulated)

    def _accepted(self, kind, route, gateway, section, port):
        if self.reject is not None:
            return 'False', self.reject, 'the kubesim gateway is set to reject routes'
        listeners = self._listeners_for(gateway, section, port)
        if not listeners:
            return 'False', 'NoMatchingParent', "no listener matches the parentRef's sectionName and port"
        gw_ns, route_ns = gateway['metadata'].get('namespace'), route['metadata']['namespace']
        if not any(self._admits(item, gw_ns, route_ns, kind) for item in listeners):
            return 'False', 'NotAllowedByListeners', 'no listener allows routes from this namespace'
        return 'True', 'Accepted', 'Accepted'

    def _parent_entry(self, kind, route, ref, key, before):
        """The status entry of one parentRef and how it programs the route: (entry, allowed
        backend namespaces, mesh attachment); entry None for a parent that is not ours."""
        namespace = route['metadata']['namespace']
        generation = route['metadata'].get('generation', 1)
        if routes.is_gateway(key):
            gateway = self.store.get(GATEWAYS, key[2], key[3])
            if not self._gateway_ours(gateway):
                return None, None, None
            accepted = self._accepted(kind, route, gateway, key[4], key[5])
            controller, allowed, mesh = self.controller_name, {namespace}, None
        elif routes.is_service(key):
            accepted = routes.mesh_accepted(self.store, key, self.reject)
            controller, allowed = self.mesh_controller_name, {namespace, key[2]}
            mesh = (key[2], key[3], None if key[2] == namespace else namespace)
        else:
            return None, None, None
        resolved = routes.resolved(self.store, route, allowed)
        before = before.get((controller, key), {}).get('conditions')
        entry = {
            'parentRef': ref,
            'controllerName': controller,
            'conditions': [
                _condition('Accepted', *accepted, generation, before),
                _condition('ResolvedRefs', *resolved, generation, before),
            ],
        }
        if accepted[0] != 'True':
            return entry, None, None
        return entry, allowed, mesh

    def _sync_route(self, kind, namespace, name):
        route = self.store.get(KINDS[kind], namespace, name)
        if route is None or route['metadata'].get('deletionTimestamp'):
            self._program(kind, namespace, name, None)
            return
        status = dict(route.get('status') or {})
        old_parents = status.get('parents') or []
        ours = (self.controller_name, self.mesh_controller_name)
        mine_before = {
            (p.get('controllerName'), parent_key(p.get('parentRef') or {}, namespace)): p
            for p in old_parents
            if p.get('controllerName') in ours
        }
        parents = [p for p in old_parents if p.get('controllerName') not in ours]
        accepted_any, allowed, mesh = False, set(), []
        for ref in (route.get('spec') or {}).get('parentRefs') or []:
            entry, parent_allowed, attachment = self._parent_entry(
                kind, route, ref, parent_key(ref, namespace), mine_before
            )
            if entry is None:
                continue
            parents.append(entry)
            if parent_allowed is not None:
                accepted_any = True
                allowed |= parent_allowed
            if attachment is not None:
                mesh.append(attachment)
        if parents != old_parents and not _parents_same(old_parents, parents):
            self._write_status(KINDS[kind], route, dict(status, parents=parents))
        self._program(kind, namespace, name, route if accepted_any else None, allowed, mesh)
        for ref in (route.get('spec') or {}).get('parentRefs') or []:
            key = parent_key(ref, namespace)
            if routes.is_gateway(key) and self._gateway_ours(self.store.get(GATEWAYS, key[2], key[3])):
                self._sync_gateway(key[2], key[3])


def _listeners_same(a, b):
    a, b = a or [], b or []
    return len(a) == len(b) and all(
        x.get('name') == y.get('name')
        and x.get('attachedRoutes') == y.get('attachedRoutes')
        and _same_conditions(x.get('conditions'), y.get('conditions'))
        for x, y in zip(a, b)
    )


def _parents_same(a, b):
    return len(a) == len(b) and all(
        x.get('parentRef') == y.get('parentRef')
        and x.get('controllerName') == y.get('controllerName')
        and _same_conditions(x.get('conditions'), y.get('conditions'))
        for x, y in zip(a, b)
    )

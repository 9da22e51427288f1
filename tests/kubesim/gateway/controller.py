"""A Gateway API implementation stand-in: the controller of the GatewayClass `kubesim`.

What a gateway controller does to the API objects, as the Gateway API specification asks of one
(kubernetes-sigs/gateway-api `apis/v1/shared_types.go` RouteParentStatus and the route condition
types and reasons, `gateway_types.go` and `gatewayclass_types.go` the Gateway and class conditions):

- the GatewayClasses naming its `controllerName` get `Accepted` True;
- the Gateways of those classes get `Accepted` and `Programmed` True, an address and one status per
  listener (`attachedRoutes`, `supportedKinds`, its conditions);
- an HTTPRoute gets, for each parentRef naming a Gateway of such a class, one `status.parents[]`
  entry with this `controllerName` and the conditions `Accepted` and `ResolvedRefs`, each carrying
  the route's `metadata.generation` as `observedGeneration`. Entries other controllers wrote are
  kept; parentRefs naming anything else get none (they are not this controller's).
  - `Accepted` False: reject mode (`reject`, a reason such as `NotAllowedByListeners`), a listener
    whose `allowedRoutes.namespaces.from` is `Same` while the route lives in another namespace
    (`NotAllowedByListeners`), a `sectionName` or `port` no listener has (`NoMatchingParent`);
  - `ResolvedRefs` False: a backendRef of a kind other than a core Service (`InvalidKind`), in
    another namespace (`RefNotPermitted`: ReferenceGrants are not simulated), or naming a Service
    that does not exist (`BackendNotFound`).

The controller answers after `delay` seconds (changes within it coalesce), as a real gateway takes
a while to program its data plane. A route it accepted is *programmed*: from then on its rules, as
they were at that generation, are what the simulated data plane serves (`shares`), until a later
generation is accepted or the route is rejected or deleted. kubesim moves no packets: `shares`
says which fraction of a rule's requests each backend would get, from the programmed weights and
the ready endpoints in the Services' EndpointSlices (what kubesim's EndpointSlice controller wrote):
each backendRef gets weight / (sum of the rule's weights); the share of a backend whose Service has
no ready endpoint is answered 503 by the gateway, of one that does not resolve 500 (the
specification: "requests that would have been sent to an invalid backend MUST receive a 500"); a
rule whose weights are all 0 answers every request 500. `log` keeps every change of the shares
(a new programmed generation, an endpoint change of a backend) with its time, so a test can assert
what traffic would have seen at every instant.
"""

import asyncio
import time

from ..machinery.clock import now_rfc3339
from ..machinery.errors import ApiError

GROUP = 'gateway.networking.k8s.io'
CLASSES = f'{GROUP}/gatewayclasses'
GATEWAYS = f'{GROUP}/gateways'
ROUTES = f'{GROUP}/httproutes'
SERVICES = '/services'
SLICES = 'discovery.k8s.io/endpointslices'
SERVICE_NAME_LABEL = 'kubernetes.io/service-name'
CONTROLLER_NAME = 'kubesim.io/gateway-controller'
CLASS_NAME = 'kubesim'
# The data plane's answers for requests it cannot send to a backend.
NO_ENDPOINTS, INVALID_BACKEND = '503', '500'


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


def parent_key(ref, namespace):
    """A parentRef with its defaults: (group, kind, namespace, name, sectionName, port)."""
    return (
        ref.get('group', GROUP),
        ref.get('kind', 'Gateway'),
        ref.get('namespace') or namespace,
        ref.get('name'),
        ref.get('sectionName'),
        ref.get('port'),
    )


class GatewayController:
    def __init__(
        self, store, *, delay=0.0, reject=None, controller_name=CONTROLLER_NAME, clock=time.monotonic
    ):
        self.store = store
        self.delay = float(delay)
        # None: accept routes; a reason text (e.g. 'NotAllowedByListeners'): refuse every route.
        self.reject = reject
        self.controller_name = controller_name
        self.clock = clock
        self.programmed = {}  # (namespace, route) -> {'generation', 'rules': [[(backend, weight), ...]]}
        self.log = []  # {'t', 'namespace', 'route', 'generation', 'shares'}
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
            self._queue(('class', '', gateway_class['metadata']['name']))
        for gateway in self.store.list(GATEWAYS):
            self._queue(('gateway', gateway['metadata']['namespace'], gateway['metadata']['name']))
        self._queue(('all routes', None, None))

    def observe(self, event_type, resource, obj):
        meta = obj['metadata']
        if resource == ROUTES:
            self._queue(('route', meta.get('namespace'), meta['name']))
        elif resource in (GATEWAYS, CLASSES):
            self._queue(
                ('gateway', meta.get('namespace'), meta['name'])
                if resource == GATEWAYS
                else ('class', '', meta['name'])
            )
            self._queue(('all routes', None, None))
        elif resource == SERVICES and event_type in ('ADDED', 'DELETED'):
            self._queue(('routes in', meta.get('namespace'), None))
        elif resource == SLICES:
            service = (meta.get('labels') or {}).get(SERVICE_NAME_LABEL)
            if service and any(ns == meta.get('namespace') for ns, _ in self.programmed):
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
        routes = set()
        for what, namespace, name in sorted(pending, key=lambda p: (p[0], p[1] or '', p[2] or '')):
            if what == 'class':
                self._sync_class(name)
            elif what == 'gateway':
                self._sync_gateway(namespace, name)
            elif what == 'route':
                routes.add((namespace, name))
            else:
                for route in self.store.list(ROUTES, namespace):
                    routes.add((route['metadata']['namespace'], route['metadata']['name']))
        for namespace, name in sorted(routes):
            if ('route', namespace, name) in self._waiting:
                continue  # changed since: judged when its own delay is over
            self._sync_route(namespace, name)

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
                    'supportedKinds': [{'group': GROUP, 'kind': 'HTTPRoute'}],
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
        for route in self.store.list(ROUTES):
            route_ns = route['metadata']['namespace']
            for ref in (route.get('spec') or {}).get('parentRefs') or []:
                group, kind, ns, name, section, port = parent_key(ref, route_ns)
                if (group, kind, ns, name) != (GROUP, 'Gateway', gw_ns, gw_name):
                    continue
                for listener in self._listeners_for(gateway, section, port):
                    if self._admits(listener, gw_ns, route_ns) and self.reject is None:
                        out[listener['name']] = out.get(listener['name'], 0) + 1
        return out

    # ---- HTTPRoute ------------------------------------------------------------------------------
    @staticmethod
    def _listeners_for(gateway, section, port):
        return [
            item
            for item in (gateway.get('spec') or {}).get('listeners') or []
            if (section is None or item.get('name') == section) and (port is None or item.get('port') == port)
        ]

    @staticmethod
    def _admits(listener, gateway_namespace, route_namespace):
        allowed = ((listener.get('allowedRoutes') or {}).get('namespaces') or {}).get('from', 'Same')
        return (
            allowed == 'All'
            or (allowed == 'Same' and gateway_namespace == route_namespace)
            or (allowed == 'Selector')
        )  # a namespace selector admits every namespace here (not simulated)

    def _accepted(self, route, gateway, section, port):
        if self.reject is not None:
            return 'False', self.reject, 'the kubesim gateway is set to reject routes'
        listeners = self._listeners_for(gateway, section, port)
        if not listeners:
            return 'False', 'NoMatchingParent', "no listener matches the parentRef's sectionName and port"
        gw_ns, route_ns = gateway['metadata'].get('namespace'), route['metadata']['namespace']
        if not any(self._admits(item, gw_ns, route_ns) for item in listeners):
            return 'False', 'NotAllowedByListeners', 'no listener allows routes from this namespace'
        return 'True', 'Accepted', 'Accepted'

    def _resolved(self, route):
        route_ns = route['metadata']['namespace']
        for rule in (route.get('spec') or {}).get('rules') or []:
            for ref in rule.get('backendRefs') or []:
                if ref.get('group', '') != '' or ref.get('kind', 'Service') != 'Service':
                    return (
                        'False',
                        'InvalidKind',
                        f'backendRef {ref.get("name")}: only core Services are supported',
                    )
                if (ref.get('namespace') or route_ns) != route_ns:
                    return (
                        'False',
                        'RefNotPermitted',
                        (
                            f'backendRef {ref.get("name")} in namespace '
                            f'{ref.get("namespace")}: no ReferenceGrant allows it'
                        ),
                    )
                if self.store.get(SERVICES, route_ns, ref.get('name')) is None:
                    return 'False', 'BackendNotFound', f'Service "{ref.get("name")}" not found'
        return 'True', 'ResolvedRefs', 'Resolved all the Object references for the Route'

    def _sync_route(self, namespace, name):
        route = self.store.get(ROUTES, namespace, name)
        if route is None or route['metadata'].get('deletionTimestamp'):
            self._program(namespace, name, None)
            return
        generation = route['metadata'].get('generation', 1)
        status = dict(route.get('status') or {})
        old_parents = status.get('parents') or []
        mine_before = {
            parent_key(p.get('parentRef') or {}, namespace): p
            for p in old_parents
            if p.get('controllerName') == self.controller_name
        }
        parents = [p for p in old_parents if p.get('controllerName') != self.controller_name]
        accepted_any = False
        resolved = self._resolved(route)
        for ref in (route.get('spec') or {}).get('parentRefs') or []:
            group, kind, ns, gw_name, section, port = key = parent_key(ref, namespace)
            if (group, kind) != (GROUP, 'Gateway'):
                continue
            gateway = self.store.get(GATEWAYS, ns, gw_name)
            if not self._gateway_ours(gateway):
                continue
            accepted = self._accepted(route, gateway, section, port)
            accepted_any = accepted_any or accepted[0] == 'True'
            before = (mine_before.get(key) or {}).get('conditions')
            parents.append(
                {
                    'parentRef': ref,
                    'controllerName': self.controller_name,
                    'conditions': [
                        _condition('Accepted', *accepted, generation, before),
                        _condition('ResolvedRefs', *resolved, generation, before),
                    ],
                }
            )
        if parents != old_parents and not _parents_same(old_parents, parents):
            self._write_status(ROUTES, route, dict(status, parents=parents))
        self._program(namespace, name, route if accepted_any else None)
        for ref in (route.get('spec') or {}).get('parentRefs') or []:
            _, _, ns, gw_name, _, _ = parent_key(ref, namespace)
            gateway = self.store.get(GATEWAYS, ns, gw_name)
            if self._gateway_ours(gateway):
                self._sync_gateway(ns, gw_name)

    # ---- the simulated data plane ---------------------------------------------------------------
    def _program(self, namespace, name, route):
        key = (namespace, name)
        if route is None:
            if self.programmed.pop(key, None) is not None:
                self._record(namespace, name)
            return
        rules = []
        for rule in route['spec'].get('rules') or []:
            rules.append(
                {
                    'name': rule.get('name'),
                    'matches': rule.get('matches') or [],
                    'backends': [
                        (ref['name'], ref.get('weight', 1))
                        for ref in rule.get('backendRefs') or []
                        if ref.get('group', '') == '' and ref.get('kind', 'Service') == 'Service'
                    ],
                }
            )
        programmed = {'generation': route['metadata'].get('generation', 1), 'rules': rules}
        if self.programmed.get(key) != programmed:
            self.programmed[key] = programmed
            self._record(namespace, name)

    def _endpoints_changed(self, namespace, service):
        for (ns, name), programmed in list(self.programmed.items()):
            if ns == namespace and any(
                b == service for rule in programmed['rules'] for b, _ in rule['backends']
            ):
                self._record(ns, name)

    def ready_endpoints(self, namespace, service):
        """Ready endpoints of a Service, from its EndpointSlices."""
        count = 0
        for piece in self.store.list(SLICES, namespace):
            if (piece['metadata'].get('labels') or {}).get(SERVICE_NAME_LABEL) != service:
                continue
            count += sum(
                1
                for ep in piece.get('endpoints') or []
                if (ep.get('conditions') or {}).get('ready', True) is not False
            )
        return count

    def shares(self, namespace, name):
        """Per rule of the programmed route, the fraction of its requests each backend would get
        (`'503'`: a backend without ready endpoints, `'500'`: one that does not resolve or all weights 0);
        None when the route is not programmed (no gateway accepted it)."""
        programmed = self.programmed.get((namespace, name))
        if programmed is None:
            return None
        out = []
        for rule in programmed['rules']:
            total = sum(weight for _, weight in rule['backends'])
            shares = {backend: 0.0 for backend, _ in rule['backends']}
            if total == 0:
                shares[INVALID_BACKEND] = 1.0
            for backend, weight in rule['backends']:
                if not total or not weight:
                    continue
                if self.store.get(SERVICES, namespace, backend) is None:
                    where = INVALID_BACKEND
                elif self.ready_endpoints(namespace, backend) == 0:
                    where = NO_ENDPOINTS
                else:
                    where = backend
                shares[where] = shares.get(where, 0.0) + weight / total
            out.append({'name': rule['name'], 'matches': rule['matches'], 'shares': shares})
        return out

    def _record(self, namespace, name):
        programmed = self.programmed.get((namespace, name))
        entry = {
            't': self.clock(),
            'namespace': namespace,
            'route': name,
            'generation': programmed['generation'] if programmed else None,
            'shares': self.shares(namespace, name),
        }
        last = next(
            (e for e in reversed(self.log) if (e['namespace'], e['route']) == (namespace, name)), None
        )
        if last is None or (last['generation'], last['shares']) != (entry['generation'], entry['shares']):
            self.log.append(entry)


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


def traffic_log(log, namespace, route):
    """The entries of `GatewayController.log` for one route: [(t, generation, shares), ...]."""
    return [
        (e['t'], e['generation'], e['shares'])
        for e in log
        if (e['namespace'], e['route']) == (namespace, route)
    ]

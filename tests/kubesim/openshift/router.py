"""An OpenShift router stand-in (the ingress controller `default`) and its simulated data plane.

What the router writes (openshift/router `pkg/router/controller/host_admitter.go`, `status.go`):

- every route gets one `status.ingress[]` entry of this router: `host` (the spec's, or
  `<subdomain>.<domain>` for a route asking only for a subdomain), `routerName`, `wildcardPolicy`,
  `routerCanonicalHostname` and the condition `Admitted` with `lastTransitionTime` (whole seconds);
  entries of other routers are kept;
- `Admitted` False with reason `HostAlreadyClaimed` when an older route (creationTimestamp, then
  uid: RouteLessThan) holds the host: from another namespace ("a route in another namespace holds
  host H"), or from the same namespace with the same path ("route NS/NAME has host H"); a route
  older than the holder takes the host and the holder is rejected in turn (its traffic stops);
- the status is written only when the entry would change: its host, wildcard policy, canonical
  hostname, or the condition's type, status, reason or message (status.go
  recordIngressCondition). A new spec the router admits as it admitted the last one (a weight
  change) writes nothing: the route has no observedGeneration and nothing in its status says which
  spec the router judged. What a client can rely on: admission depends only on the host, path,
  wildcard policy, namespace and age of routes (and on the route's own validity), so an admitted
  route whose entry's `host` is the spec's stays admitted through a change of its backends; a
  change that makes it refused is written (False, with a new lastTransitionTime).

`set_reject(reason)` makes it refuse every route (`Admitted` False with that reason, as the host
admitter's `RouteNotAdmitted` when its admission function refuses one), and `set_reject(None)`
judges them again.

The router judges a route `delay` seconds after its change (changes within it coalesce), as a
router's resync and HAProxy's reload take a while; from then on the route's backends, as they were,
are what the data plane serves (`shares`) until it is judged again, rejected or deleted. A route
rejected for its host is judged again when the holder lets the host go (a real router does at its
next resync).

The data plane (openshift/router `pkg/router/template/router.go` calculateServiceWeights, the
RouteSpec documentation): each backend gets weight / (sum of the weights of the backends that have
ready endpoints); weight 0 sends nothing; a backend whose Service has no ready endpoint has no
servers in HAProxy, so its part goes to the others; when no backend with a weight above 0 has an
endpoint (all weights 0 included) every request is answered 503. The per-endpoint integer weights
HAProxy is given (a rounding of these fractions) are not modelled. `log` keeps every change of the
shares with its time.
"""

import asyncio
import time
from datetime import datetime, timezone

from ..machinery.errors import ApiError
from .validation import DOMAIN, ROUTES

SERVICES = '/services'
SLICES = 'discovery.k8s.io/endpointslices'
SERVICE_NAME_LABEL = 'kubernetes.io/service-name'
ROUTER_NAME = 'default'
CANONICAL_HOSTNAME = f'router-default.{DOMAIN}'
NO_ENDPOINTS = '503'


def _now():
    return datetime.now(timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')


def _age(route):
    meta = route['metadata']
    return (meta.get('creationTimestamp') or '', meta.get('uid') or '')


class RouterController:
    def __init__(self, store, *, delay=0.0, name=ROUTER_NAME, canonical_hostname=CANONICAL_HOSTNAME,
                 domain=DOMAIN, clock=time.monotonic):
        self.store = store
        self.delay = float(delay)
        self.name = name
        self.canonical_hostname = canonical_hostname
        self.domain = domain
        self.clock = clock
        # None: judge routes by their hosts; a reason (e.g. 'RouteNotAdmitted'): refuse every route.
        self.reject = None
        self.claims = {}  # (namespace, name) -> (host, path, age) of the admitted routes
        self.programmed = {}  # (namespace, name) -> {'generation', 'backends': [(service, weight)]}
        self.log = []  # {'t', 'namespace', 'route', 'generation', 'shares'}
        self._pending = set()
        self._waiting = set()

    def attach(self):
        self.store.listeners.append(self.observe)
        return self

    # ---- events ------------------------------------------------------------------------------------
    def observe(self, event_type, resource, obj):
        meta = obj['metadata']
        if resource == ROUTES:
            if event_type == 'DELETED':
                self.store.defer(self._gone, meta.get('namespace'), meta['name'])
            else:
                self._queue((meta.get('namespace'), meta['name']))
        elif resource == SLICES or (resource == SERVICES and event_type in ('ADDED', 'DELETED')):
            labels = meta.get('labels') or {}
            service = meta['name'] if resource == SERVICES else labels.get(SERVICE_NAME_LABEL)
            if service:
                self.store.defer(self._endpoints_changed, meta.get('namespace'), service)

    def set_reject(self, reason=None):
        """Refuse every route with ``reason`` from now on (None: judge them by their hosts again);
        every route is judged again at once."""
        self.reject = reason
        for route in sorted(self.store.list(ROUTES), key=_age):  # the oldest claim their hosts first
            self._judge(route['metadata']['namespace'], route['metadata']['name'])

    def _queue(self, key):
        if self.delay <= 0:
            self._pending.add(key)
            self.store.defer(self._flush)
        elif key not in self._waiting:
            self._waiting.add(key)
            asyncio.get_running_loop().call_later(self.delay, self._ripe, key)

    def _ripe(self, key):
        self._waiting.discard(key)
        self._pending.add(key)
        self._flush()

    def _flush(self):
        pending, self._pending = self._pending, set()
        for namespace, name in sorted(pending):
            if (namespace, name) not in self._waiting:
                self._judge(namespace, name)

    def _gone(self, namespace, name):
        claim = self.claims.pop((namespace, name), None)
        self._program(namespace, name, None)
        if claim is not None:
            self._release(claim[0])

    def _release(self, host):
        """Judge again the routes refused for ``host`` (the oldest first)."""
        refused = []
        for route in self.store.list(ROUTES):
            key = (route['metadata']['namespace'], route['metadata']['name'])
            if key not in self.claims and self._host(route) == host:
                refused.append((_age(route), key))
        for _age_key, key in sorted(refused):
            self._judge(*key)

    # ---- admission ---------------------------------------------------------------------------------
    def _host(self, route):
        spec = route.get('spec') or {}
        if spec.get('host'):
            return spec['host']
        return f'{spec["subdomain"]}.{self.domain}' if spec.get('subdomain') else ''

    def _verdict(self, route, key, host, path, age):
        """(True, None) or (False, message); the younger holders this route displaces."""
        displaced = []
        for other, (other_host, other_path, other_age) in sorted(self.claims.items()):
            if other == key or other_host != host:
                continue
            if other[0] == key[0] and other_path != path:
                continue  # one namespace may split a host by path
            if other_age < age:
                if other[0] != key[0]:
                    return (False, f'a route in another namespace holds host {host}'), []
                return (False, f'route {other[0]}/{other[1]} has host {host}'), []
            displaced.append(other)
        return (True, None), displaced

    def _judge(self, namespace, name):
        route = self.store.get(ROUTES, namespace, name)
        if route is None or route['metadata'].get('deletionTimestamp'):
            self._gone(namespace, name)
            return
        key, host = (namespace, name), self._host(route)
        path, age = (route.get('spec') or {}).get('path') or '', _age(route)
        before = self.claims.get(key)
        if self.reject is not None:
            self.claims.pop(key, None)
            self._write(route, 'False', self.reject, 'the kubesim router is set to reject routes')
            self._program(namespace, name, None)
            return
        (admitted, message), displaced = self._verdict(route, key, host, path, age)
        for other in displaced:
            self.claims.pop(other, None)
            self._program(*other, None)
            text = (f'route {namespace}/{name} has host {host}, blocking {host}' if other[0] == namespace
                    else f'a route in another namespace holds host {host}')
            self._write(self.store.get(ROUTES, *other), 'False', 'HostAlreadyClaimed', text)
        if admitted:
            self.claims[key] = (host, path, age)
            self._write(route, 'True', None, None)
            self._program(namespace, name, route)
        else:
            self.claims.pop(key, None)
            self._write(route, 'False', 'HostAlreadyClaimed', message)
            self._program(namespace, name, None)
        if before is not None and before[0] != host:
            self._release(before[0])

    def _write(self, route, status, reason, message):
        """status.go recordIngressCondition: this router's entry, written only when it changes."""
        if route is None:
            return
        host = self._host(route)
        policy = (route.get('spec') or {}).get('wildcardPolicy') or 'None'
        condition = {'type': 'Admitted', 'status': status}
        if reason:
            condition['reason'] = reason
        if message:
            condition['message'] = message
        ingress = [dict(item) for item in (route.get('status') or {}).get('ingress') or []]
        mine = next((item for item in ingress if item.get('routerName') == self.name), None)
        if mine is not None:
            old = next((c for c in mine.get('conditions') or [] if c.get('type') == 'Admitted'), None)
            same = old is not None and {k: v for k, v in old.items() if k != 'lastTransitionTime'} == (
                condition)
            entry = (mine.get('host'), mine.get('wildcardPolicy'), mine.get('routerCanonicalHostname'))
            if same and entry == (host, policy, self.canonical_hostname):
                return
            others = [c for c in mine.get('conditions') or [] if c.get('type') != 'Admitted']
            mine.update(host=host, wildcardPolicy=policy, routerCanonicalHostname=self.canonical_hostname,
                        conditions=others + [dict(condition, lastTransitionTime=_now())])
        else:
            ingress.append({'host': host, 'routerName': self.name,
                            'conditions': [dict(condition, lastTransitionTime=_now())],
                            'wildcardPolicy': policy, 'routerCanonicalHostname': self.canonical_hostname})
        meta = route['metadata']
        body = {'metadata': {'name': meta['name'], 'namespace': meta['namespace'],
                             'resourceVersion': meta['resourceVersion']},
                'status': dict(route.get('status') or {}, ingress=ingress)}
        try:
            self.store.update(ROUTES, body, subresource='status')
        except ApiError:
            # Changed or deleted meanwhile: that change queued the route again (status.go retries
            # on a conflict when the update notification arrives).
            pass

    # ---- the simulated data plane ------------------------------------------------------------------
    def _program(self, namespace, name, route):
        key = (namespace, name)
        if route is None:
            if self.programmed.pop(key, None) is not None:
                self._record(namespace, name)
            return
        spec = route.get('spec') or {}
        refs = [spec.get('to') or {}] + list(spec.get('alternateBackends') or [])
        programmed = {
            'generation': route['metadata'].get('generation', 1),
            'backends': [(ref.get('name'), ref.get('weight', 100)) for ref in refs
                         if ref.get('kind', 'Service') == 'Service'],
        }
        if self.programmed.get(key) != programmed:
            self.programmed[key] = programmed
            self._record(namespace, name)

    def _endpoints_changed(self, namespace, service):
        for (ns, name), programmed in list(self.programmed.items()):
            if ns == namespace and any(b == service for b, _w in programmed['backends']):
                self._record(ns, name)

    def ready_endpoints(self, namespace, service):
        """Ready endpoints of a Service, from its EndpointSlices (0 when it does not exist)."""
        if self.store.get(SERVICES, namespace, service) is None:
            return 0
        count = 0
        for piece in self.store.list(SLICES, namespace):
            if (piece['metadata'].get('labels') or {}).get(SERVICE_NAME_LABEL) != service:
                continue
            count += sum(1 for ep in piece.get('endpoints') or []
                         if (ep.get('conditions') or {}).get('ready', True) is not False)
        return count

    def shares(self, namespace, name):
        """One entry (a Route has one set of backends, named None): the fraction of the route's
        requests each backend would get, '503' for those answered 503; None when no router admitted
        the route."""
        programmed = self.programmed.get((namespace, name))
        if programmed is None:
            return None
        live = {b for b, w in programmed['backends'] if w and self.ready_endpoints(namespace, b) > 0}
        total = sum(w for b, w in programmed['backends'] if b in live)
        shares = {b: 0.0 for b, _w in programmed['backends']}
        if not total:
            shares[NO_ENDPOINTS] = 1.0
        else:
            for backend, weight in programmed['backends']:
                if backend in live:
                    shares[backend] += weight / total
        return [{'name': None, 'shares': shares}]

    def _record(self, namespace, name):
        programmed = self.programmed.get((namespace, name))
        entry = {'t': self.clock(), 'namespace': namespace, 'route': name,
                 'generation': programmed['generation'] if programmed else None,
                 'shares': self.shares(namespace, name)}
        mine = [e for e in self.log if (e['namespace'], e['route']) == (namespace, name)]
        last = mine[-1] if mine else None
        if last is None or (last['generation'], last['shares']) != (entry['generation'], entry['shares']):
            self.log.append(entry)


def traffic_log(log, namespace, route):
    """The entries of `RouterController.log` for one route: [(t, generation, shares), ...]."""
    return [(e['t'], e['generation'], e['shares'])
            for e in log if (e['namespace'], e['route']) == (namespace, route)]

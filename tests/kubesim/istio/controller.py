"""A stand-in for istiod and its sidecars' data plane, for VirtualServices and DestinationRules.

What istiod does with them, as istio/istio reads them: a VirtualService's `http[]` routes become
the proxies' routes (`pilot/pkg/networking/core/route/route.go`): a route with one destination
sends it everything whatever its weight; with several, each destination gets weight / the sum of
the weights (`WeightedCluster`; a destination of weight 0 is left out), an omitted weight being 0.
A destination's `host` is resolved as `pilot/pkg/model/config.go` ResolveShortnameToFQDN does: a
name without a dot is `<name>.<namespace of the VirtualService>.svc.cluster.local`; a name with a
dot is taken as written, so a Service is reached by its short name or its full name
`<name>.<namespace>.svc.cluster.local` (`name.namespace` names no Service). A `subset` is the
Service's endpoints whose pods carry the labels of that subset in the DestinationRule of the
host (`pilot/pkg/model/push_context.go`: the rule in the client's namespace first, then the
Service's own); its `host` resolves the same way in the rule's namespace.

kubesim moves no packets: `shares` says which fraction of a route's requests each destination
would get, from the configuration programmed and the ready endpoints in the Services'
EndpointSlices (what kubesim's EndpointSlice controller wrote, with the pods' labels read for
subsets). A destination with no ready endpoint is answered 503 by the proxy ("no healthy
upstream"); one whose host names no Service, or whose subset no DestinationRule defines, has no
cluster: Envoy answers it 503 too (NC, `cluster_not_found_response_code`'s default), kept apart
here as `'500'` so a test tells a mistake in the configuration from a track without endpoints.

Programming takes `delay` seconds after a change of a VirtualService's generation or of a
DestinationRule (changes meanwhile join it), as istiod debounces and pushes to the proxies; the
endpoints are read when the shares are asked. `log` keeps every change of the shares with its
time. With `reconciled`, the status feature of istiod is on (istio/istio
`pilot/pkg/status/distribution`): once a generation is programmed the VirtualService gets
`status.conditions[type=Reconciled]` True ("1/1 proxies up to date.") with that
`observedGeneration`, and `status.observedGeneration`.
"""

import asyncio
import time

from ..machinery.clock import now_rfc3339
from ..machinery.errors import ApiError

GROUP = 'networking.istio.io'
VIRTUAL_SERVICES = f'{GROUP}/virtualservices'
DESTINATION_RULES = f'{GROUP}/destinationrules'
SERVICES = '/services'
PODS = '/pods'
SLICES = 'discovery.k8s.io/endpointslices'
SERVICE_NAME_LABEL = 'kubernetes.io/service-name'
DOMAIN = 'svc.cluster.local'
NO_ENDPOINTS, NO_CLUSTER = '503', '500'


def resolve(host, namespace):
    """A destination or rule host as istiod resolves it: (namespace, Service name) of a
    Kubernetes Service's name, None for any other host."""
    if not host:
        return None
    if '.' not in host:
        return namespace, host
    parts = host.split('.')
    if len(parts) == 5 and '.'.join(parts[2:]) == DOMAIN and parts[0] and parts[1]:
        return parts[1], parts[0]
    return None


class IstioController:
    def __init__(self, store, *, delay=0.0, reconciled=False, clock=time.monotonic):
        self.store = store
        self.delay = float(delay)
        self.reconciled = bool(reconciled)
        self.clock = clock
        # (namespace, name) -> {'generation', 'routes': [{'name', 'matches', 'destinations':
        # [(service key or None, subset, weight)]}], 'subsets': {(ns, service, subset): labels}}
        self.programmed = {}
        self.log = []  # {'t', 'namespace', 'route', 'generation', 'shares'}
        self._pending = set()
        self._waiting = set()

    # ---- wiring ---------------------------------------------------------------------------------
    def attach(self):
        self.store.listeners.append(self.observe)

    def observe(self, event_type, resource, obj):
        meta = obj['metadata']
        namespace = meta.get('namespace')
        if resource == VIRTUAL_SERVICES:
            programmed = self.programmed.get((namespace, meta['name']))
            if (
                event_type != 'MODIFIED'
                or programmed is None
                or programmed['generation'] != meta.get('generation')
                or meta.get('deletionTimestamp')
            ):
                self._queue(('vs', namespace, meta['name']))
        elif resource == DESTINATION_RULES:
            self._queue(('all', None, None))
        elif (resource == SERVICES and event_type in ('ADDED', 'DELETED')) or (
            resource in (SLICES, PODS) and any(ns == namespace for ns, _ in self.programmed)
        ):
            self.store.defer(self._endpoints_changed, namespace)

    def _queue(self, item):
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
        names = set()
        for what, namespace, name in pending:
            if what == 'vs':
                names.add((namespace, name))
            else:
                names.update(self.programmed)
                names.update(
                    (vs['metadata']['namespace'], vs['metadata']['name'])
                    for vs in self.store.list(VIRTUAL_SERVICES)
                )
        for namespace, name in sorted(names):
            if ('vs', namespace, name) in self._waiting:
                continue  # changed since: programmed when its own delay is over
            self._program(namespace, name)

    # ---- programming ----------------------------------------------------------------------------
    def destination_rule(self, client_namespace, service):
        """The DestinationRule of a Service's host seen from ``client_namespace``: the client's
        namespace first, then the Service's."""
        for namespace in dict.fromkeys((client_namespace, service[0])):
            for rule in self.store.list(DESTINATION_RULES, namespace):
                if resolve((rule.get('spec') or {}).get('host'), namespace) == service:
                    return rule
        return None

    def _program(self, namespace, name):
        key = (namespace, name)
        vs = self.store.get(VIRTUAL_SERVICES, namespace, name)
        if vs is None or vs['metadata'].get('deletionTimestamp'):
            if self.programmed.pop(key, None) is not None:
                self._record(namespace, name)
            return
        routes, subsets = [], {}
        for route in (vs.get('spec') or {}).get('http') or []:
            destinations = []
            for item in route.get('route') or []:
                destination = item.get('destination') or {}
                service = resolve(destination.get('host'), namespace)
                subset = destination.get('subset') or None
                destinations.append((service, destination.get('host'), subset, int(item.get('weight') or 0)))
                if service is not None and subset is not None:
                    rule = self.destination_rule(namespace, service)
                    found = [
                        s
                        for s in ((rule or {}).get('spec') or {}).get('subsets') or []
                        if s.get('name') == subset
                    ]
                    subsets[(*service, subset)] = dict(found[0].get('labels') or {}) if found else None
            routes.append(
                {'name': route.get('name'), 'matches': route.get('match') or [], 'destinations': destinations}
            )
        generation = vs['metadata'].get('generation', 1)
        programmed = {'generation': generation, 'routes': routes, 'subsets': subsets}
        if self.programmed.get(key) != programmed:
            self.programmed[key] = programmed
            self._record(namespace, name)
        if self.reconciled:
            self._write_reconciled(vs, generation)

    def _write_reconciled(self, vs, generation):
        status = dict(vs.get('status') or {})
        conditions = [c for c in status.get('conditions') or [] if c.get('type') != 'Reconciled']
        before = next((c for c in status.get('conditions') or [] if c.get('type') == 'Reconciled'), None)
        if before and before.get('status') == 'True' and before.get('observedGeneration') == generation:
            return
        now = now_rfc3339()
        conditions.append(
            {
                'type': 'Reconciled',
                'status': 'True',
                'lastProbeTime': now,
                'lastTransitionTime': now,
                'message': '1/1 proxies up to date.',
                'observedGeneration': generation,
            }
        )
        status.update(conditions=conditions, observedGeneration=generation)
        meta = {'name': vs['metadata']['name'], 'namespace': vs['metadata']['namespace']}
        try:
            self.store.update(VIRTUAL_SERVICES, {'metadata': meta, 'status': status}, subresource='status')
        except ApiError:
            pass  # gone meanwhile

    # ---- the simulated data plane ---------------------------------------------------------------
    def _endpoints_changed(self, namespace):
        for ns, name in list(self.programmed):
            programmed = self.programmed[(ns, name)]
            if any(
                d[0] is not None and d[0][0] == namespace
                for route in programmed['routes']
                for d in route['destinations']
            ):
                self._record(ns, name)

    def ready_endpoints(self, namespace, service, labels=None):
        """Ready endpoints of a Service from its EndpointSlices; with ``labels``, only those of
        pods carrying them."""
        count = 0
        for piece in self.store.list(SLICES, namespace):
            if (piece['metadata'].get('labels') or {}).get(SERVICE_NAME_LABEL) != service:
                continue
            for endpoint in piece.get('endpoints') or []:
                if (endpoint.get('conditions') or {}).get('ready', True) is False:
                    continue
                if labels is not None:
                    ref = endpoint.get('targetRef') or {}
                    pod = self.store.get(PODS, ref.get('namespace') or namespace, ref.get('name', ''))
                    pod_labels = ((pod or {}).get('metadata') or {}).get('labels') or {}
                    if ref.get('kind') != 'Pod' or any(pod_labels.get(k) != v for k, v in labels.items()):
                        continue
                count += 1
        return count

    def _where(self, programmed, service, subset):
        if service is None or self.store.get(SERVICES, *service) is None:
            return NO_CLUSTER
        labels = None
        if subset is not None:
            labels = programmed['subsets'].get((*service, subset))
            if labels is None:
                return NO_CLUSTER
        if self.ready_endpoints(service[0], service[1], labels) == 0:
            return NO_ENDPOINTS
        return f'{service[1]}/{subset}' if subset else service[1]

    def shares(self, namespace, name):
        """Per http route of the programmed VirtualService, the fraction of its requests each
        destination (`<service>` or `<service>/<subset>`) would get; `'503'` for a destination
        without ready endpoints, `'500'` for one without a cluster. None: not programmed."""
        programmed = self.programmed.get((namespace, name))
        if programmed is None:
            return None
        out = []
        for route in programmed['routes']:
            destinations = route['destinations']
            if len(destinations) == 1:
                weighted = [(destinations[0], 1)]
            else:
                weighted = [(d, d[3]) for d in destinations if d[3] > 0]
            total = sum(w for _, w in weighted)
            shares = {}
            for service, host, subset, _weight in destinations:
                key = service[1] if service else host
                shares.setdefault(f'{key}/{subset}' if subset else key, 0.0)
            for destination, weight in weighted:
                where = self._where(programmed, destination[0], destination[2])
                shares[where] = shares.get(where, 0.0) + weight / total
            out.append({'name': route['name'], 'matches': route['matches'], 'shares': shares})
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


def traffic_log(log, namespace, name):
    """The entries of `IstioController.log` for one VirtualService: [(t, generation, shares), ...]."""
    return [
        (e['t'], e['generation'], e['shares'])
        for e in log
        if (e['namespace'], e['route']) == (namespace, name)
    ]

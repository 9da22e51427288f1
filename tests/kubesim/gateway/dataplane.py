"""The simulated data plane of the gateway and the mesh: what a programmed route would do with its
requests.

A route the gateway or the mesh accepted is *programmed*: its rules as they were at that generation
are served until a later generation is accepted, or the route is rejected or deleted. kubesim moves
no packets: `shares` says which fraction of a rule's requests each backend would get, from the
programmed weights and the ready endpoints in the Services' EndpointSlices (what kubesim's
EndpointSlice controller wrote): each backendRef gets weight / (sum of the rule's weights); the
share of a backend whose Service has no ready endpoint is answered 503, of one that does not
resolve (no such Service, or a namespace the route may not reach) 500 (the specification: "requests
that would have been sent to an invalid backend MUST receive a 500", for GRPCRoute `UNAVAILABLE`,
answered here by the same '500'); a rule whose weights are all 0 answers every request 500. `log`
keeps every change of the shares (a new programmed generation, an endpoint change of a backend)
with its time, so a test can assert what traffic would have seen at every instant.

Routes are keyed by (kind, namespace, name): an HTTPRoute and a GRPCRoute may share a name. A mesh
route also records which clients it applies to (`routes_for`).
"""

SERVICES = '/services'
SLICES = 'discovery.k8s.io/endpointslices'
SERVICE_NAME_LABEL = 'kubernetes.io/service-name'
# The data plane's answers for requests it cannot send to a backend.
NO_ENDPOINTS, INVALID_BACKEND = '503', '500'


class DataPlane:
    """Mixed into the controller: `store` and `clock` are the controller's."""

    def _plane_init(self):
        # (kind, namespace, route) -> {'generation', 'rules': [...], 'mesh': [(ns, service, clients)]}
        self.programmed = {}
        self.log = []  # {'t', 'kind', 'namespace', 'route', 'generation', 'shares'}

    def _program(self, kind, namespace, name, route, allowed=None, mesh=()):
        """Program ``route`` (None: no parent accepted it, or it is gone). ``allowed``: the
        namespaces its backendRefs may name (the route's own, and for a mesh consumer route the
        Service's); ``mesh``: the accepted Service parents as (namespace, name, clients), clients
        None for every client or the one namespace a consumer route serves."""
        key = (kind, namespace, name)
        if route is None:
            if self.programmed.pop(key, None) is not None:
                self._record(key)
            return
        allowed = allowed or {namespace}
        rules = []
        for rule in route['spec'].get('rules') or []:
            backends = []
            for ref in rule.get('backendRefs') or []:
                if ref.get('group', '') != '' or ref.get('kind', 'Service') != 'Service':
                    continue  # not a Service: no share of its own (ResolvedRefs says InvalidKind)
                ns = ref.get('namespace') or namespace
                backends.append((ns, ref['name'], ref.get('weight', 1), ns in allowed))
            rules.append(
                {'name': rule.get('name'), 'matches': rule.get('matches') or [], 'backends': backends}
            )
        programmed = {
            'generation': route['metadata'].get('generation', 1),
            'rules': rules,
            'mesh': sorted(mesh, key=lambda m: (m[0], m[1], m[2] or '')),
        }
        if self.programmed.get(key) != programmed:
            self.programmed[key] = programmed
            self._record(key)

    def _endpoints_changed(self, namespace, service):
        for key, programmed in list(self.programmed.items()):
            if any(
                (ns, name) == (namespace, service)
                for rule in programmed['rules']
                for ns, name, _, _ in rule['backends']
            ):
                self._record(key)

    def _backends_in(self, namespace):
        return any(
            ns == namespace
            for programmed in self.programmed.values()
            for rule in programmed['rules']
            for ns, _, _, _ in rule['backends']
        )

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

    def shares(self, namespace, name, kind='HTTPRoute'):
        """Per rule of the programmed route, the fraction of its requests each backend would get,
        keyed by the Service's name (`'503'`: a backend without ready endpoints, `'500'`: one that
        does not resolve or all weights 0); None when the route is not programmed (no gateway or
        mesh accepted it)."""
        programmed = self.programmed.get((kind, namespace, name))
        if programmed is None:
            return None
        out = []
        for rule in programmed['rules']:
            total = sum(weight for _, _, weight, _ in rule['backends'])
            shares = {backend: 0.0 for _, backend, _, _ in rule['backends']}
            if total == 0:
                shares[INVALID_BACKEND] = 1.0
            for ns, backend, weight, permitted in rule['backends']:
                if not total or not weight:
                    continue
                if not permitted or self.store.get(SERVICES, ns, backend) is None:
                    where = INVALID_BACKEND
                elif self.ready_endpoints(ns, backend) == 0:
                    where = NO_ENDPOINTS
                else:
                    where = backend
                shares[where] = shares.get(where, 0.0) + weight / total
            out.append({'name': rule['name'], 'matches': rule['matches'], 'shares': shares})
        return out

    def routes_for(self, service_namespace, service, client_namespace, kind='HTTPRoute'):
        """The programmed mesh routes of ``kind`` attached to the Service that apply to a client in
        ``client_namespace``: producer routes (in the Service's namespace) apply to every client,
        consumer routes (elsewhere) to their own namespace's clients. [(namespace, name), ...]."""
        out = []
        for (route_kind, ns, name), programmed in sorted(self.programmed.items()):
            if route_kind != kind:
                continue
            if any(
                (parent_ns, parent) == (service_namespace, service) and clients in (None, client_namespace)
                for parent_ns, parent, clients in programmed['mesh']
            ):
                out.append((ns, name))
        return out

    def _record(self, key):
        kind, namespace, name = key
        programmed = self.programmed.get(key)
        entry = {
            't': self.clock(),
            'kind': kind,
            'namespace': namespace,
            'route': name,
            'generation': programmed['generation'] if programmed else None,
            'shares': self.shares(namespace, name, kind),
        }
        last = next((e for e in reversed(self.log) if (e['kind'], e['namespace'], e['route']) == key), None)
        if last is None or (last['generation'], last['shares']) != (entry['generation'], entry['shares']):
            self.log.append(entry)


def traffic_log(log, namespace, route, kind='HTTPRoute'):
    """The entries of the data plane's `log` for one route: [(t, generation, shares), ...]."""
    return [
        (e['t'], e['generation'], e['shares'])
        for e in log
        if (e['kind'], e['namespace'], e['route']) == (kind, namespace, route)
    ]

"""The route kinds the gateway and the mesh serve, and how a route's parents and backends are
judged, as the Gateway API specifies (kubernetes-sigs/gateway-api `apis/v1/shared_types.go`:
ParentReference, RouteParentStatus, the route condition types and reasons).

Two kinds of parent: a Gateway (`group: gateway.networking.k8s.io`, `kind: Gateway`, the defaults)
and, for the mesh (GAMMA, standard since v1.1, the site's docs/mesh/mesh-overview.md), a Service
(`group: ""`, `kind: Service`: "Group must be explicitly set to the empty string"). A route in the
Service's namespace is a *producer* route and applies to every client of the Service; one in another
namespace is a *consumer* route and applies only to clients in the route's namespace.
"""

GROUP = 'gateway.networking.k8s.io'
KINDS = {'HTTPRoute': f'{GROUP}/httproutes', 'GRPCRoute': f'{GROUP}/grpcroutes'}
KIND_OF = {resource: kind for kind, resource in KINDS.items()}
SERVICES = '/services'
MESH_CONTROLLER_NAME = 'kubesim.io/mesh'


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


def is_gateway(key):
    return key[:2] == (GROUP, 'Gateway')


def is_service(key):
    return key[:2] == ('', 'Service')


def mesh_accepted(store, key, reject):
    """`Accepted` of a route for one Service parent: (status, reason, message). False with
    `NoMatchingParent` when the Service does not exist or has no port of the parentRef's
    `sectionName` (a port name) or `port`; False with the reject reason in reject mode."""
    _, _, namespace, name, section, port = key
    if reject is not None:
        return 'False', reject, 'the kubesim mesh is set to reject routes'
    service = store.get(SERVICES, namespace, name)
    if service is None:
        return 'False', 'NoMatchingParent', f'Service "{namespace}/{name}" not found'
    ports = (service.get('spec') or {}).get('ports') or []
    if not any(
        (section is None or p.get('name') == section) and (port is None or p.get('port') == port)
        for p in ports
    ):
        return 'False', 'NoMatchingParent', "no port of the Service matches the parentRef's section or port"
    return 'True', 'Accepted', 'Accepted'


def resolved(store, route, allowed):
    """`ResolvedRefs` of a route: (status, reason, message). ``allowed``: the namespaces its
    backendRefs may name without a ReferenceGrant (ReferenceGrants are not simulated): the route's
    own and, for a mesh consumer route, its Service parent's."""
    route_ns = route['metadata']['namespace']
    for rule in (route.get('spec') or {}).get('rules') or []:
        for ref in rule.get('backendRefs') or []:
            if ref.get('group', '') != '' or ref.get('kind', 'Service') != 'Service':
                return 'False', 'InvalidKind', f'backendRef {ref.get("name")}: only Services are supported'
            namespace = ref.get('namespace') or route_ns
            if namespace not in allowed:
                return (
                    'False',
                    'RefNotPermitted',
                    f'backendRef {ref.get("name")} in namespace {namespace}: no ReferenceGrant allows it',
                )
            if store.get(SERVICES, namespace, ref.get('name')) is None:
                return 'False', 'BackendNotFound', f'Service "{ref.get("name")}" not found'
    return 'True', 'ResolvedRefs', 'Resolved all the Object references for the Route'

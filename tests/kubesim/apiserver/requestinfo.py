"""What a request addresses, from its path (apiserver pkg/endpoints/request/requestinfo.go and
the routes the installer registers): the version, a discovery or OpenAPI document, or a
resource (namespace, name, subresource, watch); a path nothing serves is a 404."""

from ..machinery.errors import ApiError
from . import discovery
from .registry import resources


class Route:
    """What a request addresses (one of: version, discovery, resource)."""

    def __init__(self, kind, *, resource=None, namespace=None, name=None, subresource=None,
                 watch=False, document=None, raw=False):
        self.kind = kind
        self.resource = resource
        self.namespace = namespace
        self.name = name
        self.subresource = subresource
        self.watch = watch
        self.document = document
        self.raw = raw  # a non-API document (WriteRawJSON: indented, no final newline)

    @property
    def target(self):
        if self.resource is None or self.name is None:
            return None
        return (self.resource.key, self.namespace or '', self.name)


class PlainNotFound(ApiError):
    """A path no handler serves: Go's http.NotFound, a plain-text `404 page not found` (clients
    show it as NotFound, "the server could not find the requested resource")."""

    def __init__(self):
        super().__init__(404, 'NotFound', '404 page not found')


def _not_found_path(served_group_version=False):
    """404 for a path nothing serves. Under a served group-version's root (`/api/v1/...`,
    `/apis/apps/v1/...`) go-restful has no route and the API server's service error handler
    answers a NotFound Status with empty details; anywhere else the plain-text 404."""
    if not served_group_version:
        return PlainNotFound()
    return ApiError(404, 'NotFound', 'the server could not find the requested resource', {})


def parse_route(path, server_address, registry=None):
    """The Route of ``path`` among the resources of ``registry`` (the store's; the built-in
    resources when None)."""
    registry = registry or resources.BUILTIN
    segs = [s for s in path.split('/') if s]
    if not segs:
        paths = ['/api', '/api/v1', '/apis']
        for group, versions in registry.groups().items():
            paths += [f'/apis/{group}'] + [f'/apis/{group}/{v}' for v in versions]
        return Route('discovery', document={'paths': paths + ['/healthz', '/livez', '/readyz', '/version']},
                     raw=True)
    head = segs[0]
    if head == 'version' and len(segs) == 1:
        return Route('version')
    if head == 'openapi':
        # /openapi/v2 (openapi_v2.py) and /openapi/v3, /openapi/v3/{api/v1|apis/G/V}.
        if segs[1:] == ['v2']:
            return Route('openapi_v2')
        if segs[1:2] == ['v3']:
            if len(segs) == 2:
                return Route('discovery', document=discovery.openapi_v3_root(registry))
            gv = segs[2:]
            doc = None
            if gv[:1] == ['api'] and len(gv) == 2:
                doc = discovery.openapi_v3_document('', gv[1], registry)
            elif gv[:1] == ['apis'] and len(gv) == 3:
                doc = discovery.openapi_v3_document(gv[1], gv[2], registry)
            if doc is not None:
                return Route('discovery', document=doc)
        raise _not_found_path()
    if head == 'api':
        if len(segs) == 1:
            return Route('discovery', document=discovery.api_versions(server_address))
        group, version, rest = '', segs[1], segs[2:]
        if version != 'v1':
            raise _not_found_path()
    elif head == 'apis':
        if len(segs) == 1:
            return Route('discovery', document=discovery.api_group_list(registry))
        if len(segs) == 2:
            if segs[1] not in registry.groups():
                raise _not_found_path()
            return Route('discovery', document=discovery.api_group(segs[1], registry))
        group, version, rest = segs[1], segs[2], segs[3:]
        if version not in registry.groups().get(group, ()):
            raise _not_found_path()
    else:
        raise _not_found_path()
    if not rest:
        return Route('discovery', document=discovery.api_resource_list(group, version, registry))

    watch = False
    if rest[0] == 'watch':
        watch, rest = True, rest[1:]
    namespace = None
    if (len(rest) >= 3 and rest[0] == 'namespaces'
            and (res := registry.lookup(group, version, rest[2])) is not None and res.namespaced):
        namespace, rest = rest[1], rest[2:]
    if not rest or len(rest) > 3:
        raise _not_found_path(served_group_version=True)
    resource = registry.lookup(group, version, rest[0])
    if resource is None:
        raise _not_found_path(served_group_version=True)
    name = rest[1] if len(rest) > 1 else None
    subresource = rest[2] if len(rest) > 2 else None
    if resource.namespaced and namespace is None and name is not None:
        raise _not_found_path(served_group_version=True)
    if not resource.namespaced and namespace is not None:
        raise _not_found_path(served_group_version=True)
    if subresource is not None and subresource not in resource.subresources:
        raise _not_found_path(served_group_version=True)
    return Route('resource', resource=resource, namespace=namespace, name=name, subresource=subresource,
                 watch=watch)

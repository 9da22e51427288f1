"""The Gateway API mesh (GAMMA): an HTTPRoute whose parent is the Service <app> that clients call,
served and judged by kubesim's mesh stand-in; its first rule holds both track Services and a backend
the canary does not own, a second rule is of its own."""

from tests.support.routers.httproute import HTTPRouteCase, services
from tests.support.traffic import GW, route, service


class MeshHTTPRouteCase(HTTPRouteCase):
    router = 'mesh_httproute'
    rbac_doc = 'gateway-api-mesh.md'

    def build(self, kube, ns, app):
        services(kube, ns, app)
        kube.request('POST', '/api/v1/namespaces/%s/services' % ns, service(app, {'app': app}, ns))
        body = route(app, ns)
        body['spec']['parentRefs'] = [{'group': '', 'kind': 'Service', 'name': app, 'port': 80}]
        kube.request('POST', GW.format(ns=ns) + '/httproutes', body)

    # What the failure says when the mesh refuses the route.
    refusal = 'Service default/web (mesh): Accepted is False (reason NoMatchingParent'

    def reject(self, sim):
        sim.set_gateway(reject='NoMatchingParent')  # kubesim's reject mode refuses mesh routes too

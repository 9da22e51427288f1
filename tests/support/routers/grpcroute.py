"""The Gateway API GRPCRoute on the Gateway of the class kubesim: its first rule (a method match)
holds both track Services and a backend the canary does not own, a second rule is of its own."""

from tests.support.routers.httproute import HTTPRouteCase, services
from tests.support.traffic import GW, gateway


def grpc_route(app, ns):
    def ref(name, weight=None):
        out = {'name': name, 'port': 80}
        if weight is not None:
            out['weight'] = weight
        return out

    return {
        'apiVersion': 'gateway.networking.k8s.io/v1', 'kind': 'GRPCRoute',
        'metadata': {'name': app, 'namespace': ns},
        'spec': {'parentRefs': [{'name': 'public'}], 'rules': [
            {'name': 'main', 'matches': [{'method': {'service': 'shop.Cart'}}],
             'backendRefs': [ref(app + '-stable', 100), ref(app + '-canary', 0), ref(app + '-legacy', 0)]},
            {'name': 'static', 'matches': [{'method': {'service': 'shop.Catalog'}}],
             'backendRefs': [ref(app + '-stable')]},
        ]},
    }


class GRPCRouteCase(HTTPRouteCase):
    router = 'grpcroute'
    kind = 'GRPCRoute'
    rbac_doc = 'grpcroute.md'

    def build(self, kube, ns, app):
        services(kube, ns, app)
        gw = GW.format(ns=ns)
        if not any(g['metadata']['name'] == 'public' for g in kube.request('GET', gw + '/gateways')['items']):
            kube.request('POST', gw + '/gateways', gateway(ns))
        kube.request('POST', gw + '/grpcroutes', grpc_route(app, ns))

    def path(self, ns, app):
        return GW.format(ns=ns) + '/grpcroutes/' + app

    def fault_target(self, ns, app):
        return 'gateway.networking.k8s.io/grpcroutes/%s/%s' % (ns, app)

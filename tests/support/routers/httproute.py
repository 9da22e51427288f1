"""The Gateway API HTTPRoute at the edge: a Gateway of the class kubesim, the route's first rule with
both Services and a backend the canary does not own, a second rule of its own."""

from tests.support.traffic import GW, gateway, route, service

TRACK = 'track'


def services(kube, ns, app, selector_of=None):
    """The Services <app>-stable and <app>-canary, one per track, and <app>-legacy of another app."""
    path = '/api/v1/namespaces/%s/services' % ns
    for name, track in ((app + '-stable', 'stable'), (app + '-canary', 'canary')):
        kube.request('POST', path, service(name, {'app': app, TRACK: track}, ns))
    kube.request('POST', path, service(app + '-legacy', {'app': 'legacy'}, ns))


class HTTPRouteCase:
    router = 'httproute'
    kind = 'HTTPRoute'
    sim_options = {'gateway_api': True, 'gateway_delay': 0.05}
    header_route = True
    stand_in = True
    rbac_doc = 'gateway-api.md'

    def build(self, kube, ns, app):
        services(kube, ns, app)
        gw = GW.format(ns=ns)
        if not any(g['metadata']['name'] == 'public' for g in kube.request('GET', gw + '/gateways')['items']):
            kube.request('POST', gw + '/gateways', gateway(ns))
        kube.request('POST', gw + '/httproutes', route(app, ns))

    def traffic(self, app):
        return {'router': self.router, 'route': {'name': app}, 'stable_service': app + '-stable',
                'canary_service': app + '-canary'}

    def path(self, ns, app):
        return GW.format(ns=ns) + '/httproutes/' + app

    def canary_share(self, shares, app):
        return shares[0]['shares'].get(app + '-canary', 0)

    def foreign_edit(self, route):
        return [{'op': 'add', 'path': '/spec/rules/1/backendRefs/0/weight', 'value': 7}]

    def fault_target(self, ns, app):
        return 'gateway.networking.k8s.io/httproutes/%s/%s' % (ns, app)

    # What the failure says when the judge refuses the route.
    refusal = 'Accepted is False (reason NotAllowedByListeners'

    def reject(self, sim):
        sim.set_gateway(reject='NotAllowedByListeners')

    def accept(self, sim):
        sim.set_gateway(reject=None)

"""The OpenShift Route: spec.to the stable Service, alternate backends the canary and a backend the
canary does not own (legacy, weight 0), served by kubesim's router stand-in (openshift=True)."""

from tests.support.routers.httproute import services

ROUTES = '/apis/route.openshift.io/v1/namespaces/%s/routes'


def route(app, ns):
    return {
        'apiVersion': 'route.openshift.io/v1', 'kind': 'Route', 'metadata': {'name': app, 'namespace': ns},
        'spec': {'to': {'kind': 'Service', 'name': app + '-stable', 'weight': 100},
                 'alternateBackends': [{'kind': 'Service', 'name': app + '-canary', 'weight': 0},
                                       {'kind': 'Service', 'name': app + '-legacy', 'weight': 0}],
                 'port': {'targetPort': 'http'}},
    }


class OpenShiftRouteCase:
    router = 'openshift_route'
    kind = 'Route'
    # The router serves a change at once: a Route's status cannot say when a real router serves new
    # weights (docs/routers/openshift-route.md), so with a delay the canary scaled down right after
    # its weight went back to 0 could still be sent requests for that while, which no client can
    # wait for. kubesim_api/test_openshift_routes.py covers the router's delay.
    sim_options = {'openshift': True}
    header_route = False
    stand_in = True
    rbac_doc = 'openshift-route.md'

    def build(self, kube, ns, app):
        services(kube, ns, app)
        kube.request('POST', ROUTES % ns, route(app, ns))

    def traffic(self, app):
        return {'router': self.router, 'route': {'name': app}, 'stable_service': app + '-stable',
                'canary_service': app + '-canary'}

    def path(self, ns, app):
        return (ROUTES % ns) + '/' + app

    def canary_share(self, shares, app):
        return shares[0]['shares'].get(app + '-canary', 0)

    def foreign_edit(self, route):
        return [{'op': 'replace', 'path': '/spec/alternateBackends/1/weight', 'value': 7}]

    def fault_target(self, ns, app):
        return 'route.openshift.io/routes/%s/%s' % (ns, app)

    # What the failure says when the router refuses the route.
    refusal = 'Admitted is False (reason RouteNotAdmitted'

    def reject(self, sim):
        sim.call(sim.openshift.set_reject, 'RouteNotAdmitted')

    def accept(self, sim):
        sim.call(sim.openshift.set_reject, None)

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
    # The router serves a change 0.05 s after it admits it, as a real one does at its next reload (which
    # no Route says): the steps wait settle_seconds for it (the router's default is 5 s).
    sim_options = {'openshift': True, 'openshift_delay': 0.05}
    header_route = False
    stand_in = True
    rbac_doc = 'openshift-route.md'

    def build(self, kube, ns, app):
        services(kube, ns, app)
        kube.request('POST', ROUTES % ns, route(app, ns))

    def traffic(self, app):
        return {'router': self.router, 'route': {'name': app}, 'stable_service': app + '-stable',
                'canary_service': app + '-canary', 'settle_seconds': 0.3}

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

"""Istio's VirtualService in the mesh, two layouts: host level (the Services <app>-stable and
<app>-canary as two destinations) and subset level (one Service <app>, the DestinationRule's subsets
stable and canary). The VirtualService's first http route is one of its own (`/static`, to the
stable track), the second (`main`) holds both destinations beside a backend the canary does not own;
a header route goes before `main`, so the first route keeps its index."""

from tests.support.traffic import service

TRACK = 'track'
ISTIO = '/apis/networking.istio.io/v1/namespaces/{ns}'


def destination(host, weight, subset=None):
    out = {'destination': {'host': host, 'port': {'number': 80}}, 'weight': weight}
    if subset:
        out['destination']['subset'] = subset
    return out


def virtual_service(app, ns, stable, canary, legacy):
    return {
        'apiVersion': 'networking.istio.io/v1', 'kind': 'VirtualService',
        'metadata': {'name': app, 'namespace': ns},
        'spec': {'hosts': [app], 'http': [
            {'name': 'static', 'match': [{'uri': {'prefix': '/static'}}], 'route': [stable(1)]},
            {'name': 'main', 'route': [stable(100), canary(0), legacy(0)]},
        ]},
    }


class VirtualServiceCase:
    router = 'virtualservice'
    id = 'virtualservice'
    kind = 'VirtualService'
    sim_options = {'istio': True, 'istio_delay': 0.05}
    header_route = True
    stand_in = True
    rbac_doc = 'istio.md'
    # No acceptance condition: nothing refuses a VirtualService once istiod's webhook let it in.
    reject = accept = None
    refusal = None

    def build(self, kube, ns, app):
        path = '/api/v1/namespaces/%s/services' % ns
        for name, track in ((app + '-stable', 'stable'), (app + '-canary', 'canary')):
            kube.request('POST', path, service(name, {'app': app, TRACK: track}, ns))
        kube.request('POST', path, service(app + '-legacy', {'app': 'legacy'}, ns))
        vs = virtual_service(app, ns, lambda w: destination(app + '-stable', w),
                             lambda w: destination('%s-canary.%s.svc.cluster.local' % (app, ns), w),
                             lambda w: destination(app + '-legacy', w))
        kube.request('POST', ISTIO.format(ns=ns) + '/virtualservices', vs)

    def traffic(self, app):
        return {'router': self.router, 'route': {'name': app}, 'stable_service': app + '-stable',
                'canary_service': app + '-canary'}

    def path(self, ns, app):
        return ISTIO.format(ns=ns) + '/virtualservices/' + app

    def canary_key(self, app):
        return app + '-canary'

    def canary_share(self, shares, app):
        main = next(part for part in shares if part['name'] == 'main')
        return main['shares'].get(self.canary_key(app), 0)

    def foreign_edit(self, route):
        assert route['spec']['http'][0]['name'] == 'static'
        return [{'op': 'add', 'path': '/spec/http/0/route/0/weight', 'value': 7}]

    def fault_target(self, ns, app):
        return 'networking.istio.io/virtualservices/%s/%s' % (ns, app)


class VirtualServiceSubsetCase(VirtualServiceCase):
    """Subset level, with istiod's status feature on: the step waits for `Reconciled` at the
    generation it wrote."""

    id = 'virtualservice-subsets'
    sim_options = {'istio': True, 'istio_delay': 0.05, 'istio_reconciled': True}
    rbac_doc = 'istio-subsets.md'

    def build(self, kube, ns, app):
        path = '/api/v1/namespaces/%s/services' % ns
        kube.request('POST', path, service(app, {'app': app}, ns))
        kube.request('POST', path, service(app + '-legacy', {'app': 'legacy'}, ns))
        kube.request('POST', ISTIO.format(ns=ns) + '/destinationrules', {
            'apiVersion': 'networking.istio.io/v1', 'kind': 'DestinationRule',
            'metadata': {'name': app, 'namespace': ns},
            'spec': {'host': app,
                     'subsets': [{'name': t, 'labels': {TRACK: t}} for t in ('stable', 'canary')]},
        })
        vs = virtual_service(app, ns, lambda w: destination(app, w, 'stable'),
                             lambda w: destination(app, w, 'canary'),
                             lambda w: destination(app + '-legacy', w))
        kube.request('POST', ISTIO.format(ns=ns) + '/virtualservices', vs)

    def traffic(self, app):
        return {'router': self.router, 'route': {'name': app}, 'stable_service': app,
                'destination_rule': {'name': app}}

    def canary_key(self, app):
        return app + '/canary'

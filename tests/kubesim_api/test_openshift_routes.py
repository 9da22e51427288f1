"""OpenShift's Route in kubesim (`openshift=True`): openshift-apiserver's defaults and validation,
the router stand-in's `status.ingress[]` and the shares its simulated data plane gives each backend,
read through the API as clients read them."""

import time

import pytest

from tests.kubesim.__main__ import parse_args

from .conftest import Http, deployment

pytestmark = pytest.mark.kubesim

API = '/apis/route.openshift.io/v1'
NS = 'default'
ROUTES = f'{API}/namespaces/{NS}/routes'
JSON_PATCH = 'application/json-patch+json'
MERGE_PATCH = 'application/merge-patch+json'


def wait_for(what, timeout=5.0, interval=0.02):
    deadline = time.monotonic() + timeout
    while True:
        value = what()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(interval)


def service(name):
    return {'apiVersion': 'v1', 'kind': 'Service', 'metadata': {'name': name},
            'spec': {'selector': {'app': name}, 'ports': [{'name': 'http', 'port': 80}]}}


def route(name='web', to=('web-stable', 90), alternates=(('web-canary', 10),), host=None):
    def ref(backend, weight):
        out = {'kind': 'Service', 'name': backend}
        if weight is not None:
            out['weight'] = weight
        return out

    spec = {'to': ref(*to), 'alternateBackends': [ref(*a) for a in alternates]}
    if host:
        spec['host'] = host
    return {'apiVersion': 'route.openshift.io/v1', 'kind': 'Route', 'metadata': {'name': name}, 'spec': spec}


@pytest.fixture
def sim(kubesim_factory):
    return kubesim_factory(openshift=True, ready_delay=0.05)


@pytest.fixture
def api(sim):
    return Http(sim.url)


@pytest.fixture
def apps(api, sim):
    """Two Deployments (stable 3 pods, canary 1) behind their Services, their endpoints ready."""
    for name, replicas in (('web-stable', 3), ('web-canary', 1)):
        workload = deployment(name, replicas=replicas)
        assert api.post(f'/apis/apps/v1/namespaces/{NS}/deployments', workload)[0] == 201
        assert api.post(f'/api/v1/namespaces/{NS}/services', service(name))[0] == 201
    assert wait_for(lambda: sim.call(sim.openshift.ready_endpoints, NS, 'web-stable') == 3
                    and sim.call(sim.openshift.ready_endpoints, NS, 'web-canary') == 1)
    return api


def ingress(api, name='web', namespace=NS):
    status, _, body = api.get(f'{API}/namespaces/{namespace}/routes/{name}')
    assert status == 200
    return body, (body.get('status') or {}).get('ingress') or []


def admitted(entry):
    return next(c for c in entry['conditions'] if c['type'] == 'Admitted')


def shares(sim, name='web', namespace=NS):
    found = sim.route_shares(namespace, name, kind='Route')
    return found and found[0]['shares']


def test_routes_are_served_with_openshift_apiservers_defaults(sim, api):
    status, _, body = api.get(API)
    assert status == 200
    assert {r['name'] for r in body['resources']} == {'routes', 'routes/status'}
    status, _, created = api.post(ROUTES, route(to=('web-stable', None), alternates=(('web-canary', 0),)))
    assert status == 201, created
    spec = created['spec']
    # library-go route/defaulting: kind Service, weight 100; wildcardPolicy None; the generated host.
    assert spec['to'] == {'kind': 'Service', 'name': 'web-stable', 'weight': 100}
    assert spec['alternateBackends'] == [{'kind': 'Service', 'name': 'web-canary', 'weight': 0}]
    assert spec['wildcardPolicy'] == 'None'
    assert spec['host'] == 'web-default.apps.kubesim.local'
    assert created['metadata']['generation'] == 1
    # An empty kind is defaulted too (len(kind) == 0), and an update without host keeps the host.
    body = route(name='web')
    body['metadata']['resourceVersion'] = api.get(f'{ROUTES}/web')[2]['metadata']['resourceVersion']
    body['spec']['to']['kind'] = ''
    status, _, updated = api.put(f'{ROUTES}/web', body)
    assert status == 200, updated
    assert updated['spec']['to']['kind'] == 'Service'
    assert updated['spec']['host'] == 'web-default.apps.kubesim.local'
    assert updated['metadata']['generation'] == 2


def test_validation_answers_422_with_openshift_apiservers_words(sim, api):
    bad = route(to=('web-stable', 300),
                alternates=(('a', 1), ('b', 1), ('c', 1), ('d', -1)))
    bad['spec']['to']['kind'] = 'Deployment'
    status, _, body = api.post(ROUTES, bad)
    assert status == 422
    assert body['reason'] == 'Invalid'
    assert body['message'] == (
        'Route.route.openshift.io "web" is invalid: ['
        'spec.to.kind: Invalid value: "Deployment": must reference a Service, '
        'spec.to.weight: Invalid value: 300: weight must be an integer between 0 and 256, '
        'spec.alternateBackends: Required value: cannot specify more than 3 alternate backends, '
        'spec.alternateBackends[3].weight: Invalid value: -1: weight must be an integer between 0 and 256]')
    assert body['details']['group'] == 'route.openshift.io' and body['details']['kind'] == 'Route'

    assert api.post(ROUTES, route())[0] == 201
    patch = [{'op': 'replace', 'path': '/spec/alternateBackends/0/weight', 'value': 257}]
    status, _, body = api.patch(f'{ROUTES}/web', patch, content_type=JSON_PATCH)
    assert status == 422
    assert body['message'] == ('Route.route.openshift.io "web" is invalid: spec.alternateBackends[0].weight: '
                               'Invalid value: 257: weight must be an integer between 0 and 256')
    patch = [{'op': 'replace', 'path': '/spec/wildcardPolicy', 'value': 'Subdomain'}]
    status, _, body = api.patch(f'{ROUTES}/web', patch, content_type=JSON_PATCH)
    assert status == 422
    assert 'spec.wildcardPolicy: Invalid value: "Subdomain": field is immutable' in body['message']
    # The bounds themselves are accepted.
    patch = [{'op': 'replace', 'path': '/spec/to/weight', 'value': 256},
             {'op': 'replace', 'path': '/spec/alternateBackends/0/weight', 'value': 0}]
    assert api.patch(f'{ROUTES}/web', patch, content_type=JSON_PATCH)[0] == 200


def test_the_router_admits_and_writes_nothing_for_an_admitted_weight_change(apps, sim):
    assert apps.post(ROUTES, route())[0] == 201
    assert wait_for(lambda: ingress(apps)[1])
    body, [entry] = ingress(apps)
    assert entry['routerName'] == 'default'
    assert entry['host'] == body['spec']['host']
    assert entry['wildcardPolicy'] == 'None'
    assert entry['routerCanonicalHostname'] == 'router-default.apps.kubesim.local'
    condition = admitted(entry)
    assert condition['status'] == 'True' and 'reason' not in condition
    assert condition['lastTransitionTime'].endswith('Z') and len(condition['lastTransitionTime']) == 20

    patch = [{'op': 'test', 'path': '/spec/alternateBackends/0/name', 'value': 'web-canary'},
             {'op': 'test', 'path': '/spec/alternateBackends/0/weight', 'value': 10},
             {'op': 'replace', 'path': '/spec/alternateBackends/0/weight', 'value': 30},
             {'op': 'replace', 'path': '/spec/to/weight', 'value': 70}]
    status, _, patched = apps.patch(f'{ROUTES}/web', patch, content_type=JSON_PATCH)
    assert status == 200 and patched['metadata']['generation'] == 2
    assert wait_for(lambda: shares(sim) == pytest.approx({'web-stable': 0.7, 'web-canary': 0.3}))
    # status.go: the entry would not change, so nothing is written; no observedGeneration anywhere.
    after, [entry_after] = ingress(apps)
    assert after['metadata']['resourceVersion'] == patched['metadata']['resourceVersion']
    assert entry_after == entry


def test_an_older_route_of_another_namespace_holds_the_host(apps, sim):
    assert apps.post('/api/v1/namespaces', {'apiVersion': 'v1', 'kind': 'Namespace',
                                            'metadata': {'name': 'other'}})[0] == 201
    host = 'shop.apps.kubesim.local'
    other = f'{API}/namespaces/other/routes'
    assert apps.post(other, route(name='first', host=host, alternates=()))[0] == 201
    assert wait_for(lambda: ingress(apps, 'first', 'other')[1])
    # creationTimestamp has whole seconds (a tie would be decided by the uids): the next second.
    time.sleep(1.0 - time.time() % 1.0 + 0.01)
    assert apps.post(ROUTES, route(host=host))[0] == 201
    assert wait_for(lambda: ingress(apps)[1])
    condition = admitted(ingress(apps)[1][0])
    assert (condition['status'], condition['reason'], condition['message']) == (
        'False', 'HostAlreadyClaimed', f'a route in another namespace holds host {host}')
    assert sim.route_shares(NS, 'web', kind='Route') is None  # not served

    # The holder goes: the refused route is admitted and served.
    assert apps.request('DELETE', f'{other}/first')[0] == 200
    assert wait_for(lambda: admitted(ingress(apps)[1][0])['status'] == 'True')
    assert 'reason' not in admitted(ingress(apps)[1][0])
    assert wait_for(lambda: shares(sim) == pytest.approx({'web-stable': 0.9, 'web-canary': 0.1}))


def test_shares_follow_the_weights_and_the_backends_with_ready_endpoints(apps, sim):
    assert apps.post(ROUTES, route())[0] == 201
    assert wait_for(lambda: shares(sim) == pytest.approx({'web-stable': 0.9, 'web-canary': 0.1}))

    # The canary scaled to 0: HAProxy has no server of it, its part goes to the stable Service.
    scale = f'/apis/apps/v1/namespaces/{NS}/deployments/web-canary/scale'
    assert apps.patch(scale, {'spec': {'replicas': 0}}, content_type=MERGE_PATCH)[0] == 200
    assert wait_for(lambda: shares(sim) == pytest.approx({'web-stable': 1.0, 'web-canary': 0.0}))

    # Every weight 0: the route has no backend, every request is answered 503.
    patch = [{'op': 'replace', 'path': '/spec/to/weight', 'value': 0},
             {'op': 'replace', 'path': '/spec/alternateBackends/0/weight', 'value': 0}]
    assert apps.patch(f'{ROUTES}/web', patch, content_type=JSON_PATCH)[0] == 200
    assert wait_for(lambda: shares(sim) == pytest.approx({'web-stable': 0.0, 'web-canary': 0.0, '503': 1.0}))

    # Weights back, the stable Service without endpoints: only the canary weight 10 is left... which
    # has none either (scaled to 0): 503 again; the canary back: all of it to the canary.
    patch = [{'op': 'replace', 'path': '/spec/to/weight', 'value': 90},
             {'op': 'replace', 'path': '/spec/alternateBackends/0/weight', 'value': 10}]
    assert apps.patch(f'{ROUTES}/web', patch, content_type=JSON_PATCH)[0] == 200
    stable = f'/apis/apps/v1/namespaces/{NS}/deployments/web-stable/scale'
    assert apps.patch(stable, {'spec': {'replicas': 0}}, content_type=MERGE_PATCH)[0] == 200
    assert wait_for(lambda: shares(sim) == pytest.approx({'web-stable': 0.0, 'web-canary': 0.0, '503': 1.0}))
    assert apps.patch(scale, {'spec': {'replicas': 1}}, content_type=MERGE_PATCH)[0] == 200
    assert wait_for(lambda: shares(sim) == pytest.approx({'web-stable': 0.0, 'web-canary': 1.0}))

    log = sim.route_traffic(NS, 'web', kind='Route')
    seen = [entry[0]['shares'] for _t, _gen, entry in log]
    assert seen[0] == pytest.approx({'web-stable': 0.9, 'web-canary': 0.1})
    assert {'web-stable': 1.0, 'web-canary': 0.0} in [pytest.approx(s) for s in seen]
    assert seen[-1] == pytest.approx({'web-stable': 0.0, 'web-canary': 1.0})
    assert [t for t, _g, _s in log] == sorted(t for t, _g, _s in log)
    assert [g for _t, g, _s in log][0] == 1 and [g for _t, g, _s in log][-1] == 3


def test_the_router_serves_a_change_only_after_its_delay(kubesim_factory):
    sim = kubesim_factory(openshift=True, openshift_delay=0.4, nodes=0)
    api = Http(sim.url)
    assert api.post(f'/api/v1/namespaces/{NS}/services', service('web-stable'))[0] == 201
    start = time.monotonic()
    assert api.post(ROUTES, route(alternates=()))[0] == 201
    assert sim.route_shares(NS, 'web', kind='Route') is None
    assert not ingress(api)[1]
    assert wait_for(lambda: ingress(api)[1])
    assert time.monotonic() - start >= 0.35
    # No endpoints at all (no nodes): admitted, and every request answered 503.
    assert shares(sim) == {'web-stable': 0.0, '503': 1.0}


def test_cli_options():
    args = parse_args(['--kubeconfig', 'kc', '--openshift', '--openshift-delay', '0.5'])
    assert args.openshift and args.openshift_delay == 0.5
    with pytest.raises(SystemExit):
        parse_args(['--kubeconfig', 'kc', '--openshift-delay', '0.5'])
    with pytest.raises(SystemExit):
        parse_args(['--kubeconfig', 'kc', '--openshift', '--openshift-delay', '-1'])


def test_a_rejecting_router_refuses_every_route_and_stops_serving_it(apps, sim):
    assert apps.post(ROUTES, route())[0] == 201
    assert wait_for(lambda: shares(sim))
    sim.call(sim.openshift.set_reject, 'RouteNotAdmitted')
    condition = admitted(ingress(apps)[1][0])
    assert (condition['status'], condition['reason'], condition['message']) == (
        'False', 'RouteNotAdmitted', 'the kubesim router is set to reject routes')
    assert sim.route_shares(NS, 'web', kind='Route') is None
    sim.call(sim.openshift.set_reject, None)
    assert admitted(ingress(apps)[1][0])['status'] == 'True'
    assert shares(sim) == pytest.approx({'web-stable': 0.9, 'web-canary': 0.1})

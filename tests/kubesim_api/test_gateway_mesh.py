"""GRPCRoute on the kubesim gateway and the mesh stand-in (GAMMA: routes whose parent is a Service),
read through the API as clients read them."""

import pytest

from tests.kubesim.gateway import crds

from .conftest import Http, deployment
from .test_gateway_api import gateway, service, wait_for

pytestmark = pytest.mark.kubesim

GW = '/apis/gateway.networking.k8s.io/v1'
NS = 'default'
JSON_PATCH = 'application/json-patch+json'
MESH = 'kubesim.io/mesh'


def route(kind='HTTPRoute', name='web', parent=None, backends=(('web-stable', 90), ('web-canary', 10))):
    refs = []
    for backend, weight in backends:
        ref = {'name': backend, 'port': 80}
        if isinstance(backend, tuple):
            ref = {'namespace': backend[0], 'name': backend[1], 'port': 80}
        if weight is not None:
            ref['weight'] = weight
        refs.append(ref)
    return {
        'apiVersion': f'{crds.GROUP}/v1',
        'kind': kind,
        'metadata': {'name': name},
        'spec': {
            'parentRefs': [parent or {'group': '', 'kind': 'Service', 'name': 'web'}],
            'rules': [{'backendRefs': refs}],
        },
    }


def path(kind, namespace=NS, name=None):
    plural = {'HTTPRoute': 'httproutes', 'GRPCRoute': 'grpcroutes'}[kind]
    return f'{GW}/namespaces/{namespace}/{plural}' + (f'/{name}' if name else '')


def parents(api, kind='HTTPRoute', name='web', namespace=NS):
    status, _, body = api.get(path(kind, namespace, name))
    assert status == 200
    return body, (body.get('status') or {}).get('parents') or []


def conditions(parent):
    return {c['type']: (c['status'], c['reason'], c['observedGeneration']) for c in parent['conditions']}


@pytest.fixture
def sim(kubesim_factory):
    return kubesim_factory(gateway_api=True, ready_delay=0.05)


@pytest.fixture
def api(sim):
    """The Service `web` (the mesh's parent), two track Deployments behind their Services, a Gateway."""
    http = Http(sim.url)
    for name, replicas in (('web-stable', 3), ('web-canary', 1)):
        assert (
            http.post(f'/apis/apps/v1/namespaces/{NS}/deployments', deployment(name, replicas=replicas))[0]
            == 201
        )
        assert http.post(f'/api/v1/namespaces/{NS}/services', service(name, name))[0] == 201
    assert http.post(f'/api/v1/namespaces/{NS}/services', service('web', 'web-stable'))[0] == 201
    assert http.post(f'{GW}/namespaces/{NS}/gateways', gateway())[0] == 201
    return http


def ready(sim):
    return wait_for(
        lambda: (
            sim.call(sim.gateway.ready_endpoints, NS, 'web-stable') == 3
            and sim.call(sim.gateway.ready_endpoints, NS, 'web-canary') == 1
        )
    )


def test_a_grpcroute_gets_its_defaults_the_gateways_status_and_its_own_shares(api, sim):
    body = route('GRPCRoute', parent={'name': 'gw'}, backends=(('web-stable', 3), ('web-canary', None)))
    body['spec']['rules'][0]['matches'] = [{'headers': [{'name': 'x-canary', 'value': 'yes'}]}]
    status, _, created = api.post(path('GRPCRoute'), body)
    assert status == 201, created
    rule = created['spec']['rules'][0]
    assert rule['matches'] == [{'headers': [{'name': 'x-canary', 'type': 'Exact', 'value': 'yes'}]}]
    assert rule['backendRefs'][1] == {
        'group': '',
        'kind': 'Service',
        'name': 'web-canary',
        'port': 80,
        'weight': 1,
    }
    assert created['spec']['parentRefs'] == [{'group': crds.GROUP, 'kind': 'Gateway', 'name': 'gw'}]
    # An HTTPRoute of the same name is another route, with shares of its own.
    assert api.post(path('HTTPRoute'), route(parent={'name': 'gw'}))[0] == 201

    assert wait_for(lambda: parents(api, 'GRPCRoute')[1])
    [parent] = parents(api, 'GRPCRoute')[1]
    assert parent['controllerName'] == 'kubesim.io/gateway-controller'
    assert conditions(parent) == {
        'Accepted': ('True', 'Accepted', 1),
        'ResolvedRefs': ('True', 'ResolvedRefs', 1),
    }
    assert ready(sim)
    assert wait_for(lambda: sim.route_shares(NS, 'web', kind='GRPCRoute'))
    [grpc] = sim.route_shares(NS, 'web', kind='GRPCRoute')
    assert grpc['shares'] == pytest.approx({'web-stable': 0.75, 'web-canary': 0.25})
    assert grpc['matches'] == rule['matches']
    assert wait_for(lambda: sim.route_shares(NS, 'web'))
    assert sim.route_shares(NS, 'web')[0]['shares'] == pytest.approx({'web-stable': 0.9, 'web-canary': 0.1})
    # The listener counts both routes and says it takes both kinds.
    listener = wait_for(
        lambda: next(
            (
                item
                for item in api.get(f'{GW}/namespaces/{NS}/gateways/gw')[2]['status'].get('listeners') or []
                if item['attachedRoutes'] == 2
            ),
            None,
        )
    )
    assert listener, 'the listener never counted both routes'
    assert [k['kind'] for k in listener['supportedKinds']] == ['HTTPRoute', 'GRPCRoute']

    patch = [{'op': 'replace', 'path': '/spec/rules/0/backendRefs/1/weight', 'value': 0}]
    assert api.patch(path('GRPCRoute', name='web'), patch, content_type=JSON_PATCH)[0] == 200
    assert wait_for(lambda: sim.route_shares(NS, 'web', kind='GRPCRoute')[0]['shares']['web-canary'] == 0)
    log = sim.route_traffic(NS, 'web', kind='GRPCRoute')
    assert [gen for _t, gen, _s in log][0] == 1 and log[-1][1] == 2
    assert sim.route_traffic(NS, 'web')[-1][1] == 1  # the HTTPRoute's log is its own


def test_the_grpcroute_schema_is_the_standard_channels(api):
    body = route('GRPCRoute', parent={'name': 'gw'})
    body['spec']['rules'][0]['matches'] = [
        {'headers': [{'name': 'x-canary', 'type': 'Prefix', 'value': 'y'}]}
    ]
    status, _, out = api.post(path('GRPCRoute'), body)
    assert status == 422, out
    assert 'spec.rules[0].matches[0].headers[0].type' in out['message']
    # Not served as v1beta1 (the standard channel serves GRPCRoute as v1 only).
    assert api.get(f'/apis/gateway.networking.k8s.io/v1beta1/namespaces/{NS}/grpcroutes')[0] == 404
    # A path match is HTTPRoute's: pruned from a GRPCRoute as an unknown field.
    body['spec']['rules'][0]['matches'] = [{'path': {'value': '/'}, 'method': {'service': 'shop.Cart'}}]
    status, _, created = api.post(path('GRPCRoute'), body)
    assert status == 201, created
    assert created['spec']['rules'][0]['matches'] == [{'method': {'service': 'shop.Cart', 'type': 'Exact'}}]


@pytest.mark.parametrize('kind', ['HTTPRoute', 'GRPCRoute'])
def test_a_producer_route_on_a_service_is_accepted_by_the_mesh_and_serves_every_client(api, sim, kind):
    assert api.post(path(kind), route(kind))[0] == 201
    assert wait_for(lambda: parents(api, kind)[1])
    [parent] = parents(api, kind)[1]
    assert parent['controllerName'] == MESH
    assert parent['parentRef'] == {'group': '', 'kind': 'Service', 'name': 'web'}
    assert conditions(parent) == {
        'Accepted': ('True', 'Accepted', 1),
        'ResolvedRefs': ('True', 'ResolvedRefs', 1),
    }
    assert ready(sim)
    assert wait_for(lambda: sim.route_shares(NS, 'web', kind=kind))
    assert sim.route_shares(NS, 'web', kind=kind)[0]['shares'] == pytest.approx(
        {'web-stable': 0.9, 'web-canary': 0.1}
    )
    for client in (NS, 'anywhere'):
        assert sim.call(sim.gateway.routes_for, NS, 'web', client, kind) == [(NS, 'web')]
    other = 'GRPCRoute' if kind == 'HTTPRoute' else 'HTTPRoute'
    assert sim.call(sim.gateway.routes_for, NS, 'web', NS, other) == []

    # A new generation is judged at that generation.
    patch = [{'op': 'replace', 'path': '/spec/rules/0/backendRefs/1/weight', 'value': 30}]
    assert api.patch(path(kind, name='web'), patch, content_type=JSON_PATCH)[0] == 200
    assert wait_for(lambda: conditions(parents(api, kind)[1][0])['Accepted'][2] == 2)
    assert wait_for(
        lambda: sim.route_shares(NS, 'web', kind=kind)[0]['shares']['web-canary'] == pytest.approx(0.25)
    )


def test_a_route_whose_service_parent_does_not_exist_is_not_accepted_until_it_does(api, sim):
    body = route(parent={'group': '', 'kind': 'Service', 'name': 'shop'})
    assert api.post(path('HTTPRoute'), body)[0] == 201
    assert wait_for(lambda: parents(api)[1])
    [parent] = parents(api)[1]
    assert parent['controllerName'] == MESH
    accepted = next(c for c in parent['conditions'] if c['type'] == 'Accepted')
    assert (accepted['status'], accepted['reason'], accepted['observedGeneration']) == (
        'False',
        'NoMatchingParent',
        1,
    )
    assert 'default/shop' in accepted['message']
    assert sim.route_shares(NS, 'web') is None
    # A port the Service does not have is no matching parent either.
    svc = service('shop', 'web-stable')
    assert api.post(f'/api/v1/namespaces/{NS}/services', svc)[0] == 201
    assert wait_for(lambda: conditions(parents(api)[1][0])['Accepted'][0] == 'True')
    assert wait_for(lambda: sim.route_shares(NS, 'web') is not None)
    patch = [{'op': 'add', 'path': '/spec/parentRefs/0/port', 'value': 8080}]
    assert api.patch(path('HTTPRoute', name='web'), patch, content_type=JSON_PATCH)[0] == 200
    assert wait_for(lambda: conditions(parents(api)[1][0])['Accepted'] == ('False', 'NoMatchingParent', 2))
    assert wait_for(lambda: sim.route_shares(NS, 'web') is None)


def test_a_consumer_route_serves_its_own_namespace_and_may_name_the_services_backends(api, sim):
    for ns in ('client', 'third'):
        assert api.post('/api/v1/namespaces', {'metadata': {'name': ns}})[0] == 201
    body = route(
        parent={'group': '', 'kind': 'Service', 'name': 'web', 'namespace': NS},
        backends=(((NS, 'web-stable'), 1), ((NS, 'web-canary'), 1)),
    )
    assert api.post(path('HTTPRoute', 'client'), body)[0] == 201
    assert wait_for(lambda: parents(api, namespace='client')[1])
    [parent] = parents(api, namespace='client')[1]
    assert conditions(parent) == {
        'Accepted': ('True', 'Accepted', 1),
        'ResolvedRefs': ('True', 'ResolvedRefs', 1),
    }
    assert ready(sim)
    assert wait_for(lambda: sim.route_shares('client', 'web'))
    assert sim.route_shares('client', 'web')[0]['shares'] == pytest.approx(
        {'web-stable': 0.5, 'web-canary': 0.5}
    )
    assert sim.call(sim.gateway.routes_for, NS, 'web', 'client') == [('client', 'web')]
    assert sim.call(sim.gateway.routes_for, NS, 'web', NS) == []
    assert sim.call(sim.gateway.routes_for, NS, 'web', 'third') == []

    # A backend in a third namespace: no ReferenceGrant allows it, its share answered 500.
    patch = [{'op': 'replace', 'path': '/spec/rules/0/backendRefs/1/namespace', 'value': 'third'}]
    assert api.patch(path('HTTPRoute', 'client', 'web'), patch, content_type=JSON_PATCH)[0] == 200
    assert wait_for(
        lambda: (
            conditions(parents(api, namespace='client')[1][0])['ResolvedRefs']
            == ('False', 'RefNotPermitted', 2)
        )
    )
    assert wait_for(lambda: sim.route_shares('client', 'web')[0]['shares'].get('500') == pytest.approx(0.5))


def test_the_reject_mode_refuses_mesh_routes_too(api, sim):
    sim.set_gateway(reject='NotAllowedByListeners')
    assert api.post(path('GRPCRoute'), route('GRPCRoute'))[0] == 201
    assert wait_for(lambda: parents(api, 'GRPCRoute')[1])
    assert conditions(parents(api, 'GRPCRoute')[1][0])['Accepted'] == ('False', 'NotAllowedByListeners', 1)
    assert sim.route_shares(NS, 'web', kind='GRPCRoute') is None
    sim.set_gateway(reject=None)
    assert wait_for(lambda: conditions(parents(api, 'GRPCRoute')[1][0])['Accepted'][0] == 'True')
    assert wait_for(lambda: sim.route_shares(NS, 'web', kind='GRPCRoute') is not None)


def test_a_route_with_a_gateway_and_a_service_parent_gets_an_entry_from_each(api, sim):
    body = route(parent={'name': 'gw'})
    body['spec']['parentRefs'].append({'group': '', 'kind': 'Service', 'name': 'web'})
    assert api.post(path('HTTPRoute'), body)[0] == 201
    assert wait_for(lambda: len(parents(api)[1]) == 2)
    entries = parents(api)[1]
    assert [p['controllerName'] for p in entries] == ['kubesim.io/gateway-controller', MESH]
    assert all(conditions(p)['Accepted'] == ('True', 'Accepted', 1) for p in entries)

"""rollout_traffic through ansible-playbook with the routers mesh_httproute (an HTTPRoute whose parent is
a Service, judged by kubesim's mesh) and grpcroute (a GRPCRoute on the Gateway): the weights asked
are what the mesh or the gateway computes, the header route is the kind's own match, and a route with
parents of the other kind is refused naming the router that takes it."""

import pytest

from .conftest import GW, NEW, NS, deployment, service, task

pytestmark = pytest.mark.integration


def pair(weight):
    return [{'name': 'web-stable', 'port': 80, 'weight': 100 - weight},
            {'name': 'web-canary', 'port': 80, 'weight': weight}]


def mesh_route():
    return {'apiVersion': 'gateway.networking.k8s.io/v1', 'kind': 'HTTPRoute',
            'metadata': {'name': 'web-mesh', 'namespace': NS},
            'spec': {'parentRefs': [{'group': '', 'kind': 'Service', 'name': 'web', 'port': 80}],
                     'rules': [{'backendRefs': pair(0)}]}}


def grpc_route():
    return {'apiVersion': 'gateway.networking.k8s.io/v1', 'kind': 'GRPCRoute',
            'metadata': {'name': 'web', 'namespace': NS},
            'spec': {'parentRefs': [{'name': 'public'}],
                     'rules': [{'matches': [{'method': {'service': 'shop.Cart'}}], 'backendRefs': pair(0)}]}}


def step(title, router, route, weight, **options):
    return task(title, 'rollout_traffic', router=router, route={'name': route}, stable_service='web-stable',
                canary_service='web-canary', weight=weight, timeout=20, **options)


@pytest.fixture
def canary(world):
    world.kube.create(deployment('web-canary', 'canary', 1, image=NEW))
    world.kube.rolled_out('Deployment', 'web-canary')
    return world


def test_a_mesh_route_is_shifted_and_judged_by_the_mesh(canary, play):
    world = canary
    world.kube.request('POST', '/api/v1/namespaces/%s/services' % NS, service('web', {'app': 'web'}))
    world.kube.request('POST', GW.format(ns=NS) + '/httproutes', mesh_route())
    r = play(world.sim, [
        step('mesh 25', 'mesh_httproute', 'web-mesh', 25),
        step('on a gateway', 'mesh_httproute', 'web', 25),
        step('a mesh route to the gateway router', 'httproute', 'web-mesh', 50),
    ])
    out = r.ok('mesh 25')
    assert out['changed'] and out['parents'] == [{'parent': 'Service default/web (mesh)', 'accepted': True}]
    [rule] = world.sim.route_shares(NS, 'web-mesh')
    assert rule['shares'] == pytest.approx({'web-stable': 0.75, 'web-canary': 0.25})
    assert 'HTTPRoute default/web has the parent Gateway default/public, not a Service: use the router ' \
           'httproute for it' in r.failed('on a gateway')['msg']
    assert 'HTTPRoute default/web-mesh has the parent Service default/web (mesh), not a Gateway: use the ' \
           'router mesh_httproute for it' in r.failed('a mesh route to the gateway router')['msg']
    # Neither refusal wrote anything: the mesh route keeps 25, the gateway's route its 0.
    assert [b['weight'] for b in world.kube.request('GET', GW.format(ns=NS) + '/httproutes/web-mesh')
            ['spec']['rules'][0]['backendRefs']] == [75, 25]
    assert world.weights()['web-canary'] == 0


def test_a_mesh_route_the_mesh_refuses_fails_the_step(canary, play):
    world = canary
    world.kube.request('POST', GW.format(ns=NS) + '/httproutes', mesh_route())  # no Service web
    r = play(world.sim, [step('mesh 25', 'mesh_httproute', 'web-mesh', 25)])
    msg = r.failed('mesh 25')['msg']
    assert 'Service default/web (mesh): Accepted is False (reason NoMatchingParent' in msg, msg
    assert 'the mesh keeps serving what it accepted before' in msg


def test_a_grpcroute_is_shifted_with_a_header_route_of_its_own_match(canary, play):
    world = canary
    world.kube.request('POST', GW.format(ns=NS) + '/grpcroutes', grpc_route())
    header = {'name': 'testers', 'header': 'x-canary', 'value': 'yes'}
    r = play(world.sim, [step('grpc 10', 'grpcroute', 'web', 10, header_route=header)])
    out = r.ok('grpc 10')
    assert out['changed'] and out['parents'] == [{'parent': 'Gateway default/public', 'accepted': True}]
    shares = world.sim.route_shares(NS, 'web', kind='GRPCRoute')
    assert shares[0]['shares'] == pytest.approx({'web-stable': 0.9, 'web-canary': 0.1})
    assert shares[1]['shares'] == {'web-canary': 1.0}
    rules = world.kube.request('GET', GW.format(ns=NS) + '/grpcroutes/web')['spec']['rules']
    assert rules[1]['name'] == 'testers'
    assert rules[1]['matches'] == [{'method': {'service': 'shop.Cart', 'type': 'Exact'},
                                    'headers': [{'type': 'Exact', 'name': 'x-canary', 'value': 'yes'}]}]
    # The HTTPRoute of the same name was not touched.
    assert world.weights()['web-canary'] == 0

"""kinds/routers/grpcroute.py: a GRPCRoute on Gateways, written as an HTTPRoute is, with its own
kind, path and header match."""

import jsonpatch
import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers import grpcroute, httproute, table
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers.router import RouteProblem

pytestmark = pytest.mark.unit

ROUTER = grpcroute.GRPCRouteRouter()


def service(name, weight):
    return {'group': '', 'kind': 'Service', 'name': name, 'port': 50051, 'weight': weight}


def route(matches=None, parents=None):
    rule = {'backendRefs': [service('web-stable', 100), service('web-canary', 0)]}
    if matches is not None:
        rule['matches'] = matches
    return {
        'apiVersion': 'gateway.networking.k8s.io/v1',
        'kind': 'GRPCRoute',
        'metadata': {'name': 'web', 'namespace': 'shop', 'generation': 2, 'resourceVersion': '7'},
        'spec': {'parentRefs': parents or [{'group': httproute.GROUP, 'kind': 'Gateway', 'name': 'public'}],
                 'rules': [rule]},
    }


def test_the_router_is_named_grpcroute_and_speaks_of_grpcroutes():
    assert table.router('grpcroute') is table.ROUTERS['grpcroute']
    assert (ROUTER.kind, ROUTER.judge) == ('GRPCRoute', 'gateway')
    assert ROUTER.path('shop', 'web') == '/apis/gateway.networking.k8s.io/v1/namespaces/shop/grpcroutes/web'
    assert ROUTER.collection('shop') == '/apis/gateway.networking.k8s.io/v1/namespaces/shop/grpcroutes'
    assert ROUTER.label('shop', 'web') == 'GRPCRoute shop/web'
    with pytest.raises(RouteProblem, match=r'^GRPCRoute shop/web has no rule with backendRefs to both'):
        ROUTER.managed(route(), None, 'web-stable', 'other')


def test_the_weights_are_set_by_a_guarded_json_patch():
    r = route()
    managed = ROUTER.managed(r, None, 'web-stable', 'web-canary')
    ops = ROUTER.plan(r, managed, 'web-stable', 'web-canary', 20)
    assert ops[0] == {'op': 'test', 'path': '/metadata/resourceVersion', 'value': '7'}
    after = jsonpatch.apply_patch(r, ops)
    assert [b['weight'] for b in after['spec']['rules'][0]['backendRefs']] == [80, 20]
    assert ROUTER.written(after, managed, 'web-stable', 'web-canary', 20) is None


def test_the_header_route_matches_the_header_without_a_path():
    header = {'name': 'testers', 'header': 'x-canary', 'value': 'yes', 'type': 'Exact'}
    r = route()
    managed = ROUTER.managed(r, None, 'web-stable', 'web-canary', header)
    added = jsonpatch.apply_patch(r, ROUTER.plan(r, managed, 'web-stable', 'web-canary', 0, header, True))
    rule = added['spec']['rules'][-1]
    assert rule['matches'] == [{'headers': [{'type': 'Exact', 'name': 'x-canary', 'value': 'yes'}]}]
    assert rule['backendRefs'] == [dict(service('web-canary', 1))]
    assert ROUTER.header_present(added, header)
    # Beside a rule matching a method, the header joins that match.
    method = [{'method': {'type': 'Exact', 'service': 'shop.Cart'}}]
    r = route(matches=method)
    managed = ROUTER.managed(r, None, 'web-stable', 'web-canary', header)
    added = jsonpatch.apply_patch(r, ROUTER.plan(r, managed, 'web-stable', 'web-canary', 0, header, True))
    assert added['spec']['rules'][-1]['matches'] == [
        {'method': {'type': 'Exact', 'service': 'shop.Cart'},
         'headers': [{'type': 'Exact', 'name': 'x-canary', 'value': 'yes'}]}]


def test_a_grpcroute_on_services_is_refused():
    r = route(parents=[{'group': '', 'kind': 'Service', 'name': 'web'}])
    with pytest.raises(RouteProblem) as e:
        ROUTER.managed(r, None, 'web-stable', 'web-canary')
    assert str(e.value) == ('GRPCRoute shop/web has the parent Service shop/web (mesh), not a Gateway: '
                            'the router grpcroute takes GRPCRoutes whose parents are Gateways')


def test_its_gateways_are_judged_at_the_generation():
    r = route()
    r['status'] = {'parents': [{'parentRef': {'group': httproute.GROUP, 'kind': 'Gateway', 'name': 'public'},
                                'controllerName': 'x', 'conditions': [
                                    {'type': t, 'status': 'True', 'reason': t, 'observedGeneration': 2}
                                    for t in ('Accepted', 'ResolvedRefs')]}]}
    assert ROUTER.verdicts(r) == [('Gateway shop/public', None)]

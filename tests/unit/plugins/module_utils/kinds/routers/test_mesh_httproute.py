"""kinds/routers/mesh_httproute.py: an HTTPRoute whose parents are Services, judged by the mesh."""

import jsonpatch
import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers import (
    httproute,
    mesh_httproute,
    table,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers.router import RouteProblem

pytestmark = pytest.mark.unit

ROUTER = mesh_httproute.MeshHTTPRouteRouter()
MESH_PARENT = {'group': '', 'kind': 'Service', 'name': 'web', 'port': 80}


def backend(name, weight):
    return {'group': '', 'kind': 'Service', 'name': name, 'port': 80, 'weight': weight}


def route(parents=None, status=None, namespace='shop'):
    return {
        'apiVersion': 'gateway.networking.k8s.io/v1',
        'kind': 'HTTPRoute',
        'metadata': {'name': 'web', 'namespace': namespace, 'generation': 4, 'resourceVersion': '9'},
        'spec': {'parentRefs': parents or [dict(MESH_PARENT)], 'rules': [
            {'matches': [{'path': {'type': 'PathPrefix', 'value': '/'}}],
             'backendRefs': [backend('web-stable', 100), backend('web-canary', 0)]}]},
        'status': status or {},
    }


def entry(generation, accepted='True', reason='Accepted', parent=None):
    return {'parentRef': parent or dict(MESH_PARENT), 'controllerName': 'kubesim.io/mesh', 'conditions': [
        {'type': 'Accepted', 'status': accepted, 'reason': reason, 'observedGeneration': generation,
         'message': 'Service "shop/web" not found' if accepted == 'False' else 'Accepted'},
        {'type': 'ResolvedRefs', 'status': 'True', 'reason': 'ResolvedRefs',
         'observedGeneration': generation}]}


def test_the_router_is_named_mesh_httproute_and_the_mesh_judges():
    assert table.router('mesh_httproute') is table.ROUTERS['mesh_httproute']
    assert (ROUTER.kind, ROUTER.judge, ROUTER.verdict_required) == ('HTTPRoute', 'mesh', True)
    assert ROUTER.path('shop', 'web') == '/apis/gateway.networking.k8s.io/v1/namespaces/shop/httproutes/web'
    assert ROUTER.no_verdict_text('HTTPRoute shop/web') == (
        'HTTPRoute shop/web has no parentRefs: no mesh serves it')


def test_the_service_parents_are_judged_at_the_generation_and_named_as_the_mesh_s():
    assert ROUTER.verdicts(route(status={'parents': [entry(4)]})) == [('Service shop/web (mesh)', None)]
    assert ROUTER.verdicts(route(status={'parents': [entry(3)]})) == [('Service shop/web (mesh)', 'pending')]
    assert ROUTER.verdicts(route(status={'parents': [entry(4, 'False', 'NoMatchingParent')]})) == [
        ('Service shop/web (mesh)',
         'Accepted is False (reason NoMatchingParent: Service "shop/web" not found)')]
    # A consumer route: its parent in the Service's namespace, named there.
    consumer = dict(MESH_PARENT, namespace='shop')
    r = route(parents=[consumer], status={'parents': [entry(4, parent=consumer)]}, namespace='clients')
    assert ROUTER.verdicts(r) == [('Service shop/web (mesh)', None)]


def test_the_weights_are_written_as_the_httproute_router_writes_them():
    r = route()
    managed = ROUTER.managed(r, None, 'web-stable', 'web-canary')
    ops = ROUTER.plan(r, managed, 'web-stable', 'web-canary', 10)
    on_gateway = route(parents=[{'group': httproute.GROUP, 'kind': 'Gateway', 'name': 'gw'}])
    assert ops == httproute.HTTPRouteRouter().plan(on_gateway, managed, 'web-stable', 'web-canary', 10)
    after = jsonpatch.apply_patch(r, ops)
    assert ROUTER.written(after, managed, 'web-stable', 'web-canary', 10) is None


def test_a_route_on_a_gateway_is_refused_naming_the_httproute_router():
    r = route(parents=[dict(MESH_PARENT), {'group': httproute.GROUP, 'kind': 'Gateway', 'name': 'public'}])
    with pytest.raises(RouteProblem) as e:
        ROUTER.managed(r, None, 'web-stable', 'web-canary')
    assert str(e.value) == ('HTTPRoute shop/web has the parent Gateway shop/public, not a Service: '
                            'use the router httproute for it')

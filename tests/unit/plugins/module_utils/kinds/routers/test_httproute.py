import copy

import jsonpatch
import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers import httproute as routes

pytestmark = pytest.mark.unit


def service(name, weight):
    return {'group': '', 'kind': 'Service', 'name': name, 'port': 80, 'weight': weight}


def route(generation=3, status=None):
    return {
        'metadata': {'name': 'web', 'namespace': 'shop', 'generation': generation, 'resourceVersion': '41'},
        'spec': {'parentRefs': [{'group': routes.GROUP, 'kind': 'Gateway', 'name': 'public'}], 'rules': [
            {'name': 'main', 'matches': [{'path': {'type': 'PathPrefix', 'value': '/'}}],
             'backendRefs': [service('legacy', 5), service('web-stable', 100), service('web-canary', 0)]},
            {'name': 'static', 'backendRefs': [{'name': 'web-stable', 'port': 80, 'weight': 1}]},
        ]},
        'status': status or {},
    }


def test_rules_holding_both_backends_are_chosen_unless_one_is_named():
    r = route()
    assert [i for i, _ in routes.select_rules(r, None, 'web-stable', 'web-canary')] == [0]
    assert [i for i, _ in routes.select_rules(r, 'main', 'web-stable', 'web-canary')] == [0]
    assert [i for i, _ in routes.select_rules(r, '0', 'web-stable', 'web-canary')] == [0]
    text = r'HTTPRoute shop/web rule 1 \(static\) has no backendRef to the Service web-canary'
    with pytest.raises(routes.RouteProblem, match=text):
        routes.select_rules(r, 'static', 'web-stable', 'web-canary')
    with pytest.raises(routes.RouteProblem, match="has no rule 'x' .*named main, static"):
        routes.select_rules(r, 'x', 'web-stable', 'web-canary')
    with pytest.raises(routes.RouteProblem, match='no rule with backendRefs to both'):
        routes.select_rules(r, None, 'web-stable', 'other')


def test_the_weight_patch_tests_the_route_and_the_rule_identity_then_replaces_only_the_pair():
    r = route()
    rules = routes.select_rules(r, None, 'web-stable', 'web-canary')
    ops = routes.weight_ops(r, rules, 'web-stable', 'web-canary', 25)
    assert ops == [
        {'op': 'test', 'path': '/metadata/resourceVersion', 'value': '41'},
        {'op': 'test', 'path': '/spec/rules/0/name', 'value': 'main'},
        {'op': 'test', 'path': '/spec/rules/0/backendRefs', 'value': r['spec']['rules'][0]['backendRefs']},
        {'op': 'replace', 'path': '/spec/rules/0/backendRefs/1/weight', 'value': 75},
        {'op': 'replace', 'path': '/spec/rules/0/backendRefs/2/weight', 'value': 25},
    ]
    after = jsonpatch.apply_patch(r, ops)
    expected = copy.deepcopy(r)
    expected['spec']['rules'][0]['backendRefs'][1]['weight'] = 75
    expected['spec']['rules'][0]['backendRefs'][2]['weight'] = 25
    assert after == expected
    assert routes.weights_written(after, rules, 'web-stable', 'web-canary', 25) is None
    assert 'has weights 100/0, not the 75/25 written' in routes.weights_written(
        r, rules, 'web-stable', 'web-canary', 25)
    # Nothing to do once the weights are in place; a weight changed since the read fails the test.
    assert routes.weight_ops(after, routes.select_rules(after, None, 'web-stable', 'web-canary'),
                             'web-stable', 'web-canary', 25) == []
    moved = copy.deepcopy(r)
    moved['spec']['rules'][0]['backendRefs'][1]['weight'] = 90
    with pytest.raises(jsonpatch.JsonPatchTestFailed):
        jsonpatch.apply_patch(moved, ops)


def test_a_rule_inserted_before_the_managed_one_fails_the_patch_never_rewrites_it():
    """The same pair in a rule inserted at index 0 between the read and the write: the identity
    tests fail (the API server answers a conflict), so the rule not managed is never rewritten."""
    r = route()
    ops = routes.weight_ops(r, routes.select_rules(r, 'main', 'web-stable', 'web-canary'),
                            'web-stable', 'web-canary', 25)
    for unnamed in (False, True):
        inserted = copy.deepcopy(r)
        intruder = copy.deepcopy(r['spec']['rules'][0])
        intruder['name'] = 'intruder'
        if unnamed:  # a rule without a name is pinned by its matches and backendRefs
            del intruder['name']
        inserted['spec']['rules'].insert(0, intruder)
        inserted['metadata']['resourceVersion'] = '41'  # even with the same resourceVersion
        with pytest.raises(jsonpatch.JsonPatchTestFailed):
            jsonpatch.apply_patch(inserted, ops)
    unnamed = copy.deepcopy(r)
    del unnamed['spec']['rules'][0]['name']
    pinned = routes.rule_identity_ops(0, unnamed['spec']['rules'][0])
    assert pinned[0] == {'op': 'test', 'path': '/spec/rules/0/matches',
                         'value': [{'path': {'type': 'PathPrefix', 'value': '/'}}]}


def test_a_backend_ref_to_a_service_of_another_namespace_is_not_ours():
    r = route()
    r['spec']['rules'][0]['backendRefs'][1]['namespace'] = 'other'
    with pytest.raises(routes.RouteProblem, match='no rule with backendRefs to both'):
        routes.select_rules(r, None, 'web-stable', 'web-canary')
    r['spec']['rules'][0]['backendRefs'][1]['namespace'] = 'shop'  # the route's own: the same as none
    assert [i for i, _ in routes.select_rules(r, None, 'web-stable', 'web-canary')] == [0]
    ref = {'group': 'example.com', 'kind': 'Service', 'name': 'web-stable'}
    assert routes.backend_index({'backendRefs': [ref]}, 'web-stable', 'shop') is None


def test_the_header_route_is_added_guarded_by_the_generation_and_removed_by_name():
    r = route()
    rules = routes.select_rules(r, None, 'web-stable', 'web-canary')
    header = {'name': 'testers', 'header': 'X-Canary', 'value': 'yes', 'type': 'Exact'}
    ops = routes.header_ops(r, rules, 'web-canary', header, True)
    assert ops[0] == {'op': 'test', 'path': '/metadata/generation', 'value': 3}
    added = jsonpatch.apply_patch(r, ops)
    rule = added['spec']['rules'][2]
    match = {'path': {'type': 'PathPrefix', 'value': '/'},
             'headers': [{'type': 'Exact', 'name': 'X-Canary', 'value': 'yes'}]}
    assert rule == {'name': 'testers', 'matches': [match], 'backendRefs': [service('web-canary', 1)]}
    assert routes.header_ops(added, rules, 'web-canary', header, True) == []
    removal = routes.header_ops(added, rules, 'web-canary', header, False)
    assert removal == [{'op': 'test', 'path': '/spec/rules/2/name', 'value': 'testers'},
                       {'op': 'remove', 'path': '/spec/rules/2'}]
    assert jsonpatch.apply_patch(added, removal) == r
    # The header route's rule is never one whose weights are set.
    assert [i for i, _ in routes.select_rules(added, None, 'web-stable', 'web-canary', 'testers')] == [0]


def test_parents_are_judged_at_the_generation():
    def status(generation, accepted='True', resolved='True', reason='Accepted'):
        return {'parents': [{'parentRef': {'group': routes.GROUP, 'kind': 'Gateway', 'name': 'public'},
                             'controllerName': 'x', 'conditions': [
                                 {'type': 'Accepted', 'status': accepted, 'reason': reason,
                                  'observedGeneration': generation},
                                 {'type': 'ResolvedRefs', 'status': resolved, 'reason': 'ResolvedRefs',
                                  'observedGeneration': generation}]}]}
    assert routes.parent_verdicts(route(3, status(3))) == [('Gateway shop/public', None)]
    assert routes.parent_verdicts(route(3, status(2))) == [('Gateway shop/public', 'pending')]
    assert routes.parent_verdicts(route(3)) == [('Gateway shop/public', 'pending')]
    assert routes.parent_verdicts(route(3, status(3, 'False', reason='NotAllowedByListeners'))) == [
        ('Gateway shop/public', 'Accepted is False (reason NotAllowedByListeners)')]
    # A False condition of an older generation is not this generation's verdict.
    assert routes.parent_verdicts(route(3, status(2, 'False'))) == [('Gateway shop/public', 'pending')]


def test_the_canary_s_share_counts_the_rule_s_other_backends():
    r = route()
    rules = routes.select_rules(r, None, 'web-stable', 'web-canary')
    # legacy keeps its 5 beside the pair's 50/50.
    assert routes.canary_shares(r, rules, 'web-stable', 'web-canary', 50) == [(50, 105)]
    r['spec']['rules'][0]['backendRefs'][0].pop('weight')  # the API's default, 1
    assert routes.canary_shares(r, rules, 'web-stable', 'web-canary', 10) == [(10, 101)]
    r['spec']['rules'][0]['backendRefs'][0]['weight'] = 0
    assert routes.canary_shares(r, rules, 'web-stable', 'web-canary', 10) == [(10, 100)]


def test_a_route_on_services_is_the_mesh_router_s_and_is_refused_naming_it():
    router = routes.HTTPRouteRouter()
    assert router.path('shop', 'web') == '/apis/gateway.networking.k8s.io/v1/namespaces/shop/httproutes/web'
    r = route()
    assert [i for i, _ in router.managed(r, None, 'web-stable', 'web-canary')] == [0]
    r['spec']['parentRefs'].append({'group': '', 'kind': 'Service', 'name': 'web'})
    with pytest.raises(routes.RouteProblem) as e:
        router.managed(r, None, 'web-stable', 'web-canary')
    assert str(e.value) == ('HTTPRoute shop/web has the parent Service shop/web (mesh), not a Gateway: '
                            'use the router mesh_httproute for it')
    # A parent of another group, though named Service, is not the mesh's.
    assert routes.parent_kind({'kind': 'Service', 'name': 'web'}) is None
    assert routes.parent_kind({'group': routes.GROUP, 'name': 'public'}) == 'Gateway'
    assert routes.parent_kind({'group': '', 'kind': 'Service', 'name': 'web'}) == 'Service'


def test_a_gateway_and_a_service_parent_of_the_same_name_are_not_the_same_parent():
    r = route(3, {'parents': [{'parentRef': {'group': '', 'kind': 'Service', 'name': 'public'},
                               'controllerName': 'mesh', 'conditions': [
                                   {'type': t, 'status': 'True', 'reason': t, 'observedGeneration': 3}
                                   for t in ('Accepted', 'ResolvedRefs')]}]})
    assert routes.parent_verdicts(r) == [('Gateway shop/public', 'pending')]

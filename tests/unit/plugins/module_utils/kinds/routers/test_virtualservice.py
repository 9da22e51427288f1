"""kinds/routers/virtualservice.py: the Istio VirtualService router, host level and subset level."""

import copy

import jsonpatch
import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers import table
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers import virtualservice as vsr
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers.router import RouteProblem, Track

pytestmark = pytest.mark.unit

ROUTER = table.router('virtualservice')
STABLE, CANARY = 'web-stable', 'web-canary'


def dest(host, weight=None, subset=None):
    out = {'destination': {'host': host, 'port': {'number': 80}}}
    if subset:
        out['destination']['subset'] = subset
    if weight is not None:
        out['weight'] = weight
    return out


def virtual_service(generation=3, status=None, http=None):
    return {
        'metadata': {'name': 'web', 'namespace': 'shop', 'generation': generation, 'resourceVersion': '41'},
        'spec': {'hosts': ['web.example'], 'gateways': ['public'], 'http': http if http is not None else [
            {'name': 'static', 'match': [{'uri': {'prefix': '/static'}}], 'route': [dest(STABLE)]},
            {'name': 'main', 'match': [{'uri': {'prefix': '/'}}], 'timeout': '5s',
             'route': [dest('legacy', 5), dest(STABLE, 100), dest('web-canary.shop.svc.cluster.local')]},
        ]},
        'status': status or {},
    }


def options(**given):
    out = {'route': {'namespace': 'shop', 'name': 'web'}, 'rule': None, 'stable_service': STABLE,
           'canary_service': CANARY, 'header_route': None, 'destination_rule': None}
    out.update(given)
    return out


def test_the_table_names_the_router():
    assert ROUTER.kind == 'VirtualService' and ROUTER.name == 'virtualservice'
    assert ROUTER.path('shop', 'web') == '/apis/networking.istio.io/v1/namespaces/shop/virtualservices/web'
    assert ROUTER.collection('shop') == '/apis/networking.istio.io/v1/namespaces/shop/virtualservices'
    assert ROUTER.label('shop', 'web') == 'VirtualService shop/web'
    assert ROUTER.verdict_required is False and ROUTER.judge == 'mesh'


def test_destinations_match_by_short_or_full_host_and_subset():
    route = {'route': [dest('web-stable.shop'), dest('web-stable.other.svc.cluster.local'),
                       dest(STABLE, subset='v1'), dest('web-stable.shop.svc.cluster.local')]}
    # `web-stable.shop` is taken as written by istiod (no Service), another namespace is not ours, a
    # subset is not the host level's destination.
    assert vsr.destination_index(route, STABLE, 'shop') == 3
    assert vsr.destination_index(route, 'web-stable/v1', 'shop') == 2
    assert vsr.destination_index(route, 'web-stable/v2', 'shop') is None


def test_the_route_holding_both_is_chosen_unless_one_is_named():
    vs = virtual_service()
    assert [i for i, _ in vsr.select_route(vs, None, STABLE, CANARY)] == [1]
    assert [i for i, _ in vsr.select_route(vs, 'main', STABLE, CANARY)] == [1]
    with pytest.raises(RouteProblem, match=r'http route 0 \(static\) has no destination web-canary: add it'):
        vsr.select_route(vs, 'static', STABLE, CANARY)
    with pytest.raises(RouteProblem, match="has no http route named '1' .its names: static, main."):
        vsr.select_route(vs, '1', STABLE, CANARY)
    with pytest.raises(RouteProblem, match='no http route with both destinations web-stable and other'):
        vsr.select_route(vs, None, STABLE, 'other')
    # Two routes holding both: the rule must name one, and the message names them.
    two = virtual_service()
    two['spec']['http'][0]['route'].append(dest(CANARY, 0))
    two['spec']['http'][0]['route'][0]['weight'] = 100
    with pytest.raises(RouteProblem, match=r'has 2 http routes with both .*\(http route 0 \(static\), '
                                           r'http route 1 \(main\)\): name the one to shift with rule'):
        vsr.select_route(two, None, STABLE, CANARY)


def test_the_weight_patch_tests_the_route_and_its_identity_then_sets_only_the_pair():
    vs = virtual_service()
    managed = ROUTER.managed(vs, None, STABLE, CANARY)
    assert ROUTER.weights(vs, managed[0], STABLE, CANARY) == (100, 0)  # an omitted weight is 0
    ops = ROUTER.plan(vs, managed, STABLE, CANARY, 25)
    assert ops == [
        {'op': 'test', 'path': '/metadata/resourceVersion', 'value': '41'},
        {'op': 'test', 'path': '/spec/http/1/name', 'value': 'main'},
        {'op': 'test', 'path': '/spec/http/1/route', 'value': vs['spec']['http'][1]['route']},
        {'op': 'replace', 'path': '/spec/http/1/route/1/weight', 'value': 75},
        {'op': 'add', 'path': '/spec/http/1/route/2/weight', 'value': 25},
    ]
    after = jsonpatch.apply_patch(vs, ops)
    expected = copy.deepcopy(vs)
    expected['spec']['http'][1]['route'][1]['weight'] = 75
    expected['spec']['http'][1]['route'][2]['weight'] = 25
    assert after == expected
    assert ROUTER.written(after, managed, STABLE, CANARY, 25) is None
    assert ROUTER.written(vs, managed, STABLE, CANARY, 25) == (
        'http route 1 (main) has weights 100/0, not the 75/25 written')
    now = ROUTER.managed(after, None, STABLE, CANARY)
    assert ROUTER.plan(after, now, STABLE, CANARY, 25) == []
    assert ROUTER.view(after, now, STABLE, CANARY) == {'http route 1 (main)': {STABLE: 75, CANARY: 25}}
    # The route's other destination keeps its weight 5 and takes its share.
    assert ROUTER.shares(vs, managed, STABLE, CANARY, 25) == [(25, 105)]
    # A weight changed since the read fails the patch.
    moved = copy.deepcopy(vs)
    moved['spec']['http'][1]['route'][0]['weight'] = 6
    with pytest.raises(jsonpatch.JsonPatchTestFailed):
        jsonpatch.apply_patch(moved, ops)


def test_a_route_inserted_before_the_managed_one_fails_the_patch_never_rewrites_it():
    vs = virtual_service()
    ops = ROUTER.plan(vs, ROUTER.managed(vs, 'main', STABLE, CANARY), STABLE, CANARY, 25)
    for named in (True, False):
        inserted = copy.deepcopy(vs)
        intruder = copy.deepcopy(vs['spec']['http'][1])
        intruder['name'] = 'intruder'
        if not named:
            del intruder['name']
        inserted['spec']['http'].insert(1, intruder)
        with pytest.raises(jsonpatch.JsonPatchTestFailed):
            jsonpatch.apply_patch(inserted, ops)
    # An unnamed route is pinned by its match and destinations.
    pair = [dest(STABLE, 1), dest(CANARY)]
    unnamed = virtual_service(http=[{'match': [{'uri': {'prefix': '/'}}], 'route': pair}])
    assert vsr.identity_ops(0, unnamed['spec']['http'][0])[0] == {
        'op': 'test', 'path': '/spec/http/0/match', 'value': [{'uri': {'prefix': '/'}}]}
    bare = virtual_service(http=[{'route': [dest(STABLE, 1), dest(CANARY)]}])
    assert [o['path'] for o in vsr.identity_ops(0, bare['spec']['http'][0])] == ['/spec/http/0/route']


def test_the_header_route_is_inserted_before_the_managed_route_and_removed_by_name():
    vs = virtual_service()
    managed = ROUTER.managed(vs, None, STABLE, CANARY)
    header = {'name': 'testers', 'header': 'x-canary', 'value': 'yes', 'type': 'Exact'}
    ops = ROUTER.plan(vs, managed, STABLE, CANARY, 10, header, True)
    assert ops[:4] == [
        {'op': 'test', 'path': '/metadata/resourceVersion', 'value': '41'},
        {'op': 'test', 'path': '/spec/http/1/name', 'value': 'main'},
        {'op': 'test', 'path': '/spec/http/1/route', 'value': vs['spec']['http'][1]['route']},
        {'op': 'test', 'path': '/metadata/generation', 'value': 3},
    ]
    assert ops[-1]['op'] == 'add' and ops[-1]['path'] == '/spec/http/1'  # after the weights, before main
    added = jsonpatch.apply_patch(vs, ops)
    assert [r.get('name') for r in added['spec']['http']] == ['static', 'testers', 'main']
    assert added['spec']['http'][1] == {
        'name': 'testers', 'timeout': '5s',
        'match': [{'uri': {'prefix': '/'}, 'headers': {'x-canary': {'exact': 'yes'}}}],
        'route': [{'destination': {'host': 'web-canary.shop.svc.cluster.local', 'port': {'number': 80}}}],
    }
    # The answer read back: the managed route moved one down, its weights as written.
    assert ROUTER.written(added, managed, STABLE, CANARY, 10) is None
    assert ROUTER.header_present(added, header)
    again = ROUTER.managed(added, None, STABLE, CANARY, header)
    assert [i for i, _ in again] == [2]
    assert ROUTER.plan(added, again, STABLE, CANARY, 10, header, True) == []
    removal = ROUTER.plan(added, again, STABLE, CANARY, 0, header, False)
    assert removal[-2:] == [{'op': 'replace', 'path': '/spec/http/2/route/2/weight', 'value': 0},
                            {'op': 'remove', 'path': '/spec/http/1'}]
    assert {'op': 'test', 'path': '/spec/http/1/name', 'value': 'testers'} in removal
    removed = jsonpatch.apply_patch(added, removal)
    assert [r.get('name') for r in removed['spec']['http']] == ['static', 'main']
    assert ROUTER.written(removed, again, STABLE, CANARY, 0) is None
    # A regular expression; a route without matches gets the header's alone.
    regex = dict(header, type='RegularExpression', value='^(yes|on)$')
    bare = {'name': 'all', 'route': [dest(STABLE, 100), dest(CANARY, 0)]}
    assert vsr.header_http_route(bare, CANARY, regex, 'shop')['match'] == [
        {'headers': {'x-canary': {'regex': '^(yes|on)$'}}}]
    # A route inserted since the read fails the insertion too (the generation moved).
    moved = copy.deepcopy(vs)
    moved['metadata']['generation'] = 4
    with pytest.raises(jsonpatch.JsonPatchTestFailed):
        jsonpatch.apply_patch(moved, ops)


def test_reconciled_is_the_verdict_only_where_istiod_writes_it():
    assert ROUTER.verdicts(virtual_service()) == []

    def status(generation, value='True', at_status=False):
        condition = {'type': 'Reconciled', 'status': value, 'message': '1/1 proxies up to date.'}
        if not at_status:
            condition['observedGeneration'] = generation
        return {'conditions': [condition], 'observedGeneration': generation}

    assert ROUTER.verdicts(virtual_service(3, status(3))) == [('istiod', None)]
    assert ROUTER.verdicts(virtual_service(3, status(3, at_status=True))) == [('istiod', None)]
    assert ROUTER.verdicts(virtual_service(3, status('3'))) == [('istiod', None)]  # int-or-string
    assert ROUTER.verdicts(virtual_service(3, status(2))) == [('istiod', 'pending')]
    assert ROUTER.verdicts(virtual_service(3, status(3, 'False'))) == [('istiod', 'pending')]


def test_host_level_takes_two_services():
    assert ROUTER.check(options()) == []
    assert ROUTER.check(options(canary_service=None)) == [
        'canary_service is required with the router virtualservice']
    assert ROUTER.pair(options()) == (STABLE, CANARY)
    assert ROUTER.related('shop', options()) == []
    assert ROUTER.tracks('shop', options(), [])['canary'] == Track(CANARY, None, 'canary_service')


def subset_options(**given):
    rule = dict({'name': 'web', 'stable_subset': 'stable', 'canary_subset': 'canary'}, **given)
    return options(stable_service='web', canary_service=None, destination_rule=rule)


def destination_rule(host='web', subsets=(('stable', {'track': 'stable'}), ('canary', {'track': 'canary'}))):
    return {'metadata': {'name': 'web', 'namespace': 'shop'},
            'spec': {'host': host, 'subsets': [{'name': n, 'labels': dict(labels)} for n, labels in subsets]}}


def test_subset_level_takes_the_destination_rule_s_subsets():
    opts = subset_options()
    assert ROUTER.check(opts) == []
    assert ROUTER.check(dict(opts, canary_service='web')) == []
    assert ROUTER.check(dict(opts, canary_service='web-canary')) == [
        'with destination_rule both subsets are of the stable_service host web: leave canary_service out '
        '(it names web-canary)']
    assert ROUTER.check(subset_options(canary_subset='stable')) == [
        'destination_rule.stable_subset and canary_subset name the same subset (stable): give two subsets']
    assert ROUTER.pair(opts) == ('web/stable', 'web/canary')
    assert ROUTER.related('shop', opts) == [
        ('/apis/networking.istio.io/v1/namespaces/shop/destinationrules/web', 'DestinationRule shop/web')]
    tracks = ROUTER.tracks('shop', opts, [destination_rule()])
    assert tracks == {'stable': Track('web', {'track': 'stable'}, 'destination_rule.stable_subset'),
                      'canary': Track('web', {'track': 'canary'}, 'destination_rule.canary_subset')}
    # The rule of the full host name is the same host's.
    assert ROUTER.tracks('shop', opts, [destination_rule('web.shop.svc.cluster.local')]) == tracks
    with pytest.raises(RouteProblem, match='DestinationRule shop/web is for the host other, not the Service'):
        ROUTER.tracks('shop', opts, [destination_rule('other')])
    with pytest.raises(RouteProblem, match='DestinationRule shop/web has no subset canary .canary_subset.'):
        ROUTER.tracks('shop', opts, [destination_rule(subsets=(('stable', {'track': 'stable'}),))])


def test_subset_level_shifts_between_the_subsets_of_one_host():
    three = [dest('web', 90, 'stable'), dest('web', 10, 'canary'), dest('web', 0, 'baseline')]
    vs = virtual_service(http=[{'name': 'main', 'route': three}])
    stable, canary = ROUTER.pair(subset_options())
    managed = ROUTER.managed(vs, None, stable, canary)
    ops = ROUTER.plan(vs, managed, stable, canary, 50)
    assert ops[-2:] == [{'op': 'replace', 'path': '/spec/http/0/route/0/weight', 'value': 50},
                        {'op': 'replace', 'path': '/spec/http/0/route/1/weight', 'value': 50}]
    assert ROUTER.view(vs, managed, stable, canary) == {
        'http route 0 (main)': {'web/stable': 90, 'web/canary': 10}}
    with pytest.raises(RouteProblem, match='no http route with both destinations web/stable and web/v2'):
        ROUTER.managed(vs, None, stable, 'web/v2')


def test_subset_level_still_refuses_the_options_of_other_routers(monkeypatch):
    from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers import router as router_mod

    monkeypatch.setitem(router_mod.OWN_OPTIONS, 'tls_mode', ('openshift_route',))
    assert ROUTER.check(dict(subset_options(), tls_mode='edge')) == [
        'traffic option tls_mode is for the router openshift_route, not virtualservice']


def test_a_step_waits_a_second_for_istiod_s_push():
    assert ROUTER.settle_seconds == 1

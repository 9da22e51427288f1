"""kinds/routers/openshift_route.py: an OpenShift Route as a traffic canary reads and writes it."""

import copy

import jsonpatch
import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers import openshift_route as routes
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers import table

pytestmark = pytest.mark.unit

ROUTER = routes.OpenShiftRouteRouter()
HOST = 'web-shop.apps.example.com'


def backend(name, weight=None):
    out = {'kind': 'Service', 'name': name}
    if weight is not None:
        out['weight'] = weight
    return out


def route(to=('web-stable', 100), alternates=(('legacy', 20), ('web-canary', 0)), ingress=None):
    return {
        'metadata': {'name': 'web', 'namespace': 'shop', 'generation': 3, 'resourceVersion': '41'},
        'spec': {'host': HOST, 'to': backend(*to), 'alternateBackends': [backend(*a) for a in alternates],
                 'wildcardPolicy': 'None'},
        'status': {'ingress': ingress} if ingress is not None else {},
    }


def options(**given):
    out = {'route': {'namespace': 'shop', 'name': 'web'}, 'rule': None, 'stable_service': 'web-stable',
           'canary_service': 'web-canary', 'header_route': None, 'destination_rule': None}
    out.update(given)
    return out


def test_the_table_names_it_and_check_refuses_rule_and_header_route_before_any_request():
    assert table.router('openshift_route') is table.ROUTERS['openshift_route']
    assert ROUTER.name == 'openshift_route' and ROUTER.kind == 'Route' and ROUTER.judge == 'router'
    assert ROUTER.label('shop', 'web') == 'Route shop/web'
    assert ROUTER.path('shop', 'web') == '/apis/route.openshift.io/v1/namespaces/shop/routes/web'
    assert ROUTER.collection('shop') == '/apis/route.openshift.io/v1/namespaces/shop/routes'
    assert ROUTER.check(options()) == []
    assert table.problems(dict(options(rule='main'), router='openshift_route')) == [
        "rule 'main': an OpenShift Route has one set of backends (spec.to and alternateBackends), no rules "
        "to choose from; leave rule out"]
    header = {'name': 'testers', 'header': 'X-Canary', 'value': 'yes', 'type': 'Exact', 'state': 'present'}
    [problem] = ROUTER.check(options(header_route=header))
    assert problem.startswith('header_route: an OpenShift Route has no header matches')
    # The defaults every router has still hold.
    assert ROUTER.check(options(canary_service='web-stable')) == [
        'stable_service and canary_service name the same Service (web-stable): give two Services']
    assert ROUTER.check(options(destination_rule={'name': 'web'})) == [
        'traffic option destination_rule is for the router virtualservice, not openshift_route']


def test_spec_to_is_the_stable_service_and_one_alternate_backend_the_canary():
    r = route()
    assert ROUTER.managed(r, None, 'web-stable', 'web-canary') == [(1, r['spec'])]
    assert ROUTER.weights(r, (1, r['spec']), 'web-stable', 'web-canary') == (100, 0)
    text = 'Route shop/web sends spec.to to the canary Service web-canary: spec.to must be the stable Service'
    with pytest.raises(routes.RouteProblem, match=text):
        ROUTER.managed(route(to=('web-canary', 100), alternates=(('web-stable', 0),)), None,
                       'web-stable', 'web-canary')
    with pytest.raises(routes.RouteProblem, match='has spec.to Service other, not the stable Service'):
        ROUTER.managed(route(to=('other', 100)), None, 'web-stable', 'web-canary')
    with pytest.raises(routes.RouteProblem, match='no alternateBackends entry for the Service web-canary: '
                                                  'add it with weight 0'):
        ROUTER.managed(route(alternates=(('legacy', 20),)), None, 'web-stable', 'web-canary')
    full = route(alternates=(('a', 1), ('b', 1), ('c', 1)))
    with pytest.raises(routes.RouteProblem, match='it already has 3, the most a Route takes'):
        ROUTER.managed(full, None, 'web-stable', 'web-canary')
    with pytest.raises(routes.RouteProblem, match='no rules to choose from'):
        ROUTER.managed(r, '0', 'web-stable', 'web-canary')
    # A backend of another kind is not the Service of that name.
    other_kind = route()
    other_kind['spec']['alternateBackends'][1]['kind'] = 'Other'
    with pytest.raises(routes.RouteProblem, match='no alternateBackends entry'):
        ROUTER.managed(other_kind, None, 'web-stable', 'web-canary')


def test_the_patch_tests_the_route_and_both_backends_then_sets_the_percent_on_a_scale_of_100():
    r = route()
    managed = ROUTER.managed(r, None, 'web-stable', 'web-canary')
    ops = ROUTER.plan(r, managed, 'web-stable', 'web-canary', 25)
    assert ops == [
        {'op': 'test', 'path': '/metadata/resourceVersion', 'value': '41'},
        {'op': 'test', 'path': '/spec/to', 'value': backend('web-stable', 100)},
        {'op': 'test', 'path': '/spec/alternateBackends/1', 'value': backend('web-canary', 0)},
        {'op': 'replace', 'path': '/spec/to/weight', 'value': 75},
        {'op': 'replace', 'path': '/spec/alternateBackends/1/weight', 'value': 25},
    ]
    after = jsonpatch.apply_patch(r, ops)
    expected = copy.deepcopy(r)
    expected['spec']['to']['weight'], expected['spec']['alternateBackends'][1]['weight'] = 75, 25
    assert after == expected  # legacy, the host and everything else as they were
    assert ROUTER.written(after, managed, 'web-stable', 'web-canary', 25) is None
    assert ROUTER.written(r, managed, 'web-stable', 'web-canary', 25) == (
        'the weights are 100/0, not the 75/25 written')
    assert ROUTER.plan(after, ROUTER.managed(after, None, 'web-stable', 'web-canary'),
                       'web-stable', 'web-canary', 25) == []
    # A backend changed since the read fails the patch, even at the same resourceVersion.
    for change in (lambda x: x['spec']['to'].update(weight=90),
                   lambda x: x['spec']['alternateBackends'].insert(0, backend('intruder', 5))):
        moved = copy.deepcopy(r)
        change(moved)
        with pytest.raises(jsonpatch.JsonPatchTestFailed):
            jsonpatch.apply_patch(moved, ops)
    # Weights left to the API's default (100) are added, and read as 100.
    bare = route(to=('web-stable', None), alternates=(('web-canary', None),))
    managed = ROUTER.managed(bare, None, 'web-stable', 'web-canary')
    assert ROUTER.weights(bare, managed[0], 'web-stable', 'web-canary') == (100, 100)
    ops = ROUTER.plan(bare, managed, 'web-stable', 'web-canary', 100)
    assert [o['op'] for o in ops[3:]] == ['add', 'add']
    assert jsonpatch.apply_patch(bare, ops)['spec']['to']['weight'] == 0
    with pytest.raises(routes.RouteProblem, match='no header matches'):
        ROUTER.plan(r, managed, 'web-stable', 'web-canary', 25, header_route={'name': 'x'})


def test_the_read_back_names_a_backend_moved_away():
    r = route()
    managed = ROUTER.managed(r, None, 'web-stable', 'web-canary')
    moved = copy.deepcopy(r)
    moved['spec']['alternateBackends'].pop(0)
    assert ROUTER.written(moved, managed, 'web-stable', 'web-canary', 0) == (
        'alternateBackends[1] is no longer the Service web-canary')
    moved = copy.deepcopy(r)
    moved['spec']['to']['name'] = 'other'
    assert ROUTER.written(moved, managed, 'web-stable', 'web-canary', 0) == (
        'spec.to is no longer the Service web-stable')


def test_other_alternate_backends_take_their_share():
    r = route()
    managed = ROUTER.managed(r, None, 'web-stable', 'web-canary')
    # legacy keeps its 20 beside the pair's 90/10: the canary gets 10 of 120.
    assert ROUTER.shares(r, managed, 'web-stable', 'web-canary', 10) == [(10, 120)]
    alone = route(alternates=(('web-canary', 0),))
    assert ROUTER.shares(alone, ROUTER.managed(alone, None, 'web-stable', 'web-canary'),
                         'web-stable', 'web-canary', 10) == [(10, 100)]
    assert ROUTER.view(r, managed, 'web-stable', 'web-canary') == {
        'backends': {'web-stable': 100, 'web-canary': 0}}


def test_each_router_s_admitted_condition_for_the_spec_s_host_is_its_verdict():
    def entry(router, status, host=HOST, reason=None, message=None):
        condition = {'type': 'Admitted', 'status': status, 'lastTransitionTime': '2026-01-01T00:00:00Z'}
        if reason:
            condition.update(reason=reason, message=message)
        return {'routerName': router, 'host': host, 'wildcardPolicy': 'None', 'conditions': [condition]}

    assert ROUTER.verdicts(route(ingress=[entry('default', 'True')])) == [('router default', None)]
    refused = entry('sharded', 'False', reason='HostAlreadyClaimed',
                    message='a route in another namespace holds host %s' % HOST)
    assert ROUTER.verdicts(route(ingress=[entry('default', 'True'), refused])) == [
        ('router default', None),
        ('router sharded', 'Admitted is False (reason HostAlreadyClaimed: a route in another namespace holds '
                           'host %s)' % HOST)]
    # Not judged yet: no entry at all, an entry for another host, no Admitted condition, Unknown.
    assert ROUTER.verdicts(route()) == [('its routers', 'pending')]
    assert ROUTER.verdicts(route(ingress=[entry('default', 'True', host='old.example.com')])) == [
        ('router default', 'pending')]
    assert ROUTER.verdicts(route(ingress=[{'routerName': 'default', 'host': HOST, 'conditions': []}])) == [
        ('router default', 'pending')]
    assert ROUTER.verdicts(route(ingress=[entry('default', 'Unknown')])) == [('router default', 'pending')]
    assert ROUTER.verdict_required

"""kinds/routers/router.py: the router interface, which every router of the table answers whole, and
the defaults a router inherits (the options of other routers refused, the pair and tracks of two
Services)."""

import inspect

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers import router as router_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers import table

pytestmark = pytest.mark.unit

# What a router may inherit: the defaults of two Services, no related object, the label.
DEFAULTS = {'label', 'check', 'pair', 'related', 'tracks', 'no_verdict_text'}


def options(**given):
    out = {'route': {'namespace': 'shop', 'name': 'web'}, 'rule': None, 'stable_service': 'web-stable',
           'canary_service': 'web-canary', 'header_route': None, 'destination_rule': None}
    out.update(given)
    return out


def test_every_router_of_the_table_answers_the_whole_interface():
    interface = {name for name, _f in inspect.getmembers(router_mod.Router, inspect.isfunction)}
    assert {'path', 'collection', 'label', 'managed', 'weights', 'plan', 'written', 'header_present',
            'verdicts', 'view', 'shares', 'check', 'pair', 'related', 'tracks'} <= interface
    for name in table.ROUTERS:
        chosen = table.router(name)
        assert isinstance(chosen, router_mod.Router) and chosen.kind and chosen.name == name
        for method in interface - DEFAULTS:
            assert getattr(type(chosen), method) is not getattr(router_mod.Router, method), (name, method)


def test_a_router_refuses_the_options_of_another_and_the_same_service_twice():
    httproute = table.router('httproute')
    assert httproute.check(options()) == []
    assert httproute.check(options(destination_rule={'name': 'web'})) == [
        'traffic option destination_rule is for the router virtualservice, not httproute']
    assert httproute.check(options(canary_service=None)) == [
        'canary_service is required with the router httproute']
    assert httproute.check(options(canary_service='web-stable')) == [
        'stable_service and canary_service name the same Service (web-stable): give two Services']


def test_two_services_are_the_pair_and_the_tracks_by_default():
    httproute = table.router('httproute')
    assert httproute.pair(options()) == ('web-stable', 'web-canary')
    assert httproute.related('shop', options()) == []
    tracks = httproute.tracks('shop', options(), [])
    assert tracks == {'stable': router_mod.Track('web-stable', None, 'stable_service'),
                      'canary': router_mod.Track('web-canary', None, 'canary_service')}
    assert tracks['canary'].text('shop') == 'Service shop/web-canary'
    assert router_mod.Track('web', {'track': 'canary', 'app': 'web'}).text('shop') == (
        'Service shop/web (pods app=web,track=canary)')


def test_an_unknown_router_is_named_with_the_known_ones():
    with pytest.raises(ValueError, match=r"no traffic router 'linkerd': (\w+, )*httproute"):
        table.router('linkerd')

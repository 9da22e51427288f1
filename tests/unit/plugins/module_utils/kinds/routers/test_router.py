"""kinds/routers/router.py: the router interface, and the table that chooses a router by name."""

import inspect

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers import router as router_mod

pytestmark = pytest.mark.unit


def test_every_router_of_the_table_answers_the_whole_interface():
    interface = {name for name, _f in inspect.getmembers(router_mod.Router, inspect.isfunction)}
    assert {'path', 'collection', 'label', 'managed', 'weights', 'plan', 'written', 'header_present',
            'verdicts', 'view'} <= interface
    for name in router_mod.ROUTERS:
        chosen = router_mod.router(name)
        assert isinstance(chosen, router_mod.Router) and chosen.kind
        for method in interface - {'label'}:
            assert getattr(type(chosen), method) is not getattr(router_mod.Router, method), (name, method)


def test_the_default_router_is_the_httproute_and_an_unknown_one_is_named():
    assert router_mod.router(None).kind == 'HTTPRoute'
    assert router_mod.router(None).label('shop', 'web') == 'HTTPRoute shop/web'
    with pytest.raises(ValueError, match="no traffic router 'nginx': httproute"):
        router_mod.router('nginx')

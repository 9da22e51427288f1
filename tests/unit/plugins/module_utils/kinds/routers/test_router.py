"""kinds/routers/router.py: the router interface, which every router of the table answers whole."""

import inspect

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers import router as router_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers import table

pytestmark = pytest.mark.unit


def test_every_router_of_the_table_answers_the_whole_interface():
    interface = {name for name, _f in inspect.getmembers(router_mod.Router, inspect.isfunction)}
    assert {'path', 'collection', 'label', 'managed', 'weights', 'plan', 'written', 'header_present',
            'verdicts', 'view'} <= interface
    for name in table.ROUTERS:
        chosen = table.router(name)
        assert isinstance(chosen, router_mod.Router) and chosen.kind
        for method in interface - {'label'}:
            assert getattr(type(chosen), method) is not getattr(router_mod.Router, method), (name, method)

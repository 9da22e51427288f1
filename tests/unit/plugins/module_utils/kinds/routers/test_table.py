"""kinds/routers/table.py: a router chosen by its name."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers import table

pytestmark = pytest.mark.unit


def test_the_default_router_is_the_httproute_and_an_unknown_one_is_named():
    assert table.router(None).kind == 'HTTPRoute'
    assert table.router(None).label('shop', 'web') == 'HTTPRoute shop/web'
    with pytest.raises(ValueError, match="no traffic router 'nginx': grpcroute, httproute, mesh_httproute"):
        table.router('nginx')


def test_every_router_is_under_the_name_it_answers_to():
    for name, router in table.ROUTERS.items():
        assert router.name == name and name in table.NAMES
    assert (table.router('mesh_httproute').kind, table.router('grpcroute').kind) == ('HTTPRoute', 'GRPCRoute')

"""kinds/routers/table.py: a router chosen by its name."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers import table

pytestmark = pytest.mark.unit


def test_the_default_router_is_the_httproute_and_an_unknown_one_is_named():
    assert table.router(None).kind == 'HTTPRoute'
    assert table.router(None).label('shop', 'web') == 'HTTPRoute shop/web'
    with pytest.raises(ValueError, match="no traffic router 'nginx': httproute"):
        table.router('nginx')

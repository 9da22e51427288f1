import pytest

from .bluegreen_support import make_sim


@pytest.fixture
def bluegreen_sim(kubesim_factory):
    """A kubesim with a blue/green app (bluegreen_support.py): web-blue (2 pods) live, web-green idle."""
    return make_sim(kubesim_factory)

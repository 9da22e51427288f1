"""The strategy of a release is chosen once, from its options."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.usecases import strategies
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import canary
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release.release import Release
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release.targets import ReleaseOptions

pytestmark = pytest.mark.unit


@pytest.mark.parametrize('phase, expected', [
    (None, Release), ('start', canary.CanaryStart), ('promote', canary.CanaryPromote),
    ('rollback', canary.CanaryRollback)])
def test_the_canary_option_chooses_the_strategy(phase, expected):
    chosen = strategies.strategy(ReleaseOptions(canary=phase))
    assert chosen is expected and issubclass(chosen, Release)


def test_every_canary_phase_is_a_strategy_of_its_own():
    assert set(canary.PHASES) == {'start', 'promote', 'rollback'}
    assert len(set(canary.PHASES.values())) == 3


def test_the_traffic_option_chooses_the_traffic_canary():
    from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.traffic.canary import TrafficCanary
    assert strategies.strategy(ReleaseOptions(traffic={'steps': [{'weight': 10}]})) is TrafficCanary
    assert strategies.strategy(ReleaseOptions(traffic=None)) is Release

"""Unit tests of module_utils/rc/steps.py (the rolling update's step math)."""

import itertools
import random

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.common import errors
from ansible_collections.kubeops.rollout.plugins.module_utils.rc import steps as step_math
from tests.support.rc import steps

pytestmark = pytest.mark.unit


# ---- fenceposts ----------------------------------------------------------------------------------
@pytest.mark.parametrize('surge, unavailable, desired, expected', [
    (1, 0, 3, (1, 0)),
    ('25%', '25%', 10, (3, 2)),  # surge rounds up, unavailable down
    ('10%', '10%', 3, (1, 0)),
    ('1%', '1%', 2, (1, 0)),
    ('0%', '1%', 2, (0, 1)),  # both resolve to 0: unavailable becomes 1
    (0, '30%', 10, (0, 3)),
    ('2', '1', 5, (2, 1)),  # digit strings (YAML) are numbers
    ('50%', 0, 0, (0, 1)),
])
def test_resolve_fenceposts(surge, unavailable, desired, expected):
    assert step_math.resolve_fenceposts(surge, unavailable, desired) == expected


@pytest.mark.parametrize('surge, unavailable, message', [
    (0, 0, 'cannot both be 0'),
    ('0%', '0', 'cannot both be 0'),
    ('abc', 1, 'max_surge must be an integer or a percentage'),
    (1, '-5%', 'max_unavailable must be an integer or a percentage'),
    (-1, 1, 'must not be negative'),
    (True, 1, 'max_surge must be an integer'),
])
def test_check_fenceposts_rejects(surge, unavailable, message):
    with pytest.raises(errors.UpdateError, match=message):
        step_math.check_fenceposts(surge, unavailable)


def test_limits_zero_desired_lets_everything_go():
    lim = step_math.limits(1, 0, 0, 4)
    assert (lim.desired, lim.unavailable, lim.min_available) == (0, 4, 0)


# ---- the step plan -------------------------------------------------------------------------------
def test_plan_defaults_one_pod_at_a_time():
    assert steps(3, 0, 3, 1, 0) == [('scale up', 1), ('scale down', 2), ('scale up', 2), ('scale down', 1),
                                    ('scale up', 3), ('scale down', 0)]


def test_plan_surge_0_unavailable_1_scales_down_first():
    assert steps(3, 0, 3, 0, 1) == [('scale down', 2), ('scale up', 1), ('scale down', 1), ('scale up', 2),
                                    ('scale down', 0), ('scale up', 3)]


def test_plan_percentages():
    assert steps(10, 0, 10, '25%', '25%') == [('scale up', 3), ('scale down', 5), ('scale up', 8),
                                              ('scale down', 0), ('scale up', 10)]


def test_plan_zero_desired_is_one_scale_down():
    assert steps(3, 0, 0, 1, 0) == [('scale down', 0)]
    assert steps(0, 0, 0, 1, 0) == []


def test_plan_from_zero_old_scales_new_all_the_way():
    assert steps(0, 0, 4, 1, 0) == [('scale up', 4)]


def test_plan_resumes_from_a_partial_state():
    # Killed after the new RC reached 2 of 3 and the old one 1: the rest of the same plan.
    assert steps(1, 2, 3, 1, 0) == [('scale up', 3), ('scale down', 0)]


def test_plan_grows_desired_count():
    # A definition may ask for more replicas than the old RC had.
    assert steps(2, 0, 5, 1, 0) == [('scale up', 4), ('scale down', 1), ('scale up', 5), ('scale down', 0)]


def test_step_records_both_counts():
    lim = step_math.limits(1, 0, 2, 2)
    first, second = step_math.plan_steps(2, 0, lim, 'web', 'web-2')[:2]
    assert step_math.step_dict(first) == {'action': 'scale up', 'controller': 'web-2', 'from': 0, 'to': 1,
                                   'old_replicas': 2, 'new_replicas': 1}
    assert step_math.step_dict(second) == {'action': 'scale down', 'controller': 'web', 'from': 2, 'to': 1,
                                    'old_replicas': 1, 'new_replicas': 1}


def test_scale_down_waits_for_new_pods():
    lim = step_math.limits(1, 0, 3, 3)
    assert step_math.scale_down_target(3, 1, 0, lim) is None  # the new pod is not ready: nothing may go
    assert step_math.scale_down_target(3, 1, 1, lim) == 2


def test_scale_down_all_the_way_once_new_is_available():
    lim = step_math.limits(3, 0, 3, 3)  # a large surge: old may still have 3 when new has 3
    assert step_math.scale_down_target(3, 3, 3, lim) == 0


def test_scale_up_respects_surge_and_desired():
    lim = step_math.limits(2, 0, 3, 3)
    assert step_math.scale_up_target(3, 0, lim) == 2
    assert step_math.scale_up_target(3, 2, lim) is None  # 5 = desired + surge already
    assert step_math.scale_up_target(0, 2, lim) == 3  # nothing old left: all the way
    assert step_math.scale_up_target(1, 3, lim) is None


def _check_invariants(old, new, desired, surge, unavailable, ready_model):
    """Simulate the loop with a readiness model; check both bounds after every step."""
    lim = step_math.limits(surge, unavailable, desired, old)
    available_new = [0]

    def ready(new_replicas, rnd):
        available_new[0] = min(new_replicas, ready_model(new_replicas, rnd, available_new[0]))
        return available_new[0]

    plan = step_math.plan_steps(old, new, lim, ready=ready, max_rounds=5000)
    cur_old, cur_new, avail = old, new, 0
    for step in plan:
        if step.action == 'scale up':
            cur_new = step.to_replicas
            assert cur_old + cur_new <= desired + lim.surge, (step, lim)
        else:
            cur_old = step.to_replicas
            avail = min(cur_new, available_new[0])
            # Old pods are all available; only new ones may lag.
            assert cur_old + avail >= lim.min_available, (step, lim, avail)
    assert (cur_old, cur_new) == (0, desired)
    return plan


@pytest.mark.parametrize('desired, surge, unavailable', [
    (3, 1, 0), (3, 0, 1), (5, 2, 1), (10, '25%', '25%'), (4, '50%', 0), (1, 1, 0), (1, 0, 1), (7, 3, 3),
    (0, 1, 0), (6, 0, '34%'), (2, '100%', 0),
])
def test_invariants_hold_at_every_step(desired, surge, unavailable):
    models = {
        'instant': lambda n, rnd, prev: n,
        'one round late': lambda n, rnd, prev: prev if rnd % 2 else n,
        'one pod per round': lambda n, rnd, prev: min(n, prev + 1),
    }
    for model in models.values():
        _check_invariants(desired, 0, desired, surge, unavailable, model)


def test_invariants_hold_with_random_readiness():
    rng = random.Random(7)
    for desired, surge, unavailable in itertools.product((1, 2, 5, 8), (0, 1, 3, '25%'), (0, 1, '50%')):
        if step_math._is_zero(surge) and step_math._is_zero(unavailable):
            continue
        _check_invariants(desired, 0, desired, surge, unavailable,
                          lambda n, rnd, prev: max(prev, min(n, prev + rng.randint(0, 2))))


def test_plan_stops_when_new_pods_never_become_ready():
    lim = step_math.limits(1, 0, 3, 3)
    with pytest.raises(errors.UpdateError, match='no progress'):
        step_math.plan_steps(3, 0, lim, ready=lambda n, rnd: 0, max_rounds=50)

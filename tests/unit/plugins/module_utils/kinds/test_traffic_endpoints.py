import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import traffic_endpoints as endpoints

pytestmark = pytest.mark.unit


def endpoint(pod, ready=None):
    e = {'addresses': ['10.0.0.%d' % len(pod)], 'targetRef': {'kind': 'Pod', 'name': pod}}
    if ready is not None:
        e['conditions'] = {'ready': ready}
    return e


def test_ready_endpoints_count_each_pod_once_and_absent_ready_as_ready():
    slices = [{'endpoints': [endpoint('a'), endpoint('b', True), endpoint('c', False)]},
              {'endpoints': [endpoint('a', True)]}, {'endpoints': None}]
    assert endpoints.ready_endpoints(slices) == 2
    assert endpoints.ready_endpoints([]) == 0


@pytest.mark.parametrize('percent,other,need', [(0, 4, 0), (5, 4, 1), (25, 4, 1), (50, 4, 2), (100, 4, 4),
                                               (10, 0, 1), (1, 100, 1), (30, 10, 3)])
def test_a_share_needs_the_capacity_it_takes(percent, other, need):
    assert endpoints.needed_endpoints(percent, other) == need


def test_selects():
    assert endpoints.selects({'app': 'web', 'track': 'canary'}, {'app': 'web', 'track': 'canary', 'x': 'y'})
    assert not endpoints.selects({'app': 'web'}, {'app': 'api'})
    assert not endpoints.selects({}, {'app': 'web'})  # a Service without selector has no managed endpoints

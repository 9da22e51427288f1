"""state: adopted (usecases/bluegreen/adopt.py): the second color made from the first."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen.adopt import second_color

pytestmark = pytest.mark.unit

LABEL = 'kubeops.rollout/color'


def test_the_second_color_is_the_first_with_the_other_color_and_no_pods():
    first = {'metadata': {'name': 'web', 'namespace': 'shop', 'labels': {'app': 'web'}, 'generation': 4,
                          'annotations': {'kubernetes.io/change-cause': 'x'}},
             'spec': {'replicas': 3, 'paused': False,
                      'selector': {'matchLabels': {'app': 'web'},
                                   'matchExpressions': [{'key': 'tier', 'operator': 'Exists'}]},
                      'template': {'metadata': {'labels': {'app': 'web', LABEL: 'blue', 'tier': 'a'}},
                                   'spec': {'containers': [{'name': 'app', 'image': 'a:1'}]}}},
             'status': {'replicas': 3}}
    second = second_color(first, 'web-green', LABEL, 'green')
    assert second['metadata'] == {'name': 'web-green', 'namespace': 'shop', 'labels': {'app': 'web'}}
    assert 'status' not in second and 'paused' not in second['spec'] and second['spec']['replicas'] == 0
    assert second['spec']['selector']['matchLabels'] == {'app': 'web', LABEL: 'green'}
    assert second['spec']['selector']['matchExpressions'] == [{'key': 'tier', 'operator': 'Exists'}]
    assert second['spec']['template']['metadata']['labels'][LABEL] == 'green'
    assert first['spec']['template']['metadata']['labels'][LABEL] == 'blue'

"""role_variables' action plugin takes what the task leaves out from the role the task runs in."""

import pytest

from ansible_collections.kubeops.rollout.plugins.action.role_variables import role_arguments

pytestmark = pytest.mark.unit


def test_in_a_role_everything_comes_from_the_role(tmp_path):
    (tmp_path / 'meta').mkdir()
    (tmp_path / 'meta' / 'argument_specs.yml').write_text(
        'argument_specs:\n'
        '  main:\n    options:\n      demo_timeout: {type: int}\n      demo_workloads: {type: list}\n'
        '  other:\n    options:\n      demo_phase: {type: str}\n')
    task_vars = {'role_name': 'kubeops.rollout.demo', 'role_path': str(tmp_path), 'demo_timeout': 3,
                 'demo_timout': 4, 'demos_x': 1, 'other': 2}
    args = role_arguments({'results': ['demo_result']}, task_vars)
    assert args == {'role': 'demo', 'variables': ['demo_timeout', 'demo_timout'],
                    'known': ['demo_phase', 'demo_timeout', 'demo_workloads'], 'results': ['demo_result']}


def test_what_the_task_gives_wins_and_outside_a_role_nothing_is_added(tmp_path):
    given = {'role': 'demo', 'variables': ['demo_a'], 'known': ['demo_b']}
    assert role_arguments(given, {'role_name': 'other', 'role_path': str(tmp_path), 'demo_c': 1}) == given
    assert role_arguments({}, {'demo_c': 1}) == {}
    # A role without argument specs knows no variable.
    assert role_arguments({}, {'role_name': 'demo', 'role_path': str(tmp_path), 'demo_c': 1})['known'] == []

"""The names a message gives the operator's options: the module's own, or the caller's."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.common import vocabulary

pytestmark = pytest.mark.unit


@pytest.fixture(autouse=True)
def own_names():
    vocabulary.speak(None)
    yield
    vocabulary.speak(None)


def test_a_module_called_directly_names_its_own_options():
    assert vocabulary.setting('recover', 'rollback') == 'recover: rollback'
    assert vocabulary.setting('wait', False) == 'wait: false'
    assert vocabulary.setting('rollback', True) == 'rollback: true'


def test_a_caller_s_vocabulary_renames_the_options_it_names_and_only_those():
    vocabulary.speak({'recover': 'traffic_canary_recover'})
    assert vocabulary.setting('recover', 'rollback') == 'traffic_canary_recover: rollback'
    assert vocabulary.name('recover') == 'traffic_canary_recover'
    assert vocabulary.setting('timeout', 60) == 'timeout: 60'


def test_another_module_s_option_keeps_its_own_name():
    vocabulary.speak({'recover': 'recover_bg', 'state': 'bg_state'})
    assert vocabulary.setting('recover', 'resume', module='rollout_release') == 'recover: resume'
    assert vocabulary.setting('state', 'resumed', module='rollout_pause') == 'state: resumed'


def test_a_new_vocabulary_replaces_the_one_before():
    vocabulary.speak({'recover': 'a_recover'})
    vocabulary.speak({'state': 'b_state'})
    assert vocabulary.setting('recover', 'rollback') == 'recover: rollback'
    assert vocabulary.setting('state', 'finished') == 'b_state: finished'


def test_a_renamed_value_names_the_new_value_and_the_version_without_the_old():
    vocabulary.speak({'canary': 'phase'})
    assert vocabulary.renamed_value('canary', 'abort', 'rollback') == (
        'phase: abort is deprecated and goes away in kubeops.rollout 3.0.0: use phase: rollback')


@pytest.mark.parametrize('names, expected', [
    ({}, []),
    (None, []),
    ({'recover': 'x_recover'}, []),
    ({'recovr': 'x_recover', 'stat': 'x'},
     ['option_names names options this module does not have: recovr, stat']),
    ({'recover': ''}, ['option_names gives no name for: recover']),
    ({'recover': 3}, ['option_names gives no name for: recover']),
])
def test_problems_of_a_vocabulary(names, expected):
    assert vocabulary.problems(names, {'recover': {}, 'state': {}}) == expected

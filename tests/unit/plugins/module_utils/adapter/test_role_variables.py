"""A role's variables against the ones its argument specs know: a misspelt one is named with the
name meant."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.adapter.role_variables import (
    closest,
    deprecated_given,
    deprecation,
    spec_variables,
    unknown_variables,
    warning,
)

pytestmark = pytest.mark.unit

KNOWN = {'rollout_upgrade_workloads', 'rollout_upgrade_soak_seconds', 'rollout_upgrade_timeout',
         'rollout_upgrade_canary', 'rollout_upgrade_canary_ordinals'}


def test_every_entry_point_counts():
    specs = {'argument_specs': {
        'main': {'options': {'rollout_upgrade_workloads': {}, 'rollout_upgrade_timeout': {}}},
        'canary_start': {'options': {'rollout_upgrade_canary_ordinals': {}}},
        'empty': {'short_description': 'no options'}}}
    assert spec_variables(specs) == {'rollout_upgrade_workloads', 'rollout_upgrade_timeout',
                                     'rollout_upgrade_canary_ordinals'}
    # Without the top-level key, as a caller may pass the inner mapping.
    assert spec_variables(specs['argument_specs']) == spec_variables(specs)
    assert spec_variables(None) == set()


def test_a_misspelt_variable_is_named_with_the_one_meant():
    given = ['rollout_upgrade_soak_second', 'rollout_upgrade_workloads', 'rollout_upgrade_result',
             'rollout_upgrade_canary_ordinal', 'other_role_soak_second', 'soak_seconds']
    found = unknown_variables('rollout_upgrade', given, KNOWN, results=['rollout_upgrade_result'])
    assert found == [('rollout_upgrade_canary_ordinal', 'rollout_upgrade_canary_ordinals'),
                     ('rollout_upgrade_soak_second', 'rollout_upgrade_soak_seconds')]


def test_a_name_like_none_lists_the_known_ones():
    assert closest('rollout_upgrade_xyz', KNOWN, 'rollout_upgrade_') is None
    assert closest('rollout_upgrade_timout', KNOWN, 'rollout_upgrade_') == 'rollout_upgrade_timeout'
    found = unknown_variables('rollout_upgrade', ['rollout_upgrade_xyz'], KNOWN)
    assert found == [('rollout_upgrade_xyz', None)]
    text = warning('rollout_upgrade', 'rollout_upgrade_xyz', None, KNOWN)
    assert text.startswith('role rollout_upgrade: variable rollout_upgrade_xyz is not one of its variables '
                           'and is ignored; its variables are rollout_upgrade_canary, ')


def test_warning_names_the_closest():
    text = warning('rollout_upgrade', 'rollout_upgrade_soak_second', 'rollout_upgrade_soak_seconds', KNOWN)
    assert text == ('role rollout_upgrade: variable rollout_upgrade_soak_second is not one of its variables '
                    'and is ignored; did you mean rollout_upgrade_soak_seconds?')


def test_a_prefix_of_another_role_is_not_this_roles():
    # rollout_wait_ is a prefix of nothing else; rollout_waits_x has another prefix.
    assert unknown_variables('rollout_wait', ['rollout_waits_x', 'rollout_wait_timeout'],
                             {'rollout_wait_timeout'}) == []


def test_an_old_name_given_is_a_deprecation_naming_what_to_set_instead():
    deprecated = {'traffic_canary_abort': 'traffic_canary_recover: rollback'}
    given = ['traffic_canary_steps', 'traffic_canary_abort']
    assert deprecated_given(given, deprecated) == [
        ('traffic_canary_abort', 'traffic_canary_recover: rollback')]
    assert deprecated_given(['traffic_canary_steps'], deprecated) == []
    assert deprecation('traffic_canary_abort', 'traffic_canary_recover: rollback') == (
        'variable traffic_canary_abort is deprecated (still honoured) and goes away in kubeops.rollout '
        '3.0.0: use traffic_canary_recover: rollback instead')

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.gates import wait_options

pytestmark = pytest.mark.unit


def test_probe_interval_is_a_third_of_fail_fast_within_bounds():
    assert wait_options.GateOptions(fail_fast_seconds=30).probe_interval == 5
    assert wait_options.GateOptions(fail_fast_seconds=6).probe_interval == 2
    assert wait_options.GateOptions(fail_fast_seconds=1).probe_interval == 1
    assert not wait_options.GateOptions(soak_seconds=0).soaks
    assert wait_options.GateOptions(soak_seconds=3).soaks
    assert wait_options.GateOptions(analysis=object()).soaks


def test_gate_options_from_params_default_to_the_option_defaults():
    options = wait_options.GateOptions.from_params({'soak_seconds': None, 'max_restarts': None})
    assert options.fail_fast_seconds == wait_options.DEFAULT_FAIL_FAST_SECONDS
    assert (options.soak_seconds, options.max_restarts, options.analysis) == (0, 0, None)
    default = wait_options.GATE_ARG_SPEC['fail_fast_seconds']['default']
    assert default == wait_options.DEFAULT_FAIL_FAST_SECONDS


def test_negative_gate_options_are_refused():
    assert wait_options.check_gate_params({'soak_seconds': -1}) == 'soak_seconds must be 0 or more (got -1)'
    assert wait_options.check_gate_params({'fail_fast_seconds': 0, 'max_restarts': 2}) is None


def test_the_analysis_option_spec_is_the_checks_spec():
    options = wait_options.ANALYSIS_ARG_SPEC['analysis']['options']
    assert options is wait_options.ANALYSIS_OPTIONS
    checks = options['checks']['options']
    assert set(checks) == {'name', 'prometheus', 'http', 'max', 'min'}
    # Credentials of an endpoint are never logged.
    for kind in ('prometheus', 'http'):
        assert checks[kind]['options']['bearer_token']['no_log'] is True
        assert checks[kind]['options']['headers']['no_log'] is True

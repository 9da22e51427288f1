import os
import subprocess
import sys

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


def test_the_analysis_option_spec_is_the_analysis_packages():
    from ansible_collections.kubeops.rollout.plugins.module_utils.gates import analysis

    options = wait_options.ANALYSIS_ARG_SPEC['analysis']['options']
    assert options is wait_options.ANALYSIS_OPTIONS is analysis.ANALYSIS_OPTIONS
    checks = options['checks']['options']
    assert set(checks) == {'name', 'max', 'min', 'namespace', 'timeout'} | set(analysis.PROVIDERS)
    assert checks['job'] == {'type': 'dict'}  # a JobSpec, as given
    for key, provider in analysis.PROVIDERS.items():
        if provider.OPTIONS is None:
            continue
        assert checks[key]['options'] is provider.OPTIONS
        # Credentials of an endpoint are never logged.
        assert checks[key]['options']['bearer_token']['no_log'] is True
        assert checks[key]['options']['headers']['no_log'] is True
    with pytest.raises(AttributeError):
        wait_options.ANALYSIS_NOTHING  # noqa: B018


def test_wait_options_loads_the_analysis_package_only_when_its_spec_is_asked_for():
    code = (
        'import sys\n'
        'from ansible_collections.kubeops.rollout.plugins.module_utils.gates import wait_options\n'
        'before = [m for m in sys.modules if ".gates.analysis" in m]\n'
        'wait_options.ANALYSIS_ARG_SPEC\n'
        'print(before, sorted(m.rsplit(".", 1)[1] for m in sys.modules if ".gates.analysis." in m))\n'
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True, check=True)
    before, after = out.stdout.split(' ', 1)
    assert before == '[]'
    assert after.strip() == str(['endpoint', 'gate', 'http', 'job', 'prometheus', 'provider', 'registry'])

"""KubeModule (adapter/module.py): every number option checked before any request, the connection,
client and namespace resolved once with the same messages for every module, the secrets of the
options and of the connection kept out of every result, the analysis option; on the controller
runtime, with kubesim where a request is sent."""

import base64

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.adapter import module as module_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.adapter.module import KubeModule, option_secrets
from ansible_collections.kubeops.rollout.plugins.module_utils.common.validation import (
    INT32_MAX,
    INT64_MAX,
    MAX_SECONDS,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.gates import analysis as analysis_pkg
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.wait_options import (
    ANALYSIS_ARG_SPEC,
    GATE_ARG_SPEC,
)
from ansible_collections.kubeops.rollout.plugins.plugin_utils.controller import ModuleExit, TaskContext

from tests.support.kube import read_log, write_kubeconfig

pytestmark = pytest.mark.unit

SPEC = dict(GATE_ARG_SPEC, timeout={'type': 'int', 'aliases': ['wait_timeout']},
            poll_interval={'type': 'float'},
            update_period={'type': 'float'}, partition={'type': 'int'}, revision={'type': 'int'},
            replicas={'type': 'int'})


def exit_of(build):
    with pytest.raises(ModuleExit) as exited:
        build()
    return exited.value.result


def kube_module(args, spec=SPEC, env=None, **kwargs):
    context = TaskContext('kube_test', args, False, False, env or {}, 'localhost')
    return KubeModule(spec, context.runtime, **kwargs)


def failed(module):
    """The module's result after a plain failure (what a task would show)."""
    return exit_of(lambda: module.fail('stop'))


# ---- numbers ---------------------------------------------------------------------------------------

@pytest.mark.parametrize('args, message', [
    ({'wait_timeout': 0}, 'timeout must be greater than 0 (got 0)'),
    ({'timeout': 0}, 'timeout must be greater than 0 (got 0)'),
    ({'poll_interval': float('nan')}, 'poll_interval must be a finite number, not nan'),
    ({'poll_interval': float('inf')}, 'poll_interval must be a finite number, not inf'),
    ({'update_period': -0.5}, 'update_period must not be negative (got -0.5)'),
    ({'replicas': -1}, 'replicas must be 0 or more (got -1)'),
    ({'soak_seconds': -1}, 'soak_seconds must be 0 or more (got -1)'),
    ({'timeout': MAX_SECONDS + 1}, 'timeout must be at most %d seconds (%d days) (got %d)'
     % (MAX_SECONDS, MAX_SECONDS // 86400, MAX_SECONDS + 1)),
    ({'partition': INT32_MAX + 1}, 'partition must be at most %d (got %d)' % (INT32_MAX, INT32_MAX + 1)),
    ({'revision': 10 ** 40}, 'revision must be at most %d (got 1e+40)' % INT64_MAX),
])
def test_number_options_are_checked_before_any_request(args, message):
    result = exit_of(lambda: kube_module(args))
    assert result['failed'] and result['msg'] == message


def test_numbers_within_bounds_pass():
    module = kube_module({'timeout': MAX_SECONDS, 'partition': INT32_MAX, 'revision': INT64_MAX,
                          'update_period': 0.0, 'replicas': 0, 'soak_seconds': 5})
    assert module.params['partition'] == INT32_MAX and module.analysis_gate() is None


# ---- the connection, against kubesim ---------------------------------------------------------------

def test_the_client_reaches_the_api_and_the_namespace_comes_from_the_kubeconfig(kubesim_factory, tmp_path):
    sim = kubesim_factory(request_log=tmp_path / 'requests.log')
    sim.write_kubeconfig(tmp_path / 'shop', namespace='shop')
    module = kube_module({'kubeconfig': str(tmp_path / 'shop')})
    assert module.client is module.client and module.connection is module.client.connection
    assert module.namespace == 'shop'
    assert module.client.get('/api/v1/namespaces/default')['metadata']['name'] == 'default'
    assert read_log(tmp_path / 'requests.log')[-1]['path'] == '/api/v1/namespaces/default'
    assert kube_module({'kubeconfig': str(tmp_path / 'shop'), 'namespace': 'ops'},
                       spec=dict(SPEC, namespace={'type': 'str'})).namespace == 'ops'
    sim.write_kubeconfig(tmp_path / 'none', namespace='')
    assert kube_module({'kubeconfig': str(tmp_path / 'none')}).namespace == module_mod.DEFAULT_NAMESPACE


def test_a_namespace_the_api_server_would_refuse_fails_naming_where_it_came_from(tmp_path):
    spec = dict(SPEC, namespace={'type': 'str'})
    module = kube_module({'host': 'https://api:6443', 'namespace': 'Shop'}, spec=spec)
    result = exit_of(lambda: module.namespace)
    assert result['failed'] and result['msg'].startswith('namespace: ') and 'Shop' in result['msg']
    kc = write_kubeconfig(tmp_path / 'config', contexts=[{'name': 'main', 'context': {
        'cluster': 'c1', 'user': 'u1', 'namespace': 'Bad_NS'}}])
    result = exit_of(lambda: kube_module({'kubeconfig': kc}).namespace)
    assert result['msg'].startswith('the namespace of kubeconfig %s (context "main"): ' % kc)


def test_a_connection_that_cannot_be_configured_says_so_without_its_secrets():
    module = kube_module({'host': 'https://api:6443', 'proxy': 'socks5://alice:pr0xy-s3cret@proxy:1080'})
    result = exit_of(lambda: module.client)
    assert result['failed'] and result['msg'].startswith(
        'cannot configure the Kubernetes connection: invalid proxy socks5://')
    assert 'pr0xy-s3cret' not in str(result)
    result = exit_of(lambda: kube_module({'kubeconfig': '/nonexistent/config'}).client)
    assert result['msg'] == ('cannot configure the Kubernetes connection: kubeconfig file '
                             '/nonexistent/config does not exist')


def test_the_connections_warnings_are_the_tasks():
    module = kube_module({'host': 'https://api:6443', 'validate_certs': False})
    assert module.connection.verify is False
    result = failed(module)
    assert len(result['warnings']) == 1 and 'verification of the Kubernetes API at https://api:6443 is off' \
        in result['warnings'][0]


# ---- secrets ---------------------------------------------------------------------------------------

def test_the_secrets_of_a_kubeconfig_file_never_show(tmp_path):
    token = 'kubeconfig-token-4f9a2c'
    kc = write_kubeconfig(tmp_path / 'config', users=[{'name': 'u1', 'user': {'token': token}}])
    module = kube_module({'kubeconfig': kc})
    assert module.connection.token == token
    result = exit_of(lambda: module.fail('the token was %s, base64 %s' % (
        token, base64.b64encode(token.encode()).decode())))
    assert token not in str(result) and base64.b64encode(token.encode()).decode() not in str(result)


def test_the_secrets_inside_option_values_never_show():
    inline = {'current-context': 'x', 'contexts': [{'name': 'x', 'context': {'cluster': 'c', 'user': 'u'}}],
              'clusters': [{'name': 'c', 'cluster': {'server': 'https://api:6443'}}],
              'users': [{'name': 'u', 'user': {'token': 'inline-token-7e1b', 'password': 'inline-pw-99'}}]}
    assert {'inline-token-7e1b', 'inline-pw-99', base64.b64encode(b'inline-token-7e1b').decode()} <= \
        option_secrets({'kubeconfig': inline})
    result = exit_of(lambda: kube_module({'kubeconfig': inline}).fail('inline-token-7e1b inline-pw-99'))
    assert 'inline-token-7e1b' not in str(result) and 'inline-pw-99' not in str(result)


# ---- the analysis option ---------------------------------------------------------------------------

ANALYSIS_SPEC = dict(SPEC, **ANALYSIS_ARG_SPEC)
CHECK = {'name': 'smoke', 'http': {'url': 'https://app/health', 'bearer_token': 'analysis-t0ken-123'}}


def test_the_analysis_checks_are_read_before_any_request_and_their_secrets_hidden():
    module = kube_module({'analysis': {'checks': [CHECK]}}, spec=ANALYSIS_SPEC, analysis=lambda: analysis_pkg)
    gate = module.analysis_gate()
    assert gate is module.analysis_gate() and gate is module.gate_options().analysis
    assert module.gate_options().fail_fast_seconds == GATE_ARG_SPEC['fail_fast_seconds']['default']
    assert 'analysis-t0ken-123' not in str(failed(module))


def test_invalid_analysis_checks_fail_the_task():
    result = exit_of(lambda: kube_module({'analysis': {'checks': []}}, spec=ANALYSIS_SPEC,
                                         analysis=lambda: analysis_pkg))
    assert result['msg'] == 'invalid analysis option: analysis needs at least one check'


def test_a_module_without_the_analysis_loader_takes_no_analysis():
    with pytest.raises(ValueError, match='this module takes no analysis option'):
        kube_module({'analysis': {'checks': [CHECK]}}, spec=ANALYSIS_SPEC)


def namespace_of(args):
    context = TaskContext('rollout_status', args, False, False, {}, 'localhost')
    spec = {'namespace': {'type': 'str'}, 'workload_namespace': {'type': 'str'}}
    return KubeModule(spec, context.runtime).namespace


def test_workload_namespace_comes_before_namespace():
    # What a role passes as workload_namespace wins over the play's module_defaults namespace.
    assert namespace_of({'workload_namespace': 'team', 'namespace': 'shop'}) == 'team'
    # Empty counts as unset: the namespace option (the play's module_defaults) then applies.
    assert namespace_of({'workload_namespace': '', 'namespace': 'shop'}) == 'shop'
    with pytest.raises(ModuleExit) as exited:
        namespace_of({'workload_namespace': 'Not_A_Namespace', 'namespace': 'shop'})
    assert exited.value.result['msg'].startswith('workload_namespace: '), exited.value.result

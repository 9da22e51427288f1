"""The connection options (api/connection/options.py): their spec, K8S_AUTH_* variables, the secrets
inside option values, and load_connection's precedence (options, else a kubeconfig, else the
in-cluster service account; explicit options override what was loaded)."""

import math

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.api.client import ApiClient
from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection import tokens as tokens_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection.options import (
    CONNECTION_ARG_SPEC,
    auth_options,
    load_connection,
    param_secrets,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ConfigError

from tests.support.kube import TOKEN, read_log, write_kubeconfig

pytestmark = pytest.mark.unit


# ---- the spec -------------------------------------------------------------------------------------

def test_the_options_that_hold_credentials_are_no_log():
    hidden = {name for name, spec in CONNECTION_ARG_SPEC.items() if spec.get('no_log')}
    assert hidden == {'api_key', 'password'}
    headers = CONNECTION_ARG_SPEC['proxy_headers']['options']
    assert {n for n, s in headers.items() if s.get('no_log')} == {'proxy_basic_auth', 'basic_auth'}
    assert CONNECTION_ARG_SPEC['validate_certs']['aliases'] == ['verify_ssl']


# ---- K8S_AUTH_* variables -------------------------------------------------------------------------

def test_env_variables_like_kubernetes_core(tmp_path):
    ca = tmp_path / 'ca.pem'
    env = {'K8S_AUTH_HOST': 'https://envhost', 'K8S_AUTH_API_KEY': 'envtoken', 'K8S_AUTH_VERIFY_SSL': 'no',
           'K8S_AUTH_SSL_CA_CERT': str(ca), 'K8S_AUTH_IMPERSONATE_GROUPS': 'a, b'}
    conn = load_connection({}, env=env)
    assert (conn.server, conn.token, conn.verify) == ('https://envhost', 'envtoken', False)
    assert conn.ca_file == str(ca)
    assert conn.impersonate_groups == ['a', 'b']
    # module options win over the environment
    conn = load_connection({'api_key': 'param', 'validate_certs': True}, env=env)
    assert (conn.token, conn.verify) == ('param', True)


@pytest.mark.parametrize('text, value', [('no', False), ('0', False), ('False', False), (' off ', False),
                                         ('', False), ('yes', True), ('1', True), ('TRUE', True)])
def test_boolean_variables(text, value):
    assert auth_options({}, env={'K8S_AUTH_VALIDATE_CERTS': text})['validate_certs'] is value


def test_variables_are_typed_as_their_option(tmp_path, monkeypatch):
    monkeypatch.setenv('HOME', str(tmp_path))
    env = {'K8S_AUTH_CERT_FILE': '~/c.crt', 'K8S_AUTH_KEY_FILE': '/k.key', 'K8S_AUTH_KUBECONFIG': '~/kc',
           'K8S_AUTH_REQUEST_TIMEOUT': '2.5', 'K8S_AUTH_IMPERSONATE_GROUPS': ' , a,,b ',
           'K8S_AUTH_PROXY_HEADERS_PROXY_BASIC_AUTH': 'u:p', 'K8S_AUTH_PROXY_HEADERS_USER_AGENT': 'me'}
    opts = auth_options({}, env=env)
    assert opts['client_cert'] == str(tmp_path / 'c.crt') and opts['client_key'] == '/k.key'
    assert opts['kubeconfig'] == str(tmp_path / 'kc') and opts['request_timeout'] == 2.5
    assert opts['impersonate_groups'] == ['a', 'b']
    assert opts['proxy_headers'] == {'proxy_basic_auth': 'u:p', 'user_agent': 'me'}
    assert opts['host'] is None and set(opts) == set(CONNECTION_ARG_SPEC)
    # an option given is taken as it is
    given = auth_options({'proxy_headers': {'basic_auth': 'x'}}, env=env)
    assert given['proxy_headers'] == {'basic_auth': 'x'}


@pytest.mark.parametrize('text', ['soon', '0', '-1', 'inf', 'nan'])
def test_a_request_timeout_variable_must_be_a_positive_number(text):
    with pytest.raises(ConfigError, match='K8S_AUTH_REQUEST_TIMEOUT must be a number greater than 0'):
        auth_options({}, env={'K8S_AUTH_REQUEST_TIMEOUT': text})
    assert math.isfinite(auth_options({}, env={'K8S_AUTH_REQUEST_TIMEOUT': '30'})['request_timeout'])


# ---- secrets in option values ---------------------------------------------------------------------

def test_secrets_inside_an_inline_kubeconfig_and_proxy_urls():
    key_b64 = 'S0VZLVBFTQ=='  # "KEY-PEM"
    kubeconfig = {
        'clusters': [{'name': 'c', 'cluster': {'proxy-url': 'http://pu:pp@proxy:3128'}}, 'junk'],
        'users': [
            {'name': 'a', 'user': {'token': 'tok-a', 'client-key-data': key_b64}},
            {'name': 'b', 'user': {'username': 'bob', 'password': 'pw-b'}},
            {'name': 'c', 'user': {'auth-provider': {'name': 'oidc', 'config': {
                'id-token': 'idt', 'refresh-token': 'rft', 'client-id': 'public'}}}},
            {'name': 'd', 'user': {'exec': {'env': [{'name': 'AWS_SECRET_ACCESS_KEY', 'value': 'aws-s'},
                                                    {'name': 'AWS_REGION', 'value': 'eu-west-1'}]}}},
            {'name': 'e', 'user': 'not a mapping'}, 'junk'],
    }
    found = param_secrets({'kubeconfig': kubeconfig, 'proxy': 'http://ou:op@proxy:3128'})
    for secret in ('tok-a', key_b64, 'KEY-PEM', 'pw-b', 'bob:pw-b', 'idt', 'rft', 'aws-s', 'pp', 'pu:pp',
                   'op', 'ou:op'):
        assert secret in found, secret
    for setting in ('public', 'eu-west-1', 'bob', 'proxy'):
        assert setting not in found, setting


def test_no_secrets_in_a_kubeconfig_path_or_no_options():
    assert param_secrets({'kubeconfig': '/home/me/.kube/config'}) == []
    assert param_secrets(None) == [] and param_secrets({}) == []


# ---- precedence -----------------------------------------------------------------------------------

def test_host_and_api_key_skip_the_kubeconfig(tmp_path):
    conn = load_connection({'host': 'https://api:6443/', 'api_key': 'k' * 10},
                           env={'KUBECONFIG': '/nonexistent'})
    assert (conn.server, conn.token, conn.source) == ('https://api:6443', 'k' * 10, 'module options')
    conn = load_connection({'host': 'api:6443', 'username': 'u', 'password': 'p'}, env={})
    assert (conn.server, conn.username, conn.password) == ('https://api:6443', 'u', 'p')  # https by default


def test_options_override_kubeconfig(tmp_path):
    kc = write_kubeconfig(tmp_path / 'config')
    conn = load_connection({'kubeconfig': kc, 'host': 'https://override', 'validate_certs': False,
                            'ca_cert': '/x/ca.pem'}, env={})
    assert (conn.server, conn.verify) == ('https://override', False)
    assert (conn.ca_file, conn.token) == ('/x/ca.pem', TOKEN)
    conn = load_connection({'kubeconfig': kc, 'proxy': 'http://p:1', 'no_proxy': 'a', 'request_timeout': 3.0,
                            'impersonate_user': 'jane', 'impersonate_groups': ['g'], 'client_cert': '/c',
                            'client_key': '/k', 'proxy_headers': {'user_agent': 'ua', 'basic_auth': None}},
                           env={})
    assert (conn.proxy, conn.no_proxy, conn.request_timeout) == ('http://p:1', 'a', 3.0)
    assert (conn.impersonate_user, conn.impersonate_groups) == ('jane', ['g'])
    assert (conn.cert_file, conn.key_file, conn.proxy_headers) == ('/c', '/k', {'user_agent': 'ua'})


def test_an_api_key_replaces_a_token_file_and_an_exec_plugin(tmp_path):
    (tmp_path / 'tok').write_text('from-file')
    kc = write_kubeconfig(tmp_path / 'config', users=[{'name': 'u1', 'user': {'tokenFile': 'tok'}}])
    conn = load_connection({'kubeconfig': kc, 'api_key': 'explicit'}, env={})
    assert conn.token == 'explicit' and conn.refresh is None  # a 401 is not answered by the file
    exec_user = {'exec': {'apiVersion': 'client.authentication.k8s.io/v1', 'command': 'x',
                          'interactiveMode': 'Never'}}
    kc = write_kubeconfig(tmp_path / 'exec', users=[{'name': 'u1', 'user': exec_user}])
    assert load_connection({'kubeconfig': kc}, env={}).exec_provider is not None
    assert load_connection({'kubeconfig': kc, 'api_key': 'explicit'}, env={}).exec_provider is None
    assert load_connection({'kubeconfig': kc, 'client_cert': '/c'}, env={}).exec_provider is None


def test_in_cluster_service_account_when_nothing_else(tmp_path, monkeypatch):
    sa = tmp_path / 'sa'
    sa.mkdir()
    (sa / 'token').write_text('sa-token\n')
    (sa / 'ca.crt').write_text('pem')
    (sa / 'namespace').write_text('apps')
    monkeypatch.setattr(tokens_mod, 'SERVICE_ACCOUNT_DIR', str(sa))
    env = {'KUBERNETES_SERVICE_HOST': '10.96.0.1', 'KUBERNETES_SERVICE_PORT': '443'}
    conn = load_connection({}, env=env)
    assert (conn.server, conn.token, conn.namespace) == ('https://10.96.0.1:443', 'sa-token', 'apps')
    assert conn.ca_file == str(sa / 'ca.crt') and conn.source == 'in-cluster service account'
    # A kubeconfig option is still read first.
    kc = write_kubeconfig(tmp_path / 'config')
    assert load_connection({'kubeconfig': kc}, env=env).token == TOKEN


def test_no_configuration_at_all_is_a_clear_error(tmp_path):
    with pytest.raises(ConfigError, match='no Kubernetes connection configured'):
        load_connection({}, env={'KUBECONFIG': str(tmp_path / 'missing')})
    with pytest.raises(ConfigError, match='kubeconfig file .* does not exist'):
        load_connection({'kubeconfig': str(tmp_path / 'missing')}, env={})
    (tmp_path / 'bad').write_text('{{{ not yaml')
    with pytest.raises(ConfigError, match='not valid YAML'):
        load_connection({'kubeconfig': str(tmp_path / 'bad')}, env={})


def test_a_host_alone_is_an_unauthenticated_connection_and_a_missing_server_an_error(tmp_path):
    conn = load_connection({'host': 'https://api:6443'}, env={'KUBECONFIG': str(tmp_path / 'missing')})
    assert (conn.server, conn.token) == ('https://api:6443', None)
    kc = write_kubeconfig(tmp_path / 'config', clusters=[{'name': 'c1', 'cluster': {}}])
    with pytest.raises(ConfigError, match='no API server address'):
        load_connection({'kubeconfig': kc}, env={})


def test_credentials_over_plain_http_are_refused_unless_allowed(tmp_path):
    params = {'host': 'http://api:8080', 'api_key': 'k' * 10}
    with pytest.raises(ConfigError, match='refusing to send credentials'):
        load_connection(params, env={})
    conn = load_connection(dict(params, allow_insecure_credentials=True), env={})
    assert conn.allow_insecure_credentials and 'over plain http' in conn.warnings[0]
    conn = load_connection({}, env={'K8S_AUTH_HOST': 'http://api:8080', 'K8S_AUTH_API_KEY': 'k' * 10,
                                    'K8S_AUTH_ALLOW_INSECURE_CREDENTIALS': 'true'})
    assert conn.warnings


# ---- against kubesim ------------------------------------------------------------------------------

def test_options_alone_reach_kubesim_as_the_user_they_name(kubesim_factory, tmp_path):
    log = tmp_path / 'requests.log'
    sim = kubesim_factory(token='admin-token', request_log=log)
    client = ApiClient(load_connection({'host': sim.url, 'api_key': 'admin-token',
                                        'allow_insecure_credentials': True, 'impersonate_user': 'jane',
                                        'impersonate_groups': ['devs']}, env={}))
    client.get('/api/v1/namespaces/default')
    entry = read_log(log)[-1]
    assert (entry['status'], entry['auth']) == (200, 'bearer')
    assert entry['impersonate']['user'] == 'jane' and entry['impersonate']['groups'] == ['devs']

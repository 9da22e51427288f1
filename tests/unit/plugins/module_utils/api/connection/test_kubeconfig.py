"""Kubeconfig files (api/connection/kubeconfig.py): read and merged as kubectl does, the Connection of
one context, every field type-checked, impersonation; and a kubeconfig kubesim wrote, used for real."""

import base64
import os

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.api.client import ApiClient
from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection import kubeconfig as kc_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection.exec_plugin import (
    ExecCredentialProvider,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection.kubeconfig import (
    default_kubeconfig_paths,
    kubeconfig_paths,
    load_kubeconfig,
    read_kubeconfig,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection.options import load_connection
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ConfigError

from tests.support.kube import TOKEN, write_kubeconfig

pytestmark = pytest.mark.unit

PEM = '-----BEGIN CERTIFICATE-----\nQ0EgUEVN\n-----END CERTIFICATE-----\n'


def b64(text):
    return base64.b64encode(text.encode()).decode()


# ---- one context ----------------------------------------------------------------------------------

def test_kubeconfig_token_namespace_and_relative_paths(tmp_path):
    kc = write_kubeconfig(tmp_path / 'config')
    conn = load_connection({'kubeconfig': kc}, env={})
    assert conn.server == 'https://10.0.0.1:6443'
    assert conn.token == TOKEN
    assert conn.namespace == 'shop'
    assert conn.ca_file == str(tmp_path / 'ca.crt')  # relative to the kubeconfig's directory
    assert conn.verify is True
    assert conn.source == 'kubeconfig %s (context "main")' % kc


def test_kubeconfig_context_option_and_unknown_context(tmp_path):
    kc = write_kubeconfig(tmp_path / 'config', contexts=[
        {'name': 'main', 'context': {'cluster': 'c1', 'user': 'u1'}},
        {'name': 'other', 'context': {'cluster': 'c1', 'user': 'u2', 'namespace': 'ops'}}],
        users=[{'name': 'u1', 'user': {'token': 'a' * 8}},
               {'name': 'u2', 'user': {'username': 'admin', 'password': 'pw-1234'}}])
    conn = load_connection({'kubeconfig': kc, 'context': 'other'}, env={})
    assert (conn.username, conn.password, conn.token, conn.namespace) == ('admin', 'pw-1234', None, 'ops')
    with pytest.raises(ConfigError,
                       match=r'context "nope" not found in kubeconfig .* \(contexts: main, other\)'):
        load_connection({'kubeconfig': kc, 'context': 'nope'}, env={})


def test_kubeconfig_cert_data_and_insecure_and_proxy(tmp_path):
    kc = write_kubeconfig(tmp_path / 'config', clusters=[{'name': 'c1', 'cluster': {
        'server': 'https://k:6443/', 'proxy-url': 'http://proxy:3128',
        'certificate-authority-data': b64(PEM), 'tls-server-name': 'kube.internal'}}],
        users=[{'name': 'u1', 'user': {'client-certificate-data': b64('CERT'), 'client-key-data': b64('KEY'),
                                       'as': 'jane', 'as-groups': ['devs'], 'as-uid': '42',
                                       'as-user-extra': {'scopes': ['a', 'b'], 'team': 'x'}}}])
    conn = load_connection({'kubeconfig': kc}, env={})
    assert conn.server == 'https://k:6443'  # the trailing slash dropped
    assert conn.verify is True and conn.proxy == 'http://proxy:3128'
    assert conn.ca_data == PEM and conn.tls_server_name == 'kube.internal'
    assert (conn.cert_data, conn.key_data) == (b'CERT', b'KEY')
    assert (conn.impersonate_user, conn.impersonate_groups, conn.impersonate_uid) == ('jane', ['devs'], '42')
    assert conn.impersonate_extra == {'scopes': ['a', 'b'], 'team': ['x']}
    kc = write_kubeconfig(tmp_path / 'insecure', clusters=[{'name': 'c1', 'cluster': {
        'server': 'https://k:6443', 'insecure-skip-tls-verify': True}}])
    assert load_connection({'kubeconfig': kc}, env={}).verify is False


def test_impersonation_extra_must_be_a_mapping(tmp_path):
    kc = write_kubeconfig(tmp_path / 'config', users=[{'name': 'u1', 'user': {
        'token': 'abcdefgh', 'as-user-extra': ['scopes']}}])
    with pytest.raises(ConfigError, match='as-user-extra of user "u1" must be a mapping of lists'):
        load_kubeconfig(kc, env={})


@pytest.mark.parametrize('section, field, value, kind', [
    ('cluster', 'server', 6443, 'a number'),
    ('user', 'token', 12345678901234567890, 'a number'),
    ('context', 'namespace', ['a', 'b'], 'a list'),
    ('user', 'username', {'a': 1}, 'a mapping'),
    ('cluster', 'proxy-url', True, 'a boolean'),
    ('user', 'exec', 'aws', 'a str'),
])
def test_kubeconfig_fields_of_the_wrong_type_are_named(tmp_path, section, field, value, kind):
    clusters = [{'name': 'c1', 'cluster': {'server': 'https://k:6443'}}]
    users = [{'name': 'u1', 'user': {'token': 'abcdefgh'}}]
    contexts = [{'name': 'main', 'context': {'cluster': 'c1', 'user': 'u1'}}]
    entry = {'cluster': clusters, 'user': users, 'context': contexts}[section][0][section]
    entry[field] = value
    kc = write_kubeconfig(tmp_path / 'config', clusters=clusters, users=users, contexts=contexts)
    with pytest.raises(ConfigError) as err:
        load_connection({'kubeconfig': kc}, env={})
    assert 'kubeconfig field %s of %s' % (field, section) in str(err.value)
    assert kind in str(err.value)
    assert str(value) not in str(err.value) or isinstance(value, bool)  # the value may be a credential


@pytest.mark.parametrize('groups', ['devs', ['devs', 3]])
def test_impersonated_groups_must_be_a_list_of_strings(tmp_path, groups):
    kc = write_kubeconfig(tmp_path / 'config', users=[{'name': 'u1', 'user': {'token': 'abcdefgh',
                                                                                 'as-groups': groups}}])
    with pytest.raises(ConfigError, match='as-groups of user "u1" .* must be a list of strings'):
        load_kubeconfig(kc, env={})


@pytest.mark.parametrize('value', ['true', 'yes', 1])
def test_insecure_skip_tls_verify_must_be_a_yaml_boolean(tmp_path, value):
    kc = write_kubeconfig(tmp_path / 'config', clusters=[{'name': 'c1', 'cluster': {
        'server': 'https://k:6443', 'insecure-skip-tls-verify': value}}])
    with pytest.raises(ConfigError, match=r'insecure-skip-tls-verify of cluster "c1" must be true or false '
                                          r'\(a YAML boolean\).*remove the quotes'):
        load_kubeconfig(kc, env={})


def test_a_context_without_its_cluster_or_a_config_without_a_current_context(tmp_path):
    kc = write_kubeconfig(tmp_path / 'config', contexts=[{'name': 'main', 'context': {'cluster': 'gone'}}])
    with pytest.raises(ConfigError, match='cluster "gone" of context "main" not found in kubeconfig'):
        load_kubeconfig(kc, env={})
    kc = write_kubeconfig(tmp_path / 'nocurrent', current=None)
    with pytest.raises(ConfigError, match=r'no current-context: set the context option \(contexts: main\)'):
        load_kubeconfig(kc, env={})
    assert load_kubeconfig(kc, 'main', env={}).namespace == 'shop'


def test_a_user_the_context_names_but_the_file_lacks_has_no_credentials(tmp_path):
    kc = write_kubeconfig(tmp_path / 'config', contexts=[{'name': 'main', 'context': {'cluster': 'c1',
                                                                                        'user': 'ghost'}}])
    conn = load_kubeconfig(kc, env={})
    assert (conn.token, conn.username, conn.cert_file, conn.exec_provider) == (None, None, None, None)


def test_an_exec_plugin_runs_only_without_static_credentials(tmp_path):
    exec_section = {'apiVersion': 'client.authentication.k8s.io/v1', 'command': 'get-token',
                    'interactiveMode': 'Never'}
    kc = write_kubeconfig(tmp_path / 'exec', users=[{'name': 'u1', 'user': {'exec': exec_section}}])
    conn = load_kubeconfig(kc, env={})
    assert isinstance(conn.exec_provider, ExecCredentialProvider) and conn.token is None
    kc = write_kubeconfig(tmp_path / 'static', users=[{'name': 'u1', 'user': {'exec': exec_section,
                                                                                 'token': 'static-tok'}}])
    conn = load_kubeconfig(kc, env={})
    assert conn.exec_provider is None and conn.token == 'static-tok'  # as kubectl: static wins


# ---- reading and merging files --------------------------------------------------------------------

def test_kubeconfig_env_list_merges_first_wins(tmp_path):
    a = write_kubeconfig(tmp_path / 'a', current='main')
    b = write_kubeconfig(tmp_path / 'b', current='other', contexts=[
        {'name': 'main', 'context': {'cluster': 'c1', 'user': 'u1', 'namespace': 'ignored'}},
        {'name': 'other', 'context': {'cluster': 'c1', 'user': 'u1', 'namespace': 'from-b'}}])
    conn = load_connection({}, env={'KUBECONFIG': a + os.pathsep + b})
    assert conn.namespace == 'shop'  # current-context and "main" both from the first file
    conn = load_connection({'context': 'other'}, env={'KUBECONFIG': a + os.pathsep + b})
    assert conn.namespace == 'from-b'


def test_kubeconfig_path_list_in_k8s_auth_kubeconfig_or_the_option_merges_as_kubectl(tmp_path):
    a = write_kubeconfig(tmp_path / 'a', current='main')
    b = write_kubeconfig(tmp_path / 'b', current='other', contexts=[
        {'name': 'main', 'context': {'cluster': 'c1', 'user': 'u1', 'namespace': 'ignored'}},
        {'name': 'other', 'context': {'cluster': 'c1', 'user': 'u1', 'namespace': 'from-b'}}])
    missing = str(tmp_path / 'missing')
    for source in ({'env': {'K8S_AUTH_KUBECONFIG': os.pathsep.join([missing, a, b])}},
                   {'params': {'kubeconfig': os.pathsep.join([a, b])}},
                   {'params': {'kubeconfig': [a, missing, b]}}):
        params = dict(source.get('params') or {})
        conn = load_connection(params, env=source.get('env') or {})
        assert conn.namespace == 'shop', source  # current-context and "main" both from the first file
        conn = load_connection(dict(params, context='other'), env=source.get('env') or {})
        assert conn.namespace == 'from-b', source
        assert a in conn.source and b in conn.source
    with pytest.raises(ConfigError, match='no kubeconfig found at'):
        load_connection({'kubeconfig': os.pathsep.join([missing, missing + '2'])}, env={})
    with pytest.raises(ConfigError, match='kubeconfig file .*missing does not exist'):
        load_connection({'kubeconfig': missing}, env={})  # one file named alone must exist
    with pytest.raises(ConfigError, match='not a list holding int'):
        load_connection({'kubeconfig': [a, 3]}, env={})


def test_paths_are_made_absolute_against_the_file_that_defined_each_entry(tmp_path):
    (tmp_path / 'one').mkdir()
    (tmp_path / 'two').mkdir()
    a = write_kubeconfig(tmp_path / 'one' / 'config', users=[{'name': 'u1', 'user': {
        'client-certificate': 'c.crt', 'client-key': '/abs/c.key', 'tokenFile': 'tok'}}])
    b = write_kubeconfig(tmp_path / 'two' / 'config', clusters=[{'name': 'c2', 'cluster': {
        'server': 'https://b:6443', 'certificate-authority': 'b-ca.crt'}}],
        users=[{'name': 'u2', 'user': {}}])
    config, description = read_kubeconfig([a, b], env={})
    assert description == 'kubeconfig %s, %s' % (a, b)
    assert config['users']['u1'] == {'client-certificate': str(tmp_path / 'one' / 'c.crt'),
                                     'client-key': '/abs/c.key', 'tokenFile': str(tmp_path / 'one' / 'tok')}
    assert config['clusters']['c1']['certificate-authority'] == str(tmp_path / 'one' / 'ca.crt')
    assert config['clusters']['c2']['certificate-authority'] == str(tmp_path / 'two' / 'b-ca.crt')
    assert config['user-dirs'] == {'u1': str(tmp_path / 'one'), 'u2': str(tmp_path / 'two')}
    assert config['current-context'] == 'main'


def test_inline_kubeconfig_dict():
    config = {'current-context': 'x', 'clusters': [{'name': 'c', 'cluster': {'server': 'https://127.0.0.1:1'}}],
              'users': [{'name': 'u', 'user': {'token': 'tok-inline'}}],
              'contexts': [{'name': 'x', 'context': {'cluster': 'c', 'user': 'u'}}]}
    conn = load_connection({'kubeconfig': config}, env={})
    assert (conn.server, conn.token, conn.namespace) == ('https://127.0.0.1:1', 'tok-inline', None)
    assert conn.source == 'the kubeconfig option (inline) (context "x")'


def test_files_that_are_not_kubeconfigs(tmp_path):
    (tmp_path / 'bad').write_text('a: [\n  token: sekret')
    with pytest.raises(ConfigError) as err:
        read_kubeconfig(str(tmp_path / 'bad'), env={})
    assert 'is not valid YAML (line' in str(err.value) and 'sekret' not in str(err.value)
    (tmp_path / 'list').write_text('- a\n- b\n')
    with pytest.raises(ConfigError, match='is not a kubeconfig \\(expected a mapping\\)'):
        read_kubeconfig(str(tmp_path / 'list'), env={})
    (tmp_path / 'entry').write_text('clusters: [{name: c1, cluster: [1]}]\n')
    with pytest.raises(ConfigError, match='clusters entry "c1" in kubeconfig .* is not a mapping'):
        read_kubeconfig(str(tmp_path / 'entry'), env={})
    # An empty file is an empty kubeconfig.
    (tmp_path / 'empty').write_text('')
    config, _ = read_kubeconfig(str(tmp_path / 'empty'), env={})
    assert config['contexts'] == {} and config['current-context'] is None


def test_kubeconfig_paths_and_the_default_location(tmp_path, monkeypatch):
    monkeypatch.setenv('HOME', str(tmp_path))
    assert kubeconfig_paths('~/a') == ([str(tmp_path / 'a')], True)
    assert kubeconfig_paths('a%sb%s' % (os.pathsep, os.pathsep)) == (['a', 'b'], False)
    assert kubeconfig_paths(['a']) == (['a'], False)  # a list never needs its files
    with pytest.raises(ConfigError, match='kubeconfig names no file'):
        kubeconfig_paths(' %s ' % os.pathsep)
    assert default_kubeconfig_paths({}) == [str(tmp_path / '.kube' / 'config')]
    assert default_kubeconfig_paths({'KUBECONFIG': 'x%s%sy' % (os.pathsep, os.pathsep)}) == ['x', 'y']
    assert kc_mod.DEFAULT_KUBECONFIG == '~/.kube/config'


# ---- a kubeconfig kubesim wrote, used for real -----------------------------------------------------

@pytest.mark.kubesim_options(tls=True, token='t0ken-abcdef')
def test_the_kubeconfig_kubesim_writes_connects_with_its_ca_and_token(kubesim):
    conn = load_kubeconfig(str(kubesim.kubeconfig), env={})
    assert conn.server == kubesim.url and conn.token == 't0ken-abcdef'
    assert conn.ca_data == kubesim.ca_pem.decode() and conn.namespace == 'default'
    namespaces = ApiClient(conn).list('/api/v1/namespaces')
    assert 'default' in [n['metadata']['name'] for n in namespaces['items']]

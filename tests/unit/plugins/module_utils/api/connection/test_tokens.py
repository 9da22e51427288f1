"""Bearer tokens and basic auth (api/connection/tokens.py): a kubeconfig user's token, tokenFile
(re-read after a 401) and basic-auth pair, the in-cluster service account, and the credential and
impersonation headers of a request, the last ones as kubesim's API server reads them."""

import base64

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.api.client import ApiClient
from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection import tokens
from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection.options import load_connection
from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection.settings import Connection
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError, ConfigError

from tests.support.kube import read_log, write_kubeconfig

pytestmark = pytest.mark.unit


# ---- a kubeconfig user ----------------------------------------------------------------------------

def test_an_inline_token_wins_over_a_token_file_and_is_not_refreshed(tmp_path):
    conn = Connection()
    tokens.from_user(conn, {'token': 'inline', 'tokenFile': str(tmp_path / 'never-read')})
    assert (conn.token, conn.refresh, conn.username, conn.password) == ('inline', None, None, None)


def test_token_file_is_read_and_refreshable(tmp_path):
    (tmp_path / 'tok').write_text('first\n')
    kc = write_kubeconfig(tmp_path / 'config', users=[{'name': 'u1', 'user': {'tokenFile': 'tok'}}])
    conn = load_connection({'kubeconfig': kc}, env={})
    assert conn.token == 'first'
    (tmp_path / 'tok').write_text('second')
    assert conn.refresh() == 'second'


def test_an_unreadable_token_file_names_the_file(tmp_path):
    with pytest.raises(ConfigError, match='cannot read token file .*missing: No such file'):
        tokens.from_user(Connection(), {'tokenFile': str(tmp_path / 'missing')})


def test_basic_auth_pair_and_empty_fields():
    conn = Connection()
    tokens.from_user(conn, {'username': 'admin', 'password': 'pw'})
    assert (conn.token, conn.username, conn.password) == (None, 'admin', 'pw')
    tokens.from_user(conn, {'username': '', 'password': ''})
    assert (conn.username, conn.password) == (None, None)


# ---- the in-cluster service account ---------------------------------------------------------------

@pytest.fixture
def service_account(tmp_path, monkeypatch):
    sa = tmp_path / 'sa'
    sa.mkdir()
    (sa / 'token').write_text('sa-token-1\n')
    monkeypatch.setattr(tokens, 'SERVICE_ACCOUNT_DIR', str(sa))
    return sa


def test_in_cluster_needs_the_service_variables_and_a_token(service_account):
    env = {'KUBERNETES_SERVICE_HOST': '10.96.0.1', 'KUBERNETES_SERVICE_PORT': '443'}
    assert tokens.in_cluster_available(env)
    assert not tokens.in_cluster_available({'KUBERNETES_SERVICE_HOST': '10.96.0.1'})
    (service_account / 'token').unlink()
    assert not tokens.in_cluster_available(env)


def test_in_cluster_connection_and_its_rotating_token(service_account):
    (service_account / 'ca.crt').write_text('pem')
    (service_account / 'namespace').write_text('apps\n')
    conn = tokens.load_in_cluster({'KUBERNETES_SERVICE_HOST': '10.96.0.1', 'KUBERNETES_SERVICE_PORT': '443'})
    assert (conn.server, conn.token, conn.namespace) == ('https://10.96.0.1:443', 'sa-token-1', 'apps')
    assert conn.ca_file == str(service_account / 'ca.crt') and conn.source == 'in-cluster service account'
    (service_account / 'token').write_text('sa-token-2')  # the kubelet rotated it
    assert conn.refresh() == 'sa-token-2'


def test_in_cluster_on_ipv6_without_ca_or_namespace(service_account):
    conn = tokens.load_in_cluster({'KUBERNETES_SERVICE_HOST': 'fd00::1', 'KUBERNETES_SERVICE_PORT': '6443'})
    assert conn.server == 'https://[fd00::1]:6443'
    assert (conn.ca_file, conn.namespace) == (None, None)
    (service_account / 'namespace').write_text('  \n')
    blank = tokens.load_in_cluster({'KUBERNETES_SERVICE_HOST': 'h', 'KUBERNETES_SERVICE_PORT': '1'})
    assert blank.namespace is None


# ---- request headers ------------------------------------------------------------------------------

def test_a_bearer_token_wins_over_basic_auth():
    conn = Connection()
    conn.username, conn.password = 'u', 'p'
    assert tokens.auth_headers(conn, 'tok') == [('Authorization', 'Bearer tok')]
    basic = 'Basic ' + base64.b64encode(b'u:p').decode()
    assert tokens.auth_headers(conn, None) == [('Authorization', basic)]
    conn.password = None
    assert tokens.auth_headers(conn, None) == []
    conn.password = ''  # an empty password is still basic auth
    assert tokens.auth_headers(conn, None) == [('Authorization', 'Basic dTo=')]


def test_basic_auth_is_latin_1_as_go_sends_it():
    expected = base64.b64encode('j\u00f6rg:pw'.encode('latin-1')).decode()
    assert tokens.basic_auth('j\u00f6rg:pw') == 'Basic ' + expected


def test_impersonation_headers_one_per_group_and_extra_value():
    conn = Connection()
    conn.impersonate_user, conn.impersonate_groups, conn.impersonate_uid = 'jane', ['a', 'b'], '42'
    conn.impersonate_extra = {'scopes/v1': ['x', 'y'], 'acme.com/team': ['shop']}
    assert tokens.auth_headers(conn, 'tok') == [
        ('Authorization', 'Bearer tok'), ('Impersonate-User', 'jane'), ('Impersonate-Group', 'a'),
        ('Impersonate-Group', 'b'), ('Impersonate-Uid', '42'), ('Impersonate-Extra-acme.com%2Fteam', 'shop'),
        ('Impersonate-Extra-scopes%2Fv1', 'x'), ('Impersonate-Extra-scopes%2Fv1', 'y')]


# ---- against kubesim ------------------------------------------------------------------------------

def test_a_rotated_token_file_is_read_again_after_a_401(kubesim_factory, tmp_path):
    accepted, mine = tmp_path / 'accepted', tmp_path / 'token'
    accepted.write_text('token-one-abc\n')
    mine.write_text('token-one-abc\n')
    log = tmp_path / 'requests.log'
    sim = kubesim_factory(token_file=accepted, request_log=log)
    kc = write_kubeconfig(tmp_path / 'config', clusters=[{'name': 'c1', 'cluster': {'server': sim.url}}],
                          users=[{'name': 'u1', 'user': {'tokenFile': str(mine)}}])
    client = ApiClient(load_connection({'kubeconfig': kc, 'allow_insecure_credentials': True}, env={}))
    client.get('/api/v1/namespaces/default')
    accepted.write_text('token-two-def\n')  # the server moves on; the file beside us follows
    mine.write_text('token-two-def\n')
    client.get('/api/v1/namespaces/default')
    statuses = [(e['status'], e['token']) for e in read_log(log)]
    assert [s for s, _ in statuses] == [200, 401, 200]
    assert statuses[0][1] == statuses[1][1] != statuses[2][1]
    # A file that is not refreshed with the server's token: the 401 stands after one retry.
    accepted.write_text('token-three\n')
    with pytest.raises(ApiError) as err:
        client.get('/api/v1/namespaces/default')
    assert err.value.status == 401


def test_basic_auth_and_impersonation_as_kubesim_reads_them(kubesim_factory, tmp_path):
    log = tmp_path / 'requests.log'
    sim = kubesim_factory(basic_auth='alice:s3cret', request_log=log)
    kc = write_kubeconfig(tmp_path / 'config', clusters=[{'name': 'c1', 'cluster': {'server': sim.url}}],
                          users=[{'name': 'u1', 'user': {'username': 'alice', 'password': 's3cret',
                                                         'as': 'bob', 'as-groups': ['ops', 'dev'],
                                                         'as-user-extra': {'acme.com/team': ['shop']}}}])
    client = ApiClient(load_connection({'kubeconfig': kc, 'allow_insecure_credentials': True}, env={}))
    client.get('/api/v1/namespaces/default')
    entry = read_log(log)[-1]
    assert (entry['status'], entry['auth'], entry['user']) == (200, 'basic', 'bob')
    assert entry['impersonate'] == {'user': 'bob', 'groups': ['ops', 'dev'],
                                    'extra': {'acme.com/team': ['shop']}}
    wrong = write_kubeconfig(tmp_path / 'wrong', clusters=[{'name': 'c1', 'cluster': {'server': sim.url}}],
                             users=[{'name': 'u1', 'user': {'username': 'alice', 'password': 'nope'}}])
    refused = ApiClient(load_connection({'kubeconfig': wrong, 'allow_insecure_credentials': True}, env={}))
    with pytest.raises(ApiError) as err:
        refused.get('/api')
    assert err.value.status == 401

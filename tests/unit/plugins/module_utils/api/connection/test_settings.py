"""The resolved connection settings (api/connection/settings.py): what a Connection starts with, the
secrets it knows for redaction (and hands the module as they appear), proxy userinfo, setting files."""

import base64

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection.settings import (
    Connection,
    proxy_secrets,
    proxy_userinfo,
    read_text,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ConfigError

pytestmark = pytest.mark.unit


class Provider:
    """What a Connection reads of an exec credential provider: its secrets."""

    def __init__(self, secrets):
        self.secrets = list(secrets)


def test_a_new_connection_verifies_and_knows_no_secret():
    conn = Connection()
    assert conn.verify is True and conn.allow_insecure_credentials is False
    assert (conn.server, conn.token, conn.exec_provider, conn.request_timeout) == (None, None, None, None)
    assert conn.source == 'module options' and conn.warnings == [] and conn.secrets() == []


def test_connection_secrets_listed_for_no_log():
    conn = Connection()
    conn.token, conn.password, conn.proxy_headers = 't0k3n', 'pa55', {'proxy_basic_auth': 'u:p'}
    assert set(conn.secrets()) == {'t0k3n', 'pa55', 'u:p'}


def test_every_form_of_a_credential_is_a_secret():
    conn = Connection()
    conn.username, conn.password = 'admin', 'pa55'
    conn.key_data = b'-----BEGIN EC PRIVATE KEY-----\nabc\n'
    conn.proxy = 'http://pu:pp@proxy:3128'
    conn.exec_provider = Provider(['exec-token', ''])
    secrets = conn.secrets()
    basic = base64.b64encode(b'admin:pa55').decode()
    for value in ('pa55', 'admin:pa55', basic, '-----BEGIN EC PRIVATE KEY-----\nabc\n', 'pp', 'pu:pp',
                  'exec-token'):
        assert value in secrets, value
    assert 'admin' not in secrets and '' not in secrets  # a user name alone is no secret


def test_register_secrets_hands_them_to_the_module_when_it_listens():
    conn = Connection()
    conn.token = 'tok-1'
    conn.register_secrets()  # nobody listens: nothing happens
    seen = []
    conn.on_secrets = seen.append
    conn.register_secrets()
    conn.token = 'tok-2'  # a refresh
    conn.register_secrets()
    assert seen == [['tok-1'], ['tok-2']]


@pytest.mark.parametrize('proxy, userinfo', [
    ('http://user:pa%40ss@proxy:3128', ('user', 'pa@ss')),
    ('user:pw@proxy:3128', ('user', 'pw')),
    ('http://user@proxy:3128', ('user', '')),
    ('http://proxy:3128', None),
    ('', None),
    (None, None),
    ('http://[::1@x', None),
])
def test_proxy_userinfo(proxy, userinfo):
    assert proxy_userinfo(proxy) == userinfo


def test_proxy_secrets_in_every_printed_form():
    assert proxy_secrets('http://user:pa%40ss@proxy:3128') == [
        'pa@ss', 'user:pa@ss', 'user:pa%40ss', 'pa%40ss']
    assert proxy_secrets('http://proxy:3128') == [] and proxy_secrets(None) == [] and proxy_secrets(3) == []


def test_read_text_names_the_file_it_cannot_read(tmp_path):
    (tmp_path / 'ns').write_text('apps\n')
    assert read_text(str(tmp_path / 'ns'), 'namespace') == 'apps\n'
    with pytest.raises(ConfigError, match=r'^cannot read CA file .*/missing: No such file or directory$'):
        read_text(str(tmp_path / 'missing'), 'CA')
    with pytest.raises(ConfigError, match='cannot read token file .*: Is a directory'):
        read_text(str(tmp_path), 'token')

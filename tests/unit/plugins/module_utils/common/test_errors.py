import time

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import redact, secret_name

pytestmark = pytest.mark.unit


@pytest.mark.parametrize('name', ['AWS_SECRET_ACCESS_KEY', 'VAULT_TOKEN', 'DB_PASSWORD', 'db_pwd', 'API_KEY',
                                  'apikey', 'ACCESS_KEY', 'GOOGLE_CREDENTIALS', 'PRIVATE_PEM', 'AUTH_HEADER',
                                  'SIGNING_KEY', 'key', 'Key'])
def test_names_of_credentials_are_secret(name):
    assert secret_name(name)


@pytest.mark.parametrize('name', ['AWS_REGION', 'NAMESPACE', 'CLUSTER_NAME', 'KEYRING_DIR', 'MONKEY_ID', '',
                                  None])
def test_names_of_settings_are_not(name):
    assert not secret_name(name)


def test_redact_hides_secrets_and_url_userinfo():
    token = 'sekret-token-0123456789'
    text = redact('token %s at https://user:pw@host/x' % token, [token])
    assert token not in text and 'user:pw' not in text
    assert text == 'token ******** at https://********@host/x'


def test_redact_takes_linear_time_on_long_text():
    # A plugin's stderr or an error page can be long; each URL's userinfo is still found.
    text = 'x' * 200000 + ' at https://user:pw@host/x and ' + 'a.b-' * 50000 + 'ftp://u:p@h'
    started = time.monotonic()
    out = redact(text, [])
    assert time.monotonic() - started < 2
    assert out.endswith(' at https://********@host/x and ' + 'a.b-' * 50000 + 'ftp://********@h')
    assert redact('see xhttps://u:p@h and _s3://k:s@b', []) == 'see xhttps://********@h and _s3://********@b'

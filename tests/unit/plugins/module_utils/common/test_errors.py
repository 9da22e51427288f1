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

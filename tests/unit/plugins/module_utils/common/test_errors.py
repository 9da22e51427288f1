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


def test_secret_forms_cover_the_raw_stripped_url_encoded_and_base64_spellings():
    from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import secret_forms
    forms = secret_forms('a/b+c= d\n')
    for form in ('a/b+c= d\n', 'a/b+c= d',  # as given, and without the newline a file ends with
                 'a%2Fb%2Bc%3D%20d', 'a%2fb%2bc%3d%20d', 'a/b%2Bc%3D%20d', 'a%2Fb%2Bc%3D+d',  # URL-encoded
                 'YS9iK2M9IGQ=', 'YS9iK2M9IGQ', 'YS9iK2M9IGQK', 'YS9iK2M9IGQ='):  # base64
        assert form in forms, form
    assert secret_forms('a_b') == [] and secret_forms('') == [] and secret_forms(None) == []
    assert secret_forms('YS9i-_')[0] == 'YS9i-_'
    assert 'X1_-' in secret_forms('X1_-') and len(secret_forms('abcd')) == len(set(secret_forms('abcd')))


def test_redact_replaces_every_form_and_urls_userinfo_in_linear_time():
    import time

    from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import redact
    text = 'echo a%2Fb%2Bc and YS9iK2M at https://user:pw@host/x and _http://u:p@h 1http://u:p@h'
    assert redact(text, ['a/b+c']) == ('echo ******** and ******** at https://********@host/x and '
                                       '_http://********@h 1http://********@h')
    # A megabyte of one word (an endpoint's error) took hours: the scheme was tried from every letter.
    start = time.monotonic()
    for text in ('x' * 1000000, 'a.' * 500000, 'a://' + 'b' * 1000000):
        assert redact(text, ['secret']) == text
    assert time.monotonic() - start < 5

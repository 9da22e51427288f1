import time

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import (
    ApiError,
    error_text,
    forbidden_text,
    missing_permission,
    redact,
    secret_name,
)

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


# The authorization filter's 403 messages (apiserver responsewriters/errors.go forbiddenMessage), as a
# cluster writes them, and what a module says instead.
@pytest.mark.parametrize('message, expected', [
    ('deployments.apps "web" is forbidden: User "alice" cannot patch resource "deployments" in API group '
     '"apps" '
     'in the namespace "shop"',
     'the user "alice" may not patch deployments.apps in namespace "shop": add {"apiGroups": ["apps"], '
     '"resources": ["deployments"], "verbs": ["patch"]} to its Role (see docs/rbac.md)'),
    ('pods is forbidden: User "system:serviceaccount:shop:deployer" cannot list resource "pods" in API '
     'group "" '
     'in the namespace "shop"',
     'the user "system:serviceaccount:shop:deployer" may not list pods in namespace "shop": add '
     '{"apiGroups": [""], "resources": ["pods"], "verbs": ["list"]} to its Role (see docs/rbac.md)'),
    ('deployments.apps "web" is forbidden: User "alice" cannot patch resource "deployments/scale" in API '
     'group '
     '"apps" in the namespace "shop": RBAC: role.rbac.authorization.k8s.io "gone" not found',
     'the user "alice" may not patch deployments.apps/scale in namespace "shop": add {"apiGroups": ["apps"], '
     '"resources": ["deployments/scale"], "verbs": ["patch"]} to its Role (see docs/rbac.md)'),
    ('nodes is forbidden: User "bob" cannot list resource "nodes" in API group "" at the cluster scope',
     'the user "bob" may not list nodes at the cluster scope: add {"apiGroups": [""], "resources": '
     '["nodes"], '
     '"verbs": ["list"]} to its ClusterRole (see docs/rbac.md)'),
    ('forbidden: User "bob" cannot get path "/apis"',
     'the user "bob" may not get the path "/apis": add {"nonResourceURLs": ["/apis"], "verbs": ["get"]} to '
     'its '
     'ClusterRole (see docs/rbac.md)'),
])
def test_a_403_of_the_authorizer_names_the_rule_to_add(message, expected):
    assert forbidden_text(message) == 'forbidden (403): ' + expected
    assert error_text(ApiError(403, 'Forbidden', message)) == 'forbidden (403): ' + expected


def test_other_refusals_keep_the_servers_message():
    quota = ('pods "web-1" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=2, '
             'limited: pods=2')
    assert missing_permission(quota) is None
    assert forbidden_text(quota).startswith('forbidden (403): ' + quota + '. ')
    escalation = ('roles.rbac.authorization.k8s.io "r" is forbidden: user "alice" (groups='
                  '["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n'
                  '{APIGroups:["apps"]}')
    assert missing_permission(escalation) is None


def test_the_rule_is_json_a_role_takes():
    missing = missing_permission('leases.coordination.k8s.io "kubeops-release-1" is forbidden: User "ci" '
                                 'cannot create resource "leases" in API group "coordination.k8s.io" in the '
                                 'namespace "shop"')
    assert missing['rule'] == {'apiGroups': ['coordination.k8s.io'], 'resources': ['leases'],
                               'verbs': ['create']}
    assert (missing['user'], missing['holder'], missing['where']) == ('ci', 'Role', 'in namespace "shop"')

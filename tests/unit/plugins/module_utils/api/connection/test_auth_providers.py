"""Kubeconfig auth-provider entries (api/connection/auth_providers.py): oidc through the real
kubernetes library (imported only then), the providers client-go removed refused with the exec
plugin that replaced them, anything else refused."""

import base64
import json
import subprocess
import sys

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.api import client as client_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection import auth_providers
from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection.options import load_connection
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ConfigError

from tests.support.kube import write_kubeconfig

pytestmark = pytest.mark.unit


def _jwt(claims):
    part = lambda d: base64.urlsafe_b64encode(json.dumps(d).encode()).decode().rstrip('=')  # noqa: E731
    return '%s.%s.c2lnbmF0dXJl' % (part({'alg': 'RS256'}), part(claims))


def test_oidc_auth_provider_token_through_the_kubernetes_library(tmp_path):
    """The real library reads the kubeconfig; its id-token becomes the bearer token."""
    token = _jwt({'sub': 'dev', 'exp': 4102444800})
    (tmp_path / 'ca.crt').write_text('')  # the library checks that the file exists
    kc = write_kubeconfig(tmp_path / 'config', users=[{'name': 'u1', 'user': {
        'auth-provider': {'name': 'oidc', 'config': {'id-token': token, 'client-id': 'k8s',
                                                     'idp-issuer-url': 'https://issuer.invalid'}}}}])
    conn = load_connection({'kubeconfig': kc}, env={})
    assert conn.token == token
    assert conn.refresh() == token
    assert token in conn.secrets()
    assert conn.ca_file == str(tmp_path / 'ca.crt')  # the kubeconfig's, kept


def test_static_credentials_win_over_an_auth_provider(tmp_path):
    kc = write_kubeconfig(tmp_path / 'config', users=[{'name': 'u1', 'user': {
        'token': 'static-token', 'auth-provider': {'name': 'gcp'}}}])
    conn = load_connection({'kubeconfig': kc}, env={})
    assert conn.token == 'static-token' and conn.refresh is None


@pytest.mark.parametrize('provider, words', [
    ({'name': 'gcp', 'config': {'access-token': 'ya29.x'}}, ['gcp auth-provider', 'gke-gcloud-auth-plugin']),
    ({'name': 'azure', 'config': {'access-token': 'x'}}, ['azure auth-provider', 'kubelogin']),
    ({'name': 'openstack'}, ['"openstack", which is not supported']),
    ({'name': 'oidc', 'config': {'client-id': 'k8s'}}, ['has no id-token']),
    ({'name': 'oidc', 'config': {'id-token': 'not-a-jwt'}}, ['gave no token', 'not a JWT']),
    ('oidc', ['auth-provider of user "u1"', 'must be a mapping']),
])
def test_auth_providers_that_cannot_authenticate_are_refused(tmp_path, provider, words):
    (tmp_path / 'ca.crt').write_text('')
    kc = write_kubeconfig(tmp_path / 'config', users=[{'name': 'u1', 'user': {'auth-provider': provider}}])
    with pytest.raises(ConfigError) as err:
        load_connection({'kubeconfig': kc}, env={})
    for word in words:
        assert word in str(err.value)
    assert 'user "u1"' in str(err.value)


@pytest.mark.parametrize('provider, words', [
    ({}, 'must be a mapping with a name'),
    ({'name': 7}, 'must be a mapping with a name'),
    ({'name': 'oidc'}, 'has no id-token'),
    ({'name': 'oidc', 'config': {'id-token': ''}}, 'has no id-token'),
    ({'name': 'oidc', 'config': {'id-token': ['x']}}, 'has no id-token'),
])
def test_check_refuses_before_loading_anything(provider, words):
    with pytest.raises(ConfigError, match=words):
        auth_providers.check(provider, 'u1')


def test_check_accepts_an_oidc_provider_with_an_id_token():
    assert auth_providers.check({'name': 'oidc', 'config': {'id-token': 'a.b.c'}}, 'u1') is None
    assert set(auth_providers.REMOVED_AUTH_PROVIDERS) == {'gcp', 'azure'}


def test_native_auth_does_not_import_kubernetes(tmp_path):
    kc = write_kubeconfig(tmp_path / 'config')
    collections = client_mod.__file__.split('/ansible_collections/')[0]
    code = ('import sys; sys.path.insert(0, %r)\n'
            'from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection.options import '
            'load_connection\n'
            'load_connection({"kubeconfig": %r}, env={})\n'
            'print("kubernetes" in sys.modules, any(m.endswith(".auth_providers") for m in sys.modules))'
            ) % (collections, kc)
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == 'False False'

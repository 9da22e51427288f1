"""Tokens, the read-only token, TLS with the generated CA, and the official Python client."""

import json
import pathlib
import ssl
import urllib.error
import urllib.request

import pytest
import yaml

from .conftest import Http, configmap

pytestmark = pytest.mark.kubesim

CMS = '/api/v1/namespaces/default/configmaps'


@pytest.mark.kubesim_options(token='s3cret', readonly_token='look')
def test_token_is_required(kubesim):
    anonymous = Http(kubesim.url)
    for path in ('/api', '/apis', CMS, '/healthz/ping'):
        status, _, body = anonymous.get(path)
        assert status == 401 and body['kind'] == 'Status' and body['reason'] == 'Unauthorized'
    status, _, _ = Http(kubesim.url, token='wrong').get(CMS)
    assert status == 401
    status, _, _ = anonymous.get(CMS, headers={'Authorization': 'Basic czNjcmV0'})
    assert status == 401
    assert Http(kubesim.url, token='s3cret').get(CMS)[0] == 200
    # system:public-info-viewer: readable without a credential, as on a real API server.
    for path in ('/healthz', '/livez', '/readyz', '/version'):
        assert anonymous.get(path)[0] == 200, path
    assert anonymous.get('/version')[2]['gitVersion'].startswith('v1.')
    # A credential that fails is never taken as anonymous.
    assert Http(kubesim.url, token='wrong').get('/version')[0] == 401


@pytest.mark.kubesim_options(token='s3cret', readonly_token='look')
def test_readonly_token_reads_but_cannot_write(kubesim):
    admin, viewer = Http(kubesim.url, token='s3cret'), Http(kubesim.url, token='look')
    admin.post(CMS, configmap('a'))
    assert viewer.get(f'{CMS}/a')[0] == 200
    assert viewer.get(CMS)[0] == 200
    writes = [viewer.post(CMS, configmap('b')), viewer.put(f'{CMS}/a', configmap('a')),
              viewer.patch(f'{CMS}/a', {'data': {}}), viewer.delete(f'{CMS}/a'), viewer.delete(CMS)]
    for status, _, body in writes:
        assert status == 403 and body['reason'] == 'Forbidden'
    assert 'cannot create resource "configmaps"' in writes[0][2]['message']
    assert admin.get(f'{CMS}/a')[2]['data'] == {'k': 'v'}


@pytest.mark.kubesim_options(token='s3cret', readonly_token='look', tls=True)
def test_kubectl_with_tokens(kubesim, kubectl, tmp_path):
    """kubectl sends bearer tokens only over HTTPS, so this runs with TLS."""
    assert kubectl('get', 'ns', check=True).returncode == 0
    viewer = kubectl.using(kubesim.write_kubeconfig(tmp_path / 'viewer', readonly=True))
    assert viewer('get', 'ns').returncode == 0
    denied = viewer('create', 'configmap', 'x', '--from-literal=a=b')
    assert denied.returncode != 0 and 'forbidden' in denied.stderr.lower()
    nobody = kubectl.using(kubesim.write_kubeconfig(tmp_path / 'nobody', token='nope'))
    result = nobody('get', 'ns')
    assert result.returncode != 0 and 'Unauthorized' in result.stderr + result.stdout


@pytest.mark.kubesim_options(tls=True, token='s3cret')
def test_tls_with_the_generated_ca(kubesim, tmp_path):
    assert kubesim.url.startswith('https://127.0.0.1:')
    config = yaml.safe_load(pathlib.Path(kubesim.kubeconfig).read_text())
    cluster = config['clusters'][0]['cluster']
    assert cluster['server'] == kubesim.url and cluster['certificate-authority-data']
    ok = Http(kubesim.url, token='s3cret', ca_pem=kubesim.ca_pem)
    assert ok.get('/version')[0] == 200
    with pytest.raises(urllib.error.URLError) as err:
        urllib.request.urlopen(kubesim.url + '/version', timeout=5,
                               context=ssl.create_default_context())
    assert isinstance(err.value.reason, ssl.SSLCertVerificationError)
    # The certificate is valid for localhost too.
    by_name = Http(kubesim.url.replace('127.0.0.1', 'localhost'), token='s3cret', ca_pem=kubesim.ca_pem)
    assert by_name.get('/version')[0] == 200


@pytest.mark.kubesim_options(tls=True, token='s3cret')
def test_kubectl_over_tls(kubectl):
    result = kubectl('get', 'ns', 'default', '-o', 'json', check=True)
    assert json.loads(result.stdout)['metadata']['name'] == 'default'


@pytest.mark.kubesim_options(tls=True, token='s3cret')
def test_kubernetes_client_raw_json_over_tls(kubesim):
    import kubernetes

    client = kubernetes.config.new_client_from_config(str(kubesim.kubeconfig))

    def call(method, path, body=None, content_type='application/json', **path_params):
        request = client.param_serialize(method, path, path_params=path_params, body=body,
                                         header_params={'Content-Type': content_type,
                                                        'Accept': 'application/json'},
                                         auth_settings=['BearerToken'])
        response = client.call_api(*request[:4])
        response.read()
        return response.status, json.loads(response.data)

    status, created = call('POST', '/api/v1/namespaces/{namespace}/configmaps', configmap('a'),
                           namespace='default')
    assert status == 201 and created['metadata']['name'] == 'a'
    status, patched = call('PATCH', '/api/v1/namespaces/default/configmaps/a', {'data': {'k': 'v2'}},
                           content_type='application/merge-patch+json')
    assert status == 200 and patched['data'] == {'k': 'v2'}
    status, missing = call('GET', '/api/v1/namespaces/default/configmaps/nope')
    assert status == 404 and missing['reason'] == 'NotFound'


def test_kubernetes_dynamic_client(kubesim):
    import kubernetes
    from kubernetes.dynamic import DynamicClient

    client = DynamicClient(kubernetes.config.new_client_from_config(str(kubesim.kubeconfig)))
    deployments = client.resources.get(api_version='apps/v1', kind='Deployment')
    deployments.create(namespace='default', body={
        'apiVersion': 'apps/v1', 'kind': 'Deployment', 'metadata': {'name': 'web'},
        'spec': {'replicas': 0, 'selector': {'matchLabels': {'app': 'web'}},
                 'template': {'metadata': {'labels': {'app': 'web'}},
                              'spec': {'containers': [{'name': 'app', 'image': 'nginx:1'}]}}}})
    patched = deployments.patch(namespace='default', name='web',
                                body={'spec': {'template': {'spec': {'containers': [
                                    {'name': 'app', 'image': 'nginx:2'}]}}}},
                                content_type='application/strategic-merge-patch+json')
    assert patched.spec.template.spec.containers[0].image == 'nginx:2'
    assert [d.metadata.name for d in deployments.get(namespace='default').items] == ['web']
    scale = client.resources.get(api_version='apps/v1', kind='Deployment').subresources['scale']
    assert scale.get(namespace='default', name='web').spec.replicas == 0

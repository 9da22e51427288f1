"""kubectl against Istio's VirtualService and DestinationRule: their columns and short names,
apply and JSON patches of weights, istiod's webhook refusing what its validation refuses. On a
real cluster these run where Istio is installed."""

import json

import pytest

from .conftest import eventually, is_kubesim

pytestmark = pytest.mark.conformance

DENIED = 'admission webhook "validation.istio.io" denied the request: configuration is invalid: '


def _virtual_service(weights=(90, 10)):
    return {
        'apiVersion': 'networking.istio.io/v1',
        'kind': 'VirtualService',
        'metadata': {'name': 'web'},
        'spec': {
            'hosts': ['web'],
            'http': [
                {
                    'name': 'primary',
                    'route': [
                        {'destination': {'host': 'web', 'subset': 'stable'}, 'weight': weights[0]},
                        {'destination': {'host': 'web', 'subset': 'canary'}, 'weight': weights[1]},
                    ],
                }
            ],
        },
    }


def _destination_rule():
    return {
        'apiVersion': 'networking.istio.io/v1',
        'kind': 'DestinationRule',
        'metadata': {'name': 'web'},
        'spec': {
            'host': 'web',
            'subsets': [
                {'name': 'stable', 'labels': {'track': 'stable'}},
                {'name': 'canary', 'labels': {'track': 'canary'}},
            ],
        },
    }


@pytest.fixture
def istio(kube):
    served = kube('api-resources', '--api-group=networking.istio.io', '-o', 'name').stdout.split()
    if 'virtualservices.networking.istio.io' not in served:
        pytest.skip('this cluster does not serve networking.istio.io (Istio is not installed)')
    return kube


def test_virtual_services_are_applied_listed_and_patched(istio, cluster):
    kube = istio
    kube('create', 'service', 'clusterip', 'web', '--tcp=80:80')
    kube.apply(_destination_rule())
    assert 'virtualservice.networking.istio.io/web created' in kube.apply(_virtual_service())
    table = kube('get', 'virtualservices').stdout.splitlines()
    assert table[0].split() == ['NAME', 'GATEWAYS', 'HOSTS', 'AGE']
    assert table[1].split()[:2] == ['web', '["web"]']
    rules = kube('get', 'dr').stdout.splitlines()
    assert rules[0].split() == ['NAME', 'HOST', 'AGE'] and rules[1].split()[:2] == ['web', 'web']
    assert kube('get', 'vs', 'web', '-o', 'name').stdout.strip() == 'virtualservice.networking.istio.io/web'
    # Applying it again changes nothing; in another version it is the same object.
    assert 'unchanged' in kube.apply(_virtual_service())
    older = kube.json('virtualservices.v1alpha3.networking.istio.io', 'web')
    assert older['apiVersion'] == 'networking.istio.io/v1alpha3'

    # Weights by a JSON patch guarded by the route's name; totals other than 100 are accepted.
    patch = [
        {'op': 'test', 'path': '/spec/http/0/name', 'value': 'primary'},
        {'op': 'replace', 'path': '/spec/http/0/route/0/weight', 'value': 3},
        {'op': 'replace', 'path': '/spec/http/0/route/1/weight', 'value': 2},
    ]
    kube('patch', 'virtualservice', 'web', '--type=json', '-p', json.dumps(patch))
    vs = kube.json('vs', 'web')
    assert [r['weight'] for r in vs['spec']['http'][0]['route']] == [3, 2]
    assert vs['metadata']['generation'] == 2

    # istiod's webhook: a negative weight, a total of 0.
    bad = [{'op': 'replace', 'path': '/spec/http/0/route/0/weight', 'value': -1}]
    proc = kube('patch', 'vs', 'web', '--type=json', '-p', json.dumps(bad), ok=False)
    assert f'Error from server: {DENIED}weight -1 < 0' in proc.stderr, proc.stderr
    proc = kube('apply', '-f', '-', input=json.dumps(_virtual_service((0, 0))), ok=False)
    assert DENIED + 'total destination weight = 0' in proc.stderr, proc.stderr
    assert [r['weight'] for r in kube.json('vs', 'web')['spec']['http'][0]['route']] == [3, 2]
    if not is_kubesim(cluster):
        return
    eventually(
        lambda: cluster.route_shares(kube.namespace, 'web', kind='VirtualService') is not None,
        'the VirtualService to be programmed',
    )


def test_a_new_virtual_service_refused_by_the_webhook_is_not_created(istio):
    kube = istio
    proc = kube('apply', '-f', '-', input=json.dumps(_virtual_service((-5, 10))), ok=False)
    expected = f'Error from server: error when creating "STDIN": {DENIED}weight -5 < 0'
    assert expected in proc.stderr, proc.stderr
    assert kube('get', 'vs', '-o', 'name').stdout.strip() == ''

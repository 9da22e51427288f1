"""kubectl against the Gateway API: the CRD manifest applied, an HTTPRoute's defaults, its weights
patched, the status the gateway writes. The manifest is meaningful on a real cluster too; the status
needs a gateway of the class `kubesim` and is checked on kubesim only."""

import json
import os
import re

import pytest

from tests.kubesim.gateway import crds

from .conftest import eventually, is_kubesim, workload

pytestmark = pytest.mark.conformance

MANIFEST = os.path.join(os.path.dirname(crds.__file__), 'gateway-api.yaml')


def _route(backends):
    return {
        'apiVersion': 'gateway.networking.k8s.io/v1',
        'kind': 'HTTPRoute',
        'metadata': {'name': 'web'},
        'spec': {
            'parentRefs': [{'name': 'gw'}],
            'hostnames': ['web.example'],
            'rules': [
                {
                    'backendRefs': [
                        dict({'name': n, 'port': 80}, **({'weight': w} if w is not None else {}))
                        for n, w in backends
                    ]
                }
            ],
        },
    }


@pytest.fixture
def gateway_api(kube):
    kube('apply', '-f', MANIFEST)
    kube(
        'wait',
        '--for',
        'condition=established',
        '--timeout=30s',
        *[f'crd/{c["metadata"]["name"]}' for c in crds.crds()],
    )
    return kube


def test_the_manifest_applies_and_its_kinds_are_served(gateway_api):
    kube = gateway_api
    resources = kube('api-resources', '--api-group=gateway.networking.k8s.io', '-o', 'name').stdout.split()
    assert sorted(resources) == [
        'gatewayclasses.gateway.networking.k8s.io',
        'gateways.gateway.networking.k8s.io',
        'grpcroutes.gateway.networking.k8s.io',
        'httproutes.gateway.networking.k8s.io',
    ]
    versions = kube('api-versions').stdout.split()
    assert {'gateway.networking.k8s.io/v1', 'gateway.networking.k8s.io/v1beta1'} <= set(versions)
    # Applying it again changes nothing.
    out = kube('apply', '-f', MANIFEST).stdout
    assert out.count('unchanged') == 4, out


def test_a_route_shows_its_defaults_and_the_gateways_status(gateway_api, cluster):
    kube = gateway_api
    for name in ('web-stable', 'web-canary'):
        kube.apply(workload('Deployment', name, 'nginx:1.25', replicas=1))
        kube('expose', 'deployment', name, '--port=80')
    kube.apply(
        {
            'apiVersion': 'gateway.networking.k8s.io/v1',
            'kind': 'Gateway',
            'metadata': {'name': 'gw'},
            'spec': {
                'gatewayClassName': 'kubesim',
                'listeners': [{'name': 'http', 'port': 80, 'protocol': 'HTTP'}],
            },
        }
    )
    kube.apply(_route([('web-stable', 90), ('web-canary', None)]))
    route = kube.json('httproute', 'web')
    refs = route['spec']['rules'][0]['backendRefs']
    assert refs[1] == {'group': '', 'kind': 'Service', 'name': 'web-canary', 'port': 80, 'weight': 1}
    assert route['spec']['rules'][0]['matches'] == [{'path': {'type': 'PathPrefix', 'value': '/'}}]
    table = kube('get', 'httproute', 'web').stdout.splitlines()
    assert table[0].split() == ['NAME', 'HOSTNAMES', 'AGE']
    assert table[1].split()[:2] == ['web', '["web.example"]']

    # Weights by a JSON patch that tests the names first.
    patch = [
        {'op': 'test', 'path': '/spec/rules/0/backendRefs/1/name', 'value': 'web-canary'},
        {'op': 'replace', 'path': '/spec/rules/0/backendRefs/0/weight', 'value': 75},
        {'op': 'replace', 'path': '/spec/rules/0/backendRefs/1/weight', 'value': 25},
    ]
    kube('patch', 'httproute', 'web', '--type=json', '-p', json.dumps(patch))
    route = kube.json('httproute', 'web')
    assert [r['weight'] for r in route['spec']['rules'][0]['backendRefs']] == [75, 25]
    assert route['metadata']['generation'] == 2
    # A test that fails changes nothing.
    bad = [
        {'op': 'test', 'path': '/spec/rules/0/backendRefs/1/name', 'value': 'web-other'},
        {'op': 'replace', 'path': '/spec/rules/0/backendRefs/1/weight', 'value': 0},
    ]
    proc = kube('patch', 'httproute', 'web', '--type=json', '-p', json.dumps(bad), ok=False)
    # The patch handler's bare 422 (no causes), which kubectl prints in its generic words.
    generic = 'The request is invalid: the server rejected our request due to an error in our request'
    assert generic in proc.stderr, proc.stderr
    refs = kube.json('httproute', 'web')['spec']['rules'][0]['backendRefs']
    assert [r['weight'] for r in refs] == [75, 25]
    # Out of bounds.
    proc = kube(
        'patch',
        'httproute',
        'web',
        '--type=merge',
        '-p',
        json.dumps({'spec': {'hostnames': ['UPPER.example']}}),
        ok=False,
    )
    assert 'spec.hostnames[0]' in proc.stderr
    if not is_kubesim(cluster):
        return

    def accepted_at_generation_2():
        parents = (kube.json('httproute', 'web').get('status') or {}).get('parents') or []
        conds = {c['type']: c for p in parents for c in p['conditions']}
        return conds.get('Accepted', {}).get('observedGeneration') == 2 and conds

    conds = (
        eventually(accepted_at_generation_2, 'the gateway to accept generation 2')
        or accepted_at_generation_2()
    )
    assert conds['Accepted']['status'] == 'True' and conds['ResolvedRefs']['status'] == 'True'
    described = kube('describe', 'httproute', 'web').stdout
    assert re.search(r'Controller Name:\s+kubesim\.io/gateway-controller', described), described
    gateways = kube('get', 'gateway', 'gw').stdout.splitlines()
    assert gateways[0].split() == ['NAME', 'CLASS', 'ADDRESS', 'PROGRAMMED', 'AGE']
    eventually(
        lambda: kube('get', 'gateway', 'gw').stdout.splitlines()[1].split()[3] == 'True',
        'the Gateway to be programmed',
    )
    assert kube('get', 'gatewayclass', 'kubesim').stdout.splitlines()[1].split()[:3] == [
        'kubesim',
        'kubesim.io/gateway-controller',
        'True',
    ]


def test_a_strategic_merge_patch_of_a_route_is_refused(gateway_api):
    kube = gateway_api
    kube('create', 'service', 'clusterip', 'web-stable', '--tcp=80:80')
    kube.apply(_route([('web-stable', 1)]))
    proc = kube(
        'patch',
        'httproute',
        'web',
        '--type=strategic',
        '-p',
        json.dumps({'spec': {'hostnames': ['other.example']}}),
        ok=False,
    )
    assert (
        'the body of the request was in an unknown format - accepted media types include: '
        'application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml'
        in proc.stderr
    )
    assert kube.json('httproute', 'web')['spec']['hostnames'] == ['web.example']


def test_a_grpcroute_on_a_service_parent_shows_its_defaults_and_the_mesh_status(gateway_api, cluster):
    kube = gateway_api
    for name in ('web', 'web-stable', 'web-canary'):
        kube('create', 'service', 'clusterip', name, '--tcp=80:80')
    route = _route([('web-stable', 9), ('web-canary', None)])
    route['kind'] = 'GRPCRoute'
    route['spec']['parentRefs'] = [{'group': '', 'kind': 'Service', 'name': 'web'}]
    route['spec']['rules'][0]['matches'] = [{'headers': [{'name': 'x-canary', 'value': 'yes'}]}]
    kube.apply(route)
    got = kube.json('grpcroute', 'web')
    assert got['spec']['parentRefs'] == [{'group': '', 'kind': 'Service', 'name': 'web'}]
    rule = got['spec']['rules'][0]
    canary = {'group': '', 'kind': 'Service', 'name': 'web-canary', 'port': 80, 'weight': 1}
    assert rule['backendRefs'][1] == canary
    assert rule['matches'] == [{'headers': [{'name': 'x-canary', 'type': 'Exact', 'value': 'yes'}]}]
    table = kube('get', 'grpcroutes').stdout.splitlines()
    assert table[0].split() == ['NAME', 'HOSTNAMES', 'AGE']
    # Only the standard channel's header match types.
    bad = {'spec': {'rules': [{'matches': [{'headers': [{'name': 'x', 'type': 'Prefix', 'value': 'y'}]}]}]}}
    proc = kube('patch', 'grpcroute', 'web', '--type=merge', '-p', json.dumps(bad), ok=False)
    assert 'spec.rules[0].matches[0].headers[0].type' in proc.stderr, proc.stderr
    if not is_kubesim(cluster):
        return

    def mesh_entry():
        parents = (kube.json('grpcroute', 'web').get('status') or {}).get('parents') or []
        return next((p for p in parents if p['controllerName'] == 'kubesim.io/mesh'), None)

    entry = eventually(mesh_entry, 'the mesh to judge the route') or mesh_entry()
    conds = {c['type']: c['status'] for c in entry['conditions']}
    assert conds == {'Accepted': 'True', 'ResolvedRefs': 'True'}
    described = kube('describe', 'grpcroute', 'web').stdout
    assert re.search(r'Controller Name:\s+kubesim\.io/mesh', described), described

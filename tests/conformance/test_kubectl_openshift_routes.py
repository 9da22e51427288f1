"""kubectl against the OpenShift Route (`route.openshift.io/v1`): applied with its defaults, listed
with `kubectl get routes`, its weights patched with a JSON patch that tests what it replaces, a
weight out of bounds refused in openshift-apiserver's words, the router's `status.ingress[]`. On a
real cluster this needs OpenShift (the Route API); the router stand-in's status is checked on
kubesim only."""

import json

import pytest

from .conftest import eventually, is_kubesim, workload

pytestmark = pytest.mark.conformance


def _route(stable=90, canary=10):
    return {
        'apiVersion': 'route.openshift.io/v1',
        'kind': 'Route',
        'metadata': {'name': 'web'},
        'spec': {
            'to': {'kind': 'Service', 'name': 'web-stable', 'weight': stable},
            'alternateBackends': [{'name': 'web-canary', 'weight': canary}],
            'port': {'targetPort': 80},
        },
    }


@pytest.fixture
def routes(kube, cluster):
    names = kube('api-resources', '--api-group=route.openshift.io', '-o', 'name').stdout.split()
    if not is_kubesim(cluster) and not names:
        pytest.skip('this cluster does not serve route.openshift.io (not OpenShift)')
    assert names == ['routes.route.openshift.io']
    for name in ('web-stable', 'web-canary'):
        kube.apply(workload('Deployment', name, 'nginx:1.25', replicas=1))
        kube('expose', 'deployment', name, '--port=80')
    return kube


def test_a_route_is_applied_listed_and_patched(routes, cluster):
    kube = routes
    kube.apply(_route())
    route = kube.json('route', 'web')
    assert route['spec']['alternateBackends'] == [{'kind': 'Service', 'name': 'web-canary', 'weight': 10}]
    assert route['spec']['wildcardPolicy'] == 'None'
    assert route['spec']['host'], route['spec']
    assert route['metadata']['generation'] == 1

    patch = [
        {'op': 'test', 'path': '/spec/alternateBackends/0/name', 'value': 'web-canary'},
        {'op': 'test', 'path': '/spec/alternateBackends/0/weight', 'value': 10},
        {'op': 'replace', 'path': '/spec/to/weight', 'value': 75},
        {'op': 'replace', 'path': '/spec/alternateBackends/0/weight', 'value': 25},
    ]
    kube('patch', 'route', 'web', '--type=json', '-p', json.dumps(patch))
    route = kube.json('route', 'web')
    assert (route['spec']['to']['weight'], route['spec']['alternateBackends'][0]['weight']) == (75, 25)
    assert route['metadata']['generation'] == 2

    too_heavy = [{'op': 'replace', 'path': '/spec/alternateBackends/0/weight', 'value': 300}]
    proc = kube('patch', 'route', 'web', '--type=json', '-p', json.dumps(too_heavy), ok=False)
    assert proc.returncode != 0
    assert ('spec.alternateBackends[0].weight: Invalid value: 300: weight must be an integer between 0 '
            'and 256') in proc.stderr, proc.stderr
    # Applying the manifest again sets the weights it names.
    kube.apply(_route(stable=100, canary=0))
    route = kube.json('route', 'web')
    assert (route['spec']['to']['weight'], route['spec']['alternateBackends'][0]['weight']) == (100, 0)
    if not is_kubesim(cluster):
        return

    def admitted():
        ingress = (kube.json('route', 'web').get('status') or {}).get('ingress') or []
        conditions = [c for entry in ingress for c in entry['conditions'] if c['type'] == 'Admitted']
        return ingress if conditions and conditions[0]['status'] == 'True' else None

    eventually(admitted, 'the router to admit the route')
    [entry] = admitted()
    assert entry['routerName'] == 'default' and entry['host'] == route['spec']['host']
    table = kube('get', 'routes').stdout.splitlines()
    # The columns of openshift/api's Route CRD (no Age; TLS reads `.spec.tls.type`, empty here).
    assert table[0].split() == ['NAME', 'HOST', 'ADMITTED', 'SERVICE', 'TLS']
    assert table[1].split() == ['web', route['spec']['host'], 'True', 'web-stable']

"""`pods/eviction` over HTTP: a policy/v1 Eviction deletes a pod unless its PodDisruptionBudget
allows no disruption (pkg/registry/core/pod/storage/eviction.go)."""

import pytest

from .conftest import wait_for

NS = '/api/v1/namespaces/default'
PDBS = '/apis/policy/v1/namespaces/default/poddisruptionbudgets'


def _pod(name, labels):
    return {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': name, 'labels': labels},
            'spec': {'containers': [{'name': 'app', 'image': 'nginx:1.25'}]}}


def _ready(http, name):
    _, _, pod = http.get(f'{NS}/pods/{name}')
    return any(c['type'] == 'Ready' and c['status'] == 'True' for c in pod['status'].get('conditions', []))


def _evict(http, name, **extra):
    body = {'apiVersion': 'policy/v1', 'kind': 'Eviction', 'metadata': {'name': name, 'namespace': 'default'},
            **extra}
    return http.post(f'{NS}/pods/{name}/eviction', body)


def _budget(http):
    return http.get(f'{PDBS}/web')[2]['status']


def test_discovery_lists_the_eviction_subresource(http):
    _, _, core = http.get('/api/v1')
    entry = next(r for r in core['resources'] if r['name'] == 'pods/eviction')
    assert (entry['group'], entry['version'], entry['kind'], entry['verbs']) == \
        ('policy', 'v1', 'Eviction', ['create'])


def test_eviction_without_a_budget_deletes_the_pod_with_its_options(http):
    assert http.post(f'{NS}/pods', _pod('loner', {'app': 'loner'}))[0] == 201
    wait_for(lambda: _ready(http, 'loner'), 'the pod to be Ready')
    status, _, answer = _evict(http, 'loner', deleteOptions={'dryRun': ['All']})
    assert status == 201 and answer['status'] == 'Success'
    assert 'deletionTimestamp' not in http.get(f'{NS}/pods/loner')[2]['metadata']
    status, _, answer = _evict(http, 'loner', deleteOptions={'gracePeriodSeconds': 7})
    assert (status, answer['status']) == (201, 'Success')
    meta = http.get(f'{NS}/pods/loner')[2]['metadata']
    assert meta['deletionTimestamp'] and meta['deletionGracePeriodSeconds'] == 7


def test_eviction_errors(http):
    status, _, answer = _evict(http, 'ghost')
    assert (status, answer['reason'], answer['message']) == (404, 'NotFound', 'pods "ghost" not found')
    assert http.post(f'{NS}/pods', _pod('named', {'app': 'named'}))[0] == 201
    body = {'apiVersion': 'policy/v1', 'kind': 'Eviction', 'metadata': {'name': 'other'}}
    status, _, answer = http.post(f'{NS}/pods/named/eviction', body)
    assert (status, answer['message']) == (400, 'name in URL does not match name in Eviction object')
    assert http.get(f'{NS}/pods/named/eviction')[0] == 405


@pytest.mark.timeout(60)
def test_a_budget_refuses_then_allows_one_disruption(http):
    assert http.post(f'{NS}/pods', _pod('web-1', {'app': 'web'}))[0] == 201
    pdb = {'apiVersion': 'policy/v1', 'kind': 'PodDisruptionBudget', 'metadata': {'name': 'web'},
           'spec': {'minAvailable': 1, 'selector': {'matchLabels': {'app': 'web'}}}}
    assert http.post(PDBS, pdb)[0] == 201
    wait_for(lambda: _budget(http).get('currentHealthy') == 1, 'the budget to count web-1')
    status, _, answer = _evict(http, 'web-1')
    assert (status, answer['reason']) == (429, 'TooManyRequests')
    assert answer['message'] == "Cannot evict pod as it would violate the pod's disruption budget."
    needs = 'The disruption budget web needs 1 healthy pods and has 1 currently'
    assert answer['details']['causes'] == [{'reason': 'DisruptionBudget', 'message': needs}]
    assert 'deletionTimestamp' not in http.get(f'{NS}/pods/web-1')[2]['metadata']

    assert http.post(f'{NS}/pods', _pod('web-2', {'app': 'web'}))[0] == 201
    wait_for(lambda: _budget(http).get('disruptionsAllowed') == 1, 'the budget to allow a disruption')
    status, _, answer = _evict(http, 'web-1')
    assert (status, answer['status']) == (201, 'Success')
    assert http.get(f'{NS}/pods/web-1')[2]['metadata']['deletionTimestamp']
    taken = _budget(http)
    assert 'web-1' in taken.get('disruptedPods', {})
    # One budget per pod: a second one selecting it makes every eviction of it an error.
    assert http.post(PDBS, {**pdb, 'metadata': {'name': 'web-too'}})[0] == 201
    status, _, answer = _evict(http, 'web-2')
    assert status == 500 and answer['message'] == ('Internal error occurred: This pod has more than one '
                                                   'PodDisruptionBudget, which the eviction subresource does '
                                                   'not support.')

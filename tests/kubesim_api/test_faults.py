"""Deterministic fault injection: seeded random faults and targeted conflicts."""

import http.client
import urllib.error
import urllib.parse

import pytest

from tests.kubesim.faults import FaultSpecError, parse_spec

from .conftest import Http, configmap, deployment, watch_events

pytestmark = pytest.mark.kubesim

CMS = '/api/v1/namespaces/default/configmaps'
DEPLOYS = '/apis/apps/v1/namespaces/default/deployments'


def outcomes(url, n=40):
    """Status of n GETs, each on a fresh connection; 'drop' when the connection closed unanswered."""
    parts = urllib.parse.urlsplit(url)
    out = []
    for _ in range(n):
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=5)
        try:
            conn.request('GET', CMS)
            resp = conn.getresponse()
            resp.read()
            out.append((resp.status, resp.getheader('Retry-After')))
        except (http.client.RemoteDisconnected, ConnectionResetError):
            out.append('drop')
        finally:
            conn.close()
    return out


SPEC = 'seed=7;429=0.15;500=0.1;503=0.1;drop=0.1;retry_after=3'


def test_same_seed_same_faults(kubesim_factory):
    first = outcomes(kubesim_factory(faults=SPEC).url)
    second = outcomes(kubesim_factory(faults=SPEC).url)
    assert first == second
    kinds = {o if o == 'drop' else o[0] for o in first}
    assert kinds == {200, 429, 500, 503, 'drop'}, 'forty draws at these rates hit every kind'
    assert all(o[1] == '3' for o in first if o != 'drop' and o[0] == 429)
    other_seed = outcomes(kubesim_factory(faults=SPEC.replace('seed=7', 'seed=8')).url)
    assert other_seed != first


def test_fault_statuses_are_kubernetes_statuses(kubesim_factory):
    sim = kubesim_factory(faults='429=1')
    status, headers, body = Http(sim.url).get(CMS)
    assert status == 429 and headers['Retry-After'] == '1'
    assert body['reason'] == 'TooManyRequests' and body['details']['retryAfterSeconds'] == 1
    sim.set_faults('503=1')
    status, _, body = Http(sim.url).get(CMS)
    assert status == 503 and body['reason'] == 'ServiceUnavailable'
    sim.set_faults('500=1')
    status, _, body = Http(sim.url).get(CMS)
    assert status == 500 and body['reason'] == 'InternalError'


def test_discovery_and_watches_are_exempt(kubesim_factory):
    sim = kubesim_factory(faults='500=1')
    http = Http(sim.url)
    for path in ('/version', '/api', '/api/v1', '/apis', '/apis/apps/v1', '/openapi/v3'):
        assert http.get(path)[0] == 200, path
    events, ended = watch_events(sim.url, '/api/v1/namespaces?watch=1&timeoutSeconds=1')
    assert ended and len(events) == 3


def test_methods_filter(kubesim_factory):
    sim = kubesim_factory(faults='500=1;methods=POST')
    http = Http(sim.url)
    assert http.get(CMS)[0] == 200
    assert http.post(CMS, configmap('a'))[0] == 500


def test_conflict_hits_exactly_n_writes(kubesim_factory):
    sim = kubesim_factory(faults='conflict=apps/deployments/default/web:2')
    http = Http(sim.url)
    assert http.post(DEPLOYS, deployment(replicas=0))[0] == 201, 'creation is not a write to the object'
    merge = 'application/merge-patch+json'
    statuses = [http.patch(f'{DEPLOYS}/web', {'metadata': {'labels': {'n': str(i)}}}, content_type=merge)
                for i in range(4)]
    assert [s[0] for s in statuses] == [409, 409, 200, 200]
    assert statuses[0][2]['reason'] == 'Conflict'
    assert http.get(f'{DEPLOYS}/web')[0] == 200, 'reads are not affected'
    assert sim.faults.injected == [('PATCH', f'{DEPLOYS}/web', 'conflict')] * 2


def test_conflicts_set_at_runtime_cover_subresources_and_other_objects_are_spared(kubesim):
    http = Http(kubesim.url)
    http.post(DEPLOYS, deployment(replicas=0))
    http.post(DEPLOYS, deployment(name='other', replicas=0))
    kubesim.set_faults('conflict=apps/deployments/default/web:1;conflict=configmaps/default/cfg:1')
    merge = 'application/merge-patch+json'
    assert http.patch(f'{DEPLOYS}/other', {'spec': {'paused': True}}, content_type=merge)[0] == 200
    assert http.patch(f'{DEPLOYS}/web/scale', {'spec': {'replicas': 1}}, content_type=merge)[0] == 409
    assert http.patch(f'{DEPLOYS}/web/scale', {'spec': {'replicas': 1}}, content_type=merge)[0] == 200
    http.post(CMS, configmap('cfg'))
    assert http.delete(f'{CMS}/cfg')[0] == 409
    assert http.delete(f'{CMS}/cfg')[0] == 200
    kubesim.set_faults('')
    assert kubesim.faults.conflicts == {} and kubesim.faults.rates == {}


def test_kubectl_retries_through_a_conflict(kubesim, kubectl, tmp_path):
    """kubectl apply re-reads and retries on 409, as it does against a real cluster."""
    import json

    manifest = tmp_path / 'web.json'
    manifest.write_text(json.dumps(deployment(replicas=0)))
    kubectl('apply', '-f', manifest, check=True)
    kubesim.set_faults('conflict=apps/deployments/default/web:1')
    manifest.write_text(json.dumps(deployment(replicas=0, image='nginx:2')))
    kubectl('apply', '-f', manifest, check=True)
    assert kubesim.faults.injected and kubesim.faults.conflicts[('apps/deployments', 'default', 'web')] == 0


def test_answers_lost_after_the_write_was_applied(kubesim_factory):
    """drop_after_write / 500_after_write: the write persists, its answer does not reach the client."""
    sim = kubesim_factory()
    api = Http(sim.url)
    assert api.post(DEPLOYS, deployment(replicas=0))[0] == 201
    # A create counts as a write to the object it creates.
    sim.set_faults('drop_after_write=apps/deployments/default/web:1;500_after_write=configmaps/default/cfg:1')
    merge = 'application/merge-patch+json'
    dry = api.patch(f'{DEPLOYS}/web?dryRun=All', {'metadata': {'labels': {'n': '0'}}}, content_type=merge)
    assert dry[0] == 200, 'a dry run is answered'
    with pytest.raises((http.client.RemoteDisconnected, ConnectionResetError, urllib.error.URLError)):
        api.patch(f'{DEPLOYS}/web', {'metadata': {'labels': {'n': '1'}}}, content_type=merge)
    assert api.get(f'{DEPLOYS}/web')[2]['metadata']['labels']['n'] == '1', 'the write was applied'
    assert api.patch(f'{DEPLOYS}/web', {'metadata': {'labels': {'n': '2'}}}, content_type=merge)[0] == 200
    status, _, body = api.post(CMS, configmap('cfg'))
    assert status == 500 and body['reason'] == 'InternalError'
    assert api.get(f'{CMS}/cfg')[0] == 200, 'the create was applied'
    assert api.post(CMS, configmap('cfg'))[0] == 409
    assert sim.faults.injected == [('PATCH', f'{DEPLOYS}/web', 'drop_after_write'),
                                   ('POST', CMS, '500_after_write')]


@pytest.mark.parametrize('spec, message', [
    ('429=2', 'between 0 and 1'),
    ('429=0.6;500=0.6', 'more than 1'),
    ('bogus=1', 'unknown fault setting'),
    ('seed', 'expected key=value'),
    ('conflict=apps/deployments/web:1', 'expected [group/]plural/namespace/name'),
    ('conflict=apps/widgets/default/web:1', 'unknown resource'),
    ('conflict=apps/deployments/default/web', 'expected TARGET:N'),
    ('drop_after_write=apps/deployments/default/web', 'expected TARGET:N'),
])
def test_bad_specs_are_explained(spec, message):
    with pytest.raises(FaultSpecError) as err:
        parse_spec(spec)
    assert message in str(err.value)


def test_spec_targets():
    settings = parse_spec(' seed=1 ; conflict=pods/default/web-0:3 ; conflict=nodes/node-1:1 ;; ')
    assert settings['seed'] == 1
    assert settings['conflicts'] == {('/pods', 'default', 'web-0'): 3, ('/nodes', '', 'node-1'): 1}

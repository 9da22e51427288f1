"""dryRun=All on every write, and the request log."""

import json
import time

import pytest

from .conftest import configmap, deployment, watch_events

pytestmark = pytest.mark.kubesim

CMS = '/api/v1/namespaces/default/configmaps'
DEPLOYS = '/apis/apps/v1/namespaces/default/deployments'


def test_dry_run_writes_change_nothing(kubesim, http):
    _, _, real = http.post(CMS, configmap('real'))
    rv = kubesim.call(lambda: kubesim.store.resource_version)

    status, _, created = http.post(f'{CMS}?dryRun=All', configmap('ghost'))
    assert status == 201 and created['metadata']['name'] == 'ghost' and created['metadata']['uid']
    assert http.get(f'{CMS}/ghost')[0] == 404

    status, _, patched = http.patch(f'{CMS}/real?dryRun=All', {'data': {'k': 'changed'}},
                                    content_type='application/merge-patch+json')
    assert status == 200 and patched['data'] == {'k': 'changed'}
    updated_body = dict(real, data={'k': 'put'})
    status, _, updated = http.put(f'{CMS}/real?dryRun=All', updated_body)
    assert status == 200 and updated['data'] == {'k': 'put'}
    status, _, _ = http.delete(f'{CMS}/real?dryRun=All')
    assert status == 200
    status, _, _ = http.delete(f'{CMS}/real', {'dryRun': ['All']})
    assert status == 200

    _, _, stored = http.get(f'{CMS}/real')
    assert stored == real
    assert kubesim.call(lambda: kubesim.store.resource_version) == rv
    since = real['metadata']['resourceVersion']
    events, _ = watch_events(kubesim.url, f'{CMS}?watch=1&resourceVersion={since}&timeoutSeconds=1')
    assert events == [], 'dry-run writes emit no watch events'


def test_dry_run_still_validates(http):
    http.post(CMS, configmap('a'))
    status, _, err = http.post(f'{CMS}?dryRun=All', configmap('a'))
    assert status == 409 and err['reason'] == 'AlreadyExists'
    status, _, err = http.patch(f'{DEPLOYS}/missing?dryRun=All', {'spec': {}})
    assert status == 404
    status, _, err = http.post(f'{CMS}?dryRun=Some', configmap('b'))
    assert status == 400 and err['reason'] == 'BadRequest'


def test_dry_run_runs_admission(kubesim, http):
    seen = []

    def admit(resource, obj, old):
        seen.append(resource)

    kubesim.call(setattr, kubesim.store, 'admission', admit)
    http.post(f'{DEPLOYS}?dryRun=All', deployment())
    assert seen == ['apps/deployments']


def test_kubectl_dry_run_server(kubectl, http, tmp_path):
    manifest = tmp_path / 'cm.json'
    manifest.write_text(json.dumps(configmap('x')))
    result = kubectl('apply', '-f', manifest, '--dry-run=server', check=True)
    assert 'server dry run' in result.stdout
    assert http.get(f'{CMS}/x')[0] == 404


def test_request_log(kubesim_factory, tmp_path):
    from .conftest import Http

    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(request_log=log)
    http = Http(sim.url)
    http.get('/version')
    http.post(f'{CMS}?dryRun=All&fieldManager=test', configmap('a'))
    http.patch(f'{CMS}/missing', {'data': {}}, content_type='application/merge-patch+json')
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    times = [line.pop('time') for line in lines]
    assert times == sorted(times) and abs(times[0] - time.time()) < 30
    who = {'user': 'kubesim-admin', 'auth': 'anonymous'}
    assert lines == [
        {'method': 'GET', 'path': '/version', 'query': '', 'content_type': '', 'status': 200,
         'dry_run': False, **who},
        {'method': 'POST', 'path': CMS, 'query': 'dryRun=All&fieldManager=test',
         'content_type': 'application/json', 'status': 201, 'dry_run': True, **who},
        {'method': 'PATCH', 'path': f'{CMS}/missing', 'query': '',
         'content_type': 'application/merge-patch+json', 'status': 404, 'dry_run': False, **who},
    ]


def test_request_log_records_watches_when_they_start(kubesim_factory, tmp_path):
    import concurrent.futures
    import time

    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(request_log=log)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        future = pool.submit(watch_events, sim.url, f'{CMS}?watch=1&timeoutSeconds=2')
        time.sleep(0.5)
        assert json.loads(log.read_text().splitlines()[-1])['query'] == 'watch=1&timeoutSeconds=2'
        future.result(10)

"""Istio in kubesim (`istio=True`): the VirtualService and DestinationRule CRDs, istiod's
validating webhook and the shares of traffic its simulated proxies give each destination, read
through the API as clients read them."""

import time

import pytest

from tests.kubesim.istio import crds

from .conftest import Http, deployment

pytestmark = pytest.mark.kubesim

NS = 'default'
V1 = '/apis/networking.istio.io/v1'
VS = f'{V1}/namespaces/{NS}/virtualservices'
DR = f'{V1}/namespaces/{NS}/destinationrules'
JSON_PATCH = 'application/json-patch+json'
DENIED = 'admission webhook "validation.istio.io" denied the request: configuration is invalid: '


def wait_for(what, timeout=5.0, interval=0.02):
    deadline = time.monotonic() + timeout
    while True:
        value = what()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(interval)


def service(name, selector):
    return {
        'apiVersion': 'v1',
        'kind': 'Service',
        'metadata': {'name': name},
        'spec': {'selector': selector, 'ports': [{'name': 'http', 'port': 80}]},
    }


def virtual_service(name='web', destinations=(('web-stable', 90), ('web-canary', 10)), **spec):
    route = []
    for destination, weight in destinations:
        host, _, subset = destination.partition('/')
        item = {'destination': {'host': host, **({'subset': subset} if subset else {})}}
        if weight is not None:
            item['weight'] = weight
        route.append(item)
    body = {'hosts': ['web'], 'http': [{'name': 'primary', 'route': route}]}
    body.update(spec)
    return {
        'apiVersion': f'{crds.GROUP}/v1',
        'kind': 'VirtualService',
        'metadata': {'name': name},
        'spec': body,
    }


def destination_rule(name='web', host='web', subsets=(('stable', 'stable'), ('canary', 'canary'))):
    return {
        'apiVersion': f'{crds.GROUP}/v1',
        'kind': 'DestinationRule',
        'metadata': {'name': name},
        'spec': {'host': host, 'subsets': [{'name': n, 'labels': {'track': t}} for n, t in subsets]},
    }


@pytest.fixture
def sim(kubesim_factory):
    return kubesim_factory(istio=True, ready_delay=0.05)


@pytest.fixture
def apps(sim):
    """Two Deployments (stable 3 pods, canary 1) of app `web`, each behind its own Service, and
    the Service `web` over both (for subsets)."""
    api = Http(sim.url)
    for track, replicas in (('stable', 3), ('canary', 1)):
        labels = {'app': 'web', 'track': track}
        body = deployment(f'web-{track}', replicas=replicas, labels=labels)
        assert api.post(f'/apis/apps/v1/namespaces/{NS}/deployments', body)[0] == 201
        assert api.post(f'/api/v1/namespaces/{NS}/services', service(f'web-{track}', labels))[0] == 201
    assert api.post(f'/api/v1/namespaces/{NS}/services', service('web', {'app': 'web'}))[0] == 201
    assert wait_for(lambda: sim.call(sim.istio.ready_endpoints, NS, 'web') == 4)
    return api


def shares(sim, name='web'):
    got = sim.route_shares(NS, name, kind='VirtualService')
    return got and [route['shares'] for route in got]


def test_the_crds_are_served_in_istios_three_versions(sim):
    api = Http(sim.url)
    status, _, body = api.get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions')
    assert status == 200
    assert sorted(item['metadata']['name'] for item in body['items']) == [
        'destinationrules.networking.istio.io',
        'virtualservices.networking.istio.io',
    ]
    for version in ('v1', 'v1beta1', 'v1alpha3'):
        status, _, body = api.get(f'/apis/networking.istio.io/{version}')
        assert status == 200
        found = {r['name']: r for r in body['resources']}
        assert found['virtualservices']['shortNames'] == ['vs']
        assert found['destinationrules']['shortNames'] == ['dr']
        assert set(found['virtualservices']['categories']) == {'istio-io', 'networking-istio-io'}
    # Written in one version, read in another: v1 is stored.
    assert api.post(VS, virtual_service())[0] == 201
    status, _, body = api.get(f'/apis/networking.istio.io/v1alpha3/namespaces/{NS}/virtualservices/web')
    assert status == 200 and body['apiVersion'] == 'networking.istio.io/v1alpha3'


def test_shares_follow_relative_weights_and_ready_endpoints(apps, sim):
    # Weights are relative: 3 and 1 are 75 % and 25 %; the destination hosts resolve by short
    # name and by full name.
    body = virtual_service(destinations=(('web-stable', 3), ('web-canary.default.svc.cluster.local', 1)))
    assert apps.post(VS, body)[0] == 201
    assert wait_for(lambda: shares(sim)) == [{'web-stable': 0.75, 'web-canary': 0.25}]
    # The canary's pods go: its share is answered 503 from the moment its endpoints are gone.
    status, _, _ = apps.patch(
        f'/apis/apps/v1/namespaces/{NS}/deployments/web-canary/scale',
        {'spec': {'replicas': 0}},
        content_type='application/merge-patch+json',
    )
    assert status == 200
    assert wait_for(lambda: shares(sim) == [{'web-stable': 0.75, 'web-canary': 0.0, '503': 0.25}])
    log = sim.route_traffic(NS, 'web', kind='VirtualService')
    assert [entry[1] for entry in log] == [1] * len(log)
    assert log[-1][2][0]['shares'] == {'web-stable': 0.75, 'web-canary': 0.0, '503': 0.25}
    times = [entry[0] for entry in log]
    assert times == sorted(times)


def test_one_destination_gets_everything_and_an_omitted_weight_is_0(apps, sim):
    body = virtual_service(destinations=(('web-stable', None),))
    body['spec']['http'].append(
        {
            'name': 'second',
            'route': [
                {'destination': {'host': 'web-stable'}, 'weight': 5},
                {'destination': {'host': 'web-canary'}},
            ],
        }
    )
    assert apps.post(VS, body)[0] == 201
    assert wait_for(lambda: shares(sim)) == [{'web-stable': 1.0}, {'web-stable': 1.0, 'web-canary': 0.0}]
    names = [route['name'] for route in sim.route_shares(NS, 'web', kind='VirtualService')]
    assert names == ['primary', 'second']


def test_a_host_that_names_no_service_has_no_cluster(apps, sim):
    # `name.namespace` is taken as written (only a name without a dot is completed), so it names
    # no Service, as a Service that does not exist.
    body = virtual_service(destinations=(('web-stable', 50), ('web-canary.default', 25), ('missing', 25)))
    assert apps.post(VS, body)[0] == 201
    assert wait_for(lambda: shares(sim)) == [
        {'web-stable': 0.5, 'web-canary.default': 0.0, 'missing': 0.0, '500': 0.5}
    ]


def test_subsets_are_the_endpoints_whose_pods_carry_the_labels(apps, sim):
    assert apps.post(DR, destination_rule())[0] == 201
    body = virtual_service(destinations=(('web/stable', 80), ('web/canary', 20), ('web/nope', 0)))
    assert apps.post(VS, body)[0] == 201
    assert wait_for(lambda: shares(sim)) == [{'web/stable': 0.8, 'web/canary': 0.2, 'web/nope': 0.0}]
    # A subset the DestinationRule does not define has no cluster; a change of the rule is
    # programmed as one of the VirtualService.
    apps.patch(
        f'{VS}/web',
        [{'op': 'replace', 'path': '/spec/http/0/route/2/weight', 'value': 20}],
        content_type=JSON_PATCH,
    )
    assert wait_for(
        lambda: shares(sim) == [{'web/stable': 2 / 3, 'web/canary': 1 / 6, 'web/nope': 0.0, '500': 1 / 6}]
    )
    status, _, _ = apps.put(
        f'{DR}/web',
        dict(
            destination_rule(subsets=(('stable', 'stable'), ('canary', 'canary'), ('nope', 'x'))),
            metadata={
                'name': 'web',
                'resourceVersion': apps.get(f'{DR}/web')[2]['metadata']['resourceVersion'],
            },
        ),
    )
    assert status == 200
    # A subset whose labels select no pod has no endpoints: 503.
    assert wait_for(
        lambda: shares(sim) == [{'web/stable': 2 / 3, 'web/canary': 1 / 6, 'web/nope': 0.0, '503': 1 / 6}]
    )


@pytest.mark.parametrize(
    'change, message',
    [
        ({'op': 'replace', 'path': '/spec/http/0/route/0/weight', 'value': -1}, 'weight -1 < 0'),
        (
            [
                {'op': 'replace', 'path': '/spec/http/0/route/0/weight', 'value': 0},
                {'op': 'replace', 'path': '/spec/http/0/route/1/weight', 'value': 0},
            ],
            'total destination weight = 0',
        ),
        (
            {'op': 'add', 'path': '/spec/http/0/route/1/destination/subset', 'value': 'Canary'},
            'subset name is invalid: Canary',
        ),
        (
            {'op': 'replace', 'path': '/spec/http/0/route/0/destination/host', 'value': '*'},
            'invalid destination host *',
        ),
        (
            {'op': 'remove', 'path': '/spec/http/0/route'},
            'HTTP route, redirect or direct_response is required',
        ),
        (
            {'op': 'add', 'path': '/spec/http/0/match', 'value': [{'headers': {'x y': {'exact': 'on'}}}]},
            'header name x y is not a valid header name',
        ),
        (
            {'op': 'replace', 'path': '/spec/hosts', 'value': ['*']},
            'wildcard host * is not allowed for virtual services bound to the mesh gateway',
        ),
    ],
)
def test_istiods_webhook_refuses_what_its_validation_refuses(apps, sim, change, message):
    assert apps.post(VS, virtual_service(destinations=(('web-stable', 90), ('web-canary', 10))))[0] == 201
    before = apps.get(f'{VS}/web')[2]
    status, _, body = apps.patch(
        f'{VS}/web', change if isinstance(change, list) else [change], content_type=JSON_PATCH
    )
    assert (status, body.get('reason'), body['message']) == (400, None, DENIED + message)
    assert apps.get(f'{VS}/web')[2]['metadata']['resourceVersion'] == before['metadata']['resourceVersion']


def test_totals_other_than_100_are_accepted_and_errors_are_listed_together(apps):
    assert apps.post(VS, virtual_service(destinations=(('web-stable', 7), ('web-canary', 500))))[0] == 201
    body = virtual_service(name='bad', destinations=(('web-stable', -1), ('web-canary/Bad', 5)))
    status, _, out = apps.post(VS, body)
    assert status == 400
    assert (
        out['message'] == DENIED + '2 errors occurred:\n\t* weight -1 < 0\n\t* subset name is invalid: Bad\n'
    )
    # A dry run is judged too; a DestinationRule's duplicate subsets are refused.
    status, _, out = apps.post(f'{VS}?dryRun=All', body)
    assert status == 400
    status, _, out = apps.post(DR, destination_rule(subsets=(('stable', 'a'), ('stable', 'b'))))
    assert (status, out['message']) == (400, DENIED + 'duplicate subset names: stable')


def test_the_schema_refuses_two_kinds_of_string_match_in_one(apps):
    body = virtual_service()
    body['spec']['http'][0]['match'] = [{'headers': {'x-canary': {'exact': 'yes', 'prefix': 'y'}}}]
    status, _, out = apps.post(VS, body)
    assert status == 422, out
    assert 'spec.http[0].match[0].headers.x-canary' in out['message']


def test_istio_delay_and_the_reconciled_condition(kubesim_factory):
    sim = kubesim_factory(istio=True, istio_delay=0.4, istio_reconciled=True, nodes=1)
    api = Http(sim.url)
    for name in ('web-stable', 'web-canary'):
        assert api.post(f'/api/v1/namespaces/{NS}/services', service(name, {'app': name}))[0] == 201
    started = time.monotonic()
    assert api.post(VS, virtual_service())[0] == 201
    assert shares(sim) is None

    def reconciled():
        conditions = (api.get(f'{VS}/web')[2].get('status') or {}).get('conditions') or []
        return {c['type']: c for c in conditions}.get('Reconciled')

    first = wait_for(reconciled)
    assert time.monotonic() - started >= 0.35
    assert (first['status'], first['observedGeneration']) == ('True', 1)
    assert shares(sim) == [{'web-stable': 0.0, 'web-canary': 0.0, '503': 1.0}]
    status, _, body = api.patch(
        f'{VS}/web',
        [{'op': 'replace', 'path': '/spec/http/0/route/1/weight', 'value': 90}],
        content_type=JSON_PATCH,
    )
    assert (status, body['metadata']['generation']) == (200, 2)
    # Until generation 2 is programmed, the status speaks of generation 1.
    assert reconciled()['observedGeneration'] == 1
    assert wait_for(lambda: reconciled()['observedGeneration'] == 2)
    assert api.get(f'{VS}/web')[2]['status']['observedGeneration'] == 2
    generations = [entry[1] for entry in sim.route_traffic(NS, 'web', kind='VirtualService')]
    assert generations == [1, 2]


def test_without_the_status_feature_nothing_is_written(apps, sim):
    assert apps.post(VS, virtual_service())[0] == 201
    assert wait_for(lambda: shares(sim))
    assert 'status' not in apps.get(f'{VS}/web')[2]


def test_the_python_clients_read_and_patch_virtual_services(apps, sim):
    from kubernetes import client, config

    api_client = config.new_client_from_config(str(sim.kubeconfig))
    objects = client.CustomObjectsApi(api_client)
    objects.create_namespaced_custom_object(
        crds.GROUP,
        'v1beta1',
        NS,
        'virtualservices',
        dict(virtual_service(), apiVersion=f'{crds.GROUP}/v1beta1'),
    )
    objects.patch_namespaced_custom_object(
        crds.GROUP,
        'v1',
        NS,
        'virtualservices',
        'web',
        [
            {'op': 'test', 'path': '/spec/http/0/name', 'value': 'primary'},
            {'op': 'replace', 'path': '/spec/http/0/route/1/weight', 'value': 50},
        ],
        _content_type=JSON_PATCH,
    )
    assert wait_for(lambda: shares(sim) == [{'web-stable': 90 / 140, 'web-canary': 50 / 140}])
    with pytest.raises(client.ApiException) as failed:
        objects.patch_namespaced_custom_object(
            crds.GROUP,
            'v1',
            NS,
            'virtualservices',
            'web',
            [{'op': 'replace', 'path': '/spec/http/0/route/1/weight', 'value': -50}],
            _content_type=JSON_PATCH,
        )
    assert failed.value.status == 400
    objects.delete_namespaced_custom_object(crds.GROUP, 'v1', NS, 'virtualservices', 'web')
    assert wait_for(lambda: sim.route_shares(NS, 'web', kind='VirtualService') is None)


def test_the_cli_installs_istio(tmp_path):
    from .test_cli import ready_line, start

    proc = start(
        '--kubeconfig', tmp_path / 'kc', '--nodes', 0, '--istio', '--istio-delay', '0.1', '--istio-reconciled'
    )
    try:
        line = ready_line(proc, 20)
        assert line and line.startswith('kubesim ready '), line
        api = Http(line.split()[-1])
        status, _, body = api.get('/apis/networking.istio.io/v1')
        assert status == 200
        assert {r['name'] for r in body['resources']} >= {'virtualservices', 'destinationrules'}
    finally:
        proc.terminate()
        proc.wait(10)

"""The Gateway API in kubesim: its CRDs, the gateway controller stand-in and the shares of traffic
its simulated data plane gives each backend, read through the API as clients read them."""

import time

import pytest

from tests.kubesim.gateway import crds

from .conftest import Http, deployment

pytestmark = pytest.mark.kubesim

GW = '/apis/gateway.networking.k8s.io/v1'
NS = 'default'
ROUTES = f'{GW}/namespaces/{NS}/httproutes'
JSON_PATCH = 'application/json-patch+json'
MERGE_PATCH = 'application/merge-patch+json'


def wait_for(what, timeout=5.0, interval=0.02):
    deadline = time.monotonic() + timeout
    while True:
        value = what()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(interval)


def service(name, app):
    return {
        'apiVersion': 'v1',
        'kind': 'Service',
        'metadata': {'name': name},
        'spec': {'selector': {'app': app}, 'ports': [{'name': 'http', 'port': 80}]},
    }


def gateway(name='gw', from_namespaces='Same'):
    return {
        'apiVersion': f'{crds.GROUP}/v1',
        'kind': 'Gateway',
        'metadata': {'name': name},
        'spec': {
            'gatewayClassName': 'kubesim',
            'listeners': [
                {
                    'name': 'http',
                    'port': 80,
                    'protocol': 'HTTP',
                    'allowedRoutes': {'namespaces': {'from': from_namespaces}},
                }
            ],
        },
    }


def route(name='web', backends=(('web-stable', 90), ('web-canary', 10)), parent='gw'):
    refs = []
    for backend, weight in backends:
        ref = {'name': backend, 'port': 80}
        if weight is not None:
            ref['weight'] = weight
        refs.append(ref)
    return {
        'apiVersion': f'{crds.GROUP}/v1',
        'kind': 'HTTPRoute',
        'metadata': {'name': name},
        'spec': {'parentRefs': [{'name': parent}], 'rules': [{'backendRefs': refs}]},
    }


@pytest.fixture
def sim(kubesim_factory):
    return kubesim_factory(gateway_api=True, ready_delay=0.05)


@pytest.fixture
def api(sim):
    return Http(sim.url)


@pytest.fixture
def apps(api):
    """Two Deployments (stable 3 pods, canary 1) behind their Services, and a Gateway."""
    for name, replicas in (('web-stable', 3), ('web-canary', 1)):
        assert (
            api.post(f'/apis/apps/v1/namespaces/{NS}/deployments', deployment(name, replicas=replicas))[0]
            == 201
        )
        assert api.post(f'/api/v1/namespaces/{NS}/services', service(name, name))[0] == 201
    assert api.post(f'{GW}/namespaces/{NS}/gateways', gateway())[0] == 201
    return api


def ready_endpoints(sim, service_name):
    return sim.call(sim.gateway.ready_endpoints, NS, service_name)


def route_conditions(api, name='web'):
    status, _, body = api.get(f'{ROUTES}/{name}')
    assert status == 200
    parents = (body.get('status') or {}).get('parents') or []
    return body, {c['type']: c for p in parents for c in p['conditions']}


def test_the_crds_and_the_class_kubesim_are_there_at_start(sim, api):
    status, _, body = api.get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions')
    assert status == 200
    names = sorted(item['metadata']['name'] for item in body['items'])
    assert names == [
        'gatewayclasses.gateway.networking.k8s.io',
        'gateways.gateway.networking.k8s.io',
        'grpcroutes.gateway.networking.k8s.io',
        'httproutes.gateway.networking.k8s.io',
    ]
    for version in ('v1', 'v1beta1'):
        status, _, body = api.get(f'/apis/gateway.networking.k8s.io/{version}')
        assert status == 200
        served = {r['name'] for r in body['resources']}
        assert {'gatewayclasses', 'gateways', 'httproutes'} <= served
        # GRPCRoute is served as v1 only, as the standard channel publishes it
        assert ('grpcroutes' in served) == (version == 'v1')
    cls = wait_for(lambda: api.get(f'{GW}/gatewayclasses/kubesim')[2].get('status', {}).get('conditions'))
    assert [(c['type'], c['status'], c['reason']) for c in cls] == [('Accepted', 'True', 'Accepted')]


def test_the_manifest_file_is_what_the_builder_writes():
    with open(crds.__file__.replace('crds.py', 'gateway-api.yaml'), encoding='utf-8') as f:
        assert f.read() == crds.manifest()


def test_a_route_gets_its_defaults_and_each_parent_its_conditions_at_the_generation(apps, sim):
    body = route(backends=(('web-stable', 90), ('web-canary', None)))
    status, _, created = apps.post(ROUTES, body)
    assert status == 201, created
    rule = created['spec']['rules'][0]
    assert rule['matches'] == [{'path': {'type': 'PathPrefix', 'value': '/'}}]
    assert rule['backendRefs'][1] == {
        'group': '',
        'kind': 'Service',
        'name': 'web-canary',
        'port': 80,
        'weight': 1,
    }
    assert created['spec']['parentRefs'] == [{'group': crds.GROUP, 'kind': 'Gateway', 'name': 'gw'}]
    assert created['metadata']['generation'] == 1
    wait_for(lambda: route_conditions(apps)[1])
    obj, conds = route_conditions(apps)
    parent = obj['status']['parents'][0]
    assert parent['controllerName'] == 'kubesim.io/gateway-controller'
    assert parent['parentRef'] == {'group': crds.GROUP, 'kind': 'Gateway', 'name': 'gw'}
    assert {t: (c['status'], c['reason'], c['observedGeneration']) for t, c in conds.items()} == {
        'Accepted': ('True', 'Accepted', 1),
        'ResolvedRefs': ('True', 'ResolvedRefs', 1),
    }

    # A weight change through a JSON patch that tests what it replaces: a new generation, observed.
    patch = [
        {'op': 'test', 'path': '/spec/rules/0/backendRefs/1/name', 'value': 'web-canary'},
        {'op': 'test', 'path': '/spec/rules/0/backendRefs/1/weight', 'value': 1},
        {'op': 'replace', 'path': '/spec/rules/0/backendRefs/1/weight', 'value': 10},
    ]
    status, _, patched = apps.patch(f'{ROUTES}/web', patch, content_type=JSON_PATCH)
    assert status == 200 and patched['metadata']['generation'] == 2
    assert wait_for(lambda: route_conditions(apps)[1]['Accepted']['observedGeneration'] == 2)
    # A status write by the gateway does not move the generation.
    assert route_conditions(apps)[0]['metadata']['generation'] == 2


def test_shares_follow_the_weights_and_the_ready_endpoints(apps, sim):
    assert wait_for(
        lambda: ready_endpoints(sim, 'web-stable') == 3 and ready_endpoints(sim, 'web-canary') == 1
    )
    assert apps.post(ROUTES, route())[0] == 201
    assert wait_for(lambda: sim.route_shares(NS, 'web'))
    [rule] = sim.route_shares(NS, 'web')
    assert rule['shares'] == pytest.approx({'web-stable': 0.9, 'web-canary': 0.1})

    # The canary scaled to 0: its tenth of the requests is answered 503 by the gateway.
    status, _, _ = apps.patch(
        f'/apis/apps/v1/namespaces/{NS}/deployments/web-canary/scale',
        {'spec': {'replicas': 0}},
        content_type=MERGE_PATCH,
    )
    assert status == 200
    assert wait_for(lambda: ready_endpoints(sim, 'web-canary') == 0)
    [rule] = sim.route_shares(NS, 'web')
    assert rule['shares'] == pytest.approx({'web-stable': 0.9, 'web-canary': 0.0, '503': 0.1})

    # Weight 0 for the canary: nothing goes to it, nothing is answered 503.
    patch = [{'op': 'replace', 'path': '/spec/rules/0/backendRefs/1/weight', 'value': 0}]
    assert apps.patch(f'{ROUTES}/web', patch, content_type=JSON_PATCH)[0] == 200
    assert wait_for(lambda: sim.route_shares(NS, 'web')[0]['shares'].get('503', 0) == 0)
    assert sim.route_shares(NS, 'web')[0]['shares'] == pytest.approx({'web-stable': 1.0, 'web-canary': 0.0})

    log = sim.route_traffic(NS, 'web')
    seen = [shares[0]['shares'] for _t, _gen, shares in log]
    assert seen[0] == pytest.approx({'web-stable': 0.9, 'web-canary': 0.1})
    assert {'web-stable': 0.9, 'web-canary': 0.0, '503': 0.1} in [pytest.approx(s) for s in seen]
    assert seen[-1] == pytest.approx({'web-stable': 1.0, 'web-canary': 0.0})
    assert [t for t, _g, _s in log] == sorted(t for t, _g, _s in log)


def test_a_backend_that_does_not_exist_is_not_resolved_and_answered_500(apps, sim):
    assert apps.post(ROUTES, route(backends=(('web-stable', 1), ('nowhere', 1))))[0] == 201
    assert wait_for(lambda: route_conditions(apps)[1].get('ResolvedRefs'))
    cond = route_conditions(apps)[1]['ResolvedRefs']
    assert (cond['status'], cond['reason']) == ('False', 'BackendNotFound')
    assert 'nowhere' in cond['message']
    assert wait_for(lambda: ready_endpoints(sim, 'web-stable') == 3)
    assert sim.route_shares(NS, 'web')[0]['shares'] == pytest.approx(
        {'web-stable': 0.5, 'nowhere': 0.0, '500': 0.5}
    )
    # The Service appears: resolved at once.
    assert apps.post(f'/api/v1/namespaces/{NS}/services', service('nowhere', 'web-stable'))[0] == 201
    assert wait_for(lambda: route_conditions(apps)[1]['ResolvedRefs']['status'] == 'True')


def test_a_gateway_that_rejects_routes_programs_none(apps, sim):
    sim.set_gateway(reject='NotAllowedByListeners')
    assert apps.post(ROUTES, route())[0] == 201
    assert wait_for(lambda: route_conditions(apps)[1].get('Accepted'))
    cond = route_conditions(apps)[1]['Accepted']
    assert (cond['status'], cond['reason'], cond['observedGeneration']) == (
        'False',
        'NotAllowedByListeners',
        1,
    )
    assert sim.route_shares(NS, 'web') is None
    sim.set_gateway(reject=None)
    assert wait_for(lambda: route_conditions(apps)[1]['Accepted']['status'] == 'True')
    assert sim.route_shares(NS, 'web') is not None


def test_routes_of_other_namespaces_are_not_allowed_by_a_same_namespace_listener(apps, sim):
    assert apps.post('/api/v1/namespaces', {'metadata': {'name': 'other'}})[0] == 201
    body = route()
    body['spec']['parentRefs'] = [{'name': 'gw', 'namespace': NS}]
    assert apps.post(f'{GW}/namespaces/other/httproutes', body)[0] == 201

    def accepted():
        parents = (apps.get(f'{GW}/namespaces/other/httproutes/web')[2].get('status') or {}).get('parents')
        return parents and {c['type']: c for c in parents[0]['conditions']}['Accepted']

    cond = wait_for(accepted)
    assert (cond['status'], cond['reason']) == ('False', 'NotAllowedByListeners')


def test_the_gateway_takes_its_delay_to_judge_a_new_generation(kubesim_factory):
    sim = kubesim_factory(gateway_api=True, gateway_delay=0.5)
    api = Http(sim.url)
    assert api.post(f'{GW}/namespaces/{NS}/gateways', gateway())[0] == 201
    assert api.post(f'/api/v1/namespaces/{NS}/services', service('web-stable', 'x'))[0] == 201
    assert api.post(f'/api/v1/namespaces/{NS}/services', service('web-canary', 'y'))[0] == 201
    started = time.monotonic()
    assert api.post(ROUTES, route())[0] == 201
    assert route_conditions(api)[1] == {}
    assert wait_for(lambda: route_conditions(api)[1].get('Accepted'))
    assert time.monotonic() - started >= 0.45
    status, _, _ = api.patch(
        f'{ROUTES}/web',
        [{'op': 'replace', 'path': '/spec/rules/0/backendRefs/1/weight', 'value': 50}],
        content_type=JSON_PATCH,
    )
    assert status == 200
    # Until the gateway has judged generation 2, the status still speaks of generation 1.
    assert route_conditions(api)[1]['Accepted']['observedGeneration'] == 1
    assert wait_for(lambda: route_conditions(api)[1]['Accepted']['observedGeneration'] == 2)


def test_other_controllers_status_entries_are_kept(apps, sim):
    assert apps.post(ROUTES, route())[0] == 201
    assert wait_for(lambda: route_conditions(apps)[1])
    obj = route_conditions(apps)[0]
    foreign = {
        'parentRef': {'name': 'elsewhere'},
        'controllerName': 'example.com/other',
        'conditions': [
            {
                'type': 'Accepted',
                'status': 'True',
                'reason': 'Accepted',
                'message': '',
                'lastTransitionTime': '2026-01-01T00:00:00Z',
                'observedGeneration': 1,
            }
        ],
    }
    obj['status']['parents'].append(foreign)
    status, _, body = apps.put(f'{ROUTES}/web/status', obj)
    assert status == 200, body
    apps.patch(
        f'{ROUTES}/web',
        [{'op': 'replace', 'path': '/spec/rules/0/backendRefs/0/weight', 'value': 80}],
        content_type=JSON_PATCH,
    )
    assert wait_for(lambda: route_conditions(apps)[1]['Accepted']['observedGeneration'] == 2)
    controllers = [p['controllerName'] for p in route_conditions(apps)[0]['status']['parents']]
    assert sorted(controllers) == ['example.com/other', 'kubesim.io/gateway-controller']


@pytest.mark.parametrize(
    'change, message',
    [
        ({'weight': 1000001}, 'spec.rules[0].backendRefs[0].weight: Invalid value: 1000001'),
        ({'weight': -1}, 'spec.rules[0].backendRefs[0].weight: Invalid value: -1'),
        ({'port': 0}, 'spec.rules[0].backendRefs[0].port: Invalid value: 0'),
    ],
)
def test_the_schema_bounds_are_enforced(apps, change, message):
    body = route()
    body['spec']['rules'][0]['backendRefs'][0].update(change)
    status, _, answer = apps.post(ROUTES, body)
    assert status == 422 and answer['reason'] == 'Invalid'
    assert message in answer['message']


def test_at_most_16_rules_and_16_backends(apps):
    body = route()
    body['spec']['rules'] = [{'backendRefs': [{'name': 'web-stable', 'port': 80}]}] * 17
    status, _, answer = apps.post(ROUTES, body)
    assert status == 422 and 'spec.rules: Too many: 17: must have at most 16 items' in answer['message']
    body = route(backends=[(f'b{i}', 1) for i in range(17)])
    status, _, answer = apps.post(ROUTES, body)
    assert status == 422 and 'must have at most 16 items' in answer['message']


def test_a_strategic_merge_patch_of_a_route_is_415(apps):
    assert apps.post(ROUTES, route())[0] == 201
    status, _, answer = apps.patch(f'{ROUTES}/web', {'spec': {'hostnames': ['a.example']}})
    assert status == 415 and answer['reason'] == 'UnsupportedMediaType'


def test_the_python_clients_read_and_patch_routes(apps, sim, tmp_path):
    from kubernetes import client, config, dynamic

    api_client = config.new_client_from_config(str(sim.write_kubeconfig(tmp_path / 'kc')))
    objects = client.CustomObjectsApi(api_client)
    created = objects.create_namespaced_custom_object(crds.GROUP, 'v1', NS, 'httproutes', route())
    assert created['spec']['rules'][0]['backendRefs'][0]['kind'] == 'Service'
    # A JSON patch (this client sends merge patches unless told): the test guards the weight it replaces.
    patch = [
        {'op': 'test', 'path': '/spec/rules/0/backendRefs/1/weight', 'value': 10},
        {'op': 'replace', 'path': '/spec/rules/0/backendRefs/1/weight', 'value': 30},
    ]
    patched = objects.patch_namespaced_custom_object(
        crds.GROUP, 'v1', NS, 'httproutes', 'web', patch, _content_type='application/json-patch+json'
    )
    assert [r['weight'] for r in patched['spec']['rules'][0]['backendRefs']] == [90, 30]
    assert wait_for(
        lambda: (
            objects.get_namespaced_custom_object_status(crds.GROUP, 'v1', NS, 'httproutes', 'web')
            .get('status', {})
            .get('parents')
        )
    )
    # The same object through v1beta1 and the dynamic client (which discovers the kind).
    dyn = dynamic.DynamicClient(api_client)
    routes = dyn.resources.get(api_version='gateway.networking.k8s.io/v1beta1', kind='HTTPRoute')
    got = routes.get(name='web', namespace=NS)
    assert got.apiVersion == 'gateway.networking.k8s.io/v1beta1'
    assert [r.weight for r in got.spec.rules[0].backendRefs] == [90, 30]
    listed = objects.list_namespaced_custom_object(crds.GROUP, 'v1', NS, 'httproutes')
    assert [item['metadata']['name'] for item in listed['items']] == ['web']
    objects.delete_namespaced_custom_object(crds.GROUP, 'v1', NS, 'httproutes', 'web')
    assert wait_for(lambda: sim.route_shares(NS, 'web') is None)


def test_the_cli_installs_the_gateway_api(tmp_path):
    from .test_cli import ready_line, start

    proc = start('--kubeconfig', tmp_path / 'kc', '--nodes', 1, '--gateway-api', '--gateway-delay', '0.1')
    try:
        line = ready_line(proc, 20)
        assert line and line.startswith('kubesim ready '), line
        api = Http(line.split()[-1])

        def accepted():
            conditions = api.get(f'{GW}/gatewayclasses/kubesim')[2].get('status', {}).get('conditions') or []
            return [(c['type'], c['status']) for c in conditions] == [('Accepted', 'True')]

        assert wait_for(accepted)
    finally:
        proc.terminate()
        proc.wait(10)

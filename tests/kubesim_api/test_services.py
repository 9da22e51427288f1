"""Services and their endpoints through the official Python client and raw HTTP: the API server's
defaults, cluster IP allocation and validation; the EndpointSlice and Endpoints controllers
(readiness, named target ports, 100 endpoints a slice, selector changes, headless Services,
publishNotReadyAddresses, terminating pods); the endpoint lag, the endpoints timeline and the
readiness and deletion faults; and how fast a readiness change reaches the slices."""

import ipaddress
import json
import time

import pytest

from tests.kubesim.faults import FaultSpecError, parse_spec

from .conftest import Http, deployment, wait_for

pytestmark = pytest.mark.kubesim

SVCS = '/api/v1/namespaces/default/services'
SLICES = '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices'
DEPLOYS = '/apis/apps/v1/namespaces/default/deployments'


@pytest.fixture
def clients(kubesim):
    import kubernetes

    api = kubernetes.config.new_client_from_config(str(kubesim.kubeconfig))
    return (kubernetes.client.CoreV1Api(api), kubernetes.client.DiscoveryV1Api(api),
            kubernetes.client.AppsV1Api(api), api)


def service(name='web', selector=None, ports=None, **spec):
    return {'apiVersion': 'v1', 'kind': 'Service', 'metadata': {'name': name},
            'spec': {'selector': selector if selector is not None else {'app': name},
                     'ports': ports if ports is not None else [{'port': 80, 'targetPort': 'http'}], **spec}}


def web_deployment(name='web', replicas=3, ports=({'name': 'http', 'containerPort': 8080},), labels=None):
    body = deployment(name, replicas, labels=labels)
    body['spec']['template']['spec']['containers'][0]['ports'] = [dict(p) for p in ports]
    return body


def slices_of(http, svc, namespace='default'):
    path = f'/apis/discovery.k8s.io/v1/namespaces/{namespace}/endpointslices'
    status, _, body = http.get(f'{path}?labelSelector=kubernetes.io/service-name={svc}')
    assert status == 200, body
    return body['items']


def ready_endpoints(items):
    return sorted(e['targetRef']['name'] for s in items for e in s.get('endpoints') or []
                  if e['conditions']['ready'])


def pods_of(http, selector='app=web'):
    items = http.get(f'/api/v1/namespaces/default/pods?labelSelector={selector}')[2]['items']
    return sorted(p['metadata']['name'] for p in items if not p['metadata'].get('deletionTimestamp'))


def start_web(http, replicas=3, **kw):
    assert http.post(SVCS, service(**kw))[0] == 201
    assert http.post(DEPLOYS, web_deployment(replicas=replicas))[0] == 201
    return wait_for(lambda: len(ready_endpoints(slices_of(http, 'web'))) == replicas and pods_of(http),
                    'the ready endpoints')


# ---- the Service: defaults, allocation, validation --------------------------------------------
def test_a_service_is_defaulted_and_given_a_cluster_ip(clients):
    from kubernetes import client

    core = clients[0]
    created = core.create_namespaced_service('default', client.V1Service(
        metadata=client.V1ObjectMeta(name='web'),
        spec=client.V1ServiceSpec(selector={'app': 'web'}, ports=[client.V1ServicePort(port=80)])))
    spec = created.spec
    assert (spec.type, spec.session_affinity) == ('ClusterIP', 'None')
    assert spec.internal_traffic_policy == 'Cluster'
    assert (spec.ip_families, spec.ip_family_policy) == (['IPv4'], 'SingleStack')
    assert spec.cluster_ips == [spec.cluster_ip]
    assert ipaddress.ip_address(spec.cluster_ip) in ipaddress.ip_network('10.96.0.0/12')
    assert (spec.ports[0].protocol, spec.ports[0].target_port) == ('TCP', 80)
    # The API server's own Service holds the first address.
    kubernetes_svc = core.read_namespaced_service('kubernetes', 'default')
    assert kubernetes_svc.spec.cluster_ip == '10.96.0.1' and kubernetes_svc.spec.ports[0].name == 'https'
    # A free address asked for is honoured; a taken one is the allocator's 422; released on delete.
    asked = core.create_namespaced_service('default', client.V1Service(
        metadata=client.V1ObjectMeta(name='fixed'),
        spec=client.V1ServiceSpec(cluster_ip='10.96.0.20', ports=[client.V1ServicePort(port=80)])))
    assert asked.spec.cluster_ips == ['10.96.0.20']
    with pytest.raises(client.ApiException) as err:
        core.create_namespaced_service('default', client.V1Service(
            metadata=client.V1ObjectMeta(name='clash'),
            spec=client.V1ServiceSpec(cluster_ip='10.96.0.20', ports=[client.V1ServicePort(port=80)])))
    body = json.loads(err.value.body)
    assert err.value.status == 422 and body['message'] == (
        'Service "clash" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.20"}: failed to '
        'allocate IP 10.96.0.20: provided IP is already allocated')
    assert body['details']['causes'] == [{
        'reason': 'FieldValueInvalid', 'field': 'spec.clusterIPs', 'message': (
            'Invalid value: []string{"10.96.0.20"}: failed to allocate IP 10.96.0.20: provided IP is already '
            'allocated')}]
    with pytest.raises(client.ApiException) as err:
        core.create_namespaced_service('default', client.V1Service(
            metadata=client.V1ObjectMeta(name='away'),
            spec=client.V1ServiceSpec(cluster_ip='192.0.2.1', ports=[client.V1ServicePort(port=80)])))
    assert json.loads(err.value.body)['message'].endswith(
        'failed to allocate IP 192.0.2.1: the provided IP (192.0.2.1) is not in the valid range. The range '
        'of valid IPs is 10.96.0.0/12')
    core.delete_namespaced_service('fixed', 'default')
    again = core.create_namespaced_service('default', client.V1Service(
        metadata=client.V1ObjectMeta(name='clash'),
        spec=client.V1ServiceSpec(cluster_ip='10.96.0.20', ports=[client.V1ServicePort(port=80)])))
    assert again.spec.cluster_ip == '10.96.0.20'


def test_dynamic_addresses_are_never_handed_out_twice(http):
    ips = set()
    for i in range(30):
        status, _, body = http.post(SVCS, service(f's{i}', ports=[{'port': 80}]))
        assert status == 201, body
        ips.add(body['spec']['clusterIP'])
    assert len(ips) == 30 and '10.96.0.1' not in ips


def test_the_cluster_ip_is_immutable(http):
    created = http.post(SVCS, service(ports=[{'port': 80}]))[2]
    status, _, body = http.patch(f'{SVCS}/web', {'spec': {'clusterIP': '10.96.0.99'}})
    assert status == 422 and body['message'] == (
        'Service "web" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.96.0.99"}: may not change '
        'once set')
    # A replace that leaves the allocated address out keeps it (patchAllocatedValues).
    replaced = {**service(ports=[{'port': 81}]), 'metadata': {'name': 'web'}}
    status, _, body = http.put(f'{SVCS}/web', replaced)
    assert status == 200, body
    assert body['spec']['clusterIPs'] == created['spec']['clusterIPs']
    assert body['spec']['ports'][0]['port'] == 81


@pytest.mark.parametrize('spec, message', [
    ({'ports': []}, 'spec.ports: Required value'),
    ({'ports': [{'port': 70000, 'targetPort': 8080}]},
     'spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive'),
    ({'ports': [{'port': 0}]},
     '[spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive, '
     'spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive]'),
    ({'ports': [{'port': 80, 'name': 'a'}, {'port': 81}]}, 'spec.ports[1].name: Required value'),
    ({'ports': [{'port': 80, 'name': 'a'}, {'port': 81, 'name': 'a'}]},
     'spec.ports[1].name: Duplicate value: "a"'),
    ({'ports': [{'port': 80, 'protocol': 'ICMP'}]},
     'spec.ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"'),
    ({'ports': [{'port': 80, 'targetPort': 'way-too-long-name'}]},
     'spec.ports[0].targetPort: Invalid value: "way-too-long-name": must be no more than 15 characters'),
    ({'ports': [{'port': 80}], 'selector': {'app': 'a b'}},
     'spec.selector: Invalid value: "a b": a valid label must be an empty string or consist of '
     "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character "
     "(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
     "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"),
    ({'ports': [{'port': 80}], 'type': 'Magic'},
     'spec.type: Unsupported value: "Magic": supported values: "ClusterIP", "ExternalName", "LoadBalancer", '
     '"NodePort"'),
    ({'ports': [{'port': 80, 'nodePort': 30080}]},
     "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"),
])
def test_validation_is_worded_as_the_api_server_words_it(http, spec, message):
    body = {'apiVersion': 'v1', 'kind': 'Service', 'metadata': {'name': 'bad'}, 'spec': spec}
    status, _, answer = http.post(SVCS, body)
    assert status == 422 and answer['message'] == f'Service "bad" is invalid: {message}'
    assert answer['details'] == {'name': 'bad', 'kind': 'Service', 'causes': answer['details']['causes']}


def test_headless_services(http):
    status, _, body = http.post(SVCS, service('db', clusterIP='None', ports=[{'port': 5432}]))
    assert status == 201
    assert (body['spec']['clusterIP'], body['spec']['clusterIPs']) == ('None', ['None'])
    assert (body['spec']['ipFamilyPolicy'], body['spec']['ipFamilies']) == ('SingleStack', ['IPv4'])
    # Headless and selectorless: RequireDualStack with both families (initIPFamilyFields).
    status, _, body = http.post(SVCS, service('ext', selector={}, clusterIP='None', ports=[{'port': 80}]))
    assert body['spec']['ipFamilyPolicy'] == 'RequireDualStack'
    assert body['spec']['ipFamilies'] == ['IPv4', 'IPv6']


# ---- the endpoint controllers -----------------------------------------------------------------
def test_slices_and_endpoints_follow_readiness(kubesim, clients, http):
    core, discovery, _apps, _api = clients
    pods = start_web(http)
    svc = core.read_namespaced_service('web', 'default')
    slices = discovery.list_namespaced_endpoint_slice('default',
                                                      label_selector='kubernetes.io/service-name=web')
    assert len(slices.items) == 1
    es = slices.items[0]
    assert es.metadata.generate_name == 'web-' and es.metadata.name.startswith('web-')
    assert es.metadata.labels == {'kubernetes.io/service-name': 'web',
                                  'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io'}
    ref = es.metadata.owner_references[0]
    assert (ref.kind, ref.name, ref.uid, ref.controller, ref.block_owner_deletion) == (
        'Service', 'web', svc.metadata.uid, True, True)
    assert es.address_type == 'IPv4'
    assert [(p.name, p.port, p.protocol) for p in es.ports] == [('', 8080, 'TCP')]
    by_pod = {e.target_ref.name: e for e in es.endpoints}
    assert sorted(by_pod) == pods
    pod = core.read_namespaced_pod(pods[0], 'default')
    endpoint = by_pod[pods[0]]
    assert endpoint.addresses == [pod.status.pod_ip] and endpoint.node_name == pod.spec.node_name
    assert (endpoint.conditions.ready, endpoint.conditions.serving, endpoint.conditions.terminating) == (
        True, True, False)
    assert (endpoint.target_ref.kind, endpoint.target_ref.namespace, endpoint.target_ref.uid) == (
        'Pod', 'default', pod.metadata.uid)
    legacy = core.read_namespaced_endpoints('web', 'default')
    assert [a.target_ref.name for a in legacy.subsets[0].addresses] == sorted(
        pods, key=lambda p: ipaddress.ip_address(core.read_namespaced_pod(p, 'default').status.pod_ip))
    assert [(p.name, p.port, p.protocol) for p in legacy.subsets[0].ports] == [(None, 8080, 'TCP')]
    assert 'endpoints.kubernetes.io/last-change-trigger-time' in legacy.metadata.annotations

    kubesim.make_unready('default', pods[0])
    wait_for(lambda: ready_endpoints(slices_of(http, 'web')) == pods[1:], 'the unready pod to leave')
    es = slices_of(http, 'web')[0]
    gone = next(e for e in es['endpoints'] if e['targetRef']['name'] == pods[0])
    assert gone['conditions'] == {'ready': False, 'serving': False, 'terminating': False}
    legacy = core.read_namespaced_endpoints('web', 'default')
    assert [a.target_ref.name for a in legacy.subsets[0].not_ready_addresses] == [pods[0]]
    kubesim.make_ready('default', pods[0])
    wait_for(lambda: ready_endpoints(slices_of(http, 'web')) == pods, 'the pod to come back')
    assert kubesim.unready_routes('default', 'web', tolerance=0.05) == []


def test_named_target_port_resolution_and_drop(kubesim, http):
    assert http.post(SVCS, service(ports=[{'name': 'web', 'port': 80, 'targetPort': 'http'},
                                          {'name': 'raw', 'port': 81, 'targetPort': 9000}]))[0] == 201
    assert http.post('/apis/apps/v1/namespaces/default/deployments', web_deployment(replicas=2))[0] == 201
    odd = web_deployment('odd', 1, ports=({'name': 'metrics', 'containerPort': 9090},), labels={'app': 'web'})
    odd['spec']['selector']['matchLabels'] = odd['spec']['template']['metadata']['labels'] = {
        'app': 'web', 'kind': 'odd'}
    assert http.post('/apis/apps/v1/namespaces/default/deployments', odd)[0] == 201
    items = wait_for(lambda: (lambda s: s if len(ready_endpoints(s)) == 3 else None)(slices_of(http, 'web')),
                     'three endpoints')
    by_ports = {json.dumps(s['ports'], sort_keys=True): sorted(e['targetRef']['name'] for e in s['endpoints'])
                for s in items}
    assert len(by_ports) == 2
    full = [{'name': 'web', 'port': 8080, 'protocol': 'TCP'},
            {'name': 'raw', 'port': 9000, 'protocol': 'TCP'}]
    dropped = [{'name': 'raw', 'port': 9000, 'protocol': 'TCP'}]
    assert len(by_ports[json.dumps(full, sort_keys=True)]) == 2
    assert by_ports[json.dumps(dropped, sort_keys=True)][0].startswith('odd-')
    _, _, legacy = http.get('/api/v1/namespaces/default/endpoints/web')
    shapes = sorted((len(s['addresses']), [p['name'] for p in s['ports']]) for s in legacy['subsets'])
    # RepackSubsets: addresses that offer the same ports share a subset.
    assert shapes == [(2, ['web']), (3, ['raw'])]


def test_150_pods_make_two_slices(kubesim, http):
    start_web(http, replicas=150)
    items = slices_of(http, 'web')
    assert sorted(len(s['endpoints']) for s in items) == [50, 100]
    assert len({e['targetRef']['uid'] for s in items for e in s['endpoints']}) == 150
    # Scaling down to 80 leaves one slice's worth: the controller rewrites, it need not merge.
    http.patch('/apis/apps/v1/namespaces/default/deployments/web', {'spec': {'replicas': 80}})
    wait_for(lambda: len(ready_endpoints(slices_of(http, 'web'))) == 80, '80 endpoints')
    assert all(len(s.get('endpoints') or []) <= 100 for s in slices_of(http, 'web'))


def test_selector_change_removal_and_deletion(kubesim, http):
    start_web(http, replicas=2)
    other = web_deployment('api', 2)
    assert http.post('/apis/apps/v1/namespaces/default/deployments', other)[0] == 201
    http.patch(f'{SVCS}/web', {'spec': {'selector': {'app': 'api'}}})
    wait_for(lambda: [p.startswith('api-') for p in ready_endpoints(slices_of(http, 'web'))] == [True, True],
             'the endpoints to follow the selector')
    # Without a selector the controllers leave the slices and Endpoints alone (syncService returns).
    before = slices_of(http, 'web')
    status, _, body = http.patch(f'{SVCS}/web', [{'op': 'remove', 'path': '/spec/selector'}],
                                 content_type='application/json-patch+json')
    assert status == 200 and 'selector' not in body['spec']
    http.patch('/apis/apps/v1/namespaces/default/deployments/api', {'spec': {'replicas': 1}})
    time.sleep(0.5)
    assert [s['metadata']['resourceVersion'] for s in slices_of(http, 'web')] == [
        s['metadata']['resourceVersion'] for s in before]
    # Deleting the Service: its slices go with it (owner), its Endpoints by the controller.
    assert http.delete(f'{SVCS}/web')[0] == 200
    wait_for(lambda: not slices_of(http, 'web'), 'the slices to be collected')
    wait_for(lambda: http.get('/api/v1/namespaces/default/endpoints/web')[0] == 404, 'the Endpoints to go')


def test_services_without_a_selector_get_no_managed_slices(kubesim, http):
    assert http.post(SVCS, service('ext', selector={}, ports=[{'port': 80}]))[0] == 201
    time.sleep(0.3)
    assert slices_of(http, 'ext') == []
    assert http.get('/api/v1/namespaces/default/endpoints/ext')[0] == 404


def test_a_headless_service_names_statefulset_pods(kubesim, http):
    from .conftest import manifests

    assert http.post(SVCS, service('db', clusterIP='None', ports=[{'port': 6379}]))[0] == 201
    sts = manifests.workload('StatefulSet', 'db', 'redis:7', 2)
    assert http.post('/apis/apps/v1/namespaces/default/statefulsets', sts)[0] == 201
    items = wait_for(lambda: (lambda s: s if len(ready_endpoints(s)) == 2 else None)(slices_of(http, 'db')),
                     'two endpoints')
    assert items[0]['metadata']['labels']['service.kubernetes.io/headless'] == ''
    assert sorted(e['hostname'] for e in items[0]['endpoints']) == ['db-0', 'db-1']
    _, _, legacy = http.get('/api/v1/namespaces/default/endpoints/db')
    assert legacy['metadata']['labels'] == {'service.kubernetes.io/headless': ''}
    assert sorted(a['hostname'] for a in legacy['subsets'][0]['addresses']) == ['db-0', 'db-1']


def test_publish_not_ready_addresses(kubesim, http):
    pods = start_web(http, replicas=2, publishNotReadyAddresses=True)
    kubesim.make_unready('default', pods[0])

    def unready_but_published():
        for e in slices_of(http, 'web')[0]['endpoints']:
            if e['targetRef']['name'] == pods[0]:
                return e['conditions'] == {'ready': True, 'serving': False, 'terminating': False}
    wait_for(unready_but_published, 'the unready pod published')
    _, _, legacy = http.get('/api/v1/namespaces/default/endpoints/web')
    assert len(legacy['subsets'][0]['addresses']) == 2 and 'notReadyAddresses' not in legacy['subsets'][0]


@pytest.mark.kubesim_options(stop_delay=1.5)
def test_terminating_pods_stay_as_terminating_endpoints(kubesim, http):
    pods = start_web(http, replicas=2)
    assert http.delete(f'/api/v1/namespaces/default/pods/{pods[0]}')[0] == 200

    def terminating():
        for s in slices_of(http, 'web'):
            for e in s['endpoints'] or []:
                if e['targetRef']['name'] == pods[0]:
                    return e['conditions']
    assert wait_for(terminating, 'a terminating endpoint') == {'ready': False, 'serving': True,
                                                                'terminating': True}
    # The Endpoints leave it out at once; the slices once its containers stopped.
    _, _, legacy = http.get('/api/v1/namespaces/default/endpoints/web')
    names = [a['targetRef']['name'] for s in legacy['subsets'] for a in s.get('addresses', [])
             + s.get('notReadyAddresses', [])]
    assert pods[0] not in names
    wait_for(lambda: terminating() is None, 'the stopped pod to leave the slices', timeout=10)


# ---- the lag, the timeline, the faults --------------------------------------------------------
@pytest.mark.kubesim_options(endpoint_lag=0.6)
def test_the_lag_delays_slices_and_the_timeline_shows_unready_routes(kubesim, http):
    pods = start_web(http, replicas=2)
    t0 = kubesim.clock()
    kubesim.make_unready('default', pods[0])
    wait_for(lambda: http.get(f'/api/v1/namespaces/default/pods/{pods[0]}')[2]['status']['conditions'],
             'the pod')
    time.sleep(0.25)
    assert ready_endpoints(slices_of(http, 'web')) == pods  # not yet: the controller waits
    wait_for(lambda: ready_endpoints(slices_of(http, 'web')) == pods[1:], 'the lagging write', timeout=5)
    routes = kubesim.unready_routes('default', 'web', since=t0)
    assert len(routes) == 1 and routes[0][2] == pods[0]
    start, end, _ = routes[0]
    assert 0.45 < end - start < 1.2, routes
    assert kubesim.endpoint_gaps('default', 'web', since=t0) == []


def test_endpoint_gaps_and_the_delete_fault(kubesim, http):
    pods = start_web(http, replicas=1)
    t0 = kubesim.clock()
    kubesim.delete_pod_at('default', pods[0], after=0.1)
    wait_for(lambda: ready_endpoints(slices_of(http, 'web')) not in ([], pods), 'a replacement endpoint')
    gaps = kubesim.endpoint_gaps('default', 'web', since=t0)
    assert len(gaps) == 1 and gaps[0][1] is not None and gaps[0][0] >= t0 + 0.1
    assert ('DELETE', f'/api/v1/namespaces/default/pods/{pods[0]}', 'delete') in kubesim.faults.injected
    timeline = kubesim.endpoints_timeline('default', 'web')
    assert timeline[-1][1] == frozenset(ready_endpoints(slices_of(http, 'web')))


def test_the_fault_spec_strikes_through_the_kubelet(kubesim, http):
    pods = start_web(http, replicas=3)
    t0 = kubesim.clock()
    kubesim.set_faults(f'unready=pods/default/{pods[0]}:0.1:0.4;delete=pods/default/{pods[1]}:0.2;'
                       'unready=pods/default/nothing:0')
    wait_for(lambda: ready_endpoints(slices_of(http, 'web')) == [pods[2]], 'both faults')
    _, _, pod = http.get(f'/api/v1/namespaces/default/pods/{pods[0]}')
    ready = next(c for c in pod['status']['conditions'] if c['type'] == 'Ready')
    assert ready['status'] == 'False' and ready['reason'] == 'ContainersNotReady'
    assert pod['status']['containerStatuses'][0]['ready'] is False
    assert 'running' in pod['status']['containerStatuses'][0]['state']
    wait_for(lambda: pods[0] in ready_endpoints(slices_of(http, 'web')), 'the probe to pass again')
    injected = [(m, a) for m, _p, a in kubesim.faults.injected]
    assert injected.count(('-', 'unready')) == 1 and ('-', 'missing') in injected
    assert ('-', 'ready') in injected and ('DELETE', 'delete') in injected
    # The pod was not Ready from 0.1 s to 0.5 s: the readiness log and the timeline agree.
    log = [e for e in kubesim.readiness_log if e['pod'] == pods[0] and e['t'] > t0]
    assert [e['event'] for e in log] == ['unready', 'ready']
    assert 0.3 < log[1]['t'] - log[0]['t'] < 0.8


@pytest.mark.parametrize('spec', ['unready=pods/default/web-0', 'unready=deployments/default/web:1',
                                  'delete=pods/default/web-0:1:2', 'unready=pods/default/web-0:-1'])
def test_bad_timed_faults_are_refused(spec):
    with pytest.raises(FaultSpecError):
        parse_spec(spec)


# ---- speed ------------------------------------------------------------------------------------
@pytest.mark.parametrize('lag', [0.0, 0.2])
def test_a_readiness_change_reaches_a_100_pod_service_within_the_lag(kubesim_factory, lag):
    """The time from the pod's status write (the readiness log) to the slice write (the
    timeline), both taken inside kubesim: at most the lag plus 50 ms on a quiet machine; the
    bound below leaves room for a loaded 2-core one."""
    sim = kubesim_factory(endpoint_lag=lag, ready_delay=0.05)
    http = Http(sim.url)
    pods = start_web(http, replicas=100)
    syncs = sim.endpoint_controllers.syncs
    measured = []
    for pod in pods[:3]:
        sim.make_unready('default', pod)
        wait_for(lambda pod=pod: pod not in ready_endpoints(slices_of(http, 'web')), 'the slice write',
                 timeout=5)
        change = max(e['t'] for e in sim.readiness_log if e['pod'] == pod and e['event'] == 'unready')
        written = next(t for t, ready in sim.endpoints_timeline('default', 'web') if t >= change
                       and pod not in ready)
        measured.append(written - change)
    print(f'lag {lag}: readiness change to slice write {[round(m * 1000, 1) for m in measured]} ms')
    assert max(measured) < lag + 0.25, measured
    # Incremental: three changes, a few syncs of the Service (not one per pod of it).
    assert sim.endpoint_controllers.syncs - syncs <= 6
    # A pod of another Service syncs only its own.
    http.post('/api/v1/namespaces/default/services', service('other', ports=[{'port': 80}]))
    before = sim.endpoint_controllers.syncs
    http.post('/api/v1/namespaces/default/pods', {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {
        'name': 'lone', 'labels': {'app': 'other'}}, 'spec': {'containers': [{'name': 'c', 'image': 'x'}]}})
    wait_for(lambda: ready_endpoints(slices_of(http, 'other')) == ['lone'], 'the other endpoint')
    assert sim.endpoint_controllers.syncs - before <= 4

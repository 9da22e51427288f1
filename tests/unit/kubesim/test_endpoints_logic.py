"""The pure parts of the endpoint controllers and the endpoints timeline: FindPort, the
Endpoints repacking, and the timeline helpers (gaps, routes to pods that were not Ready)."""

from tests.kubesim.controllers.endpoints import repack
from tests.kubesim.controllers.endpointslice import find_port, pod_to_endpoint
from tests.kubesim.timeline import endpoint_gaps, unready_routes


def pod(name='p', ready=True, deleting=False, ports=(), ip='10.244.1.2'):
    meta = {'name': name, 'namespace': 'default', 'uid': f'uid-{name}'}
    if deleting:
        meta['deletionTimestamp'] = '2026-01-01T00:00:00Z'
    return {'metadata': meta,
            'spec': {'nodeName': 'node-1', 'containers': [{'name': 'app', 'ports': list(ports)}]},
            'status': {'phase': 'Running', 'podIP': ip, 'podIPs': [{'ip': ip}],
                       'conditions': [{'type': 'Ready', 'status': 'True' if ready else 'False'}]}}


def test_find_port():
    p = pod(ports=[{'name': 'http', 'containerPort': 8080, 'protocol': 'TCP'},
                   {'name': 'dns', 'containerPort': 53, 'protocol': 'UDP'}])
    assert find_port(p, {'targetPort': 9000}) == 9000
    assert find_port(p, {'targetPort': 'http', 'protocol': 'TCP'}) == 8080
    assert find_port(p, {'targetPort': 'dns', 'protocol': 'TCP'}) is None  # the protocol must match
    assert find_port(p, {'targetPort': 'grpc', 'protocol': 'TCP'}) is None


def test_endpoint_conditions():
    svc = {'metadata': {'name': 'web', 'namespace': 'default'}, 'spec': {}}
    published = {'metadata': {'name': 'web', 'namespace': 'default'},
                 'spec': {'publishNotReadyAddresses': True}}
    assert pod_to_endpoint(pod(), svc, 'IPv4')['conditions'] == {'ready': True, 'serving': True,
                                                                 'terminating': False}
    assert pod_to_endpoint(pod(deleting=True), svc, 'IPv4')['conditions'] == {
        'ready': False, 'serving': True, 'terminating': True}
    assert pod_to_endpoint(pod(ready=False), published, 'IPv4')['conditions'] == {
        'ready': True, 'serving': False, 'terminating': False}
    assert pod_to_endpoint(pod(), svc, 'IPv6')['addresses'] == []


def test_repack_groups_addresses_offering_the_same_ports():
    a = {'ip': '10.0.0.2', 'targetRef': {'uid': 'a'}}
    b = {'ip': '10.0.0.1', 'targetRef': {'uid': 'b'}}
    http = {'name': 'http', 'port': 80, 'protocol': 'TCP', 'appProtocol': None}
    raw = {'name': 'raw', 'port': 81, 'protocol': 'TCP', 'appProtocol': None}
    subsets = repack([(a, True, http), (a, True, raw), (b, False, http), (b, False, raw)])
    assert subsets == [{'addresses': [a], 'notReadyAddresses': [b],
                        'ports': [{'name': 'http', 'port': 80, 'protocol': 'TCP'},
                                  {'name': 'raw', 'port': 81, 'protocol': 'TCP'}]}]
    subsets = repack([(a, True, http), (b, True, raw)])
    assert [s['addresses'][0]['ip'] for s in subsets] == ['10.0.0.1', '10.0.0.2']


def test_endpoint_gaps():
    timeline = [(1.0, frozenset()), (2.0, frozenset({'a'})), (5.0, frozenset()), (6.0, frozenset({'b'}))]
    assert endpoint_gaps(timeline) == [(1.0, 2.0), (5.0, 6.0)]
    assert endpoint_gaps(timeline, since=2.0, until=5.5) == [(5.0, 5.5)]
    assert endpoint_gaps(timeline, since=2.0, until=4.0) == []
    assert endpoint_gaps(timeline, since=0.0, until=1.5) == [(0.0, 1.5)]
    assert endpoint_gaps(timeline, tolerance=1.0) == []
    assert endpoint_gaps(timeline + [(7.0, frozenset())]) == [(1.0, 2.0), (5.0, 6.0), (7.0, None)]


def test_unready_routes_join_the_timeline_with_the_readiness_log():
    def entry(t, event, name):
        return {'t': t, 'event': event, 'namespace': 'default', 'pod': name}
    log = [entry(0.0, 'created', 'a'), entry(1.0, 'ready', 'a'), entry(3.0, 'unready', 'a'),
           entry(4.0, 'ready', 'a'), entry(0.0, 'created', 'b'), entry(1.0, 'ready', 'b')]
    # The slices dropped `a` only at 3.5 and took it back at once at 4.0.
    timeline = [(1.0, frozenset({'a', 'b'})), (3.5, frozenset({'b'})), (4.0, frozenset({'a', 'b'}))]
    assert unready_routes(timeline, log, 'default') == [(3.0, 3.5, 'a')]
    assert unready_routes(timeline, log, 'default', tolerance=0.6) == []
    assert unready_routes(timeline, log, 'other') == [(1.0, 3.5, 'a'), (1.0, None, 'b'), (4.0, None, 'a')]
    # Routed before the pod was ever Ready.
    assert unready_routes([(0.5, frozenset({'a'}))], log, 'default') == [(0.5, 1.0, 'a'), (3.0, 4.0, 'a')]

"""Services and their endpoints as the real kubectl sees them: the API server's defaults and
columns, `describe` with its Endpoints line, EndpointSlices field by field, the legacy Endpoints
(and their deprecation warning), and the API server's errors for a bad port and a changed cluster
IP."""

import ipaddress
import re

import pytest

from .conftest import eventually, workload

pytestmark = pytest.mark.kubesim


def web(kube, replicas=2):
    deploy = workload('Deployment', 'web', 'nginx:1.25', replicas)
    deploy['spec']['template']['spec']['containers'][0]['ports'] = [{'name': 'http', 'containerPort': 8080}]
    kube.apply(deploy)
    kube.apply({'apiVersion': 'v1', 'kind': 'Service', 'metadata': {'name': 'web'},
                'spec': {'selector': {'app': 'web'},
                         'ports': [{'name': 'web', 'port': 80, 'targetPort': 'http'}]}})

    def ready():
        slices = kube.items('endpointslices', '-l', 'kubernetes.io/service-name=web')
        ready = [e for s in slices for e in s.get('endpoints') or [] if e['conditions'].get('ready')]
        return len(ready) == replicas
    eventually(ready, f'{replicas} ready endpoints')
    return sorted(p['metadata']['name'] for p in kube.live_pods('-l', 'app=web'))


def test_get_and_describe_a_service(kube):
    pods = web(kube)
    svc = kube.json('service', 'web')
    spec = svc['spec']
    assert (spec['type'], spec['sessionAffinity']) == ('ClusterIP', 'None')
    assert spec['internalTrafficPolicy'] == 'Cluster'
    assert (spec['ipFamilies'], spec['ipFamilyPolicy'], spec['clusterIPs']) == (['IPv4'], 'SingleStack',
                                                                               [spec['clusterIP']])
    assert spec['ports'] == [{'name': 'web', 'port': 80, 'protocol': 'TCP', 'targetPort': 'http'}]
    ip = spec['clusterIP']
    ipaddress.ip_address(ip)
    rows = kube('get', 'service', 'web').stdout.splitlines()
    assert rows[0].split() == ['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE']
    assert rows[1].split()[:5] == ['web', 'ClusterIP', ip, '<none>', '80/TCP']
    wide = kube('get', 'service', 'web', '-o', 'wide').stdout.splitlines()
    assert wide[0].split()[-1] == 'SELECTOR' and wide[1].split()[-1] == 'app=web'
    described = kube('describe', 'service', 'web').stdout
    addresses = sorted(f'{p["status"]["podIP"]}:8080' for p in kube.live_pods('-l', 'app=web'))
    fields = dict(re.findall(r'^([A-Za-z ]+):[ \t]*(.*)$', described, re.M))
    assert fields['Type'] == 'ClusterIP' and fields['IP'] == ip and fields['IP Families'] == 'IPv4'
    assert fields['IP Family Policy'] == 'SingleStack' and fields['Session Affinity'] == 'None'
    assert fields['TargetPort'] == 'http/TCP' and fields['Internal Traffic Policy'] == 'Cluster'
    assert sorted(fields['Endpoints'].split(',')) == addresses
    proc = kube('get', 'endpoints', 'web')
    assert 'v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice' in proc.stderr
    row = proc.stdout.splitlines()[1].split()
    assert row[0] == 'web' and sorted(row[1].split(',')) == addresses
    assert len(pods) == 2


def test_endpointslices_field_by_field(kube):
    pods = web(kube, replicas=3)
    svc = kube.json('service', 'web')
    (es,) = kube.items('endpointslices', '-l', 'kubernetes.io/service-name=web')
    meta = es['metadata']
    assert es['apiVersion'] == 'discovery.k8s.io/v1' and es['kind'] == 'EndpointSlice'
    assert meta['generateName'] == 'web-' and re.fullmatch(r'web-[a-z0-9]{5}', meta['name'])
    assert meta['labels'] == {'kubernetes.io/service-name': 'web',
                              'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io'}
    assert meta['ownerReferences'] == [{'apiVersion': 'v1', 'kind': 'Service', 'name': 'web',
                                        'uid': svc['metadata']['uid'], 'controller': True,
                                        'blockOwnerDeletion': True}]
    assert re.fullmatch(r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ',
                        meta['annotations']['endpoints.kubernetes.io/last-change-trigger-time'])
    assert es['addressType'] == 'IPv4'
    assert es['ports'] == [{'name': 'web', 'port': 8080, 'protocol': 'TCP'}]
    live = {p['metadata']['name']: p for p in kube.live_pods('-l', 'app=web')}
    assert sorted(e['targetRef']['name'] for e in es['endpoints']) == pods
    for endpoint in es['endpoints']:
        pod = live[endpoint['targetRef']['name']]
        assert endpoint == {'addresses': [pod['status']['podIP']],
                            'conditions': {'ready': True, 'serving': True, 'terminating': False},
                            'nodeName': pod['spec']['nodeName'],
                            'targetRef': {'kind': 'Pod', 'namespace': kube.namespace,
                                          'name': pod['metadata']['name'], 'uid': pod['metadata']['uid']}}
    rows = kube('get', 'endpointslices', '-l', 'kubernetes.io/service-name=web').stdout.splitlines()
    assert rows[0].split() == ['NAME', 'ADDRESSTYPE', 'PORTS', 'ENDPOINTS', 'AGE']
    assert rows[1].split()[:3] == [meta['name'], 'IPv4', '8080']
    assert sorted(rows[1].split()[3].split(',')) == sorted(p['status']['podIP'] for p in live.values())
    # Scaled to zero: one empty placeholder slice is left, and describe says so.
    kube('scale', 'deployment', 'web', '--replicas=0')
    eventually(lambda: not kube.items('endpointslices', '-l', 'kubernetes.io/service-name=web')[0].get(
        'endpoints'), 'the placeholder slice')
    text = kube('describe', 'service', 'web').stdout
    described = dict(re.findall(r'^([A-Za-z ]+):[ \t]*(.*)$', text, re.M))
    assert described['Endpoints'] in ('', '<none>')


def test_the_api_servers_errors(kube):
    web(kube, replicas=1)
    ip = kube.json('service', 'web')['spec']['clusterIP']
    moved = str(ipaddress.ip_address(ip) + 1)
    proc = kube('patch', 'service', 'web', '-p', f'{{"spec":{{"clusterIP":"{moved}"}}}}', ok=False)
    assert proc.stderr.strip() == (f'The Service "web" is invalid: spec.clusterIPs[0]: Invalid value: '
                                   f'[]string{{"{moved}"}}: may not change once set')
    proc = kube('create', 'service', 'clusterip', 'bad', '--tcp=0:80', ok=False)
    assert proc.stderr.strip() == ('error: failed to create ClusterIP service: Service "bad" is invalid: '
                                   'spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, '
                                   'inclusive')
    proc = kube('create', 'service', 'clusterip', 'taken', '--tcp=80:80', f'--clusterip={ip}', ok=False)
    assert proc.stderr.strip() == (
        f'error: failed to create ClusterIP service: Service "taken" is invalid: spec.clusterIPs: Invalid '
        f'value: []string{{"{ip}"}}: failed to allocate IP {ip}: provided IP is already allocated')
    kube('create', 'service', 'clusterip', 'db', '--clusterip=None', '--tcp=5432:5432')
    db = kube.json('service', 'db')['spec']
    assert (db['clusterIP'], db['clusterIPs']) == ('None', ['None'])

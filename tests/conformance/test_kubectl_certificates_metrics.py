"""kubectl against CertificateSigningRequests and metrics.k8s.io: creating a request (its requester
recorded by the API server, whatever the client sent), `kubectl get csr`, `kubectl certificate
approve/deny` through the approval subresource, the request's validation; `kubectl top pod` and
`kubectl top node` reading PodMetrics and NodeMetrics."""

import base64
import json
import re

import pytest
import yaml

from .conftest import eventually, is_kubesim

pytestmark = pytest.mark.conformance

SIGNER = 'kubernetes.io/kube-apiserver-client'


def rows(out):
    return [re.split(r'\s{2,}', line.strip()) for line in out.splitlines()]


def certificate_request_pem(common_name):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    csr = x509.CertificateSigningRequestBuilder().subject_name(subject).sign(key, hashes.SHA256())
    return csr.public_bytes(serialization.Encoding.PEM)


def csr(name, request, **spec):
    return {'apiVersion': 'certificates.k8s.io/v1', 'kind': 'CertificateSigningRequest',
            'metadata': {'name': name},
            'spec': {'request': base64.b64encode(request).decode(), 'signerName': SIGNER,
                     'usages': ['client auth'], **spec}}


def create(kube, manifest, *args, ok=True):
    return kube('create', '-f', '-', *args, ok=ok, input=yaml.safe_dump(manifest))


def test_csr_create_approve_get_and_delete(kube, cluster):
    name = f'{kube.namespace}-csr'[:63]
    request = certificate_request_pem('alice')
    manifest = csr(name, request, expirationSeconds=86400, username='mallory', groups=['system:masters'])
    out = create(kube, manifest, '--dry-run=server').stdout
    assert out == f'certificatesigningrequest.certificates.k8s.io/{name} created (server dry run)\n'
    assert create(kube, manifest).stdout == f'certificatesigningrequest.certificates.k8s.io/{name} created\n'
    spec = kube.json('csr', name)['spec']
    assert spec['username'] != 'mallory'
    assert 'system:authenticated' in spec['groups']
    if is_kubesim(cluster):
        assert spec['username'] == 'kubesim-admin'
    header, row = rows(kube('get', 'csr', name).stdout)
    assert header == ['NAME', 'AGE', 'SIGNERNAME', 'REQUESTOR', 'REQUESTEDDURATION', 'CONDITION']
    assert [row[0]] + row[2:] == [name, SIGNER, spec['username'], '24h', 'Pending']
    out = kube('certificate', 'approve', name).stdout
    assert out == f'certificatesigningrequest.certificates.k8s.io/{name} approved\n'
    conditions = kube.json('csr', name)['status']['conditions']
    assert [(c['type'], c['status'], c['reason']) for c in conditions] == \
        [('Approved', 'True', 'KubectlApprove')]
    assert conditions[0]['lastUpdateTime'] and conditions[0]['lastTransitionTime']
    assert rows(kube('get', 'csr', name).stdout)[1][-1].startswith('Approved')
    err = kube('certificate', 'deny', name, ok=False).stderr
    assert f'certificate signing request "{name}" is already Approved' in err
    kube('delete', 'csr', name)
    assert 'NotFound' in kube('get', 'csr', name, ok=False).stderr


def test_csr_deny(kube):
    name = f'{kube.namespace}-denied'[:63]
    create(kube, csr(name, certificate_request_pem('bob')))
    out = kube('certificate', 'deny', name).stdout
    assert out == f'certificatesigningrequest.certificates.k8s.io/{name} denied\n'
    assert rows(kube('get', 'csr', name).stdout)[1][-1] == 'Denied'
    kube('delete', 'csr', name)


def test_csr_validation(kube):
    name = f'{kube.namespace}-bad'[:63]
    err = create(kube, csr(name, b'not a PEM block'), ok=False).stderr
    assert 'spec.request: Invalid value: []byte{' in err
    assert 'PEM block type must be CERTIFICATE REQUEST' in err
    manifest = csr(name, certificate_request_pem('carol'), usages=[], expirationSeconds=60)
    err = create(kube, manifest, ok=False).stderr
    assert 'spec.usages: Required value' in err
    assert 'spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 600 seconds ' \
           '(10 minutes)' in err


def test_top_pods_and_nodes(kube, cluster):
    kube('run', 'busy', '--image=nginx:1.25')
    eventually(lambda: kube.json('pod', 'busy').get('status', {}).get('phase') == 'Running', 'the pod to run')
    if is_kubesim(cluster):
        cluster.set_usage(kube.namespace, 'busy', 'busy', cpu='250m', memory='64Mi')
    eventually(lambda: kube('top', 'pod', 'busy', ok=None).returncode == 0, 'the pod\'s metrics')
    proc = kube('top', 'pod', 'busy')
    header, row = rows(proc.stdout)
    assert header == ['NAME', 'CPU(cores)', 'MEMORY(bytes)']
    assert row[0] == 'busy'
    if is_kubesim(cluster):
        assert row[1:] == ['250m', '64Mi']
        header, *table = rows(kube('top', 'pod', '--containers').stdout)
        assert header == ['POD', 'NAME', 'CPU(cores)', 'MEMORY(bytes)']
        assert table == [['busy', 'busy', '250m', '64Mi']]
    node = kube.json('pod', 'busy')['spec']['nodeName']
    header, row = rows(kube('top', 'node', node).stdout)
    assert header == ['NAME', 'CPU(cores)', 'CPU(%)', 'MEMORY(bytes)', 'MEMORY(%)']
    assert row[0] == node
    raw = kube('get', '--raw', f'/apis/metrics.k8s.io/v1beta1/namespaces/{kube.namespace}/pods/busy').stdout
    metrics = json.loads(raw)
    assert (metrics['kind'], metrics['apiVersion']) == ('PodMetrics', 'metrics.k8s.io/v1beta1')
    assert [c['name'] for c in metrics['containers']] == ['busy']
    assert set(metrics['containers'][0]['usage']) == {'cpu', 'memory'}
    header, row = rows(kube('get', 'podmetrics', 'busy').stdout)
    assert header == ['NAME', 'CPU', 'MEMORY', 'WINDOW'] and row[0] == 'busy'
    if is_kubesim(cluster):
        assert row[1:] == ['250m', '64Mi', '30s']

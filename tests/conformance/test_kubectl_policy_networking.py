"""kubectl against PodDisruptionBudgets, Ingresses and IngressClasses, NetworkPolicies and
LimitRanges: `kubectl create pdb|ingress` (and `--dry-run=server`), the columns `kubectl get`
prints, the API server's defaults and validation, the disruption controller's status, the
LimitRanger admission's defaults and limits, `kubectl apply --prune` with its default allowlist."""

import re

import pytest
import yaml

from .conftest import eventually, is_kubesim, workload

pytestmark = pytest.mark.conformance


def rows(out):
    """`kubectl get` output as cells (columns are separated by at least two spaces)."""
    return [re.split(r'\s{2,}', line.strip()) for line in out.splitlines()]


def create(kube, manifest, *args, ok=True):
    return kube('create', '-f', '-', *args, ok=ok, input=yaml.safe_dump(manifest))


# ---- PodDisruptionBudget ------------------------------------------------------------------------
def test_pdb_create_dry_run_get_and_delete(kube):
    out = kube('create', 'pdb', 'web', '--selector=app=web', '--min-available=1').stdout
    assert out == 'poddisruptionbudget.policy/web created\n'
    out = kube('create', 'pdb', 'dry', '--selector=app=web', '--max-unavailable=50%',
               '--dry-run=server').stdout
    assert out == 'poddisruptionbudget.policy/dry created (server dry run)\n'
    assert 'NotFound' in kube('get', 'pdb', 'dry', ok=False).stderr
    pdb = kube.json('pdb', 'web')
    assert pdb['spec'] == {'minAvailable': 1, 'selector': {'matchLabels': {'app': 'web'}}}
    assert pdb['metadata']['generation'] == 1
    kube.apply(workload('Deployment', 'web', 'nginx:1.25', replicas=2))
    kube.status('deploy/web')
    eventually(lambda: kube.json('pdb', 'web')['status'].get('currentHealthy') == 2, 'the budget\'s status')
    status = kube.json('pdb', 'web')['status']
    assert (status['desiredHealthy'], status['expectedPods'], status['disruptionsAllowed']) == (1, 2, 1)
    condition = status['conditions'][0]
    assert (condition['type'], condition['status'], condition['reason']) == ('DisruptionAllowed', 'True',
                                                                           'SufficientPods')
    header, row = rows(kube('get', 'pdb', 'web').stdout)
    assert header == ['NAME', 'MIN AVAILABLE', 'MAX UNAVAILABLE', 'ALLOWED DISRUPTIONS', 'AGE']
    assert row[:4] == ['web', '1', 'N/A', '1']
    assert kube('delete', 'pdb', 'web').stdout.startswith('poddisruptionbudget.policy "web" deleted')
    assert 'NotFound' in kube('get', 'pdb', 'web', ok=False).stderr


def test_pdb_validation(kube):
    both = {'apiVersion': 'policy/v1', 'kind': 'PodDisruptionBudget', 'metadata': {'name': 'both'},
            'spec': {'minAvailable': 1, 'maxUnavailable': 1, 'selector': {'matchLabels': {'app': 'x'}}}}
    err = create(kube, both, ok=False).stderr
    assert 'The PodDisruptionBudget "both" is invalid: spec: Invalid value: ' in err
    assert 'minAvailable and maxUnavailable cannot be both set' in err
    err = kube('create', 'pdb', 'big', '--selector=app=x', '--min-available=150%', ok=False).stderr
    assert 'spec.minAvailable: Invalid value: "150%": must not be greater than 100%' in err


# ---- Ingress and IngressClass --------------------------------------------------------------------
def test_ingress_create_dry_run_get_and_delete(kube):
    out = kube('create', 'ingress', 'site', '--rule=foo.example.com/bar=svc1:8080', '--class=nginx').stdout
    assert out == 'ingress.networking.k8s.io/site created\n'
    out = kube('create', 'ingress', 'dry', '--rule=foo.example.com/*=svc1:80', '--dry-run=server').stdout
    assert out == 'ingress.networking.k8s.io/dry created (server dry run)\n'
    assert 'NotFound' in kube('get', 'ingress', 'dry', ok=False).stderr
    spec = kube.json('ingress', 'site')['spec']
    assert spec['ingressClassName'] == 'nginx'
    assert spec['rules'] == [{'host': 'foo.example.com', 'http': {'paths': [
        {'path': '/bar', 'pathType': 'Exact',
         'backend': {'service': {'name': 'svc1', 'port': {'number': 8080}}}}]}}]
    header, row = rows(kube('get', 'ingress').stdout)
    assert header == ['NAME', 'CLASS', 'HOSTS', 'ADDRESS', 'PORTS', 'AGE']
    assert row[:3] == ['site', 'nginx', 'foo.example.com'] and row[-2] == '80'
    assert kube('delete', 'ingress', 'site').stdout.startswith('ingress.networking.k8s.io "site" deleted')


def test_ingress_validation(kube):
    bare = {'apiVersion': 'networking.k8s.io/v1', 'kind': 'Ingress', 'metadata': {'name': 'bare'}, 'spec': {}}
    err = create(kube, bare, ok=False).stderr
    assert 'either `defaultBackend` or `rules` must be specified' in err
    untyped = {'apiVersion': 'networking.k8s.io/v1', 'kind': 'Ingress', 'metadata': {'name': 'untyped'},
               'spec': {'rules': [{'http': {'paths': [
                   {'path': '/', 'backend': {'service': {'name': 'svc', 'port': {'number': 80}}}}]}}]}}
    err = create(kube, untyped, ok=False).stderr
    assert 'spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified' in err


def test_ingress_class_get_and_delete(kube):
    name = f'{kube.namespace}-class'[:63]
    ingress_class = {'apiVersion': 'networking.k8s.io/v1', 'kind': 'IngressClass', 'metadata': {'name': name},
                     'spec': {'controller': 'example.com/ingress-controller',
                              'parameters': {'apiGroup': 'k8s.example.com', 'kind': 'IngressParameters',
                                             'name': 'external-lb'}}}
    assert create(kube, ingress_class, '--dry-run=server').stdout == \
        f'ingressclass.networking.k8s.io/{name} created (server dry run)\n'
    create(kube, ingress_class)
    assert kube.json('ingressclass', name)['spec']['parameters']['scope'] == 'Cluster'
    header, row = rows(kube('get', 'ingressclass', name).stdout)
    assert header == ['NAME', 'CONTROLLER', 'PARAMETERS', 'AGE']
    assert row[:3] == [name, 'example.com/ingress-controller',
                       'IngressParameters.k8s.example.com/external-lb']
    kube('delete', 'ingressclass', name)


def test_apply_prune_with_the_default_allowlist(kube):
    def config_map(name):
        return {'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': name, 'labels': {'set': 'p'}}}

    both = yaml.safe_dump_all([config_map('one'), config_map('two')])
    kube('apply', '--prune', '-l', 'set=p', '-f', '-', input=both)
    out = kube('apply', '--prune', '-l', 'set=p', '-f', '-', input=yaml.safe_dump(config_map('one'))).stdout
    assert 'configmap/two pruned' in out
    assert [c['metadata']['name'] for c in kube.items('configmaps', '-l', 'set=p')] == ['one']


# ---- NetworkPolicy ---------------------------------------------------------------------------------
def policy(name, **spec):
    return {'apiVersion': 'networking.k8s.io/v1', 'kind': 'NetworkPolicy', 'metadata': {'name': name},
            'spec': {'podSelector': {'matchLabels': {'app': 'web'}}, **spec}}


def test_network_policy_defaults_get_and_delete(kube):
    assert create(kube, policy('open-egress', egress=[{}])).stdout == \
        'networkpolicy.networking.k8s.io/open-egress created\n'
    assert create(kube, policy('dry'), '--dry-run=server').stdout == \
        'networkpolicy.networking.k8s.io/dry created (server dry run)\n'
    create(kube, policy('ingress-only', ingress=[{'ports': [{'port': 80}]}]))
    assert kube.json('netpol', 'open-egress')['spec']['policyTypes'] == ['Ingress', 'Egress']
    assert kube.json('netpol', 'open-egress')['spec']['egress'] == [{}]
    spec = kube.json('netpol', 'ingress-only')['spec']
    assert spec['policyTypes'] == ['Ingress']
    assert spec['ingress'] == [{'ports': [{'port': 80, 'protocol': 'TCP'}]}]
    header, *table = rows(kube('get', 'networkpolicies').stdout)
    assert header == ['NAME', 'POD-SELECTOR', 'AGE']
    assert [r[:2] for r in table] == [['ingress-only', 'app=web'], ['open-egress', 'app=web']]
    kube('delete', 'netpol', 'open-egress', 'ingress-only')


def test_network_policy_validation(kube):
    peer = {'ipBlock': {'cidr': '10.0.0.0/8'}, 'podSelector': {}}
    err = create(kube, policy('both', ingress=[{'from': [peer]}]), ok=False).stderr
    assert 'spec.ingress[0].from[0]: Forbidden: may not specify both ipBlock and another peer' in err
    err = create(kube, policy('types', policyTypes=['Sideways']), ok=False).stderr
    assert 'spec.policyTypes[0]: Unsupported value: "Sideways": supported values: "Egress", "Ingress"' in err


# ---- LimitRange --------------------------------------------------------------------------------------
LIMITS = {'apiVersion': 'v1', 'kind': 'LimitRange', 'metadata': {'name': 'limits'},
          'spec': {'limits': [{'type': 'Container', 'default': {'cpu': '500m', 'memory': '128Mi'},
                               'max': {'cpu': '1'}}]}}


def test_limit_range_defaults_and_limits_pods(kube, cluster):
    assert create(kube, LIMITS, '--dry-run=server').stdout == 'limitrange/limits created (server dry run)\n'
    assert create(kube, LIMITS).stdout == 'limitrange/limits created\n'
    item = kube.json('limits', 'limits')['spec']['limits'][0]
    assert item['defaultRequest'] == {'cpu': '500m', 'memory': '128Mi'}
    header, row = rows(kube('get', 'limitranges').stdout)
    assert header == ['NAME', 'CREATED AT'] and row[0] == 'limits'
    kube('run', 'plain', '--image=nginx:1.25')
    pod = kube.json('pod', 'plain')
    assert pod['spec']['containers'][0]['resources'] == {'limits': {'cpu': '500m', 'memory': '128Mi'},
                                                         'requests': {'cpu': '500m', 'memory': '128Mi'}}
    assert pod['metadata']['annotations']['kubernetes.io/limit-ranger'] == \
        ('LimitRanger plugin set: cpu, memory request for container plain; '
         'cpu, memory limit for container plain')
    assert pod['status']['qosClass'] == 'Guaranteed'
    overrides = ('{"spec":{"containers":[{"name":"big","image":"nginx:1.25",'
                 '"resources":{"limits":{"cpu":"2"}}}]}}')
    err = kube('run', 'big', '--image=nginx:1.25', f'--overrides={overrides}', ok=False).stderr
    assert 'pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2' in err
    assert kube('delete', 'limits', 'limits').stdout.startswith('limitrange "limits" deleted')
    if is_kubesim(cluster):
        kube('run', 'after', '--image=nginx:1.25')
        assert kube.json('pod', 'after')['spec']['containers'][0]['resources'] == {}

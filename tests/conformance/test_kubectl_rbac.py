"""kubectl against an API server authorizing with RBAC (kubesim `--authorization-mode RBAC`):
`kubectl create role/rolebinding/clusterrole` and what `kubectl get` prints of them, `kubectl auth
can-i` (one verb, and `--list`) for an impersonated user, the 403s as kubectl prints them, the
escalation and impersonation checks, the bootstrap roles and their aggregation.

The users are tokens of a static token file (alice in group `dev`, bob in none): the tests need
kubesim, not any cluster.
"""

import itertools
import json

import pytest

from tests.conftest import REAL_CLUSTER_ENV

pytestmark = [pytest.mark.conformance]

_namespaces = itertools.count(1)
FORBIDDEN = 'Error from server (Forbidden): '


@pytest.fixture(scope='module')
def rbac_sim(tmp_path_factory):
    import os

    if os.environ.get(REAL_CLUSTER_ENV):
        pytest.skip(f'the RBAC tests need kubesim\'s token users; {REAL_CLUSTER_ENV} points at a real '
                    'cluster')
    from tests.kubesim import KubeSim

    root = tmp_path_factory.mktemp('rbac')
    tokens = root / 'tokens.csv'
    tokens.write_text('alice-token-0c9e1f,alice,alice-uid,"dev"\nbob-token-5d27a4,bob,bob-uid\n')
    sim = KubeSim(tls=True, token='admin-token-81b3c2', token_file=tokens, authorization_mode='RBAC', nodes=1,
                  ready_delay=0.05).start()
    sim.kubeconfig = sim.write_kubeconfig(root / 'admin')
    sim.user_kubeconfigs = {'alice': sim.write_kubeconfig(root / 'alice', token='alice-token-0c9e1f'),
                            'bob': sim.write_kubeconfig(root / 'bob', token='bob-token-5d27a4')}
    sim.kubeconfig = str(root / 'admin')
    yield sim
    sim.stop()


class Run:
    def __init__(self, kubectl, sim, binary, namespace):
        self.admin = kubectl.using(sim, binary)
        self.users = {name: kubectl.using(path, binary) for name, path in sim.user_kubeconfigs.items()}
        self.ns = namespace

    def __call__(self, *args, user=None, ok=True, input=None):
        runner = self.users[user] if user else self.admin
        proc = runner('-n', self.ns, *args, input=input)
        if ok and proc.returncode != 0:
            raise AssertionError(f'kubectl {" ".join(args)} exited {proc.returncode}:\n'
                                 f'{proc.stderr}{proc.stdout}')
        if ok is False and proc.returncode == 0:
            raise AssertionError(f'kubectl {" ".join(args)} should have failed:\n{proc.stdout}')
        return proc


@pytest.fixture
def k(rbac_sim, kubectl, kubectl_binary):
    run = Run(kubectl, rbac_sim, kubectl_binary, f'rbac-{next(_namespaces)}')
    run.admin('create', 'namespace', run.ns, check=True)
    return run


def can_i(k, *args, **kwargs):
    """What `kubectl auth can-i` answers (it exits 1 for no)."""
    proc = k('auth', 'can-i', *args, ok=None, **kwargs)
    answer = proc.stdout.strip()
    assert proc.returncode == (0 if answer == 'yes' else 1), proc.stderr
    return answer


def columns(text):
    return [line.split() for line in text.strip().splitlines()]


def test_create_role_binding_and_clusterrole_as_kubectl_prints_them(k):
    k('create', 'role', 'deployer', '--verb=get,list,patch', '--resource=deployments.apps')
    k('create', 'rolebinding', 'deployer', '--role=deployer', '--user=alice', '--group=dev',
      f'--serviceaccount={k.ns}:robot')
    assert 'clusterrole.rbac.authorization.k8s.io/pod-reader-' in k(
        'create', 'clusterrole', f'pod-reader-{k.ns}', '--verb=get,list,watch', '--resource=pods').stdout
    role = json.loads(k('get', 'role', 'deployer', '-o', 'json').stdout)
    assert role['rules'] == [{'apiGroups': ['apps'], 'resources': ['deployments'],
                              'verbs': ['get', 'list', 'patch']}]
    binding = json.loads(k('get', 'rolebinding', 'deployer', '-o', 'json').stdout)
    assert binding['roleRef'] == {'apiGroup': 'rbac.authorization.k8s.io', 'kind': 'Role', 'name': 'deployer'}
    assert binding['subjects'] == [
        {'apiGroup': 'rbac.authorization.k8s.io', 'kind': 'User', 'name': 'alice'},
        {'apiGroup': 'rbac.authorization.k8s.io', 'kind': 'Group', 'name': 'dev'},
        {'kind': 'ServiceAccount', 'name': 'robot', 'namespace': k.ns}]
    table = columns(k('get', 'role,rolebinding').stdout)
    assert table[0] == ['NAME', 'CREATED', 'AT']
    assert table[1][0] == 'role.rbac.authorization.k8s.io/deployer' and table[1][1].endswith('Z')
    assert table[3] == ['NAME', 'ROLE', 'AGE']
    assert table[4][:2] == ['rolebinding.rbac.authorization.k8s.io/deployer', 'Role/deployer']
    wide = columns(k('get', 'rolebinding', '-o', 'wide').stdout)
    assert wide[0] == ['NAME', 'ROLE', 'AGE', 'USERS', 'GROUPS', 'SERVICEACCOUNTS']
    assert wide[1][:2] == ['deployer', 'Role/deployer'] and wide[1][3:] == ['alice', 'dev', f'{k.ns}/robot']


def test_can_i_answers_for_an_impersonated_user(k):
    k('create', 'role', 'deployer', '--verb=get,list,patch', '--resource=deployments.apps,deployments/scale')
    k('create', 'role', 'one-config', '--verb=get', '--resource=configmaps', '--resource-name=app')
    k('create', 'rolebinding', 'deployer', '--role=deployer', '--user=alice')
    k('create', 'rolebinding', 'one-config', '--role=one-config', '--group=dev')
    assert can_i(k, 'patch', 'deployments', '--as', 'alice') == 'yes'
    assert can_i(k, 'patch', 'deployments', '--subresource=scale', '--as', 'alice') == 'yes'
    no = k('auth', 'can-i', 'delete', 'deployments', '--as', 'alice', ok=False)
    assert (no.returncode, no.stdout.strip()) == (1, 'no')
    assert can_i(k, 'patch', 'deployments', '--as', 'bob') == 'no'
    # The group comes from --as-group (impersonated), or from alice's token.
    assert can_i(k, 'get', 'configmaps/app', '--as', 'carol', '--as-group', 'dev') == 'yes'
    assert can_i(k, 'get', 'configmaps/other', '--as', 'carol', '--as-group', 'dev') == 'no'
    assert can_i(k, 'get', 'configmaps/app', user='alice') == 'yes'
    assert can_i(k, 'patch', 'deployments', '-n', 'default', '--as', 'alice') == 'no'
    # The admin is in system:masters.
    assert can_i(k, '*', '*') == 'yes'


def test_can_i_list_shows_the_rules_of_the_bindings(k):
    k('create', 'role', 'deployer', '--verb=get,list,patch', '--resource=deployments.apps')
    k('create', 'rolebinding', 'deployer', '--role=deployer', '--user=alice')
    rows = columns(k('auth', 'can-i', '--list', '--as', 'alice').stdout)
    assert rows[0] == ['Resources', 'Non-Resource', 'URLs', 'Resource', 'Names', 'Verbs']
    assert ['deployments.apps', '[]', '[]', '[get', 'list', 'patch]'] in rows
    assert ['selfsubjectaccessreviews.authorization.k8s.io', '[]', '[]', '[create]'] in rows
    assert ['[/apis/*]', '[]', '[get]'] in rows  # system:discovery, for every authenticated user
    other = columns(k('auth', 'can-i', '--list', '--as', 'alice', '-n', 'default').stdout)
    assert not any(row[0] == 'deployments.apps' for row in other)


def test_forbidden_answers_as_kubectl_prints_them(k):
    k('create', 'deployment', 'web', '--image=nginx:1.25')
    k('create', 'role', 'reader', '--verb=get', '--resource=deployments.apps')
    k('create', 'rolebinding', 'reader', '--role=reader', '--user=alice')
    patch = k('patch', 'deployment', 'web', '-p', '{"spec":{"replicas":2}}', user='alice', ok=False)
    assert patch.stderr.strip() == (
        f'{FORBIDDEN}deployments.apps "web" is forbidden: User "alice" cannot patch resource "deployments" '
        f'in API group "apps" in the namespace "{k.ns}"')
    listed = k('get', 'pods', user='alice', ok=False)
    assert listed.stderr.strip() == (
        f'{FORBIDDEN}pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the '
        f'namespace "{k.ns}"')
    nodes = k('get', 'nodes', user='alice', ok=False)
    assert nodes.stderr.strip() == (f'{FORBIDDEN}nodes is forbidden: User "alice" cannot list resource '
                                    '"nodes" in API group "" at the cluster scope')
    scale = k('scale', 'deployment', 'web', '--replicas=3', user='alice', ok=False)
    assert (f'deployments.apps "web" is forbidden: User "alice" cannot patch resource "deployments/scale" in '
            f'API group "apps" in the namespace "{k.ns}"') in scale.stderr
    web = json.loads(k('get', 'deployment', 'web', '-o', 'json', user='alice').stdout)
    assert web['spec']['replicas'] == 1
    impersonating = k('get', 'deployment', 'web', '--as', 'bob', user='alice', ok=False)
    assert impersonating.stderr.strip() == (
        f'{FORBIDDEN}users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group '
        '"" at the cluster scope')


def test_escalation_is_refused_without_escalate_or_bind(k):
    k('create', 'role', 'role-admin', '--verb=create,update', '--resource=roles.rbac.authorization.k8s.io,'
      'rolebindings.rbac.authorization.k8s.io')
    k('create', 'role', 'deploy-reader', '--verb=get,list', '--resource=deployments.apps')
    k('create', 'rolebinding', 'role-admin', '--role=role-admin', '--user=alice')
    k('create', 'rolebinding', 'deploy-reader', '--role=deploy-reader', '--user=alice')
    # What alice holds she may grant.
    k('create', 'role', 'subset', '--verb=get', '--resource=deployments.apps', user='alice')
    k('create', 'rolebinding', 'subset', '--role=subset', '--user=bob', user='alice')
    refused = k('create', 'role', 'more', '--verb=get,delete', '--resource=deployments.apps', user='alice',
                ok=False)
    assert refused.stderr.strip() == (
        f'{FORBIDDEN}roles.rbac.authorization.k8s.io "more" is forbidden: user "alice" (groups=["dev" '
        '"system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n'
        '{APIGroups:["apps"], Resources:["deployments"], Verbs:["delete"]}')
    bound = k('create', 'rolebinding', 'too-much', '--clusterrole=edit', '--user=bob', user='alice', ok=False)
    # kubectl create rolebinding words it `error: failed to create rolebinding: <the server's message>`.
    assert bound.stderr.startswith(
        'error: failed to create rolebinding: rolebindings.rbac.authorization.k8s.io "too-much" is '
        'forbidden: user "alice" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC '
        'permissions not currently held:\n')
    assert ('\n{APIGroups:["apps"], Resources:["deployments"], Verbs:["create" "delete" "deletecollection" '
            '"patch" "update" "watch"]}\n') in bound.stderr
    # The escalate and bind verbs lift the checks.
    k('create', 'role', 'escalate', '--verb=escalate', '--resource=roles.rbac.authorization.k8s.io')
    k('create', 'role', 'bind-edit', '--verb=bind', '--resource=clusterroles.rbac.authorization.k8s.io',
      '--resource-name=edit')
    k('create', 'rolebinding', 'escalate', '--role=escalate', '--user=alice')
    k('create', 'rolebinding', 'bind-edit', '--role=bind-edit', '--user=alice')
    k('create', 'role', 'more', '--verb=get,delete', '--resource=deployments.apps', user='alice')
    k('create', 'rolebinding', 'too-much', '--clusterrole=edit', '--user=bob', user='alice')
    assert can_i(k, 'delete', 'deployments', '--as', 'bob') == 'yes'


def test_bootstrap_roles_aggregate_labelled_clusterroles(k):
    names = {row[0] for row in columns(k('get', 'clusterroles').stdout)[1:]}
    assert {'cluster-admin', 'admin', 'edit', 'view', 'system:discovery', 'system:basic-user',
            'system:public-info-viewer', 'system:aggregate-to-view'} <= names
    crbs = columns(k('get', 'clusterrolebinding', 'cluster-admin', 'system:basic-user', '-o', 'wide').stdout)
    assert crbs[1][:2] == ['cluster-admin', 'ClusterRole/cluster-admin'] and crbs[1][-1] == 'system:masters'
    view = json.loads(k('get', 'clusterrole', 'view', '-o', 'json').stdout)
    assert view['aggregationRule'] == {'clusterRoleSelectors': [
        {'matchLabels': {'rbac.authorization.k8s.io/aggregate-to-view': 'true'}}]}
    assert any('controllerrevisions' in r.get('resources', []) for r in view['rules'])
    extra = f'lease-viewer-{k.ns}'
    added = {'apiGroups': ['coordination.k8s.io'], 'resources': [f'leases-{k.ns}'], 'verbs': ['get']}
    k('apply', '-f', '-', input=json.dumps({
        'apiVersion': 'rbac.authorization.k8s.io/v1', 'kind': 'ClusterRole',
        'metadata': {'name': extra, 'labels': {'rbac.authorization.k8s.io/aggregate-to-view': 'true'}},
        'rules': [added]}))
    for role in ('view', 'edit', 'admin'):
        assert added in json.loads(k('get', 'clusterrole', role, '-o', 'json').stdout)['rules']
    k('delete', 'clusterrole', extra)
    rules = json.loads(k('get', 'clusterrole', 'admin', '-o', 'json').stdout)['rules']
    assert not any(f'leases-{k.ns}' in r.get('resources', []) for r in rules)
    # view lets bob read deployments once bound in his namespace, edit lets him patch them.
    k('create', 'rolebinding', 'bob-view', '--clusterrole=view', '--user=bob')
    assert can_i(k, 'list', 'deployments', '--as', 'bob') == 'yes'
    assert can_i(k, 'patch', 'deployments', '--as', 'bob') == 'no'
    assert can_i(k, 'get', 'secrets', '--as', 'bob') == 'no'

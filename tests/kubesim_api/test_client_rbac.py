"""The official Python client against kubesim with `authorization_mode='RBAC'`: RbacAuthorizationV1Api
CRUD of all four kinds (typed round trip), the 403 body field by field, the access reviews of
AuthorizationV1Api, and ServiceAccount subjects matched by a token user named as a ServiceAccount."""

import json

import kubernetes
import pytest
from kubernetes import client

pytestmark = pytest.mark.kubesim

TOKENS = ('alice-token-3f1a,alice,alice-uid,"dev"\n'
          'deployer-token-9c2e,system:serviceaccount:shop:deployer,deployer-uid,'
          '"system:serviceaccounts,system:serviceaccounts:shop"\n')


@pytest.fixture
def sim(kubesim_factory, tmp_path):
    tokens = tmp_path / 'tokens.csv'
    tokens.write_text(TOKENS)
    sim = kubesim_factory(token='admin-token-77d0', token_file=tokens, authorization_mode='RBAC', nodes=1)
    sim.write_kubeconfig(tmp_path / 'admin')
    sim.api_for = lambda token: kubernetes.config.new_client_from_config(
        str(sim.write_kubeconfig(tmp_path / token, token=token)))
    admin = kubernetes.config.new_client_from_config(str(tmp_path / 'admin'))
    client.CoreV1Api(admin).create_namespace({'metadata': {'name': 'shop'}})
    sim.admin = admin
    return sim


def deployment(name='web'):
    return {'apiVersion': 'apps/v1', 'kind': 'Deployment', 'metadata': {'name': name},
            'spec': {'selector': {'matchLabels': {'app': name}},
                     'template': {'metadata': {'labels': {'app': name}},
                                  'spec': {'containers': [{'name': 'app', 'image': 'nginx:1.25'}]}}}}


def test_rbac_crud_with_the_typed_client(sim):
    rbac = client.RbacAuthorizationV1Api(sim.admin)
    role = rbac.create_namespaced_role('shop', client.V1Role(
        metadata=client.V1ObjectMeta(name='deployer'),
        rules=[client.V1PolicyRule(api_groups=['apps'], resources=['deployments'], verbs=['get', 'patch'])]))
    assert role.rules[0].verbs == ['get', 'patch'] and role.metadata.resource_version
    binding = rbac.create_namespaced_role_binding('shop', client.V1RoleBinding(
        metadata=client.V1ObjectMeta(name='deployer'),
        role_ref=client.V1RoleRef(api_group='rbac.authorization.k8s.io', kind='Role', name='deployer'),
        subjects=[client.RbacV1Subject(kind='ServiceAccount', name='deployer', namespace='shop'),
                  client.RbacV1Subject(kind='User', name='alice')]))
    # SetDefaults_Subject: a User's apiGroup is rbac.authorization.k8s.io, a ServiceAccount's empty.
    assert [(s.kind, s.api_group) for s in binding.subjects] == [('ServiceAccount', None),
                                                                 ('User', 'rbac.authorization.k8s.io')]
    assert [r.metadata.name for r in rbac.list_namespaced_role('shop').items] == ['deployer']
    role.rules.append(client.V1PolicyRule(api_groups=[''], resources=['pods'], verbs=['list']))
    assert len(rbac.replace_namespaced_role('deployer', 'shop', role).rules) == 2
    patched = rbac.patch_namespaced_role('deployer', 'shop', {'metadata': {'labels': {'team': 'a'}}})
    assert patched.metadata.labels == {'team': 'a'}
    # roleRef is immutable.
    with pytest.raises(client.ApiException) as err:
        rbac.patch_namespaced_role_binding('deployer', 'shop', {'roleRef': {'name': 'other'}})
    body = json.loads(err.value.body)
    assert err.value.status == 422 and body['details']['causes'] == [{
        'reason': 'FieldValueInvalid', 'field': 'roleRef', 'message': 'Invalid value: rbac.RoleRef{APIGroup:'
        '"rbac.authorization.k8s.io", Kind:"Role", Name:"other"}: cannot change roleRef'}]
    cluster_role = rbac.create_cluster_role({'metadata': {'name': 'lease-reader'}, 'rules': [
        {'apiGroups': ['coordination.k8s.io'], 'resources': ['leases'], 'verbs': ['get']}]})
    assert cluster_role.aggregation_rule is None
    crb = rbac.create_cluster_role_binding({'metadata': {'name': 'lease-reader'}, 'roleRef': {
        'kind': 'ClusterRole', 'name': 'lease-reader'}, 'subjects': [{'kind': 'Group', 'name': 'dev'}]})
    assert crb.role_ref.api_group == 'rbac.authorization.k8s.io'
    view = rbac.read_cluster_role('view')
    assert view.aggregation_rule.cluster_role_selectors[0].match_labels == {
        'rbac.authorization.k8s.io/aggregate-to-view': 'true'}
    assert view.metadata.labels['kubernetes.io/bootstrapping'] == 'rbac-defaults'
    rbac.delete_namespaced_role_binding('deployer', 'shop')
    rbac.delete_cluster_role_binding('lease-reader')
    rbac.delete_cluster_role('lease-reader')
    assert rbac.list_namespaced_role_binding('shop').items == []


def test_validation_of_rules_and_subjects(sim):
    rbac = client.RbacAuthorizationV1Api(sim.admin)
    with pytest.raises(client.ApiException) as err:
        rbac.create_namespaced_role('shop', {'metadata': {'name': 'bad'}, 'rules': [
            {'verbs': [], 'resources': ['pods']}, {'verbs': ['get'], 'nonResourceURLs': ['/x']}]})
    causes = json.loads(err.value.body)['details']['causes']
    assert [(c['field'], c['message']) for c in causes] == [
        ('rules[0].verbs', 'Required value: verbs must contain at least one value'),
        ('rules[0].apiGroups', 'Required value: resource rules must supply at least one api group'),
        ('rules[1].nonResourceURLs',
         'Invalid value: []string{"/x"}: namespaced rules cannot apply to non-resource URLs')]
    with pytest.raises(client.ApiException) as err:
        rbac.create_cluster_role({'metadata': {'name': 'a/b'}, 'rules': []})
    assert json.loads(err.value.body)['message'] == (
        'ClusterRole.rbac.authorization.k8s.io "a/b" is invalid: metadata.name: Invalid value: "a/b": may '
        'not '
        'contain \'/\'')
    with pytest.raises(client.ApiException) as err:
        rbac.create_namespaced_role_binding('shop', {'metadata': {'name': 'bad'}, 'roleRef': {
            'kind': 'Thing', 'name': 'x'}, 'subjects': [{'kind': 'Robot', 'name': 'r'}]})
    causes = json.loads(err.value.body)['details']['causes']
    assert [c['field'] for c in causes] == ['roleRef.kind', 'subjects[0].kind']
    assert causes[1]['message'] == ('Unsupported value: "Robot": supported values: "ServiceAccount", "User", '
                                    '"Group"')


def test_a_403_body_field_by_field(sim):
    apps = client.AppsV1Api(sim.admin)
    apps.create_namespaced_deployment('shop', deployment())
    alice = client.AppsV1Api(sim.api_for('alice-token-3f1a'))
    with pytest.raises(client.ApiException) as err:
        alice.patch_namespaced_deployment('web', 'shop', {'spec': {'replicas': 2}})
    assert err.value.status == 403
    assert json.loads(err.value.body) == {
        'kind': 'Status', 'apiVersion': 'v1', 'metadata': {}, 'status': 'Failure',
        'message': 'deployments.apps "web" is forbidden: User "alice" cannot patch resource "deployments" '
                   'in API group "apps" in the namespace "shop"',
        'reason': 'Forbidden', 'details': {'name': 'web', 'group': 'apps', 'kind': 'deployments'},
        'code': 403}
    with pytest.raises(client.ApiException) as err:
        client.CoreV1Api(sim.api_for('alice-token-3f1a')).list_namespace()
    assert json.loads(err.value.body)['message'] == (
        'namespaces is forbidden: User "alice" cannot list resource "namespaces" in API group "" at the '
        'cluster '
        'scope')
    # A binding to a role that does not exist: the authorizer's reason says so.
    client.RbacAuthorizationV1Api(sim.admin).create_namespaced_role_binding('shop', {
        'metadata': {'name': 'dangling'}, 'roleRef': {'kind': 'Role', 'name': 'gone'},
        'subjects': [{'kind': 'User', 'name': 'alice'}]})
    with pytest.raises(client.ApiException) as err:
        alice.read_namespaced_deployment_scale('web', 'shop')
    assert json.loads(err.value.body)['message'] == (
        'deployments.apps "web" is forbidden: User "alice" cannot get resource "deployments/scale" in API '
        'group '
        '"apps" in the namespace "shop": RBAC: role.rbac.authorization.k8s.io "gone" not found')


def test_a_service_account_subject_and_the_access_reviews(sim):
    rbac = client.RbacAuthorizationV1Api(sim.admin)
    rbac.create_namespaced_role('shop', {'metadata': {'name': 'deployer'}, 'rules': [
        {'apiGroups': ['apps'], 'resources': ['deployments'], 'verbs': ['get', 'list', 'patch']}]})
    rbac.create_namespaced_role_binding('shop', {'metadata': {'name': 'deployer'}, 'roleRef': {
        'kind': 'Role', 'name': 'deployer'}, 'subjects': [{'kind': 'ServiceAccount', 'name': 'deployer'}]})
    client.AppsV1Api(sim.admin).create_namespaced_deployment('shop', deployment())
    robot = sim.api_for('deployer-token-9c2e')
    client.AppsV1Api(robot).patch_namespaced_deployment('web', 'shop', {'spec': {'replicas': 2}})
    auth = client.AuthorizationV1Api(robot)
    review = auth.create_self_subject_access_review(client.V1SelfSubjectAccessReview(
        spec=client.V1SelfSubjectAccessReviewSpec(resource_attributes=client.V1ResourceAttributes(
            namespace='shop', verb='patch', group='apps', resource='deployments'))))
    assert review.status.allowed is True
    assert review.status.reason == ('RBAC: allowed by RoleBinding "deployer/shop" of Role "deployer" to '
                                    'ServiceAccount "deployer/shop"')
    denied = auth.create_self_subject_access_review({'spec': {'resourceAttributes': {
        'namespace': 'shop', 'verb': 'delete', 'group': 'apps', 'resource': 'deployments'}}})
    assert (denied.status.allowed, denied.status.reason) == (False, None)
    rules = auth.create_self_subject_rules_review({'spec': {'namespace': 'shop'}}).status
    assert rules.incomplete is False
    assert any(r.resources == ['deployments'] and r.verbs == ['get', 'list', 'patch']
               for r in rules.resource_rules)
    assert any('/apis/*' in r.non_resource_urls for r in rules.non_resource_rules)
    # SubjectAccessReview asks about anyone; only the admin may create one here.
    sar = {'spec': {'user': 'alice', 'groups': ['dev'],
                    'nonResourceAttributes': {'path': '/apis', 'verb': 'get'}}}
    with pytest.raises(client.ApiException) as err:
        auth.create_subject_access_review(sar)
    assert err.value.status == 403
    assert client.AuthorizationV1Api(sim.admin).create_subject_access_review(sar).status.allowed is False
    sar['spec']['groups'] = ['system:authenticated']
    assert client.AuthorizationV1Api(sim.admin).create_subject_access_review(sar).status.allowed is True

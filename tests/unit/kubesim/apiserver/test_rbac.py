"""RBAC's pure parts: rule matching (evaluation_helpers.go), covering and the escalation message
(policy_comparator.go, policy_compact.go), what a request asks (requestinfo.go) and its 403."""

import pytest

from tests.kubesim.apiserver.authentication import UserInfo
from tests.kubesim.apiserver.authorization import forbidden, request_attributes
from tests.kubesim.apiserver.rbac import rules

pytestmark = pytest.mark.unit

ALICE = UserInfo('alice', ('dev', 'system:authenticated'))
DEPLOYS = '/apis/apps/v1/namespaces/shop/deployments'


def attrs(method, path, **query):
    return request_attributes(method, path, query, ALICE)


@pytest.mark.parametrize('method, path, query, expected', [
    ('PATCH', f'{DEPLOYS}/web', {}, ('patch', 'apps', 'deployments', '', 'web', 'shop')),
    ('GET', DEPLOYS, {}, ('list', 'apps', 'deployments', '', '', 'shop')),
    ('GET', DEPLOYS, {'watch': 'true', 'fieldSelector': 'metadata.name=web'},
     ('watch', 'apps', 'deployments', '', 'web', 'shop')),
    ('GET', '/apis/apps/v1/watch/namespaces/shop/deployments', {},
     ('watch', 'apps', 'deployments', '', '', 'shop')),
    ('PUT', f'{DEPLOYS}/web/scale', {}, ('update', 'apps', 'deployments', 'scale', 'web', 'shop')),
    ('DELETE', '/api/v1/namespaces/shop/pods', {}, ('deletecollection', '', 'pods', '', '', 'shop')),
    ('GET', '/api/v1/namespaces/shop', {}, ('get', '', 'namespaces', '', 'shop', 'shop')),
    ('GET', '/api/v1/nodes', {}, ('list', '', 'nodes', '', '', '')),
    ('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {},
     ('create', 'authorization.k8s.io', 'selfsubjectaccessreviews', '', '', '')),
])
def test_request_attributes(method, path, query, expected):
    a = request_attributes(method, path, query, ALICE)
    assert a['resource_request']
    assert (a['verb'], a['api_group'], a['resource'], a['subresource'], a['name'], a['namespace']) == expected


@pytest.mark.parametrize('path', ['/api', '/api/v1', '/apis', '/apis/apps', '/apis/apps/v1', '/version',
                                  '/openapi/v3'])
def test_discovery_paths_are_non_resource_requests(path):
    a = attrs('GET', path)
    assert not a['resource_request'] and a['verb'] == 'get' and a['path'] == path


@pytest.mark.parametrize('rule, allowed', [
    ({'verbs': ['patch'], 'apiGroups': ['apps'], 'resources': ['deployments']}, False),
    ({'verbs': ['patch'], 'apiGroups': ['apps'], 'resources': ['deployments/scale']}, True),
    ({'verbs': ['*'], 'apiGroups': ['*'], 'resources': ['*/scale']}, True),
    ({'verbs': ['patch'], 'apiGroups': ['apps'], 'resources': ['*/status']}, False),
    ({'verbs': ['patch'], 'apiGroups': ['apps'], 'resources': ['deployments/scale'],
      'resourceNames': ['api']}, False),
    ({'verbs': ['patch'], 'apiGroups': [''], 'resources': ['deployments/scale']}, False),
])
def test_rule_matching_of_a_subresource(rule, allowed):
    assert rules.rule_allows(attrs('PATCH', f'{DEPLOYS}/web/scale'), rule) is allowed


def test_non_resource_urls_match_exactly_or_by_prefix():
    assert rules.rule_allows(attrs('GET', '/apis/apps'), {'verbs': ['get'], 'nonResourceURLs': ['/apis/*']})
    assert not rules.rule_allows(attrs('GET', '/apis'), {'verbs': ['get'], 'nonResourceURLs': ['/apis/*']})
    assert rules.rule_allows(attrs('GET', '/healthz'), {'verbs': ['*'], 'nonResourceURLs': ['*']})


def test_covering_and_the_escalation_message():
    held = [{'verbs': ['get', 'list'], 'apiGroups': ['apps'], 'resources': ['deployments', '*/scale']}]
    scale = {'verbs': ['get'], 'apiGroups': ['apps'], 'resources': ['deployments/scale']}
    ok, missing = rules.covers(held, [scale])
    assert ok and missing == []
    ok, missing = rules.covers(held, [
        {'verbs': ['get', 'delete', 'watch'], 'apiGroups': ['apps'], 'resources': ['deployments']},
        {'verbs': ['get'], 'nonResourceURLs': ['/x']}])
    assert not ok
    compact = sorted(rules.compact_string(r) for r in rules.compact_rules(missing))
    assert compact == ['{APIGroups:["apps"], Resources:["deployments"], Verbs:["delete" "watch"]}',
                       '{NonResourceURLs:["/x"], Verbs:["get"]}']


def test_forbidden_messages():
    assert forbidden(attrs('PATCH', '/apis/apps/v1/namespaces/shop/deployments/web')).status() == {
        'kind': 'Status', 'apiVersion': 'v1', 'metadata': {}, 'status': 'Failure',
        'message': 'deployments.apps "web" is forbidden: User "alice" cannot patch resource "deployments" '
                   'in API group "apps" in the namespace "shop"',
        'reason': 'Forbidden', 'details': {'name': 'web', 'group': 'apps', 'kind': 'deployments'},
        'code': 403}
    assert forbidden(attrs('GET', '/api/v1/nodes'), 'RBAC: x').message == (
        'nodes is forbidden: User "alice" cannot list resource "nodes" in API group "" at the cluster '
        'scope: RBAC: x')
    err = forbidden(attrs('GET', '/apis'))
    assert (err.message, err.status()['details']) == ('forbidden: User "alice" cannot get path "/apis"', {})

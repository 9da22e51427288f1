"""The policy, networking, LimitRange and certificates strategies (pure: the rows' hooks and the
subresource strategies), the LimitRanger admission on a bare store and the disruption
controller's status arithmetic."""

import copy

import pytest

from tests.kubesim.apiserver.authentication import REQUEST_USER, UserInfo
from tests.kubesim.apiserver.registry.resources import BY_KEY, admit
from tests.kubesim.apiserver.registry.store import Store
from tests.kubesim.apiserver.strategies import certificates, limitrange
from tests.kubesim.controllers.disruption import budget_status
from tests.kubesim.machinery.errors import ApiError

pytestmark = pytest.mark.unit

CSRS = 'certificates.k8s.io/certificatesigningrequests'
NOW = '2026-01-01T00:00:00Z'


def admitted(resource, obj, old=None):
    obj = copy.deepcopy(obj)
    admit(resource, obj, old)
    return obj


def messages(resource, obj, old=None):
    with pytest.raises(ApiError) as caught:
        admit(resource, copy.deepcopy(obj), old)
    assert caught.value.code == 422
    return [c['message'] for c in caught.value.details['causes']]


def test_network_policy_types_default_from_the_rules():
    def types(**spec):
        obj = {'metadata': {'name': 'p'}, 'spec': {'podSelector': {}, **spec}}
        return admitted('networking.k8s.io/networkpolicies', obj)['spec']['policyTypes']

    assert types() == ['Ingress']
    assert types(egress=[{}]) == ['Ingress', 'Egress']
    assert types(egress=[{}], policyTypes=['Egress']) == ['Egress']


def test_pdb_needs_one_of_min_available_and_max_unavailable():
    obj = {'metadata': {'name': 'b'}, 'spec': {'minAvailable': 1, 'maxUnavailable': '10%'}}
    assert any('minAvailable and maxUnavailable cannot be both set' in m
               for m in messages('policy/poddisruptionbudgets', obj))
    obj['spec'] = {'maxUnavailable': '120%'}
    assert messages('policy/poddisruptionbudgets', obj) == [
        'Invalid value: "120%": must not be greater than 100%']


def test_limit_range_item_defaults():
    obj = {'metadata': {'name': 'l'}, 'spec': {'limits': [{'type': 'Container', 'max': {'cpu': '2'},
                                                          'min': {'memory': '1Mi'}}]}}
    item = admitted('/limitranges', obj)['spec']['limits'][0]
    assert item['default'] == {'cpu': '2'}
    assert item['defaultRequest'] == {'cpu': '2', 'memory': '1Mi'}


def test_limit_ranger_sets_defaults_and_refuses_over_the_max():
    store = Store()
    store.create('/namespaces', {'metadata': {'name': 'ns'}})
    store.create('/limitranges', {'metadata': {'name': 'l', 'namespace': 'ns'}, 'spec': {'limits': [
        {'type': 'Container', 'default': {'memory': '64Mi'}, 'defaultRequest': {'memory': '32Mi'},
         'max': {'memory': '1Gi'}}]}})
    pod = {'metadata': {'name': 'p', 'namespace': 'ns'},
           'spec': {'containers': [{'name': 'a', 'resources': {'requests': {'memory': '16Mi'}}}]}}
    limitrange.admit(store, '/pods', pod, None)
    assert pod['spec']['containers'][0]['resources'] == {'requests': {'memory': '16Mi'},
                                                         'limits': {'memory': '64Mi'}}
    assert pod['metadata']['annotations'] == {
        'kubernetes.io/limit-ranger': 'LimitRanger plugin set: memory limit for container a'}
    big = {'metadata': {'name': 'big', 'namespace': 'ns'},
           'spec': {'containers': [{'name': 'a', 'resources': {'limits': {'memory': '2Gi'}}}]}}
    with pytest.raises(ApiError) as caught:
        limitrange.admit(store, '/pods', big, None)
    assert caught.value.code == 403
    assert 'maximum memory usage per Container is 1Gi, but limit is 2Gi' in caught.value.message


def test_csr_records_the_requester_and_keeps_its_spec():
    obj = {'metadata': {'name': 'c'}, 'spec': {'request': 'eA==', 'signerName': 'example.com/s',
                                               'usages': ['client auth'], 'username': 'mallory'}}
    token = REQUEST_USER.set(UserInfo('alice', ('dev', 'system:authenticated'), 'uid-1'))
    try:
        spec = copy.deepcopy(obj)
        certificates.prepare(spec, None)
    finally:
        REQUEST_USER.reset(token)
    assert (spec['spec']['username'], spec['spec']['uid'], spec['spec']['groups']) == (
        'alice', 'uid-1', ['dev', 'system:authenticated'])
    changed = copy.deepcopy(spec)
    changed['spec']['signerName'] = 'example.com/other'
    certificates.prepare(changed, spec)
    assert changed['spec'] == spec['spec']


def test_csr_approval_changes_only_approval_conditions():
    row = BY_KEY[CSRS]
    old = {'metadata': {'name': 'c', 'uid': 'u'}, 'spec': {'signerName': 'example.com/s'},
           'status': {'conditions': [{'type': 'Failed', 'status': 'True'}]}}
    sent = copy.deepcopy(old)
    sent['spec']['signerName'] = 'example.com/other'
    sent['status']['conditions'] = [{'type': 'Approved', 'status': 'True', 'reason': 'R'}]
    new = certificates.update_subresource('approval', sent, old, row, NOW)
    assert new['spec'] == old['spec']
    assert [c['type'] for c in new['status']['conditions']] == ['Approved', 'Failed']
    assert new['status']['conditions'][0]['lastTransitionTime'] == NOW
    both = copy.deepcopy(new)
    both['status']['conditions'].append({'type': 'Denied', 'status': 'True'})
    with pytest.raises(ApiError) as caught:
        certificates.update_subresource('approval', both, new, row, NOW)
    assert 'Approved and Denied conditions are mutually exclusive' in str(caught.value.details)
    # /status cannot drop the approval.
    dropped = copy.deepcopy(new)
    dropped['status']['conditions'] = []
    kept = certificates.update_subresource('status', dropped, new, row, NOW)
    assert [c['type'] for c in kept['status']['conditions']] == ['Approved']


def test_csr_request_must_be_a_certificate_request_pem():
    assert certificates.parse_request(b'junk') == 'PEM block type must be CERTIFICATE REQUEST'
    block = b'-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n'
    assert certificates.parse_request(block) == 'x509: malformed certificate request'


def pod(name, labels, ready=True, deleting=False):
    meta = {'name': name, 'namespace': 'ns', 'labels': labels}
    if deleting:
        meta['deletionTimestamp'] = NOW
    return {'metadata': meta, 'status': {'phase': 'Running', 'conditions': [
        {'type': 'Ready', 'status': 'True' if ready else 'False'}]}}


def test_disruption_budget_status():
    pods = [pod('a', {'app': 'w'}), pod('b', {'app': 'w'}), pod('c', {'app': 'w'}, ready=False),
            pod('d', {'app': 'w'}, deleting=True), pod('e', {'app': 'x'})]
    pdb = {'metadata': {'name': 'b', 'generation': 2},
           'spec': {'minAvailable': '50%', 'selector': {'matchLabels': {'app': 'w'}}}}
    status = budget_status(pdb, pods, NOW)
    assert (status['expectedPods'], status['currentHealthy'], status['desiredHealthy'],
            status['disruptionsAllowed'], status['observedGeneration']) == (3, 2, 2, 0, 2)
    assert status['conditions'][0]['reason'] == 'InsufficientPods'
    pdb['spec'] = {'maxUnavailable': 1, 'selector': {'matchLabels': {'app': 'w'}}}
    assert budget_status(pdb, pods, NOW)['disruptionsAllowed'] == 0
    pdb['spec'] = {'minAvailable': 1}  # no selector: no pods
    assert budget_status(pdb, pods, NOW)['expectedPods'] == 0

"""kubectl against Leases, Events (field selectors), scheduling and ResourceQuota: what it prints
and the objects it finds. Meaningful against a real cluster too (nothing here needs kubesim)."""

import re

import pytest

from .conftest import eventually, workload

pytestmark = pytest.mark.conformance


def events(kube, selector):
    return kube.items('events', '--field-selector', selector)


def test_get_lease(kube):
    kube.apply({'apiVersion': 'coordination.k8s.io/v1', 'kind': 'Lease', 'metadata': {'name': 'lock'},
                'spec': {'holderIdentity': 'worker-1', 'leaseDurationSeconds': 15}})
    lines = kube('get', 'lease').stdout.splitlines()
    assert lines[0].split() == ['NAME', 'HOLDER', 'AGE']
    assert lines[1].split()[:2] == ['lock', 'worker-1']
    kube('patch', 'lease', 'lock', '--type=merge', '-p', '{"spec":{"holderIdentity":"worker-2"}}')
    assert kube('get', 'lease', 'lock', '-o', 'jsonpath={.spec.holderIdentity}').stdout == 'worker-2'
    assert kube('delete', 'lease', 'lock').stdout.startswith('lease.coordination.k8s.io "lock" deleted')


def test_scaling_events_by_involved_object(kube):
    kube.apply(workload('Deployment', 'web', 'nginx:1.25', replicas=2))
    kube.status('deploy/web')
    rs = kube.items('rs', '-l', 'app=web')[0]['metadata']['name']
    found = events(kube, 'involvedObject.kind=Deployment,involvedObject.name=web,reason=ScalingReplicaSet')
    assert [e['message'] for e in found] == [f'Scaled up replica set {rs} from 0 to 2']
    assert found[0]['type'] == 'Normal' and found[0]['involvedObject']['kind'] == 'Deployment'
    assert events(kube, 'involvedObject.name=web,type=Warning') == []


def test_unschedulable_pod_and_failed_scheduling_event(kube):
    kube.apply({'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': 'huge'},
                'spec': {'containers': [{'name': 'app', 'image': 'nginx:1.25',
                                         'resources': {'requests': {'cpu': '100000'}}}]}})
    eventually(lambda: events(kube, 'involvedObject.name=huge,reason=FailedScheduling'), 'FailedScheduling')
    event = events(kube, 'involvedObject.name=huge,reason=FailedScheduling')[0]
    assert event['type'] == 'Warning' and event['involvedObject']['kind'] == 'Pod'
    # Other nodes may be out for other reasons (a tainted control plane on a real cluster).
    assert re.match(r'0/(\d+) nodes are available: (.+, )?\d+ Insufficient cpu[,.].* preemption: 0/\1 '
                    r'nodes are available: ', event['message']), event['message']
    pod = kube.json('pod', 'huge')
    scheduled = next(c for c in pod['status']['conditions'] if c['type'] == 'PodScheduled')
    assert (scheduled['status'], scheduled['reason']) == ('False', 'Unschedulable')
    assert pod['status']['phase'] == 'Pending'
    table = kube('get', 'events', '--field-selector', 'reason=FailedScheduling').stdout.splitlines()
    assert table[0].split() == ['LAST', 'SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']
    assert table[1].split()[1:4] == ['Warning', 'FailedScheduling', 'pod/huge']


def test_quota_exceeded_replica_failure(kube):
    kube.apply({'apiVersion': 'v1', 'kind': 'ResourceQuota', 'metadata': {'name': 'pods'},
                'spec': {'hard': {'pods': '1'}}})
    kube.apply(workload('Deployment', 'web', 'nginx:1.25', replicas=2))

    def failure():
        for rs in kube.items('rs', '-l', 'app=web'):
            for cond in rs.get('status', {}).get('conditions') or []:
                if cond['type'] == 'ReplicaFailure':
                    return rs['metadata']['name'], cond
        return None

    eventually(failure, 'the ReplicaFailure condition')
    rs, cond = failure()
    assert (cond['status'], cond['reason']) == ('True', 'FailedCreate')
    assert re.fullmatch(rf'pods "{rs}-[a-z0-9]{{5}}" is forbidden: exceeded quota: pods, requested: pods=1, '
                        r'used: pods=1, limited: pods=1', cond['message']), cond['message']
    found = events(kube, f'involvedObject.kind=ReplicaSet,involvedObject.name={rs},reason=FailedCreate')
    assert found and found[0]['type'] == 'Warning'
    assert found[0]['message'].startswith(f'Error creating: pods "{rs}-')
    assert 'exceeded quota: pods' in found[0]['message']
    eventually(lambda: kube.json('quota', 'pods').get('status', {}).get('used') == {'pods': '1'},
               'quota usage')
    out = kube('get', 'quota').stdout.splitlines()
    assert out[0].split() == ['NAME', 'AGE', 'REQUEST', 'LIMIT']
    assert out[1].split()[0] == 'pods' and 'pods: 1/1' in out[1]

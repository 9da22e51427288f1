"""A cordoned node (`spec.unschedulable`) takes no new pods but those tolerating the taint
`node.kubernetes.io/unschedulable:NoSchedule` (the scheduler's NodeUnschedulable filter plugin)."""

from .conftest import wait_for

NS = '/api/v1/namespaces/default'
MERGE = 'application/merge-patch+json'


def _pinned(name, node, tolerations=None):
    term = {'matchFields': [{'key': 'metadata.name', 'operator': 'In', 'values': [node]}]}
    spec = {'containers': [{'name': 'app', 'image': 'nginx:1.25'}],
            'affinity': {'nodeAffinity': {'requiredDuringSchedulingIgnoredDuringExecution': {
                'nodeSelectorTerms': [term]}}}}
    if tolerations:
        spec['tolerations'] = tolerations
    return {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': name}, 'spec': spec}


def _pod(http, name):
    return http.get(f'{NS}/pods/{name}')[2]


def _scheduled(pod):
    return next((c for c in pod['status'].get('conditions') or [] if c['type'] == 'PodScheduled'), None)


def test_a_cordoned_node_takes_only_pods_that_tolerate_it(http):
    assert http.patch('/api/v1/nodes/node-1', {'spec': {'unschedulable': True}}, content_type=MERGE)[0] == 200
    assert http.post(f'{NS}/pods', _pinned('plain', 'node-1'))[0] == 201
    cond = wait_for(lambda: _scheduled(_pod(http, 'plain')), 'the scheduler to judge the pod')
    assert (cond['status'], cond['reason']) == ('False', 'Unschedulable')
    assert cond['message'] == ("0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) didn't "
                               "match Pod's node affinity/selector. preemption: 0/3 nodes are available: "
                               "3 Preemption is not helpful for scheduling.")
    assert 'nodeName' not in _pod(http, 'plain')['spec']
    tolerant = [{'key': 'node.kubernetes.io/unschedulable', 'operator': 'Exists', 'effect': 'NoSchedule'}]
    assert http.post(f'{NS}/pods', _pinned('tolerant', 'node-1', tolerant))[0] == 201
    bound = wait_for(lambda: _pod(http, 'tolerant')['spec'].get('nodeName'), 'the tolerant pod bound')
    assert bound == 'node-1'
    # Uncordoned, the node takes the waiting pod.
    assert http.patch('/api/v1/nodes/node-1', {'spec': {'unschedulable': None}}, content_type=MERGE)[0] == 200
    assert wait_for(lambda: _pod(http, 'plain')['spec'].get('nodeName'), 'the pod bound') == 'node-1'

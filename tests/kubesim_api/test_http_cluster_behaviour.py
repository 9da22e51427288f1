"""Leases, events, scheduling against allocatable, ResourceQuota and crashing containers, through a
real socket."""

import urllib.parse

import pytest

from .conftest import deployment, wait_for, watch_events

pytestmark = pytest.mark.kubesim

NS = '/api/v1/namespaces/default'
LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases'
DEPLOYS = '/apis/apps/v1/namespaces/default/deployments'
RSS = '/apis/apps/v1/namespaces/default/replicasets'


def events(http, **fields):
    selector = ','.join(f'{k}={v}' for k, v in fields.items())
    status, _, body = http.get(f'{NS}/events?fieldSelector={urllib.parse.quote(selector)}')
    assert status == 200, body
    return body['items']


def pod(name, cpu=None, image='nginx:1.25'):
    resources = {'requests': {'cpu': cpu}} if cpu else {}
    return {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': name},
            'spec': {'containers': [{'name': 'app', 'image': image, 'resources': resources}]}}


def condition(obj, cond_type):
    conditions = (obj.get('status') or {}).get('conditions') or []
    return next((c for c in conditions if c['type'] == cond_type), None)


# ---- Leases -----------------------------------------------------------------------------------
def test_lease_crud_watch_and_discovery(kubesim, http):
    _, _, group = http.get('/apis/coordination.k8s.io')
    assert group['preferredVersion'] == {'groupVersion': 'coordination.k8s.io/v1', 'version': 'v1'}
    _, _, resources = http.get('/apis/coordination.k8s.io/v1')
    assert [(r['name'], r['kind'], r['namespaced']) for r in resources['resources']] == [
        ('leases', 'Lease', True)]

    lease = {'apiVersion': 'coordination.k8s.io/v1', 'kind': 'Lease', 'metadata': {'name': 'lock'},
             'spec': {'holderIdentity': 'a', 'leaseDurationSeconds': 15}}
    status, _, created = http.post(LEASES, lease)
    assert status == 201 and created['spec']['holderIdentity'] == 'a'
    assert 'generation' not in created['metadata']
    rv = created['metadata']['resourceVersion']

    # Taking over with the resourceVersion read: the next writer with the old one gets a 409.
    created['spec'].update(holderIdentity='b', leaseTransitions=1)
    status, _, taken = http.put(f'{LEASES}/lock', created)
    assert status == 200 and taken['spec']['holderIdentity'] == 'b'
    assert int(taken['metadata']['resourceVersion']) > int(rv)
    created['spec']['holderIdentity'] = 'c'
    status, _, err = http.put(f'{LEASES}/lock', created)
    assert status == 409 and err['reason'] == 'Conflict'

    seen, _ = watch_events(kubesim.url, f'{LEASES}?watch=1&resourceVersion={rv}', count=1)
    assert [(e['type'], e['object']['spec']['holderIdentity']) for e in seen] == [('MODIFIED', 'b')]

    status, _, err = http.post(LEASES, {'metadata': {'name': 'bad'}, 'spec': {'leaseDurationSeconds': 0}})
    assert status == 422 and err['message'].startswith('Lease.coordination.k8s.io "bad" is invalid: ')
    assert err['details']['causes'][0]['field'] == 'spec.leaseDurationSeconds'
    assert http.delete(f'{LEASES}/lock')[0] == 200
    assert http.get(f'{LEASES}/lock')[0] == 404


# ---- scheduling against allocatable -------------------------------------------------------------
def test_pod_that_fits_nowhere_is_unschedulable_with_the_schedulers_message(kubesim, http):
    status, _, _ = http.post(f'{NS}/pods', pod('huge', cpu='5'))  # nodes have 4 cpus
    assert status == 201
    expected = ('0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: '
                '3 No preemption victims found for incoming pod.')
    scheduled = wait_for(lambda: condition(http.get(f'{NS}/pods/huge')[2], 'PodScheduled'))
    assert (scheduled['status'], scheduled['reason']) == ('False', 'Unschedulable')
    assert scheduled['message'] == expected
    got = http.get(f'{NS}/pods/huge')[2]
    assert got['status']['phase'] == 'Pending' and 'nodeName' not in got['spec']

    failed = wait_for(lambda: events(http, **{'involvedObject.name': 'huge', 'reason': 'FailedScheduling'}))
    assert len(failed) == 1
    ev = failed[0]
    assert (ev['type'], ev['message']) == ('Warning', expected)
    assert ev['source']['component'] == 'default-scheduler'
    assert ev['involvedObject']['kind'] == 'Pod' and ev['involvedObject']['uid'] == got['metadata']['uid']
    assert events(http, **{'involvedObject.uid': got['metadata']['uid'], 'type': 'Warning'}) == failed
    assert events(http, **{'involvedObject.name': 'other'}) == []

    # Pods already bound count against a node: 3 cpus fit once, the second 3 only on another node.
    for name in ('a', 'b', 'c', 'd'):
        assert http.post(f'{NS}/pods', pod(name, cpu='3'))[0] == 201
    def bound():
        names = [http.get(f'{NS}/pods/{n}')[2]['spec'].get('nodeName') for n in 'abc']
        return names if all(names) else None

    nodes = wait_for(bound, what='binding')
    assert sorted(nodes) == ['node-1', 'node-2', 'node-3']
    msg = wait_for(lambda: (condition(http.get(f'{NS}/pods/d')[2], 'PodScheduled') or {}).get('message'))
    assert msg.startswith('0/3 nodes are available: 3 Insufficient cpu.')

    # More allocatable on a node: the pending pod is bound there.
    node = http.get('/api/v1/nodes/node-2')[2]
    node['status']['allocatable']['cpu'] = '8'
    assert http.put('/api/v1/nodes/node-2/status', node)[0] == 200
    bound = wait_for(lambda: http.get(f'{NS}/pods/d')[2]['spec'].get('nodeName'), what='rescheduling')
    assert bound == 'node-2'
    assert condition(http.get(f'{NS}/pods/d')[2], 'PodScheduled')['status'] == 'True'


# ---- ResourceQuota ------------------------------------------------------------------------------
def test_quota_forbids_pods_and_the_replicaset_reports_failed_create(kubesim, http):
    quota = {'apiVersion': 'v1', 'kind': 'ResourceQuota', 'metadata': {'name': 'compute'},
             'spec': {'hard': {'pods': '2'}}}
    assert http.post(f'{NS}/resourcequotas', quota)[0] == 201
    status, _, err = http.post(f'{NS}/resourcequotas', {'metadata': {'name': 'bad'},
                                                         'spec': {'hard': {'pods': 'lots'}}})
    # A quantity that does not parse fails decoding (resource.Quantity's UnmarshalJSON), before
    # validation: a 400, not a 422.
    assert (status, err['message']) == (400, 'ResourceQuota in version "v1" cannot be handled as a '
                                             'ResourceQuota: quantities must match the regular expression '
                                             "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
    status, _, err = http.post(f'{NS}/resourcequotas', {'metadata': {'name': 'bad'},
                                                         'spec': {'hard': {'pods': '-1'}}})
    assert status == 422 and err['details']['causes'][0]['field'] == 'spec.hard[pods]'

    assert http.post(DEPLOYS, deployment('web', replicas=3))[0] == 201
    rs = wait_for(lambda: [r for r in http.get(RSS)[2]['items']
                           if condition(r, 'ReplicaFailure')], what='ReplicaFailure')[0]
    failure = condition(rs, 'ReplicaFailure')
    assert failure['status'] == 'True' and failure['reason'] == 'FailedCreate'
    assert failure['message'].startswith('pods "web-')
    assert failure['message'].endswith(' is forbidden: exceeded quota: compute, requested: pods=1, '
                                       'used: pods=2, limited: pods=2')
    rs_name = rs['metadata']['name']
    failed = wait_for(lambda: events(http, **{'involvedObject.name': rs_name, 'reason': 'FailedCreate'}))
    assert failed[0]['type'] == 'Warning' and failed[0]['involvedObject']['kind'] == 'ReplicaSet'
    assert f'Error creating: {failure["message"]}' in [e['message'] for e in failed]
    assert failed[0]['source']['component'] == 'replicaset-controller'
    scaled = events(http, **{'involvedObject.kind': 'Deployment', 'reason': 'ScalingReplicaSet'})
    assert [e['message'] for e in scaled] == [f'Scaled up replica set {rs_name} from 0 to 3']

    # The quota controller reports usage; a direct create gets the API server's 403.
    used = wait_for(lambda: (http.get(f'{NS}/resourcequotas/compute')[2].get('status') or {}).get('used'))
    assert used == {'pods': '2'}
    status, _, err = http.post(f'{NS}/pods', pod('extra'))
    assert status == 403 and err['reason'] == 'Forbidden'
    assert err['message'] == ('pods "extra" is forbidden: exceeded quota: compute, requested: pods=1, '
                              'used: pods=2, limited: pods=2')

    # Room again: the ReplicaSet creates its last pod and drops the condition.
    quota = http.get(f'{NS}/resourcequotas/compute')[2]
    quota['spec']['hard']['pods'] = '5'
    assert http.put(f'{NS}/resourcequotas/compute', quota)[0] == 200
    wait_for(lambda: condition(http.get(f'{RSS}/{rs_name}')[2], 'ReplicaFailure') is None
             and http.get(f'{RSS}/{rs_name}')[2]['status'].get('replicas') == 3, what='recovery')


def test_quota_on_compute_needs_requests(kubesim, http):
    quota = {'metadata': {'name': 'cpu'}, 'spec': {'hard': {'requests.cpu': '1'}}}
    assert http.post(f'{NS}/resourcequotas', quota)[0] == 201
    status, _, err = http.post(f'{NS}/pods', pod('bare'))
    assert status == 403
    assert err['message'] == 'pods "bare" is forbidden: failed quota: cpu: must specify requests.cpu for: app'
    assert http.post(f'{NS}/pods', pod('small', cpu='600m'))[0] == 201
    status, _, err = http.post(f'{NS}/pods', pod('second', cpu='500m'))
    assert status == 403 and err['message'].endswith(
        'exceeded quota: cpu, requested: requests.cpu=500m, used: requests.cpu=600m, limited: requests.cpu=1')


# ---- crashing containers ------------------------------------------------------------------------
@pytest.mark.kubesim_options(crash_image='crash', crash_after=0.1, time_scale=100)
def test_crashing_container_restarts_with_crash_loop_back_off(kubesim, http):
    assert http.post(f'{NS}/pods', pod('crashy', image='example.com/crash:1'))[0] == 201

    def waiting():
        got = http.get(f'{NS}/pods/crashy')[2]
        cs = ((got.get('status') or {}).get('containerStatuses') or [{}])[0]
        return got if (cs.get('state') or {}).get('waiting') else None

    got = wait_for(waiting, what='CrashLoopBackOff')
    cs = got['status']['containerStatuses'][0]
    assert got['status']['phase'] == 'Running'
    assert cs['state']['waiting']['reason'] == 'CrashLoopBackOff'
    assert cs['state']['waiting']['message'] == (
        f'back-off 10s restarting failed container=app pod=crashy_default({got["metadata"]["uid"]})')
    assert cs['restartCount'] == 1 and cs['ready'] is False
    terminated = cs['lastState']['terminated']
    assert (terminated['exitCode'], terminated['reason']) == (1, 'Error')
    assert condition(got, 'Ready')['status'] == 'False'

    # 10 s of back-off at time_scale 100: restarted within a fraction of a second, then 20 s.
    wait_for(lambda: http.get(f'{NS}/pods/crashy')[2]['status']['containerStatuses'][0]['restartCount'] >= 3,
             what='more restarts')
    backoff = wait_for(lambda: events(http, **{'involvedObject.name': 'crashy', 'reason': 'BackOff'}))
    assert backoff[0]['type'] == 'Warning' and backoff[0]['source'] == {'component': 'kubelet',
                                                                        'host': got['spec']['nodeName']}
    assert backoff[0]['message'] == (f'Back-off restarting failed container app in pod '
                                     f'crashy_default({got["metadata"]["uid"]})')
    assert backoff[0]['involvedObject']['fieldPath'] == 'spec.containers{app}'
    assert backoff[0]['count'] >= 2  # the same event again counts up instead of piling up


@pytest.mark.kubesim_options(fail_image='^registry.invalid/')
def test_image_pull_failure_events(kubesim, http):
    assert http.post(f'{NS}/pods', pod('nopull', image='registry.invalid/app:1'))[0] == 201
    found = wait_for(lambda: len(events(http, **{'involvedObject.name': 'nopull'})) == 4
                     and events(http, **{'involvedObject.name': 'nopull'}))
    shown = sorted((e['type'], e['reason'], e['message']) for e in found if 'rpc error' not in e['message'])
    assert shown == [
        ('Normal', 'BackOff', 'Back-off pulling image "registry.invalid/app:1"'),
        ('Warning', 'Failed', 'Error: ErrImagePull'),
        ('Warning', 'Failed', 'Error: ImagePullBackOff'),
    ]
    assert any(e['message'].startswith('Failed to pull image "registry.invalid/app:1": ') for e in found)
    assert len(events(http, **{'involvedObject.name': 'nopull', 'type': 'Warning'})) == 3


def test_statefulset_and_daemonset_report_refused_pods(kubesim, http):
    quota = {'metadata': {'name': 'none'}, 'spec': {'hard': {'pods': '0'}}}
    assert http.post(f'{NS}/resourcequotas', quota)[0] == 201
    template = {'metadata': {'labels': {'app': 'x'}},
                'spec': {'containers': [{'name': 'app', 'image': 'nginx:1.25'}]}}
    sts = {'apiVersion': 'apps/v1', 'kind': 'StatefulSet', 'metadata': {'name': 'db'},
           'spec': {'replicas': 1, 'serviceName': 'db', 'selector': {'matchLabels': {'app': 'x'}},
                    'template': template}}
    ds = {'apiVersion': 'apps/v1', 'kind': 'DaemonSet', 'metadata': {'name': 'agent'},
          'spec': {'selector': {'matchLabels': {'app': 'x'}}, 'template': template}}
    assert http.post('/apis/apps/v1/namespaces/default/statefulsets', sts)[0] == 201
    assert http.post('/apis/apps/v1/namespaces/default/daemonsets', ds)[0] == 201

    refused = 'exceeded quota: none, requested: pods=1, used: pods=0, limited: pods=0'
    sts_events = wait_for(lambda: events(http, **{'involvedObject.kind': 'StatefulSet',
                                                  'reason': 'FailedCreate'}))
    assert sts_events[0]['message'] == ('create Pod db-0 in StatefulSet db failed error: '
                                        f'pods "db-0" is forbidden: {refused}')
    assert sts_events[0]['source']['component'] == 'statefulset-controller'
    ds_events = wait_for(lambda: events(http, **{'involvedObject.name': 'agent', 'reason': 'FailedCreate'}))
    assert ds_events[0]['type'] == 'Warning'
    assert ds_events[0]['message'].startswith('Error creating: pods "agent-')
    assert ds_events[0]['message'].endswith(f'is forbidden: {refused}')


# ---- the Status of a 422 ------------------------------------------------------------------------
def test_invalid_status_names_kind_and_group_as_the_api_server_does(http):
    bad = deployment('web')
    bad['spec']['replicas'] = -1
    status, _, err = http.post(DEPLOYS, bad)
    assert status == 422 and err['reason'] == 'Invalid'
    assert err['message'] == ('Deployment.apps "web" is invalid: spec.replicas: Invalid value: -1: '
                              'must be greater than or equal to 0')
    assert err['details'] == {'name': 'web', 'group': 'apps', 'kind': 'Deployment', 'causes': [
        {'reason': 'FieldValueInvalid', 'message': 'Invalid value: -1: must be greater than or equal to 0',
         'field': 'spec.replicas'}]}
    unnamed = deployment('x')
    del unnamed['metadata']['name']
    status, _, err = http.post(DEPLOYS, unnamed)
    assert status == 422 and err['details']['kind'] == 'Deployment' and err['details']['group'] == 'apps'
    assert err['message'].startswith('Deployment.apps "" is invalid: metadata.name: Required value')
    status, _, err = http.post(f'{NS}/pods', {'metadata': {'name': 'p'}, 'spec': {'containers': []}})
    assert status == 422 and err['details']['kind'] == 'Pod' and 'group' not in err['details']


# ---- in-place resize ---------------------------------------------------------------------------
def test_pod_resize_subresource_resizes_in_place_and_restarts_only_as_the_policy_says(kubesim, http):
    body = pod('sized')
    body['spec']['containers'][0]['resources'] = {'limits': {'cpu': '500m', 'memory': '128Mi'}}
    body['spec']['containers'][0]['resizePolicy'] = [
        {'resourceName': 'cpu', 'restartPolicy': 'NotRequired'},
        {'resourceName': 'memory', 'restartPolicy': 'RestartContainer'}]
    assert http.post(f'{NS}/pods', body)[0] == 201
    def ready_pod():
        got = http.get(f'{NS}/pods/sized')[2]
        return got if (condition(got, 'Ready') or {}).get('status') == 'True' else None

    ready = wait_for(ready_pod, what='Ready')
    cs = ready['status']['containerStatuses'][0]
    assert cs['resources'] == {'limits': {'cpu': '500m', 'memory': '128Mi'},
                               'requests': {'cpu': '500m', 'memory': '128Mi'}}
    uid, generation = ready['metadata']['uid'], ready['metadata']['generation']
    assert {d['name'] for d in http.get('/api/v1')[2]['resources']} >= {'pods/resize', 'pods/status'}

    def resize(resources):
        return http.patch(f'{NS}/pods/sized/resize', {'spec': {'containers': [
            {'name': 'app', 'resources': resources}]}})

    def actual(want):
        got = http.get(f'{NS}/pods/sized')[2]
        cs = got['status']['containerStatuses'][0]
        return got if cs.get('resources', {}).get('limits') == want else None

    # cpu: NotRequired - new resources, no restart.
    status, _, got = resize({'limits': {'cpu': '1', 'memory': '128Mi'}, 'requests': {'cpu': '1'}})
    assert status == 200, got
    assert got['spec']['containers'][0]['resources']['limits']['cpu'] == '1'
    assert got['metadata']['generation'] == generation + 1
    got = wait_for(lambda: actual({'cpu': '1', 'memory': '128Mi'}), what='the cpu resize')
    assert got['status']['containerStatuses'][0]['restartCount'] == 0
    # memory: RestartContainer - the container restarts once, cleanly; the pod stays (same uid).
    assert resize({'limits': {'cpu': '1', 'memory': '256Mi'}, 'requests': {'memory': '256Mi'}})[0] == 200
    got = wait_for(lambda: actual({'cpu': '1', 'memory': '256Mi'}), what='the memory resize')
    cs = got['status']['containerStatuses'][0]
    assert got['metadata']['uid'] == uid and cs['restartCount'] == 1 and cs['ready'] is True
    last = cs['lastState']['terminated']
    assert (last['exitCode'], last['reason']) == (0, 'Completed')

    # Only cpu and memory may change; anything else the resize subresource drops.
    status, _, err = resize({'limits': {'cpu': '1', 'memory': '256Mi', 'ephemeral-storage': '1Gi'}})
    assert status == 422 and err['message'] == (
        'Pod "sized" is invalid: spec: Forbidden: only cpu and memory resources are mutable'), err
    other = {'metadata': {'labels': {'x': 'y'}},
             'spec': {'containers': [{'name': 'app', 'image': 'other:1'}]}}
    status, _, got = http.patch(f'{NS}/pods/sized/resize', other)
    assert status == 200 and 'x' not in (got['metadata'].get('labels') or {})
    assert got['spec']['containers'][0]['image'] == 'nginx:1.25'

"""Nodes, the kubelet stand-in, the readiness log and its replay helper, the reconcile loop."""

import asyncio

import pytest

from tests.kubesim.timeline import extremes, workload_timeline

from .harness import simulate

RC = '/replicationcontrollers'


def pod(name, image='nginx:1', init_image=None):
    spec = {'containers': [{'name': 'app', 'image': image}]}
    if init_image:
        spec['initContainers'] = [{'name': 'setup', 'image': init_image}]
    return {
        'apiVersion': 'v1',
        'kind': 'Pod',
        'metadata': {'name': name, 'namespace': 'default'},
        'spec': spec,
    }


@pytest.mark.kubesim
def test_nodes_are_created_ready():
    async def scenario(h):
        await h.wait_for(lambda: len(h.store.list('/nodes')) == 2, 'the nodes')
        nodes = h.store.list('/nodes')
        assert [n['metadata']['name'] for n in nodes] == ['node-1', 'node-2']
        for node in nodes:
            ready = next(c for c in node['status']['conditions'] if c['type'] == 'Ready')
            assert ready['status'] == 'True'
            assert node['metadata']['labels']['kubernetes.io/hostname'] == node['metadata']['name']

    simulate(scenario, nodes=2)


@pytest.mark.kubesim
def test_a_pod_is_scheduled_then_running_and_ready_after_the_delay():
    async def scenario(h):
        created = h.create('/pods', pod('solo'))
        assert created['status']['phase'] == 'Pending'
        start = h.mgr.clock()
        ready = await h.wait_for(
            lambda: h.get('/pods', 'solo')['status'].get('phase') == 'Running' and h.get('/pods', 'solo'),
            'the pod to run',
        )
        assert h.mgr.clock() - start >= 0.2
        status = ready['status']
        assert ready['spec']['nodeName'].startswith('node-')
        assert {c['type']: c['status'] for c in status['conditions']}['Ready'] == 'True'
        [cs] = status['containerStatuses']
        assert cs['image'] == 'nginx:1' and cs['ready'] and 'running' in cs['state']
        assert status['podIP'].startswith('10.244.') and status['startTime']

    simulate(scenario, ready_delay=0.2)


@pytest.mark.kubesim
@pytest.mark.parametrize(
    'image,init_image', [('registry.example/bad:1', None), ('nginx:1', 'registry.example/bad:1')]
)
def test_a_pod_with_a_failing_image_backs_off_forever(image, init_image):
    async def scenario(h):
        h.create('/pods', pod('stuck', image, init_image))
        await h.wait_for(
            lambda: h.get('/pods', 'stuck')['status'].get('containerStatuses'), 'a container status'
        )
        await h.settle(0.2)
        status = h.get('/pods', 'stuck')['status']
        assert status['phase'] == 'Pending'
        assert {c['type']: c['status'] for c in status['conditions']}['Ready'] == 'False'
        failing = status['initContainerStatuses' if init_image else 'containerStatuses'][0]
        assert failing['state']['waiting']['reason'] == 'ImagePullBackOff'
        assert failing['state']['waiting']['message'] == 'Back-off pulling image "registry.example/bad:1"'
        if init_image:
            assert status['containerStatuses'][0]['state']['waiting']['reason'] == 'PodInitializing'
        assert not any(e['event'] == 'ready' for e in h.mgr.readiness_log)

    simulate(scenario, fail_image=r'^registry\.example/')


@pytest.mark.kubesim
def test_readiness_log_records_owner_and_workload():
    async def scenario(h):
        h.create(
            RC,
            {
                'apiVersion': 'v1',
                'kind': 'ReplicationController',
                'metadata': {'name': 'rc1', 'namespace': 'default'},
                'spec': {
                    'replicas': 2,
                    'template': {
                        'metadata': {'labels': {'app': 'a'}},
                        'spec': {'containers': [{'name': 'c', 'image': 'i:1'}]},
                    },
                },
            },
        )
        await h.wait_for(
            lambda: sum(e['event'] == 'ready' for e in h.mgr.readiness_log) == 2, 'two ready pods'
        )
        victim = h.list('/pods')[0]['metadata']['name']
        h.delete('/pods', victim)
        await h.wait_for(
            lambda: sum(e['event'] == 'ready' for e in h.mgr.readiness_log) == 3, 'a replacement'
        )
        log = h.mgr.readiness_log
        assert [e['event'] for e in log][:4] == ['created', 'created', 'ready', 'ready']
        gone = next(e for e in log if e['event'] == 'deleted')
        assert gone['pod'] == victim
        for entry in log:
            assert (entry['namespace'], entry['owner_kind'], entry['owner_name']) == (
                'default',
                'ReplicationController',
                'rc1',
            )
            assert entry['workload_name'] == 'rc1'
        times = [e['t'] for e in log]
        assert times == sorted(times)

    simulate(scenario)


@pytest.mark.unit
def test_workload_timeline_replays_pods_and_availability():
    def entry(t, event, pod, owner='web-1', kind='ReplicaSet', workload='web'):
        return {
            't': t,
            'event': event,
            'namespace': 'ns',
            'pod': pod,
            'owner_kind': kind,
            'owner_name': owner,
            'workload_kind': 'Deployment',
            'workload_name': workload,
        }

    log = [
        entry(1, 'created', 'a'),
        entry(2, 'ready', 'a'),
        entry(3, 'created', 'b', owner='web-2'),
        entry(3.5, 'created', 'z', owner='db-0', workload='db'),
        entry(4, 'ready', 'b', owner='web-2'),
        entry(5, 'deleted', 'a'),
        entry(6, 'unready', 'b', owner='web-2'),
    ]
    full = workload_timeline(log, 'ns', 'Deployment', 'web')
    assert full == [(1, 1, 0), (2, 1, 1), (3, 2, 1), (4, 2, 2), (5, 1, 1), (6, 1, 0)]
    assert extremes(full) == (2, 0)
    # From t=2.5: the state at that instant first, then the later events.
    assert workload_timeline(log, 'ns', 'Deployment', 'web', since=2.5) == [
        (2.5, 1, 1),
        (3, 2, 1),
        (4, 2, 2),
        (5, 1, 1),
        (6, 1, 0),
    ]
    assert workload_timeline(log, 'ns', 'Deployment', 'web', since=2.5, until=4.5)[-1] == (4, 2, 2)
    # By direct owner; other namespaces and workloads are ignored.
    assert workload_timeline(log, 'ns', 'ReplicaSet', 'web-2') == [(3, 1, 0), (4, 1, 1), (6, 1, 0)]
    assert workload_timeline(log, 'other', 'Deployment', 'web', since=0) == [(0, 0, 0)]


@pytest.mark.kubesim
def test_the_loop_sleeps_when_idle():
    async def scenario(h):
        h.create(
            RC,
            {
                'apiVersion': 'v1',
                'kind': 'ReplicationController',
                'metadata': {'name': 'rc1', 'namespace': 'default'},
                'spec': {
                    'replicas': 3,
                    'template': {
                        'metadata': {'labels': {'app': 'a'}},
                        'spec': {'containers': [{'name': 'c', 'image': 'i:1'}]},
                    },
                },
            },
        )
        await h.wait_for(lambda: h.get(RC, 'rc1').get('status', {}).get('readyReplicas') == 3, 'the pods')
        await asyncio.sleep(0.1)
        before = h.mgr.passes
        await asyncio.sleep(1.5)
        # Only the idle resync (one per second) may run: nothing changed.
        assert h.mgr.passes - before <= 2
        rv = h.store.resource_version
        await asyncio.sleep(0.2)
        assert h.store.resource_version == rv  # and a quiet pass writes nothing

    simulate(scenario)


@pytest.mark.kubesim
def test_a_failing_sync_is_logged_and_the_loop_goes_on(caplog):
    async def scenario(h):
        calls = []

        def broken(_obj):
            calls.append(1)
            raise RuntimeError('boom')

        rs_controller = h.mgr.controllers[0]
        rs_controller.sync = broken
        h.create(
            'apps/replicasets',
            {
                'apiVersion': 'apps/v1',
                'kind': 'ReplicaSet',
                'metadata': {'name': 'x', 'namespace': 'default'},
                'spec': {
                    'replicas': 1,
                    'selector': {'matchLabels': {'a': 'b'}},
                    'template': {
                        'metadata': {'labels': {'a': 'b'}},
                        'spec': {'containers': [{'name': 'c', 'image': 'i'}]},
                    },
                },
            },
        )
        h.create('/pods', pod('still-served'))
        await h.wait_for(
            lambda: h.get('/pods', 'still-served')['status'].get('phase') == 'Running',
            'the kubelet to keep working',
        )
        assert calls and h.mgr.errors >= 1
        assert 'sync failed' in caplog.text and 'boom' in caplog.text
        h.mgr.errors = 0  # expected here; the harness asserts no unexpected errors

    simulate(scenario)


@pytest.mark.kubesim
def test_cancellation_racing_a_store_event_still_stops_the_manager():
    from .harness import Harness

    async def main():
        h = Harness()
        task = asyncio.create_task(h.mgr.run())
        await asyncio.sleep(0.05)
        h.create('/pods', pod('late'))  # wakes the manager in the same tick as the cancellation
        task.cancel()
        done, _pending = await asyncio.wait({task}, timeout=2)
        assert task in done and task.cancelled()
        assert h.mgr._on_event not in h.store.listeners

    asyncio.run(main())


@pytest.mark.kubesim
def test_a_settled_cluster_writes_nothing():
    from .harness import daemonset, deployment, set_image, statefulset

    async def scenario(h):
        h.create('apps/deployments', deployment('fine', replicas=2))
        h.create('apps/deployments', deployment('paused', replicas=1, paused=True))
        h.create('apps/deployments', deployment('stuck', replicas=2, progressDeadlineSeconds=5))
        h.create('apps/statefulsets', statefulset('db', replicas=2))
        h.create('apps/daemonsets', daemonset('agent'))
        await h.wait_for(
            lambda: (h.get('apps/deployments', 'stuck').get('status') or {}).get('availableReplicas') == 2,
            'the stuck deployment to start',
        )
        h.mutate('apps/deployments', 'stuck', set_image('broken:1'))

        def stalled():
            conds = (h.get('apps/deployments', 'stuck').get('status') or {}).get('conditions') or []
            return any(c['reason'] == 'ProgressDeadlineExceeded' for c in conds)

        await h.wait_for(stalled, 'the progress deadline')
        await h.settle(0.5)
        rv = h.store.resource_version
        await asyncio.sleep(1.5)  # an idle resync included
        assert h.store.resource_version == rv

    simulate(scenario, fail_image='^broken', time_scale=10)

"""The DaemonSet controller: one pod per node, revisions, RollingUpdate and OnDelete."""

import pytest

from tests.kubesim.timeline import extremes, workload_timeline

from .harness import daemonset, set_image, simulate

pytestmark = pytest.mark.kubesim

DS = 'apps/daemonsets'
CR = 'apps/controllerrevisions'


def ds_status(h, name='agent'):
    return h.get(DS, name).get('status') or {}


def rolled_out(h, name='agent', nodes=3):
    obj = h.get(DS, name)
    s = obj.get('status') or {}
    return (
        s.get('observedGeneration', 0) >= obj['metadata']['generation']
        and s.get('desiredNumberScheduled') == nodes
        and s.get('updatedNumberScheduled') == nodes
        and s.get('numberAvailable') == nodes
        and len(h.list('/pods')) == nodes
    )


def test_one_pod_per_node_with_revision_hash():
    async def scenario(h):
        created = h.create(DS, daemonset())
        assert created['metadata']['annotations']['deprecated.daemonset.template.generation'] == '1'
        await h.wait_for(lambda: rolled_out(h), 'a pod on every node')
        pods = h.list('/pods')
        assert sorted(p['spec']['nodeName'] for p in pods) == ['node-1', 'node-2', 'node-3']
        [cr] = h.list(CR)
        rev_hash = cr['metadata']['labels']['controller-revision-hash']
        assert cr['metadata']['name'] == f'agent-{rev_hash}' and cr['revision'] == 1
        assert cr['metadata']['labels']['app'] == 'agent'
        assert cr['data']['spec']['template']['$patch'] == 'replace'
        for pod in pods:
            assert pod['metadata']['labels']['controller-revision-hash'] == rev_hash
            assert pod['metadata']['labels']['pod-template-generation'] == '1'
            assert pod['metadata']['name'].startswith('agent-')
        assert ds_status(h) == {
            'currentNumberScheduled': 3,
            'numberMisscheduled': 0,
            'desiredNumberScheduled': 3,
            'numberReady': 3,
            'observedGeneration': 1,
            'updatedNumberScheduled': 3,
            'numberAvailable': 3,
        }

    simulate(scenario)


@pytest.mark.parametrize(
    'rolling,max_pods,min_available',
    [
        ({}, 3, 2),  # the defaults: maxUnavailable 1, maxSurge 0
        ({'maxUnavailable': 0, 'maxSurge': 1}, 4, 3),
        ({'maxUnavailable': 2, 'maxSurge': 0}, 3, 1),
    ],
)
def test_rolling_update_limits(rolling, max_pods, min_available):
    async def scenario(h):
        h.create(DS, daemonset(updateStrategy={'type': 'RollingUpdate', 'rollingUpdate': rolling}))
        await h.wait_for(lambda: rolled_out(h), 'revision 1')
        start = h.mgr.clock()
        h.mutate(DS, 'agent', set_image('fluentd:2'))
        await h.wait_for(
            lambda: (
                rolled_out(h)
                and all(p['spec']['containers'][0]['image'] == 'fluentd:2' for p in h.list('/pods'))
            ),
            'the rolling update',
        )
        timeline = workload_timeline(h.mgr.readiness_log, 'default', 'DaemonSet', 'agent', since=start)
        assert extremes(timeline) == (max_pods, min_available)
        assert sorted(p['spec']['nodeName'] for p in h.list('/pods')) == ['node-1', 'node-2', 'node-3']

    simulate(scenario)


def test_on_delete_waits_for_pods_to_be_deleted():
    async def scenario(h):
        h.create(DS, daemonset(updateStrategy={'type': 'OnDelete'}))
        await h.wait_for(lambda: rolled_out(h), 'revision 1')
        h.mutate(DS, 'agent', set_image('fluentd:2'))
        await h.wait_for(lambda: ds_status(h).get('observedGeneration') == 2, 'the new generation')
        await h.settle(0.15)
        assert ds_status(h).get('updatedNumberScheduled', 0) == 0
        victim = next(p for p in h.list('/pods') if p['spec']['nodeName'] == 'node-2')
        h.delete('/pods', victim['metadata']['name'])
        await h.wait_for(
            lambda: (
                ds_status(h).get('updatedNumberScheduled') == 1 and ds_status(h).get('numberAvailable') == 3
            ),
            'a new pod on node-2',
        )
        images = {p['spec']['nodeName']: p['spec']['containers'][0]['image'] for p in h.list('/pods')}
        assert images == {'node-1': 'fluentd:1', 'node-2': 'fluentd:2', 'node-3': 'fluentd:1'}

    simulate(scenario)


def test_node_selector_limits_the_nodes():
    async def scenario(h):
        ds = daemonset()
        ds['spec']['template']['spec']['nodeSelector'] = {'kubernetes.io/hostname': 'node-2'}
        h.create(DS, ds)
        await h.wait_for(lambda: ds_status(h).get('numberAvailable') == 1, 'one pod')
        assert [p['spec']['nodeName'] for p in h.list('/pods')] == ['node-2']
        assert ds_status(h)['desiredNumberScheduled'] == 1

    simulate(scenario)


def test_template_back_to_an_old_revision_bumps_it():
    async def scenario(h):
        h.create(DS, daemonset())
        await h.wait_for(lambda: rolled_out(h), 'revision 1')
        first = h.list(CR)[0]['metadata']['name']
        h.mutate(DS, 'agent', set_image('fluentd:2'))
        await h.wait_for(lambda: rolled_out(h) and len(h.list(CR)) == 2, 'revision 2')
        h.mutate(DS, 'agent', set_image('fluentd:1'))
        await h.wait_for(
            lambda: rolled_out(h) and any(cr['revision'] == 3 for cr in h.list(CR)), 'revision 3'
        )
        by_rev = {cr['revision']: cr['metadata']['name'] for cr in h.list(CR)}
        assert sorted(by_rev) == [2, 3] and by_rev[3] == first
        assert (
            h.get(DS, 'agent')['metadata']['annotations']['deprecated.daemonset.template.generation'] == '3'
        )

    simulate(scenario)

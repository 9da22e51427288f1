"""The StatefulSet controller: ordinals, ControllerRevisions, RollingUpdate/partition/OnDelete."""

import pytest

from tests.kubesim.timeline import workload_timeline
from tests.kubesim.controllers.history import REVISION_HASH_LABEL

from .harness import set_image, simulate, statefulset

pytestmark = pytest.mark.kubesim

STS = 'apps/statefulsets'
CR = 'apps/controllerrevisions'


def sts_status(h, name='db'):
    return h.get(STS, name).get('status') or {}


def settled(h, name='db'):
    """All pods ready at the update revision (what `rollout status` waits for, and more)."""
    obj = h.get(STS, name)
    s = obj.get('status') or {}
    want = obj['spec']['replicas']
    return (
        s.get('observedGeneration', 0) >= obj['metadata']['generation']
        and s.get('readyReplicas', 0) == want
        and s.get('updatedReplicas', 0) == want
        and s.get('currentRevision') == s.get('updateRevision')
        and s.get('replicas') == want
    )


def revisions(h):
    return {cr['revision']: cr for cr in h.list(CR)}


def pod_revisions(h):
    return {
        p['metadata']['name']: p['metadata']['labels']['controller-revision-hash'] for p in h.list('/pods')
    }


def test_ordered_ready_creates_pods_one_by_one_with_revision_labels():
    async def scenario(h):
        created = h.create(STS, statefulset(replicas=3))
        await h.wait_for(lambda: settled(h), 'three ready pods')
        log = [e for e in h.mgr.readiness_log if e['owner_name'] == 'db']
        order = [(e['event'], e['pod']) for e in log]
        assert order == [
            ('created', 'db-0'),
            ('ready', 'db-0'),
            ('created', 'db-1'),
            ('ready', 'db-1'),
            ('created', 'db-2'),
            ('ready', 'db-2'),
        ]
        [cr] = h.list(CR)
        template = dict(created['spec']['template'], **{'$patch': 'replace'})
        assert cr['data'] == {'spec': {'template': template}}
        assert list(cr['data']['spec']['template']) == sorted(template)  # Go's key order
        assert cr['revision'] == 1
        assert cr['metadata']['name'] == f'db-{cr["metadata"]["labels"][REVISION_HASH_LABEL]}'
        assert cr['metadata']['labels'] == {'app': 'db', REVISION_HASH_LABEL: cr['metadata']['name'][3:]}
        ref = cr['metadata']['ownerReferences'][0]
        assert (ref['kind'], ref['name'], ref['controller']) == ('StatefulSet', 'db', True)
        for pod in h.list('/pods'):
            labels = pod['metadata']['labels']
            assert labels['controller-revision-hash'] == cr['metadata']['name']
            assert labels['statefulset.kubernetes.io/pod-name'] == pod['metadata']['name']
            assert pod['spec']['hostname'] == pod['metadata']['name'] and pod['spec']['subdomain'] == 'db'
        s = sts_status(h)
        assert s == {
            'observedGeneration': 1,
            'replicas': 3,
            'readyReplicas': 3,
            'availableReplicas': 3,
            'currentReplicas': 3,
            'updatedReplicas': 3,
            'currentRevision': cr['metadata']['name'],
            'updateRevision': cr['metadata']['name'],
            'collisionCount': 0,
        }

    simulate(scenario)


def test_parallel_creates_all_pods_at_once():
    async def scenario(h):
        h.create(STS, statefulset(replicas=3, podManagementPolicy='Parallel'))
        await h.wait_for(lambda: settled(h), 'three ready pods')
        events = [e['event'] for e in h.mgr.readiness_log if e['owner_name'] == 'db']
        assert events[:3] == ['created'] * 3

    simulate(scenario)


def test_rolling_update_goes_from_the_highest_ordinal_down_one_at_a_time():
    async def scenario(h):
        h.create(STS, statefulset(replicas=3))
        await h.wait_for(lambda: settled(h), 'revision 1')
        start = h.mgr.clock()
        h.mutate(STS, 'db', set_image('redis:8'))
        await h.wait_for(
            lambda: settled(h) and sts_status(h)['updateRevision'] != revisions(h)[1]['metadata']['name'],
            'the rolling update',
        )
        deleted = [e['pod'] for e in h.mgr.readiness_log if e['t'] >= start and e['event'] == 'deleted']
        assert deleted == ['db-2', 'db-1', 'db-0']
        timeline = workload_timeline(h.mgr.readiness_log, 'default', 'StatefulSet', 'db', since=start)
        assert min(a for _t, _p, a in timeline) == 2 and max(p for _t, p, _a in timeline) == 3
        update = sts_status(h)['updateRevision']
        assert set(pod_revisions(h).values()) == {update}
        assert revisions(h)[2]['metadata']['name'] == update

    simulate(scenario)


def test_partition_only_updates_ordinals_at_or_above_it():
    async def scenario(h):
        h.create(
            STS,
            statefulset(
                replicas=3, updateStrategy={'type': 'RollingUpdate', 'rollingUpdate': {'partition': 2}}
            ),
        )
        await h.wait_for(lambda: settled(h), 'revision 1')
        old = sts_status(h)['currentRevision']
        h.mutate(STS, 'db', set_image('redis:8'))
        await h.wait_for(
            lambda: sts_status(h).get('updatedReplicas') == 1 and sts_status(h).get('readyReplicas') == 3,
            'db-2 updated',
        )
        await h.settle(0.15)
        s = sts_status(h)
        new = s['updateRevision']
        assert new != old and s['currentRevision'] == old
        assert (s['currentReplicas'], s['updatedReplicas']) == (2, 1)
        assert pod_revisions(h) == {'db-0': old, 'db-1': old, 'db-2': new}

        def no_partition(obj):
            obj['spec']['updateStrategy']['rollingUpdate']['partition'] = 0

        h.mutate(STS, 'db', no_partition)
        await h.wait_for(lambda: settled(h), 'the rest of the update')
        assert set(pod_revisions(h).values()) == {new}
        assert sts_status(h)['currentRevision'] == new

    simulate(scenario)


def test_on_delete_replaces_only_deleted_pods():
    async def scenario(h):
        h.create(STS, statefulset(replicas=2, updateStrategy={'type': 'OnDelete'}))
        await h.wait_for(lambda: settled(h), 'revision 1')
        old = sts_status(h)['currentRevision']
        h.mutate(STS, 'db', set_image('redis:8'))
        await h.wait_for(lambda: sts_status(h).get('observedGeneration') == 2, 'the new generation')
        await h.settle(0.15)
        new = sts_status(h)['updateRevision']
        assert new != old and pod_revisions(h) == {'db-0': old, 'db-1': old}
        h.delete('/pods', 'db-1')
        await h.wait_for(
            lambda: pod_revisions(h).get('db-1') == new and sts_status(h).get('readyReplicas') == 2,
            'db-1 recreated at the new revision',
        )
        assert pod_revisions(h)['db-0'] == old
        assert sts_status(h)['updatedReplicas'] == 1

    simulate(scenario)


def test_template_back_to_an_old_revision_reuses_its_controllerrevision():
    async def scenario(h):
        h.create(STS, statefulset(replicas=1))
        await h.wait_for(lambda: settled(h), 'revision 1')
        h.mutate(STS, 'db', set_image('redis:8'))
        await h.wait_for(lambda: settled(h) and 2 in revisions(h), 'revision 2')
        first = revisions(h)[1]['metadata']['name']
        h.mutate(STS, 'db', set_image('redis:7'))
        await h.wait_for(lambda: settled(h) and 3 in revisions(h), 'revision 3')
        assert sorted(revisions(h)) == [2, 3]
        assert revisions(h)[3]['metadata']['name'] == first
        assert sts_status(h)['updateRevision'] == first

    simulate(scenario)


def test_revision_history_limit_keeps_live_revisions():
    async def scenario(h):
        h.create(STS, statefulset(replicas=1, revisionHistoryLimit=1))
        await h.wait_for(lambda: settled(h), 'revision 1')
        for tag in ('8', '9', '10'):
            h.mutate(STS, 'db', set_image(f'redis:{tag}'))
            await h.wait_for(
                lambda: settled(h) and sts_status(h)['updateRevision'] == pod_revisions(h).get('db-0'),
                f'redis:{tag}',
            )
        await h.wait_for(lambda: sorted(revisions(h)) == [3, 4], 'the history cleanup')

    simulate(scenario)


def test_scale_down_removes_the_highest_ordinals_first():
    async def scenario(h):
        h.create(STS, statefulset(replicas=4))
        await h.wait_for(lambda: settled(h), 'four pods')
        start = h.mgr.clock()

        def scale(obj):
            obj['spec']['replicas'] = 1

        h.mutate(STS, 'db', scale)
        await h.wait_for(lambda: settled(h), 'the scale-down')
        deleted = [e['pod'] for e in h.mgr.readiness_log if e['t'] >= start and e['event'] == 'deleted']
        assert deleted == ['db-3', 'db-2', 'db-1']

    simulate(scenario)


def test_ordinals_start_numbers_pods_from_it_and_the_partition_counts_from_it():
    async def scenario(h):
        h.create(
            STS,
            statefulset(
                replicas=3,
                ordinals={'start': 3},
                updateStrategy={'type': 'RollingUpdate', 'rollingUpdate': {'partition': 2}},
            ),
        )
        await h.wait_for(lambda: settled(h), 'three pods from ordinal 3')
        log = [(e['event'], e['pod']) for e in h.mgr.readiness_log if e['owner_name'] == 'db']
        assert [pod for event, pod in log if event == 'created'] == ['db-3', 'db-4', 'db-5']
        indexes = {p['metadata']['name']: p['metadata']['labels']['apps.kubernetes.io/pod-index']
                   for p in h.list('/pods')}
        assert indexes == {'db-3': '3', 'db-4': '4', 'db-5': '5'}
        old = sts_status(h)['currentRevision']
        h.mutate(STS, 'db', set_image('redis:8'))
        await h.wait_for(
            lambda: sts_status(h).get('updatedReplicas') == 1 and sts_status(h).get('readyReplicas') == 3,
            'the highest pod updated',
        )
        await h.settle(0.15)
        new = sts_status(h)['updateRevision']
        # partition 2 is an index from start: only index 2, ordinal 5, takes the update.
        assert pod_revisions(h) == {'db-3': old, 'db-4': old, 'db-5': new}

        def scale_down(obj):
            obj['spec']['replicas'] = 2
            obj['spec']['updateStrategy']['rollingUpdate']['partition'] = 0

        h.mutate(STS, 'db', scale_down)
        await h.wait_for(lambda: settled(h), 'two pods at the new revision')
        assert sorted(pod_revisions(h)) == ['db-3', 'db-4']
        assert set(pod_revisions(h).values()) == {new}

    simulate(scenario)


def test_moving_ordinals_start_replaces_pods_outside_the_new_range():
    async def scenario(h):
        h.create(STS, statefulset(replicas=2))
        await h.wait_for(lambda: settled(h), 'db-0 and db-1')

        def move(obj):
            obj['spec']['ordinals'] = {'start': 1}

        h.mutate(STS, 'db', move)
        await h.wait_for(lambda: settled(h) and sorted(pod_revisions(h)) == ['db-1', 'db-2'], 'db-1 and db-2')

    simulate(scenario)


def test_max_unavailable_replaces_that_many_pods_at_once_highest_first_above_the_partition():
    async def scenario(h):
        h.create(
            STS,
            statefulset(
                replicas=5,
                ordinals={'start': 2},
                podManagementPolicy='Parallel',
                updateStrategy={'type': 'RollingUpdate',
                                'rollingUpdate': {'partition': 1, 'maxUnavailable': 2}},
            ),
        )
        await h.wait_for(lambda: settled(h), 'five pods')
        old = sts_status(h)['currentRevision']
        start = h.mgr.clock()
        h.mutate(STS, 'db', set_image('redis:8'))
        await h.wait_for(
            lambda: sts_status(h).get('updatedReplicas') == 4 and sts_status(h).get('readyReplicas') == 5,
            'the four pods above the partition',
        )
        await h.settle(0.15)
        new = sts_status(h)['updateRevision']
        assert pod_revisions(h) == {'db-2': old, 'db-3': new, 'db-4': new, 'db-5': new, 'db-6': new}
        deleted = [e['pod'] for e in h.mgr.readiness_log if e['t'] >= start and e['event'] == 'deleted']
        # Two at a time, from the highest ordinal down; index 0 (ordinal 2) is below the partition.
        assert sorted(deleted[:2]) == ['db-5', 'db-6'] and sorted(deleted[2:]) == ['db-3', 'db-4']
        timeline = workload_timeline(h.mgr.readiness_log, 'default', 'StatefulSet', 'db', since=start)
        assert min(a for _t, _p, a in timeline) == 3

    simulate(scenario)


def test_max_unavailable_one_keeps_the_update_one_pod_at_a_time():
    async def scenario(h):
        h.create(
            STS,
            statefulset(replicas=3,
                        updateStrategy={'type': 'RollingUpdate', 'rollingUpdate': {'maxUnavailable': 1}}),
        )
        await h.wait_for(lambda: settled(h), 'three pods')
        start = h.mgr.clock()
        h.mutate(STS, 'db', set_image('redis:8'))
        await h.wait_for(lambda: settled(h) and sts_status(h).get('updatedReplicas') == 3, 'the update')
        timeline = workload_timeline(h.mgr.readiness_log, 'default', 'StatefulSet', 'db', since=start)
        assert min(a for _t, _p, a in timeline) == 2

    simulate(scenario)

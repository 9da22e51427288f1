"""The Deployment controller, driven through the store with the controller manager running."""

import pytest

from tests.kubesim.timeline import extremes, workload_timeline
from tests.kubesim.controllers.deployment import HASH_LABEL, REVISION, REVISION_HISTORY

from .harness import deployment, set_image, simulate

pytestmark = pytest.mark.kubesim

DEPLOY = 'apps/deployments'
RS = 'apps/replicasets'


def status(h, name='web'):
    return h.get(DEPLOY, name).get('status') or {}


def rolled_out(h, name='web'):
    d = h.get(DEPLOY, name)
    s = d.get('status') or {}
    want = d['spec']['replicas']
    return (
        s.get('observedGeneration', 0) >= d['metadata']['generation']
        and s.get('updatedReplicas', 0) == want
        and s.get('replicas', 0) == want
        and s.get('availableReplicas', 0) == want
    )


def condition(obj, cond_type):
    return next(
        (c for c in (obj.get('status') or {}).get('conditions') or [] if c['type'] == cond_type), None
    )


def revisions(h, name='web'):
    """{revision: ReplicaSet} of the Deployment's ReplicaSets."""
    return {
        int(rs['metadata']['annotations'][REVISION]): rs
        for rs in h.list(RS)
        if rs['metadata']['ownerReferences'][0]['name'] == name
    }


async def roll(h, image, name='web'):
    h.mutate(DEPLOY, name, set_image(image))
    await h.wait_for(lambda: rolled_out(h, name), f'{name} to roll out {image}')


def test_first_rollout_creates_a_hashed_replicaset_and_full_status():
    async def scenario(h):
        h.create(DEPLOY, deployment(replicas=3))
        await h.wait_for(lambda: rolled_out(h), 'the first rollout')
        d = h.get(DEPLOY, 'web')
        [rs] = h.list(RS)
        pod_hash = rs['metadata']['labels'][HASH_LABEL]
        assert rs['metadata']['name'] == f'web-{pod_hash}'
        assert 1 <= len(pod_hash) <= 10 and pod_hash.isalnum()
        assert rs['spec']['selector']['matchLabels'] == {'app': 'web', HASH_LABEL: pod_hash}
        assert rs['spec']['template']['metadata']['labels'] == {'app': 'web', HASH_LABEL: pod_hash}
        ref = rs['metadata']['ownerReferences'][0]
        assert (ref['kind'], ref['name'], ref['uid'], ref['controller']) == (
            'Deployment',
            'web',
            d['metadata']['uid'],
            True,
        )
        assert rs['metadata']['annotations'] == {
            REVISION: '1',
            'deployment.kubernetes.io/desired-replicas': '3',
            'deployment.kubernetes.io/max-replicas': '4',
        }
        assert d['metadata']['annotations'][REVISION] == '1'
        # The controller's revision annotation is not a new generation.
        assert d['metadata']['generation'] == 1
        s = d['status']
        assert {
            k: s.get(k)
            for k in (
                'observedGeneration',
                'replicas',
                'updatedReplicas',
                'readyReplicas',
                'availableReplicas',
            )
        } == {
            'observedGeneration': 1,
            'replicas': 3,
            'updatedReplicas': 3,
            'readyReplicas': 3,
            'availableReplicas': 3,
        }
        assert 'unavailableReplicas' not in s
        assert condition(d, 'Available')['reason'] == 'MinimumReplicasAvailable'
        progressing = condition(d, 'Progressing')
        assert progressing['status'] == 'True' and progressing['reason'] == 'NewReplicaSetAvailable'
        assert progressing['message'] == f'ReplicaSet "web-{pod_hash}" has successfully progressed.'
        pods = h.list('/pods')
        assert len(pods) == 3
        for pod in pods:
            assert pod['metadata']['name'].startswith(f'web-{pod_hash}-')
            assert len(pod['metadata']['name']) == len(f'web-{pod_hash}-') + 5
            assert pod['metadata']['labels'] == {'app': 'web', HASH_LABEL: pod_hash}
            assert pod['metadata']['ownerReferences'][0]['name'] == rs['metadata']['name']

    simulate(scenario)


def test_template_hash_is_deterministic():
    async def scenario(h):
        h.create('/namespaces', {'metadata': {'name': 'other'}})
        h.create(DEPLOY, deployment(replicas=1))
        h.create(DEPLOY, deployment(replicas=1, namespace='other'))
        await h.wait_for(lambda: h.list(RS) and h.list(RS, 'other'), 'both ReplicaSets')
        assert h.list(RS)[0]['metadata']['name'] == h.list(RS, 'other')[0]['metadata']['name']

    simulate(scenario)


@pytest.mark.parametrize(
    'surge,unavailable,max_pods,min_available',
    [
        ('25%', '25%', 13, 8),
        (0, 1, 10, 9),
        (3, 0, 13, 10),
    ],
)
def test_rolling_update_honours_surge_and_unavailability(surge, unavailable, max_pods, min_available):
    async def scenario(h):
        spec = {
            'strategy': {
                'type': 'RollingUpdate',
                'rollingUpdate': {'maxSurge': surge, 'maxUnavailable': unavailable},
            }
        }
        h.create(DEPLOY, deployment(replicas=10, **spec))
        await h.wait_for(lambda: rolled_out(h), 'the first rollout')
        start = h.mgr.clock()
        await roll(h, 'nginx:1.26')
        timeline = workload_timeline(h.mgr.readiness_log, 'default', 'Deployment', 'web', since=start)
        assert len(timeline) > 20  # every pod was replaced: 10 created, 10 ready, 10 deleted
        peak, trough = extremes(timeline)
        assert peak <= max_pods and trough >= min_available
        # The bounds are reached, not just respected: the rollout uses its whole budget.
        assert peak == max_pods and trough == min_available
        assert timeline[-1][1:] == (10, 10)

    simulate(scenario)


def test_recreate_never_runs_old_and_new_pods_together():
    async def scenario(h):
        h.create(DEPLOY, deployment(replicas=4, strategy={'type': 'Recreate'}))
        await h.wait_for(lambda: rolled_out(h), 'the first rollout')
        old_rs = h.list(RS)[0]['metadata']['name']
        start = h.mgr.clock()
        await roll(h, 'nginx:1.26')
        new_rs = next(rs['metadata']['name'] for rs in h.list(RS) if rs['metadata']['name'] != old_rs)
        old = workload_timeline(h.mgr.readiness_log, 'default', 'ReplicaSet', old_rs, since=start)
        new = workload_timeline(h.mgr.readiness_log, 'default', 'ReplicaSet', new_rs, since=start)
        old_gone = next(t for t, pods, _a in old if pods == 0)
        first_new = min(t for t, pods, _a in new if pods > 0)
        assert old[0][1] == 4 and first_new >= old_gone
        assert new[-1][1:] == (4, 4)

    simulate(scenario)


def test_undo_reuses_the_old_replicaset_with_a_new_revision():
    async def scenario(h):
        h.create(DEPLOY, deployment(replicas=2))
        await h.wait_for(lambda: rolled_out(h), 'revision 1')
        await roll(h, 'nginx:1.26')
        await roll(h, 'nginx:1.27')
        assert sorted(revisions(h)) == [1, 2, 3]
        rs2 = revisions(h)[2]
        template = rs2['spec']['template']
        template['metadata']['labels'].pop(HASH_LABEL)

        def back_to_two(obj):
            obj['spec']['template'] = template

        h.mutate(DEPLOY, 'web', back_to_two)
        await h.wait_for(lambda: rolled_out(h) and 4 in revisions(h), 'the rollback')
        by_rev = revisions(h)
        assert sorted(by_rev) == [1, 3, 4]
        assert by_rev[4]['metadata']['name'] == rs2['metadata']['name']
        assert by_rev[4]['metadata']['annotations'][REVISION_HISTORY] == '2'
        assert h.get(DEPLOY, 'web')['metadata']['annotations'][REVISION] == '4'
        assert by_rev[4]['spec']['replicas'] == 2 and by_rev[3]['spec']['replicas'] == 0
        assert condition(h.get(DEPLOY, 'web'), 'Progressing')['reason'] == 'NewReplicaSetAvailable'

    simulate(scenario)


def test_revision_history_limit_deletes_the_oldest_replicasets():
    async def scenario(h):
        h.create(DEPLOY, deployment(replicas=1, revisionHistoryLimit=2))
        await h.wait_for(lambda: rolled_out(h), 'revision 1')
        for minor in range(2, 6):
            await roll(h, f'nginx:1.{minor}')
        await h.wait_for(lambda: sorted(revisions(h)) == [3, 4, 5], 'the history cleanup')
        await h.settle(0.1)
        assert sorted(revisions(h)) == [3, 4, 5]

    simulate(scenario)


def test_annotations_are_copied_to_the_new_replicaset_except_the_skip_list():
    async def scenario(h):
        d = deployment(replicas=1)
        d['metadata']['annotations'] = {
            'kubernetes.io/change-cause': 'first',
            'kubectl.kubernetes.io/last-applied-configuration': '{}',
            'deployment.kubernetes.io/revision-history': '7',
            'team': 'blue',
        }
        h.create(DEPLOY, d)
        await h.wait_for(lambda: rolled_out(h), 'revision 1')
        ann = revisions(h)[1]['metadata']['annotations']
        assert ann['kubernetes.io/change-cause'] == 'first' and ann['team'] == 'blue'
        assert 'kubectl.kubernetes.io/last-applied-configuration' not in ann
        assert REVISION_HISTORY not in ann

        def second(obj):
            obj['metadata']['annotations']['kubernetes.io/change-cause'] = 'second'
            set_image('nginx:2')(obj)

        h.mutate(DEPLOY, 'web', second)
        await h.wait_for(lambda: rolled_out(h) and 2 in revisions(h), 'revision 2')
        assert revisions(h)[2]['metadata']['annotations']['kubernetes.io/change-cause'] == 'second'
        assert revisions(h)[1]['metadata']['annotations']['kubernetes.io/change-cause'] == 'first'

    simulate(scenario)


def test_annotation_change_is_a_new_generation_but_not_a_revision():
    async def scenario(h):
        h.create(DEPLOY, deployment(replicas=1))
        await h.wait_for(lambda: rolled_out(h), 'revision 1')

        def annotate(obj):
            obj['metadata'].setdefault('annotations', {})['note'] = 'x'

        h.mutate(DEPLOY, 'web', annotate)
        assert h.get(DEPLOY, 'web')['metadata']['generation'] == 2
        await h.wait_for(lambda: status(h).get('observedGeneration') == 2, 'generation 2 observed')
        assert sorted(revisions(h)) == [1]
        assert revisions(h)[1]['metadata']['annotations']['note'] == 'x'

    simulate(scenario)


def test_paused_deployment_scales_but_does_not_roll_out():
    async def scenario(h):
        h.create(DEPLOY, deployment(replicas=2))
        await h.wait_for(lambda: rolled_out(h), 'revision 1')

        def pause(obj):
            obj['spec']['paused'] = True

        h.mutate(DEPLOY, 'web', pause)
        await h.wait_for(
            lambda: (
                (condition(h.get(DEPLOY, 'web'), 'Progressing') or {}).get('reason') == 'DeploymentPaused'
            ),
            'the paused condition',
        )
        cond = condition(h.get(DEPLOY, 'web'), 'Progressing')
        assert (cond['status'], cond['message']) == ('Unknown', 'Deployment is paused')
        h.mutate(DEPLOY, 'web', set_image('nginx:2'))

        def scale(obj):
            obj['spec']['replicas'] = 4

        h.mutate(DEPLOY, 'web', scale)
        await h.wait_for(
            lambda: status(h).get('availableReplicas') == 4 and status(h).get('observedGeneration') == 4,
            'the paused scale-up',
        )
        await h.settle(0.1)
        assert sorted(revisions(h)) == [1]
        assert revisions(h)[1]['spec']['replicas'] == 4
        assert status(h).get('updatedReplicas', 0) == 0  # the current template has no ReplicaSet yet

        def resume(obj):
            obj['spec']['paused'] = False

        h.mutate(DEPLOY, 'web', resume)
        await h.wait_for(lambda: rolled_out(h) and 2 in revisions(h), 'the resumed rollout')
        assert condition(h.get(DEPLOY, 'web'), 'Progressing')['reason'] == 'NewReplicaSetAvailable'

    simulate(scenario)


def test_resume_sets_the_resumed_condition_before_progress():
    async def scenario(h):
        h.create(DEPLOY, deployment(replicas=1, paused=True))
        await h.wait_for(
            lambda: (
                (condition(h.get(DEPLOY, 'web'), 'Progressing') or {}).get('reason') == 'DeploymentPaused'
            ),
            'the paused condition',
        )
        assert h.list(RS) == []  # a Deployment created paused never rolls out

        seen = []

        def watch(_typ, resource, obj):
            cond = condition(obj, 'Progressing') if resource == DEPLOY else None
            if cond and (not seen or seen[-1] != cond['reason']):
                seen.append(cond['reason'])

        h.store.listeners.append(watch)

        def resume(obj):
            obj['spec']['paused'] = False

        h.mutate(DEPLOY, 'web', resume)
        await h.wait_for(lambda: rolled_out(h), 'the resumed rollout')
        # The first event is the resume itself, still carrying the paused condition.
        assert seen[:2] == ['DeploymentPaused', 'DeploymentResumed']
        assert seen[-1] == 'NewReplicaSetAvailable'
        assert 'NewReplicaSetCreated' in seen

    simulate(scenario)


def test_progress_deadline_is_exceeded_on_the_scaled_clock():
    async def scenario(h):
        h.create(DEPLOY, deployment(replicas=4, progressDeadlineSeconds=30))
        await h.wait_for(lambda: rolled_out(h), 'revision 1')
        start = h.mgr.clock()
        h.mutate(DEPLOY, 'web', set_image('registry.invalid/broken:1'))

        def timed_out():
            cond = condition(h.get(DEPLOY, 'web'), 'Progressing') or {}
            return cond.get('reason') == 'ProgressDeadlineExceeded' and cond

        cond = await h.wait_for(timed_out, 'ProgressDeadlineExceeded', timeout=10)
        elapsed = h.mgr.clock() - start
        # 30 s of controller time at time_scale 20 is 1.5 s of real time.
        assert 1.4 <= elapsed < 4
        assert cond['status'] == 'False'
        new_rs = revisions(h)[2]['metadata']['name']
        assert cond['message'] == f'ReplicaSet "{new_rs}" has timed out progressing.'
        s = status(h)
        # maxUnavailable 1 (25% of 4 rounded down), maxSurge 1: 3 old pods stay, 2 new never start.
        assert s['availableReplicas'] == 3 and s['updatedReplicas'] == 2 and s['unavailableReplicas'] == 2
        assert condition(h.get(DEPLOY, 'web'), 'Available')['status'] == 'True'
        for pod in h.list('/pods', selector=f'{HASH_LABEL}={new_rs.rsplit("-", 1)[1]}'):
            assert pod['status']['phase'] == 'Pending'
            waiting = pod['status']['containerStatuses'][0]['state']['waiting']
            assert waiting['reason'] == 'ImagePullBackOff'

    simulate(scenario, time_scale=20, fail_image=r'registry\.invalid/')


def test_scaling_a_stalled_rollout_is_proportional():
    async def scenario(h):
        spec = {'strategy': {'type': 'RollingUpdate', 'rollingUpdate': {'maxSurge': 3, 'maxUnavailable': 2}}}
        h.create(DEPLOY, deployment(replicas=10, **spec))
        await h.wait_for(lambda: rolled_out(h), 'revision 1')
        h.mutate(DEPLOY, 'web', set_image('broken:1'))
        await h.wait_for(
            lambda: sorted(rs['spec']['replicas'] for rs in revisions(h).values()) == [5, 8],
            'the stalled rollout (8 old, 5 new)',
        )

        def scale(obj):
            obj['spec']['replicas'] = 15

        h.mutate(DEPLOY, 'web', scale)
        # The example of the Kubernetes documentation: the 5 extra replicas go 3 to the old
        # ReplicaSet and 2 to the new one, in proportion to their sizes.
        await h.wait_for(
            lambda: (revisions(h)[1]['spec']['replicas'], revisions(h)[2]['spec']['replicas']) == (11, 7),
            'the proportional scale (11 old, 7 new)',
        )
        await h.settle(0.1)
        assert (revisions(h)[1]['spec']['replicas'], revisions(h)[2]['spec']['replicas']) == (11, 7)

    simulate(scenario, fail_image='broken')


def test_orphan_replicaset_matching_the_selector_is_adopted():
    async def scenario(h):
        d = deployment(replicas=2)
        orphan = {
            'apiVersion': 'apps/v1',
            'kind': 'ReplicaSet',
            'metadata': {'name': 'stray', 'namespace': 'default', 'labels': {'app': 'web'}},
            'spec': {
                'replicas': 0,
                'selector': {'matchLabels': {'app': 'web', 'x': 'y'}},
                'template': {
                    'metadata': {'labels': {'app': 'web', 'x': 'y'}},
                    'spec': {'containers': [{'name': 'app', 'image': 'old:1'}]},
                },
            },
        }
        h.create(RS, orphan)
        h.create(DEPLOY, d)
        await h.wait_for(lambda: rolled_out(h), 'the rollout')
        stray = h.get(RS, 'stray')
        ref = stray['metadata']['ownerReferences'][0]
        assert (ref['kind'], ref['name'], ref['controller']) == ('Deployment', 'web', True)

    simulate(scenario)


def test_deleting_the_deployment_collects_replicasets_and_pods():
    async def scenario(h):
        h.create(DEPLOY, deployment(replicas=2))
        await h.wait_for(lambda: rolled_out(h), 'the rollout')
        h.delete(DEPLOY, 'web')
        assert h.list(RS) == []
        # The pods are deleted gracefully: they go once their containers stopped (stop_delay).
        terminating = h.list('/pods')
        assert len(terminating) == 2 and all(p['metadata'].get('deletionTimestamp') for p in terminating)
        await h.wait_for(lambda: h.list('/pods') == [], 'the pods to be gone')

    simulate(scenario)

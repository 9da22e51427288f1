"""ReplicaSet and ReplicationController controllers."""

import pytest

from .harness import simulate

pytestmark = pytest.mark.kubesim

RC = '/replicationcontrollers'
RS = 'apps/replicasets'


def rc(name='frontend', replicas=3, image='nginx:1.25'):
    return {
        'apiVersion': 'v1',
        'kind': 'ReplicationController',
        'metadata': {'name': name, 'namespace': 'default'},
        'spec': {
            'replicas': replicas,
            'template': {
                'metadata': {'labels': {'app': name}},
                'spec': {'containers': [{'name': 'app', 'image': image}]},
            },
        },
    }


def orphan_pod(name, labels, image='nginx:1.25'):
    return {
        'apiVersion': 'v1',
        'kind': 'Pod',
        'metadata': {'name': name, 'namespace': 'default', 'labels': labels},
        'spec': {'containers': [{'name': 'app', 'image': image}]},
    }


def ready_count(h, resource, name):
    return (h.get(resource, name).get('status') or {}).get('readyReplicas', 0)


def test_rc_creates_owned_pods_and_reports_status():
    async def scenario(h):
        created = h.create(RC, rc(replicas=3))
        assert created['spec']['selector'] == {'app': 'frontend'}  # defaulted from the template
        await h.wait_for(lambda: ready_count(h, RC, 'frontend') == 3, '3 ready pods')
        pods = h.list('/pods')
        assert len(pods) == 3
        for pod in pods:
            assert pod['metadata']['name'].startswith('frontend-') and len(pod['metadata']['name']) == 14
            ref = pod['metadata']['ownerReferences'][0]
            assert (ref['kind'], ref['apiVersion'], ref['uid']) == (
                'ReplicationController',
                'v1',
                created['metadata']['uid'],
            )
            assert pod['metadata']['labels'] == {'app': 'frontend'}
        assert h.get(RC, 'frontend')['status'] == {
            'replicas': 3,
            'fullyLabeledReplicas': 3,
            'readyReplicas': 3,
            'availableReplicas': 3,
            'observedGeneration': 1,
        }

    simulate(scenario)


def test_rc_scales_up_and_down():
    async def scenario(h):
        h.create(RC, rc(replicas=2))
        await h.wait_for(lambda: ready_count(h, RC, 'frontend') == 2, '2 ready pods')

        def scale(n):
            def change(obj):
                obj['spec']['replicas'] = n

            return change

        h.mutate(RC, 'frontend', scale(5))
        await h.wait_for(lambda: ready_count(h, RC, 'frontend') == 5, '5 ready pods')
        h.mutate(RC, 'frontend', scale(1))
        await h.wait_for(
            lambda: len(h.list('/pods')) == 1 and h.get(RC, 'frontend')['status']['replicas'] == 1,
            'the scale-down to 1',
        )
        assert h.get(RC, 'frontend')['status']['observedGeneration'] == 3

    simulate(scenario)


def test_rc_adopts_orphans_and_releases_pods_that_stop_matching():
    async def scenario(h):
        h.create('/pods', orphan_pod('stray', {'app': 'frontend'}))
        h.create(RC, rc(replicas=2))
        await h.wait_for(lambda: ready_count(h, RC, 'frontend') == 2, '2 ready pods')
        pods = h.list('/pods')
        assert len(pods) == 2  # the orphan counts as one of the two
        stray = h.get('/pods', 'stray')
        assert stray['metadata']['ownerReferences'][0]['name'] == 'frontend'

        def relabel(obj):
            obj['metadata']['labels'] = {'app': 'debugging'}

        h.mutate('/pods', 'stray', relabel)
        await h.wait_for(
            lambda: (
                not h.get('/pods', 'stray')['metadata'].get('ownerReferences')
                and len(h.list('/pods', selector='app=frontend')) == 2
            ),
            'the release and a replacement',
        )

    simulate(scenario)


def test_scale_down_deletes_pods_that_are_not_ready_first():
    async def scenario(h):
        h.create(RC, rc(replicas=3))
        await h.wait_for(lambda: ready_count(h, RC, 'frontend') == 3, '3 ready pods')
        # An orphan that can never start, then the RC has one pod too many.
        h.create('/pods', orphan_pod('zzz-broken', {'app': 'frontend'}, image='broken:1'))
        await h.wait_for(lambda: h.get('/pods', 'zzz-broken') is None, 'the not-ready pod to go first')
        assert len(h.list('/pods')) == 3 and ready_count(h, RC, 'frontend') == 3

    simulate(scenario, fail_image='^broken')


def test_replicaset_min_ready_seconds_delays_availability_on_the_scaled_clock():
    async def scenario(h):
        rs = {
            'apiVersion': 'apps/v1',
            'kind': 'ReplicaSet',
            'metadata': {'name': 'slow', 'namespace': 'default'},
            'spec': {
                'replicas': 2,
                'minReadySeconds': 20,
                'selector': {'matchLabels': {'app': 'slow'}},
                'template': {
                    'metadata': {'labels': {'app': 'slow'}},
                    'spec': {'containers': [{'name': 'app', 'image': 'nginx:1'}]},
                },
            },
        }
        h.create(RS, rs)
        await h.wait_for(lambda: ready_count(h, RS, 'slow') == 2, '2 ready pods')
        assert h.get(RS, 'slow')['status'].get('availableReplicas', 0) == 0
        await h.wait_for(lambda: h.get(RS, 'slow')['status'].get('availableReplicas') == 2, 'availability')
        available_at = h.mgr.clock()
        last_ready = max(e['t'] for e in h.mgr.readiness_log if e['event'] == 'ready')
        # 20 s of controller time at time_scale 40 is half a second.
        assert 0.5 <= available_at - last_ready < 2.5

    simulate(scenario, time_scale=40)


COST = 'controller.kubernetes.io/pod-deletion-cost'


def test_scale_down_deletes_the_lowest_pod_deletion_cost_first():
    async def scenario(h):
        h.create(RC, rc(replicas=3))
        await h.wait_for(lambda: ready_count(h, RC, 'frontend') == 3, '3 ready pods')
        controller = next(c for c in h.mgr.controllers if c.resource == RC)
        # The pod the other rules would delete first gets the highest cost: it must survive.
        order = [p['metadata']['name'] for p in sorted(h.list('/pods'), key=controller.ranking())]
        for cost, name in zip(('100', '-7', '3'), order):
            def annotate(obj, cost=cost):
                obj['metadata'].setdefault('annotations', {})[COST] = cost
            h.mutate('/pods', name, annotate)

        def scale(obj):
            obj['spec']['replicas'] = 1
        h.mutate(RC, 'frontend', scale)
        await h.wait_for(lambda: len(h.list('/pods')) == 1, 'the scale-down to 1')
        assert [p['metadata']['name'] for p in h.list('/pods')] == [order[0]]

    simulate(scenario)


def _ranked_pod(name, node, labels, owner_uid, cost=None):
    pod = orphan_pod(name, labels)
    pod['metadata']['uid'] = f'uid-{name}'
    pod['metadata']['ownerReferences'] = [{'apiVersion': 'apps/v1', 'kind': 'ReplicaSet', 'name': 'x',
                                           'uid': owner_uid, 'controller': True}]
    if cost is not None:
        pod['metadata']['annotations'] = {COST: cost}
    pod['spec']['nodeName'] = node
    pod['status'] = {'phase': 'Running', 'conditions': [{'type': 'Ready', 'status': 'True'}]}
    return pod


def _replicaset(name, template_hash, controller_uid=None):
    labels = {'app': 'web', 'pod-template-hash': template_hash}
    meta = {'name': name, 'namespace': 'default', 'uid': f'uid-{name}'}
    if controller_uid:
        meta['ownerReferences'] = [{'apiVersion': 'apps/v1', 'kind': 'Deployment', 'name': 'web',
                                    'uid': controller_uid, 'controller': True}]
    return {'apiVersion': 'apps/v1', 'kind': 'ReplicaSet', 'metadata': meta,
            'spec': {'replicas': 2, 'selector': {'matchLabels': labels},
                     'template': {'metadata': {'labels': labels},
                                  'spec': {'containers': [{'name': 'app', 'image': 'nginx'}]}}}}


@pytest.mark.parametrize('controlled', [True, False])
def test_ranking_prefers_pods_doubled_up_with_their_siblings_pods(controlled):
    from .harness import Harness

    h = Harness()
    controller = next(c for c in h.mgr.controllers if c.resource == RS)
    old = _replicaset('web-a', 'a', 'uid-deploy' if controlled else None)
    new = _replicaset('web-b', 'b', 'uid-deploy' if controlled else None)
    old_labels = old['spec']['selector']['matchLabels']
    new_labels = new['spec']['selector']['matchLabels']
    pods = [_ranked_pod('web-a-zzz', 'node-1', old_labels, 'uid-web-a'),
            _ranked_pod('web-a-aaa', 'node-2', old_labels, 'uid-web-a'),
            _ranked_pod('web-b-1', 'node-1', new_labels, 'uid-web-b'),
            _ranked_pod('web-b-2', 'node-1', new_labels, 'uid-web-b')]
    for obj in (old, new):
        h.store.objects[('apps/replicasets', 'default', obj['metadata']['name'])] = obj
    for pod in pods:
        h.store.objects[('/pods', 'default', pod['metadata']['name'])] = pod
    h.mgr.index.rebuild()

    on_node = controller.pods_per_node(old)
    assert on_node == ({'node-1': 3, 'node-2': 1} if controlled else {})
    first = sorted(pods[:2], key=controller.ranking(on_node))[0]
    # Co-location counts only among the pods of objects sharing a controller; the name breaks ties.
    assert first['metadata']['name'] == ('web-a-zzz' if controlled else 'web-a-aaa')
    # A lower deletion cost outranks co-location.
    pods[1]['metadata']['annotations'] = {COST: '-1'}
    first = sorted(pods[:2], key=controller.ranking(on_node))[0]
    assert first['metadata']['name'] == 'web-a-aaa'


@pytest.mark.parametrize('text, cost', [('5', 5), ('+5', 5), ('-2147483648', -2**31),
                                        ('2147483647', 2**31 - 1), ('2147483648', 0), (' 5', 0),
                                        ('1_0', 0), ('5.0', 0), ('', 0), ('x', 0)])
def test_deletion_cost_is_a_base_10_int32(text, cost):
    from tests.kubesim.controllers.replicaset import deletion_cost

    assert deletion_cost({'metadata': {'annotations': {COST: text}}}) == cost

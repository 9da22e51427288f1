"""Several workloads at once (label_selectors), namespaces, and check mode's zero writes."""

import pytest

from ..conftest import ONE_OF_EACH, Kube, read_log, task, workload

pytestmark = pytest.mark.integration


def names(result):
    return sorted(w['name'] for w in result['workloads'])


def test_label_selectors_and_namespaces(kubesim_factory, play, tmp_path):
    sim = kubesim_factory()
    kube = Kube(sim.kubeconfig)
    kube.request('POST', '/api/v1/namespaces', {'apiVersion': 'v1', 'kind': 'Namespace',
                                                 'metadata': {'name': 'shop'}})
    for name, tier in (('a', 'front'), ('b', 'front'), ('c', 'back')):
        kube.create(workload('Deployment', name, labels={'tier': tier}))
    kube.create(workload('StatefulSet', 'front-db', labels={'tier': 'front'}))
    kube.create(workload('Deployment', 'a', labels={'tier': 'front'}, ns='shop'))
    for name in ('a', 'b', 'c'):
        kube.rolled_out('Deployment', name)
    kube.rolled_out('Deployment', 'a', ns='shop')
    shop_kubeconfig = sim.write_kubeconfig(tmp_path / 'shop-kubeconfig', namespace='shop')
    sim.kubeconfig = str(tmp_path / 'kubeconfig')  # keep using the default-namespace one below
    sim.write_kubeconfig(sim.kubeconfig)

    front = {'kind': 'Deployment', 'label_selectors': ['tier=front']}
    tasks = [
        task('image front', 'rollout_image', **front, images={'app': 'nginx:2'}),
        task('status front', 'rollout_status', **front, wait_timeout=60),
        task('history front', 'rollout_history', **front),
        task('and-ed selectors', 'rollout_history', kind='Deployment',
             label_selectors=['tier=front', 'app=b']),
        task('set-based selector', 'rollout_history', kind='Deployment',
             label_selectors=['tier in (front,back)', 'app!=a']),
        task('nothing selected', 'rollout_undo', kind='Deployment', label_selectors=['tier=none']),
        task('restart front', 'rollout_restart', **front, wait=True, wait_timeout=60),
        task('image front again', 'rollout_image', **front, images={'app': 'nginx:2'}),
        task('other namespace', 'rollout_history', kind='Deployment', name='a', namespace='shop'),
        task('context namespace', 'rollout_history', kind='Deployment', name='a', kubeconfig=shop_kubeconfig),
        task('statefulsets front', 'rollout_history', kind='StatefulSet', label_selectors=['tier=front']),
    ]
    res = play(sim, tasks)
    image = res.ok('image front')
    assert image['changed'] and names(image) == ['a', 'b']
    assert all(w['changed'] and w['images'] == {'app': 'nginx:2'} for w in image['workloads'])
    status = res.ok('status front')
    assert names(status) == ['a', 'b'] and all(w['done'] for w in status['workloads'])
    history = res.ok('history front')
    assert all([r['revision'] for r in w['revisions']] == [1, 2] for w in history['workloads'])
    assert names(res.ok('and-ed selectors')) == ['b']
    assert names(res.ok('set-based selector')) == ['b', 'c']
    nothing = res.ok('nothing selected')
    assert nothing['workloads'] == [] and nothing['changed'] is False
    restart = res.ok('restart front')
    assert names(restart) == ['a', 'b'] and all(w['status']['done'] for w in restart['workloads'])
    again = res.ok('image front again')
    assert again['changed'] is False and [w['changed'] for w in again['workloads']] == [False, False]
    for name in ('other namespace', 'context namespace'):
        shop = res.ok(name)['workloads'][0]
        assert shop['namespace'] == 'shop' and [r['revision'] for r in shop['revisions']] == [1]
    assert names(res.ok('statefulsets front')) == ['front-db']
    # untouched: the back tier, and the same-named Deployment in another namespace
    assert kube.history_numbers('Deployment', kube.get('Deployment', 'c')) == [1]
    assert kube.history_numbers('Deployment', kube.get('Deployment', 'a', ns='shop')) == [1]


def test_check_mode_writes_nothing(kubesim_factory, play, tmp_path):
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(request_log=log)
    kube = Kube(sim.kubeconfig)
    kinds = ONE_OF_EACH
    kube.create_rolled_out([workload(kind, name, image='app:1') for kind, name in kinds.items()])
    for kind, name in kinds.items():
        new_image = {'containers': [{'name': 'app', 'image': 'app:2'}]}
        kube.patch(kind, name, {'spec': {'template': {'spec': new_image}}})
    before = {}
    for kind, name in kinds.items():
        kube.rolled_out(kind, name)
        before[kind] = kube.get(kind, name)
    start = len(read_log(log))

    tasks = []
    for kind, name in kinds.items():
        W = {'kind': kind, 'name': name}
        tasks += [
            task(f'{kind} image', 'rollout_image', **W, images={'app': 'app:3'}, change_cause='three'),
            task(f'{kind} restart', 'rollout_restart', **W, wait=True),
            task(f'{kind} undo', 'rollout_undo', **W, wait=True),
            task(f'{kind} undo to 1', 'rollout_undo', **W, to_revision=1),
        ]
    tasks += [task('pause', 'rollout_pause', kind='Deployment', name='web', wait=True),
              task('restart all', 'rollout_restart', kind='Deployment', label_selectors=['app=web'])]
    res = play(sim, tasks, check=True, diff=True)

    for kind in kinds:
        for verb in ('image', 'restart', 'undo', 'undo to 1'):
            r = res.ok(f'{kind} {verb}')
            assert r['changed'] is True and r['diff'], (kind, verb)
            assert 'status' not in r['workloads'][0]  # no waiting in check mode
        assert res.ok(f'{kind} undo')['workloads'][0]['to_revision'] == 1
        image_diff = res.ok(f'{kind} image')['diff'][0]
        assert image_diff['after']['metadata']['annotations']['kubernetes.io/change-cause'] == 'three'
        assert image_diff['after']['spec']['template']['spec']['containers'][0]['image'] == 'app:3'
    assert res.ok('pause')['diff'][0]['after'] == {'spec': {'paused': True}}
    assert res.ok('restart all')['changed']

    requests = read_log(log)[start:]
    assert requests, 'the request log recorded nothing'
    writes = [r for r in requests if r['method'] != 'GET' and not r['dry_run']]
    assert writes == []
    # the API server answered check mode: one dry run per changing task
    assert sum(1 for r in requests if r['dry_run']) == 4 * len(kinds) + 2
    # The workloads are as they were (their controllers may still write status, e.g. once the old
    # pods have finished terminating: the resourceVersion is no measure of our writes).
    for kind, name in kinds.items():
        after = kube.get(kind, name)
        for key in ('generation', 'annotations', 'labels'):
            assert after['metadata'].get(key) == before[kind]['metadata'].get(key), (kind, key)
        assert after['spec'] == before[kind]['spec'], kind


def test_a_refusal_for_one_target_changes_none(kubesim_factory, play):
    # Judged from the objects already read, before the first write: a task failing for one of
    # several workloads must not leave the others half done.
    sim = kubesim_factory()
    kube = Kube(sim.kubeconfig)
    kube.create(workload('Deployment', 'a', labels={'tier': 'mix'}))
    kube.create(workload('Deployment', 'b', labels={'tier': 'mix'},
                         extra_template={'spec': {'containers': [{'name': 'other', 'image': 'nginx:1.25'}]}}))
    kube.create(workload('Deployment', 'c', labels={'tier': 'mix'}))
    kube.patch('Deployment', 'c', {'spec': {'paused': True}})
    before = {n: kube.get('Deployment', n)['spec'] for n in 'abc'}
    mix = {'kind': 'Deployment', 'label_selectors': ['tier=mix']}
    res = play(sim, [
        task('image', 'rollout_image', **mix, images={'app': 'nginx:2'}),
        task('restart', 'rollout_restart', **mix),
        task('undo', 'rollout_undo', **mix),
    ])
    assert 'unable to find container named "app" (containers: other)' in res.failed('image')['msg']
    assert "can't restart paused deployment" in res.failed('restart')['msg']
    assert 'cannot rollback a paused deployment' in res.failed('undo')['msg']
    for title in ('image', 'restart', 'undo'):
        assert res[title]['changed'] is False and res[title]['workloads'] == []
    assert {n: kube.get('Deployment', n)['spec'] for n in 'abc'} == before


def test_status_over_several_watches_only_the_workloads_still_rolling_out(kubesim_factory, play, tmp_path):
    # One LIST reads them all; the complete ones are answered from it, and only the one whose
    # rollout is under way gets a WATCH (by its name), on both paths alike.
    log = tmp_path / 'requests.log'
    sim = kubesim_factory(ready_delay=3.0, request_log=log)
    kube = Kube(sim.kubeconfig)
    for name in ('a', 'b', 'c'):
        kube.create(workload('Deployment', name, labels={'tier': 'mix'}))
    for name in ('a', 'b', 'c'):
        kube.rolled_out('Deployment', name)
    mix = {'kind': 'Deployment', 'label_selectors': ['tier=mix']}
    for path, env in (('controller', {}), ('module', {'KUBEOPS_ROLLOUT_MODULE_PATH': '1'})):
        image = 'nginx:%s' % path
        res = play(sim, [
            task('image b', 'rollout_image', kind='Deployment', name='b', images={'app': image}),
            # No early-stop look at b's pods while it rolls out: only the status requests remain.
            task('status', 'rollout_status', **mix, wait_timeout=60, fail_fast_seconds=0),
        ], extra_env=dict(env, KUBEOPS_REQUEST_LOG=str(log)))
        status = res.ok('status')
        assert names(status) == ['a', 'b', 'c'] and all(w['done'] for w in status['workloads']), path
        sent = [(e['method'], e['query']) for e in status['_requests']]
        assert sent[0][0] == 'GET' and 'labelSelector=tier%3Dmix' in sent[0][1], (path, sent)
        watches = [q for method, q in sent[1:] if 'watch=' in q]
        assert watches and all('metadata.name%3Db' in q for q in watches), (path, sent)
        assert len(watches) == len(sent) - 1, (path, sent)  # nothing but the LIST and b's watch
        assert kube.get('Deployment', 'b')['spec']['template']['spec']['containers'][0]['image'] == image

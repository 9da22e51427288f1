"""What the module documentation promises, each through real ansible-playbook runs against kubesim:
checks made before the first write, check mode answered by the API server (dryRun=All), return
values (revisions before/after, replica counts, canonical kinds), one diff shape, the change-cause
an undo puts back, and the re-run behaviour the docs state for each kind."""

import pytest

from ..conftest import Kube, entry, image_of, task, workload

pytestmark = pytest.mark.integration

CAUSE = 'kubernetes.io/change-cause'
ON_DELETE = {'updateStrategy': {'type': 'OnDelete'}}


def on_delete(kind, name):
    obj = workload(kind, name)
    obj['spec'].update(ON_DELETE)
    return obj


def test_what_waiting_cannot_survive_is_refused_before_any_write(kubesim_factory, play):
    sim = kubesim_factory(ready_delay=0.05)
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web'), on_delete('StatefulSet', 'db'),
                            on_delete('DaemonSet', 'agent')])
    kube.patch('Deployment', 'web', {'spec': {'paused': True}})
    before = {(k, n): (kube.get(k, n)['metadata']['generation'], kube.get(k, n)['spec'])
              for k, n in (('Deployment', 'web'), ('StatefulSet', 'db'), ('DaemonSet', 'agent'))}
    res = play(sim, [
        task('image paused', 'rollout_image', kind='Deployment', name='web', images={'app': 'nginx:2'},
             wait=True),
        task('image paused unchanged', 'rollout_image', kind='Deployment', name='web',
             images={'app': 'nginx:1.25'}, wait=True),
        task('undo OnDelete', 'rollout_undo', kind='StatefulSet', name='db', wait=True),
        task('image OnDelete', 'rollout_image', kind='DaemonSet', name='agent', images={'app': 'nginx:2'},
             wait=True),
        task('restart OnDelete', 'rollout_restart', kind='StatefulSet', name='db', wait=True),
        task('restart OnDelete check', 'rollout_restart', kind='StatefulSet', name='db', wait=True,
             check_mode=True),
    ])
    msg = res.failed('image paused')['msg']
    assert 'Deployment default/web is paused' in msg and 'wait: false' in msg, msg
    # no write, and the rollout is complete: nothing to refuse
    assert entry(res.ok('image paused unchanged'))['changed'] is False
    for title, label in (('undo OnDelete', 'StatefulSet default/db'),
                         ('image OnDelete', 'DaemonSet default/agent'),
                         ('restart OnDelete', 'StatefulSet default/db'),
                         ('restart OnDelete check', 'StatefulSet default/db')):
        r = res.failed(title)
        assert label in r['msg'] and 'only available for RollingUpdate strategy type' in r['msg'], r['msg']
        assert 'OnDelete' in r['msg'] and r['changed'] is False
    after = {key: (kube.get(*key)['metadata']['generation'], kube.get(*key)['spec']) for key in before}
    assert after == before


def test_an_unknown_revision_for_one_target_leaves_it_and_undoes_the_others(kubesim_factory, play):
    # As kubectl rollout undo -l: the others are rolled back, the task fails naming the one left.
    sim = kubesim_factory(ready_delay=0.05)
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'a', labels={'tier': 'x'}),
                            workload('Deployment', 'b', labels={'tier': 'x'})])
    for image in ('n:2', 'n:3'):
        kube.patch('Deployment', 'a', {'spec': {'template': {'spec': {'containers': [
            {'name': 'app', 'image': image}]}}}})
        kube.rolled_out('Deployment', 'a')
    res = play(sim, [task('undo to 2', 'rollout_undo', kind='deploy', label_selectors=['tier=x'],
                          to_revision=2)])
    r = res.failed('undo to 2')
    assert 'Deployment default/b' in r['msg'] and 'unable to find specified revision 2' in r['msg'], r['msg']
    assert [w['name'] for w in r['workloads']] == ['a'] and r['changed'] is True
    assert [f['name'] for f in r['failures']] == ['b']
    assert image_of(kube.get('Deployment', 'a')) == 'n:2'


def test_check_mode_asks_the_api_server(kubesim_factory, play):
    sim = kubesim_factory(ready_delay=0.05)
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web')])
    res = play(sim, [
        task('empty image check', 'rollout_image', kind='Deployment', name='web', images={'app': ''},
             check_mode=True, diff=True),
        task('empty image', 'rollout_image', kind='Deployment', name='web', images={'app': ''}),
    ])
    check, real = res.failed('empty image check'), res.failed('empty image')
    # Refused before any request (an empty image would be stored as "" by a PATCH), check mode alike.
    assert 'container "app" has an empty image' in check['msg'], check['msg']
    assert check['msg'] == real['msg']
    assert 'diff' not in check and check['changed'] is False


def test_check_mode_gets_the_api_servers_refusal(kubesim_factory, play):
    sim = kubesim_factory(ready_delay=0.05)
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web')])
    # A change-cause over the API server's 256 KiB limit for annotations: only the server says no.
    cause = 'x' * (256 * 1024 + 1)
    res = play(sim, [
        task('huge cause check', 'rollout_image', kind='Deployment', name='web', images={'app': 'nginx:2'},
             change_cause=cause, check_mode=True, diff=True),
        task('huge cause', 'rollout_image', kind='Deployment', name='web', images={'app': 'nginx:2'},
             change_cause=cause),
    ])
    check, real = res.failed('huge cause check'), res.failed('huge cause')
    assert '422' in check['msg'] and 'metadata.annotations' in check['msg'], check['msg'][:500]
    assert check['msg'] == real['msg']
    assert 'diff' not in check and check['changed'] is False
    assert image_of(kube.get('Deployment', 'web')) != 'nginx:2'


def test_return_values_kinds_counts_and_one_diff_shape(kubesim_factory, play):
    sim = kubesim_factory(ready_delay=0.05)
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web', replicas=3), workload('StatefulSet', 'db'),
                            workload('DaemonSet', 'agent')])
    res = play(sim, [
        task('image', 'rollout_image', kind='deploy', name='web', images={'app': 'nginx:2'},
             change_cause='two', wait=True, diff=True),
        task('image no cause', 'rollout_image', kind='STS', name='db', images={'app': 'nginx:2'}, diff=True,
             wait=True, read_revisions=True),
        task('image empty cause', 'rollout_image', kind='daemonsets.apps', name='agent',
             images={'app': 'nginx:2'}, change_cause='', wait=True),
        task('restart', 'rollout_restart', kind='statefulsets', name='db', wait=True, diff=True,
             read_revisions=True),
        task('undo', 'rollout_undo', kind='Deployment', name='web', wait=True, diff=True),
        task('status deploy', 'rollout_status', kind='deployment', name='web'),
        task('status ds', 'rollout_status', kind='ds', name='agent', wait=False),
        task('pause', 'rollout_pause', name='web'),
        task('resume', 'rollout_pause', name='web', state='resumed'),
    ])
    image = entry(res.ok('image'))
    assert image['kind'] == 'Deployment'
    assert (image['revision_before'], image['revision_after']) == (1, 2)
    sts_image = entry(res.ok('image no cause'))
    assert sts_image['kind'] == 'StatefulSet'
    assert (sts_image['revision_before'], sts_image['revision_after']) == (1, 2)  # read_revisions
    ds_image = entry(res.ok('image empty cause'))  # without it: kubectl's two requests, no numbers
    assert (ds_image['revision_before'], ds_image['revision_after']) == (None, None)
    # one diff shape, with or without a change-cause: annotations and template
    for title in ('image', 'image no cause', 'restart', 'undo'):
        diff = res.ok(title)['diff'][0]
        for side in ('before', 'after'):
            assert set(diff[side]) == {'metadata', 'spec'}, (title, diff[side])
            assert set(diff[side]['metadata']) == {'annotations'} and set(diff[side]['spec']) == {'template'}
    image_diff = res.ok('image')['diff'][0]
    assert CAUSE not in image_diff['before']['metadata']['annotations']
    assert image_diff['after']['metadata']['annotations'][CAUSE] == 'two'
    assert image_diff['before_header'] == 'Deployment default/web'
    # the Deployment undo diff shows the change-cause it takes away (revision 1 had none)
    undo = res.ok('undo')
    assert CAUSE in undo['diff'][0]['before']['metadata']['annotations']
    assert CAUSE not in undo['diff'][0]['after']['metadata']['annotations']
    assert (entry(undo)['revision_before'], entry(undo)['revision_after']) == (2, 3)
    # an empty change_cause is unset: no empty annotation written
    assert CAUSE not in (kube.get('DaemonSet', 'agent')['metadata'].get('annotations') or {})
    restart = entry(res.ok('restart'))
    assert (restart['revision_before'], restart['revision_after']) == (2, 3)
    # the numbers predicted are the ones the controllers gave (the undo renumbered revision 1 as 3)
    assert kube.history_numbers('Deployment', kube.get('Deployment', 'web')) == [2, 3]
    assert kube.history_numbers('StatefulSet', kube.get('StatefulSet', 'db')) == [1, 2, 3]
    deploy = entry(res.ok('status deploy'))
    assert {k: deploy[k] for k in ('kind', 'replicas', 'updated', 'ready', 'available')} == {
        'kind': 'Deployment', 'replicas': 3, 'updated': 3, 'ready': 3, 'available': 3}
    ds = entry(res.ok('status ds'))
    assert ds['kind'] == 'DaemonSet'
    assert ds['replicas'] == ds['updated'] == ds['ready'] == ds['available'] == 3  # one per node
    assert entry(res.ok('pause'))['paused'] is True  # kind defaults to Deployment
    assert res.ok('resume')['changed'] is True


def test_status_without_wait_reports_an_unfinished_paused_rollout(kubesim_factory, play):
    sim = kubesim_factory(ready_delay=0.05, fail_image='^broken')
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web', replicas=2)])
    kube.patch('Deployment', 'web', {'spec': {'template': {'spec': {'containers': [
        {'name': 'app', 'image': 'broken:1'}]}}}})
    kube.wait('Deployment', 'web', lambda o: (o.get('status') or {}).get('updatedReplicas', 0) >= 1)
    kube.patch('Deployment', 'web', {'spec': {'paused': True}})
    res = play(sim, [task('status', 'rollout_status', kind='Deployment', name='web', wait=False),
                     task('status wait', 'rollout_status', kind='Deployment', name='web', wait=True)])
    now = entry(res.ok('status'))
    assert now['done'] is False and now['reason'] == 'Paused' and now['replicas'] == 2
    waited = res.failed('status wait')
    assert 'Deployment default/web' in waited['msg'] and 'paused' in waited['msg']


def test_statefulset_undo_restores_the_change_cause_and_reruns_behave_as_documented(kubesim_factory, play):
    sim = kubesim_factory(ready_delay=0.05)
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('StatefulSet', 'db'), workload('DaemonSet', 'agent'),
                            workload('Deployment', 'web')])
    tasks = []
    for kind, name in (('StatefulSet', 'db'), ('DaemonSet', 'agent'), ('Deployment', 'web')):
        W = {'kind': kind, 'name': name}
        tasks += [
            task(f'{kind} v2', 'rollout_image', **W, images={'app': 'nginx:2'}, change_cause='v2',
                 wait=True),
            task(f'{kind} v3', 'rollout_image', **W, images={'app': 'nginx:3'}, change_cause='v3',
                 wait=True),
            task(f'{kind} undo to 2', 'rollout_undo', **W, to_revision=2, wait=True),
            task(f'{kind} undo to 2 again', 'rollout_undo', **W, to_revision=2),
            task(f'{kind} undo previous', 'rollout_undo', **W, wait=True),
            task(f'{kind} undo previous again', 'rollout_undo', **W, wait=True),
        ]
    res = play(sim, tasks)
    for kind, name in (('StatefulSet', 'db'), ('DaemonSet', 'agent'), ('Deployment', 'web')):
        undone = entry(res.ok(f'{kind} undo to 2'))
        assert undone['changed'] and (undone['revision_before'], undone['revision_after']) == (3, 4)
        again = res[f'{kind} undo to 2 again']
        if kind == 'Deployment':
            assert again['_status'] == 'ok' and entry(again)['changed'] is False
        else:
            assert again['_status'] == 'failed', again
            assert 'existing revisions: 1, 3, 4' in again['msg'] and 'newest' in again['msg'], again['msg']
        # "previous" flips between the last two revisions: v3, then v2 again
        first, second = entry(res.ok(f'{kind} undo previous')), entry(res.ok(f'{kind} undo previous again'))
        assert first['changed'] and second['changed']
        obj = kube.get(kind, name)
        assert image_of(obj) == 'nginx:2'
        # the change-cause follows the template back (StatefulSets, DaemonSets: from the ControllerRevision)
        assert obj['metadata']['annotations'][CAUSE] == 'v2', (kind, obj['metadata']['annotations'])

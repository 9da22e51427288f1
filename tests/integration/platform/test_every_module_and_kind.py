"""Every module x kind through real ansible-playbook runs, over HTTP and over HTTPS with a token."""

import pytest

from ..conftest import Kube, entry, task, workload

pytestmark = pytest.mark.integration

TRANSPORTS = {
    'http': {},
    'https': {'tls': True, 'token': 'lifecycle-token-0123456789'},
}


@pytest.mark.parametrize('transport', sorted(TRANSPORTS))
def test_deployment_lifecycle(kubesim_factory, play, transport):
    sim = kubesim_factory(**TRANSPORTS[transport])
    kube = Kube(sim.kubeconfig)
    kube.create(workload('Deployment', 'web', image='nginx:1.25', replicas=3))
    kube.rolled_out('Deployment', 'web')
    D = {'kind': 'Deployment', 'name': 'web'}
    tasks = [
        task('status initial', 'rollout_status', **D, wait_timeout=30),
        task('image check', 'rollout_image', **D, images={'app': 'nginx:1.26'}, change_cause='to 1.26',
             check_mode=True, diff=True),
        task('image', 'rollout_image', **D, images={'app': 'nginx:1.26'}, change_cause='to 1.26', diff=True,
             wait=True, wait_timeout=60),
        task('image again', 'rollout_image', **D, images={'app': 'nginx:1.26'}, change_cause='to 1.26'),
        task('history', 'rollout_history', **D),
        task('image v3', 'rollout_image', **D, images={'app': 'nginx:1.27'}, wait=True),
        task('undo check', 'rollout_undo', **D, check_mode=True, diff=True),
        task('undo', 'rollout_undo', **D, diff=True, wait=True),
        task('history after undo', 'rollout_history', **D),
        task('undo skipped', 'rollout_undo', **D, to_revision=4),
        # Re-running "undo to 2" after it renumbered revision 2 as 4 is a no-op, not an error.
        task('undo to 2 again', 'rollout_undo', **D, to_revision=2),
        task('undo unknown', 'rollout_undo', **D, to_revision=7),
        task('history revision 3', 'rollout_history', **D, revision=3),
        task('history unknown revision', 'rollout_history', **D, revision=9),
        task('restart check', 'rollout_restart', **D, check_mode=True, diff=True),
        task('restart', 'rollout_restart', **D, wait=True),
        task('pause check', 'rollout_pause', **D, check_mode=True, diff=True),
        task('pause', 'rollout_pause', **D, wait=True, diff=True),
        task('pause again', 'rollout_pause', **D),
        task('restart paused', 'rollout_restart', **D),
        task('undo paused', 'rollout_undo', **D),
        task('image while paused', 'rollout_image', **D, images={'app': 'nginx:1.28'}),
        task('status paused', 'rollout_status', **D, wait_timeout=120),
        task('resume', 'rollout_pause', **D, state='resumed', wait=True, wait_timeout=60),
        task('resume again', 'rollout_pause', **D, state='resumed'),
        task('status final', 'rollout_status', **D, wait=False),
    ]
    res = play(sim, tasks)

    status = entry(res.ok('status initial'))
    assert status == {'kind': 'Deployment', 'name': 'web', 'namespace': 'default', 'changed': False,
                      'done': True, 'reason': 'Complete',
                      'message': 'deployment "web" successfully rolled out',
                      'replicas': 3, 'updated': 3, 'ready': 3, 'available': 3}

    check, real = res.ok('image check'), res.ok('image')
    assert check['changed'] and real['changed']
    assert check['diff'] == real['diff'], 'check mode must report the diff a real run makes'
    assert real['diff'][0]['before']['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1.25'
    assert real['diff'][0]['after']['metadata']['annotations']['kubernetes.io/change-cause'] == 'to 1.26'
    e = entry(real)
    assert e['images'] == {'app': 'nginx:1.26'} and e['previous_images'] == {'app': 'nginx:1.25'}
    assert e['status']['done'] is True
    assert res.ok('image again')['changed'] is False

    hist = entry(res.ok('history'))
    assert [r['revision'] for r in hist['revisions']] == [1, 2]
    assert [r['change_cause'] for r in hist['revisions']] == [None, 'to 1.26']
    assert hist['current_revision'] == 2 and hist['revisions'][1]['current'] is True
    assert hist['revisions'][1]['images'] == {'app': 'nginx:1.26'}
    assert hist['revisions'][1]['replicas'] == 3 and hist['revisions'][0]['replicas'] == 0
    assert hist['revisions'][0]['name'].startswith('web-')

    undo_check, undo = res.ok('undo check'), res.ok('undo')
    assert undo_check['diff'] == undo['diff']
    assert entry(undo) == {'kind': 'Deployment', 'name': 'web', 'namespace': 'default', 'changed': True,
                           'from_revision': 3, 'to_revision': 2, 'message': 'rolled back',
                           'revision_before': 3, 'revision_after': 4,
                           'status': {'done': True, 'reason': 'Complete',
                                      'message': 'deployment "web" successfully rolled out',
                                      'replicas': 3, 'updated': 3, 'ready': 3, 'available': 3}}
    hist = entry(res.ok('history after undo'))
    assert [r['revision'] for r in hist['revisions']] == [1, 3, 4]  # revision 2 became 4
    assert hist['current_revision'] == 4
    skipped = res.ok('undo skipped')
    assert not skipped['changed']
    assert entry(skipped)['message'] == 'skipped rollback (current template already matches revision 4)'
    again = res.ok('undo to 2 again')
    assert not again['changed']
    assert entry(again)['message'] == 'skipped rollback (current template already matches revision 4)'
    assert 'unable to find specified revision 7 in history (existing revisions: 1, 3, 4)' in \
        res.failed('undo unknown')['msg']
    template = entry(res.ok('history revision 3'))['template']
    assert template['spec']['containers'][0]['image'] == 'nginx:1.27'
    assert 'pod-template-hash' not in template['metadata']['labels']
    assert 'existing revisions: 1, 3, 4' in res.failed('history unknown revision')['msg']

    assert res.ok('restart check')['changed']
    restart = entry(res.ok('restart'))
    assert restart['changed'] and restart['restarted_at'] and restart['status']['done']

    assert res.ok('pause check')['diff'] == res.ok('pause')['diff']
    pause = entry(res.ok('pause'))
    assert (pause['changed'], pause['paused']) == (True, True)
    assert (pause['status']['done'], pause['status']['reason']) == (True, 'Observed')
    assert res.ok('pause')['diff'][0]['after'] == {'spec': {'paused': True}}
    assert res.ok('pause again')['changed'] is False
    restart_paused = res.failed('restart paused')['msg']
    assert "can't restart paused deployment (run rollout resume first" in restart_paused
    assert 'cannot rollback a paused deployment' in res.failed('undo paused')['msg']
    assert res.ok('image while paused')['changed']
    paused = res.failed('status paused')
    assert entry(paused)['reason'] == 'Paused' and 'is paused' in paused['msg']
    assert paused['_duration'] < 30, 'a paused Deployment must be reported at once, not after the timeout'

    resume = res.ok('resume')
    assert entry(resume)['paused'] is False and entry(resume)['status']['done']
    assert res.ok('resume again')['changed'] is False
    assert entry(res.ok('status final'))['done'] is True

    final = kube.get('Deployment', 'web')
    assert final['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1.28'
    assert 'paused' not in final['spec']  # resume removes the field, as kubectl does
    assert 'kubectl.kubernetes.io/restartedAt' in final['spec']['template']['metadata']['annotations']


@pytest.mark.parametrize('transport', sorted(TRANSPORTS))
def test_statefulset_and_daemonset_lifecycle(kubesim_factory, play, transport):
    sim = kubesim_factory(**TRANSPORTS[transport])
    kube = Kube(sim.kubeconfig)
    kinds = {'StatefulSet': 'db', 'DaemonSet': 'agent'}
    for kind, name in kinds.items():
        kube.create(workload(kind, name, image='redis:7.0', replicas=2))
    for kind, name in kinds.items():
        kube.rolled_out(kind, name)

    tasks = []
    for kind, name in kinds.items():
        W = {'kind': kind, 'name': name}
        tasks += [
            task(f'{kind} status', 'rollout_status', **W, wait_timeout=30),
            task(f'{kind} image check', 'rollout_image', **W, images={'app': 'redis:7.2'}, change_cause='7.2',
                 check_mode=True, diff=True),
            task(f'{kind} image', 'rollout_image', **W, images={'app': 'redis:7.2'}, change_cause='7.2',
                 wait=True, diff=True),
            task(f'{kind} image again', 'rollout_image', **W, images={'app': 'redis:7.2'}),
            task(f'{kind} history', 'rollout_history', **W),
            task(f'{kind} undo check', 'rollout_undo', **W, check_mode=True, diff=True),
            task(f'{kind} undo', 'rollout_undo', **W, wait=True, diff=True),
            task(f'{kind} history after undo', 'rollout_history', **W),
            task(f'{kind} undo skipped', 'rollout_undo', **W, to_revision=3),
            task(f'{kind} undo unknown', 'rollout_undo', **W, to_revision=1),
            task(f'{kind} history revision 2', 'rollout_history', **W, revision=2),
            task(f'{kind} restart', 'rollout_restart', **W, wait=True),
            task(f'{kind} pause', 'rollout_pause', **W),
            task(f'{kind} resume', 'rollout_pause', **W, state='resumed'),
        ]
    res = play(sim, tasks)

    for kind, name in kinds.items():
        assert entry(res.ok(f'{kind} status'))['done'] is True
        check, real = res.ok(f'{kind} image check'), res.ok(f'{kind} image')
        assert check['changed'] and real['changed'] and check['diff'] == real['diff']
        assert entry(real)['status']['done'] is True
        assert res.ok(f'{kind} image again')['changed'] is False
        hist = entry(res.ok(f'{kind} history'))
        assert [r['revision'] for r in hist['revisions']] == [1, 2]
        assert hist['current_revision'] == 2
        assert hist['revisions'][1]['images'] == {'app': 'redis:7.2'}
        assert hist['revisions'][1]['name'].startswith(name + '-')
        assert 'replicas' not in hist['revisions'][0]
        assert res.ok(f'{kind} undo check')['diff'] == res.ok(f'{kind} undo')['diff']
        undo = entry(res.ok(f'{kind} undo'))
        assert (undo['from_revision'], undo['to_revision'], undo['message']) == (2, 1, 'rolled back')
        assert undo['status']['done'] is True
        assert [r['revision'] for r in entry(res.ok(f'{kind} history after undo'))['revisions']] == [2, 3]
        assert res.ok(f'{kind} undo skipped')['changed'] is False
        assert 'existing revisions: 2, 3' in res.failed(f'{kind} undo unknown')['msg']
        template = entry(res.ok(f'{kind} history revision 2'))['template']
        assert template['spec']['containers'][0]['image'] == 'redis:7.2'
        assert '$patch' not in template
        assert entry(res.ok(f'{kind} restart'))['status']['done'] is True
        plural = kind.lower() + 's.apps'
        assert f'{plural} "{name}" pausing is not supported' in res.failed(f'{kind} pause')['msg']
        assert f'{plural} "{name}" resuming is not supported' in res.failed(f'{kind} resume')['msg']
        obj = kube.get(kind, name)
        assert obj['spec']['template']['spec']['containers'][0]['image'] == 'redis:7.0'
        assert kube.history_numbers(kind, obj) == [2, 3, 4]  # the restart made revision 4

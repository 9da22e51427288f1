"""Comparing revisions (rollout_history's ``compare_to``) through real ansible-playbook runs against
kubesim: the same before/after an undo would show, check mode or not, and the revisions kubectl
shows under the same numbers."""

import pytest

from ..conftest import Kube, entry, task, workload

pytestmark = pytest.mark.integration


@pytest.mark.parametrize('kind', ['Deployment', 'StatefulSet'])
def test_history_compare_matches_what_undo_would_change(kubesim, play, kind):
    kube = Kube(kubesim.kubeconfig)
    kube.create(workload(kind, 'web', image='nginx:1.25', replicas=1))
    kube.rolled_out(kind, 'web')
    W = {'kind': kind, 'name': 'web'}
    res = play(kubesim, [
        task('image', 'rollout_image', **W, images={'app': 'nginx:1.26'}, wait=True, wait_timeout=60),
        task('compare', 'rollout_history', **W, revision=1, compare_to='current', diff=True),
        task('compare check', 'rollout_history', **W, revision=1, compare_to='current', check_mode=True,
             diff=True),
        task('undo check', 'rollout_undo', **W, to_revision=1, check_mode=True, diff=True),
        task('forward', 'rollout_history', **W, compare_to=1),
        task('same', 'rollout_history', **W, revision=2, compare_to=2),
        task('unknown', 'rollout_history', **W, compare_to=9),
        task('bad', 'rollout_history', **W, compare_to='latest'),
    ])
    compare = res.ok('compare')
    assert compare['changed'] is False
    e = entry(compare)
    assert e['compare'] == {'from': 'current template (revision 2)', 'to': 'revision 1', 'equal': False}
    lines = e['template_diff'].splitlines()
    assert lines[:2] == ['--- current template (revision 2)', '+++ revision 1']
    assert [ln for ln in lines if ln[:1] in '+-' and ln[:3] not in ('---', '+++')] == [
        '-  - image: nginx:1.26', '+  - image: nginx:1.25']
    assert 'pod-template-hash' not in e['template_diff']
    # The same before/after as an undo to revision 1 would show, check mode or not.
    assert compare['diff'] == res.ok('undo check')['diff']
    assert res.ok('compare check')['diff'] == compare['diff']

    forward = entry(res.ok('forward'))
    assert forward['compare'] == {'from': 'revision 1', 'to': 'current template (revision 2)', 'equal': False}
    assert '+  - image: nginx:1.26' in forward['template_diff'].splitlines()
    same = entry(res.ok('same'))
    assert same['template_diff'] == '' and same['compare']['equal'] is True
    assert 'unable to find specified revision 9' in res.failed('unknown')['msg']
    assert 'compare_to must be a revision number' in res.failed('bad')['msg']
    # Nothing was written.
    assert kube.get(kind, 'web')['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1.26'


@pytest.mark.parametrize('kind', ['Deployment', 'DaemonSet'])
def test_history_compare_to_previous_is_the_last_release(kubesim_factory, play, kubectl, kind):
    sim = kubesim_factory(nodes=1)
    kube = Kube(sim.kubeconfig)
    kube.create(workload(kind, 'web', image='app:1', replicas=1))
    kube.rolled_out(kind, 'web')
    for image in ('app:2', 'app:3'):
        containers = [{'name': 'app', 'image': image}]
        kube.patch(kind, 'web', {'spec': {'template': {'spec': {'containers': containers}}}})
        kube.rolled_out(kind, 'web')
    W = {'kind': kind, 'name': 'web'}
    res = play(sim, [
        task('last release', 'rollout_history', **W, compare_to='previous', diff=True),
        task('revision 2', 'rollout_history', **W, revision=2, compare_to='previous'),
        task('oldest', 'rollout_history', **W, revision=1, compare_to='previous'),
        task('unknown', 'rollout_history', **W, revision=7, compare_to='previous'),
    ])
    last = entry(res.ok('last release'))
    assert last['compare'] == {'from': 'revision 2', 'to': 'current template (revision 3)', 'equal': False}
    changed = [ln for ln in last['template_diff'].splitlines()
               if ln[:1] in '+-' and ln[:3] not in ('---', '+++')]
    assert changed == ['-  - image: app:2', '+  - image: app:3']
    assert res.ok('last release')['changed'] is False and res.ok('last release')['diff']
    second = entry(res.ok('revision 2'))
    assert second['compare'] == {'from': 'revision 1', 'to': 'revision 2', 'equal': False}
    assert '+  - image: app:2' in second['template_diff'].splitlines()
    # The sides are the revisions kubectl shows under the same numbers.
    run = kubectl.using(sim)
    for number, image in ((1, 'app:1'), (2, 'app:2')):
        shown = run('rollout', 'history', f'{kind.lower()}/web', f'--revision={number}', check=True).stdout
        assert [f'app:{n}' in shown for n in (1, 2, 3)] == [f'app:{n}' == image for n in (1, 2, 3)], shown
    assert 'revision 1 is the oldest in the history (1, 2, 3)' in res.failed('oldest')['msg']
    assert 'unable to find specified revision 7' in res.failed('unknown')['msg']

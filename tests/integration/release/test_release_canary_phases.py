"""rollout_release's canary phases (start, promote, abort) through real ansible-playbook runs against
kubesim: each phase in a play of its own (the record lives on the workload), each repeat a no-op,
check mode without a persisted write, and answers lost after the write."""

import json

import pytest

from ..conftest import Kube, image_of, read_log, task, workload

pytestmark = pytest.mark.integration

RECORD = 'kubeops.rollout/canary'
WRITES = ('POST', 'PUT', 'PATCH', 'DELETE')


def phase(name, canary, workloads, **extra):
    return task(name, 'rollout_release', canary=canary, workloads=workloads, timeout=60, **extra)


def web_and_db(kube):
    kube.create_rolled_out([workload('Deployment', 'web', replicas=4),
                            workload('StatefulSet', 'db', replicas=3)])
    return [{'kind': 'Deployment', 'name': 'web', 'images': {'app': 'nginx:2'}},
            {'kind': 'StatefulSet', 'name': 'db', 'images': {'app': 'nginx:2'}}]


def pod_images(kube, app):
    return sorted(p['spec']['containers'][0]['image'] for p in kube.list('Pod', selector=f'app={app}')
                  if not p['metadata'].get('deletionTimestamp'))


def test_start_holds_a_canary_then_promote_releases_the_rest(kubesim_factory, play):
    # Pods Ready 0.5 s after creation: the hold lands after the first new pod, and a Deployment whose
    # pods are Ready at once could finish its rollout first on a loaded machine (the pause races it).
    sim = kubesim_factory(ready_delay=0.5)
    kube = Kube(sim.kubeconfig)
    wanted = web_and_db(kube)
    before = {k: kube.get(k, n) for k, n in (('Deployment', 'web'), ('StatefulSet', 'db'))}

    res = play(sim, [phase('start', 'start', wanted), phase('start again', 'start', wanted)])
    start, again = res.ok('start'), res.ok('start again')
    both = ['Deployment default/web', 'StatefulSet default/db']
    assert start['changed'] is True and start['upgraded'] == both
    assert start['summary'] == ['Canary started: ' + label for label in both]
    assert again['changed'] is False, again
    web, db = kube.get('Deployment', 'web'), kube.get('StatefulSet', 'db')
    # The Deployment is held with some pods of the new ReplicaSet, all of them available.
    assert web['spec']['paused'] is True and 1 <= web['status']['updatedReplicas'] < 4, web['status']
    assert web['status'].get('unavailableReplicas', 0) == 0
    assert 'nginx:2' in pod_images(kube, 'web') and 'nginx:1.25' in pod_images(kube, 'web')
    # The StatefulSet updated its highest ordinal only.
    assert db['spec']['updateStrategy']['rollingUpdate']['partition'] == 2
    assert pod_images(kube, 'db') == ['nginx:1.25', 'nginx:1.25', 'nginx:2']
    # The record holds the template each had.
    for obj, old in ((web, before['Deployment']), (db, before['StatefulSet'])):
        record = json.loads(obj['metadata']['annotations'][RECORD])
        assert record['template'] == old['spec']['template'] and record['images'] == {'app': 'nginx:2'}

    res = play(sim, [phase('promote', 'promote', wanted, soak_seconds=1),
                     phase('promote again', 'promote', wanted)])
    promoted, again = res.ok('promote'), res.ok('promote again')
    assert promoted['summary'] == ['Promoted: Deployment default/web', 'Promoted: StatefulSet default/db']
    assert again['changed'] is False and again['unchanged'] == ['Deployment default/web',
                                                                'StatefulSet default/db'], again
    web, db = kube.rolled_out('Deployment', 'web'), kube.rolled_out('StatefulSet', 'db')
    assert not web['spec'].get('paused') and image_of(web) == image_of(db) == 'nginx:2'
    assert db['spec']['updateStrategy']['rollingUpdate']['partition'] == 0
    assert RECORD not in web['metadata'].get('annotations', {}) and RECORD not in db['metadata'].get(
        'annotations', {})
    # Nothing left to roll back: a rollback that comes after the promotion fails, saying how to go back,
    # and writes nothing.
    before = {kind: kube.get(kind, name)['metadata']['resourceVersion']
              for kind, name in (('Deployment', 'web'), ('StatefulSet', 'db'))}
    aborted = play(sim, [phase('rollback', 'rollback', wanted)]).failed('rollback')
    assert aborted['changed'] is False, aborted
    assert 'Deployment default/web runs app=nginx:2 and carries no kubeops.rollout/canary record: the ' \
        'canary was promoted already' in aborted['msg'], aborted['msg']
    assert 'roll back: kubeops.rollout.rollout_undo' in aborted['msg'], aborted['msg']
    assert 'StatefulSet default/db' in aborted['msg']
    assert {kind: kube.get(kind, name)['metadata']['resourceVersion']
            for kind, name in (('Deployment', 'web'), ('StatefulSet', 'db'))} == before


def test_rollback_puts_back_exactly_what_was_there(kubesim_factory, play):
    sim = kubesim_factory(ready_delay=0.05)
    kube = Kube(sim.kubeconfig)
    wanted = web_and_db(kube)
    before = {k: kube.get(k, n) for k, n in (('Deployment', 'web'), ('StatefulSet', 'db'))}
    play(sim, [phase('start', 'start', wanted)]).ok('start')

    res = play(sim, [phase('rollback', 'rollback', wanted), phase('rollback again', 'rollback', wanted)])
    aborted, again = res.ok('rollback'), res.ok('rollback again')
    assert aborted['rolled_back'] == ['Deployment default/web', 'StatefulSet default/db'], aborted
    assert aborted['changed'] is True and again['changed'] is False, again
    for kind, name in (('Deployment', 'web'), ('StatefulSet', 'db')):
        obj = kube.rolled_out(kind, name)
        old = before[kind]
        assert obj['spec']['template'] == old['spec']['template'], kind
        assert obj['metadata'].get('annotations', {}).get('kubernetes.io/change-cause') == \
            old['metadata'].get('annotations', {}).get('kubernetes.io/change-cause')
        assert RECORD not in obj['metadata'].get('annotations', {})
    assert not kube.get('Deployment', 'web')['spec'].get('paused')
    assert kube.get('StatefulSet', 'db')['spec']['updateStrategy']['rollingUpdate']['partition'] == 0
    assert pod_images(kube, 'db') == ['nginx:1.25'] * 3


def test_check_mode_writes_nothing_and_reports_what_a_start_would_do(kubesim_factory, play, tmp_path):
    log = tmp_path / 'requests.log'
    sim = kubesim_factory(ready_delay=0.05, request_log=str(log))
    kube = Kube(sim.kubeconfig)
    wanted = web_and_db(kube)
    mark = len(read_log(log))
    res = play(sim, [phase('start', 'start', wanted, check_mode=True, diff=True),
                     phase('promote', 'promote', wanted, check_mode=True)])
    start, promote = res.ok('start'), res.ok('promote')
    assert start['changed'] is True
    assert start['summary'][0] == 'Would start a canary of: Deployment default/web'
    assert len(start['diff']) == 2
    assert promote['changed'] is True and promote['summary'][0] == 'Would promote: Deployment default/web'
    persisted = [r for r in read_log(log)[mark:] if r['method'] in WRITES and not r['dry_run']]
    assert persisted == [], persisted
    assert image_of(kube.get('Deployment', 'web')) == 'nginx:1.25'


def test_refusals_before_any_write(kubesim_factory, play):
    sim = kubesim_factory(ready_delay=0.05)
    kube = Kube(sim.kubeconfig)
    wanted = web_and_db(kube)
    kube.create_rolled_out([workload('DaemonSet', 'agent')])
    res = play(sim, [
        phase('daemonset', 'start',
              wanted + [{'kind': 'DaemonSet', 'name': 'agent', 'images': {'app': 'x:2'}}]),
        phase('promote unstarted', 'promote', wanted),
        phase('start', 'start', wanted),
        phase('other images', 'start', [dict(wanted[0], images={'app': 'nginx:3'})]),
        phase('bad ordinals', 'start', wanted, canary_ordinals=0),
    ])
    ds = res.failed('daemonset')
    assert 'DaemonSet default/agent: a canary needs a Deployment' in ds['msg'] and ds['changed'] is False
    assert 'has no canary of these images to promote' in res.failed('promote unstarted')['msg']
    res.ok('start')
    other = res.failed('other images')['msg']
    assert ('has a canary of other images in progress (app=nginx:2): promote it or roll it back '
            '(canary: rollback) first') in other, other
    assert 'canary_ordinals must be 1 or more' in res.failed('bad ordinals')['msg']
    assert image_of(kube.get('DaemonSet', 'agent')) == 'nginx:1.25'


def test_lost_answers_do_not_repeat_a_phase(kubesim_factory, play):
    sim = kubesim_factory(ready_delay=0.05)
    kube = Kube(sim.kubeconfig)
    wanted = web_and_db(kube)[:1]
    before = kube.get('Deployment', 'web')
    # The image write and the pause: each applied, its answer lost, sent again.
    sim.set_faults('drop_after_write=apps/deployments/default/web:2')
    start = play(sim, [phase('start', 'start', wanted)]).ok('start')
    assert len(sim.faults.injected) == 2, sim.faults.injected
    assert start['upgraded'] == ['Deployment default/web'] and kube.get('Deployment', 'web')['spec']['paused']
    # The put-back: applied, answer lost, the repeat finds it back.
    sim.set_faults('500_after_write=apps/deployments/default/web:1')
    aborted = play(sim, [phase('rollback', 'rollback', wanted)]).ok('rollback')
    sim.set_faults('')
    assert aborted['rolled_back'] == ['Deployment default/web'], aborted
    web = kube.rolled_out('Deployment', 'web')
    assert web['spec']['template'] == before['spec']['template'] and not web['spec'].get('paused')


def test_a_template_changed_since_the_start_is_neither_aborted_over_nor_promoted(kubesim_factory, play):
    sim = kubesim_factory(ready_delay=0.5)
    kube = Kube(sim.kubeconfig)
    wanted = web_and_db(kube)
    play(sim, [phase('start', 'start', wanted)]).ok('start')
    # A hotfix on the StatefulSet's template while its canary is held (an environment variable).
    db = kube.get('StatefulSet', 'db')
    fixed = json.loads(json.dumps(db['spec']['template']))
    fixed['spec']['containers'][0]['env'] = [{'name': 'HOTFIX', 'value': '1'}]
    kube.patch('StatefulSet', 'db', {'spec': {'template': fixed}})
    hotfixed = kube.get('StatefulSet', 'db')
    res = play(sim, [phase('rollback', 'rollback', wanted), phase('promote', 'promote', wanted)])
    for name in ('rollback', 'promote'):
        r = res.failed(name)
        assert r['changed'] is False, r
        assert 'StatefulSet default/db: its pod template was changed since the canary started, other ' \
            'than by the canary (spec.containers[0].env)' in r['msg'], r['msg']
        assert 'kubectl annotate statefulset db -n default %s-' % RECORD in r['msg'], r['msg']
    # Nothing was written: the hotfix and both records are where they were.
    after = kube.get('StatefulSet', 'db')
    assert after['spec']['template'] == hotfixed['spec']['template']
    assert after['metadata']['generation'] == hotfixed['metadata']['generation']
    assert after['metadata']['annotations'] == hotfixed['metadata']['annotations']
    assert RECORD in kube.get('Deployment', 'web')['metadata']['annotations']


@pytest.mark.parametrize('text', ['{not json', '{"template": {}, "images": ["nginx:2"]}'])
def test_a_canary_record_that_is_not_one_is_refused_with_the_way_out(kubesim_factory, play, text):
    sim = kubesim_factory()
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web')])
    kube.patch('Deployment', 'web', {'spec': {'paused': True}, 'metadata': {'annotations': {RECORD: text}}})
    wanted = [{'kind': 'Deployment', 'name': 'web', 'images': {'app': 'nginx:2'}}]
    res = play(sim, [phase(p, p, wanted) for p in ('rollback', 'promote', 'start')])
    for p in ('rollback', 'promote', 'start'):
        r = res.failed(p)
        assert 'carries a %s annotation that is not a canary record' % RECORD in r['msg'], r['msg']
        assert 'kubectl annotate deployment web -n default %s-' % RECORD in r['msg'] and r['changed'] is False
    assert kube.get('Deployment', 'web')['metadata']['annotations'][RECORD] == text

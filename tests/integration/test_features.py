"""StatefulSet partitions, restarts tied to configuration and revision comparisons, through real
ansible-playbook runs against kubesim: check mode, diff and second-run idempotence for each."""

import base64
import json

import pytest

from .conftest import Kube, entry, task, workload

pytestmark = pytest.mark.integration

DIGEST = 'kubeops.rollout/config-digest'
RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt'
PARTITIONED = 'partitioned roll out complete: %d new pods have been updated...'  # kubectl's words


def pod_images(kube, app):
    pods = kube.list('Pod', selector=f'app={app}')
    return {p['metadata']['name']: p['spec']['containers'][0]['image'] for p in pods}


def partition_of(obj):
    return obj['spec']['updateStrategy']['rollingUpdate']['partition']


# ---- StatefulSet partition -------------------------------------------------------------------

def test_image_with_partition_updates_only_the_highest_ordinals(kubesim, play):
    kube = Kube(kubesim.kubeconfig)
    kube.create(workload('Deployment', 'web', replicas=1))
    kube.create(workload('StatefulSet', 'db', image='nginx:1.25', replicas=3))
    kube.rolled_out('StatefulSet', 'db')
    S = {'kind': 'StatefulSet', 'name': 'db'}
    canary = dict(S, images={'app': 'nginx:1.26'}, partition=2)
    res = play(kubesim, [
        task('canary check', 'rollout_image', **canary, check_mode=True, diff=True),
        task('canary', 'rollout_image', **canary, diff=True, wait=True, wait_timeout=60),
        task('canary again', 'rollout_image', **canary),
        task('status', 'rollout_status', **S, wait=False),
        task('deployment partition', 'rollout_image', kind='Deployment', name='web', partition=1,
             images={'app': 'x'}),
        task('release check', 'rollout_image', **S, partition=0, check_mode=True, diff=True),
        task('release', 'rollout_image', **S, partition=0, diff=True, wait=True, wait_timeout=60),
        task('release again', 'rollout_image', **S, partition=0),
        task('negative', 'rollout_image', **S, partition=-1),
    ])
    check, real = res.ok('canary check'), res.ok('canary')
    assert check['changed'] and real['changed']
    assert check['diff'] == real['diff'], 'check mode must report the diff a real run makes'
    def partition(side):
        return side['spec']['updateStrategy']['rollingUpdate']['partition']

    assert partition(real['diff'][0]['before']) == 0 and partition(real['diff'][0]['after']) == 2
    assert entry(real)['partition'] == 2
    assert entry(real)['status']['done'] is True
    assert entry(real)['status']['message'] == PARTITIONED % 1
    again = res.ok('canary again')
    assert again['changed'] is False and entry(again)['partition'] == 2
    status = entry(res.ok('status'))
    assert status['done'] is True and status['reason'] == 'Complete'

    failed = res.failed('deployment partition')
    assert 'no update partition' in failed['msg'] and 'Traceback' not in failed['msg']
    assert 'must be 0 or more' in res.failed('negative')['msg']

    release_check, release = res.ok('release check'), res.ok('release')
    assert release_check['diff'] == release['diff']
    assert partition(release['diff'][0]['before']) == 2 and partition(release['diff'][0]['after']) == 0
    # Only the partition moved: the images were already in place.
    assert release['diff'][0]['before']['spec']['template'] == release['diff'][0]['after']['spec']['template']
    assert entry(release)['status']['message'] == PARTITIONED % 3
    assert res.ok('release again')['changed'] is False
    assert pod_images(kube, 'db') == {'db-0': 'nginx:1.26', 'db-1': 'nginx:1.26', 'db-2': 'nginx:1.26'}
    assert partition_of(kube.get('StatefulSet', 'db')) == 0


def test_partitioned_rollout_waits_only_for_the_canary_pods(kubesim, play):
    """Between the canary and the release: the lower ordinals keep the old template, and
    rollout_status reports the partitioned rollout done, as kubectl does."""
    kube = Kube(kubesim.kubeconfig)
    kube.create(workload('StatefulSet', 'db', image='nginx:1.25', replicas=3))
    kube.rolled_out('StatefulSet', 'db')
    S = {'kind': 'StatefulSet', 'name': 'db'}
    res = play(kubesim, [
        task('canary', 'rollout_image', **S, images={'app': 'nginx:1.26'}, partition=1),
        task('status', 'rollout_status', **S, wait=True, wait_timeout=60),
    ])
    res.ok('canary')
    status = entry(res.ok('status'))
    assert status['done'] is True and status['reason'] == 'Complete'
    assert status['message'] == PARTITIONED % 2
    sts = kube.get('StatefulSet', 'db')
    assert sts['status']['updatedReplicas'] == 2 and partition_of(sts) == 1
    assert pod_images(kube, 'db') == {'db-0': 'nginx:1.25', 'db-1': 'nginx:1.26', 'db-2': 'nginx:1.26'}


# ---- restart tied to configuration ----------------------------------------------------------

def config_map(name, data):
    return {'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': name}, 'data': data}


def secret(name, value):
    return {'apiVersion': 'v1', 'kind': 'Secret', 'metadata': {'name': name},
            'data': {'password': base64.b64encode(value.encode()).decode()}}


def create_config(kube, obj):
    plural = 'configmaps' if obj['kind'] == 'ConfigMap' else 'secrets'
    return kube.request('POST', f'/api/v1/namespaces/default/{plural}', obj)


def web_with_config():
    return workload('Deployment', 'web', replicas=2, extra_template={'spec': {
        'containers': [{'name': 'app', 'image': 'nginx:1.25',
                        'envFrom': [{'configMapRef': {'name': 'web-settings'}}],
                        'env': [{'name': 'EXTRA', 'valueFrom': {'configMapKeyRef': {
                            'name': 'web-extra', 'key': 'x', 'optional': True}}}]}],
        'volumes': [{'name': 'creds', 'secret': {'secretName': 'web-creds'}}]}})


def template_annotations(kube, kind, name):
    return kube.get(kind, name)['spec']['template']['metadata'].get('annotations') or {}


def test_restart_only_when_the_configuration_changed(kubesim, play):
    kube = Kube(kubesim.kubeconfig)
    create_config(kube, config_map('web-settings', {'MODE': 'blue'}))
    create_config(kube, secret('web-creds', 'hunter2-do-not-leak'))
    kube.create(web_with_config())
    kube.rolled_out('Deployment', 'web')
    D = {'kind': 'Deployment', 'name': 'web', 'config_from_template': True}
    first = play(kubesim, [
        task('check', 'rollout_restart', **D, check_mode=True, diff=True),
        task('restart', 'rollout_restart', **D, diff=True, wait=True, wait_timeout=60),
        task('again check', 'rollout_restart', **D, check_mode=True, diff=True),
        task('again', 'rollout_restart', **D, wait=True, wait_timeout=60),
    ])
    check, real = entry(first.ok('check')), entry(first.ok('restart'))
    assert check['changed'] and real['changed']
    assert real['config_objects'] == ['ConfigMap/web-extra', 'ConfigMap/web-settings', 'Secret/web-creds']
    assert real['restart_reason'] == 'no configuration digest recorded yet'
    assert check['config_digest'] == real['config_digest']
    # The optional, missing ConfigMap is recorded as absent; the others by their sha256.
    recorded = dict(part.split('=') for part in real['config_digest'].split(','))
    assert recorded['ConfigMap/web-extra'] == 'absent'
    assert all(len(recorded[k]) == 64 for k in ('ConfigMap/web-settings', 'Secret/web-creds'))
    annotations = template_annotations(kube, 'Deployment', 'web')
    assert annotations[DIGEST] == real['config_digest'] and annotations[RESTARTED_AT] == real['restarted_at']
    # The check run's diff is the real run's, but for the time stamp.
    check_after = first.ok('check')['diff'][0]['after']['spec']['template']['metadata']['annotations']
    assert check_after[DIGEST] == annotations[DIGEST] and RESTARTED_AT in check_after
    assert first.ok('again check')['changed'] is False and 'diff' not in first.ok('again check')
    again = entry(first.ok('again'))
    assert again['changed'] is False and again['config_changes'] == [] and again['restarted_at'] is None
    assert again['status']['done'] is True
    # Secret contents never leave the module (in any encoding).
    for text in (first.stdout, json.dumps(first.results)):
        assert 'hunter2' not in text and base64.b64encode(b'hunter2-do-not-leak').decode() not in text

    generation = kube.get('Deployment', 'web')['metadata']['generation']
    kube.request('PATCH', '/api/v1/namespaces/default/configmaps/web-settings', {'data': {'MODE': 'green'}},
                 'application/merge-patch+json')
    create_config(kube, config_map('web-extra', {'x': '1'}))
    second = play(kubesim, [
        task('changed check', 'rollout_restart', **D, check_mode=True),
        task('changed', 'rollout_restart', **D, wait=True, wait_timeout=60),
        task('changed again', 'rollout_restart', **D),
    ])
    changed = entry(second.ok('changed'))
    assert second.ok('changed check')['changed'] is True
    assert changed['changed'] is True
    assert changed['config_changes'] == [{'object': 'ConfigMap/web-extra', 'change': 'changed'},
                                         {'object': 'ConfigMap/web-settings', 'change': 'changed'}]
    assert changed['restart_reason'] == 'ConfigMap/web-extra changed, ConfigMap/web-settings changed'
    assert entry(second.ok('changed again'))['changed'] is False
    assert kube.get('Deployment', 'web')['metadata']['generation'] == generation + 1


def test_restart_by_named_objects_and_missing_ones(kubesim, play):
    kube = Kube(kubesim.kubeconfig)
    create_config(kube, config_map('shared', {'a': '1'}))
    kube.create_rolled_out([workload('Deployment', 'web'), workload('StatefulSet', 'db', replicas=1)])
    before = {k: kube.get(k, n)['metadata']['generation']
              for k, n in (('Deployment', 'web'), ('StatefulSet', 'db'))}
    res = play(kubesim, [
        task('missing', 'rollout_restart', kind='Deployment', name='web', config_maps=['shared', 'nope'],
             secrets=['gone']),
        task('no refs in template', 'rollout_restart', kind='StatefulSet', name='db',
             config_from_template=True),
        task('named', 'rollout_restart', kind='StatefulSet', label_selectors=['app=db'],
             config_maps=['shared']),
        task('named again', 'rollout_restart', kind='StatefulSet', label_selectors=['app=db'],
             config_maps=['shared']),
    ])
    missing = res.failed('missing')
    assert 'ConfigMap "nope", Secret "gone" not found in namespace "default"' in missing['msg']
    assert 'nothing was restarted' in missing['msg'] and missing['changed'] is False
    assert kube.get('Deployment', 'web')['metadata']['generation'] == before['Deployment']
    # A template without references and nothing named: nothing to tie the restart to, nothing done.
    none = entry(res.ok('no refs in template'))
    assert none['changed'] is False and none['config_objects'] == [] and none['config_digest'] == ''
    named = entry(res.ok('named'))
    assert named['changed'] is True and named['config_objects'] == ['ConfigMap/shared']
    assert entry(res.ok('named again'))['changed'] is False
    assert kube.get('StatefulSet', 'db')['metadata']['generation'] == before['StatefulSet'] + 1


def test_first_run_record_keeps_the_digest_without_a_restart(kubesim, play):
    kube = Kube(kubesim.kubeconfig)
    create_config(kube, config_map('shared', {'a': '1'}))
    kube.create_rolled_out([workload('Deployment', 'web')])
    kube.patch('Deployment', 'web', {'spec': {'paused': True}})  # recording restarts nothing: allowed
    before = kube.get('Deployment', 'web')
    W = {'kind': 'Deployment', 'name': 'web', 'config_maps': ['shared']}
    res = play(kubesim, [
        task('record check', 'rollout_restart', **W, first_run='record', check_mode=True, diff=True),
        task('record', 'rollout_restart', **W, first_run='record', diff=True),
        task('record again', 'rollout_restart', **W, first_run='record'),
        task('default again', 'rollout_restart', **W),
        task('record without configuration', 'rollout_restart', kind='Deployment', name='web',
             first_run='record'),
    ])
    check, record = entry(res.ok('record check')), entry(res.ok('record'))
    for e in (check, record):
        assert e['changed'] is True and e['recorded_only'] is True and e['restarted_at'] is None
    assert check['config_digest'] == record['config_digest']
    assert res.ok('record check')['diff'] == res.ok('record')['diff']
    after = res.ok('record')['diff'][0]['after']
    assert after['metadata']['annotations'][DIGEST] == record['config_digest']
    assert DIGEST not in (after['spec']['template'].get('metadata') or {}).get('annotations', {})
    web = kube.get('Deployment', 'web')
    assert web['metadata']['annotations'][DIGEST] == record['config_digest']
    # The pods were not touched: the same template, no new revision. (A Deployment's generation does
    # count annotation changes, since the controller copies them onto its ReplicaSets.)
    assert web['spec']['template'] == before['spec']['template']
    assert kube.history_numbers('Deployment', web) == kube.history_numbers('Deployment', before) == [1]
    assert DIGEST not in template_annotations(kube, 'Deployment', 'web')
    for title in ('record again', 'default again'):  # the record counts for both first_run values
        assert entry(res.ok(title))['changed'] is False, title
    assert 'first_run=record applies to a restart tied to configuration' in res.failed(
        'record without configuration')['msg']

    kube.patch('Deployment', 'web', {'spec': {'paused': None}})
    kube.request('PATCH', '/api/v1/namespaces/default/configmaps/shared', {'data': {'a': '2'}},
                 'application/merge-patch+json')
    res = play(kubesim, [task('changed', 'rollout_restart', **W, first_run='record'),
                         task('changed again', 'rollout_restart', **W)])
    changed = entry(res.ok('changed'))
    assert changed['changed'] is True and changed['recorded_only'] is False
    assert changed['restart_reason'] == 'ConfigMap/shared changed' and changed['restarted_at']
    web = kube.get('Deployment', 'web')
    assert DIGEST not in (web['metadata'].get('annotations') or {})  # moved into the pod template
    assert template_annotations(kube, 'Deployment', 'web')[DIGEST] == changed['config_digest']
    assert entry(res.ok('changed again'))['changed'] is False


# ---- comparing revisions ---------------------------------------------------------------------

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

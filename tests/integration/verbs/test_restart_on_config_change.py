"""rollout_restart tied to configuration through real ansible-playbook runs against kubesim: a
restart only when the ConfigMaps or Secrets the pod template uses (``config_from_template``) or the
task names have changed, missing ones refused, a first run that only records the digest; check
mode, diff and second-run idempotence for each."""

import base64
import json

import pytest

from ..conftest import Kube, entry, task, workload

pytestmark = pytest.mark.integration

DIGEST = 'kubeops.rollout/config-digest'
RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt'


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
    assert 'first_run: record applies to a restart tied to configuration' in res.failed(
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

"""The rollout_restart role tied to configuration, through real ansible-playbook runs against kubesim:
a playbook templates a ConfigMap (kubectl apply) and runs the role with config_from_template; only
the workloads whose ConfigMaps or Secrets changed are restarted, a re-run changes nothing, and a
Secret's value never shows in the output."""

import base64
import json
import os
import re
import subprocess

import pytest

from ..conftest import BIN, ROOT, Kube, workload

pytestmark = pytest.mark.integration

DIGEST = 'kubeops.rollout/config-digest'
ROLE = 'kubeops.rollout.rollout_restart : '  # how the role's task names are recorded
SECRET_VALUE = 'hunter2-shop-password'
SECRET_B64 = base64.b64encode(SECRET_VALUE.encode()).decode()
WEB, DB, OTHER = 'Deployment default/web', 'StatefulSet default/db', 'Deployment default/other'
SETTINGS_TEMPLATE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: shop-settings
  namespace: default
data:
  MODE: "{{ shop_mode }}"
"""


def include_restart(**role_vars):
    return {'name': 'restart role', 'vars': role_vars,
            'ansible.builtin.include_role': {'name': 'kubeops.rollout.rollout_restart'}}


SHOW = {'name': 'show result', 'ansible.builtin.debug': {'var': 'rollout_restart_result'}}


def template_settings(sim, workdir, mode):
    """Template the ConfigMap and apply it: the usual first half of a "restart on config change" play."""
    (workdir / 'settings.yaml.j2').write_text(SETTINGS_TEMPLATE)
    manifest = workdir / 'settings.yaml'
    return [
        {'name': 'template settings', 'ansible.builtin.template': {
            'src': str(workdir / 'settings.yaml.j2'), 'dest': str(manifest), 'mode': '0600'},
         'vars': {'shop_mode': mode}},
        {'name': 'apply settings', 'ansible.builtin.command': {
            'argv': ['kubectl', '--kubeconfig', sim.kubeconfig, 'apply', '-f', str(manifest)]},
         'register': 'applied', 'changed_when': "'unchanged' not in applied.stdout"},
    ]


def changed_count(res):
    match = re.search(r'^localhost\s*:\s*ok=\d+\s+changed=(\d+)', res.stdout, re.M)
    assert match, res.stdout[-2000:]
    return int(match.group(1))


def summary(res):
    return res.ok(ROLE + 'Show the summary')['msg']


def generations(kube):
    return {name: kube.get(kind, name)['metadata']['generation']
            for kind, name in (('Deployment', 'web'), ('StatefulSet', 'db'), ('Deployment', 'other'))}


def digest_of(kube, kind, name):
    return (kube.get(kind, name)['spec']['template']['metadata'].get('annotations') or {}).get(DIGEST)


def assert_no_secret(*runs):
    for res in runs:
        for text in (res.stdout, res.stderr, json.dumps(res.results)):
            assert SECRET_VALUE not in text and SECRET_B64 not in text


def setup_shop(kube):
    kube.request('POST', '/api/v1/namespaces/default/secrets', {
        'apiVersion': 'v1', 'kind': 'Secret', 'metadata': {'name': 'shop-creds'},
        'data': {'password': SECRET_B64}})
    kube.request('POST', '/api/v1/namespaces/default/configmaps', {
        'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': 'other-settings'}, 'data': {'a': '1'}})
    web = workload('Deployment', 'web', labels={'part-of': 'shop'}, extra_template={'spec': {
        'containers': [{'name': 'app', 'image': 'nginx:1.25',
                        'envFrom': [{'configMapRef': {'name': 'shop-settings'}}]}],
        'volumes': [{'name': 'creds', 'secret': {'secretName': 'shop-creds'}}]}})
    db = workload('StatefulSet', 'db', replicas=2, labels={'part-of': 'shop'}, extra_template={'spec': {
        'volumes': [{'name': 'settings', 'configMap': {'name': 'shop-settings'}}]}})
    other = workload('Deployment', 'other', labels={'part-of': 'shop'}, extra_template={'spec': {
        'volumes': [{'name': 'settings', 'configMap': {'name': 'other-settings'}}]}})
    kube.create_rolled_out([web, db, other])


@pytest.mark.parametrize('serial', [False, True], ids=['all-at-once', 'one-at-a-time'])
def test_role_restarts_only_what_uses_changed_configuration(kubesim, play, tmp_path, serial):
    kube = Kube(kubesim.kubeconfig)
    setup_shop(kube)
    role = include_restart(rollout_restart_serial=serial, rollout_restart_timeout=60,
                           rollout_restart_config_from_template=True,
                           rollout_restart_workloads=[
                               {'kind': 'Deployment', 'label_selectors': ['part-of=shop']},
                               {'kind': 'StatefulSet', 'name': 'db'}])

    def shop_play(mode, **kwargs):
        workdir = tmp_path / f'templates-{mode}'
        workdir.mkdir(exist_ok=True)
        return play(kubesim, template_settings(kubesim, workdir, mode) + [role, SHOW], **kwargs)

    # First run: nothing recorded yet, so every workload is restarted once (and its digest recorded).
    first = shop_play('blue')
    assert first.rc == 0, first.stdout[-3000:]
    result = first.ok('show result')['rollout_restart_result']
    assert sorted(result['restarted']) == sorted([WEB, DB, OTHER]) and result['unchanged'] == []
    assert set(result['reasons'].values()) == {'no configuration digest recorded yet'}
    recorded = {name: digest_of(kube, kind, name)
                for kind, name in (('Deployment', 'web'), ('StatefulSet', 'db'))}
    assert recorded['web'].startswith('ConfigMap/shop-settings=') and 'Secret/shop-creds=' in recorded['web']

    # Second identical run: the ConfigMap is unchanged, nothing is restarted, nothing reports a change.
    before = generations(kube)
    second = shop_play('blue')
    assert second.rc == 0, second.stdout[-3000:]
    assert changed_count(second) == 0, second.stdout[-3000:]
    result = second.ok('show result')['rollout_restart_result']
    assert result['restarted'] == [] and sorted(result['unchanged']) == sorted([WEB, DB, OTHER])
    assert set(result['reasons'].values()) == {'configuration digest unchanged'}
    assert summary(second)[0] == 'Restarted: none'
    assert summary(second)[1].startswith('Unchanged: ')
    assert f'{WEB} (configuration digest unchanged)' in summary(second)[1]
    assert generations(kube) == before

    # The ConfigMap changes (templated and applied by a playbook, without the role).
    workdir = tmp_path / 'templates-green'
    workdir.mkdir()
    applied = play(kubesim, template_settings(kubesim, workdir, 'green'))
    assert applied.rc == 0 and applied.ok('apply settings')['changed'] is True, applied.stdout[-2000:]
    settings = kube.request('GET', '/api/v1/namespaces/default/configmaps/shop-settings')
    assert settings['data'] == {'MODE': 'green'}

    # Check mode with diff: says what would be restarted, with the digest change, and writes nothing.
    check = play(kubesim, [role, SHOW], check=True, diff=True, extra_env={'ANSIBLE_VERBOSITY': '1'})
    assert check.rc == 0, check.stdout[-3000:]
    result = check.ok('show result')['rollout_restart_result']
    assert sorted(result['restarted']) == sorted([WEB, DB]) and result['unchanged'] == [OTHER]
    assert summary(check)[0].startswith('Would restart: ')
    assert f'{WEB} (ConfigMap/shop-settings changed)' in summary(check)[0]
    assert generations(kube) == before
    # One module call for every workload: its diff has one entry per workload that would change.
    sent = check[ROLE + 'Restart the workloads']
    diffs = {d['before_header']: d for d in sent['diff']}
    assert sorted(diffs) == sorted([WEB, DB]), sorted(diffs)
    after_digest = diffs[WEB]['after']['spec']['template']['metadata']['annotations'][DIGEST]
    assert after_digest != recorded['web'] and after_digest.startswith('ConfigMap/shop-settings=')
    assert '--- before' in check.stdout and DIGEST in check.stdout

    # The real run, verbose: only web and db (which use the ConfigMap) are restarted; other is untouched.
    third = shop_play('green', extra_env={'ANSIBLE_VERBOSITY': '1'}, diff=True)
    assert third.rc == 0, third.stdout[-3000:]
    result = third.ok('show result')['rollout_restart_result']
    assert sorted(result['restarted']) == sorted([WEB, DB]) and result['unchanged'] == [OTHER]
    assert result['reasons'] == {WEB: 'ConfigMap/shop-settings changed',
                                 DB: 'ConfigMap/shop-settings changed',
                                 OTHER: 'configuration digest unchanged'}
    assert f'{DB} (ConfigMap/shop-settings changed)' in summary(third)[0]
    after = generations(kube)
    assert after == {'web': before['web'] + 1, 'db': before['db'] + 1, 'other': before['other']}
    for kind, name in (('Deployment', 'web'), ('StatefulSet', 'db')):
        kube.rolled_out(kind, name)
        assert digest_of(kube, kind, name) != recorded[name]

    # And again: nothing to do.
    fourth = shop_play('green')
    assert fourth.rc == 0 and changed_count(fourth) == 0, fourth.stdout[-3000:]
    assert fourth.ok('show result')['rollout_restart_result']['restarted'] == []
    assert generations(kube) == after
    assert_no_secret(first, second, check, third, fourth)


def test_role_tied_to_named_objects_and_refusals(kubesim, play):
    kube = Kube(kubesim.kubeconfig)
    setup_shop(kube)
    named = {'rollout_restart_timeout': 60, 'rollout_restart_secrets': ['shop-creds'],
             'rollout_restart_workloads': [{'kind': 'Deployment', 'name': 'web'}]}
    no_refs = {'rollout_restart_timeout': 60, 'rollout_restart_config_from_template': True,
               'rollout_restart_workloads': [{'kind': 'DaemonSet', 'name': 'agent'}]}
    kube.create_rolled_out([workload('DaemonSet', 'agent')])
    both = dict(named, rollout_restart_since='2026-01-02T03:04:05Z')
    missing = dict(named, rollout_restart_config_maps=['nope'],
                   rollout_restart_workloads=[{'kind': 'Deployment', 'name': 'other'}])
    before = generations(kube)
    res = play(kubesim, [
        dict(include_restart(**named), name='named'), dict(SHOW, name='named result'),
        dict(include_restart(**named), name='named again'), dict(SHOW, name='named again result'),
        dict(include_restart(**no_refs), name='no refs'), dict(SHOW, name='no refs result'),
        # Both fail the play (as they should): rescued, so the play goes on.
        {'name': 'missing', 'block': [include_restart(**missing)],
         'rescue': [dict(SHOW, name='missing result')]},
        {'name': 'both', 'block': [include_restart(**both)],
         'rescue': [{'name': 'both refused', 'ansible.builtin.debug': {'msg': 'refused'}}]},
    ], extra_env={'ANSIBLE_VERBOSITY': '1'})
    assert res.ok('named result')['rollout_restart_result']['restarted'] == [WEB]
    again = res.ok('named again result')['rollout_restart_result']
    assert again['restarted'] == [] and again['unchanged'] == [WEB]
    none = res.ok('no refs result')['rollout_restart_result']
    assert none['unchanged'] == ['DaemonSet default/agent']
    assert none['reasons'] == {'DaemonSet default/agent': 'no ConfigMap or Secret to tie the restart to'}
    refused = res.failed(ROLE + 'Restart the workloads')
    assert 'since cannot be combined with config_maps' in refused['msg'], refused['msg']
    assert res.ok('both refused')
    missing_result = res.ok('missing result')['rollout_restart_result']
    assert missing_result['restarted'] == [] and [f['workload'] for f in missing_result['failed']] == [OTHER]
    assert 'ConfigMap "nope" not found' in missing_result['failed'][0]['message']
    assert not missing_result['failed'][0]['message'].startswith(OTHER)  # named once, by the workload key
    assert generations(kube) == dict(before, web=before['web'] + 1)
    assert_no_secret(res)


def test_restart_playbook_ties_the_restart_to_named_config_maps(kubesim):
    """playbooks/restart.yml, as AWX runs it: extra vars only (config_maps as names separated by commas)."""
    kube = Kube(kubesim.kubeconfig)
    setup_shop(kube)
    kube.request('POST', '/api/v1/namespaces/default/configmaps', {
        'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': 'shop-settings'},
        'data': {'MODE': 'blue'}})
    env = {k: v for k, v in os.environ.items() if not k.startswith('K8S_AUTH_') and k != 'KUBECONFIG'}
    env.update(ANSIBLE_CONFIG=str(ROOT / 'ansible.cfg'), ANSIBLE_NOCOLOR='1',
               PATH=f'{BIN}{os.pathsep}{env.get("PATH", "")}')

    def run():
        proc = subprocess.run(
            [str(BIN / 'ansible-playbook'), 'playbooks/restart.yml', '-e', f'kubeconfig={kubesim.kubeconfig}',
             '-e', 'workload_kind=Deployment', '-e', 'label_selector=part-of=shop',
             '-e', 'config_maps=shop-settings,other-settings', '-e', 'rollout_timeout=60'],
            capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
        return proc.stdout

    before = generations(kube)
    first = run()
    first_run = 'no configuration digest recorded yet'
    assert f'Restarted: {OTHER} ({first_run}), {WEB} ({first_run})' in first
    assert generations(kube) == dict(before, web=before['web'] + 1, other=before['other'] + 1)
    assert digest_of(kube, 'Deployment', 'web').startswith('ConfigMap/other-settings=')
    second = run()
    assert re.search(r'^localhost\s*:\s*ok=\d+\s+changed=0\b', second, re.M), second[-2000:]
    assert 'Restarted: none' in second and f'Unchanged: {OTHER} (configuration digest unchanged)' in second

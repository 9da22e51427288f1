"""The roles find a workload as kubectl does, through real ansible-playbook runs against kubesim.

- The kind as kubectl spells it (``deploy``, ``sts``, ``ds``, any case, plural, with or without
  ``.apps``) behaves exactly as the canonical kind: the modules read the spelling, and the roles
  compare and report the canonical kind they return.
- A workload given without a namespace is in the kubeconfig context's namespace, as for the modules
  and kubectl, and a workload of the same name in `default` is left alone.
"""

import pytest

from ..conftest import Kube, caught, image_of, include, workload

pytestmark = pytest.mark.integration

# ---- the kind as kubectl spells it -----------------------------------------------------------

ROLE = 'kubeops.rollout.rollout_upgrade'
SIM = {'ready_delay': 0.05, 'fail_image': r'^broken/', 'time_scale': 10}

# (Deployment, StatefulSet, DaemonSet) as a user may write them; the first is the canonical spelling.
SPELLINGS = [
    pytest.param(('Deployment', 'StatefulSet', 'DaemonSet'), id='canonical'),
    pytest.param(('deploy', 'sts', 'ds'), id='short'),
    pytest.param(('Deployments.apps', 'STATEFULSETS', 'daemonset.apps'), id='plural-group-case'),
]


@pytest.mark.parametrize('kinds', SPELLINGS)
def test_upgrade_role_rolls_back_a_failed_rollout_whatever_the_spelling(kubesim_factory, play, kinds):
    deploy, sts, _ds = kinds
    sim = kubesim_factory(**SIM)
    kube = Kube(sim.kubeconfig)
    web = workload('Deployment', 'web', image='app:1')
    web['spec']['progressDeadlineSeconds'] = 20
    kube.create_rolled_out([web, workload('StatefulSet', 'db', image='db:1')])

    res = play(sim, caught(include('rollout_upgrade', rollout_upgrade_timeout=60,
                                   rollout_upgrade_soak_seconds=0, rollout_upgrade_fail_fast_seconds=0,
                                   rollout_upgrade_workloads=[
        {'kind': deploy, 'name': 'web', 'images': {'app': 'broken/app:2'}},
        {'kind': sts, 'name': 'db', 'images': {'app': 'db:2'}}]), 'rollout_upgrade_result'))

    res.ok('failed')
    result = res.ok('show')['rollout_upgrade_result']
    # Atomic by default: the failed Deployment and the healthy StatefulSet are both put back.
    assert result['rolled_back'] == ['Deployment default/web', 'StatefulSet default/db'], result
    assert [(w['kind'], w['outcome']) for w in result['workloads']] == [
        ('Deployment', 'rolled_back'), ('StatefulSet', 'rolled_back')], result
    assert 'exceeded its progress deadline' in result['workloads'][0]['cause'], result
    assert image_of(kube.rolled_out('Deployment', 'web')) == 'app:1'
    assert image_of(kube.rolled_out('StatefulSet', 'db')) == 'db:1'


@pytest.mark.parametrize('kinds', SPELLINGS)
def test_upgrade_role_canaries_a_statefulset_by_partition_whatever_the_spelling(kubesim_factory, play,
                                                                                  kinds, tmp_path):
    _deploy, sts, _ds = kinds
    sim = kubesim_factory(**SIM)
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('StatefulSet', 'db', image='db:1', replicas=3)])
    # The verification tasks see the canonical kind.
    verify = tmp_path / 'verify.yml'
    verify.write_text(
        '- name: The canary is known as a StatefulSet\n'
        '  ansible.builtin.assert:\n'
        '    that: rollout_upgrade_result.workloads[0].kind == "StatefulSet"\n')

    res = play(sim, caught(include(
        'rollout_upgrade', rollout_upgrade_canary=True, rollout_upgrade_canary_verify_tasks=str(verify),
        rollout_upgrade_timeout=60, rollout_upgrade_workloads=[
            {'kind': sts, 'name': 'db', 'images': {'app': 'db:2'}}]), 'rollout_upgrade_result'))

    result = res.ok('show')['rollout_upgrade_result']
    assert result['upgraded'] == ['StatefulSet default/db'] and result['failed'] is False, result
    # The StatefulSet path of the canary ran (a partition), not the Deployment's (a pause).
    started = res.ok(f'{ROLE} : Canary | start')
    assert started['changed'] is True and started['workloads'][0]['status']['reason'] != 'CanaryReady'
    assert 'partitioned roll out complete' in started['workloads'][0]['status']['message'], started
    db = kube.rolled_out('StatefulSet', 'db')
    assert image_of(db) == 'db:2'
    assert db['spec']['updateStrategy'].get('rollingUpdate', {}).get('partition', 0) == 0, db['spec']


@pytest.mark.parametrize('kinds', SPELLINGS)
def test_upgrade_role_refuses_a_daemonset_canary_whatever_the_spelling(kubesim_factory, play, kinds):
    _deploy, _sts, ds = kinds
    sim = kubesim_factory(**SIM)
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('DaemonSet', 'agent', image='agent:1')])

    res = play(sim, caught(include('rollout_upgrade', rollout_upgrade_canary=True, rollout_upgrade_workloads=[
        {'kind': ds, 'name': 'agent', 'images': {'app': 'agent:2'}}]), 'rollout_upgrade_result'))

    refused = res.failed(f'{ROLE} : Canary | start')
    assert 'DaemonSet default/agent: a canary needs a Deployment' in refused['msg'], refused['msg']
    assert 'release it without canary' in refused['msg'] and refused['changed'] is False
    assert image_of(kube.get('DaemonSet', 'agent')) == 'agent:1'


@pytest.mark.parametrize('kinds', SPELLINGS)
def test_rollback_role_whatever_the_spelling(kubesim_factory, play, kinds):
    deploy, sts, _ds = kinds
    sim = kubesim_factory(**SIM)
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web', image='app:1'),
                            workload('StatefulSet', 'db', image='db:1')])
    for kind, name, image in (('Deployment', 'web', 'app:2'), ('StatefulSet', 'db', 'db:2')):
        containers = [{'name': 'app', 'image': image}]
        kube.patch(kind, name, {'spec': {'template': {'spec': {'containers': containers}}}})
        kube.rolled_out(kind, name)

    res = play(sim, caught(include(
        'rollout_rollback', rollout_rollback_timeout=60, rollout_rollback_show_history=False,
        rollout_rollback_workloads=[{'kind': deploy, 'name': 'web'}, {'kind': sts, 'name': 'db'},
                                    {'kind': deploy, 'name': 'missing'}]), 'rollout_rollback_result'))

    # The missing one fails the role at the end, after the others were rolled back.
    res.ok('failed')
    result = res.ok('show')['rollout_rollback_result']
    assert [(w['kind'], w['namespace'], w['name'], w['from_revision'], w['to_revision'])
            for w in result['rolled_back']] == [('Deployment', 'default', 'web', 2, 1),
                                                ('StatefulSet', 'default', 'db', 2, 1)], result
    assert result['unchanged'] == [], result
    assert result['failed'] == ['Deployment default/missing not found'], result
    assert image_of(kube.rolled_out('Deployment', 'web')) == 'app:1'
    assert image_of(kube.rolled_out('StatefulSet', 'db')) == 'db:1'


# ---- the kubeconfig context's namespace -------------------------------------------------------

NS = 'team'
WORKLOADS = (('Deployment', 'web'), ('StatefulSet', 'db'))
RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt'


def show(fact):
    return {'name': f'show {fact}', 'ansible.builtin.debug': {'var': fact}}


def snapshot(kube, kind, name, ns):
    obj = kube.get(kind, name, ns)
    return obj['metadata']['generation'], obj['spec']


def test_roles_act_in_the_kubeconfig_context_namespace(kubesim_factory, play, tmp_path):
    sim = kubesim_factory()
    kube = Kube(sim.kubeconfig)
    kube.create({'apiVersion': 'v1', 'kind': 'Namespace', 'metadata': {'name': NS}})
    kube.create_rolled_out([workload(kind, name, ns=ns)
                            for kind, name in WORKLOADS for ns in (NS, 'default')])
    untouched = {(kind, name): snapshot(kube, kind, name, 'default') for kind, name in WORKLOADS}
    team_kubeconfig = sim.write_kubeconfig(tmp_path / 'team-kubeconfig', namespace=NS)

    res = play(team_kubeconfig, [
        include('rollout_upgrade', rollout_upgrade_timeout=60, rollout_upgrade_workloads=[
            {'kind': 'Deployment', 'name': 'web', 'images': {'app': 'nginx:1.26'}},
            {'kind': 'StatefulSet', 'name': 'db', 'images': {'app': 'nginx:1.26'}}]),
        show('rollout_upgrade_result'),
        include('rollout_restart', rollout_restart_timeout=60, rollout_restart_workloads=[
            {'kind': 'Deployment', 'name': 'web'},
            {'kind': 'StatefulSet', 'label_selectors': ['app=db']}]),
        show('rollout_restart_result'),
    ])
    assert res.rc == 0, res.stdout[-3000:]
    upgraded = res.ok('show rollout_upgrade_result')['rollout_upgrade_result']
    assert (upgraded['upgraded'], upgraded['unchanged'], upgraded['failed'], upgraded['changed']) == (
        [f'Deployment {NS}/web', f'StatefulSet {NS}/db'], [], False, True), upgraded
    restarted = res.ok('show rollout_restart_result')['rollout_restart_result']
    assert sorted(restarted['restarted']) == [f'Deployment {NS}/web', f'StatefulSet {NS}/db']
    assert restarted['failed'] == []
    for kind, name in WORKLOADS:
        team = kube.rolled_out(kind, name, ns=NS)
        template = team['spec']['template']
        assert template['spec']['containers'][0]['image'] == 'nginx:1.26', (kind, template)
        assert RESTARTED_AT in template['metadata'].get('annotations', {}), (kind, template)
        assert snapshot(kube, kind, name, 'default') == untouched[kind, name], (kind, name)

    res = play(team_kubeconfig, [
        include('rollout_rollback', rollout_rollback_timeout=60, rollout_rollback_show_history=False,
                rollout_rollback_workloads=[{'kind': 'Deployment', 'name': 'web', 'to_revision': 1}]),
        show('rollout_rollback_result'),
        include('rollout_wait', rollout_wait_timeout=60,
                rollout_wait_workloads=[{'kind': 'StatefulSet', 'name': 'db'}]),
        show('rollout_wait_result'),
        include('history_report', history_report_workloads=[{'kind': 'Deployment', 'name': 'web'}]),
        show('history_report_result'),
    ])
    assert res.rc == 0, res.stdout[-3000:]
    rolled_back = res.ok('show rollout_rollback_result')['rollout_rollback_result']
    assert [(w['namespace'], w['name']) for w in rolled_back['rolled_back']] == [(NS, 'web')], rolled_back
    waited = res.ok('show rollout_wait_result')['rollout_wait_result']
    assert waited == {'done': [{'kind': 'StatefulSet', 'name': 'db', 'namespace': NS, 'changed': False,
                                'workload': f'StatefulSet {NS}/db'}], 'failed': []}
    report = res.ok('show history_report_result')['history_report_result']
    assert [(w['namespace'], w['name']) for w in report] == [(NS, 'web')]
    web = kube.rolled_out('Deployment', 'web', ns=NS)
    assert web['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1.25'
    for kind, name in WORKLOADS:
        assert snapshot(kube, kind, name, 'default') == untouched[kind, name], (kind, name)

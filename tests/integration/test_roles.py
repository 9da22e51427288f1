"""The roles through real ansible-playbook runs: a workload given without a namespace is in the
kubeconfig context's namespace, as for the modules and kubectl, and a workload of the same name in
`default` is left alone."""

import pytest

from .conftest import Kube, include, workload

pytestmark = pytest.mark.integration

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

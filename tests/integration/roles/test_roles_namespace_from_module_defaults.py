"""Every role finds a workload's namespace as the modules do: the entry's, else the role's
``*_namespace`` variable, else the play's ``module_defaults`` for ``group/kubeops.rollout.rollout``,
else the kubeconfig context's. Real ansible-playbook runs against kubesim, with the same workloads in
``shop`` (where module_defaults point) and ``default`` (the kubeconfig context's namespace), so a
role that acts in the wrong one is seen.

A role that passed its unset variable as ``namespace: "{{ x | default(omit) }}"`` removed the play's
module_defaults namespace with it (ansible-core merges the defaults under the task's arguments and then
drops the omitted ones): the rollback role rolled back ``default/web``. The roles pass it as
``workload_namespace``, which the modules read before ``namespace``.
"""

import pytest

from ..conftest import Kube, image_of, include, workload

pytestmark = pytest.mark.integration

SHOP = 'shop'
RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt'
RCS = '/api/v1/namespaces/{ns}/replicationcontrollers'


def show(fact):
    return {'name': f'show {fact}', 'ansible.builtin.debug': {'var': fact}}


def both_namespaces(kube, *manifests):
    """Each manifest created and rolled out in ``shop`` and in ``default``."""
    kube.create({'apiVersion': 'v1', 'kind': 'Namespace', 'metadata': {'name': SHOP}})
    kube.create_rolled_out([dict(m, metadata=dict(m['metadata'], namespace=ns))
                            for m in manifests for ns in (SHOP, 'default')])


def new_image(kube, kind, name, image, ns):
    containers = [{'name': 'app', 'image': image}]
    kube.patch(kind, name, {'spec': {'template': {'spec': {'containers': containers}}}}, ns=ns)
    kube.rolled_out(kind, name, ns=ns)


def state(kube, kind, name, ns):
    obj = kube.get(kind, name, ns)
    return obj['metadata']['generation'], obj['spec']


def restarted(kube, kind, name, ns):
    return RESTARTED_AT in (kube.get(kind, name, ns)['spec']['template']['metadata'].get('annotations') or {})


def rc_image(kube, ns):
    rcs = kube.request('GET', RCS.format(ns=ns))['items']
    return sorted((rc['metadata']['name'], image_of(rc)) for rc in rcs)


# ---- each role, under a play's module_defaults namespace -------------------------------------------

def test_rollback_role_acts_in_the_module_defaults_namespace(kubesim_factory, play):
    sim = kubesim_factory()
    kube = Kube(sim.kubeconfig)
    both_namespaces(kube, workload('Deployment', 'web', image='app:1'))
    for ns in (SHOP, 'default'):
        new_image(kube, 'Deployment', 'web', 'app:2', ns)
    untouched = state(kube, 'Deployment', 'web', 'default')

    res = play(sim, [include('rollout_rollback', rollout_rollback_timeout=60,
                             rollout_rollback_workloads=[{'kind': 'Deployment', 'name': 'web'}]),
                     show('rollout_rollback_result')], module_defaults={'namespace': SHOP})

    assert res.rc == 0, res.stdout[-3000:]
    result = res.ok('show rollout_rollback_result')['rollout_rollback_result']
    rolled_back = [(w['namespace'], w['name'], w['to_revision']) for w in result['rolled_back']]
    assert rolled_back == [(SHOP, 'web', 1)], result
    # The history it shows is the shop's too.
    report = res.ok('kubeops.rollout.history_report : Read the rollout history')['results'][0]
    assert [w['namespace'] for w in report['workloads']] == [SHOP], report
    assert image_of(kube.rolled_out('Deployment', 'web', ns=SHOP)) == 'app:1'
    assert state(kube, 'Deployment', 'web', 'default') == untouched


def test_restart_role_acts_in_the_module_defaults_namespace(kubesim_factory, play):
    sim = kubesim_factory()
    kube = Kube(sim.kubeconfig)
    both_namespaces(kube, workload('Deployment', 'web'), workload('StatefulSet', 'db'))

    res = play(sim, [include('rollout_restart', rollout_restart_timeout=60, rollout_restart_workloads=[
        {'kind': 'Deployment', 'name': 'web'}, {'kind': 'StatefulSet', 'label_selectors': ['app=db']}]),
        show('rollout_restart_result')], module_defaults={'namespace': SHOP})

    assert res.rc == 0, res.stdout[-3000:]
    result = res.ok('show rollout_restart_result')['rollout_restart_result']
    assert sorted(result['restarted']) == [f'Deployment {SHOP}/web', f'StatefulSet {SHOP}/db'], result
    for kind, name in (('Deployment', 'web'), ('StatefulSet', 'db')):
        assert restarted(kube, kind, name, SHOP) and not restarted(kube, kind, name, 'default'), (kind, name)


def test_wait_role_waits_in_the_module_defaults_namespace(kubesim_factory, play):
    sim = kubesim_factory()
    kube = Kube(sim.kubeconfig)
    kube.create({'apiVersion': 'v1', 'kind': 'Namespace', 'metadata': {'name': SHOP}})
    # Only shop has the workload: waiting in default would report it missing.
    kube.create_rolled_out([workload('StatefulSet', 'db', ns=SHOP)])

    res = play(sim, [include('rollout_wait', rollout_wait_timeout=30,
                             rollout_wait_workloads=[{'kind': 'StatefulSet', 'name': 'db'}]),
                     show('rollout_wait_result')], module_defaults={'namespace': SHOP})

    assert res.rc == 0, res.stdout[-3000:]
    result = res.ok('show rollout_wait_result')['rollout_wait_result']
    assert [d['workload'] for d in result['done']] == [f'StatefulSet {SHOP}/db'], result
    assert result['failed'] == [], result


def test_history_report_reads_the_module_defaults_namespace(kubesim_factory, play):
    sim = kubesim_factory()
    kube = Kube(sim.kubeconfig)
    both_namespaces(kube, workload('Deployment', 'web', image='app:1'))
    new_image(kube, 'Deployment', 'web', 'shop:2', SHOP)

    targets = [{'kind': 'Deployment', 'name': 'web'}]
    res = play(sim, [include('history_report', history_report_workloads=targets),
                     show('history_report_result')],
               module_defaults={'namespace': SHOP})

    assert res.rc == 0, res.stdout[-3000:]
    report = res.ok('show history_report_result')['history_report_result']
    assert [(w['namespace'], len(w['revisions'])) for w in report] == [(SHOP, 2)], report
    assert 'Deployment shop/web: 2 revision(s)' in res.stdout


def test_upgrade_role_acts_in_the_module_defaults_namespace(kubesim_factory, play):
    sim = kubesim_factory()
    kube = Kube(sim.kubeconfig)
    both_namespaces(kube, workload('Deployment', 'web', image='app:1'))

    res = play(sim, [include('rollout_upgrade', rollout_upgrade_timeout=60, rollout_upgrade_soak_seconds=0,
                             rollout_upgrade_workloads=[{'kind': 'Deployment', 'name': 'web',
                                                         'images': {'app': 'app:2'}}]),
                     show('rollout_upgrade_result')], module_defaults={'namespace': SHOP})

    assert res.rc == 0, res.stdout[-3000:]
    result = res.ok('show rollout_upgrade_result')['rollout_upgrade_result']
    assert result['upgraded'] == [f'Deployment {SHOP}/web'], result
    assert image_of(kube.get('Deployment', 'web', SHOP)) == 'app:2'
    assert image_of(kube.get('Deployment', 'web', 'default')) == 'app:1'


def test_rc_upgrade_role_acts_in_the_module_defaults_namespace(kubesim_factory, play):
    sim = kubesim_factory(ready_delay=0.02)
    kube = Kube(sim.kubeconfig)
    kube.create({'apiVersion': 'v1', 'kind': 'Namespace', 'metadata': {'name': SHOP}})
    for ns in (SHOP, 'default'):
        kube.request('POST', RCS.format(ns=ns), workload('ReplicationController', 'front', image='app:1',
                                                         replicas=1, ns=ns))

    res = play(sim, [include('rc_upgrade', rc_upgrade_name='front', rc_upgrade_image='app:2',
                             rc_upgrade_update_period=0.05, rc_upgrade_timeout=60),
                     show('rc_upgrade_result')], module_defaults={'namespace': SHOP})

    assert res.rc == 0, res.stdout[-3000:]
    assert rc_image(kube, SHOP) == [('front', 'app:2')]
    assert rc_image(kube, 'default') == [('front', 'app:1')]


# ---- the order: entry, role variable, module_defaults, kubeconfig context ---------------------------

def test_entry_then_role_variable_then_module_defaults(kubesim_factory, play):
    sim = kubesim_factory()
    kube = Kube(sim.kubeconfig)
    for ns in (SHOP, 'team'):
        kube.create({'apiVersion': 'v1', 'kind': 'Namespace', 'metadata': {'name': ns}})
    kube.create_rolled_out([workload('Deployment', name, ns=ns)
                            for name in ('web', 'api') for ns in (SHOP, 'team', 'default')])

    res = play(sim, [include('rollout_restart', rollout_restart_timeout=60, rollout_restart_namespace='team',
                             rollout_restart_workloads=[
                                 {'kind': 'Deployment', 'name': 'web'},
                                 {'kind': 'Deployment', 'name': 'api', 'namespace': 'default'},
                                 {'kind': 'Deployment', 'name': 'api', 'namespace': ''}])],
               module_defaults={'namespace': SHOP})

    assert res.rc == 0, res.stdout[-3000:]
    acted = sorted((ns, name) for name in ('web', 'api') for ns in (SHOP, 'team', 'default')
                   if restarted(kube, 'Deployment', name, ns))
    # An empty namespace counts as none: the role's variable.
    assert acted == [('default', 'api'), ('team', 'api'), ('team', 'web')], acted

"""playbooks/fleet.yml with fleet_atomic over ten kubesim clusters (each --nodes 1), in waves
[1, "50%", "100%"]: one cluster of the last wave rejects the new image, and every cluster the run
changed is put back, the earlier waves included. Each cluster's request log shows the release's
write, the put-back's and no other write to its workload."""

import json
import time

import pytest
import yaml

from ..conftest import Kube, read_log, workload
from .test_fleet_playbook import persisted_writes, run_fleet

pytestmark = pytest.mark.integration

NAMES = ['c%02d' % i for i in range(10)]  # waves of [1, "50%", "100%"]: c00 | c01-c05 | c06-c09
FAILING = 'c08'  # in the last wave
WAVES = {name: 1 if i == 0 else 2 if i <= 5 else 3 for i, name in enumerate(NAMES)}
RECORD = 'kubeops.rollout/release'


def start_ten(kubesim_factory, tmp_path):
    fleet = {}
    for name in NAMES:
        log = tmp_path / f'{name}.requests.jsonl'
        sim = kubesim_factory(nodes=1, time_scale=10, ready_delay=0.05, request_log=log,
                              fail_image=r'^web:2$' if name == FAILING else None)
        kube = Kube(sim.kubeconfig)
        web = workload('Deployment', 'web', image='web:1', replicas=1)
        web['spec']['progressDeadlineSeconds'] = 10  # 1 s at time-scale 10
        kube.create_rolled_out([web])
        fleet[name] = {'sim': sim, 'kube': kube, 'log': log}
    return fleet


def inventory(fleet, path):
    hosts = {name: {'kubeconfig': str(c['sim'].kubeconfig), 'context': 'kubesim'}
             for name, c in fleet.items()}
    path.write_text(yaml.safe_dump({'all': {'children': {'clusters': {'hosts': hosts, 'vars': {
        'ansible_connection': 'local', 'ansible_python_interpreter': '{{ ansible_playbook_python }}',
        'rollout_timeout': 30, 'fail_fast_seconds': 2,
        'workloads': [{'kind': 'Deployment', 'name': 'web', 'namespace': 'default',
                       'images': {'app': 'web:2'}}]}}}}}, sort_keys=False))
    return path


def workload_writes(cluster, since):
    return [w for w in persisted_writes(cluster['log'], since) if '/leases' not in w['path']]


def image(cluster):
    return cluster['kube'].get('Deployment', 'web')['spec']['template']['spec']['containers'][0]['image']


def test_a_last_wave_failure_puts_back_all_ten_clusters(kubesim_factory, tmp_path):
    fleet = start_ten(kubesim_factory, tmp_path)
    marks = {name: len(read_log(c['log'])) for name, c in fleet.items()}
    began = time.monotonic()

    run = run_fleet(tmp_path, inventory(fleet, tmp_path / 'inventory.yml'), '-e', 'fleet_atomic=true',
                    '-e', json.dumps({'fleet_waves': [1, '50%', '100%']}), '-f', '10')

    took = time.monotonic() - began
    assert run.rc == 2, run.stdout[-6000:]
    assert took < 120, took
    rows = {row['cluster']: row for row in run.results['Sum up every cluster of the run']['fleet_summary']}
    assert {name: rows[name]['wave'] for name in NAMES} == WAVES, rows
    assert {name: rows[name]['status'] for name in NAMES} == {
        name: 'failed' if name == FAILING else 'rolled back' for name in NAMES}, rows
    for name, cluster in fleet.items():
        assert image(cluster) == 'web:1', name
        annotations = cluster['kube'].get('Deployment', 'web')['metadata'].get('annotations') or {}
        assert RECORD not in annotations, name
        writes = workload_writes(cluster, marks[name])
        if name == FAILING:
            continue  # its own release put itself back (atomic): its writes are the release's
        # The release's write of the workload, then the put-back's, and nothing else.
        assert [(w['method'], w['path']) for w in writes] == \
            [('PATCH', '/apis/apps/v1/namespaces/default/deployments/web')] * 2, (name, writes)
    # The put-back went last wave first: every cluster of wave 3 before any of wave 2, and so on.
    put_back = {name: workload_writes(c, marks[name])[-1]['time']
                for name, c in fleet.items() if name != FAILING}
    for later, earlier in ((3, 2), (2, 1)):
        assert max(put_back[n] for n in put_back if WAVES[n] == later) <= \
            min(put_back[n] for n in put_back if WAVES[n] == earlier), put_back

"""Around each wave of playbooks/fleet.yml with fleet_atomic, against three kubesim clusters (one per
wave): a cluster that becomes unreachable after wave 1 is refused before any write in wave 2 (its
clusters are read again just before it), and the fleet is put back; the wave gate soaks a wave's
clusters together (fleet_wave_soak_seconds) after their own releases passed, and a pod that
restarts then fails the wave, which is put back."""

import threading
import time

import pytest

from ..conftest import Kube, read_log, workload
from .test_fleet_atomic import ATOMIC, RELEASE_1, leases, records, summary
from .test_fleet_playbook import CLUSTERS, images_of, persisted_writes, run_fleet, start_fleet, \
    write_inventory

pytestmark = pytest.mark.integration

DEPLOY = '/apis/apps/v1/namespaces/default/deployments/web'


def test_a_cluster_unreachable_after_wave_1_is_refused_before_any_write_in_wave_2(kubesim_factory, tmp_path):
    fleet = start_fleet(kubesim_factory, tmp_path)
    inventory = write_inventory(fleet, tmp_path / 'inventory.yml', 2)
    marks = {name: len(read_log(c['log'])) for name, c in fleet.items()}
    done = {}
    # The wave soak of wave 1 (3 s) leaves the time to take wave2's cluster away once the canary's
    # release wrote its workload: after the inspection, before wave 2.
    runner = threading.Thread(target=lambda: done.update(run=run_fleet(
        tmp_path, inventory, *ATOMIC, '-e', 'fleet_wave_soak_seconds=3')))
    runner.start()
    deadline = time.monotonic() + 120
    while not any(w['path'] == DEPLOY for w in persisted_writes(fleet['canary']['log'], marks['canary'])):
        assert runner.is_alive() and time.monotonic() < deadline, done.get('run') and done['run'].stdout
        time.sleep(0.05)
    fleet['wave2']['sim'].stop()
    runner.join(240)
    run = done['run']

    assert run.rc == 2, run.stdout[-6000:]
    rows = summary(run)
    assert [rows[n]['status'] for n in CLUSTERS] == ['rolled back', 'failed', 'not attempted'], rows
    assert rows['wave2']['cause'].startswith('refused before any write in its wave: wave2: cannot be read'), \
        rows['wave2']
    assert run.results['Gate the wave - soak its clusters together and measure the wave\'s analysis'] \
        ['msg'].startswith('wave 2: no wave gate (a cluster of it failed)')
    # wave2: the inspection's reads only, before it went away; not even a put-back was tried there.
    assert persisted_writes(fleet['wave2']['log'], marks['wave2']) == []
    assert persisted_writes(fleet['wave3']['log'], marks['wave3']) == []
    for name in ('canary', 'wave3'):
        assert images_of(fleet[name]) == RELEASE_1, name
        assert records(fleet[name]) == {} and leases(fleet[name]) == [], name


def test_a_pod_that_restarts_during_the_wave_soak_fails_the_wave(kubesim_factory, tmp_path):
    fleet = {}
    for name in CLUSTERS:  # on the canary's, the new web crashes 4 s after it started: after its own
        log = tmp_path / f'{name}.requests.jsonl'  # release passed, during the wave soak
        crash = {'crash_image': r'^web:2$', 'crash_after': 4} if name == 'canary' else {}
        sim = kubesim_factory(nodes=1, time_scale=10, ready_delay=0.05, request_log=log, **crash)
        kube = Kube(sim.kubeconfig)
        kube.create_rolled_out([workload('Deployment', 'web', image='web:1', replicas=2),
                                workload('StatefulSet', 'db', image='db:1', replicas=1)])
        fleet[name] = {'sim': sim, 'kube': kube, 'log': log}
    inventory = write_inventory(fleet, tmp_path / 'inventory.yml', 2)
    marks = {name: len(read_log(c['log'])) for name, c in fleet.items()}

    run = run_fleet(tmp_path, inventory, *ATOMIC, '-e', 'fleet_wave_soak_seconds=8')

    assert run.rc == 2, run.stdout[-6000:]
    rows = summary(run)
    assert [rows[n]['status'] for n in CLUSTERS] == ['failed', 'not attempted', 'not attempted'], rows
    cause = rows['canary']['cause']
    assert cause.startswith('wave 1 gate: ') and 'during the soak' in cause, cause
    assert cause.endswith('put back: Deployment default/web, StatefulSet default/db'), cause
    gate = run.results['Gate the wave - soak its clusters together and measure the wave\'s analysis']
    assert gate['failures'] == {'canary': cause.split('; put back')[0]} and gate['gated'], gate
    assert images_of(fleet['canary']) == RELEASE_1
    assert records(fleet['canary']) == {} and leases(fleet['canary']) == []
    for name in ('wave2', 'wave3'):
        assert persisted_writes(fleet[name]['log'], marks[name]) == [], name

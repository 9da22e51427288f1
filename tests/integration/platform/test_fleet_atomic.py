"""playbooks/fleet.yml with fleet_atomic against three kubesim clusters (one per wave): a failure in
the last wave puts back every earlier wave from its records, last wave first (each cluster's request
log shows the put-back and no other write); a passing fleet keeps its records until the end, then
removes them; a paused fleet goes on in the next run; an interrupted fleet is refused until
fleet_recover says resume or rollback; check mode writes nothing and names what would change."""

import json

import pytest

from ..conftest import Kube, read_log
from .test_fleet_playbook import CLUSTERS, RELEASE_2, images_of, persisted_writes, run_fleet, start_fleet, \
    write_inventory

pytestmark = pytest.mark.integration

ATOMIC = ('-e', 'fleet_atomic=true')
RELEASE_1 = {'Deployment': 'web:1', 'StatefulSet': 'db:1'}
RECORD = 'kubeops.rollout/release'
LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases'


def summary(run):
    end = run.results.get('Sum up every cluster of the run')
    assert end, f'no summary in the run:\n{run.stdout[-4000:]}'
    return {row['cluster']: row for row in end['fleet_summary']}


def records(cluster):
    kube = cluster['kube']
    out = {}
    for kind, name in (('Deployment', 'web'), ('StatefulSet', 'db')):
        text = (kube.get(kind, name)['metadata'].get('annotations') or {}).get(RECORD)
        if text:
            out[kind] = json.loads(text)
    return out


def leases(cluster):
    client = Kube(cluster['sim'].kubeconfig)
    return [item['metadata']['name'] for item in client.request('GET', LEASES)['items']]


def test_a_last_wave_failure_puts_back_every_earlier_wave(kubesim_factory, tmp_path):
    fleet = start_fleet(kubesim_factory, tmp_path, fail_image_on='wave3')
    inventory = write_inventory(fleet, tmp_path / 'inventory.yml', 2)
    marks = {name: len(read_log(c['log'])) for name, c in fleet.items()}

    run = run_fleet(tmp_path, inventory, *ATOMIC)

    assert run.rc == 2, run.stdout[-6000:]
    rows = summary(run)
    assert [rows[name]['status'] for name in CLUSTERS] == ['rolled back', 'rolled back', 'failed'], rows
    assert 'ROLLED BACK' in rows['wave3']['cause'], rows['wave3']
    assert [rows[name]['wave'] for name in CLUSTERS] == [1, 2, 3]
    for name, cluster in fleet.items():
        assert images_of(cluster) == RELEASE_1, name
        assert records(cluster) == {}, name
        assert leases(cluster) == [], name
    # The earlier waves: the release's writes, then the put-back's, and nothing else (no image write
    # after the put-back); the put-back of wave 2 came before that of wave 1.
    put_back_at = {}
    for name in ('canary', 'wave2'):
        writes = [w for w in persisted_writes(fleet[name]['log'], marks[name]) if '/leases' not in w['path']]
        templates = [w for w in writes if w['method'] == 'PATCH' and '/status' not in w['path']]
        # Per workload the release's write, then the put-back's: nothing else wrote a workload.
        assert len(templates) == 4, (name, [(w['method'], w['path']) for w in writes])
        assert [w['method'] for w in writes] == ['PATCH'] * len(writes), writes
        put_back_at[name] = templates[-1]['time']
    assert put_back_at['wave2'] <= put_back_at['canary'], put_back_at  # the last wave first
    table = run.results['Sum up every cluster of the run']['table']
    assert table[0].split() == ['CLUSTER', 'WAVE', 'STATUS', 'DETAIL'] and len(table) == 4, table


def test_a_passing_fleet_keeps_its_records_until_the_end_then_removes_them(kubesim_factory, tmp_path):
    fleet = start_fleet(kubesim_factory, tmp_path)
    inventory = write_inventory(fleet, tmp_path / 'inventory.yml', 2)
    marks = {name: len(read_log(c['log'])) for name, c in fleet.items()}

    preview = run_fleet(tmp_path, inventory, *ATOMIC, '--check')
    assert preview.rc == 0, preview.stdout[-6000:]
    for name, cluster in fleet.items():
        assert persisted_writes(cluster['log'], marks[name]) == [], name
    assert all(row['status'] == 'upgraded' and 'would change' in row['cause']
               for row in summary(preview).values()), summary(preview)

    run = run_fleet(tmp_path, inventory, *ATOMIC)

    assert run.rc == 0, run.stdout[-6000:]
    assert [row['status'] for row in summary(run).values()] == ['upgraded'] * 3
    for name, cluster in fleet.items():
        assert images_of(cluster) == RELEASE_2, name
        assert records(cluster) == {}, name
        assert leases(cluster) == [], name
    # The records were kept (sealed) until the finish, which removed them all at once.
    finish = run.results['Remove this cluster\'s records of the fleet release']
    assert finish['changed'], finish


def test_a_paused_fleet_goes_on_in_the_next_run(kubesim_factory, tmp_path):
    fleet = start_fleet(kubesim_factory, tmp_path)
    inventory = write_inventory(fleet, tmp_path / 'inventory.yml', 2)
    pause = ('-e', 'fleet_pause=next_run')

    first = run_fleet(tmp_path, inventory, *ATOMIC, *pause)

    assert first.rc == 0, first.stdout[-6000:]
    rows = summary(first)
    assert [rows[n]['status'] for n in CLUSTERS] == ['upgraded', 'not attempted', 'not attempted'], rows
    assert 'paused after wave 1' in rows['wave2']['cause']
    assert images_of(fleet['canary']) == RELEASE_2 and images_of(fleet['wave2']) == RELEASE_1
    fleet_id = records(fleet['canary'])['Deployment']['fleet']
    assert records(fleet['canary'])['Deployment']['wave'] == 1

    second = run_fleet(tmp_path, inventory, *ATOMIC, *pause)
    assert second.rc == 0, second.stdout[-6000:]
    assert 'passed already' in second.results['Inspect every cluster and plan the fleet release']['msg']
    assert images_of(fleet['wave2']) == RELEASE_2 and images_of(fleet['wave3']) == RELEASE_1
    assert records(fleet['wave2'])['Deployment']['fleet'] == fleet_id

    third = run_fleet(tmp_path, inventory, *ATOMIC, *pause)
    assert third.rc == 0, third.stdout[-6000:]
    for name, cluster in fleet.items():
        assert images_of(cluster) == RELEASE_2, name
        assert records(cluster) == {}, name


def test_a_second_fleet_is_refused_while_one_is_paused_whatever_limit_says(kubesim_factory, tmp_path):
    fleet = start_fleet(kubesim_factory, tmp_path)
    inventory = write_inventory(fleet, tmp_path / 'inventory.yml', 2)
    assert run_fleet(tmp_path, inventory, *ATOMIC, '-e', 'fleet_pause=next_run').rc == 0
    other = write_inventory(fleet, tmp_path / 'inventory-3.yml', 3)
    marks = {name: len(read_log(c['log'])) for name, c in fleet.items()}

    refused = run_fleet(tmp_path, other, *ATOMIC, '--limit', 'wave2,wave3')

    assert refused.rc == 2, refused.stdout[-6000:]
    message = refused.results['Fail the run when the fleet release was refused or failed']['msg']
    assert 'canary: another fleet release' in ' '.join(
        refused.results['Inspect every cluster and plan the fleet release']['standing'])
    assert 'refused before any write' in message and 'canary' in message, message
    for name, cluster in fleet.items():
        assert persisted_writes(cluster['log'], marks[name]) == [], name

    # fleet_recover=rollback of the paused fleet puts the canary back.
    back = run_fleet(tmp_path, inventory, *ATOMIC, '-e', 'fleet_recover=rollback')
    assert back.rc == 0, back.stdout[-6000:]
    assert summary(back)['canary']['status'] == 'rolled back'
    for name, cluster in fleet.items():
        assert images_of(cluster) == RELEASE_1, name
        assert records(cluster) == {}, name


def test_an_unreachable_cluster_in_wave_2_refuses_the_fleet_before_any_write(kubesim_factory, tmp_path):
    fleet = start_fleet(kubesim_factory, tmp_path)
    inventory = write_inventory(fleet, tmp_path / 'inventory.yml', 2)
    fleet['wave2']['sim'].stop()
    marks = {name: len(read_log(c['log'])) for name, c in fleet.items()}

    preview = run_fleet(tmp_path, inventory, *ATOMIC, '--check')
    run = run_fleet(tmp_path, inventory, *ATOMIC)

    for result in (preview, run):
        assert result.rc == 2, result.stdout[-6000:]
        plan = result.results['Inspect every cluster and plan the fleet release']
        assert plan['refused'] and plan['refusals'][0].startswith('wave2: cannot be read'), plan['refusals']
        rows = summary(result)
        assert [rows[n]['status'] for n in CLUSTERS] == ['not attempted'] * 3, rows
        assert rows['wave2']['cause'].startswith('cannot be read'), rows['wave2']
    for name in ('canary', 'wave3'):
        assert persisted_writes(fleet[name]['log'], marks[name]) == [], name
        assert images_of(fleet[name]) == RELEASE_1, name

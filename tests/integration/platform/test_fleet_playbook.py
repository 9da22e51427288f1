"""playbooks/fleet.yml against three kubesim clusters: waves, stop on failure, summary, check mode,
idempotence. Each cluster is its own kubesim with its own request log."""

import json
import os
import re
import subprocess

import pytest
import yaml

from ..conftest import BIN, CALLBACKS, ROOT, Kube, read_log, workload

pytestmark = pytest.mark.integration

CLUSTERS = ('canary', 'wave2', 'wave3')  # with serial [1, "25%", "100%"]: one cluster per wave
WRITES = ('POST', 'PUT', 'PATCH', 'DELETE')


def images(release):
    return [
        {'kind': 'Deployment', 'name': 'web', 'namespace': 'default', 'images': {'app': f'web:{release}'}},
        {'kind': 'StatefulSet', 'name': 'db', 'namespace': 'default', 'images': {'app': f'db:{release}'}},
    ]


def start_fleet(kubesim_factory, tmp_path, fail_image_on=None):
    """Three clusters, each with web (Deployment) and db (StatefulSet) at release 1."""
    fleet = {}
    for name in CLUSTERS:
        log = tmp_path / f'{name}.requests.jsonl'
        sim = kubesim_factory(time_scale=10, ready_delay=0.05, request_log=log,
                              fail_image=r'^web:2$' if name == fail_image_on else None)
        kube = Kube(sim.kubeconfig)
        web = workload('Deployment', 'web', image='web:1', replicas=2)
        web['spec']['progressDeadlineSeconds'] = 10  # 1 s at time-scale 10
        kube.create_rolled_out([web, workload('StatefulSet', 'db', image='db:1', replicas=1)])
        fleet[name] = {'sim': sim, 'kube': kube, 'log': log}
    return fleet


def write_inventory(fleet, path, release):
    hosts = {name: {'kubeconfig': str(c['sim'].kubeconfig), 'context': 'kubesim'}
             for name, c in fleet.items()}
    inventory = {'all': {'children': {'clusters': {
        'hosts': hosts,
        'vars': {'ansible_connection': 'local',
                 'ansible_python_interpreter': '{{ ansible_playbook_python }}',
                 'rollout_timeout': 30,
                 'workloads': images(release)}}}}}
    path.write_text(yaml.safe_dump(inventory, sort_keys=False))
    return path


class FleetRun:
    def __init__(self, proc, results):
        self.rc = proc.returncode
        self.stdout = proc.stdout
        self.results = results
        # PLAY RECAP: host -> {'ok': n, 'changed': n, 'failed': n, 'rescued': n, ...}
        self.recap = {m.group(1): {k: int(v) for k, v in re.findall(r'(\w+)=(\d+)', m.group(2))}
                      for m in re.finditer(r'^(\S+)\s+:\s+(ok=.*)$', proc.stdout, re.M)}

    @property
    def summary(self):
        describe = self.results.get('Describe every cluster')
        assert describe, f'no summary in the run:\n{self.stdout[-4000:]}'
        return {e['cluster']: e for e in describe['results'][-1]['ansible_facts']['fleet_summary']}


def run_fleet(tmp_path, inventory, *args):
    out = tmp_path / f'results-{len(list(tmp_path.glob("results-*")))}.json'
    env = {k: v for k, v in os.environ.items() if not k.startswith('K8S_AUTH_') and k != 'KUBECONFIG'}
    env.update({
        'ANSIBLE_CONFIG': str(ROOT / 'ansible.cfg'),
        'ANSIBLE_CALLBACK_PLUGINS': str(CALLBACKS),
        'ANSIBLE_CALLBACKS_ENABLED': 'kubeops_record',
        'KUBEOPS_RECORD_OUT': str(out),
        'ANSIBLE_NOCOLOR': '1',
        'PATH': f'{BIN}{os.pathsep}{env.get("PATH", "")}',
    })
    proc = subprocess.run([str(BIN / 'ansible-playbook'), '-i', str(inventory), 'playbooks/fleet.yml', *args],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    results = json.loads(out.read_text()) if out.exists() else {}
    return FleetRun(proc, results)


def persisted_writes(log, since=0):
    return [r for r in read_log(log)[since:] if r['method'] in WRITES and not r['dry_run']]


def state(kube):
    """Image and resourceVersion of each workload."""
    out = {}
    for kind, name in (('Deployment', 'web'), ('StatefulSet', 'db')):
        obj = kube.get(kind, name)
        out[kind] = (obj['spec']['template']['spec']['containers'][0]['image'],
                     obj['metadata']['resourceVersion'])
    return out


def images_of(cluster):
    return {kind: image for kind, (image, _) in state(cluster['kube']).items()}


RELEASE_2 = {'Deployment': 'web:2', 'StatefulSet': 'db:2'}


def test_failed_wave_stops_the_rest(kubesim_factory, tmp_path):
    fleet = start_fleet(kubesim_factory, tmp_path, fail_image_on='wave2')
    before = {name: state(c['kube']) for name, c in fleet.items()}
    marks = {name: len(read_log(c['log'])) for name, c in fleet.items()}

    run = run_fleet(tmp_path, write_inventory(fleet, tmp_path / 'inventory.yml', 2))

    assert run.rc == 2, run.stdout[-4000:]
    summary = run.summary
    assert [summary[name]['status'] for name in CLUSTERS] == ['upgraded', 'failed', 'not attempted'], summary
    assert sorted(summary['canary']['changed']) == ['Deployment default/web', 'StatefulSet default/db']
    reason = summary['wave2']['reason']
    assert 'ROLLED BACK: Deployment default/web' in reason, reason
    assert summary['wave3']['reason'] == '' and summary['wave3']['changed'] == []
    assert 'fleet: 1 of 3 cluster(s) failed: wave2. wave3 not attempted.' in \
        run.results['Fail the run when a cluster failed']['msg']

    # The canary took the release; wave2's release was put back whole (web failed, db with it).
    assert images_of(fleet['canary']) == RELEASE_2
    assert images_of(fleet['wave2']) == {'Deployment': 'web:1', 'StatefulSet': 'db:1'}
    # The later wave was never touched: same objects, not one write.
    assert state(fleet['wave3']['kube']) == before['wave3']
    assert persisted_writes(fleet['wave3']['log'], marks['wave3']) == []
    assert persisted_writes(fleet['wave2']['log'], marks['wave2'])  # the failing cluster was written to
    # In the recap, wave3 has only the fleet check before the first wave.
    wave3 = run.recap['wave3']
    assert (wave3['ok'], wave3['changed'], wave3['failed'], wave3['rescued']) == (1, 0, 0, 0), run.recap
    assert run.recap['wave2']['rescued'] == 1, run.recap


def test_check_mode_then_upgrade_then_idempotent(kubesim_factory, tmp_path):
    fleet = start_fleet(kubesim_factory, tmp_path)
    inventory = write_inventory(fleet, tmp_path / 'inventory.yml', 2)
    before = {name: state(c['kube']) for name, c in fleet.items()}
    marks = {name: len(read_log(c['log'])) for name, c in fleet.items()}

    preview = run_fleet(tmp_path, inventory, '--check', '--diff')
    assert preview.rc == 0, preview.stdout[-4000:]
    for name, c in fleet.items():
        assert persisted_writes(c['log'], marks[name]) == [], name
        assert state(c['kube']) == before[name], name
    assert {n: e['status'] for n, e in preview.summary.items()} == dict.fromkeys(CLUSTERS, 'upgraded')
    assert all(sorted(e['changed']) == ['Deployment default/web', 'StatefulSet default/db']
               for e in preview.summary.values()), preview.summary
    assert all(preview.recap[name]['changed'] > 0 for name in CLUSTERS), preview.recap
    # --diff: the pod template diffs (recorded for the last cluster) show the new images.
    diffs = preview.results['kubeops.rollout.rollout_upgrade : Release the new images']['diff']
    for side, wanted in (('before', ['db:1', 'web:1']), ('after', ['db:2', 'web:2'])):
        containers = [c for d in diffs for c in d[side]['spec']['template']['spec']['containers']]
        assert sorted(c['image'] for c in containers) == wanted

    upgrade = run_fleet(tmp_path, inventory)
    assert upgrade.rc == 0, upgrade.stdout[-4000:]
    assert {n: e['status'] for n, e in upgrade.summary.items()} == dict.fromkeys(CLUSTERS, 'upgraded')
    for c in fleet.values():
        assert images_of(c) == RELEASE_2

    marks = {name: len(read_log(c['log'])) for name, c in fleet.items()}
    again = run_fleet(tmp_path, inventory)
    assert again.rc == 0, again.stdout[-4000:]
    assert {name: again.recap[name]['changed'] for name in CLUSTERS} == dict.fromkeys(CLUSTERS, 0)
    assert all(e['changed'] == [] and e['status'] == 'upgraded' for e in again.summary.values())
    for name, c in fleet.items():
        assert persisted_writes(c['log'], marks[name]) == [], name


def test_two_hosts_on_one_cluster_stop_before_the_first_wave(kubesim_factory, tmp_path):
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(request_log=log)
    Kube(sim.kubeconfig).create_rolled_out([workload('Deployment', 'web', image='web:1', replicas=1)])
    inventory = {'clusters': {
        'hosts': {'eu': {'kubeconfig': str(sim.kubeconfig)}, 'us': {'kubeconfig': str(sim.kubeconfig)}},
        'vars': {'ansible_connection': 'local', 'ansible_python_interpreter': '{{ ansible_playbook_python }}',
                 'workloads': images(2)[:1]}}}
    path = tmp_path / 'inventory.yml'
    path.write_text(yaml.safe_dump(inventory))
    mark = len(read_log(log))

    run = run_fleet(tmp_path, path)

    assert run.rc == 2, run.stdout[-4000:]
    assert {n: e['status'] for n, e in run.summary.items()} == {'eu': 'failed', 'us': 'failed'}
    assert 'its kubeconfig and context are also those of us' in run.summary['eu']['reason']
    assert 'Note that this cluster\'s upgrade started' not in run.results
    assert persisted_writes(log, mark) == []


def test_a_misspelt_workloads_key_fails_the_cluster_before_any_write(kubesim_factory, tmp_path):
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(request_log=log)
    Kube(sim.kubeconfig).create_rolled_out([workload('Deployment', 'web', image='web:1', replicas=1)])
    entry = {'kind': 'Deployment', 'name': 'web', 'namspace': 'default', 'images': {'app': 'web:2'}}
    inventory = {'clusters': {
        'hosts': {'eu': {'kubeconfig': str(sim.kubeconfig)}},
        'vars': {'ansible_connection': 'local', 'ansible_python_interpreter': '{{ ansible_playbook_python }}',
                 'workloads': [entry]}}}
    path = tmp_path / 'inventory.yml'
    path.write_text(yaml.safe_dump(inventory))
    mark = len(read_log(log))

    run = run_fleet(tmp_path, path)

    assert run.rc == 2, run.stdout[-4000:]
    assert run.summary['eu']['status'] == 'failed', run.summary
    assert ('rollout_upgrade_workloads.namspace. Supported parameters include: change_cause, images, kind, '
            'name, namespace, to_revision.') in run.summary['eu']['reason'], run.summary
    assert read_log(log)[mark:] == []

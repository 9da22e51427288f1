"""rollout_wait, rollout_restart and rollout_rollback as one module call each, through real
ansible-playbook runs against kubesim: the wait reports per workload without failing, a serial restart
stops at the first failure and names what it did not reach, a restart since a time is idempotent,
and check mode sends no persisting write (kubesim's request log)."""

import datetime
import re
import time

import pytest

from ..conftest import Kube, caught, include, read_log, task, workload

pytestmark = pytest.mark.integration

RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt'


def writes(log):
    return [r for r in read_log(log)
            if r['method'] in ('PATCH', 'PUT', 'POST', 'DELETE') and not r.get('dry_run')]


def role_tasks(res, role):
    """The names of the tasks the role ran (the argument validation aside)."""
    prefix = f'kubeops.rollout.{role} : '
    return sorted(n[len(prefix):] for n in res.results
                  if n.startswith(prefix) and 'Validating arguments' not in n)


def changed_count(res):
    match = re.search(r'^localhost\s*:\s*ok=\d+\s+changed=(\d+)', res.stdout, re.M)
    assert match, res.stdout[-2000:]
    return int(match.group(1))


def restarted_at(kube, kind, name):
    return (kube.get(kind, name)['spec']['template']['metadata'].get('annotations') or {}).get(RESTARTED_AT)


def test_wait_role_reports_each_workload_in_one_call(kubesim_factory, play):
    sim = kubesim_factory(fail_image='broken', ready_delay=0.05)
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web'), workload('StatefulSet', 'db')])
    kube.create(workload('Deployment', 'bad', image='nginx:broken'))
    res = play(sim, [include('rollout_wait', rollout_wait_timeout=3, rollout_wait_workloads=[
        # A module's entry passes as it is (its other keys are ignored).
        {'kind': 'Deployment', 'name': 'web', 'namespace': 'default', 'changed': False, 'status': {}},
        {'kind': 'sts', 'name': 'db'},
        {'kind': 'deploy', 'name': 'bad'},
        {'kind': 'deploy', 'name': 'missing'}]),
        {'name': 'show', 'ansible.builtin.debug': {'var': 'rollout_wait_result'}}],
        extra_env={'ANSIBLE_VERBOSITY': '1'})
    assert res.rc == 0, res.stdout[-3000:]
    result = res.ok('show')['rollout_wait_result']
    assert [d['workload'] for d in result['done']] == ['Deployment default/web', 'StatefulSet default/db']
    failed = {f['workload']: f for f in result['failed']}
    assert sorted(failed) == ['Deployment default/bad', 'Deployment default/missing'], failed
    bad = failed['Deployment default/bad']
    assert bad['reason'] == 'Timeout' and bad['diagnosis'] is not None, bad
    assert any('ImagePullBackOff' in line or 'ErrImagePull' in line for line in bad['causes']), bad
    assert not bad['message'].startswith('Deployment default/bad'), bad
    assert failed['Deployment default/missing']['msg'] == 'Deployment default/missing not found'
    # The check of its variables, one module call, then the fact: no background jobs, no polling.
    assert role_tasks(res, 'rollout_wait') == ["Check the names of the role's variables",
                                               'Report which rollouts completed and which did not',
                                               'Wait for every rollout']
    assert 'async' not in res.stdout.lower() and 'RETRYING' not in res.stdout
    # kubectl's progress lines, from the one call.
    assert 'Waiting for deployment "bad" rollout to finish' in res.stdout, res.stdout[-3000:]


def test_wait_role_refuses_an_unreadable_entry_before_any_request(kubesim_factory, play, tmp_path):
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(request_log=str(log))
    res = play(sim, caught(include('rollout_wait', rollout_wait_workloads=[
        {'kind': 'Deployment', 'name': 'web'}, {'kind': 'Pod', 'name': 'p'}]), 'rollout_wait_result'))
    failed = res.failed('kubeops.rollout.rollout_wait : Wait for every rollout')
    assert 'workloads[1] (p): kind "Pod" is not a kind rollouts apply to' in failed['msg'], failed['msg']
    assert read_log(log) == []


@pytest.mark.kubesim_options(fail_image='broken', ready_delay=0.05)
def test_serial_restart_stops_at_the_first_failure(kubesim, play):
    kube = Kube(kubesim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'a'), workload('Deployment', 'c')])
    kube.create(workload('Deployment', 'b', image='nginx:broken'))
    role = include('rollout_restart', rollout_restart_serial=True, rollout_restart_timeout=3,
                   rollout_restart_workloads=[{'kind': 'Deployment', 'name': n} for n in ('a', 'b', 'c')])
    res = play(kubesim, caught(role, 'rollout_restart_result'))
    res.ok('failed')  # the role failed, after its summary
    result = res.ok('show')['rollout_restart_result']
    assert result['restarted'] == ['Deployment default/a'], result
    assert [f['workload'] for f in result['failed']] == ['Deployment default/b'], result
    assert result['failed'][0]['reason'] == 'Timeout', result
    assert [w['workload'] for w in result['not_reached']] == ['Deployment default/c'], result
    assert result['lines'][-1] == ('Not reached (one at a time stops at the first failure): '
                                   'Deployment default/c')
    assert restarted_at(kube, 'Deployment', 'a') and restarted_at(kube, 'Deployment', 'b')
    assert restarted_at(kube, 'Deployment', 'c') is None
    fail = res.failed('kubeops.rollout.rollout_restart : Fail when a restart was refused or did not roll out')
    assert fail['msg'].startswith('rollout_restart: Deployment default/b'), fail['msg']


def test_restart_since_is_idempotent_and_check_mode_writes_nothing(kubesim_factory, play, tmp_path):
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(request_log=str(log), ready_delay=0.05)
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web', labels={'part-of': 'shop'}),
                            workload('StatefulSet', 'db', labels={'part-of': 'shop'})])
    # A time after the workloads' current revisions were created (second precision): they exist by
    # now (rolled out), so the next whole second is after them, however slowly the controllers ran.
    since = datetime.datetime.utcnow().replace(microsecond=0) + datetime.timedelta(seconds=1)
    while datetime.datetime.utcnow() < since:
        time.sleep(0.05)
    role = include('rollout_restart', rollout_restart_timeout=60,
                   rollout_restart_since=since.strftime('%Y-%m-%dT%H:%M:%SZ'),
                   rollout_restart_workloads=[{'kind': 'deploy,sts', 'label_selectors': ['part-of=shop']}])
    show = {'name': 'show', 'ansible.builtin.debug': {'var': 'rollout_restart_result'}}
    both = sorted(['Deployment default/web', 'StatefulSet default/db'])

    log.write_text('')
    check = play(sim, [role, show], check=True)
    assert check.rc == 0, check.stdout[-3000:]
    assert sorted(check.ok('show')['rollout_restart_result']['restarted']) == both
    assert check.ok('show')['rollout_restart_result']['lines'][0].startswith('Would restart: ')
    assert writes(log) == [], writes(log)
    assert restarted_at(kube, 'Deployment', 'web') is None

    first = play(sim, [role, show])
    assert first.rc == 0, first.stdout[-3000:]
    assert sorted(first.ok('show')['rollout_restart_result']['restarted']) == both
    assert restarted_at(kube, 'Deployment', 'web') and restarted_at(kube, 'StatefulSet', 'db')
    stamps = (restarted_at(kube, 'Deployment', 'web'), restarted_at(kube, 'StatefulSet', 'db'))

    log.write_text('')
    second = play(sim, [role, show])
    assert second.rc == 0 and changed_count(second) == 0, second.stdout[-3000:]
    result = second.ok('show')['rollout_restart_result']
    assert result['restarted'] == [] and sorted(result['skipped']) == both, result
    assert writes(log) == []
    assert (restarted_at(kube, 'Deployment', 'web'), restarted_at(kube, 'StatefulSet', 'db')) == stamps


def test_rollback_role_check_mode_writes_nothing_and_a_rerun_changes_nothing(kubesim_factory, play, tmp_path):
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(request_log=str(log), ready_delay=0.05)
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web', image='app:1'),
                            workload('Deployment', 'api', image='api:1')])
    for name, image in (('web', 'app:2'), ('api', 'api:2')):
        kube.patch('Deployment', name, {'spec': {'template': {'spec': {'containers': [
            {'name': 'app', 'image': image}]}}}})
        kube.rolled_out('Deployment', name)
    role = include('rollout_rollback', rollout_rollback_timeout=60, rollout_rollback_show_history=False,
                   rollout_rollback_to_revision=1,
                   rollout_rollback_workloads=[{'kind': 'Deployment', 'name': 'web'},
                                               {'kind': 'Deployment', 'name': 'api'}])
    show = {'name': 'show', 'ansible.builtin.debug': {'var': 'rollout_rollback_result'}}

    log.write_text('')
    check = play(sim, [role, show], check=True, diff=True)
    assert check.rc == 0, check.stdout[-3000:]
    result = check.ok('show')['rollout_rollback_result']
    assert [w['name'] for w in result['rolled_back']] == ['web', 'api']
    assert result['lines'] == ['Deployment default/web: would be rolled back (revision 2 -> 1)',
                               'Deployment default/api: would be rolled back (revision 2 -> 1)'], result
    assert writes(log) == [], writes(log)
    assert kube.get('Deployment', 'web')['spec']['template']['spec']['containers'][0]['image'] == 'app:2'

    first = play(sim, [role, show])
    assert first.rc == 0 and changed_count(first) == 1, first.stdout[-3000:]
    log.write_text('')
    second = play(sim, [role, show])
    assert second.rc == 0 and changed_count(second) == 0, second.stdout[-3000:]
    again = second.ok('show')['rollout_rollback_result']
    assert again['rolled_back'] == [] and [w['name'] for w in again['unchanged']] == ['web', 'api']
    assert writes(log) == []
    assert role_tasks(second, 'rollout_rollback') == [
        "Check the names of the role's variables",
        'Fail when a rollback was refused or did not roll out', 'Roll back the workloads',
        'Show what was rolled back', 'Sum up the rollback']


def test_workloads_entries_resolve_once_and_refuse_before_any_write(kubesim_factory, play, tmp_path):
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(request_log=str(log), ready_delay=0.05)
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web', image='app:1', labels={'tier': 'front'})])
    kube.patch('Deployment', 'web', {'spec': {'template': {'spec': {'containers': [
        {'name': 'app', 'image': 'app:2'}]}}}})
    kube.rolled_out('Deployment', 'web')
    log.write_text('')
    res = play(sim, [
        # The same workload by name and by label, with different revisions: refused, nothing written.
        task('disagree', 'rollout_undo', workloads=[{'kind': 'Deployment', 'name': 'web', 'to_revision': 1},
                                                    {'kind': 'deploy', 'label_selectors': ['tier=front'],
                                                     'to_revision': 2}]),
        # An entry whose selector matches nothing, with require_match: refused before any write.
        task('no match', 'rollout_restart', require_match=True,
             workloads=[{'kind': 'Deployment', 'name': 'web'}, {'label_selectors': ['tier=nothing']}]),
    ])
    disagree = res.failed('disagree')['msg']
    assert disagree == ('workloads[0] (web) and workloads[1] (tier=front) both list Deployment default/web, '
                        'with different to_revision: list it once'), disagree
    no_match = res.failed('no match')['msg']
    assert no_match.startswith('workloads[1] (tier=nothing): label_selectors "tier=nothing" matched no '
                               'Deployment, StatefulSet or DaemonSet'), no_match
    assert writes(log) == []
    # Listed twice alike: rolled back once (an undo to the previous revision twice would flip back).
    res = play(sim, [task('twice', 'rollout_undo', wait=True, wait_timeout=60,
                          workloads=[{'kind': 'Deployment', 'name': 'web'},
                                     {'kind': 'deploy', 'label_selectors': ['tier=front']}])])
    twice = res.ok('twice')
    assert [(w['name'], w['from_revision'], w['to_revision']) for w in twice['workloads']] == [('web', 2, 1)]
    assert twice['outcome']['lines'] == ['Deployment default/web: rolled back (revision 2 -> 1)']
    back = kube.rolled_out('Deployment', 'web')
    assert back['spec']['template']['spec']['containers'][0]['image'] == 'app:1'

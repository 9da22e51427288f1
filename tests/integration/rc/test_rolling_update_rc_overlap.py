"""rolling_update_rc when runs overlap or die: real ansible-playbook processes against kubesim. In
every scenario kubesim's readiness log shows the ready pods never below desired - maxUnavailable,
and the end is exactly one RC at its desired replicas on the new template."""

import os
import signal
import time

import pytest

from ..conftest import Kube, read_log
from . import (RcCreations, Rcs, assert_bounds, finished_results, kill_when, pod_timeline, rc_manifest,
               start_playbook)
from .test_rolling_update_rc import _driver, assert_finished, task

from . import COLLECTIONS  # noqa: F401 - puts the collection on sys.path for the import below

pytestmark = pytest.mark.integration

REPLICAS = 4
ARGS = {'name': 'web', 'image': 'nginx:1.26'}
# Seconds after each scale-up of a run that must still be working when another one starts: on a
# busy machine ansible-playbook takes seconds to start a module.
SLOW = 2.5
LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases'
LEASE = LEASES + '/rolling-update-rc-web'


def setup(sim):
    sim.created = RcCreations(sim)
    kube = Kube(sim.kubeconfig)
    rcs = Rcs(kube)
    rcs.create(rc_manifest('web', 'nginx:1.25', REPLICAS))
    rcs.wait_ready('web')
    return kube, rcs


def new_rc(rcs):
    return next((rc for rc in rcs.list() if rc['metadata']['name'] != 'web'), None)


def new_replicas(rcs):
    return ((new_rc(rcs) or {}).get('spec') or {}).get('replicas', 0)


def lease(kube):
    try:
        return kube.request('GET', LEASE)
    except AssertionError as e:  # how the test client reports an error status
        if '-> 404' in str(e):
            return None
        raise


def assert_waited_for_the_lease(log_path):
    """The request log shows a run watching the held lease before its holder released it."""
    lease_requests = [e for e in read_log(log_path) if e['path'].startswith(LEASES)]
    released = next(i for i, e in enumerate(lease_requests) if e['method'] == 'DELETE')
    assert any('watch=true' in e['query'] for e in lease_requests[:released]), lease_requests


def wait_for(condition, timeout=60):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, 'the condition never held'
        time.sleep(0.02)


def assert_exact_end(sim, rcs, since):
    """One RC, the desired count on the new template; one new RC ever made; the bounds held."""
    assert_finished(rcs, 'web', 'nginx:1.26', REPLICAS)
    created = sim.created()
    assert len(created) == 2 and created[0] == 'web', created
    # max_surge 1, max_unavailable 0: never more than 5 pods, never fewer than 4 ready.
    timeline = pod_timeline(sim.readiness_log, 'default', set(created), since=since)
    assert_bounds(timeline, REPLICAS + 1, REPLICAS)


def test_two_runs_started_together(kubesim_factory, tmp_path):
    sim = kubesim_factory(ready_delay=0.1, request_log=tmp_path / 'requests.log')
    kube, rcs = setup(sim)
    t0 = time.monotonic()
    workdirs = [tmp_path / f'run{i}' for i in range(2)]
    # Slow runs (see SLOW), so that they overlap however unevenly ansible-playbook starts them.
    procs = [(start_playbook(sim.kubeconfig, [task('update', update_period=SLOW, **ARGS)], w), w)
             for w in workdirs]
    results = [finished_results(proc, workdir)['update'] for proc, workdir in procs]
    assert all(r['_status'] == 'ok' for r in results), [r.get('msg') for r in results]
    # One drove the update; the other waited for its lease, then found nothing left to do.
    assert sorted(r['changed'] for r in results) == [False, True], [r['msg'] for r in results]
    assert_exact_end(sim, rcs, t0)
    assert lease(kube) is None  # released
    assert_waited_for_the_lease(tmp_path / 'requests.log')


def test_second_run_started_mid_way(kubesim_factory, play, tmp_path):
    sim = kubesim_factory(ready_delay=0.15, request_log=tmp_path / 'requests.log')
    kube, rcs = setup(sim)
    t0 = time.monotonic()
    first = start_playbook(sim.kubeconfig, [task('update', update_period=SLOW, **ARGS)], tmp_path / 'first')
    wait_for(lambda: new_replicas(rcs) >= 1)
    holder = lease(kube)['spec']['holderIdentity']
    second = play(sim, [task('again', **ARGS)]).ok('again')
    assert not second['changed'] and second['steps'] == [], second['msg']
    done = finished_results(first, tmp_path / 'first')['update']
    assert done['_status'] == 'ok' and done['changed'], done.get('msg')
    assert len(holder.split('/')) == 3  # host/pid/random
    assert_exact_end(sim, rcs, t0)
    assert_waited_for_the_lease(tmp_path / 'requests.log')


def test_sigkill_of_the_play_leaves_the_module_running_and_a_rerun_waits_for_it(kubesim_factory, play,
                                                                                tmp_path):
    sim = kubesim_factory(ready_delay=0.15)
    kube, rcs = setup(sim)
    t0 = time.monotonic()
    proc = start_playbook(sim.kubeconfig, [task('update', **ARGS)], tmp_path / 'killed', new_session=True)
    wait_for(lambda: new_replicas(rcs) >= 1)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(10)
    holder = lease(kube)['spec']['holderIdentity']
    pid = int(holder.split('/')[1])
    os.kill(pid, 0)  # the module survived its play
    rerun = play(sim, [task('rerun', **ARGS)]).ok('rerun')
    # The surviving module finished the update; the re-run waited for its lease and had nothing to do.
    assert not rerun['changed'], rerun['msg']
    assert_exact_end(sim, rcs, t0)
    assert lease(kube) is None


def test_sigkill_of_everything_then_a_rerun_takes_the_dead_runners_lease_at_once(kubesim_factory, tmp_path):
    sim = kubesim_factory(ready_delay=0.15)
    kube, rcs = setup(sim)
    args = dict(ARGS, lease_duration=30)
    t0 = time.monotonic()
    proc = start_playbook(sim.kubeconfig, [task('update', **args)], tmp_path / 'killed')
    assert kill_when(proc, lambda: new_replicas(rcs) >= 2), 'the update finished before the kill'
    held = lease(kube)
    assert held is not None and held['spec']['holderIdentity']  # a dead holder's lease stays...
    killed = time.monotonic()
    # ...but its holder is a process of this host that no longer runs (killed: a zombie until it is
    # reaped, or gone; SIGKILL takes a moment to end a busy process): the lease is free at once, not
    # when it expires 30 s later. A run asked not to wait takes it over and finishes the update,
    # saying whose lease it took.
    from ansible_collections.kubeops.rollout.plugins.module_utils.engine import lease as lease_mod
    while not lease_mod.holder_gone(held['spec']['holderIdentity']):
        assert time.monotonic() - killed < 10, 'the killed holder still runs'
        time.sleep(0.05)
    rerun, _api = _driver(sim, wait_for_lease=False, **args)
    rerun.run()
    assert time.monotonic() - killed < 30, 'the rerun waited for the lease to expire'
    assert rerun.changed
    holder = held['spec']['holderIdentity']
    assert any(holder in w and 'took over' in w for w in rerun.warnings), rerun.warnings
    assert_exact_end(sim, rcs, t0)
    assert lease(kube) is None


def test_check_mode_with_read_only_rights_plans_locally(kubesim_factory, play, tmp_path):
    sim = kubesim_factory(ready_delay=0.05, tls=True, token='full-token', readonly_token='read-only-token')
    _kube, rcs = setup(sim)
    before = rcs.list()
    readonly = sim.write_kubeconfig(tmp_path / 'readonly', readonly=True)
    result = play(readonly, [task('preview', check_mode=True, **ARGS)]).ok('preview')
    assert result['changed'] and result['planned']
    assert [s['to'] for s in result['steps']] == [1, 3, 2, 2, 3, 1, 4, 0]
    assert any('computed locally' in w for w in result.get('warnings') or []), result.get('warnings')
    assert rcs.list() == before

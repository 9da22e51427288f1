"""Unit tests of module_utils/engine/lease.py (one run at a time: names, holders, expiry)."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.common import times
from ansible_collections.kubeops.rollout.plugins.module_utils.engine import lease as lease_mod

pytestmark = pytest.mark.unit


def test_lease_names_and_holders():
    assert lease_mod.lease_name('p-', 'web') == 'p-web'
    long_name = lease_mod.lease_name('p-', 'x' * 253)
    assert len(long_name) <= 253 and long_name != lease_mod.lease_name('p-', 'x' * 252)
    host, pid, random_part = lease_mod.holder_identity().split('/')
    assert host and int(pid) > 0 and len(random_part) == 8
    assert lease_mod.holder_identity() != lease_mod.holder_identity()


@pytest.mark.parametrize('spec, seen_ago, expired', [
    ({'holderIdentity': 'h/1/a', 'renewTime': 'NOW-3'}, 3, False),
    ({'holderIdentity': 'h/1/a', 'renewTime': 'NOW-11'}, 0, True),  # not renewed
    ({'holderIdentity': 'h/1/a', 'renewTime': 'NOW+60'}, 11, True),  # skewed clock, unchanged for long
    ({'holderIdentity': '', 'renewTime': 'NOW-1'}, 0, True),  # released
])
def test_lease_expiry(spec, seen_ago, expired):
    now = 1700000000.0
    spec = dict(spec, leaseDurationSeconds=10,
                renewTime=times.micro_time(now + float(spec['renewTime'][3:])))
    lease = lease_mod.Lease(None, 'default', 'p-web', 'web', 10, clock=lambda: now)
    # unchanged for as long as this run has been looking at it counts too (holder clocks may differ)
    assert lease.expired({'spec': spec}, now - seen_ago) is expired


def test_a_lost_lease_is_refused_before_the_next_write():
    subject = 'the release of Deployment shop/web'
    lease = lease_mod.Lease(None, 'shop', 'p-web', subject, 10, clock=lambda: 100.0)
    lease.check()  # never acquired, never renewed: nothing to say
    lease.renewed = 80.0
    with pytest.raises(lease_mod.LeaseLost) as e:
        lease.check()
    assert 'could not renew its Lease shop/p-web for 10s' in str(e.value)
    assert 'the release of Deployment shop/web' in str(e.value)


def test_a_lease_of_a_process_of_this_host_that_is_gone_is_free_at_once():
    import os
    import socket
    import subprocess
    import sys
    gone = subprocess.run([sys.executable, '-c', 'import os; print(os.getpid())'], capture_output=True,
                          text=True, check=True).stdout.strip()
    here = socket.gethostname()
    assert lease_mod.holder_gone('%s/%s/abcd' % (here, gone))
    assert not lease_mod.holder_gone('%s/%d/abcd' % (here, os.getpid()))  # alive
    assert not lease_mod.holder_gone('elsewhere/%s/abcd' % gone)  # another host: its lease expires
    now = 1700000000.0
    lease = lease_mod.Lease(None, 'default', 'p-web', 'web', 30, clock=lambda: now)
    spec = {'holderIdentity': '%s/%s/abcd' % (here, gone), 'leaseDurationSeconds': 30,
            'renewTime': times.micro_time(now)}
    assert lease.expired({'spec': spec}, now)


def test_a_zombie_or_missing_holder_of_this_host_is_gone_a_live_one_is_not():
    import os
    import socket
    import subprocess
    import sys
    import time

    host = socket.gethostname()
    child = subprocess.Popen([sys.executable, '-c', 'pass'])
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # exited, not reaped: a zombie
        with open('/proc/%d/stat' % child.pid) as f:
            if f.read().rpartition(')')[2].split()[0] == 'Z':
                break
        time.sleep(0.05)
    assert lease_mod.holder_gone('%s/%d/abcd' % (host, child.pid))
    child.wait()
    assert lease_mod.holder_gone('%s/%d/abcd' % (host, child.pid))  # reaped: missing
    assert not lease_mod.holder_gone('%s/%d/abcd' % (host, os.getpid()))  # this very process
    assert not lease_mod.holder_gone('another-host/%d/abcd' % child.pid)  # not ours to judge


def test_the_launcher_of_a_run_is_the_nearest_ansible_playbook_and_the_awx_job(tmp_path, monkeypatch):
    """A fake /proc: this process's parent is a worker, whose parent is ansible-playbook."""
    import os

    def proc(pid, ppid, argv):
        d = tmp_path / str(pid)
        d.mkdir()
        (d / 'cmdline').write_bytes(b'\0'.join(a.encode() for a in argv) + b'\0')
        (d / 'stat').write_text('%d (%s) S %d 1 1' % (pid, argv[0].rsplit('/', 1)[-1][:15], ppid))

    monkeypatch.setattr(os, 'getppid', lambda: 300)
    proc(300, 200, ['/usr/bin/python3', '/venv/bin/ansible-playbook', 'site.yml'])  # the worker: a fork
    proc(200, 1, ['/usr/bin/python3', '/venv/bin/ansible-playbook', 'site.yml'])
    # The worker is a fork of ansible-playbook with the same command line: the nearest one is named.
    found = lease_mod.launcher({'JOB_ID': '42'}, proc=str(tmp_path))
    assert found == {'ansiblePlaybookPid': 300, 'awxJobId': 42}
    assert lease_mod.launcher({}, proc=str(tmp_path / 'none')) == {}
    text = lease_mod.runner_text({'runner': 'h/1/ab', 'launcher': found})
    assert text == 'h/1/ab (ansible-playbook 300, AWX job 42)'
    assert lease_mod.runner_text({'runner': 'h/1/ab'}) == 'h/1/ab'

"""Unit tests of module_utils/rc/lease.py (the rolling update's lease)."""


import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.common import times

pytestmark = pytest.mark.unit


def test_lease_names_and_times():
    from ansible_collections.kubeops.rollout.plugins.module_utils.rc import lease as rc_lease
    assert rc_lease.lease_name('web') == 'rolling-update-rc-web'
    long_name = rc_lease.lease_name('x' * 253)
    assert len(long_name) <= 253 and long_name != rc_lease.lease_name('x' * 252)
    host, pid, random_part = rc_lease.holder_identity().split('/')
    assert host and int(pid) > 0 and len(random_part) == 8


@pytest.mark.parametrize('spec, seen_ago, expired', [
    ({'holderIdentity': 'h/1/a', 'renewTime': 'NOW-3'}, 3, False),
    ({'holderIdentity': 'h/1/a', 'renewTime': 'NOW-11'}, 0, True),  # not renewed
    ({'holderIdentity': 'h/1/a', 'renewTime': 'NOW+60'}, 11, True),  # skewed clock, unchanged for long
    ({'holderIdentity': '', 'renewTime': 'NOW-1'}, 0, True),  # released
])
def test_lease_expiry(spec, seen_ago, expired):
    from ansible_collections.kubeops.rollout.plugins.module_utils.rc import lease as rc_lease
    now = 1700000000.0
    spec = dict(spec, leaseDurationSeconds=10,
                renewTime=times.micro_time(now + float(spec['renewTime'][3:])))
    lease = rc_lease.UpdateLease(None, 'default', 'web', 10, clock=lambda: now)
    # unchanged for as long as this run has been looking at it counts too (holder clocks may differ)
    assert lease.expired({'spec': spec}, now - seen_ago) is expired

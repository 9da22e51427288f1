"""Unit tests of module_utils/rc/lease.py (the rolling update's lease: its name and messages)."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import UpdateError
from ansible_collections.kubeops.rollout.plugins.module_utils.rc import lease as rc_lease

pytestmark = pytest.mark.unit


def test_lease_names():
    assert rc_lease.lease_name('web') == 'rolling-update-rc-web'
    long_name = rc_lease.lease_name('x' * 253)
    assert len(long_name) <= 253 and long_name != rc_lease.lease_name('x' * 252)


class HeldApi:
    """A Lease another live run holds (renewed just now)."""

    def __init__(self, now):
        self.now = now

    def create(self, path, body, retry=False):
        from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError
        raise ApiError(409, 'AlreadyExists', 'exists')

    def get(self, path):
        from ansible_collections.kubeops.rollout.plugins.module_utils.common import times
        return {'metadata': {'name': 'rolling-update-rc-web', 'resourceVersion': '7'},
                'spec': {'holderIdentity': 'other/1/x', 'leaseDurationSeconds': 30,
                         'acquireTime': times.micro_time(self.now), 'renewTime': times.micro_time(self.now)}}


def test_a_held_lease_is_an_update_error_naming_the_holder_and_what_to_do():
    now = 1700000000.0
    lease = rc_lease.UpdateLease(HeldApi(now), 'default', 'web', 30, clock=lambda: now)
    with pytest.raises(UpdateError) as e:
        lease.acquire(wait=False, timeout=5)
    assert 'another run is updating ReplicationController "web"' in str(e.value)
    assert '"other/1/x" holds Lease default/rolling-update-rc-web' in str(e.value)
    assert 'wait_for_lease: true' in str(e.value)
    assert e.value.next_step == 'wait'


def test_a_lost_lease_stops_the_next_write_with_an_update_error():
    lease = rc_lease.UpdateLease(None, 'default', 'web', 30, clock=lambda: 0.0)
    lease.lost = 'its Lease default/rolling-update-rc-web was deleted'
    with pytest.raises(UpdateError) as e:
        lease.check()
    assert 'Another run drives the update of ReplicationController "web" now' in str(e.value)

"""The fleet release (playbooks/fleet.yml with fleet_atomic, three kubesim clusters) killed with
SIGKILL (ansible-playbook and every descendant) just after one of its writes to a workload, then run
again with fleet_recover: after ``resume`` every cluster runs the new images, after ``rollback``
the old ones (or, killed past the commit point, the rollback is refused and the resume it names
finishes the fleet: the new ones); no cluster mixed, no record or release Lease left. Three trials
here (killed in wave 2, and in the finish); KUBEOPS_FLEET_KILL_TRIALS=N adds N trials per
fleet_recover at random moments or writes (`python -m tests.kill.fleet --trials N` the same
outside pytest)."""

import os

import pytest

from .fleet import trial

pytestmark = pytest.mark.kill

MORE = int(os.environ.get('KUBEOPS_FLEET_KILL_TRIALS') or 0)


def check(verdict):
    assert not verdict['mixed'], verdict
    assert not verdict['wrong'], verdict
    assert not verdict['left'], verdict
    assert not verdict['unfinished'], verdict


@pytest.mark.parametrize('recover, after_write', [('resume', 2), ('rollback', 2), ('rollback', 4)])
def test_a_killed_fleet_ends_all_old_or_all_new_with_no_record(recover, after_write, tmp_path):
    verdict = trial(after_write, tmp_path, recover, after_write=after_write)
    assert verdict['killed'], verdict  # the kill came before the run's end
    assert verdict['passed_or_committed'] == (after_write > 3), verdict  # write 4: the first of the finish
    check(verdict)


@pytest.mark.skipif(not MORE, reason='KUBEOPS_FLEET_KILL_TRIALS is not set (random kills, many trials)')
@pytest.mark.parametrize('recover', ['resume', 'rollback'])
def test_many_random_kills(recover, tmp_path):
    for seed in range(MORE):
        check(trial(seed, tmp_path / str(seed), recover))

"""Every strategy killed (SIGKILL to ansible-playbook and every descendant) at a random moment or just
after one of its first writes, then the operator's path followed from the results alone (the same
task again, then each `next_step`): nothing is left mixed, no record or Lease is left, no run reports
a success the cluster does not have, no step leads the operator wrong. Two trials per strategy here,
killed just after its first and its third write (the task is always still running then; a random
moment may come after its end), each replayable (`python -m tests.kill --strategy S --seed N`);
`make kill-tests KILL_TRIALS=50` runs many (docs/interruptions.md has the counts of a large run)."""

import pytest

from .driver import SCENARIOS, trial

pytestmark = pytest.mark.kill


@pytest.mark.parametrize('after_write', [1, 3])
@pytest.mark.parametrize('strategy', sorted(SCENARIOS))
def test_a_killed_strategy_ends_clean_following_its_next_steps(strategy, after_write, tmp_path):
    verdict = trial(SCENARIOS[strategy], after_write, tmp_path, after_write=after_write)
    assert verdict['killed'], verdict  # the kill came before the task's end
    assert not verdict['mixed'], verdict
    assert not verdict['left'], verdict
    assert not verdict['false_success'], verdict
    assert not verdict['led_wrong'], verdict

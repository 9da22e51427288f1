"""usecases/lifecycle.py: the one lifecycle every strategy runs in (its Lease let go however the run
ends; an interruption's report), and SIGINT/SIGTERM turned into that interruption, once."""

import os
import signal
import threading

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.usecases import lifecycle

pytestmark = pytest.mark.unit


class Strategy(lifecycle.Lifecycle):
    def __init__(self, work):
        self.work = work
        self.events = []

    def _run(self):
        return self.work()

    def _stopping(self):
        self.events.append('stopping')

    def _interrupted(self):
        self.events.append('report')
        return 'interrupted'

    def _release_lease(self):
        self.events.append('lease released')


def test_the_lease_is_let_go_however_the_run_ends():
    done = Strategy(lambda: 'result')
    assert done.run() == 'result' and done.events == ['lease released']

    def fail():
        raise ValueError('boom')

    failed = Strategy(fail)
    with pytest.raises(ValueError):
        failed.run()
    assert failed.events == ['lease released']

    def interrupted():
        raise KeyboardInterrupt()

    stopped = Strategy(interrupted)
    assert stopped.run() == 'interrupted'
    assert stopped.events == ['stopping', 'lease released', 'report']


@pytest.mark.parametrize('signum', [signal.SIGINT, signal.SIGTERM])
def test_a_signal_interrupts_once_then_is_ignored_and_the_handlers_come_back(signum, monkeypatch):
    ended = threading.Event()
    monkeypatch.setattr(lifecycle, '_end_after_grace', ended.set)  # the watchdog, not the process's end
    before = signal.getsignal(signum)
    seen = []
    with lifecycle.interruptible():
        try:
            os.kill(os.getpid(), signum)
            signal.pthread_kill(threading.get_ident(), 0)  # the handler runs before this returns
        except KeyboardInterrupt:
            seen.append('interrupted')
            os.kill(os.getpid(), signum)  # a second signal during the report: ignored
            seen.append('ignored')
    assert seen == ['interrupted', 'ignored'] and ended.wait(5)
    assert signal.getsignal(signum) is before

"""Helper threads leave the signals that end a run to the main thread."""

import signal

from ansible_collections.kubeops.rollout.plugins.module_utils.common import threads


def test_a_helper_thread_blocks_the_ending_signals_and_the_caller_keeps_its_mask():
    before = signal.pthread_sigmask(signal.SIG_BLOCK, set())
    seen = {}
    thread = threads.start(lambda: seen.update(mask=signal.pthread_sigmask(signal.SIG_BLOCK, set())),
                           name='probe')
    thread.join(5)
    assert thread.daemon and thread.name == 'probe'
    assert seen['mask'] >= threads.ENDING_SIGNALS
    assert signal.pthread_sigmask(signal.SIG_BLOCK, set()) == before

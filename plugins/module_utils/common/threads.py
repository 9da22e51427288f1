# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Helper threads that leave Ctrl-C and cancels to the main thread.

A signal sent to a process is handled by any of its threads that does not block it. Python runs its
handlers in the main thread only, and only when that thread next runs Python code: a SIGINT the
kernel hands to a helper thread waits until the main thread's blocking read returns, which for a
quiet watch is its whole chunk. Every thread this collection starts blocks the signals that end a
run, so the kernel always hands them to the main thread and its read is interrupted at once."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import signal
import threading

# The signals an operator or a job runner uses to end a run.
ENDING_SIGNALS = frozenset((signal.SIGINT, signal.SIGTERM, signal.SIGHUP))


def start(target, args=(), name=None):
    """Start ``target(*args)`` in a daemon thread that never receives ``ENDING_SIGNALS``.

    The mask is set before the thread exists (a new thread inherits its creator's), so no signal can
    reach it in its first instant; the creator's own mask is put back at once, and a signal that
    arrived in between is delivered to it then."""
    thread = threading.Thread(target=target, args=args, name=name)
    thread.daemon = True
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, ENDING_SIGNALS)
    try:
        thread.start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
    return thread

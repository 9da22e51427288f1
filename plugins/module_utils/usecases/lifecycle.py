# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""One lifecycle for every strategy (the plain release, the canary phases, blue/green's states, the
traffic canary): what a run does around its work, written once.

``Lifecycle.run`` runs the strategy's ``_run`` and, whatever ends it, lets go of the Lease the run
holds (``_release_lease``: the seals of the records the run removed go with it, engine/records.py);
an interruption (SIGINT, SIGTERM: ``interruptible`` turns them into KeyboardInterrupt) stops the
strategy's waits (``_stopping``), lets go of the Lease in the background for at most
``LEASE_RELEASE_SECONDS`` and returns the strategy's interruption report (``_interrupted``), which
names what was written and how to resume or put it back.

``interruptible()`` is the process's side: while a strategy runs, SIGINT (Ctrl-C, which
ansible-playbook passes on to its worker) and SIGTERM (an AWX cancel, a kill) raise
KeyboardInterrupt once, then are ignored, and the process ends after ``GRACE_SECONDS`` whatever
happens, so that a report and a Lease release are never cut short, nor outlive the grace.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import contextlib
import os
import signal
import time

from ansible_collections.kubeops.rollout.plugins.module_utils.common import threads

# Seconds an interrupted run has to report and release its Lease before its process ends anyway.
GRACE_SECONDS = 5
# Seconds the report waits for the Lease's release (it goes on in the background until the grace).
LEASE_RELEASE_SECONDS = 2


class Lifecycle:
    """What every strategy shares. A subclass answers ``_run`` (the work, returning its result),
    ``_interrupted`` (the result of an interrupted run), ``_release_lease`` (let go of its Lease),
    and may answer ``_stopping`` (stop its waits). ``next_step``: the one step its refusal or its
    interruption names (usecases/release/targets.py: RERUN, WAIT, an option, a command)."""

    next_step = None

    def suggest(self, step):
        """Name ``step`` as what to do next (the first named wins: the one the message leads with)."""
        self.next_step = self.next_step or step

    def run(self):
        try:
            result = self._run()
        except KeyboardInterrupt:
            self._stopping()
            # The Lease goes too, but the report does not wait on it: ansible-playbook is exiting.
            threads.start(self._release_lease, name='lease-release').join(LEASE_RELEASE_SECONDS)
            return self._interrupted()
        except BaseException:
            self._release_lease()
            raise
        self._release_lease()
        return result

    def _stopping(self):
        """An interruption: stop what waits (default: nothing to stop)."""

    def _run(self):
        raise NotImplementedError

    def _interrupted(self):
        raise NotImplementedError

    def _release_lease(self):
        raise NotImplementedError


def _interrupt(_signum, _frame):
    # Once: the report and the Lease's release must not be cut short by another signal; and never
    # longer than the grace.
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_IGN)
    threads.start(_end_after_grace, name='interrupt-watchdog')
    raise KeyboardInterrupt()


def _end_after_grace():
    time.sleep(GRACE_SECONDS)
    os._exit(1)


@contextlib.contextmanager
def interruptible():
    """SIGINT and SIGTERM interrupt what runs inside (KeyboardInterrupt), once; the handlers before
    are put back after. Outside the main thread no handler can be set: the signals act as usual."""
    previous = {}
    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            previous[signum] = signal.signal(signum, _interrupt)
        except ValueError:
            pass
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The rollout engine: waiting for a set of rollouts, with every gate, in one place.

A ``Rollout`` is one workload being waited for: its ``Workload`` (the kind stays a class), the
object the wait starts from, the predicate it waits for (the kind's rollout status, after a change,
until old pods are gone, a canary's hold, ...) and whether the health gates apply to it. An
``Engine`` waits for several at once (``wait``): progress lines, early stop on a blocking cause, a
rollout the tool drives itself (an OnDelete StatefulSet's pods, a canary's pause), and a diagnosis
of every rollout that ends on its deadline or the timeout; then ``soak`` runs the soak and the
analysis over those that completed. ``watch_all`` is both. The modules' waits, a release, every
phase of a canary and the put-back all wait here; ``fan_out`` is the one place threads are made.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import collections
import contextlib
import threading
import time

from ansible_collections.kubeops.rollout.plugins.module_utils.api.shared_lists import (
    WAIT_WATCH_SECONDS,
    SharedLists,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.common import threads
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import KubeError, error_text
from ansible_collections.kubeops.rollout.plugins.module_utils.engine import ondelete
from ansible_collections.kubeops.rollout.plugins.module_utils.engine.watch import settled, wait_for
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.wait_options import GateOptions
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.status import (
    UNFINISHED_REASONS,
    RolloutStatus,
)

# The reason of a wait ended by an API error (the error itself is the status's ``error``).
REQUEST_FAILED = 'RequestFailed'
# The reason of a wait ended by a bug (never expected: one broken wait must not hide the others).
ERROR = 'Error'
# Gated rollouts of one namespace waiting at once from which their probes share their LISTs (below
# it, a LIST per rollout with its selector costs the API server less than the namespace's whole list).
SHARED_READS_FROM = 5
# Seconds between two lines saying what a long wait or soak still waits for.
HEARTBEAT_SECONDS = 30
# The note of a rollout whose wait is met (a Rollout's default ``ending``).
ROLLED_OUT = 'rolled out'


class Rollout:
    """One workload the engine waits for.

    ``workload``: its Workload as read (the kind is its class); ``obj``: the object the wait starts
    from (a write's answer, else the object read); ``predicate(obj) -> RolloutStatus`` (default: the
    kind's rollout status); ``gated``: the early stop, the diagnosis and the soak apply (not to a
    custom wait such as a pause being observed); ``written``: this run changed its template, so the
    soak counts every restart of its new pods; ``drive(engine, rollout, timeout)``: a procedure that
    replaces the one watch (a canary's start), returning a RolloutStatus; ``ending``: what its note
    says when the wait is met (a canary held, a preview's pods Ready: not "rolled out").
    """

    def __init__(self, workload, obj=None, predicate=None, gated=True, written=False, label=None, drive=None,
                 ending=ROLLED_OUT):
        self.workload = workload
        self.obj = obj if obj is not None else workload.obj
        self.predicate = predicate or workload.rollout_status
        self.gated = gated
        self.written = written
        self.label = label or workload.label()
        self.drive = drive
        self.ending = ending
        self.last = self.obj  # the newest object a wait saw
        self.deleted_pods = []  # pods the engine deleted to roll it out (OnDelete)
        self.result = None  # the RolloutStatus it ended with

    def latest(self):
        """The workload as last seen, as an object of its kind."""
        return type(self.workload)(self.last)


def failure(err):
    """The RolloutStatus of a wait or a gate that an error ended (``error``: the KubeError, if one)."""
    if isinstance(err, KubeError):
        result = RolloutStatus(False, error_text(err), REQUEST_FAILED, failed=True)
        result.error = err
        return result
    return RolloutStatus(False, 'unexpected error: %s: %s' % (type(err).__name__, err), ERROR, failed=True)


def _count(n, word):
    return '%d %s%s' % (n, word, '' if n == 1 else 's')


def _ending(rollout, result):
    """How a rollout's wait ended, in a few words."""
    if result.done:
        return rollout.ending
    return 'not rolled out: %s' % result.message


def fan_out(calls, on_error=failure):
    """Run ``calls`` (functions of no argument) at once and return their answers in order; an
    exception in one becomes ``on_error(exception)`` in its place. A single call runs in the caller's
    thread. The caller joins in short steps, so a signal reaches the main thread at once."""
    results = [None] * len(calls)

    def run(i):
        try:
            results[i] = calls[i]()
        except Exception as e:  # one broken call must not hide the others
            results[i] = on_error(e)

    if len(calls) == 1:
        run(0)
        return results
    helpers = [threads.start(run, (i,)) for i in range(len(calls))]
    for thread in helpers:
        while thread.is_alive():
            thread.join(0.2)
    return results


def _default_line(rollout, status):
    return '%s: %s' % (rollout.label, status.message)


class Engine:
    """Waits for rollouts with the gates of ``gates`` (GateOptions: early stop, soak, analysis).

    ``progress(line)`` hears each change of a rollout's status message (``line(rollout, status)``
    words it: kubectl's lines); ``note(line)``, the lines an operator follows at the default
    verbosity: what is waited for, each rollout's end, a blocking cause as soon as a probe sees it,
    and every ``HEARTBEAT_SECONDS`` what is still waited for. ``stopped()`` true ends every wait and
    the soak at their next step.
    """

    def __init__(self, client, gates=None, progress=None, line=_default_line, clock=time.monotonic,
                 sleep=time.sleep, stopped=None, note=None, heartbeat=HEARTBEAT_SECONDS):
        self.client = client
        self.gates = gates or GateOptions()
        self.note = note or (lambda text: None)
        self.heartbeat = heartbeat if note is not None else None
        self.progress = progress or (lambda text: None)
        self.line = line
        self.clock = clock
        self.sleep = sleep
        self.stopped = stopped or (lambda: False)
        self.soaked = False  # a soak ran (over at least one completed rollout)
        self._readers = {}  # namespace -> the SharedLists its rollouts' probes read through, while they wait

    # -- one rollout
    @contextlib.contextmanager
    def _probe(self, rollout):
        """While the block runs: the early stop of ``rollout``'s wait, or None. Its looks read the
        namespace's shared reader, else one of its own whose copies of the workload's pods, revisions
        and Warning events are LISTed once and then kept by watches (a look sends no request); that
        reader is closed when the block ends."""
        if not (rollout.gated and self.gates.fail_fast_seconds):
            yield None
            return
        from ansible_collections.kubeops.rollout.plugins.module_utils.gates import health
        reader = self._readers.get(rollout.workload.namespace)
        own = None
        if reader is None:
            reader = own = SharedLists.scoped(self.client, health.probe_scopes(rollout.workload),
                                              clock=self.clock)
        early = health.EarlyStop(reader, self.gates.fail_fast_seconds, clock=self.clock,
                                 on_cause=lambda text: self.note('%s: %s' % (rollout.label, text)))
        try:
            yield lambda obj: early(type(rollout.workload)(obj))
        finally:
            if own is not None:
                own.close()

    def _report(self, rollout):
        return lambda obj, status: self.progress(self.line(rollout, status))

    def watch(self, rollout, predicate, timeout, obj=None):
        """Follow ``rollout`` from ``obj`` (default: where it starts) until ``predicate`` says done or
        failed, or ``timeout``; early stop as the gates say. Keeps the newest object in ``last``."""
        start = rollout.obj if obj is None else obj

        def judge(seen):
            rollout.last = seen
            return predicate(seen)

        if settled(start, predicate):
            return wait_for(self.client, rollout.workload.collection_path(rollout.workload.namespace), start,
                            judge, timeout, clock=self.clock, progress=self._report(rollout))
        with self._probe(rollout) as probe:
            return wait_for(self.client, rollout.workload.collection_path(rollout.workload.namespace), start,
                            judge, timeout, clock=self.clock, progress=self._report(rollout), probe=probe,
                            probe_interval=self.gates.probe_interval, stopped=self.stopped)

    def wait_one(self, rollout, timeout):
        """The rollout of ``rollout``: its own procedure, the pods of an OnDelete StatefulSet replaced,
        or one watch. Returns its RolloutStatus."""
        if rollout.drive is not None:
            return rollout.drive(self, rollout, timeout)
        if rollout.workload.rolled_out_by_deleting_pods(rollout.obj):
            with self._probe(rollout) as probe:
                result, deleted = ondelete.roll(
                    self.client, rollout.obj, timeout, probe, self.gates.probe_interval,
                    clock=self.clock, progress=self._report(rollout), stopped=self.stopped)
            rollout.deleted_pods.extend(deleted)
            return result
        return self.watch(rollout, rollout.predicate, timeout)

    def _answered(self, rollout):
        """``rollout``'s result, reported, when the object it starts from already settles it; else
        None (a predicate that raises is left to the wait, which reports the error)."""
        if rollout.drive is not None or rollout.workload.rolled_out_by_deleting_pods(rollout.obj):
            return None
        try:
            result = rollout.predicate(rollout.obj)
        except Exception:
            return None
        if not (result.done or result.failed):
            return None
        self._report(rollout)(rollout.obj, result)
        return result

    @contextlib.contextmanager
    def _shared_reads(self, waiting):
        """While the block runs: where ``SHARED_READS_FROM`` or more gated rollouts of one namespace
        wait at once, their probes read the namespace's pods, revisions and warnings from one watched
        copy of each list (one LIST and a WATCH for all of them instead of a LIST per rollout per
        probe). The readers made here are closed when the block ends, which ends their watches."""
        counts = collections.Counter(r.workload.namespace for r in waiting if r.gated)
        made = [namespace for namespace, count in counts.items()
                if count >= SHARED_READS_FROM and namespace not in self._readers]
        for namespace in made:
            self._readers[namespace] = SharedLists(self.client, self.gates.probe_interval, clock=self.clock,
                                                   watch_seconds=WAIT_WATCH_SECONDS)
        try:
            yield
        finally:
            for namespace in made:
                self._readers.pop(namespace).close()

    def diagnose(self, rollout):
        """Why ``rollout`` did not progress: the diagnosis of its pods, from the newest object its
        wait saw. A diagnosis that cannot be read says so instead of failing."""
        from ansible_collections.kubeops.rollout.plugins.module_utils.gates import diagnosis
        try:
            return diagnosis.read_diagnosis(self.client, rollout.latest())
        except KubeError as e:
            return {'causes': [], 'lines': ['the diagnosis could not be read: %s' % error_text(e)],
                    'pods': {}, 'events': []}

    # -- a set of rollouts
    def wait(self, rollouts, timeout):
        """Wait for every rollout at once; each gets its ``result`` (a wait an error ended has a failed
        result with ``error``). A gated rollout that ends on its deadline or the timeout is diagnosed.
        Returns the results in order."""
        # A rollout the object already answers is judged here, once, without a request or a thread.
        for rollout in rollouts:
            rollout.result = self._answered(rollout)
        waiting = [r for r in rollouts if r.result is None]
        if waiting:
            labels = ', '.join(r.label for r in waiting)
            self.note('waiting for %s (up to %d s): %s' % (_count(len(waiting), 'rollout'), timeout, labels))
        left, lock = list(waiting), threading.Lock()

        def still():
            with lock:
                labels = [r.label for r in left]
            return 'still waiting for %d of %s: %s' % (len(labels), _count(len(waiting), 'rollout'),
                                                       ', '.join(labels))

        def one(rollout):
            result = self.wait_one(rollout, timeout)
            with lock:
                left.remove(rollout)
            self.note('%s: %s' % (rollout.label, _ending(rollout, result)))
            return result

        with self._heartbeat(still, timeout), self._shared_reads(waiting):
            answers = fan_out([lambda r=r: one(r) for r in waiting])
        for rollout, result in zip(waiting, answers):
            rollout.result = result
        for rollout in rollouts:
            result = rollout.result
            if rollout.gated and result.reason in UNFINISHED_REASONS and result.diagnosis is None:
                result.diagnosis = self.diagnose(rollout)
        return [r.result for r in rollouts]

    def soak(self, rollouts):
        """The soak and the analysis over the gated rollouts that completed; a failure replaces the
        result of the rollout it concerns (an analysis failure: of each one that completed)."""
        if not self.gates.soaks:
            return [r.result for r in rollouts]
        from ansible_collections.kubeops.rollout.plugins.module_utils.gates import health
        done = [r for r in rollouts if r.gated and r.result is not None and r.result.done]
        if done:
            self.soaked = True
            targets = [(r.latest(), r.written) for r in done]
            soak = health.Soak(self.client, self.gates, clock=self.clock, sleep=self.sleep,
                               progress=self.progress, stopped=self.stopped)
            self.note('soaking %s (%d s%s)' % (', '.join(r.label for r in done), self.gates.soak_seconds,
                                               ', then the analysis' if self.gates.analysis else ''))
            try:
                with self._heartbeat(lambda: 'still soaking %s' % ', '.join(r.label for r in done), None):
                    verdicts, analysis_failure = soak.run(targets)
            except KubeError as e:
                verdicts, analysis_failure = [health.soak_error(e, w) for w, _fresh in targets], None
            for rollout, verdict in zip(done, verdicts):
                if verdict is not None:
                    rollout.result = verdict
                elif analysis_failure is not None:
                    rollout.result = analysis_failure
                if verdict is not None or analysis_failure is not None:
                    self.note('%s: not ready after the soak: %s' % (rollout.label, rollout.result.message))
        return [r.result for r in rollouts]

    @contextlib.contextmanager
    def _heartbeat(self, words, timeout):
        """While the block runs: every ``heartbeat`` seconds a note of ``words()``, how long so far
        and, given a ``timeout``, how long at most is left."""
        done = threading.Event()
        start = self.clock()

        def beat():
            while not done.wait(self.heartbeat):
                spent = self.clock() - start
                left = '' if timeout is None else ', at most %d s more' % max(0, timeout - spent)
                self.note('%s (%d s so far%s)' % (words(), spent, left))

        helper = threads.start(beat, name='heartbeat') if self.heartbeat else None
        try:
            yield
        finally:
            done.set()
            if helper is not None:
                helper.join(1)

    def watch_all(self, rollouts, timeout):
        """``wait``, then ``soak`` over those that completed: each rollout's final result, in order."""
        self.wait(rollouts, timeout)
        return self.soak(rollouts)

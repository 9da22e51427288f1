# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Timestamps every task and notes where the API server's request log stood when it started.

Benchmark and request-budget harness only (not collection content). Enabled with
``ANSIBLE_CALLBACKS_ENABLED=bench_timer`` and ``ANSIBLE_CALLBACK_PLUGINS=<this directory>``; writes
one JSON object per event to ``$BENCH_TIMER_OUT``. With ``$BENCH_REQUEST_LOG`` set, every event
carries that file's size, so the requests a task caused are the log's bytes between its start and
its result (kubesim logs a request before it answers, so none arrives late).

A task's time is the interval from its start to the next task's start (or the end of the play): all
the controller-side cost of a task (templating, forking the worker, building and running the module,
processing its result) falls inside it, as it does when timing whole playbooks of N tasks.
"""

import json
import os
import time

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = """
    name: bench_timer
    type: aggregate
    short_description: per-task timestamps and request log offsets for the benchmark
    description: Writes task start and result events as JSON lines to $BENCH_TIMER_OUT.
    requirements:
      - enable in configuration
"""


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'aggregate'
    CALLBACK_NAME = 'bench_timer'
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super().__init__()
        self._out = open(os.environ['BENCH_TIMER_OUT'], 'a')  # noqa: SIM115
        self._log = os.environ.get('BENCH_REQUEST_LOG')

    def _offset(self):
        if not self._log:
            return None
        try:
            return os.path.getsize(self._log)
        except OSError:
            return 0

    def _emit(self, **event):
        event['t'] = time.monotonic()
        event['offset'] = self._offset()
        self._out.write(json.dumps(event) + '\n')
        self._out.flush()

    def v2_playbook_on_task_start(self, task, is_conditional):
        self._emit(event='start', task=task.get_name())

    def _result(self, status, result):
        res = result._result
        event = {'event': 'result', 'task': result._task.get_name(), 'status': status,
                 'changed': bool(res.get('changed'))}
        if status == 'failed':
            event['msg'] = str(res.get('msg') or res.get('stderr') or '')[:2000]
        self._emit(**event)

    def v2_runner_on_ok(self, result):
        self._result('ok', result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._result('failed', result)

    def v2_runner_on_skipped(self, result):
        self._result('skipped', result)

    def v2_runner_on_unreachable(self, result):
        self._result('failed', result)

    def v2_runner_item_on_ok(self, result):
        self._emit(event='item', task=result._task.get_name(), status='ok')

    def v2_runner_item_on_failed(self, result):
        self._emit(event='item', task=result._task.get_name(), status='failed')
        self._result('failed', result)

    def v2_playbook_on_stats(self, stats):
        self._emit(event='end')
        self._out.close()

# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Records every task result as JSON (test harness only, not collection content).

Enabled with ``ANSIBLE_CALLBACKS_ENABLED=kubeops_record`` and ``ANSIBLE_CALLBACK_PLUGINS=<here>``;
writes ``{task name: result}`` (a list of results for looped tasks) to ``$KUBEOPS_RECORD_OUT``.
With ``$KUBEOPS_REQUEST_LOG`` (kubesim's request log) each result also lists, under ``_requests``,
the API requests logged while the task ran.
"""

import json
import os
import time

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = """
    name: kubeops_record
    type: aggregate
    short_description: task results as JSON for the integration tests
    description: Writes every task result to $KUBEOPS_RECORD_OUT.
    requirements:
      - enable in configuration
"""


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'aggregate'
    CALLBACK_NAME = 'kubeops_record'
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super().__init__()
        self.results = {}
        self.started = {}
        self.log_start = {}

    @staticmethod
    def _log_lines():
        path = os.environ.get('KUBEOPS_REQUEST_LOG')
        if not path or not os.path.exists(path):
            return []
        with open(path) as f:
            return [json.loads(line) for line in f if line.strip()]

    def v2_playbook_on_task_start(self, task, is_conditional):
        self.started[task.get_name()] = time.monotonic()
        self.log_start[task.get_name()] = len(self._log_lines())

    def _record(self, result, status):
        data = dict(result._result)
        data['_status'] = status
        start = self.started.get(result._task.get_name())
        data['_duration'] = time.monotonic() - start if start is not None else None
        if os.environ.get('KUBEOPS_REQUEST_LOG'):
            data['_requests'] = self._log_lines()[self.log_start.get(result._task.get_name(), 0):]
        name = result._task.get_name()
        if 'results' in data:  # a looped task: keep the per-item results
            data['results'] = [dict(r) for r in data['results']]
        self.results[name] = data

    def v2_runner_on_ok(self, result):
        self._record(result, 'ok')

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._record(result, 'failed')

    def v2_runner_on_skipped(self, result):
        self._record(result, 'skipped')

    def v2_playbook_on_stats(self, stats):
        with open(os.environ['KUBEOPS_RECORD_OUT'], 'w') as f:
            json.dump(self.results, f, default=str)

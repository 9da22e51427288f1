# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Running a module's own code in the controller process.

Every module of the collection has an action plugin of the same name built on ``ModuleAction``.
When the task runs on the controller itself (the ``local`` connection, no ``become``, no
``async``), the plugin imports the module and calls its ``main(runtime)`` with a
``ControllerRuntime``: no AnsiballZ payload, no new Python process, and waits can print
progress while they run. Otherwise, or when ``kubeops_rollout_module_path`` (a task or host
variable) or ``KUBEOPS_ROLLOUT_MODULE_PATH`` (in the controller's environment) is true, the module
runs exactly as without the plugin; the notes and lines it would have printed, which it hands over in
its result, are then printed once it ends (``show_module_output``).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import collections
import contextlib
import importlib
import json
import os
import sys

from ansible.module_utils.common.parameters import remove_values
from ansible.module_utils.parsing.convert_bool import boolean
from ansible.plugins.action import ActionBase
from ansible.utils.vars import merge_hash
from ansible.utils.display import Display

from ansible_collections.kubeops.rollout.plugins.plugin_utils import ansible_compat, bytecode

COLLECTION = 'kubeops.rollout'
FORCE_MODULE_VAR = 'kubeops_rollout_module_path'
FORCE_MODULE_ENV = 'KUBEOPS_ROLLOUT_MODULE_PATH'
# Progress lines (kubectl's status lines) need -v; notes (what a long operation does) show at every
# verbosity, as AWX runs jobs.
PROGRESS_VERBOSITY = 1
# On the controller every module_utils file is imported with the module's own code (see ModuleAction),
# once, rather than compiled again in every task's worker that needs one: a module process imports
# some of them only when its task needs them (a wait, a canary, the analysis, a restart on
# configuration change, an auth-provider entry). The list is read from the files, so it misses none.


def _module_utils_names():
    root = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'module_utils')
    names = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(('_', '.')))
        rel = os.path.relpath(folder, root)
        prefix = '' if rel == os.curdir else rel.replace(os.sep, '.') + '.'
        names.extend(prefix + f[:-3] for f in sorted(files) if f.endswith('.py') and f != '__init__.py')
    return tuple(names)


ON_DEMAND_MODULE_UTILS = _module_utils_names()

display = Display()


@contextlib.contextmanager
def process_environment(env):
    """``os.environ`` as the module process would have it, ``env`` (the controller's environment and
    the task's ``environment:``), while the module's code runs in this worker, then as it was.

    Code that reads the process environment rather than ``runtime.env`` (the analysis checks'
    proxies: ``http_proxy``, ``https_proxy``, ``no_proxy``; OpenSSL's ``SSL_CERT_FILE``) then sees
    what it would see on the module path. Each task runs in a worker process of its own (forked by
    ansible-core's strategy), so no other task sees the change."""
    saved = dict(os.environ)
    for name, value in env.items():
        if saved.get(name) != value:
            os.environ[name] = value
    for name in set(saved) - set(env):
        del os.environ[name]
    try:
        yield
    finally:
        for name in set(os.environ) - set(saved):
            del os.environ[name]
        for name, value in saved.items():
            if os.environ.get(name) != value:
                os.environ[name] = value


def show_note(host, line):
    """A note as both paths print it: ``<host> line``."""
    display.display('<%s> %s' % (host, line))


def show_module_output(host, result):
    """What a module process kept for the end of its task (module_utils/adapter/module.py,
    ``OUTPUT_KEY``, already without no_log values), printed as the controller path prints it live,
    and taken out of the result."""
    from ansible_collections.kubeops.rollout.plugins.module_utils.adapter.module import NOTE, OUTPUT_KEY
    output = result.pop(OUTPUT_KEY, None)
    if not isinstance(output, list):
        return
    for kind, line in (entry for entry in output if isinstance(entry, list) and len(entry) == 2):
        if kind == NOTE:
            show_note(host, line)
        else:
            display.display(line)


class ModuleExit(BaseException):
    """``exit_json`` / ``fail_json`` on the controller. A BaseException, as SystemExit is in a module
    process, so that a module's ``except Exception`` never swallows its own exit."""

    def __init__(self, result):
        super(ModuleExit, self).__init__('module exit')
        self.result = result


_FIELDS = 'module_name args check_mode diff env host invocation'


class TaskContext(collections.namedtuple('TaskContext', _FIELDS, defaults=(True,))):
    """What a runtime needs from the task: its arguments, check and diff mode, the environment the
    module would have run in (the controller's plus the task's ``environment:``), where progress
    goes, and whether the result carries ``invocation`` (as ansible-core would give it to a module)."""

    __slots__ = ()

    def runtime(self, **spec):
        return ControllerRuntime(self, **spec)


class ControllerRuntime:
    """The module runtime interface (see module_utils/adapter/module.py, ``AnsibleRuntime``) on the
    controller: the module's own argument spec checked by ansible-core's ArgumentSpecValidator,
    results built as AnsibleModule builds them (invocation, warnings, deprecations, no_log values
    removed)."""

    def __init__(self, context, argument_spec, supports_check_mode=False, mutually_exclusive=None,
                 required_together=None, required_one_of=None, required_if=None, required_by=None):
        self._context = context
        self._name = context.module_name
        self.argument_spec = argument_spec
        self.check_mode = context.check_mode
        self.diff = context.diff
        self.env = context.env
        self.no_log_values = set()
        self._warnings = []
        self._deprecations = []
        self.params = dict(context.args)
        validation = ansible_compat.validate_arguments(
            argument_spec, self.params, mutually_exclusive, required_together, required_one_of,
            required_if, required_by)
        self.params.update(validation.params)
        self.no_log_values.update(validation.no_log_values)
        # As the module path's runtime: secrets inside option values are hidden from the start.
        # Imported with the module's code (ModuleAction), through the bytecode cache.
        from ansible_collections.kubeops.rollout.plugins.module_utils.adapter.module import option_secrets
        self.no_log_values.update(option_secrets(self.params))
        for d in validation.deprecations:
            self.deprecate(d['msg'], version=d.get('version'), date=d.get('date'),
                           collection_name=d.get('collection_name'))
        for option, alias in validation.alias_warnings:
            self.warn('Both option %s and its alias %s are set.' % (option, alias))
        if validation.error:
            msg = validation.error
            if validation.unsupported:
                msg = 'Unsupported parameters for (%s) module: %s' % (self._name, msg)
            self.fail_json(msg=msg)
        if self.check_mode and not supports_check_mode:
            self.exit_json(skipped=True, msg='remote module (%s) does not support check mode' % self._name)

    def warn(self, warning):
        self._warnings.append(warning)

    def deprecate(self, msg, version=None, date=None, collection_name=None):
        entry = {'msg': msg, 'collection_name': collection_name or COLLECTION}
        if date is not None:
            entry['date'] = date
        else:
            entry['version'] = version
        self._deprecations.append(entry)

    @staticmethod
    def run_process(argv, env, timeout, max_output):
        """An exec credential plugin's program, started in this process (process_runner.py)."""
        from ansible_collections.kubeops.rollout.plugins.plugin_utils import process_runner
        return process_runner.run(argv, env, timeout, max_output)

    def progress(self, line):
        display.verbose(remove_values(line, self.no_log_values), host=self._context.host,
                        caplevel=PROGRESS_VERBOSITY - 1)

    def note(self, line):
        show_note(self._context.host, remove_values(line, self.no_log_values))

    def show(self, lines):
        for line in lines:
            display.display(remove_values(line, self.no_log_values))

    def prepare_alert(self):
        """Open ansible-playbook's stderr for ``alert``, while ansible-playbook is there: a task's
        worker has its own stdio detached (ansible-core 2.19), and after SIGINT or SIGTERM
        ansible-playbook exits before a displayed line or the task's result reaches it. Linux's
        /proc gives the worker its parent's stderr; elsewhere the worker's own stderr is used."""
        if getattr(self, '_alert_stream', None) is not None:
            return
        try:
            self._alert_stream = open('/proc/%d/fd/2' % os.getppid(), 'a')  # noqa: SIM115 - kept open
        except OSError:
            self._alert_stream = sys.__stderr__

    def abandon(self):
        """After SIGINT or SIGTERM, once the report is out: ansible-playbook is exiting and reads no
        result any more, so this worker ends here rather than wait to hand one over."""
        try:
            self._alert_stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
        os._exit(1)

    def alert(self, lines):
        """Lines printed at once, straight to where ansible-playbook prints its errors."""
        self.prepare_alert()
        try:
            for line in lines:
                self._alert_stream.write(remove_values(line, self.no_log_values) + '\n')
            self._alert_stream.flush()
        except (OSError, ValueError, AttributeError):
            pass

    def exit_json(self, **result):
        raise ModuleExit(self._formatted(result))

    def fail_json(self, msg, **result):
        result.update(failed=True, msg=str(msg))
        raise ModuleExit(self._formatted(result))

    def _formatted(self, result):
        if self._context.invocation:
            result.setdefault('invocation', {'module_args': self.params})
        else:
            result.pop('invocation', None)
        if self._warnings:
            result['warnings'] = list(self._warnings)
        if self._deprecations:
            result['deprecations'] = list(self._deprecations)
        # As AnsibleModule: no_log values go, booleans and None stay.
        preserved = {k: v for k, v in result.items() if v is None or isinstance(v, bool)}
        result = remove_values(result, self.no_log_values)
        result.update(preserved)
        # What the module path's JSON hand-over makes of it (tuples become lists, keys strings).
        return json.loads(json.dumps(result))


@ansible_compat.supports_check_mode_and_async
class ModuleAction(ActionBase):
    """An action plugin that runs its module on the controller when it can (see the module docstring).
    A plugin names its module: ``module = 'rollout_history'``."""

    module = None
    _code = None

    def __init_subclass__(cls, **kwargs):
        # The module's code is imported with the plugin's class. ansible-core loads a task's action
        # plugin class in the main process before it forks the task's worker (the strategy reads
        # BYPASS_HOST_LOOP from it), so every worker inherits the module and its module_utils
        # already loaded. They load through Python's bytecode cache (bytecode.py): the collection
        # loader keeps no bytecode and would compile them from source at every run.
        super(ModuleAction, cls).__init_subclass__(**kwargs)
        if cls.module:
            with bytecode.cached():
                cls._code = importlib.import_module('ansible_collections.%s.plugins.modules.%s'
                                                    % (COLLECTION, cls.module))
                for name in ON_DEMAND_MODULE_UTILS:
                    importlib.import_module('ansible_collections.%s.plugins.module_utils.%s'
                                            % (COLLECTION, name))

    def run(self, tmp=None, task_vars=None):
        task_vars = task_vars or {}
        result = super(ModuleAction, self).run(tmp, task_vars)
        del tmp
        if not self._on_controller(task_vars):
            return self._module_path(result, task_vars)
        env = dict(os.environ)
        env.update((str(k), str(v)) for k, v in ansible_compat.task_environment(self).items())
        task = ansible_compat.task(self)
        context = TaskContext(task.action, dict(task.args), bool(task.check_mode), bool(task.diff), env,
                              task_vars.get('inventory_hostname'),
                              ansible_compat.inject_invocation(task_vars))
        try:
            with process_environment(env):
                self._code.main(context.runtime)
        except ModuleExit as e:
            result.update(e.result)
            ansible_compat.normalize_failed_result(result)
            return result
        result.update(failed=True, msg='module %s returned without a result' % self.module)
        return result

    def _on_controller(self, task_vars):
        forced = task_vars.get(FORCE_MODULE_VAR)
        if forced is None:
            forced = os.environ.get(FORCE_MODULE_ENV)
        if forced is not None and boolean(ansible_compat.template(self, forced), strict=False):
            return False
        return (ansible_compat.connection(self).transport == 'local' and not ansible_compat.become(self)
                and not ansible_compat.task(self).async_val)

    def _module_path(self, result, task_vars):
        """Exactly what ansible-core's own module action does."""
        native_async = ansible_compat.connection(self).has_native_async
        wrap_async = ansible_compat.task(self).async_val and not native_async
        result = merge_hash(result, ansible_compat.execute_module(self, task_vars, wrap_async))
        if not wrap_async:
            ansible_compat.remove_remote_tmp(self)
        show_module_output(task_vars.get('inventory_hostname'), result)
        return result

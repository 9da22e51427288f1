# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The one place that touches ansible-core's private internals (underscored names, ``ansible._internal``).

The action plugins run a module's code in the controller process (``controller.py``); for that they
need a few things ansible-core keeps private: what an argument-spec validation found besides its
errors (the ``no_log`` values, deprecations and alias warnings), an action plugin's task,
connection, play context, templar and module execution, the environment a module would run in, the
cleanup of a module path's remote temporary directory, and ansible-core 2.19's normalization of a
failed module result. Each private name is used in one function here and nowhere else (a unit test
checks ``controller.py`` uses none), so an ansible-core release that moves one of them breaks this
file only; ``tests/integration/platform/test_ansible_core_versions.py`` runs a playbook through every
supported ansible-core (``requires_ansible`` in meta/runtime.yml) to catch it.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import collections

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.errors import UnsupportedError

try:  # ansible-core 2.19 and 2.20: module failures carry a captured error summary ("Module failed: ...")
    from ansible._internal._errors._captured import AnsibleModuleCapturedError
except ImportError:  # older ansible-core: module results are used as they are
    AnsibleModuleCapturedError = None
try:  # ansible-core 2.21: the summary says itself that a module gave it
    from ansible._internal._errors._captured import CapturedErrorSummary
    from ansible.module_utils._internal import _messages
except ImportError:
    CapturedErrorSummary = None


# The outcome of validating a module's arguments as AnsibleModule does: ``params`` (coerced,
# defaults filled in), ``no_log_values``, ``deprecations`` (dicts with msg and version or date),
# ``alias_warnings`` ((option, alias) pairs set together), ``error`` (the message, or None) and
# ``unsupported`` (whether the error is about unknown options).
Validation = collections.namedtuple(
    'Validation', 'params no_log_values deprecations alias_warnings error unsupported')


def validate_arguments(argument_spec, params, mutually_exclusive=None, required_together=None,
                       required_one_of=None, required_if=None, required_by=None):
    validator = ArgumentSpecValidator(argument_spec, mutually_exclusive, required_together,
                                      required_one_of, required_if, required_by)
    result = validator.validate(params)
    errors = result.errors
    return Validation(
        params=result.validated_parameters,
        no_log_values=set(result._no_log_values),
        deprecations=[dict(d) for d in result._deprecations],
        alias_warnings=[(w['option'], w['alias']) for w in result._warnings],
        error=errors.msg if errors.errors else None,
        unsupported=bool(errors.errors) and isinstance(errors[0], UnsupportedError),
    )


def inject_invocation(task_vars):
    """Whether a module's result carries ``invocation``, as ansible-core gives it to a module: from
    2.21 the setting INJECT_INVOCATION (off unless configured), before that always."""
    from ansible import constants as C

    if 'INJECT_INVOCATION' not in C.config.get_configuration_definitions():
        return True
    return bool(C.config.get_config_value('INJECT_INVOCATION', variables=task_vars))


def supports_check_mode_and_async(cls):
    """Class decorator: the action plugin class ``cls`` runs in check mode and with ``async``
    (ActionBase refuses both unless its class says so)."""
    cls._supports_check_mode = True
    cls._supports_async = True
    return cls


def task(action):
    """The task the action plugin ``action`` runs (a Task: ``action``, ``args``, ``check_mode``,
    ``diff``, ``async_val``)."""
    return action._task


def connection(action):
    """The connection plugin of ``action``'s task (``transport``, ``has_native_async``)."""
    return action._connection


def become(action):
    """Whether ``action``'s task runs with privilege escalation."""
    return bool(action._play_context.become)


def template(action, value):
    """``value`` templated with ``action``'s task variables."""
    return action._templar.template(value)


def execute_module(action, task_vars, wrap_async):
    """The module path: ``action``'s module sent to the target and run there, as ansible-core's own
    module action runs it. Returns its result."""
    return action._execute_module(task_vars=task_vars, wrap_async=wrap_async)


def task_environment(action):
    """The environment variables a task's ``environment:`` sets, templated, as ansible-core
    computes them for a module run by the action plugin ``action``."""
    environment = {}
    action._compute_environment_string(environment)
    return environment


def remove_remote_tmp(action):
    """Remove the temporary directory a module path run left on the target, as ansible-core's own
    module action does."""
    action._remove_tmp_path(connection(action)._shell.tmpdir)


def normalize_failed_result(result):
    """ansible-core 2.19+ shows a failed module result through its captured-error summary ("Module
    failed: ...", as for the module run as a module); older versions use the result as it is."""
    if AnsibleModuleCapturedError is not None:
        AnsibleModuleCapturedError.normalize_result_exception(result)
    elif CapturedErrorSummary is not None and result.get('failed') and not result.get('exception'):
        result['exception'] = CapturedErrorSummary(
            event=_messages.Event(msg=str(result.get('msg') or 'Unknown error.')),
            error_context='target', error_message='Module failed.', is_module=True)


def find_task_file(action, path):
    """Where ``include_tasks`` in ``action``'s task would find the task file ``path``: absolute as
    given, else in the role's ``tasks`` and the play's directories (ActionBase's private search)."""
    return action._find_needle('tasks', path)


def loader(action):
    """The DataLoader of the action plugin ``action`` (files as the play reads them)."""
    return action._loader


def read_task_file(action, path):
    """The YAML of the file at ``path``, read with ``action``'s loader (as include_tasks reads it:
    vault-encrypted content decrypted); AnsibleError when it is not YAML."""
    return loader(action).load_from_file(path)


def load_task_file(action, data):
    """The tasks of a task file's ``data`` (its YAML, loaded), as ``include_tasks`` would load them
    in ``action``'s play and role: an unknown module or a malformed task raises AnsibleParserError."""
    from ansible.playbook.helpers import load_list_of_tasks
    running = task(action)
    return load_list_of_tasks(data, play=running.get_play(), role=running._role, loader=loader(action))

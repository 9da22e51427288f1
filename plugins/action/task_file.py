# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""task_file: a task file checked on the controller as include_tasks would load it (see the module's
documentation): found, YAML, a list of tasks whose modules all resolve."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleError
from ansible.plugins.action import ActionBase

from ansible_collections.kubeops.rollout.plugins.plugin_utils import ansible_compat


def _first_line(err):
    return (str(getattr(err, 'message', None) or err).strip().splitlines() or [''])[0]


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(['path'])
    _supports_check_mode = True
    _supports_async = False

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        result['changed'] = False
        path = ansible_compat.task(self).args.get('path')
        if not isinstance(path, str) or not path:
            return dict(result, failed=True, msg='path is required: the task file to check')
        try:
            found = ansible_compat.find_task_file(self, path)
        except AnsibleError:
            return dict(result, failed=True, msg='task file %s not found on the controller (give an absolute '
                                                 'path, or one in the role\'s or the playbook\'s tasks '
                                                 'directory)' % path)
        try:
            data = ansible_compat.read_task_file(self, found)
        except AnsibleError as e:
            return dict(result, failed=True, path=found, msg='task file %s is not valid YAML: %s'
                        % (found, _first_line(e)))
        if data is None:
            data = []
        if not isinstance(data, list):
            return dict(result, failed=True, path=found, msg='task file %s is not a list of tasks' % found)
        try:
            tasks = ansible_compat.load_task_file(self, data)
        except AnsibleError as e:
            return dict(result, failed=True, path=found, msg='task file %s cannot be loaded: %s'
                        % (found, _first_line(e)))
        return dict(result, path=found, tasks=len(tasks), msg='task file %s: %d task%s, each loads'
                    % (found, len(tasks), '' if len(tasks) == 1 else 's'))

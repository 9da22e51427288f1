# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Runs role_variables on the controller when the task runs there (see plugin_utils/controller.py).
In a role, what the task does not give is taken from the role: its name, the task's variables with
its prefix, and the options of its meta/argument_specs.yml (read here, on the controller, so that
the module path gets them too)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import yaml

from ansible_collections.kubeops.rollout.plugins.module_utils.adapter.role_variables import spec_variables
from ansible_collections.kubeops.rollout.plugins.plugin_utils import ansible_compat
from ansible_collections.kubeops.rollout.plugins.plugin_utils.controller import ModuleAction


def role_arguments(args, task_vars):
    """``args`` with what they leave out taken from the role the task runs in (none: as they are)."""
    args = dict(args)
    role = args.get('role') or str(task_vars.get('role_name') or '').rsplit('.', 1)[-1]
    if not role:
        return args
    args['role'] = role
    if args.get('variables') is None:
        args['variables'] = sorted(str(k) for k in task_vars if str(k).startswith(role + '_'))
    path = task_vars.get('role_path')
    if args.get('known') is None and path:
        specs_file = os.path.join(str(path), 'meta', 'argument_specs.yml')
        specs = {}
        if os.path.exists(specs_file):
            with open(specs_file) as f:
                # libyaml's loader where PyYAML has it (as the kubeconfig's reader): about 10x faster.
                specs = yaml.load(f, Loader=getattr(yaml, 'CSafeLoader', yaml.SafeLoader)) or {}
        args['known'] = sorted(spec_variables(specs))
    return args


class ActionModule(ModuleAction):
    module = 'role_variables'

    def run(self, tmp=None, task_vars=None):
        task = ansible_compat.task(self)
        task.args = role_arguments(task.args, task_vars or {})
        return super(ActionModule, self).run(tmp, task_vars)

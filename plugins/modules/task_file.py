#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: task_file
short_description: Check that a task file exists and loads, before something depends on it
version_added: 0.3.0
description:
  - Finds the task file I(path) as C(ansible.builtin.include_tasks) would (absolute, or in the role's
    and the playbook's C(tasks) directories) and loads it as the include would - YAML, a list of
    tasks, each task's module or action resolved - without running anything.
  - An C(include_tasks) of a file that is missing fails only when it is reached, and one whose tasks
    name a module that is not installed ends the whole play, past any C(rescue). Run this first when
    something must be undone if the file cannot run, as the canary mode of the role
    C(kubeops.rollout.rollout_upgrade) does with its verification tasks before it starts a canary.
  - Only the file itself is checked; the files it includes are loaded when they run.
  - Runs on the controller (its action plugin); sends no request to Kubernetes, changes nothing. Not
    in the action group C(kubeops.rollout.rollout).
author:
  - kubeops.rollout contributors (!UNKNOWN)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
attributes:
  action:
    support: full
    details: The action plugin does the work on the controller, whatever the task's host.
  async:
    support: none
  bypass_host_loop:
    support: none
  platform:
    platforms: posix
  check_mode:
    support: full
    details: Reads the file only.
  diff_mode:
    support: none
options:
  path:
    description:
      - The task file, as C(include_tasks) would be given it.
    type: str
    required: true
"""

EXAMPLES = r"""
# Before a canary start: a verification file that is missing or names a module that is not
# installed fails here, before anything is written (the task fails, so the play stops).
- name: Check the verification tasks before starting the canary
  kubeops.rollout.task_file:
    path: "{{ playbook_dir }}/verify-canary.yml"
  register: checked

- name: Show what was checked
  ansible.builtin.debug:
    msg: "{{ checked.msg }}"
"""

RETURN = r"""
path:
  description: Where the file was found.
  returned: when found
  type: str
  sample: /runner/project/verify-canary.yml
tasks:
  description: How many tasks (or blocks) the file holds.
  returned: success
  type: int
  sample: 3
changed:
  description: Always false.
  returned: always
  type: bool
msg:
  description: The outcome in one line (on failure, what is wrong with the file).
  returned: always
  type: str
  sample: "task file /runner/project/verify-canary.yml: 3 tasks, each loads"
"""

from ansible.module_utils.basic import AnsibleModule  # noqa: E402


def main():
    module = AnsibleModule(argument_spec={'path': {'type': 'str', 'required': True}},
                           supports_check_mode=True)
    module.fail_json(msg='task_file checks a file on the controller: it runs through its action plugin '
                         'only (%s was given to the module itself)' % module.params['path'])


if __name__ == '__main__':
    main()

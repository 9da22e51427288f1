#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: role_variables
short_description: Warn about variables given to a role that the role does not know
version_added: 0.2.0
description:
  - Ansible validates a role's variables by the options of its C(meta/argument_specs.yml) and ignores
    every other variable, so a misspelt one (C(rollout_upgrade_soak_second)) is silently ignored and
    the role runs with its default. This module warns, for each variable that carries the role's prefix
    (C(<role>_)) and that no entry point of the role's argument specs defines, naming the closest
    variable the role knows.
  - Every role of this collection runs it as its first task, before any request. In a role of your own,
    a task with no I(role), I(variables) or I(known) checks that role - its action plugin takes the
    role's name, its variables with the prefix, and the options of every entry point of its
    C(meta/argument_specs.yml).
  - Never fails because of an unknown variable, and changes nothing. Sends no request to Kubernetes;
    not in the action group C(kubeops.rollout.rollout).
author:
  - kubeops.rollout contributors (!UNKNOWN)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
  - kubeops.rollout.attributes
attributes:
  check_mode:
    support: full
    details: Reads only the task's variables.
  diff_mode:
    support: none
options:
  role:
    description:
      - The role's name, without its collection (C(rollout_upgrade)); its variables are named
        C(<role>_...).
      - In a role, default the role's own name.
    type: str
  variables:
    description:
      - The names of the variables given (values are not needed).
      - In a role, default every variable of the task whose name starts with C(<role>_).
    type: list
    elements: str
  known:
    description:
      - The names of the variables the role knows.
      - In a role, default the options of every entry point of its C(meta/argument_specs.yml).
    type: list
    elements: str
  results:
    description:
      - The names of the facts the role sets or registers itself (C(rollout_upgrade_result)), which a
        second run of the role finds among its variables.
    type: list
    elements: str
    default: []
  deprecated:
    description:
      - "Old names of variables, each with what to set instead (C({traffic_canary_abort:
        'traffic_canary_recover: rollback'})). Each of I(variables) named here is a deprecation
        warning (the variable is still honoured by the role or playbook; it goes away in version 3.0.0
        of the collection), never an unknown variable."
      - A playbook checks its old extra vars the same way - I(role) the role it runs, I(variables) the
        old extra vars it was given, I(known) empty.
    type: dict
    default: {}
"""

EXAMPLES = r"""
# As the first task of a role (roles/myapp_deploy/tasks/main.yml): every myapp_deploy_* variable that
# its meta/argument_specs.yml does not define is named in a warning, with the closest one it defines.
# Outside a role, give role, variables and known:
- name: Check the names of the variables given for myapp_deploy
  kubeops.rollout.role_variables:
    role: myapp_deploy
    variables: "{{ query('ansible.builtin.varnames', '^myapp_deploy_') }}"
    known: [myapp_deploy_image, myapp_deploy_replicas, myapp_deploy_soak_seconds]
    results: [myapp_deploy_result]
  vars:
    myapp_deploy_image: registry.example.com/myapp:2.4.1
    myapp_deploy_soak_second: 60   # warns: did you mean myapp_deploy_soak_seconds?
  register: checked

- name: Show what was misspelt
  ansible.builtin.debug:
    msg: "{{ checked.unknown | map(attribute='name') }}"
"""

RETURN = r"""
unknown:
  description:
    - The variables with the role's prefix that the role does not know, each with C(name) and
      C(closest) (the known name most like it, or null). Each is also a warning.
  returned: always
  type: list
  elements: dict
  sample: [{"name": "rollout_upgrade_soak_second", "closest": "rollout_upgrade_soak_seconds"}]
deprecated:
  description:
    - The variables given by an old name (of I(deprecated)), each with C(name) and C(instead). Each is
      also a deprecation warning.
  returned: always
  type: list
  elements: dict
  sample: [{"name": "traffic_canary_abort", "instead": "traffic_canary_recover: rollback"}]
changed:
  description: Always false.
  returned: always
  type: bool
msg:
  description: The outcome in one line.
  returned: always
  type: str
  sample: 'role rollout_upgrade: 1 variable it does not know'
"""

from ansible_collections.kubeops.rollout.plugins.module_utils.adapter.module import KubeModule  # noqa: E402
from ansible_collections.kubeops.rollout.plugins.module_utils.adapter.role_variables import (  # noqa: E402
    deprecated_given,
    deprecation,
    unknown_variables,
    warning,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.common import vocabulary  # noqa: E402

ARGUMENT_SPEC = {
    'role': {'type': 'str'},
    'variables': {'type': 'list', 'elements': 'str'},
    'known': {'type': 'list', 'elements': 'str'},
    'results': {'type': 'list', 'elements': 'str', 'default': []},
    'deprecated': {'type': 'dict', 'default': {}},
}


def main(runtime=None):
    module = KubeModule(ARGUMENT_SPEC, runtime, connection=False)
    params = module.params
    missing = [name for name in ('role', 'variables', 'known') if params[name] is None]
    if missing:
        module.fail('%s: give them, or run the task in a role (its name, variables and '
                    'meta/argument_specs.yml are then used)' % ', '.join(missing))
    role = params['role']
    old = deprecated_given(params['variables'], params['deprecated'])
    for name, instead in old:
        module.module.deprecate(deprecation(name, instead), version=vocabulary.REMOVAL_VERSION,
                                collection_name=vocabulary.COLLECTION)
    known = list(params['known']) + list(params['deprecated'])
    found = unknown_variables(role, params['variables'], known, params['results'])
    for name, meant in found:
        module.module.warn(warning(role, name, meant, params['known']))
    outcome = '%d variable%s it does not know' % (len(found), '' if len(found) == 1 else 's')
    module.module.exit_json(
        changed=False,
        unknown=[{'name': name, 'closest': meant} for name, meant in found],
        deprecated=[{'name': name, 'instead': instead} for name, instead in old],
        msg='role %s: %s' % (role, outcome if found else 'every variable known'))


if __name__ == '__main__':
    main()

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The controller path's way to run an exec credential plugin's program (``run_process`` of the
controller runtime, plugin_utils/controller.py): there is no AnsibleModule and its run_command in
the controller process, so the program is started here. What a runner does, and the reading of its
output under a time and size limit, are module_utils/api/connection/exec_process.py's; the module
path's runner is there too.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import subprocess

from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection.exec_process import collect


def run(argv, env, timeout, max_output):
    """``argv`` run with exactly ``env``: (rc, stdout, stderr, problem); OSError if it cannot start."""
    process = subprocess.Popen(list(argv), env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, start_new_session=True)
    try:
        stdout, stderr, problem = collect(process, timeout, max_output)
    finally:
        process.stdout.close()
        process.stderr.close()
    return process.returncode, stdout, stderr, problem

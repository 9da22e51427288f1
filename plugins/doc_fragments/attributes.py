# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    # The execution attributes every module of the collection shares (the descriptions come from
    # ansible.builtin.action_common_attributes and its .flow fragment); check_mode and diff_mode
    # stay in each module, since what they show differs.
    DOCUMENTATION = r'''
attributes:
  action:
    support: full
    details: The module's action plugin runs its code in the controller process when the task runs
      through the C(local) connection with no C(become) and no C(async); otherwise the module runs as
      usual. C(kubeops_rollout_module_path=true) (variable) or C(KUBEOPS_ROLLOUT_MODULE_PATH=1)
      (environment) forces the module path. On the module path the module loads the collection's
      module_utils from a per-user cache of compiled code on the host that runs it
      (C(~/.cache/kubeops.rollout/), or C($XDG_CACHE_HOME/kubeops.rollout/); remove it to clear it),
      written on first use unless C(PYTHONDONTWRITEBYTECODE) is set.
  async:
    support: full
    details: An C(async) task runs the module as a module.
  bypass_host_loop:
    support: none
  platform:
    platforms: posix
'''

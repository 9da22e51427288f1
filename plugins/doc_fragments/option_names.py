# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    # The names the messages give the options, for a role or a playbook that calls the module.
    DOCUMENTATION = r'''
options:
  option_names:
    description:
      - "The names of this module's options as the caller's user knows them, for the messages that
        tell what to run next - a dict from an option of this module to the name of the variable
        that sets it (for example C({'recover': 'traffic_canary_recover'}) in a role,
        C({'recover': 'recover'}) in a playbook whose extra var C(recover) sets it)."
      - "A refusal then says C(traffic_canary_recover: rollback) where the module alone says
        C(recover: rollback); C(next_step) is named the same way. An option this module does not have
        is an error."
      - Unset, or for an option it does not name, the module's own option names. Every role and
        playbook of this collection passes its own; see C(docs/vocabulary.md).
    type: dict
    default: {}
'''

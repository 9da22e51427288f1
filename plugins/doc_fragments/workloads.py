# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    # Several targets in one task (the modules whose per-entry fields are kind, name, label_selectors
    # and namespace only; rollout_undo documents its own, with to_revision).
    DOCUMENTATION = r'''
options:
  workloads:
    description:
      - Several targets in one task, like C(kubectl rollout status deploy/a sts/b) - each entry names
        one workload (I(kind) and I(name)) or selects some (I(label_selectors), with one or more kinds,
        every rollout kind when it gives none). Exclusive with I(name) and I(label_selectors).
      - Every entry is checked before any request (kind, name, selectors, namespace); entries that
        cannot be read fail the task, each named as C(workloads[i] (name)). All entries are then
        resolved (one GET or one LIST per kind) before the first workload is acted on, and all are
        waited for at the same time.
      - I(kind) is the kind of the entries that give none; I(workload_namespace), else I(namespace),
        is the namespace of the entries that give none (an empty one counts as none).
      - A workload listed by several entries is acted on once. An entry whose I(label_selectors) match
        nothing is a warning (a failure with I(require_match=true)).
    type: list
    elements: dict
    suboptions:
      kind:
        description:
          - Kind of the workload, or kinds with I(label_selectors), in any of C(kubectl)'s spellings
            (as I(kind) above). Default the task's I(kind).
        type: list
        elements: str
      name:
        description: Name of the workload. Exclusive with I(label_selectors); one of the two is required.
        type: str
      label_selectors:
        description: Label selectors (all must match), as I(label_selectors) above.
        type: list
        elements: str
      namespace:
        description: Namespace of the entry. Default the task's I(workload_namespace), else I(namespace).
        type: str
'''

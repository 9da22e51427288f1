# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""kubectl's ``rolling-update`` for ReplicationControllers: the plan and its driver.

The update replaces an RC's pods by scaling a second RC up and the old one down, within
``max_surge`` / ``max_unavailable``, then cleans up (delete, preserve or rename). It keeps kubectl's
annotations and labels, so an update kubectl started can be finished here and the other way round:

- old RC: ``kubectl.kubernetes.io/next-controller-id`` (the new RC's name) and
  ``kubectl.kubernetes.io/original-replicas``; with an image update, the deployment label
  ``<key>=<hash>-orig`` on its selector, template and pods when it has no such label yet;
- new RC: ``kubectl.kubernetes.io/desired-replicas`` and ``kubectl.kubernetes.io/update-source-id``
  (``<old name>:<old uid>``), created with 0 replicas; selector and template carry ``<key>=<hash>``.

Nothing is remembered between runs: every step is derived again from what the API shows (the
annotations above and the replica counts), so a run killed between any two requests is resumed by
running it again with the same arguments.

The parts: ``steps`` (pure step math), ``objects`` (hashes, names, annotations, the new RC),
``state`` (the options, and the pure classification of a forward update and of a rollback),
``lease`` (one run at a time per RC), ``watch`` (one watch over the namespace's RCs), ``requests``
(reads, compare-and-set writes and waits on RCs and pods), ``plan`` (check mode), ``rollback`` and
``driver`` (``RollingUpdate``, which runs or plans an update with them). The module is
``plugins/modules/rolling_update_rc.py``.
"""

# On the module path, the rest of module_utils loads from a cache of compiled code (bytecode_cache).
from ansible_collections.kubeops.rollout.plugins.module_utils.common import bytecode_cache

bytecode_cache.install()

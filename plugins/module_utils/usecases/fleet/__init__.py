# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# On the module path, the rest of module_utils loads from a cache of compiled code (bytecode_cache).
from ansible_collections.kubeops.rollout.plugins.module_utils.common import bytecode_cache

bytecode_cache.install()

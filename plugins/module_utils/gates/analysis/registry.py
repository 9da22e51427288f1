# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The analysis providers by the check option that selects each (``PROVIDERS``), the argument spec
of one check built from them (``CHECK_OPTIONS``), and ``make_check``: one check's options into its
provider. A new provider is a ``Provider`` subclass added to ``PROVIDERS``."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.http import HttpProvider
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.prometheus import (
    PrometheusProvider,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.provider import (
    AnalysisError,
    number,
)

PROVIDERS = {cls.KEY: cls for cls in (PrometheusProvider, HttpProvider)}

# A check: its name, exactly one provider's options, and the bounds of the value it measures.
CHECK_OPTIONS = {'name': {'type': 'str', 'required': True}}
CHECK_OPTIONS.update((key, {'type': 'dict', 'options': cls.OPTIONS}) for key, cls in PROVIDERS.items())
CHECK_OPTIONS.update(max={'type': 'float'}, min={'type': 'float'})


def make_check(options):
    """The provider instance that measures one check (``options``: the check's options)."""
    name = options.get('name')
    if not name or not str(name).strip():
        raise AnalysisError('every analysis check needs a name')
    given = [key for key in PROVIDERS if options.get(key)]
    if len(given) != 1:
        keys = list(PROVIDERS)
        one_of = ' or '.join([', '.join(keys[:-1]), keys[-1]] if len(keys) > 1 else keys)
        raise AnalysisError('analysis check "%s" needs exactly one of %s' % (name, one_of))
    low = number(options.get('min'), 'min of analysis check "%s"' % name)
    high = number(options.get('max'), 'max of analysis check "%s"' % name)
    return PROVIDERS[given[0]](name, options[given[0]], low, high)

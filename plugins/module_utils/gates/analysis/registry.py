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
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.job import JobProvider
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.prometheus import (
    PrometheusProvider,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.provider import (
    AnalysisError,
    number,
)

PROVIDERS = {cls.KEY: cls for cls in (PrometheusProvider, HttpProvider, JobProvider)}

# A check: its name, exactly one provider's options (a provider without an OPTIONS spec takes its
# value as given: a job check's JobSpec), the bounds of the value it measures, and the options of
# the check itself that some providers read (their CHECK_LEVEL_OPTIONS).
CHECK_OPTIONS = {'name': {'type': 'str', 'required': True}}
for _key, _cls in PROVIDERS.items():
    CHECK_OPTIONS[_key] = {'type': 'dict'}
    if _cls.OPTIONS is not None:
        CHECK_OPTIONS[_key]['options'] = _cls.OPTIONS
CHECK_OPTIONS.update(max={'type': 'float'}, min={'type': 'float'})
CHECK_OPTIONS.update(namespace={'type': 'str'}, timeout={'type': 'float'})


def make_check(options, cluster=None):
    """The provider instance that measures one check (``options``: the check's options;
    ``cluster``: where a job check's Jobs run, a job.Cluster)."""
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
    cls = PROVIDERS[given[0]]
    level = [key for key in CHECK_LEVEL if options.get(key) is not None]
    foreign = [key for key in level if key not in cls.CHECK_LEVEL_OPTIONS]
    if foreign:
        takers = ' and '.join(sorted(k for k, c in PROVIDERS.items() if c.CHECK_LEVEL_OPTIONS))
        raise AnalysisError('analysis check "%s": %s beside the check\'s name is taken only by %s checks; a '
                            '%s check takes its options under %s' % (name, ' and '.join(foreign), takers,
                                                                     cls.KEY, cls.KEY))
    if cls.CHECK_LEVEL_OPTIONS:
        extra = {key: options.get(key) for key in cls.CHECK_LEVEL_OPTIONS}
        return cls(name, options[given[0]], low, high, cluster=cluster, **extra)
    return cls(name, options[given[0]], low, high)


# The check options some providers read (Provider.CHECK_LEVEL_OPTIONS).
CHECK_LEVEL = sorted({key for cls in PROVIDERS.values() for key in cls.CHECK_LEVEL_OPTIONS})

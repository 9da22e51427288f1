# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Analysis checks: judging a release by what it does (``AnalysisGate``).

The ``analysis`` option of ``rollout_status``, ``rollout_release`` and the upgrade role names
checks, each measured by one provider: a Prometheus query with bounds, an HTTP request with an
expected answer, or a Kubernetes Job that must complete. The soak (``health.Soak``) measures them
all every ``interval`` seconds during its window; every failed measurement of a check counts, and
more than ``failure_limit`` of them fails the gate, naming the check, the value and the bound.

A measurement fails when a value is out of its bounds, the endpoint cannot be reached, the answer
is not what was asked (an HTTP status or body, a Prometheus error), or, unless ``inconclusive:
pass``, when it has no data (an empty Prometheus result or NaN). Credentials (bearer tokens,
passwords in a URL, header values) are secrets: ``secrets()`` lists them for redaction, and no
result carries them in any form. An endpoint cannot make a check hang, spin or flood the output:
``timeout`` bounds the whole measurement, ``body_regex`` runs with a time limit, and the
endpoint's text is escaped and cut short. ``probe()`` tells a preflight which checks cannot be
measured.

One module per part:

- ``provider.py``: the ``Provider`` base class (an endpoint's options, their defaults, its
  credentials, one measurement), the outcomes, ``Measurement`` and ``AnalysisError``.
- ``prometheus.py``, ``http.py``, ``job.py``: the providers, ``PrometheusProvider``, ``HttpProvider``
  and ``JobProvider`` (with ``Cluster``, where its Jobs run: the task's client and namespace).
- ``registry.py``: ``PROVIDERS`` (the check option that selects each provider), the argument spec
  of one check built from them, and ``make_check``.
- ``gate.py``: ``AnalysisGate`` (its defaults) and the ``analysis`` option's argument spec
  (``ANALYSIS_OPTIONS``, ``ANALYSIS_ARG_SPEC``), which ``wait_options`` hands to the modules.
- ``endpoint.py``: ``open_endpoint``, one request on ``http.client`` with one deadline for all of it.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.endpoint import open_endpoint
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.gate import (
    ANALYSIS_ARG_SPEC,
    ANALYSIS_OPTIONS,
    AnalysisGate,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.job import Cluster
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.provider import (
    AnalysisError,
    Provider,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.registry import PROVIDERS

__all__ = [
    'ANALYSIS_ARG_SPEC',
    'ANALYSIS_OPTIONS',
    'PROVIDERS',
    'AnalysisError',
    'AnalysisGate',
    'Cluster',
    'Provider',
    'open_endpoint',
]

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The options of a wait, without the code that waits.

The wait timeout (``DEFAULT_TIMEOUT``), the gates' options (early stop, soak: ``GATE_ARG_SPEC``,
``GateOptions``) and the ``analysis`` option's spec (``ANALYSIS_ARG_SPEC``, built by the analysis
package when a module asks for it). A module declares its options when it starts, but waits
(``status.py``) or judges pods (``health.py``) only when a task asks for it: keeping the options
here lets a module start without loading those, and a module without the ``analysis`` option
without loading the analysis package (``analysis/``) at all.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib

# Seconds every wait may take unless told otherwise (kubectl's 5m): the modules' and roles' default,
# documented from here (tests/unit/test_defaults.py checks every documented default against it).
DEFAULT_TIMEOUT = 300

DEFAULT_FAIL_FAST_SECONDS = 30

# Early stop looks at the pods every `fail_fast_seconds / 3` seconds, within these bounds (a watch
# request lasts whole seconds).
MIN_PROBE_SECONDS = 1
MAX_PROBE_SECONDS = 5

GATE_ARG_SPEC = {
    'fail_fast_seconds': {'type': 'int', 'default': DEFAULT_FAIL_FAST_SECONDS},
    'soak_seconds': {'type': 'int', 'default': 0},
    'max_restarts': {'type': 'int', 'default': 0},
}


class GateOptions:
    """``fail_fast_seconds`` (0: no early stop), ``soak_seconds``, ``max_restarts``, ``analysis`` (an
    analysis gate object, or None)."""

    def __init__(
        self, fail_fast_seconds=DEFAULT_FAIL_FAST_SECONDS, soak_seconds=0, max_restarts=0, analysis=None
    ):
        self.fail_fast_seconds = fail_fast_seconds or 0
        self.soak_seconds = soak_seconds or 0
        self.max_restarts = max_restarts or 0
        self.analysis = analysis

    @classmethod
    def from_params(cls, params, analysis=None):
        return cls(
            params.get('fail_fast_seconds', DEFAULT_FAIL_FAST_SECONDS),
            params.get('soak_seconds'),
            params.get('max_restarts'),
            analysis,
        )

    @property
    def probe_interval(self):
        return min(MAX_PROBE_SECONDS, max(MIN_PROBE_SECONDS, self.fail_fast_seconds / 3.0))

    @property
    def soaks(self):
        return self.soak_seconds > 0 or self.analysis is not None


def check_gate_params(params):
    """A message for a gate option out of range, else None."""
    for name in ('fail_fast_seconds', 'soak_seconds', 'max_restarts'):
        value = params.get(name)
        if value is not None and value < 0:
            return '%s must be 0 or more (got %s)' % (name, value)
    return None


# ---- the analysis option ---------------------------------------------------------------------

# Its argument spec is built in the analysis package, from the gate's and the providers' classes
# (gates/analysis/gate.py), and is imported from there when first asked for, by its name: ansible
# puts every module_util a module's code names into its payload, and every module imports this
# file (adapter/module.py), while only the modules that take the option ask for the spec, and
# name the package themselves.
_ANALYSIS_PACKAGE = __name__.rpartition('.')[0] + '.analysis'
_ANALYSIS_SPECS = ('ANALYSIS_OPTIONS', 'ANALYSIS_ARG_SPEC')


def __getattr__(name):
    """``ANALYSIS_OPTIONS`` (the ``analysis`` option's suboptions) and ``ANALYSIS_ARG_SPEC``."""
    if name in _ANALYSIS_SPECS:
        return getattr(importlib.import_module(_ANALYSIS_PACKAGE), name)
    raise AttributeError('module %r has no attribute %r' % (__name__, name))

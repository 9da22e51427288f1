# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The options of a wait, without the code that waits.

The wait timeout (``DEFAULT_TIMEOUT``), the gates' options (early stop, soak: ``GATE_ARG_SPEC``,
``GateOptions``) and the ``analysis`` option's spec (``ANALYSIS_ARG_SPEC``). A module declares its
options when it starts, but waits (``status.py``), judges pods (``health.py``) or measures
analysis checks (``analysis.py``) only when a task asks for it: keeping the options here lets a
module start without loading those.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

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


# ---- the analysis option (the checks themselves: analysis.py) ---------------------------------

# The TLS and credential options of an endpoint, as for the API server's connection.
_ENDPOINT_OPTIONS = {
    'url': {'type': 'str', 'required': True},
    'bearer_token': {'type': 'str', 'no_log': True},
    'headers': {'type': 'dict', 'no_log': True},
    'ca_cert': {'type': 'path'},
    'client_cert': {'type': 'path'},
    'client_key': {'type': 'path'},
    'insecure': {'type': 'bool', 'default': False},
    'timeout': {'type': 'float', 'default': 5},
}

PROMETHEUS_OPTIONS = dict(_ENDPOINT_OPTIONS, query={'type': 'str', 'required': True})

HTTP_OPTIONS = dict(
    _ENDPOINT_OPTIONS,
    method={'type': 'str', 'default': 'GET'},
    status={'type': 'list', 'elements': 'int', 'default': [200]},
    body_regex={'type': 'str'},
)

CHECK_OPTIONS = {
    'name': {'type': 'str', 'required': True},
    'prometheus': {'type': 'dict', 'options': PROMETHEUS_OPTIONS},
    'http': {'type': 'dict', 'options': HTTP_OPTIONS},
    'max': {'type': 'float'},
    'min': {'type': 'float'},
}

ANALYSIS_OPTIONS = {
    'interval': {'type': 'float', 'default': 5},
    'failure_limit': {'type': 'int', 'default': 0},
    'inconclusive': {'type': 'str', 'choices': ['fail', 'pass'], 'default': 'fail'},
    'checks': {'type': 'list', 'elements': 'dict', 'required': True, 'options': CHECK_OPTIONS},
}

ANALYSIS_ARG_SPEC = {'analysis': {'type': 'dict', 'options': ANALYSIS_OPTIONS}}

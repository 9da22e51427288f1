# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The names a message gives the operator's options: every suggestion of an option to set (``recover:
rollback``, ``state: finished``) is rendered by ``setting`` and nowhere else.

A module called directly names its own options. A role or a playbook calls it with the
``option_names`` option, which maps this module's option names to the caller's variable names
(``{'recover': 'traffic_canary_recover'}``), so that the refusal a role's user reads names the role's
variable, and the one a playbook's user reads names the playbook's extra var. ``KubeModule`` (
adapter/module.py) sets the run's vocabulary from that option before anything is read: a run is one
task in its own process (a module process, or the worker process ansible-core forks for the task on
the controller), so the vocabulary is the process's, read from any thread of the run.

A suggestion of another module's option (``rollout_release``'s ``recover`` in a refusal of
``rollout_image``) gives that ``module``: it is rendered with that module's own name, which the caller's
vocabulary does not rename. ``tests/unit/test_vocabulary.py`` finds every call of ``setting`` and checks
that the option exists in each module that can render it, and in each role's and playbook's mapping.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

# The option that carries a caller's vocabulary (plugins/doc_fragments/option_names.py).
OPTION = 'option_names'
# The collection and its version without the old names (docs/vocabulary.md).
COLLECTION = 'kubeops.rollout'
REMOVAL_VERSION = '3.0.0'

_spoken = {}


def speak(names):
    """The vocabulary of this run: a dict from this module's option names to the caller's (None or
    empty: the module's own names). Replaces the one before."""
    _spoken.clear()
    _spoken.update(names or {})


def name(option, module=None):
    """What the operator calls ``option`` (``module``: another module's option, named as it is)."""
    if module is not None:
        return option
    return _spoken.get(option) or option


def setting(option, value, module=None):
    """``option`` set to ``value`` as the operator writes it in YAML (``recover: rollback``), with the
    name of the caller's vocabulary (``module``: another module's option, named as it is)."""
    if isinstance(value, bool):
        value = 'true' if value else 'false'
    return '%s: %s' % (name(option, module), value)


def deprecated_alias(old):
    """The argument spec's entry of ``deprecated_aliases`` for the old name ``old`` of an option."""
    return {'name': old, 'version': REMOVAL_VERSION, 'collection_name': COLLECTION}


def renamed_value(option, old, new):
    """The deprecation of the value ``old`` of ``option``, now spelled ``new``."""
    return ('%s is deprecated and goes away in %s %s: use %s'
            % (setting(option, old), COLLECTION, REMOVAL_VERSION, setting(option, new)))


def problems(names, options):
    """What is wrong with a vocabulary ``names`` given to a module whose options are ``options``: an
    option it does not have, a name that is not a non-empty string (an empty list: nothing)."""
    out = []
    unknown = sorted(str(k) for k in (names or {}) if k not in options)
    if unknown:
        out.append('%s names options this module does not have: %s' % (OPTION, ', '.join(unknown)))
    empty = sorted(str(k) for k, v in (names or {}).items() if not isinstance(v, str) or not v.strip())
    if empty:
        out.append('%s gives no name for: %s' % (OPTION, ', '.join(empty)))
    return out

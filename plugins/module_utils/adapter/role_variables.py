# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The variables a role is given, against the ones it knows: the role_variables module, which every
role of the collection runs first.

Ansible validates a role's variables against its ``meta/argument_specs.yml`` by the options the spec
names, and ignores every other variable; a misspelt one (``rollout_upgrade_soak_second``) would be
ignored silently, its default used. Here a variable that carries the role's prefix
(``rollout_upgrade_``) and that no entry point of the role's argument specs names, nor the role sets
itself (its result facts), is reported with the closest name the role knows.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import difflib

from ansible_collections.kubeops.rollout.plugins.module_utils.common import vocabulary

# How alike (difflib's ratio) a known name must be to be offered as the one meant, compared without
# the prefix they share.
CLOSE_ENOUGH = 0.7


def spec_variables(argument_specs):
    """The variable names the argument specs of a role define (the ``options`` of every entry
    point), from the content of its ``meta/argument_specs.yml`` (with or without the top-level
    ``argument_specs`` key)."""
    specs = (argument_specs or {}).get('argument_specs', argument_specs) or {}
    names = set()
    for entry in specs.values():
        if isinstance(entry, dict):
            names.update((entry.get('options') or {}).keys())
    return names


def closest(name, known, prefix=''):
    """The name in ``known`` closest to ``name``, or None when none is close enough; names are
    compared without the ``prefix`` (the role's) that they all share."""
    bare = {k[len(prefix):] if k.startswith(prefix) else k: k for k in sorted(known)}
    wanted = name[len(prefix):] if name.startswith(prefix) else name
    matches = difflib.get_close_matches(wanted, sorted(bare), n=1, cutoff=CLOSE_ENOUGH)
    return bare[matches[0]] if matches else None


def unknown_variables(role, given, known, results=()):
    """``(name, closest)`` for each variable of ``given`` that has the prefix ``<role>_`` and is
    neither ``known`` nor one of the role's ``results`` (the facts it sets itself); ``closest`` is the
    known name the user probably meant, or None. Sorted by name."""
    prefix = role + '_'
    ignored = set(known) | set(results)
    return [(name, closest(name, known, prefix)) for name in sorted(set(given))
            if name.startswith(prefix) and name not in ignored]


def deprecated_given(given, deprecated):
    """``(name, instead)`` for each variable of ``given`` that ``deprecated`` names (an old name, with
    what to set instead), sorted by name."""
    return [(name, deprecated[name]) for name in sorted(set(given)) if name in (deprecated or {})]


def deprecation(name, instead):
    """The deprecation of the old variable ``name``, which ``instead`` replaces; it is still honoured."""
    return ('variable %s is deprecated (still honoured) and goes away in %s %s: use %s instead'
            % (name, vocabulary.COLLECTION, vocabulary.REMOVAL_VERSION, instead))


def warning(role, name, meant, known):
    """The warning for the unknown variable ``name`` of ``role``."""
    text = 'role %s: variable %s is not one of its variables and is ignored' % (role, name)
    if meant:
        return '%s; did you mean %s?' % (text, meant)
    return '%s; its variables are %s' % (text, ', '.join(sorted(known)))

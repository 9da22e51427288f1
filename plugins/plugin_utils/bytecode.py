# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The collection's own Python code imported on the controller with Python's bytecode cache.

ansible-core's collection loader compiles a collection's module from its source at every import
and keeps no bytecode, so the first task of a playbook that runs one of these modules on the
controller compiled the module and its module_utils again, every run (about 50 ms for
rollout_release). Inside ``cached()``, this collection's ``modules``, ``module_utils`` and
``plugin_utils`` are found by Python's own file finder in the directories the collection loader
gave their package (``__path__``), so they load as any installed package's files do: from
``__pycache__`` when it is current, compiled and cached there otherwise (where the directory is
writable and ``sys.dont_write_bytecode`` is false). The packages themselves, and every other
module, stay with the collection loader.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import contextlib
import importlib.machinery
import sys

# This collection's plugins package, 'ansible_collections.<namespace>.<name>.plugins.'.
PACKAGE = __name__.rpartition('plugin_utils.')[0]
PYTHON_CODE = ('modules', 'module_utils', 'plugin_utils')


class CachedFinder(object):
    """A meta path finder for this collection's Python code, and for nothing else. (Python's
    PathFinder would hand these directories back to the collection loader, whose path hook claims
    them: the finder of each directory is Python's FileFinder for source files, made here.)"""

    _finders = {}

    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        if path is None or not fullname.startswith(PACKAGE):
            return None
        parts = fullname[len(PACKAGE):].split('.')
        if len(parts) < 2 or parts[0] not in PYTHON_CODE:
            return None
        for entry in path:
            finder = cls._finders.get(entry)
            if finder is None:
                finder = cls._finders[entry] = importlib.machinery.FileFinder(
                    entry, (importlib.machinery.SourceFileLoader, importlib.machinery.SOURCE_SUFFIXES))
            spec = finder.find_spec(fullname, target)
            if spec is not None:
                return spec
        return None


@contextlib.contextmanager
def cached():
    """Imports made inside it load this collection's code through the bytecode cache."""
    if CachedFinder in sys.meta_path:
        yield
        return
    sys.meta_path.insert(0, CachedFinder)
    try:
        yield
    finally:
        sys.meta_path.remove(CachedFinder)

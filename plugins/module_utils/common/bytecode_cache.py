# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Compiled code for this collection's module_utils when a module runs from its AnsiballZ zip.

On the module path Ansible ships the module with its module_utils in a zip and puts the zip on
``sys.path``. Python's zip importer keeps no bytecode: it compiles every module_utils file from its
source at every run (and, on some Pythons, twice: once to find it, once to load it). ``install()``
(called by each module_utils package's ``__init__``, so before any of their modules load) puts a
finder first on ``sys.meta_path`` when this file itself was loaded from a zip, and only then: on
the controller and under test runners nothing changes. The finder loads this collection's
module_utils from a per-user cache of compiled code:

- ``$XDG_CACHE_HOME/kubeops.rollout/module_utils/<cache tag>/`` (an absolute ``XDG_CACHE_HOME``),
  otherwise ``~/.cache/kubeops.rollout/module_utils/<cache tag>/`` (cache tag: ``cpython-311``);
  directories made 0700, entries 0600, written to a temporary file and renamed into place, so
  concurrent module runs never see a partial entry;
- an entry is named after the module and the SHA-256 of its exact source bytes and starts with a
  PEP 552 header (the interpreter's magic number, "checked hash" flags, the source's SipHash), so a
  changed or upgraded collection never runs stale code; another Python's entry, a corrupt or
  unreadable one, or one not owned by the current user is ignored: the module is compiled from the
  zip's source, as without the cache;
- nothing is written when ``sys.dont_write_bytecode`` is set (``PYTHONDONTWRITEBYTECODE``, ``-B``),
  nor when the cache's base directory belongs to another user (``become`` with the caller's
  ``HOME``); any OSError falls back to compiling;
- ``__file__``, tracebacks and ``get_source`` name the source inside the current zip, exactly as
  with the zip importer.

Removing the directory clears the cache; entries of older versions are never read again.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import importlib.util
import marshal
import os
import stat
import sys
import types
import zipimport

try:
    from _imp import _fix_co_filename
except ImportError:  # another implementation of Python
    _fix_co_filename = None

# 'ansible_collections.<namespace>.<name>.plugins.module_utils'
PACKAGE = __name__.rsplit('.', 2)[0]
COLLECTION = '.'.join(PACKAGE.split('.')[1:3])
_FLAGS = (0b11).to_bytes(4, 'little')  # PEP 552: hash-based, checked against the source
_HEADER = 16
_NOFOLLOW = getattr(os, 'O_NOFOLLOW', 0)


def cache_dir(environ=None):
    """Where this Python's entries live, or None when there is no such place."""
    environ = os.environ if environ is None else environ
    tag = sys.implementation.cache_tag
    if not tag:
        return None
    base = environ.get('XDG_CACHE_HOME') or ''
    if not os.path.isabs(base):
        home = os.path.expanduser('~')
        if not os.path.isabs(home):
            return None
        base = os.path.join(home, '.cache')
    return os.path.join(base, COLLECTION, 'module_utils', tag)


def _own_directory(path):
    st = os.lstat(path)
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid()


def _with_filename(code, filename):
    """``code`` with ``co_filename`` set to ``filename`` in it and every code object it holds."""
    if _fix_co_filename is not None:
        _fix_co_filename(code, filename)
        return code
    if code.co_filename == filename:
        return code
    consts = tuple(_with_filename(c, filename) if isinstance(c, types.CodeType) else c
                   for c in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


class BytecodeCache(object):
    """The entries in one directory (see the module docstring)."""

    def __init__(self, directory):
        self.directory = directory
        self._writable = None  # unknown until the first write

    def entry(self, name, source):
        optimize = sys.flags.optimize
        return os.path.join(self.directory, '%s.%s%s.pyc' % (
            name, hashlib.sha256(source).hexdigest()[:40], '.opt-%d' % optimize if optimize else ''))

    def load(self, path, source):
        """The code stored at ``path`` for ``source``, or None."""
        try:
            fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
        except OSError:
            return None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o022:
                return None
            chunks = []
            while True:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
        except OSError:
            return None
        finally:
            os.close(fd)
        data = b''.join(chunks)
        if (len(data) <= _HEADER or data[:4] != importlib.util.MAGIC_NUMBER or data[4:8] != _FLAGS
                or data[8:16] != importlib.util.source_hash(source)):
            return None
        try:
            code = marshal.loads(memoryview(data)[_HEADER:])
        except (EOFError, ValueError, TypeError):
            return None
        return code if isinstance(code, types.CodeType) else None

    def store(self, path, source, code):
        """Writes ``code`` for ``source`` at ``path``, where this process may write bytecode."""
        if sys.dont_write_bytecode or not self._ready():
            return
        data = importlib.util.MAGIC_NUMBER + _FLAGS + importlib.util.source_hash(source) + marshal.dumps(code)
        temporary = '%s.%d.%s.tmp' % (path, os.getpid(), os.urandom(4).hex())
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
        except OSError:
            return
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
            finally:
                os.close(fd)
            os.replace(temporary, path)
        except OSError:
            try:
                os.unlink(temporary)
            except OSError:
                pass

    def _ready(self):
        """Makes the directory (0700) the first time; False where it is not this user's to write."""
        if self._writable is None:
            try:
                self._writable = self._make()
            except OSError:
                self._writable = False
        return self._writable

    def _make(self):
        # The base directory (~/.cache, or the home directory where that is missing) must be this
        # user's: a process under `become` that kept the caller's HOME leaves no files of its own
        # there. The levels below it are made here, 0700.
        missing = []
        path = self.directory
        while not os.path.lexists(path):
            missing.append(path)
            path = os.path.dirname(path)
        if len(missing) > 4 or not _own_directory(path):
            return False
        for path in reversed(missing):
            try:
                os.mkdir(path, 0o700)
            except FileExistsError:
                pass
        return _own_directory(self.directory)


class CachedZipLoader(object):
    """Loads one module from a zip through the cache; everything else is the zip importer's."""

    def __init__(self, importer, name, origin, source, cache, entry_name):
        self._importer = importer
        self._name = name
        self._origin = origin
        self._source = source
        self._cache = cache
        self._entry_name = entry_name

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        code = self.get_code(module.__name__)
        exec(code, module.__dict__)

    def get_code(self, fullname):
        source, self._source = self._source, None
        if source is None:
            source = self._importer.get_data(self._origin)
        path = self._cache.entry(self._entry_name, source)
        code = self._cache.load(path, source)
        if code is not None:
            return _with_filename(code, self._origin)
        code = compile(source, self._origin, 'exec', dont_inherit=True)
        self._cache.store(path, source, code)
        return code

    def get_source(self, fullname):
        return self._importer.get_source(fullname)

    def get_filename(self, fullname):
        return self._origin

    def is_package(self, fullname):
        return self._importer.is_package(fullname)

    def get_data(self, path):
        return self._importer.get_data(path)

    def get_resource_reader(self, fullname):
        return self._importer.get_resource_reader(fullname)


class ZipBytecodeFinder(object):
    """Finds the modules under ``package`` that a zip holds as source, loaded through ``cache``."""

    def __init__(self, package, cache):
        self.package = package
        self.cache = cache
        self._importers = {}

    def find_spec(self, fullname, path=None, target=None):
        if not path or not fullname.startswith(self.package + '.'):
            return None
        for entry in path:
            importer = self._importer(entry)
            if importer is None:
                return None  # not a zip: Python's own finders, in their order
            try:
                is_package = importer.is_package(fullname)
            except ImportError:
                continue
            tail = fullname.rpartition('.')[2]
            origin = os.path.join(entry, *((tail, '__init__.py') if is_package else (tail + '.py',)))
            try:
                source = importer.get_data(origin)
            except OSError:
                return None  # bytecode only: the zip importer's
            loader = CachedZipLoader(importer, fullname, origin, source, self.cache,
                                     fullname[len(self.package) + 1:])
            return importlib.util.spec_from_file_location(
                fullname, origin, loader=loader, submodule_search_locations=[] if is_package else None)
        return None

    def _importer(self, entry):
        importer = self._importers.get(entry)
        if importer is None:
            importer = sys.path_importer_cache.get(entry)
            if not isinstance(importer, zipimport.zipimporter):
                try:
                    importer = zipimport.zipimporter(entry)
                except (ImportError, OSError, TypeError):
                    return None
            self._importers[entry] = importer
        return importer

    def invalidate_caches(self):
        self._importers.clear()


def install():
    """Loads this collection's module_utils through the cache when this file came from a zip."""
    if not isinstance(getattr(__spec__, 'loader', None), zipimport.zipimporter) or not hasattr(os, 'getuid'):
        return None
    for finder in sys.meta_path:
        if isinstance(finder, ZipBytecodeFinder) and finder.package == PACKAGE:
            return finder
    directory = cache_dir()
    if directory is None:
        return None
    finder = ZipBytecodeFinder(PACKAGE, BytecodeCache(directory))
    sys.meta_path.insert(0, finder)
    return finder

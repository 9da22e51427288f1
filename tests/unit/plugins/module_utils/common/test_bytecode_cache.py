"""The cache of compiled code for module_utils imported from a zip (the module path's AnsiballZ
payload): real zips, real imports, real cache files."""

import importlib
import importlib.util
import marshal
import os
import pathlib
import shutil
import stat
import subprocess
import sys
import textwrap
import traceback
import uuid
import zipfile
import zipimport

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.common import bytecode_cache
from ansible_collections.kubeops.rollout.plugins.module_utils.common.bytecode_cache import (
    BytecodeCache,
    CachedZipLoader,
    ZipBytecodeFinder,
    cache_dir,
)

pytestmark = pytest.mark.unit

UTILS = pathlib.Path(bytecode_cache.__file__).resolve().parents[1]
TAG = sys.implementation.cache_tag

MOD = '''\
VALUE = {value!r}


def fail():
    raise RuntimeError('failing on purpose')
'''


def build_zip(path, package, value='one', extra=None):
    """A zip holding ``package`` (a package, its module ``mod`` and a subpackage ``sub.leaf``)."""
    files = {
        package + '/__init__.py': '',
        package + '/mod.py': MOD.format(value=value),
        package + '/sub/__init__.py': 'FROM = "sub"\n',
        package + '/sub/leaf.py': 'from . import FROM\nLEAF = FROM + ".leaf"\n',
    }
    files.update(extra or {})
    with zipfile.ZipFile(path, 'w') as zf:
        for name, text in files.items():
            zf.writestr(name, text)
    return str(path)


class Importing:
    """Imports ``package``'s modules from zips with the finder first on sys.meta_path, and undoes it."""

    def __init__(self, tmp_path, cache):
        self.package = 'zbc_%s' % uuid.uuid4().hex[:12]
        self.tmp_path = tmp_path
        self.finder = ZipBytecodeFinder(self.package, cache)
        self.paths = []

    def zip(self, name='payload.zip', **kwargs):
        return build_zip(self.tmp_path / name, self.package, **kwargs)

    def load(self, archive, name='mod'):
        self.forget()
        self.paths.append(archive)
        sys.path.insert(0, archive)
        sys.meta_path.insert(0, self.finder)
        try:
            return importlib.import_module('%s.%s' % (self.package, name))
        finally:
            sys.meta_path.remove(self.finder)
            sys.path.remove(archive)

    def forget(self):
        for name in [n for n in sys.modules if n == self.package or n.startswith(self.package + '.')]:
            del sys.modules[name]
        for path in self.paths:
            for key in [k for k in sys.path_importer_cache if k.startswith(path)]:
                del sys.path_importer_cache[key]
        self.finder.invalidate_caches()


@pytest.fixture
def writes(monkeypatch):
    """This process may write bytecode (as Python does without PYTHONDONTWRITEBYTECODE)."""
    monkeypatch.setattr(sys, 'dont_write_bytecode', False)


@pytest.fixture
def cache(tmp_path):
    return BytecodeCache(str(tmp_path / 'cache' / 'kubeops.rollout' / 'module_utils' / TAG))


@pytest.fixture
def imports(tmp_path, cache):
    importing = Importing(tmp_path, cache)
    yield importing
    importing.forget()


def entries(cache):
    directory = pathlib.Path(cache.directory)
    return sorted(directory.iterdir()) if directory.is_dir() else []


def modules(directory):
    """The module names of the entries in ``directory`` (``<name>.<sha256>.pyc``)."""
    return sorted(p.name[:-len('.pyc')].rsplit('.', 1)[0] for p in pathlib.Path(directory).iterdir())


def plant(cache, name, source, code_source, magic=None, flags=b'\x03\x00\x00\x00', source_hash=None):
    """Writes the entry for ``source`` holding the code of ``code_source`` (header parts overridable)."""
    path = cache.entry(name, source)
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    header = ((magic or importlib.util.MAGIC_NUMBER) + flags
              + (source_hash or importlib.util.source_hash(source)))
    with open(path, 'wb') as f:
        f.write(header + marshal.dumps(compile(code_source, 'planted', 'exec')))
    os.chmod(path, 0o600)
    return path


def test_first_import_compiles_and_stores_the_next_one_loads_the_entry(imports, cache, writes):
    archive = imports.zip()
    mod = imports.load(archive)
    assert mod.VALUE == 'one'
    assert isinstance(mod.__spec__.loader, CachedZipLoader)
    assert mod.__file__ == os.path.join(archive, imports.package, 'mod.py')
    [entry] = entries(cache)
    assert modules(cache.directory) == ['mod']
    assert stat.S_IMODE(entry.stat().st_mode) == 0o600
    assert stat.S_IMODE(pathlib.Path(cache.directory).stat().st_mode) == 0o700
    data = entry.read_bytes()
    source = MOD.format(value='one').encode()
    assert data[:4] == importlib.util.MAGIC_NUMBER and data[8:16] == importlib.util.source_hash(source)
    inode = entry.stat().st_ino

    # The second import runs the entry: an entry for the same source holding other code shows it.
    mod = imports.load(archive)
    assert mod.VALUE == 'one' and entry.stat().st_ino == inode  # read, not written again
    plant(cache, 'mod', source, 'VALUE = "from the cache"\n')
    assert imports.load(archive).VALUE == 'from the cache'


def test_packages_and_their_modules_load_through_the_cache(imports, cache, writes):
    archive = imports.zip()
    leaf = imports.load(archive, 'sub.leaf')
    assert leaf.LEAF == 'sub.leaf'
    sub = sys.modules[imports.package + '.sub']
    assert isinstance(sub.__spec__.loader, CachedZipLoader)
    assert sub.__path__ == [os.path.join(archive, imports.package, 'sub')]
    assert sub.__file__ == os.path.join(archive, imports.package, 'sub', '__init__.py')
    assert modules(cache.directory) == ['sub', 'sub.leaf']
    assert imports.load(archive, 'sub.leaf').LEAF == 'sub.leaf'


def test_a_changed_source_is_compiled_again(imports, cache, writes):
    assert imports.load(imports.zip(name='v1.zip', value='one')).VALUE == 'one'
    assert imports.load(imports.zip(name='v2.zip', value='two')).VALUE == 'two'
    assert len(entries(cache)) == 2  # one per source; the older one is never read again
    assert imports.load(imports.zip(name='v3.zip', value='one')).VALUE == 'one'
    assert len(entries(cache)) == 2


def test_tracebacks_and_source_name_the_current_zip(imports, cache, writes, tmp_path):
    # Compiled from one zip, loaded from the cache for another at another path (a module run's
    # payload lives in a new temporary directory every time).
    first = imports.load(imports.zip(name='first.zip'))
    second_zip = str(tmp_path / 'elsewhere' / 'second.zip')
    os.makedirs(os.path.dirname(second_zip))
    shutil.copy(first.__file__.rsplit('/%s/' % imports.package, 1)[0], second_zip)
    mod = imports.load(second_zip)
    assert mod.__file__ == os.path.join(second_zip, imports.package, 'mod.py')
    assert mod.fail.__code__.co_filename == mod.__file__
    with pytest.raises(RuntimeError) as raised:
        mod.fail()
    text = ''.join(traceback.format_exception(raised.type, raised.value, raised.tb))
    assert 'File "%s", line 5, in fail' % mod.__file__ in text
    assert "raise RuntimeError('failing on purpose')" in text  # the source line, read from the zip
    assert mod.__spec__.loader.get_source(mod.__name__) == MOD.format(value='one')


@pytest.mark.parametrize('damage', ['truncated', 'garbage', 'magic', 'flags', 'hash', 'not code'])
def test_a_damaged_or_foreign_python_entry_is_ignored_and_replaced(imports, cache, writes, damage):
    source = MOD.format(value='one').encode()
    if damage == 'magic':
        path = plant(cache, 'mod', source, 'VALUE = "bad"\n', magic=b'\x00\x00\r\n')
    elif damage == 'flags':
        path = plant(cache, 'mod', source, 'VALUE = "bad"\n', flags=b'\x00\x00\x00\x00')
    elif damage == 'hash':
        path = plant(cache, 'mod', source, 'VALUE = "bad"\n', source_hash=b'\x00' * 8)
    else:
        path = plant(cache, 'mod', source, 'VALUE = "bad"\n')
        with open(path, 'r+b') as f:
            data = f.read()
            f.seek(0)
            f.truncate()
            f.write({'truncated': data[:40], 'garbage': data[:16] + b'\xff' * 64,
                     'not code': data[:16] + marshal.dumps(('a', 'tuple'))}[damage])
    assert imports.load(imports.zip()).VALUE == 'one'
    with open(path, 'rb') as f:
        assert marshal.loads(f.read()[16:]).co_filename.endswith('mod.py')  # written again, valid


def test_an_entry_of_another_user_or_writable_by_others_is_ignored(imports, cache, writes, monkeypatch):
    source = MOD.format(value='one').encode()
    path = plant(cache, 'mod', source, 'VALUE = "planted"\n')
    os.chmod(path, 0o666)
    assert imports.load(imports.zip()).VALUE == 'one'

    path = plant(cache, 'mod', source, 'VALUE = "planted"\n')
    if os.geteuid() == 0:
        os.chown(path, 65534, 65534)
    else:  # the file stays this user's; the process is another user's
        real = os.getuid()
        monkeypatch.setattr(os, 'getuid', lambda: real + 1)
    assert imports.load(imports.zip(name='again.zip')).VALUE == 'one'


def test_dont_write_bytecode_writes_nothing_but_reads(imports, cache, monkeypatch):
    monkeypatch.setattr(sys, 'dont_write_bytecode', True)
    archive = imports.zip()
    assert imports.load(archive).VALUE == 'one'
    assert not os.path.exists(cache.directory)
    plant(cache, 'mod', MOD.format(value='one').encode(), 'VALUE = "from the cache"\n')
    assert imports.load(archive).VALUE == 'from the cache'


def test_an_unusable_cache_directory_falls_back_to_the_source(tmp_path, writes):
    blocker = tmp_path / 'file'
    blocker.write_text('not a directory')
    below = pathlib.Path('kubeops.rollout', 'module_utils', TAG)
    for n, directory in enumerate([blocker / below,  # mkdir fails
                                   tmp_path / 'no' / 'such' / 'home' / '.cache' / below]):
        importing = Importing(tmp_path, BytecodeCache(str(directory)))
        try:
            assert importing.load(importing.zip(name='%d.zip' % n)).VALUE == 'one'
            assert importing.load(importing.zip(name='%d-again.zip' % n)).VALUE == 'one'
        finally:
            importing.forget()
        assert not os.path.exists(directory)


@pytest.mark.skipif(os.geteuid() != 0, reason='needs a directory of another user')
def test_a_base_directory_of_another_user_gets_no_entries(tmp_path, writes):
    base = tmp_path / 'theirs'
    base.mkdir()
    os.chown(base, 65534, 65534)
    importing = Importing(tmp_path, BytecodeCache(str(base / 'kubeops.rollout' / 'module_utils' / TAG)))
    try:
        assert importing.load(importing.zip()).VALUE == 'one'
    finally:
        importing.forget()
    assert list(base.iterdir()) == []


def test_concurrent_module_runs_share_the_cache(tmp_path):
    package = 'zbc_%s' % uuid.uuid4().hex[:12]
    archive = build_zip(tmp_path / 'payload.zip', package)
    directory = tmp_path / 'cache' / TAG
    script = textwrap.dedent('''
        import importlib, sys
        from ansible_collections.kubeops.rollout.plugins.module_utils.common.bytecode_cache import (
            BytecodeCache, ZipBytecodeFinder)
        sys.meta_path.insert(0, ZipBytecodeFinder(%r, BytecodeCache(%r)))
        sys.path.insert(0, %r)
        print(importlib.import_module(%r + '.sub.leaf').LEAF, importlib.import_module(%r + '.mod').VALUE)
    ''' % (package, str(directory), archive, package, package))
    env = {k: v for k, v in os.environ.items() if k != 'PYTHONDONTWRITEBYTECODE'}
    env['PYTHONPATH'] = str(pathlib.Path(__file__).resolve().parents[5] / '.collections')
    for _round in range(2):
        procs = [subprocess.Popen([sys.executable, '-c', script], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, env=env) for _ in range(6)]
        for proc in procs:
            out, err = proc.communicate(timeout=60)
            assert proc.returncode == 0, err
            assert out.split() == ['sub.leaf', 'one']
    assert modules(directory) == ['mod', 'sub', 'sub.leaf']  # and no temporary file left


def test_a_directory_on_the_path_is_left_to_pythons_finders(tmp_path, cache):
    finder = ZipBytecodeFinder('zbc_dir', cache)
    assert finder.find_spec('zbc_dir.mod', [str(tmp_path)]) is None
    assert finder.find_spec('other.mod', [str(tmp_path / 'x.zip')]) is None
    assert finder.find_spec('zbc_dir', None) is None


def test_cache_dir_follows_xdg_cache_home_then_home(tmp_path, monkeypatch):
    below = pathlib.Path('kubeops.rollout', 'module_utils', TAG)
    assert cache_dir({'XDG_CACHE_HOME': str(tmp_path)}) == str(tmp_path / below)
    monkeypatch.setenv('HOME', str(tmp_path / 'home'))
    expected = str(tmp_path / 'home' / '.cache' / 'kubeops.rollout' / 'module_utils' / TAG)
    assert cache_dir({'XDG_CACHE_HOME': 'relative/ignored'}) == expected
    assert cache_dir({}) == expected


def test_install_does_nothing_outside_a_zip():
    before = list(sys.meta_path)
    assert bytecode_cache.install() is None
    assert sys.meta_path == before


def test_install_from_a_zip_puts_one_finder_first(tmp_path, monkeypatch, writes):
    # This file's code, loaded from a zip laid out as a collection's payload.
    top = 'zbc_%s' % uuid.uuid4().hex[:12]
    utils = top + '/ns/coll/plugins/module_utils'
    source = pathlib.Path(bytecode_cache.__file__).read_text()
    files = {top + '/__init__.py': '', top + '/ns/__init__.py': '', top + '/ns/coll/__init__.py': '',
             top + '/ns/coll/plugins/__init__.py': '', utils + '/__init__.py': '',
             utils + '/common/__init__.py': '', utils + '/common/bytecode_cache.py': source,
             utils + '/common/other.py': 'X = 1\n'}
    archive = str(tmp_path / 'payload.zip')
    with zipfile.ZipFile(archive, 'w') as zf:
        for name, text in files.items():
            zf.writestr(name, text)
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path / 'xdg'))
    monkeypatch.syspath_prepend(archive)
    before = list(sys.meta_path)
    try:
        module = importlib.import_module(utils.replace('/', '.') + '.common.bytecode_cache')
        assert isinstance(module.__spec__.loader, zipimport.zipimporter)
        finder = module.install()
        assert sys.meta_path[0] is finder and finder.package == utils.replace('/', '.')
        assert module.install() is finder and sys.meta_path[1:] == before
        assert importlib.import_module(utils.replace('/', '.') + '.common.other').X == 1
        assert modules(tmp_path / 'xdg' / 'ns.coll' / 'module_utils' / TAG) == ['common.other']
    finally:
        sys.meta_path[:] = before
        for name in [n for n in sys.modules if n.startswith(top)]:
            del sys.modules[name]


def test_every_module_utils_package_installs_the_cache_first():
    # A module's first import of module_utils goes through one of these packages (Ansible ships
    # module_utils/__init__.py itself empty, whatever it holds).
    line = 'bytecode_cache.install()'
    missing = [p.parent.name for p in sorted(UTILS.glob('*/__init__.py')) if line not in p.read_text()]
    assert missing == []


@pytest.mark.parametrize('native', [True, False], ids=['_imp', 'code.replace'])
def test_every_code_object_gets_the_current_file_name(monkeypatch, native):
    if not native:  # another Python, without CPython's _imp._fix_co_filename
        monkeypatch.setattr(bytecode_cache, '_fix_co_filename', None)
    source = 'def f():\n    def g():\n        pass\n    return g\n\nclass C:\n    x = [i for i in ()]\n'
    code = compile(source, '/old/payload.zip/p/m.py', 'exec')
    code = bytecode_cache._with_filename(code, '/new/payload.zip/p/m.py')

    def names(c):
        yield c.co_filename
        for const in c.co_consts:
            if hasattr(const, 'co_filename'):
                yield from names(const)
    assert set(names(code)) == {'/new/payload.zip/p/m.py'} and len(list(names(code))) >= 4

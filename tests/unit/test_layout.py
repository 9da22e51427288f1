"""The layout of plugins/module_utils holds: layers only import from layers below them (no circle
between files), no file is over 550 lines, and every file has a unit test file mirroring its path."""

import ast
import pathlib

import pytest

pytestmark = pytest.mark.unit

ROOT = pathlib.Path(__file__).resolve().parents[2]
UTILS = ROOT / 'plugins' / 'module_utils'
UNIT = ROOT / 'tests' / 'unit' / 'plugins' / 'module_utils'
PREFIX = 'ansible_collections.kubeops.rollout.plugins.module_utils.'
# Lowest first (docs/module_utils.md); rc/ is a feature package of its own, on the layers below it.
LAYERS = ['common', 'api', 'kinds', 'gates', 'engine', 'usecases', 'adapter', 'rc']
MAX_LINES = 550


def _files():
    return sorted(p for p in UTILS.rglob('*.py') if p.name != '__init__.py')


def _dotted(path):
    return '.'.join(path.relative_to(UTILS).with_suffix('').parts)


def _imports(path):
    """The module_utils modules ``path`` imports (at any depth, lazily or not)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(PREFIX):
            base = node.module[len(PREFIX):]
            for alias in node.names:
                candidate = '%s.%s' % (base, alias.name)
                out.add(candidate if (UTILS / (candidate.replace('.', '/') + '.py')).exists() else base)
        elif isinstance(node, ast.ImportFrom) and node.module == PREFIX.rstrip('.'):
            out.update(alias.name for alias in node.names)
    return out


def test_every_file_is_in_a_layer():
    assert {_dotted(p).split('.')[0] for p in _files()} <= set(LAYERS)


def test_no_layer_imports_from_a_layer_above_it():
    wrong = []
    for path in _files():
        here = _dotted(path)
        mine = LAYERS.index(here.split('.')[0])
        for imported in _imports(path):
            if LAYERS.index(imported.split('.')[0]) > mine:
                wrong.append('%s imports %s' % (here, imported))
    assert wrong == []


def test_no_two_files_import_each_other():
    graph = {_dotted(p): {i for i in _imports(p) if i != _dotted(p)} for p in _files()}
    circles = sorted('%s <-> %s' % (a, b) for a, deps in graph.items() for b in deps
                     if a < b and a in graph.get(b, ()))
    assert circles == []


def test_no_file_is_over_the_size_limit():
    sizes = {_dotted(p): len(p.read_text().splitlines()) for p in _files()}
    assert {name: n for name, n in sizes.items() if n > MAX_LINES} == {}


def test_every_file_has_a_unit_test_file_mirroring_its_path():
    missing = []
    for path in _files():
        rel = path.relative_to(UTILS)
        test = UNIT / rel.parent / ('test_%s' % rel.name)
        if not test.exists():
            missing.append(str(rel))
    assert missing == []


def test_docs_module_utils_names_every_file_and_only_files_that_exist():
    """docs/module_utils.md cannot drift: every module_utils file has its row (by its path, or by its
    name in the row of its folder), and every file the page names exists."""
    import re
    root = pathlib.Path(__file__).resolve().parents[2]
    base = root / 'plugins' / 'module_utils'
    doc = (root / 'docs' / 'module_utils.md').read_text()
    named = set(re.findall(r'`([A-Za-z0-9_./-]+\.py)`', doc))
    files = sorted(str(p.relative_to(base)) for p in base.rglob('*.py')
                   if p.name != '__init__.py' and '__pycache__' not in p.parts)
    rows = [line for line in doc.splitlines() if line.startswith('| `')]
    missing = []
    for f in files:
        folder, name = f.rpartition('/')[0] + '/', f.rpartition('/')[2]
        if f in named:
            continue
        if any(line.startswith('| `%s`' % folder) and '`%s`' % name in line for line in rows):
            continue
        missing.append(f)
    assert missing == [], 'docs/module_utils.md has no row for %s' % missing
    # A name relative to a folder the text is about (`analysis/gate.py`, `times.py`, `kube.py` of
    # tests/support/) is found under module_utils or the tests.
    everywhere = [str(p.relative_to(base)) for p in base.rglob('*.py')] + \
        [str(p.relative_to(root / 'tests')) for p in (root / 'tests').rglob('*.py')]
    absent = [n for n in named if not (base / n).exists() and not (root / n).exists()
              and not any(e.endswith('/' + n) or e == n for e in everywhere)]
    assert absent == [], 'docs/module_utils.md names files that do not exist: %s' % sorted(absent)

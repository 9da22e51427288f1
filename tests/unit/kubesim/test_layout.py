"""The layout of kubesim (tests/kubesim) holds: no circle of imports between its modules (lazy
imports inside functions count: they tie the files as much), and no file over 550 lines but the
declarative tables of Go types and CRD schemas."""

import ast
import pathlib

import pytest

pytestmark = pytest.mark.unit

ROOT = pathlib.Path(__file__).resolve().parents[3]
KUBESIM = ROOT / 'tests' / 'kubesim'
PACKAGE = 'tests.kubesim'
MAX_LINES = 550
# Declarative tables, as long as what they transcribe: the Go types of k8s.io/api (fields, protobuf
# numbers, apply markers), their spew layout, and the Gateway API's CRD schemas.
TABLES = {'machinery/gotypes_table.py', 'machinery/spew_table.py', 'gateway/crds.py'}


def _modules():
    out = {}
    for path in sorted(KUBESIM.rglob('*.py')):
        parts = list(path.relative_to(ROOT).with_suffix('').parts)
        if parts[-1] == '__init__':
            parts.pop()
        out['.'.join(parts)] = path
    return out


def _imports(name, source, is_package, modules):
    """The kubesim modules the module ``name`` (its ``source``) imports, at any depth (a function's
    lazy import too)."""
    package = name.split('.') if is_package else name.split('.')[:-1]
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                parent = package[:len(package) - node.level + 1]
                base = '.'.join(parent + ([node.module] if node.module else []))
            else:
                base = node.module or ''
            for alias in node.names:
                candidate = f'{base}.{alias.name}'
                found.add(candidate if candidate in modules else base)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m in modules and m != name}


def import_cycles(graph):
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(cycles)


def test_the_cycle_finder_finds_a_cycle_through_a_lazy_import():
    assert import_cycles({'a': {'b'}, 'b': {'c'}, 'c': {'a'}, 'd': {'a'}}) == [['a', 'b', 'c']]
    assert import_cycles({'a': {'b'}, 'b': set()}) == []
    source = 'def f():\n    from ..apiserver.registry.resources import BY_KEY\n'
    modules = {'tests.kubesim.machinery.example', 'tests.kubesim.apiserver.registry.resources'}
    assert _imports('tests.kubesim.machinery.example', source, False, modules) == {
        'tests.kubesim.apiserver.registry.resources'}


def test_no_import_cycles_among_kubesim_modules():
    modules = _modules()
    graph = {name: _imports(name, path.read_text(), path.name == '__init__.py', modules)
             for name, path in modules.items()}
    assert import_cycles(graph) == []


def test_no_kubesim_file_is_over_the_size_limit():
    sizes = {str(p.relative_to(KUBESIM)): len(p.read_text().splitlines()) for p in KUBESIM.rglob('*.py')}
    assert {name: n for name, n in sizes.items() if n > MAX_LINES and name not in TABLES} == {}
    assert set(sizes) >= TABLES, 'a declared table no longer exists: update TABLES'

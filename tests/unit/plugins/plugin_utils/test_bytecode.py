"""The finder that imports the collection's own Python code through Python's bytecode cache."""

import importlib.machinery
import os
import sys

from ansible_collections.kubeops.rollout.plugins.plugin_utils import bytecode
from ansible_collections.kubeops.rollout.plugins.plugin_utils.bytecode import CachedFinder

PLUGINS = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', 'plugins'))
PREFIX = bytecode.PACKAGE.rstrip('.')


def test_the_collections_modules_and_utils_are_found_as_source_files():
    for package, name, file in (
            ('module_utils', 'api', os.path.join('api', '__init__.py')),
            ('modules', 'rollout_status', 'rollout_status.py'),
            ('plugin_utils', 'controller', 'controller.py')):
        spec = CachedFinder.find_spec(f'{PREFIX}.{package}.{name}', [os.path.join(PLUGINS, package)])
        assert isinstance(spec.loader, importlib.machinery.SourceFileLoader), spec
        assert spec.origin == os.path.join(PLUGINS, package, file)
    for dotted in ('api.client', 'api.connection.kubeconfig'):
        folder, _dot, name = dotted.rpartition('.')
        where = os.path.join(PLUGINS, 'module_utils', *folder.split('.'))
        sub = CachedFinder.find_spec(f'{PREFIX}.module_utils.{dotted}', [where])
        assert sub.origin == os.path.join(where, name + '.py')


def test_everything_else_is_left_to_the_other_finders():
    utils = [os.path.join(PLUGINS, 'module_utils')]
    for name, path in (
            (f'{PREFIX}.module_utils.api.client', None),            # a top-level import
            (f'{PREFIX}.module_utils', [PLUGINS]),                 # the package itself
            (f'{PREFIX}.action.rollout_status', [os.path.join(PLUGINS, 'action')]),
            ('ansible_collections.other.thing.plugins.module_utils.client', utils),
            ('json', utils),
            (f'{PREFIX}.module_utils.no_such_module', utils)):
        assert CachedFinder.find_spec(name, path) is None, name


def test_it_is_on_the_meta_path_only_inside_cached():
    assert CachedFinder not in sys.meta_path
    with bytecode.cached():
        assert sys.meta_path[0] is CachedFinder
        with bytecode.cached():
            assert sys.meta_path.count(CachedFinder) == 1
        assert sys.meta_path[0] is CachedFinder
    assert CachedFinder not in sys.meta_path

"""The return-value documentation the modules share has one source (docs/return_blocks.yml): every
copy in a module's RETURN is the source's, every block serves several modules, and every RETURN
still parses."""

import ast
import importlib.util
import pathlib

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
_spec = importlib.util.spec_from_file_location('return_docs', ROOT / 'scripts' / 'return_docs.py')
return_docs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(return_docs)


def _return_of(path):
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], 'id', None) == 'RETURN':
            return node.value.value
    return None


def test_every_shared_copy_is_the_source():
    assert return_docs.stale() == [], 'run scripts/return_docs.py'


def test_every_block_serves_several_modules():
    usage = return_docs.usage()
    assert all(len(modules) >= 2 for modules in usage.values()), usage


def test_a_changed_copy_is_found_and_rewritten(tmp_path):
    shared = return_docs.blocks()
    path = return_docs.MODULES / 'rollout_image.py'
    text = path.read_text()
    edited = text.replace('      description: Kind of the workload.', '      description: Kind.', 1)
    assert edited != text
    rewritten, used = return_docs.synced(edited, shared)
    assert rewritten == text and 'workload_identity' in used


def test_every_return_block_parses():
    for path in return_docs.modules():
        doc = yaml.safe_load(_return_of(path))
        assert isinstance(doc, dict) and doc, path.name


def test_a_block_inside_a_block_is_written_out_and_counted():
    shared = return_docs.blocks()
    # The source leaves the inner region empty; every copy holds it whole.
    assert '    passed:\n      description: Whether every check' in shared['analysis']
    path = return_docs.MODULES / 'rollout_release.py'
    text = path.read_text()
    edited = text.replace('description: Whether every check stayed', 'description: Whether all stayed', 1)
    assert edited != text
    rewritten, used = return_docs.synced(edited, shared)
    assert rewritten == text
    assert used[:2] == ['analysis', 'analysis_measurements']
    assert 'rollout_release' in return_docs.usage()['analysis_measurements']

"""The collection builds into a Galaxy tarball that installs and documents itself."""

import json
import os
import pathlib
import subprocess
import tarfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = ROOT / '.venv' / 'bin'

pytestmark = pytest.mark.packaging


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kw)


@pytest.fixture(scope='module')
def tarball(tmp_path_factory):
    out = tmp_path_factory.mktemp('build')
    proc = run([str(BIN / 'ansible-galaxy'), 'collection', 'build', '--force', '--output-path', str(out)],
               cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    (path,) = out.glob('kubeops-rollout-*.tar.gz')
    return path


def test_tarball_ships_content_not_test_harness(tarball):
    with tarfile.open(tarball) as tar:
        names = set(tar.getnames())
    assert 'galaxy.yml' not in names  # replaced by MANIFEST.json, as Galaxy expects
    assert {'MANIFEST.json', 'meta/runtime.yml', 'meta/execution-environment.yml', 'LICENSE'} <= names
    shipped_tests = {n for n in names if n.startswith('tests/') and n != 'tests/'}
    assert all(n.startswith('tests/sanity') for n in shipped_tests), shipped_tests
    harness = ('.venv', '.collections', 'build/', 'scripts/', 'extensions/molecule')
    leaked = [n for n in names if n.startswith(harness)]
    assert not leaked


def test_installs_and_ansible_doc_lists_modules(tarball, tmp_path):
    dest = tmp_path / 'collections'
    (tmp_path / 'ansible.cfg').write_text('[defaults]\n')
    env = dict(os.environ, ANSIBLE_CONFIG=str(tmp_path / 'ansible.cfg'), ANSIBLE_COLLECTIONS_PATH=str(dest))
    proc = run([str(BIN / 'ansible-galaxy'), 'collection', 'install', '--force', '-p', str(dest),
                str(tarball)], env=env)
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((dest / 'ansible_collections/kubeops/rollout/MANIFEST.json').read_text())
    assert manifest['collection_info']['version'] == '0.1.0'
    proc = run([str(BIN / 'ansible-doc'), '-t', 'module', '-l', 'kubeops.rollout', '-j'], env=env,
               cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    listed = set(json.loads(proc.stdout or '{}'))
    shipped = {f'kubeops.rollout.{p.stem}' for p in (ROOT / 'plugins/modules').glob('*.py')
               if p.stem != '__init__'}
    assert listed == shipped

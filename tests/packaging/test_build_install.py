"""The collection builds into a Galaxy tarball that installs and documents itself."""

import json
import os
import pathlib
import re
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


PLAY = '''
- hosts: localhost
  gather_facts: false
  vars:
    ansible_python_interpreter: "{{ ansible_playbook_python }}"
  module_defaults:
    group/kubeops.rollout.rollout:
      kubeconfig: "%(kubeconfig)s"
  tasks:
    - name: A release on the controller path
      kubeops.rollout.rollout_release:
        workloads: [{kind: Deployment, name: web, images: {app: "nginx:1.26"}}]
        timeout: 60
    - name: A release on the module path
      kubeops.rollout.rollout_release:
        workloads: [{kind: Deployment, name: web, images: {app: "nginx:1.27"}}]
        timeout: 60
      vars:
        kubeops_rollout_module_path: true
    - name: A role
      ansible.builtin.include_role:
        name: kubeops.rollout.rollout_wait
      vars:
        rollout_wait_workloads: [{kind: Deployment, name: web}]
'''


def test_a_playbook_runs_from_the_installed_tarball(tarball, tmp_path, kubesim_factory):
    """Installed as users install it (into an empty collections path, nothing of the repository on any
    path), the collection runs a playbook: its action plugins, its module payloads and a role."""
    from tests.integration.conftest import Kube, workload

    sim = kubesim_factory(ready_delay=0.05)
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web')])
    dest = tmp_path / 'collections'
    (tmp_path / 'ansible.cfg').write_text('[defaults]\n')
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(('ANSIBLE_', 'K8S_AUTH_', 'PYTHONPATH', 'KUBECONFIG'))}
    env.update(ANSIBLE_CONFIG=str(tmp_path / 'ansible.cfg'), ANSIBLE_COLLECTIONS_PATH=str(dest),
               ANSIBLE_NOCOLOR='1', PATH=f'{BIN}{os.pathsep}{os.environ["PATH"]}')
    proc = run([str(BIN / 'ansible-galaxy'), 'collection', 'install', '-p', str(dest), str(tarball)],
               env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    proc = run([str(BIN / 'ansible-galaxy'), 'collection', 'list', 'kubeops.rollout', '--format', 'json'],
               env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert list(json.loads(proc.stdout)) == [str(dest / 'ansible_collections')], proc.stdout
    (tmp_path / 'play.yml').write_text(PLAY % {'kubeconfig': sim.kubeconfig})
    proc = run([str(BIN / 'ansible-playbook'), 'play.yml'], env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    recap = re.search(r'localhost +: ok=(\d+) +changed=(\d+) +unreachable=0 +failed=0', proc.stdout)
    assert recap and int(recap.group(2)) >= 2, proc.stdout[-2000:]
    image = kube.get('Deployment', 'web')['spec']['template']['spec']['containers'][0]['image']
    assert image == 'nginx:1.27'

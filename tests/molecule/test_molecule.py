"""`molecule test` for each scenario of extensions/molecule: the roles against a kubesim per scenario.

Each scenario runs in its own ephemeral directory (a pytest tmp dir), so runs never share a kubesim
or its files, and from the repository root, where molecule finds the collection (galaxy.yml) and
its scenarios.
"""

import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(sys.executable).parent
SCENARIO_ROOT = ROOT / 'extensions' / 'molecule'
SCENARIOS = sorted(p.parent.name for p in SCENARIO_ROOT.glob('*/molecule.yml'))

pytestmark = pytest.mark.molecule


def test_every_role_that_changes_workloads_has_a_scenario():
    assert {'upgrade', 'upgrade_rollback', 'restart'} <= set(SCENARIOS)


@pytest.mark.parametrize('scenario', SCENARIOS)
def test_molecule_scenario(scenario, tmp_path):
    env = dict(os.environ)
    env.update(
        PATH=f'{BIN}{os.pathsep}{env.get("PATH", "")}',
        MOLECULE_EPHEMERAL_DIRECTORY=str(tmp_path / 'ephemeral'),
        NO_COLOR='1',
        ANSIBLE_NOCOLOR='1',
        PY_COLORS='0',
    )
    # molecule writes its own ansible.cfg for the scenario; the repository's must not get in the way.
    env.pop('ANSIBLE_CONFIG', None)
    proc = subprocess.run([str(BIN / 'molecule'), 'test', '--scenario-name', scenario], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=540)
    output = proc.stdout + proc.stderr
    (tmp_path / 'molecule.log').write_text(output)
    assert proc.returncode == 0, f'molecule test -s {scenario} exited {proc.returncode}:\n{output[-6000:]}'
    # The run must really have converged and verified (not skipped them as missing or disabled).
    for action in ('create', 'converge', 'verify', 'destroy'):
        assert re.search(rf'{scenario}\s+\S+\s+{action}: Executed: Successful', output), (
            f'{action} did not run successfully:\n{output[-4000:]}')
    recap = re.search(rf'^{scenario}\s*: actions=(\d+)\s+successful=(\d+).*failed=(\d+)', output, re.M)
    assert recap, output[-3000:]
    actions, successful, failed = map(int, recap.groups())
    assert failed == 0 and successful == actions, recap.group(0)

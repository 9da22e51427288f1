"""The two execution paths side by side: ``python -m tests.bench.suite_paths [N]``.

N (default 20) ``rollout_history`` tasks on the controller path, N on the module path
(``KUBEOPS_ROLLOUT_MODULE_PATH`` is not needed: the task variable forces it), N ``command: kubectl
rollout history``, N ``ping`` and N ``debug``, interleaved round by round in one playbook against
one kubesim; a task's time runs from its start to its result (the integration tests' recording
callback), medians per tool. Prints the medians and the ratios the README states.
"""

import json
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile

import yaml

from tests.integration.conftest import Kube, workload
from tests.kubesim import KubeSim

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(sys.executable).parent
RECORD = ROOT / 'tests' / 'integration' / 'callback_plugins'


def tasks(kubeconfig, kubectl, rounds):
    hist = {'kind': 'Deployment', 'name': 'web', 'kubeconfig': str(kubeconfig)}
    tools = {
        'controller': {'kubeops.rollout.rollout_history': hist},
        'module': {'kubeops.rollout.rollout_history': hist, 'vars': {'kubeops_rollout_module_path': True}},
        'kubectl': {'ansible.builtin.command': {'argv': [kubectl, '--kubeconfig', str(kubeconfig), 'rollout',
                                                         'history', 'deployment/web']}},
        'ping': {'ansible.builtin.ping': {}},
        'debug': {'ansible.builtin.debug': {'msg': 'x'}},
    }
    out = [dict(body, name=f'warmup {tool}') for tool, body in tools.items()]
    for i in range(rounds):
        order = list(tools)[i % len(tools):] + list(tools)[:i % len(tools)]
        out += [dict(tools[tool], name=f'{tool} {i}') for tool in order]
    out.append({'name': 'end', 'ansible.builtin.ping': {}})
    return out


def main(rounds=20):
    work = pathlib.Path(tempfile.mkdtemp(prefix='kubeops-paths-'))
    sim = KubeSim().start()
    try:
        kubeconfig = sim.write_kubeconfig(work / 'kubeconfig')
        kube = Kube(kubeconfig)
        kube.create(workload('Deployment', 'web'))
        kube.rolled_out('Deployment', 'web')
        book = work / 'play.yml'
        kubectl = shutil.which('kubectl') or str(BIN / 'kubectl')
        book.write_text(yaml.safe_dump([{'hosts': 'localhost', 'gather_facts': False,
                                         'tasks': tasks(kubeconfig, kubectl, rounds)}]))
        env = {'ANSIBLE_CONFIG': str(ROOT / 'ansible.cfg'), 'ANSIBLE_CALLBACK_PLUGINS': str(RECORD),
               'ANSIBLE_CALLBACKS_ENABLED': 'kubeops_record', 'KUBEOPS_RECORD_OUT': str(work / 'out.json'),
               'PATH': f'{BIN}:/usr/bin:/bin', 'HOME': str(pathlib.Path.home())}
        subprocess.run([str(BIN / 'ansible-playbook'), str(book)], cwd=ROOT, env=env, check=True,
                       stdout=subprocess.DEVNULL)
        results = json.loads((work / 'out.json').read_text())
    finally:
        sim.stop()
    times = {}
    for name, r in results.items():
        tool, _, i = name.rpartition(' ')
        if tool and i.isdigit():
            times.setdefault(tool, []).append(r['_duration'])
    med = {tool: statistics.median(v) * 1000 for tool, v in times.items()}
    for tool, ms in med.items():
        print(f'{tool:>10}: {ms:7.1f} ms/task (median of {len(times[tool])})')
    print(f'controller / kubectl = {med["controller"] / med["kubectl"]:.2f}  (target <= 0.25)')
    print(f'controller / debug   = {med["controller"] / med["debug"]:.2f}  (target <= 3)')
    print(f'module / kubectl     = {med["module"] / med["kubectl"]:.2f}')


if __name__ == '__main__':
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)

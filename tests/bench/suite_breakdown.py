"""Where a task's time goes: the module process alone, and what this collection's module imports.

Ansible ships every module to its target as an AnsiballZ file (the module, its module_utils and
Ansible's own, zipped, with the task's arguments embedded) and runs it in a new Python process. A
playbook run with ANSIBLE_KEEP_REMOTE_FILES keeps those files; running them again directly times
the module process on its own (Python start, unpacking, imports, the work itself), without the
controller's share (templating, forking, transfer, result processing). The operation is `history`,
which changes nothing, so it can be repeated. `python -X importtime` on this collection's file
then says which imports its process pays for. This collection's module runs on the module path here
(forced by a task variable): the controller path has no module process.
"""

import glob
import os
import re
import subprocess
import sys
import time

from .ansible_run import task
from .fixtures import CORE_NAMESPACE, NAMESPACE, with_two_revisions
from .ops import MODULE_PATH_VARS, PING_TASK, command_task, core_task, kubeops_task
from .stats import summary

KIND = 'Deployment'
NAME = 'breakdown'
MODULE_FILES = {'ping': 'AnsiballZ_ping.py', 'module': 'AnsiballZ_rollout_history.py',
                'command': 'AnsiballZ_command.py', 'kubernetes.core': 'AnsiballZ_k8s_info.py'}
# Import groups reported for this collection's module process (cumulative microseconds).
IMPORT_GROUPS = {
    'ansible.module_utils.basic': 'Ansible\'s module runtime (every module pays it)',
    'urllib3': 'urllib3 (HTTP client)',
    'http.client': 'http.client (standard library HTTP client; urllib3 imports it too)',
    'yaml': 'PyYAML (kubeconfig parsing)',
    'ssl': 'ssl',
}
_IMPORT_LINE = re.compile(r'import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)')


def _keep_files(ctx, cache_dir, keep_dir, core_tmp):
    env = {'ANSIBLE_KEEP_REMOTE_FILES': '1', 'ANSIBLE_REMOTE_TMP': keep_dir}
    tasks = [task('ping', PING_TASK),
             task('module', {**kubeops_task('history', KIND, NAME, ctx.kubeconfig), **MODULE_PATH_VARS}),
             task('command', command_task('history', KIND, NAME, ctx.kubectl_path, ctx.kubeconfig,
                                          cache_dir)),
             task('kubernetes.core', core_task('history', KIND, NAME, ctx.kubeconfig))]
    ctx.playbook(tasks, 'breakdown-keep', environment={'TMPDIR': core_tmp}, extra_env=env)
    found = {}
    for tool, filename in MODULE_FILES.items():
        paths = sorted(glob.glob(os.path.join(keep_dir, '*', filename)), key=os.path.getmtime)
        if paths:
            found[tool] = paths[-1]
    return found


def _run(path, env):
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, env=env, timeout=120)
    return time.monotonic() - t0, proc


def imports(path, env):
    """Cumulative import time per reported group and the collection's own module_utils (self time)."""
    proc = subprocess.run([sys.executable, '-X', 'importtime', path], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, env=env, timeout=120)
    groups = dict.fromkeys(IMPORT_GROUPS, 0)
    own = 0
    for line in proc.stderr.splitlines():
        m = _IMPORT_LINE.match(line)
        if not m:
            continue
        self_us, cumulative_us, _indent, name = int(m.group(1)), int(m.group(2)), m.group(3), m.group(4)
        if name in groups:
            groups[name] = max(groups[name], cumulative_us)
        if name.startswith('ansible_collections.kubeops.'):
            own += self_us
    return {'groups': {k: v / 1e6 for k, v in groups.items()}, 'own_module_utils': own / 1e6}


def run(ctx, reps):
    with_two_revisions(ctx.api, [(KIND, NAME)])
    with_two_revisions(ctx.api, [(KIND, NAME)], ns=CORE_NAMESPACE)
    cache_dir = ctx.fresh_dir('kubectl-cache', 'breakdown')
    ctx.kubectl(['rollout', 'history', f'deployment/{NAME}', '-n', NAMESPACE], cache_dir)  # warm the cache
    keep_dir = ctx.fresh_dir('breakdown', 'remote-tmp')
    core_tmp = ctx.fresh_dir('breakdown', 'core-tmp')
    files = _keep_files(ctx, cache_dir, keep_dir, core_tmp)
    env = dict(os.environ, TMPDIR=core_tmp)
    samples = {tool: [] for tool in files}
    for _ in range(reps):
        for tool, path in files.items():  # interleaved, as in the latency suite
            seconds, proc = _run(path, env)
            if proc.returncode == 0:
                samples[tool].append(seconds)
    kubectl_alone = [ctx.kubectl(['rollout', 'history', f'deployment/{NAME}', '-n', NAMESPACE],
                                 cache_dir).seconds for _ in range(reps)]
    import_samples = [imports(files['module'], env) for _ in range(3)] if 'module' in files else []
    imp = None
    if import_samples:
        imp = {'groups': {k: summary([s['groups'][k] for s in import_samples])['median']
                          for k in IMPORT_GROUPS},
               'own_module_utils': summary([s['own_module_utils'] for s in import_samples])['median']}
    return {'operation': 'history', 'kind': KIND, 'reps': reps,
            'module_process': {tool: summary(v) for tool, v in samples.items()},
            'payload_bytes': {tool: os.path.getsize(p) for tool, p in files.items()},
            'kubectl_process': summary(kubectl_alone), 'imports': imp}

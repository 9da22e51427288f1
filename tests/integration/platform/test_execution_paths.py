"""The two ways a task runs, the module on the controller (the action plugins) and the module
process (AnsiballZ): the same results and the same API requests, and what decides the path."""

import base64
import io
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import time
import zipfile

import pytest

import yaml

from ..conftest import BIN, CALLBACKS, ROOT, Kube, read_log, run_playbook, task, workload
from ..metrics import MetricsServer
from ..rc import _children, rc_manifest
from ..rc.test_rolling_update_rc import FAST, setup

pytestmark = pytest.mark.integration

MODULE_PATH = {'KUBEOPS_ROLLOUT_MODULE_PATH': '1'}
KINDS = {'Deployment': 'web', 'StatefulSet': 'db', 'DaemonSet': 'agent'}
TOKEN = 'paths-token-0123456789abcdef'

# What differs between two runs of the same play on two fresh servers: times and server-made ids.
TIMESTAMP = re.compile(r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)')
UID = re.compile(r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}')
# Pod-template and revision hashes: a restart stamps the template with the time, so its hash differs
# too. A hash is a 32-bit number in decimal, safe-encoded: 10 characters or fewer (fewer than 6 once
# in 40,000).
HASH = re.compile(r'-[bcdfghjklmnpqrstvwxz2456789]{6,10}\b')
POD = re.compile(r'(/pods/[a-z0-9.-]+?)-[a-z0-9]{5}\b')  # pods are named by their controller plus 5 random
# managedFields: whether the controllers' last status write came before the read is timing.
VOLATILE_KEYS = {'_duration', '_requests', 'resourceVersion', 'kubeconfig', 'managedFields'}


def normalize(value):
    if isinstance(value, dict):
        return {k: ('<volatile>' if k in VOLATILE_KEYS else normalize(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [normalize(v) for v in value]
    if isinstance(value, str):
        value = POD.sub(r'\1-<pod>', value)
        return HASH.sub('-<hash>', UID.sub('<uid>', TIMESTAMP.sub('<time>', value)))
    return value


def differences(a, b, path=''):
    """Where two results differ: [(path, a's value, b's value)]."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b), key=str)
                for d in differences(a.get(k, '<absent>'), b.get(k, '<absent>'), f'{path}.{k}')]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f'{path}[{i}]')]
    return [] if a == b else [(path, a, b)]


def requests(result, polled=False):
    """A task's API requests; repeated polls of one object (timing-dependent) count once. For a task
    that polls several objects in turn (a rolling update) the reads interleave by timing: its writes
    in order, and the set of what it read."""
    out = []
    if polled:
        log = result['_requests']
        reads = {tuple(normalize([e['method'], e['path']])) for e in log if e['method'] == 'GET'}
        return sorted(reads), requests({'_requests': [e for e in log if e['method'] != 'GET']})
    for e in result['_requests']:
        query = re.sub(r'resourceVersion=\d+', 'resourceVersion=N', e['query'])
        item = tuple(normalize([e['method'], e['path'], query, e['content_type'], e['status'], e['dry_run']]))
        if not (out and item == out[-1] and e['method'] == 'GET'):
            out.append(item)
    return out


def lifecycle_tasks():
    tasks = []
    for kind, name in KINDS.items():
        W = {'kind': kind, 'name': name}
        tasks += [
            task(f'{kind} status', 'rollout_status', **W, wait_timeout=30),
            task(f'{kind} image check', 'rollout_image', **W, images={'app': 'redis:7.2'}, change_cause=TOKEN,
                 check_mode=True, diff=True),
            task(f'{kind} image', 'rollout_image', **W, images={'app': 'redis:7.2'}, change_cause='7.2',
                 wait=True, diff=True),
            task(f'{kind} image again', 'rollout_image', **W, images={'app': 'redis:7.2'}),
            task(f'{kind} history', 'rollout_history', **W),
            task(f'{kind} undo check', 'rollout_undo', **W, check_mode=True, diff=True),
            task(f'{kind} undo', 'rollout_undo', **W, wait=True, diff=True),
            task(f'{kind} undo unknown', 'rollout_undo', **W, to_revision=9),
            task(f'{kind} history revision 2', 'rollout_history', **W, revision=2),
            task(f'{kind} restart', 'rollout_restart', **W, wait=True),
            task(f'{kind} pause', 'rollout_pause', **W, wait=True),
            task(f'{kind} resume', 'rollout_pause', **W, state='resumed'),
            task(f'{kind} unknown option', 'rollout_status', **W, colour='blue'),
        ]
    tasks += [
        task('missing', 'rollout_history', kind='Deployment', name='nothing'),
        task('api_key given', 'rollout_history', kind='Deployment', name='web', api_key=TOKEN),
        {'name': 'rc update check', 'kubeops.rollout.rolling_update_rc': dict(FAST, name='cache',
                                                                            image='memcached:1.7'),
         'register': 'r', 'ignore_errors': True, 'check_mode': True, 'diff': True},
        {'name': 'rc update',
         'kubeops.rollout.rolling_update_rc': dict(FAST, name='cache', image='memcached:1.7'),
         'register': 'r', 'ignore_errors': True},
        {'name': 'rc bad', 'kubeops.rollout.rolling_update_rc': dict(FAST, name='cache', image='x',
                                                                    new_controller={})},
    ]
    tasks[-1].update(register='r', ignore_errors=True)
    return tasks


def run_lifecycle(kubesim_factory, tmp_path, label, env):
    log = tmp_path / f'{label}.log'
    sim = kubesim_factory(tls=True, token=TOKEN, ready_delay=0.05, request_log=log)
    kube = Kube(sim.kubeconfig)
    for kind, name in KINDS.items():
        kube.create(workload(kind, name, image='redis:7.0', replicas=2))
    for kind, name in KINDS.items():
        kube.rolled_out(kind, name)
    setup(sim, rc_manifest('cache', 'memcached:1.6', 2))
    workdir = tmp_path / label
    workdir.mkdir()
    return run_playbook(sim.kubeconfig, lifecycle_tasks(), workdir=workdir,
                        extra_env=dict(env, KUBEOPS_REQUEST_LOG=str(log)))


def test_both_paths_same_results_and_requests(kubesim_factory, tmp_path):
    # With each result's invocation (off by default from ansible-core 2.21), to compare its masking.
    inject = {'ANSIBLE_INJECT_INVOCATION': 'true'}
    controller = run_lifecycle(kubesim_factory, tmp_path, 'controller', inject)
    module = run_lifecycle(kubesim_factory, tmp_path, 'module', dict(MODULE_PATH, **inject))
    assert sorted(controller.results) == sorted(module.results)
    for name in module.results:
        assert normalize(controller[name]) == normalize(module[name]), (name, differences(
            normalize(controller[name]), normalize(module[name])))
        polled = name == 'rc update'
        assert requests(controller[name], polled) == requests(module[name], polled), name
    # The lifecycle did what it says (so the comparison compared something).
    for kind in KINDS:
        assert controller.ok(f'{kind} image')['changed'] is True
        assert controller[f'{kind} image check']['diff']
        assert 'existing revisions' in controller.failed(f'{kind} undo unknown')['msg']
        assert 'Unsupported parameters' in controller.failed(f'{kind} unknown option')['msg']
        assert requests(controller[f'{kind} image'])
    assert controller.ok('rc update')['changed'] is True
    assert 'mutually exclusive' in controller.failed('rc bad')['msg']
    # Secrets: a kubeconfig token never appears in a result; a no_log option is masked.
    text = json.dumps(controller.results)
    assert TOKEN not in text
    assert 'VALUE_SPECIFIED_IN_NO_LOG_PARAMETER' in json.dumps(controller['Deployment image check']['diff'])
    masked = controller['api_key given']['invocation']['module_args']['api_key']
    assert masked == 'VALUE_SPECIFIED_IN_NO_LOG_PARAMETER'


def test_task_environment_gives_the_connection(kubesim_factory, play, tmp_path):
    """K8S_AUTH_* from the task's environment:, over the controller's own environment."""
    sim = kubesim_factory()
    Kube(sim.kubeconfig).create(workload('Deployment', 'web'))
    tasks = [dict(task('from task env', 'rollout_history', kind='Deployment', name='web'),
                  environment={'K8S_AUTH_KUBECONFIG': str(sim.kubeconfig)})]
    for env in ({}, MODULE_PATH):
        workdir = tmp_path / f'run{len(env)}'
        workdir.mkdir()
        res = run_playbook(None, tasks, workdir=workdir,
                           extra_env=dict(env, K8S_AUTH_KUBECONFIG=str(tmp_path / 'missing')))
        assert res.ok('from task env')['workloads'][0]['name'] == 'web'


def _collection_copy(tmp_path):
    """A copy of the collection under ``tmp_path/collections`` (without bytecode), so that what a run
    writes beside the code lands there and not in the checkout."""
    copy = tmp_path / 'collections' / 'ansible_collections' / 'kubeops' / 'rollout'
    for part in ('plugins', 'meta'):
        shutil.copytree(ROOT / part, copy / part, ignore=shutil.ignore_patterns('__pycache__'))
    shutil.copy(ROOT / 'galaxy.yml', copy / 'galaxy.yml')
    return copy


def test_the_controller_imports_the_collections_code_through_the_bytecode_cache(kubesim_factory, play,
                                                                                tmp_path):
    # ansible-core's collection loader compiles a collection's code from source at every import; the
    # action plugins import the module and its module_utils through Python's bytecode cache instead
    # (plugin_utils/bytecode.py): the first run writes __pycache__, the next one loads it.
    sim = kubesim_factory()
    Kube(sim.kubeconfig).create(workload('Deployment', 'web'))
    copy = _collection_copy(tmp_path)
    env = {'ANSIBLE_COLLECTIONS_PATH': str(tmp_path / 'collections')}
    tasks = [task('history', 'rollout_history', kind='Deployment', name='web')]

    # Told not to write bytecode, it writes none and works as before.
    res = play(sim, tasks, extra_env=dict(env, PYTHONDONTWRITEBYTECODE='1'))
    assert res.ok('history')['workloads'][0]['name'] == 'web'
    assert not list(copy.rglob('*.pyc'))

    res = play(sim, tasks, extra_env=dict(env, PYTHONDONTWRITEBYTECODE=''))
    assert res.ok('history')['workloads'][0]['name'] == 'web'
    cached = {p.relative_to(copy).as_posix().replace('__pycache__/', '').split('.')[0]
              for p in copy.rglob('*.pyc')}
    assert {'plugins/modules/rollout_history', 'plugins/module_utils/adapter/module',
            'plugins/module_utils/api/client', 'plugins/module_utils/api/connection/kubeconfig'} <= cached, \
        sorted(cached)

    # The next run reads them (Python's verbose import log names the code objects it loaded).
    res = play(sim, tasks, extra_env=dict(env, PYTHONDONTWRITEBYTECODE='', PYTHONVERBOSE='1'))
    assert res.ok('history')['workloads'][0]['name'] == 'web'
    loaded = re.findall(r"code object from '([^']+)'", res.proc.stderr)
    cache = str(copy / 'plugins' / 'module_utils' / 'api' / '__pycache__')
    assert cache in ''.join(loaded), res.proc.stderr[-2000:]
    assert any(p.endswith(f'rollout_history.cpython-{sys.version_info[0]}{sys.version_info[1]}.pyc')
               for p in loaded)


def test_the_module_path_loads_module_utils_from_its_cache_of_compiled_code(kubesim_factory, play, tmp_path):
    # On the module path the module_utils come from the AnsiballZ zip, where Python keeps no
    # bytecode: module_utils/common/bytecode_cache.py compiles them once into
    # $XDG_CACHE_HOME/kubeops.rollout/ and later module runs load them from there.
    sim = kubesim_factory()
    Kube(sim.kubeconfig).create(workload('Deployment', 'web'))
    # A copy of the collection: the action plugins (loaded also for the module path) must not write
    # __pycache__ into the checkout.
    _collection_copy(tmp_path)
    xdg = tmp_path / 'xdg'
    env = dict(MODULE_PATH, ANSIBLE_COLLECTIONS_PATH=str(tmp_path / 'collections'), XDG_CACHE_HOME=str(xdg))
    cache = xdg / 'kubeops.rollout' / 'module_utils' / sys.implementation.cache_tag
    tasks = [task('history', 'rollout_history', kind='Deployment', name='web'),
             task('status', 'rollout_status', kind='Deployment', name='web')]

    def entries():
        return {p.name: p.stat().st_ino for p in cache.iterdir()}

    # Told not to write bytecode, it writes none and works as before.
    res = play(sim, tasks, extra_env=dict(env, PYTHONDONTWRITEBYTECODE='1'))
    assert res.ok('history')['workloads'][0]['name'] == 'web' and res.ok('status')['workloads']
    assert not xdg.exists()

    res = play(sim, tasks, extra_env=dict(env, PYTHONDONTWRITEBYTECODE=''))
    assert res.ok('history')['workloads'][0]['name'] == 'web' and res.ok('status')['workloads']
    written = entries()
    modules = {name[:-len('.pyc')].rsplit('.', 1)[0] for name in written}
    assert {'adapter', 'adapter.module', 'api.client', 'api.connection.kubeconfig', 'usecases.verbs',
            'gates.wait_options'} <= modules, sorted(modules)
    for path in [cache, cache.parent, cache.parent.parent]:
        assert path.stat().st_mode & 0o777 == 0o700
    assert {(cache / name).stat().st_mode & 0o777 for name in written} == {0o600}

    # The next run loads every entry and writes none again (a module compiled from source would
    # replace its entry: a new file).
    res = play(sim, tasks, extra_env=dict(env, PYTHONDONTWRITEBYTECODE=''))
    assert res.ok('history')['workloads'][0]['name'] == 'web' and res.ok('status')['workloads']
    assert entries() == written
    # Entries that others may write are not trusted: the modules compile from source and replace them.
    for name in written:
        (cache / name).chmod(0o622)
    res = play(sim, tasks, extra_env=dict(env, PYTHONDONTWRITEBYTECODE=''))
    assert res.ok('history')['workloads'][0]['name'] == 'web' and res.ok('status')['workloads']
    assert entries().keys() == written.keys() and entries() != written  # written again


def test_forced_module_path_async_and_progress(kubesim_factory, tmp_path):
    sim = kubesim_factory()
    kube = Kube(sim.kubeconfig)
    kube.create(workload('Deployment', 'web', replicas=3))
    kube.rolled_out('Deployment', 'web')
    D = {'kind': 'Deployment', 'name': 'web'}
    tasks = [
        task('controller', 'rollout_image', **D, images={'app': 'nginx:1.26'}, wait=True),
        dict(task('forced by variable', 'rollout_history', **D), vars={'kubeops_rollout_module_path': True}),
        # An absolute async dir of the test's own, as the roles use: the job and its poll agree on it
        # whatever HOME is, and parallel tests never share it.
        dict(task('async', 'rollout_image', **D, images={'app': 'nginx:1.27'}, wait=True),
             vars={'ansible_async_dir': str(tmp_path / 'async')}, **{'async': 60, 'poll': 1}),
    ]
    res = run_playbook(sim.kubeconfig, tasks, workdir=tmp_path, extra_env={'ANSIBLE_VERBOSITY': '3'})
    assert res.ok('controller')['workloads'][0]['status']['done'] is True
    assert res.ok('forced by variable')['workloads'][0]['current_revision'] == 2
    assert res.ok('async')['workloads'][0]['status']['done'] is True
    out = res.stdout
    # Only the module path ships a module: the forced task and the async one, not the first.
    shipped = re.findall(r'Using module file \S*/plugins/modules/(\w+)\.py', out)
    assert sorted(shipped) == ['rollout_history', 'rollout_image'], out[-3000:]
    # The controller path printed kubectl's progress lines, each change once.
    progress = re.findall(r'<localhost> (Waiting for deployment "web" rollout to finish: .*)', out)
    assert progress and len(progress) == len(set(progress)), out[-3000:]
    assert '<localhost> deployment "web" successfully rolled out' in out


def _payload(path):
    """The file names in the module payload of a kept AnsiballZ file."""
    text = pathlib.Path(path).read_text()
    data = re.search(r"^zip_data='([^']*)'", text, re.M).group(1)
    return set(zipfile.ZipFile(io.BytesIO(base64.b64decode(data))).namelist())


def test_module_payloads_hold_what_each_module_imports(kubesim_factory, tmp_path):
    """Ansible ships a module with every module_util its code names (lazy imports too). The
    analysis checks go only with the modules
    that take the ``analysis`` option, and those run them from the payload on the module path."""
    sim = kubesim_factory(ready_delay=0.05)
    kube = Kube(sim.kubeconfig)
    kube.create(workload('Deployment', 'web'))
    kube.rolled_out('Deployment', 'web')
    keep = tmp_path / 'remote'
    endpoint = MetricsServer()
    try:
        smoke = {'interval': 1, 'checks': [{'name': 'smoke', 'http': {'url': endpoint.url + '/healthz',
                                                                         'body_regex': '^ok$'}}]}
        D = {'kind': 'Deployment', 'name': 'web'}
        tasks = [
            task('history', 'rollout_history', **D),
            task('pause', 'rollout_pause', **D, check_mode=True),
            task('status', 'rollout_status', **D, soak_seconds=1, analysis=smoke),
            task('analysis', 'rollout_analysis', analysis=smoke, duration=0),
        ]
        res = run_playbook(sim.kubeconfig, tasks, workdir=tmp_path, extra_env=dict(
            MODULE_PATH, ANSIBLE_KEEP_REMOTE_FILES='1', ANSIBLE_REMOTE_TMP=str(keep)))
    finally:
        endpoint.stop()
    assert res.ok('history')['workloads'][0]['name'] == 'web'
    assert res.ok('pause')['changed'] is True
    measured = res.ok('status')['analysis']['checks'][0]
    assert measured['name'] == 'smoke' and measured['measurements'], measured
    assert res.ok('analysis')['analysis']['checks'][0]['measurements']
    utils = 'ansible_collections/kubeops/rollout/plugins/module_utils/'
    # The analysis package, every file of it (its providers included).
    package = ROOT / 'plugins' / 'module_utils' / 'gates' / 'analysis'
    analysis = {utils + 'gates/analysis/' + p.name for p in package.glob('*.py')}
    assert len(analysis) > 2, analysis  # the package and its providers
    payloads = {}
    for path in keep.glob('*/AnsiballZ_*.py'):
        payloads[path.name[len('AnsiballZ_'):-len('.py')]] = _payload(path)
    assert sorted(payloads) == ['rollout_analysis', 'rollout_history', 'rollout_pause', 'rollout_status']
    for module in ('rollout_history', 'rollout_pause'):
        assert utils + 'adapter/module.py' in payloads[module]
        assert not analysis & payloads[module], (module, sorted(analysis & payloads[module]))
    for module in ('rollout_status', 'rollout_analysis'):
        assert analysis <= payloads[module], (module, sorted(analysis - payloads[module]))


@pytest.mark.parametrize('signum', [signal.SIGINT, signal.SIGTERM], ids=['ctrl-c', 'awx-cancel'])
@pytest.mark.parametrize('what', ['module', 'role', 'wait-role'])
def test_cancel_leaves_nothing_running(kubesim_factory, tmp_path, signum, what):
    log = tmp_path / 'requests.log'
    sim = kubesim_factory(request_log=log, fail_image='nginx:broken')
    kube = Kube(sim.kubeconfig)
    kube.create(workload('Deployment', 'web', replicas=2))
    kube.rolled_out('Deployment', 'web')
    book = tmp_path / 'play.yml'
    if what == 'module':
        tasks = [{'kubeops.rollout.rollout_image': {'kubeconfig': str(sim.kubeconfig), 'kind': 'Deployment',
                                                    'name': 'web', 'images': {'app': 'nginx:broken'},
                                                    'wait': True}}]
    elif what == 'wait-role':
        # A rollout that cannot finish, watched by the wait role (early stop is the module's: the
        # cancel comes long before it).
        kube.patch('Deployment', 'web', {'spec': {'template': {'spec': {'containers': [
            {'name': 'app', 'image': 'nginx:broken'}]}}}})
        tasks = [{'ansible.builtin.include_role': {'name': 'kubeops.rollout.rollout_wait'},
                  'vars': {'rollout_wait_workloads': [{'kind': 'Deployment', 'name': 'web'}]}}]
    else:
        # The release role: early stop off, so that the cancel comes during its wait.
        tasks = [{'ansible.builtin.include_role': {'name': 'kubeops.rollout.rollout_upgrade'},
                  'vars': {'rollout_upgrade_fail_fast_seconds': 0, 'rollout_upgrade_workloads': [
                      {'kind': 'Deployment', 'name': 'web', 'images': {'app': 'nginx:broken'}}]}}]
    book.write_text(yaml.safe_dump([{
        'hosts': 'localhost', 'gather_facts': False,
        'vars': {'ansible_python_interpreter': sys.executable},
        'module_defaults': {'group/kubeops.rollout.rollout': {'kubeconfig': str(sim.kubeconfig)}},
        'tasks': tasks}]))
    env = {k: v for k, v in os.environ.items() if not k.startswith(('K8S_AUTH_', 'KUBEOPS_ROLLOUT_'))}
    env.update(ANSIBLE_CONFIG=str(ROOT / 'ansible.cfg'), ANSIBLE_CALLBACK_PLUGINS=str(CALLBACKS))
    # A session of its own, as a terminal gives a job: Ctrl-C goes to its process group.
    output = tmp_path / 'output.txt'
    with open(output, 'w') as out:
        proc = subprocess.Popen([str(BIN / 'ansible-playbook'), str(book)], cwd=ROOT, env=env,
                                start_new_session=True, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while not any('watch=' in e['query'] for e in read_log(log)):
            assert proc.poll() is None and time.monotonic() < deadline, 'the wait never started'
            time.sleep(0.05)
        tree, todo, family = _children(), [proc.pid], []
        while todo:
            p = todo.pop()
            family.append(p)
            todo.extend(tree.get(p, []))
        if signum == signal.SIGINT:
            os.killpg(proc.pid, signum)  # the terminal's Ctrl-C: the foreground process group
        else:
            proc.send_signal(signum)  # a job cancel: the playbook process only
        proc.wait(10)
        time.sleep(0.5)
        alive = [p for p in family if os.path.exists(f'/proc/{p}') and 'Z' not in _state(p)]
        assert not alive, f'still running after the cancel: {alive}'
        count = len(read_log(log))
        time.sleep(1)
        assert len(read_log(log)) == count, 'requests went on after the cancel'
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _state(pid):
    try:
        with open(f'/proc/{pid}/stat') as f:
            return f.read().rsplit(')', 1)[1].split()[0]
    except OSError:
        return 'Z'



def task_output(stdout, title):
    """The lines a task printed between its TASK header and its result line (a failure's: up to its
    message, without the playbook source ansible-core quotes)."""
    lines = stdout.split('\n')
    start = next(i for i, line in enumerate(lines) if line.startswith(f'TASK [{title}]'))
    end = next(i for i in range(start + 1, len(lines))
               if re.match(r'(ok|changed|fatal|failed): \[', lines[i]) or lines[i - 1].startswith('[ERROR]'))
    return [line for line in lines[start + 1:end] if line.strip()]


@pytest.mark.parametrize('image, outcome', [('nginx:1.26', 'ok'), ('crash:1', 'failed')])
def test_both_paths_print_the_same_notes_at_verbosity_0(kubesim_factory, tmp_path, image, outcome):
    """The controller path prints its notes while the task runs; the module path (AnsiballZ) hands
    them over in its result and its action plugin prints them when the task ends: the same lines."""
    printed = {}
    for path, task_vars in (('controller', {}), ('module', {'kubeops_rollout_module_path': True})):
        sim = kubesim_factory(ready_delay=0.05, crash_image=r'^crash:')
        kube = Kube(sim.kubeconfig)
        web = workload('Deployment', 'web', image='nginx:1.25', replicas=1)
        web['spec']['progressDeadlineSeconds'] = 600
        kube.create_rolled_out([web])
        release = task('release', 'rollout_release', workloads=[
            {'kind': 'Deployment', 'name': 'web', 'images': {'app': image}}],
            timeout=30, fail_fast_seconds=2, soak_seconds=3)
        workdir = tmp_path / path
        workdir.mkdir()
        res = run_playbook(sim.kubeconfig, [dict(release, vars=task_vars)], workdir=workdir,
                           extra_env={'ANSIBLE_VERBOSITY': '0'})
        assert res['release']['_status'] == outcome, res['release'].get('msg')
        assert '_kubeops_rollout_output' not in res['release']
        printed[path] = [re.sub(r'-<hash>-[a-z0-9]{5}\b', '-<hash>-<pod>',
                                TIMESTAMP.sub('<time>', HASH.sub('-<hash>', line)))
                         for line in task_output(res.stdout, 'release')]
    notes = [line for line in printed['controller'] if line.startswith('<localhost> ')]
    assert any('Deployment default/web: new images written' in line for line in notes), printed
    assert any(line.startswith('<localhost> waiting for 1 rollout') for line in notes), printed
    assert printed['module'] == printed['controller']

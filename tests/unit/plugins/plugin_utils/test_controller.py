"""Every action plugin carries its module's code from the moment its class exists.

ansible-core loads a task's action plugin class in ansible-playbook's main process before it forks
the task's worker; a module imported with the class is therefore compiled once per run and
inherited by every worker, instead of being compiled again in each task.
"""

import importlib
import os
import subprocess
import sys

import pytest

ACTION_DIR = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', 'plugins', 'action')
PLUGINS = sorted(f[:-3] for f in os.listdir(ACTION_DIR) if f.endswith('.py') and f != '__init__.py')
# Action plugins that do their work on the controller themselves rather than run a module's code.
CONTROLLER_ONLY = ['task_file']
MODULE_RUNNERS = [p for p in PLUGINS if p not in CONTROLLER_ONLY]
PREFIX = 'ansible_collections.kubeops.rollout.plugins'


def test_every_module_has_an_action_plugin():
    modules_dir = os.path.join(ACTION_DIR, '..', 'modules')
    modules = sorted(f[:-3] for f in os.listdir(modules_dir) if f.endswith('.py') and f != '__init__.py')
    assert modules == PLUGINS


@pytest.mark.parametrize('name', MODULE_RUNNERS)
def test_plugin_class_imports_its_module(name):
    action, module = f'{PREFIX}.action.{name}', f'{PREFIX}.modules.{name}'
    for loaded in (action, module):
        sys.modules.pop(loaded, None)
    plugin = importlib.import_module(action)
    assert plugin.ActionModule._code is sys.modules[module]
    assert callable(plugin.ActionModule._code.main)


def test_a_controller_only_action_runs_no_module_code():
    for name in CONTROLLER_ONLY:
        plugin = importlib.import_module(f'{PREFIX}.action.{name}')
        assert not hasattr(plugin.ActionModule, '_code'), name


@pytest.mark.parametrize('name', MODULE_RUNNERS)
def test_plugin_class_imports_the_module_utils_a_task_loads_on_demand(name):
    # A module process imports these only when its task needs them; on the controller they come
    # with the plugin's class, so no worker compiles them again. A fresh interpreter, as
    # ansible-playbook's main process is when it first loads the plugin.
    from ansible_collections.kubeops.rollout.plugins.plugin_utils.controller import ON_DEMAND_MODULE_UTILS
    wanted = [f'{PREFIX}.module_utils.{m}' for m in ON_DEMAND_MODULE_UTILS]
    code = ('import importlib, sys\n'
            f'before = [m for m in {wanted!r} if m in sys.modules]\n'
            f'importlib.import_module({PREFIX + ".action." + name!r})\n'
            f'print(before, [m for m in {wanted!r} if m not in sys.modules])\n')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p)))
    assert out.stdout.strip() == '[] []', out.stdout + out.stderr


def test_the_module_code_runs_in_the_environment_the_module_process_would_have(monkeypatch):
    # The analysis checks read their proxies from os.environ: on the controller path the task's
    # environment: was ignored, and a request went to a proxy the task had excluded.
    from ansible_collections.kubeops.rollout.plugins.plugin_utils.controller import process_environment
    monkeypatch.setenv('http_proxy', 'http://controller-proxy:3128')
    monkeypatch.setenv('KEPT', 'same')
    monkeypatch.setenv('GONE_IN_TASK', 'x')
    monkeypatch.delenv('no_proxy', raising=False)
    before = dict(os.environ)
    env = dict(before, no_proxy='127.0.0.1', http_proxy='http://task-proxy:3128')
    del env['GONE_IN_TASK']
    with process_environment(env):
        assert os.environ['no_proxy'] == '127.0.0.1' and os.environ['http_proxy'] == 'http://task-proxy:3128'
        assert os.environ['KEPT'] == 'same' and 'GONE_IN_TASK' not in os.environ
        os.environ['SET_BY_THE_MODULE'] = '1'
    assert dict(os.environ) == before
    with pytest.raises(RuntimeError), process_environment(dict(before, no_proxy='*')):
        raise RuntimeError('a module that fails')
    assert dict(os.environ) == before


def test_a_module_process_output_is_printed_as_the_controller_prints_it_and_leaves_the_result(monkeypatch):
    controller = importlib.import_module(PREFIX + '.plugin_utils.controller')
    from ansible_collections.kubeops.rollout.plugins.module_utils.adapter.module import OUTPUT_KEY
    printed = []
    monkeypatch.setattr(controller.display, 'display', printed.append)
    output = [['note', 'Deployment shop/web: rolled out'], ['shown', 'Upgraded: x'], 'not a pair']
    result = {'changed': True, OUTPUT_KEY: output}
    controller.show_module_output('node1', result)
    assert printed == ['<node1> Deployment shop/web: rolled out', 'Upgraded: x']
    assert result == {'changed': True}
    controller.show_module_output('node1', result)  # nothing kept: nothing printed
    assert len(printed) == 2

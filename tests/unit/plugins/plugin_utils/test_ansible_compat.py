"""ansible-core's private names are used in plugin_utils/ansible_compat.py only, each in one function,
and those functions reach what the installed ansible-core has."""

import ast
import pathlib

from ansible.plugins.action import ActionBase

from ansible_collections.kubeops.rollout.plugins.plugin_utils import ansible_compat
from ansible_collections.kubeops.rollout.plugins.plugin_utils.controller import ModuleAction

PLUGIN_UTILS = pathlib.Path(__file__).resolve().parents[4] / 'plugins' / 'plugin_utils'


def _private(name):
    return name.startswith('_') and not name.startswith('__')


def _tree(name):
    return ast.parse((PLUGIN_UTILS / name).read_text())


# Documented names of the standard library that start with an underscore (not ansible-core's).
STDLIB_PRIVATE = {('os', '_exit')}


def _private_attributes(node):
    return {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute) and _private(n.attr)
            and not (isinstance(n.value, ast.Name) and (n.value.id, n.attr) in STDLIB_PRIVATE)}


def test_controller_reads_no_private_name_it_does_not_define_itself():
    tree = _tree('controller.py')
    defined = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    defined.add(target.id)
                elif isinstance(target, ast.Attribute):
                    defined.add(target.attr)
    used = _private_attributes(tree)
    assert used and used <= defined, sorted(used - defined)
    imports = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    for module, names in ((n.module, [a.name for a in n.names]) for n in imports):
        assert not any(_private(part) for part in module.split('.')), module
        assert not any(_private(name) for name in names), (module, names)
    # What controller.py defines for itself is no ActionBase name it would shadow.
    assert not {name for name in defined if _private(name)} & set(dir(ActionBase))


def test_each_private_name_is_used_in_one_compat_function():
    where = {}
    for node in _tree('ansible_compat.py').body:
        if isinstance(node, ast.FunctionDef):
            for name in _private_attributes(node):
                where.setdefault(name, []).append(node.name)
    assert {'_task', '_connection', '_play_context', '_templar', '_execute_module',
            '_compute_environment_string', '_remove_tmp_path', '_no_log_values'} <= set(where)
    assert {name: places for name, places in where.items() if len(places) > 1} == {}


class _Templar:
    def template(self, value):
        return 'templated ' + value


class _Action(ActionBase):
    def run(self, tmp=None, task_vars=None):
        raise AssertionError('not run here')


def _action(**play):
    task, connection, play_context = object(), object(), type('PlayContext', (), play)()
    return task, connection, _Action(task, connection, play_context, loader=None, templar=_Templar())


def test_the_accessors_reach_the_action_base_of_the_installed_ansible_core():
    task, connection, action = _action(become=True)
    assert ansible_compat.task(action) is task
    assert ansible_compat.connection(action) is connection
    assert ansible_compat.become(action) is True
    assert ansible_compat.become(_action(become=False)[2]) is False
    assert ansible_compat.template(action, '{{ x }}') == 'templated {{ x }}'


def test_module_actions_support_check_mode_and_async_where_action_base_looks():
    # ActionBase refuses an async task unless its class says otherwise.
    assert ActionBase._supports_async is False
    assert ModuleAction._supports_check_mode is True and ModuleAction._supports_async is True


def test_execute_module_and_the_tmp_cleanup_call_action_base_by_its_names():
    calls = []

    class Recording(_Action):
        def _execute_module(self, **kw):
            calls.append(('execute', kw))
            return {'changed': False}

        def _remove_tmp_path(self, path):
            calls.append(('remove', path))

    shell = type('Shell', (), {'tmpdir': '/tmp/ansible-tmp-1'})()
    action = Recording(object(), type('Connection', (), {'_shell': shell})(), object(), None, _Templar())
    assert ansible_compat.execute_module(action, {'a': 1}, True) == {'changed': False}
    ansible_compat.remove_remote_tmp(action)
    assert calls == [('execute', {'task_vars': {'a': 1}, 'wrap_async': True}),
                     ('remove', '/tmp/ansible-tmp-1')]
    # Both are ActionBase's own methods, which a subclass overrides by these names.
    assert callable(ActionBase._execute_module) and callable(ActionBase._remove_tmp_path)


def test_validation_reports_what_argument_spec_validation_found():
    spec = {'token': {'type': 'str', 'no_log': True},
            'verify': {'type': 'bool', 'default': True, 'aliases': ['verify_ssl'],
                       'deprecated_aliases': [{'name': 'verify_ssl', 'version': '3.0.0',
                                               'collection_name': 'kubeops.rollout'}]}}
    result = ansible_compat.validate_arguments(spec, {'token': 's3cret', 'verify': 'no', 'verify_ssl': 'no'})
    assert result.error is None and result.unsupported is False
    assert result.params['verify'] is False and result.params['token'] == 's3cret'
    assert 's3cret' in result.no_log_values
    assert result.alias_warnings == [('verify', 'verify_ssl')]
    assert [d['version'] for d in result.deprecations] == ['3.0.0']
    assert 'verify_ssl' in result.deprecations[0]['msg']

    unknown = ansible_compat.validate_arguments(spec, {'colour': 'blue'})
    assert unknown.unsupported is True and 'colour' in unknown.error
    wrong = ansible_compat.validate_arguments(spec, {'verify': 'perhaps'})
    assert wrong.unsupported is False and 'verify' in wrong.error


def test_normalize_failed_result_keeps_a_result_usable():
    result = {'failed': True, 'msg': 'boom'}
    ansible_compat.normalize_failed_result(result)
    assert result['failed'] is True and result['msg'] == 'boom'

"""Defaults defined once: the wait timeout is ``wait_options.DEFAULT_TIMEOUT``; every place that documents or
restates it (the modules' DOCUMENTATION and doc fragments, the playbooks' survey defaults) must say the
same number, and the roles restate it nowhere: a role's timeout left unset is omitted from the module
call, so the module's own default applies."""

import ast
import pathlib
import re

import yaml

from ansible_collections.kubeops.rollout.plugins.module_utils.gates.wait_options import DEFAULT_TIMEOUT

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
# Options that are the wait timeout (other timeouts - a request's, an exec plugin's - are not).
TIMEOUT_OPTIONS = re.compile(r'^(wait_timeout|timeout|rollout_[a-z]+_timeout|rc_upgrade_timeout)$')
# The canary's start (its pods Ready) and the put-back have timeouts of their own.
NOT_THE_WAIT = {'rollout_upgrade_canary_start_timeout', 'rollout_upgrade_rollback_timeout',
                'rollout_rollback_timeout_per_workload', 'canary_start_timeout'}


def _docs(path):
    """The DOCUMENTATION of a module, or of a doc fragment (a class attribute)."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Assign) and getattr(node.targets[0], 'id', None) == 'DOCUMENTATION':
            return yaml.safe_load(node.value.value)
    return {}


def _options(options, where):
    for name, spec in (options or {}).items():
        if TIMEOUT_OPTIONS.match(name) and name not in NOT_THE_WAIT and 'default' in spec:
            yield where + ':' + name, spec['default']


def documented():
    for path in sorted((ROOT / 'plugins' / 'modules').glob('*.py')) + sorted(
            (ROOT / 'plugins' / 'doc_fragments').glob('*.py')):
        if path.name == '__init__.py':
            continue
        yield from _options(_docs(path).get('options'), path.name)
    for path in sorted((ROOT / 'playbooks').glob('*.yml')):
        # An unset or empty answer takes the default: "x if x | default('') not in ['', none] else 300".
        for match in re.finditer(r"(\w+_timeout) if \1 \| default\(''\) not in \['', none\] else (\d+)",
                                 path.read_text()):
            if match.group(1) not in NOT_THE_WAIT:
                yield 'playbooks/%s:%s' % (path.name, match.group(1)), int(match.group(2))


def test_every_documented_wait_timeout_is_the_one_default():
    found = list(documented())
    assert len(found) >= 7, found  # the check reads what it should
    wrong = [(where, value) for where, value in found if float(value) != DEFAULT_TIMEOUT]
    assert wrong == [], wrong


ROLE_TIMEOUTS = re.compile(r'(rollout_[a-z]+_timeout|rc_upgrade_timeout) \| default\(omit\)')


def _role_timeouts(role):
    """The wait timeout options of a role's argument specs, with their specs."""
    specs = yaml.safe_load((role / 'meta' / 'argument_specs.yml').read_text())['argument_specs']
    for entry in specs.values():
        for name, spec in (entry.get('options') or {}).items():
            if TIMEOUT_OPTIONS.match(name) and name not in NOT_THE_WAIT:
                yield name, spec


def test_no_role_restates_a_wait_timeout():
    roles = sorted(p.parent.parent for p in ROOT.glob('roles/*/meta/argument_specs.yml'))
    assert len(roles) >= 5, roles
    passed = set()
    for role in roles:
        names = set()
        for name, spec in _role_timeouts(role):
            assert 'default' not in spec, '%s: %s' % (role.name, name)
            names.add(name)
        defaults = yaml.safe_load((role / 'defaults' / 'main.yml').read_text()) or {}
        assert not names & set(defaults), role.name
        # Unset, the role leaves the option out of its module call.
        omitted = {m.group(1) for path in (role / 'tasks').glob('*.yml')
                   for m in ROLE_TIMEOUTS.finditer(path.read_text())}
        assert names <= omitted, role.name
        passed |= names
    assert {'rollout_restart_timeout', 'rollout_rollback_timeout', 'rollout_upgrade_timeout',
            'rollout_wait_timeout', 'rc_upgrade_timeout'} <= passed

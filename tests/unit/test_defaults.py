"""Defaults defined once: the wait timeout is ``wait_options.DEFAULT_TIMEOUT``; every place that documents or
restates it (the modules' DOCUMENTATION and doc fragments, the roles' argument specs and defaults,
the playbooks' survey defaults) must say the same number."""

import ast
import pathlib
import re

import yaml

from ansible_collections.kubeops.rollout.plugins.module_utils.gates.wait_options import DEFAULT_TIMEOUT

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
# Options that are the wait timeout (other timeouts - a request's, an exec plugin's - are not).
TIMEOUT_OPTIONS = re.compile(r'^(wait_timeout|timeout|rollout_[a-z]+_timeout|rc_upgrade_timeout)$')
NOT_THE_WAIT = {'rollout_upgrade_canary_start_timeout', 'rollout_upgrade_rollback_timeout',
                'rollout_rollback_timeout_per_workload'}


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
    for path in sorted(ROOT.glob('roles/*/meta/argument_specs.yml')):
        for entry in yaml.safe_load(path.read_text())['argument_specs'].values():
            yield from _options(entry.get('options'), str(path.relative_to(ROOT)))
    for path in sorted(ROOT.glob('roles/*/defaults/main.yml')):
        for name, value in (yaml.safe_load(path.read_text()) or {}).items():
            if TIMEOUT_OPTIONS.match(name) and name not in NOT_THE_WAIT:
                yield str(path.relative_to(ROOT)) + ':' + name, value
    for path in sorted((ROOT / 'playbooks').glob('*.yml')):
        for match in re.finditer(r'(\w+_timeout) \| default\((\d+)', path.read_text()):
            yield 'playbooks/%s:%s' % (path.name, match.group(1)), int(match.group(2))


def test_every_documented_wait_timeout_is_the_one_default():
    found = list(documented())
    assert len(found) >= 10, found  # the check reads what it should
    wrong = [(where, value) for where, value in found if float(value) != DEFAULT_TIMEOUT]
    assert wrong == [], wrong

"""Every message that tells the operator which option to set names one that exists where it is read.

Every suggestion of an option is a call of ``vocabulary.setting`` (or ``vocabulary.name``) in
plugins/module_utils or plugins/modules, found here by reading the source (a new one cannot be
missed), and no other string of the code spells an option and its value. For each call:

- in the module's argument spec (its DOCUMENTATION and doc fragments) of every module whose code
  imports the file that renders it, or of the ``module`` it names;
- in each role that calls such a module: the role passes ``option_names`` (its own variables, over
  ``<role>_option_names``), each of its variables defined in the role's meta/argument_specs.yml, and
  every suggested option the role sets from a variable is named by it;
- in each playbook that passes ``<role>_option_names``: each name is an extra var its header lists.
"""

import ast
import pathlib
import re

import jinja2
import pytest
import yaml

pytestmark = pytest.mark.unit

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
MODULE_UTILS = ROOT / 'plugins' / 'module_utils'
MODULES = ROOT / 'plugins' / 'modules'
PACKAGE = 'ansible_collections.kubeops.rollout.plugins.module_utils'
RENDERERS = ('setting', 'name')

# A suggestion in a file that a module imports but never reaches from its own code: (file, option) ->
# the modules that import the file without that option, and why they never render it.
UNREACHED = {
    # A paused Deployment's or an unwaitable kind's refusal: the verbs with a wait (image, pause,
    # restart, undo, status) raise it; the release and blue/green wait always and refuse otherwise;
    # rollout_fleet only reads.
    ('kinds/workloads.py', 'wait'): {'rollout_release', 'rollout_bluegreen', 'rollout_traffic',
                                     'rollout_history', 'rolling_update_rc', 'rollout_fleet'},
    ('kinds/workload.py', 'wait'): {'rollout_release', 'rollout_bluegreen', 'rollout_traffic',
                                    'rollout_history', 'rolling_update_rc', 'rollout_fleet'},
}
# blue/green's states and the canary's phases are strategies chosen in usecases/strategies.py, which
# every release imports: only rollout_bluegreen runs the first, only rollout_release the others.
UNREACHED.update({('usecases/bluegreen/%s.py' % f, 'state'): {'rollout_release'}
                  for f in ('apps', 'back', 'states')})
UNREACHED[('usecases/release/canary.py', 'canary')] = {'rollout_bluegreen'}
# The connection's messages: the modules without a connection (KubeModule's connection=False) import
# it with the adapter and never connect.
UNREACHED.update({(f, o): {'role_variables', 'task_file'}
                  for f, o in (('api/client.py', 'validate_certs'),
                               ('api/connection/certificates.py', 'allow_insecure_credentials'))})


def _docs(path):
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], 'id', None) == 'DOCUMENTATION':
            return yaml.safe_load(node.value.value)
    return {}


def _fragment_options(name):
    path = ROOT / 'plugins' / 'doc_fragments' / (name.split('.')[2] + '.py')
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Assign) and getattr(node.targets[0], 'id', None) == 'DOCUMENTATION':
            return set((yaml.safe_load(node.value.value).get('options') or {}))
    return set()


def module_options(module):
    """The options a module documents (its own and its kubeops.rollout doc fragments')."""
    docs = _docs(MODULES / (module + '.py'))
    options = set(docs.get('options') or {})
    for fragment in docs.get('extends_documentation_fragment') or []:
        if fragment.startswith('kubeops.rollout.'):
            options |= _fragment_options(fragment)
    return options


def _imported_files(path):
    """The module_utils files ``path`` imports (anywhere in it, a function's lazy import too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or '').startswith(PACKAGE):
            base = node.module[len(PACKAGE):].strip('.').replace('.', '/')
            for alias in node.names:
                for candidate in (base + '/' + alias.name + '.py', base + '.py'):
                    if (MODULE_UTILS / candidate).is_file():
                        found.add(candidate)
                        break
    return found


def closure(path):
    """Every module_utils file that ``path`` imports, directly or not."""
    todo, seen = list(_imported_files(path)), set()
    while todo:
        rel = todo.pop()
        if rel not in seen:
            seen.add(rel)
            todo.extend(_imported_files(MODULE_UTILS / rel))
    return seen


ALL_MODULES = sorted(p.stem for p in MODULES.glob('*.py') if p.stem != '__init__')
CLOSURES = {m: closure(MODULES / (m + '.py')) for m in ALL_MODULES}


def _sources():
    for path in sorted(MODULE_UTILS.rglob('*.py')):
        yield path.relative_to(MODULE_UTILS).as_posix(), path
    for path in sorted(MODULES.glob('*.py')):
        yield 'modules/' + path.name, path


def suggestion_sites():
    """(file, line, option, module or None) for every call of the vocabulary's renderers."""
    sites = []
    for rel, path in _sources():
        if rel == 'common/vocabulary.py':
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Attribute) and getattr(func.value, 'id', '') == 'vocabulary':
                name = func.attr
            else:
                name = func.id if isinstance(func, ast.Name) and func.id == 'setting' else None
            if name not in RENDERERS:
                continue
            option = node.args[0] if node.args else None
            assert isinstance(option, ast.Constant) and isinstance(option.value, str), (
                '%s:%d: the option a message suggests must be a literal, so that it can be checked'
                % (rel, node.lineno))
            module = next((k.value.value for k in node.keywords if k.arg == 'module'), None)
            sites.append((rel, node.lineno, option.value, module))
    return sites


SITES = suggestion_sites()


def reaching(rel):
    """The modules that can render a suggestion of the file ``rel``."""
    if rel.startswith('modules/'):
        return {rel[len('modules/'):-3]}
    return {m for m, files in CLOSURES.items() if rel in files}


def test_the_suggestions_are_found():
    # The refusals named in docs/vocabulary.md, among others: a search that finds none is broken.
    options = {option for _f, _l, option, _m in SITES}
    assert {'recover', 'state', 'canary', 'rollback', 'wait'} <= options, options
    assert len(SITES) >= 30, len(SITES)


@pytest.mark.parametrize('rel, line, option, module', SITES, ids=['%s:%d' % s[:2] for s in SITES])
def test_each_suggested_option_exists_in_every_module_that_renders_it(rel, line, option, module):
    if module is not None:
        assert option in module_options(module), '%s:%d names %s of %s' % (rel, line, option, module)
        return
    modules = reaching(rel)
    assert modules, '%s is imported by no module' % rel
    unreached = UNREACHED.get((rel, option), set())
    missing = sorted(m for m in modules - unreached if option not in module_options(m))
    assert not missing, '%s:%d suggests %s, which %s do not have' % (rel, line, option, ', '.join(missing))


def _choices(options):
    for spec in (options or {}).values():
        yield from (str(c) for c in spec.get('choices') or [])
        yield from _choices(spec.get('suboptions'))


def _options_pattern():
    """An option of any module set to true, false or one of its choices, as YAML or key=value."""
    names, values = set(), {'true', 'false'}
    for m in ALL_MODULES:
        names |= module_options(m)
        values.update(_choices(_docs(MODULES / (m + '.py')).get('options')))
    return re.compile(r'\b(%s)(: |=)(%s)\b' % ('|'.join(sorted(names, key=len, reverse=True)),
                                              '|'.join(sorted(values, key=len, reverse=True))))


def _strings(tree):
    """The string constants of ``tree`` but its docstrings."""
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)) and node.body and \
                isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant):
            docstrings.add(id(node.body[0].value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node


# Strings that spell an option and a value but suggest nothing to the operator: kubeconfig keys,
# API field selectors, what a record or a patch holds.
NOT_SUGGESTIONS = re.compile(r'insecure-skip-tls-verify|provideClusterInfo|%s: %s|\bname: ')


def test_no_message_spells_an_option_but_through_the_vocabulary():
    pattern = _options_pattern()
    found = []
    for rel, path in _sources():
        if not rel.startswith('modules/'):
            tree = ast.parse(path.read_text())
        else:  # a module's code, not its documentation
            tree = ast.parse(path.read_text())
            tree.body = [n for n in tree.body if not (isinstance(n, ast.Assign) and getattr(
                n.targets[0], 'id', None) in ('DOCUMENTATION', 'EXAMPLES', 'RETURN'))]
        for node in _strings(tree):
            for match in pattern.finditer(node.value):
                if not NOT_SUGGESTIONS.search(node.value):
                    found.append('%s:%d: %r' % (rel, node.lineno, match.group(0)))
    assert not found, "\n".join(found)


# --- roles and playbooks

def _render(text, role):
    env = jinja2.Environment()
    env.filters['combine'] = lambda a, b: dict(a, **b)
    return env.from_string(text).render(**{role + '_option_names': {}})


def _from_variables(args):
    """The options a task sets from variables (templated), not to a value of its own."""
    return {k for k, v in args.items() if isinstance(v, str) and '{{' in v}


def role_calls():
    """(role, task file, module, the task's arguments, its option_names) of every module call of a
    role that passes option_names."""
    calls = []
    for tasks in sorted(ROOT.glob('roles/*/tasks/*.yml')):
        role = tasks.parent.parent.name
        for entry in yaml.safe_load(tasks.read_text()) or []:
            for key, args in entry.items():
                if key.startswith('kubeops.rollout.') and isinstance(args, dict) and 'option_names' in args:
                    names = yaml.safe_load(_render(args['option_names'], role))
                    calls.append((role, tasks.name, key.split('.')[-1], args, names))
    return calls


ROLE_CALLS = role_calls()


def role_variables(role):
    specs = yaml.safe_load((ROOT / 'roles' / role / 'meta' / 'argument_specs.yml').read_text())
    return {name for entry in specs['argument_specs'].values() for name in (entry.get('options') or {})}


def suggested_by(module):
    """The options of ``module`` that its messages can suggest."""
    return {option for rel, _l, option, named in SITES if named is None and module in reaching(rel)
            and module not in UNREACHED.get((rel, option), set()) and option in module_options(module)}


def test_every_role_that_calls_a_module_with_suggestions_passes_its_names():
    roles = {role for role, _f, _m, _a, _n in ROLE_CALLS}
    assert roles == {'traffic_canary', 'rollout_bluegreen', 'rollout_upgrade', 'rc_upgrade',
                     'rollout_restart', 'rollout_rollback'}, roles
    for tasks in sorted(ROOT.glob('roles/*/tasks/*.yml')):
        for entry in yaml.safe_load(tasks.read_text()) or []:
            for key, args in entry.items():
                module = key.split('.')[-1]
                if key.startswith('kubeops.rollout.') and module in ALL_MODULES and \
                        suggested_by(module) & _from_variables(args):
                    assert 'option_names' in args, '%s: %s sets options its messages name' % (tasks, key)


@pytest.mark.parametrize('role, tasks, module, args, names', ROLE_CALLS,
                         ids=['%s/%s' % c[:2] for c in ROLE_CALLS])
def test_a_role_names_the_module_s_options_by_its_own_variables(role, tasks, module, args, names):
    assert set(names) <= module_options(module), sorted(set(names) - module_options(module))
    unknown = sorted(v for v in names.values() if v not in role_variables(role))
    assert not unknown, '%s names variables its argument specs do not define: %s' % (role, unknown)
    # Every option the role sets from a variable and the module's messages can suggest is named.
    unnamed = sorted((suggested_by(module) & _from_variables(args)) - set(names))
    assert not unnamed, '%s/%s: the messages would name %s, not the role\'s variables' % (
        role, tasks, unnamed)


def _extra_vars(playbook):
    """The extra vars a playbook's header lists (the words the '#   ' lines start with)."""
    names = set()
    for line in playbook.read_text().splitlines()[1:]:  # after the '---'
        if not line.startswith('#'):
            break
        match = re.match(r'^#\s{2,}([a-z_][a-z0-9_, /]*?)\s{2,}', line + '  ')
        if match:
            names.update(w for w in re.split(r'[ ,/]+', match.group(1)) if w)
    return names


def playbook_names():
    found = []
    for playbook in sorted((ROOT / 'playbooks').glob('*.yml')):
        for play in yaml.safe_load(playbook.read_text()) or []:
            for entry in play.get('tasks') or []:
                role = ((entry.get('ansible.builtin.include_role') or {}).get('name') or '').split('.')[-1]
                names = (entry.get('vars') or {}).get(role + '_option_names')
                if names is not None:
                    found.append((playbook.name, role, names))
    return found


PLAYBOOK_NAMES = playbook_names()


def test_the_playbooks_that_take_a_suggested_option_as_extra_var_pass_its_name():
    assert {p for p, _r, _n in PLAYBOOK_NAMES} >= {'traffic_canary.yml', 'bluegreen.yml', 'upgrade.yml',
                                                  'rc_upgrade.yml'}


@pytest.mark.parametrize('playbook, role, names', PLAYBOOK_NAMES, ids=[p for p, _r, _n in PLAYBOOK_NAMES])
def test_a_playbook_names_the_options_by_its_extra_vars(playbook, role, names):
    role_keys = set()
    for r, _f, _m, _a, own in ROLE_CALLS:
        if r == role:
            role_keys |= set(own)
    assert set(names) <= role_keys, '%s names options its role does not name: %s' % (
        playbook, sorted(set(names) - role_keys))
    extra = _extra_vars(ROOT / 'playbooks' / playbook)
    missing = sorted(v for v in names.values() if v not in extra)
    assert not missing, '%s: %s are not extra vars its header lists' % (playbook, missing)


def test_the_extra_vars_are_read_from_the_header():
    assert {'recover', 'steps', 'workload_name', 'traffic_abort'} - _extra_vars(
        ROOT / 'playbooks' / 'traffic_canary.yml') == {'traffic_abort'}

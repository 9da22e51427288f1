"""docs/troubleshooting.md names every refusal blue/green and the traffic canary can print: the
messages are collected from the source, so a new refusal without its entry fails here.

A message is a string (or a ``%`` template) that the code raises, fails with, returns as a list of
problems or as a refusal, appends to a list of problems or reasons, or sets as a cause or refusal.
Its fixed text is the longest part of it between placeholders; that part must appear in the page
(as the excerpt in the first column of its table)."""

import ast
import pathlib
import re

import pytest

pytestmark = pytest.mark.unit

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGE = ROOT / 'docs' / 'troubleshooting.md'
SOURCES = sorted(
    list((ROOT / 'plugins/module_utils/usecases/bluegreen').glob('*.py'))
    + list((ROOT / 'plugins/module_utils/usecases/traffic').glob('*.py'))
    + list((ROOT / 'plugins/module_utils/kinds/routers').glob('*.py'))
    + [ROOT / 'plugins/modules/rollout_traffic.py']
)
PROBLEM_LISTS = {'problems', 'reasons', 'wrong', 'refused', 'refusals'}
MESSAGE_TARGETS = {'cause', 'refusal'}
FAILS = {'fail', 'fail_json'}
PLACEHOLDER = re.compile(r'%(?:\([^)]*\))?[-#0 +]*\d*(?:\.\d+)?[sdrfxi%]')
EDGES = ' \t\n:;,.(){}'
MIN_FIXED = 10  # shorter fixed parts ("%s: %s", "not found") name nothing a reader could look up


def _template(node):
    """The string of a message expression: a constant, or the left side of ``%``."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        node = node.left
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _name(node):
    return getattr(node, 'id', None) or getattr(node, 'attr', None)


def _messages_of(tree):
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    refusal_functions = {f for f in functions if 'refus' in f.name}
    for node in ast.walk(tree):
        found = []
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
            found.append(node.exc.args[0])
        elif isinstance(node, ast.Call) and _name(node.func) in FAILS:
            found.extend(node.args[:1])
            found.extend(k.value for k in node.keywords if k.arg == 'msg')
        elif isinstance(node, ast.Call) and _name(node.func) in ('append', 'extend') \
                and isinstance(node.func, ast.Attribute) and _name(node.func.value) in PROBLEM_LISTS:
            found.extend(node.args[:1])
        elif isinstance(node, ast.Assign):
            targets = [e for t in node.targets for e in (t.elts if isinstance(t, ast.Tuple) else [t])]
            values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
            for target, value in zip(targets, values) if len(targets) == len(values) else ():
                if _name(target) in MESSAGE_TARGETS:
                    found.append(value)
        found = [part for f in found for part in (f.values if isinstance(f, ast.BoolOp) else [f])]
        for expr in found:
            text = _template(expr)
            if text is not None:
                yield node.lineno, text
    for f in functions:
        for node in ast.walk(f):
            if not isinstance(node, ast.Return) or node.value is None:
                continue
            if isinstance(node.value, ast.List):  # a list of problems: a preflight's refusals
                for element in node.value.elts:
                    text = _template(element)
                    if text is not None:
                        yield node.lineno, text
            elif f in refusal_functions:
                text = _template(node.value)
                if text is not None:
                    yield node.lineno, text


def fixed_text(template):
    """The longest part of a message between its placeholders, trimmed of punctuation at its edges;
    None when no part is long enough to look up."""
    parts = [p.strip(EDGES) for p in PLACEHOLDER.split(template)]
    best = max(parts, key=len)
    return best if len(best) >= MIN_FIXED else None


def refusals():
    out = {}
    for path in SOURCES:
        for line, text in _messages_of(ast.parse(path.read_text())):
            fixed = fixed_text(text)
            if fixed:
                out.setdefault(fixed, '%s:%d' % (path.relative_to(ROOT), line))
    return out


def test_fixed_text_is_the_longest_part_between_placeholders():
    assert fixed_text('%s: the switch of release %s is in progress (%s): wait for it to end') == \
        'the switch of release'
    assert fixed_text("weight is the canary's percent: 0 to 100 (got %d)") == \
        "weight is the canary's percent: 0 to 100 (got"
    assert fixed_text('%s: %s not found') is None


def test_the_collector_finds_each_form_of_refusal():
    source = '''
def preflight(self):
    problems = []
    problems.append('%s is managed by %s: its next sync will revert it' % (a, b))
    if x:
        return ['a traffic canary releases one Deployment (got %s)' % y]
    a.cause = 'no switch is recorded on it: nothing to switch back to'
    raise ChangedElsewhere('%s was changed by someone else since it was read' % z)
def way_back_refusal(a):
    return '%s is the way back of the switch of release %s' % (a, b)
def main():
    module.fail_json(msg='stable and canary name the same Service (%s)' % n)
    self.progress('Waiting for Service %s/%s: %d of %d ready endpoints' % (n, s, h, w))
'''
    found = [fixed_text(t) for _line, t in _messages_of(ast.parse(source))]
    assert sorted(f for f in found if f) == sorted([
        'its next sync will revert it', 'a traffic canary releases one Deployment (got',
        'no switch is recorded on it: nothing to switch back to',
        'was changed by someone else since it was read', 'is the way back of the switch of release',
        'stable and canary name the same Service'])


def test_the_sources_hold_refusals():
    """The collector still reads the code it is meant for (a refactoring that hides the messages
    from it would otherwise pass the test below with nothing to check)."""
    found = refusals()
    assert len(found) >= 40, sorted(found)
    assert any('rollout_traffic.py' in where for where in found.values())
    assert any('routers/httproute.py' in where for where in found.values())


@pytest.mark.parametrize('fixed,where', sorted(refusals().items()), ids=lambda v: v[:50])
def test_troubleshooting_names_the_refusal(fixed, where):
    page = re.sub(r'\s+', ' ', PAGE.read_text())
    assert re.sub(r'\s+', ' ', fixed) in page, \
        'docs/troubleshooting.md lacks the refusal of %s, whose fixed text is %r: add its entry ' \
        '(message, cause, what to do)' % (where, fixed)

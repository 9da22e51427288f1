"""The JSONPath subset of client-go `util/jsonpath` that CRD printer columns and selectable fields
use: `.a.b`, `['a.b']`, `[0]`, `[*]`, `..` is not supported, and filters `[?(@.type=="Ready")]`
(`==`, `!=`, on a field path, with a quoted string, number or bool). `find(path, obj)` returns
every match, in document order; `text(value)` prints one as the template printer does."""

import json
import re

_FILTER = re.compile(r'^\?\(@((?:\.[^=!<>]+?)+)\s*(==|!=)\s*(.+)\)$')


class JSONPathError(ValueError):
    pass


def parse(path):
    """`.status.conditions[?(@.type=="Ready")].status` -> steps: ('field', name) | ('index', n) |
    ('all',) | ('filter', [fields], op, value)."""
    text = path.strip()
    if text.startswith('{') and text.endswith('}'):
        text = text[1:-1].strip()
    steps, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch == '.':
            i += 1
            start = i
            while i < len(text) and text[i] not in '.[':
                if text[i] == '\\' and i + 1 < len(text):
                    i += 1
                i += 1
            name = text[start:i].replace('\\.', '.')
            if name:
                steps.append(('field', name))
        elif ch == '[':
            end = _closing(text, i)
            inner = text[i + 1 : end].strip()
            i = end + 1
            if inner == '*':
                steps.append(('all',))
            elif inner.startswith('?'):
                match = _FILTER.match(inner)
                if not match:
                    raise JSONPathError(f'unrecognized filter {inner!r}')
                fields = [f for f in match.group(1).split('.') if f]
                steps.append(('filter', fields, match.group(2), _literal(match.group(3).strip())))
            elif inner[:1] in '\'"':
                steps.append(('field', inner[1:-1]))
            else:
                try:
                    steps.append(('index', int(inner)))
                except ValueError:
                    raise JSONPathError(f'unrecognized index {inner!r}') from None
        elif ch.isspace():
            i += 1
        else:
            start = i
            while i < len(text) and text[i] not in '.[':
                i += 1
            steps.append(('field', text[start:i]))
    return steps


def _closing(text, start):
    depth, quote = 0, None
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            if ch == quote:
                quote = None
        elif ch in '\'"':
            quote = ch
        elif ch == '[':
            depth += 1
        elif ch == ']':
            depth -= 1
            if depth == 0:
                return i
    raise JSONPathError(f'unterminated [ in {text!r}')


def _literal(text):
    if text[:1] in '\'"' and text[-1:] == text[:1]:
        return text[1:-1]
    try:
        return json.loads(text)
    except ValueError:
        return text


def find(steps, obj):
    """Every value the path selects in ``obj`` (missing keys select nothing)."""
    if isinstance(steps, str):
        steps = parse(steps)
    current = [obj]
    for step in steps:
        found = []
        for value in current:
            if step[0] == 'field':
                if isinstance(value, dict) and step[1] in value:
                    found.append(value[step[1]])
            elif step[0] == 'index':
                if isinstance(value, list) and -len(value) <= step[1] < len(value):
                    found.append(value[step[1]])
            elif step[0] == 'all':
                if isinstance(value, list):
                    found.extend(value)
                elif isinstance(value, dict):
                    found.extend(value.values())
            else:
                _kind, fields, op, wanted = step
                for item in value if isinstance(value, list) else []:
                    got = item
                    for name in fields:
                        got = got.get(name) if isinstance(got, dict) else None
                    if (got == wanted) == (op == '=='):
                        found.append(item)
        current = found
    return current


def print_result(value):
    """One result as client-go's `JSONPath.PrintResults` prints it: maps and lists as compact JSON
    (Go's `json.Marshal`: keys sorted, `<`, `>` and `&` escaped), anything else as `go_text`."""
    if isinstance(value, (dict, list)):
        import json

        text = json.dumps(value, separators=(',', ':'), sort_keys=True, ensure_ascii=False)
        return text.replace('<', '\\u003c').replace('>', '\\u003e').replace('&', '\\u0026')
    return go_text(value)


def go_text(value):
    """A value as Go's fmt prints it in templates: strings as they are, maps as `map[k:v]`."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if value is None:
        return '<nil>'
    if isinstance(value, float):
        from ..apiserver.apiextensions.validation import go_float

        return go_float(value)
    if isinstance(value, dict):
        return 'map[' + ' '.join(f'{k}:{go_text(value[k])}' for k in sorted(value)) + ']'
    if isinstance(value, list):
        return '[' + ' '.join(go_text(v) for v in value) + ']'
    return str(value)

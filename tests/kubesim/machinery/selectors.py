"""Label selectors (equality- and set-based) and field selectors, as the API server parses them."""

import re

from .errors import ApiError

_SPECIAL = '=!(),<>'
_WHITESPACE = ' \t\r\n'
# Operator and punctuation tokens, as apimachinery's label lexer knows them.
_SYMBOLS = {')': ')', ',': ',', '!': '!', '==': '==', '=': '=', '>': '>', '<': '<', '!=': '!=', '(': '('}
_KEYWORDS = {'in', 'notin'}
_QUALIFIED = re.compile(r'^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$')
_SUBDOMAIN = re.compile(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')
_VALUE = re.compile(r'^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$')
_INT64 = re.compile(r'^[+-]?[0-9]+$')
# The validation messages (apimachinery's util/validation), shared with the API server's
# strategies (apiserver/strategies/validation.py).
QUALIFIED_NAME_MSG = ('name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must '
                      'start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  '
                      'or \'123-abc\', regex used for validation is '
                      '\'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')')
SUBDOMAIN_MSG = ('a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '
                 '\'-\' or \'.\', and must start and end with an alphanumeric character (e.g. '
                 '\'example.com\', regex used for validation is '
                 '\'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')')
LABEL_VALUE_MSG = ('a valid label must be an empty string or consist of alphanumeric characters, \'-\', '
                   '\'_\' or \'.\', and must start and end with an alphanumeric character (e.g. '
                   '\'MyValue\',  or \'my_value\',  or \'12345\', regex used for validation is '
                   '\'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\')')


def _go_quote(text):
    return '"' + text.replace('\\', '\\\\').replace('"', '\\"') + '"'


def label_key_errors(key):
    """What apimachinery's IsQualifiedName says of a label key ([] when it is valid)."""
    errors = []
    prefix, sep, name = key.rpartition('/')
    if sep and '/' in prefix:
        return ["a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start "
                "and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
                "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
                "subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    if sep:
        if not prefix:
            errors.append('prefix part must be non-empty')
        else:
            if len(prefix) > 253:
                errors.append('prefix part must be no more than 253 bytes')
            if not _SUBDOMAIN.match(prefix):
                errors.append('prefix part ' + SUBDOMAIN_MSG)
    if not name:
        errors.append('name part must be non-empty')
    else:
        if len(name) > 63:
            errors.append('name part must be no more than 63 bytes')
        if not _QUALIFIED.match(name):
            errors.append(QUALIFIED_NAME_MSG)
    return errors


def label_value_errors(value):
    errors = []
    if len(value) > 63:
        errors.append('must be no more than 63 bytes')
    if not _VALUE.match(value):
        errors.append(LABEL_VALUE_MSG)
    return errors


def _lex(text):
    """apimachinery's label lexer: identifiers run until whitespace or a special symbol; a run of
    special symbols yields the longest known operator."""
    tokens, pos = [], 0
    while True:
        while pos < len(text) and text[pos] in _WHITESPACE:
            pos += 1
        if pos >= len(text):
            tokens.append(('end', ''))
            return tokens
        if text[pos] in _SPECIAL:
            buf, last = '', None
            while pos < len(text) and text[pos] in _SPECIAL:
                buf += text[pos]
                if buf in _SYMBOLS:
                    last = buf
                elif last is not None:
                    break
                pos += 1
            if last is None:
                tokens.append(('error', f"error expected: keyword found '{buf}'"))
            else:
                tokens.append((_SYMBOLS[last], last))
            continue
        start = pos
        while pos < len(text) and text[pos] not in _SPECIAL and text[pos] not in _WHITESPACE:
            pos += 1
        word = text[start:pos]
        tokens.append((word if word in _KEYWORDS else 'id', word))


class _Parser:
    _BINARY = '!=, ==, =, >, <, in, notin'

    def __init__(self, text):
        self.tokens = _lex(text)
        self.pos = 0

    def peek(self, values=True):
        tok, lit = self.tokens[self.pos]
        return ('id' if values and tok in _KEYWORDS else tok), lit

    def take(self, values=True):
        item = self.peek(values)
        self.pos += 1
        return item

    def parse(self):
        reqs = []
        while True:
            tok, lit = self.peek()
            if tok == 'end':
                return reqs
            if tok not in ('id', '!'):
                raise ValueError(f"found '{lit}', expected: !, identifier, or 'end of string'")
            try:
                reqs.append(self.requirement())
            except ValueError as err:
                raise ValueError(f'unable to parse requirement: {err}') from None
            tok, lit = self.take()
            if tok == 'end':
                return reqs
            if tok != ',':
                raise ValueError(f"found '{lit}', expected: ',' or 'end of string'")
            tok, lit = self.peek()
            if tok not in ('id', '!'):
                raise ValueError(f"found '{lit}', expected: identifier after ','")

    def requirement(self):
        tok, key = self.take()
        negated = tok == '!'
        if negated:
            tok, key = self.take()
        if tok != 'id':
            raise ValueError(f"found '{key}', expected: identifier")
        errors = label_key_errors(key)
        if errors:
            raise ValueError(f'<nil>: Invalid value: {_go_quote(key)}: {"; ".join(errors)}')
        if self.peek()[0] in ('end', ','):
            return (key, '!' if negated else 'exists', set())
        tok, lit = self.take(values=False)
        op = {'in': 'in', 'notin': 'notin', '=': '=', '==': '=', '!=': '!=', '>': 'gt', '<': 'lt'}.get(tok)
        if op is None:
            raise ValueError(f"found '{lit}', expected: {self._BINARY}")
        values = self.value_set() if op in ('in', 'notin') else self.exact_value()
        problems = []
        if op in ('gt', 'lt'):
            detail = "for 'Gt', 'Lt' operators, the value must be an integer"
            problems += [f'values[{i}]: Invalid value: {_go_quote(v)}: {detail}'
                         for i, v in enumerate(sorted(values)) if not _INT64.match(v)]
        for i, value in enumerate(sorted(values)):
            errors = label_value_errors(value)
            if errors:
                problems.append(f'values[{i}][{key}]: Invalid value: {_go_quote(value)}: {"; ".join(errors)}')
        if problems:
            raise ValueError(problems[0] if len(problems) == 1 else '[' + ', '.join(problems) + ']')
        return (key, op, values)

    def exact_value(self):
        tok, lit = self.peek()
        if tok in ('end', ','):
            return {''}
        tok, lit = self.take()
        if tok == 'id':
            return {lit}
        raise ValueError(f"found '{lit}', expected: identifier")

    def value_set(self):
        tok, lit = self.take()
        if tok != '(':
            raise ValueError(f"found '{lit}' expected: '('")
        tok, lit = self.peek()
        if tok == ')':
            self.take()
            return {''}
        if tok not in ('id', ','):
            raise ValueError(f"found '{lit}', expected: ',', ')' or identifier")
        values = set()
        while True:
            tok, lit = self.take()
            if tok == 'id':
                values.add(lit)
                nxt, nlit = self.peek()
                if nxt == ')':
                    break
                if nxt != ',':
                    raise ValueError(f"found '{nlit}', expected: ',' or ')'")
            elif tok == ',':
                if not values:
                    values.add('')
                nxt = self.peek()[0]
                if nxt in (')', ','):
                    values.add('')
                if nxt == ')':
                    break
            else:
                raise ValueError(f"found '{lit}', expected: ',', or identifier")
        if self.take()[0] != ')':
            raise ValueError(f"found '{lit}', expected: ')'")
        return values


def parse_label_selector(text):
    """A `labelSelector` query parameter -> list of (key, op, values), op one of =, !=, in, notin,
    exists, ! (does not exist), gt, lt. None/'' selects everything. Syntax errors are the API
    server's 400, worded as apimachinery's parser words them."""
    if not text:
        return None
    try:
        return _Parser(text).parse()
    except ValueError as err:
        raise ApiError.bad_request(str(err)) from None


def selector_from_label_selector_object(sel):
    """A `spec.selector` object ({matchLabels, matchExpressions}) -> parsed requirements."""
    reqs = []
    for k, v in sorted((sel or {}).get('matchLabels', {}).items()):
        reqs.append((k, '=', {v}))
    for expr in (sel or {}).get('matchExpressions', []) or []:
        op = {'In': 'in', 'NotIn': 'notin', 'Exists': 'exists', 'DoesNotExist': '!'}[expr['operator']]
        reqs.append((expr['key'], op, set(expr.get('values') or [])))
    return reqs


def matches_labels(reqs, labels):
    if not reqs:
        return True
    for key, op, values in reqs:
        present = key in labels
        val = labels.get(key)
        if op == '=' and not (present and val in values):
            return False
        if op == '!=' and present and val in values:
            return False
        if op == 'in' and not (present and val in values):
            return False
        if op == 'notin' and present and val in values:
            return False
        if op == 'exists' and not present:
            return False
        if op == '!' and present:
            return False
        if op in ('gt', 'lt'):
            # Integer comparison; a label value that is not an integer never matches.
            if not present or not _INT64.match(val):
                return False
            bound = int(next(iter(values)))
            if (op == 'gt' and not int(val) > bound) or (op == 'lt' and not int(val) < bound):
                return False
    return True


def _field(path):
    def get(obj):
        value = obj
        for part in path.split('.'):
            value = value.get(part) if isinstance(value, dict) else None
        if isinstance(value, bool):
            return 'true' if value else 'false'
        return '' if value is None else str(value)

    return get


# How a field label reads its value from an object (`source` is the event's source component).
_FIELD_PATHS = {'source': 'source.component', 'status.podIPs': 'status.podIP'}


def _split_unescaped(text):
    """Split a field selector on commas not escaped with a backslash."""
    parts, cur, escaped = [], '', False
    for ch in text:
        if escaped:
            cur += ch
            escaped = False
        elif ch == '\\':
            cur += ch
            escaped = True
        elif ch == ',':
            parts.append(cur)
            cur = ''
        else:
            cur += ch
    parts.append(cur)
    return parts


def parse_field_selector(text, resource=None):
    """A `fieldSelector` query parameter -> list of (label, op, value); 400 for syntax errors and
    for labels the resource's field label conversion does not know, in the API server's words."""
    if not text:
        return None
    reqs = []
    for part in _split_unescaped(text):
        if not part:
            continue
        for op in ('!=', '==', '='):
            if op in part:
                k, v = part.split(op, 1)
                break
        else:
            raise ApiError.bad_request(f"invalid selector: '{text}'; can't understand '{part}'")
        if resource is not None:
            known = resource.field_labels
            if k not in ('metadata.name', 'metadata.namespace') and k not in (known or ()):
                if known is None:
                    raise ApiError.bad_request(
                        f'"{k}" is not a known field selector: only "metadata.name", "metadata.namespace"')
                raise ApiError.bad_request(f'field label not supported: {k}')
        reqs.append((k, '!=' if op == '!=' else '=', v.replace('\\', '')))
    return reqs


def matches_fields(reqs, obj):
    for key, op, value in reqs or []:
        actual = _field(_FIELD_PATHS.get(key, key))(obj)
        if (op == '=') != (actual == value):
            return False
    return True

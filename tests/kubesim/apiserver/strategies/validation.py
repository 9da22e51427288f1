"""What every strategy's validation shares: the field errors a 422 lists, as apimachinery's
`field.ErrorList` collects them (`Errors`, with Go's rendering of the values, `go_repr`), the
object metadata checks (apimachinery api/validation/objectmeta.go: names, labels, the
annotations' size) and the field checks of several kinds (non-negative counts, int-or-percent
values)."""

import re

from ...machinery.errors import ApiError
from ...machinery.selectors import LABEL_VALUE_MSG, QUALIFIED_NAME_MSG, SUBDOMAIN_MSG

DNS1123_LABEL = re.compile(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')
_DNS1123_SUBDOMAIN = re.compile(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')
_QUALIFIED_NAME = re.compile(r'^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$')
_LABEL_VALUE = re.compile(r'^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$')
_PERCENT = re.compile(r'^[0-9]+%$')

LABEL_MSG = ('a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', '
             'and must start and end with an alphanumeric character (e.g. \'my-name\',  or '
             '\'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')')


class Errors:
    """Collects field errors, then raises one 422 with all of them (as the API server reports)."""

    def __init__(self):
        self.causes = []

    def required(self, field, detail=''):
        message = f'Required value: {detail}' if detail else 'Required value'
        self.causes.append((field, 'FieldValueRequired', message))

    def invalid(self, field, value, detail):
        self.causes.append((field, 'FieldValueInvalid', f'Invalid value: {go_repr(value)}: {detail}'))

    def unsupported(self, field, value, supported):
        choices = ', '.join(f'"{s}"' for s in supported)
        self.causes.append((field, 'FieldValueNotSupported',
                            f'Unsupported value: {go_repr(value)}: supported values: {choices}'))

    def forbidden(self, field, detail):
        self.causes.append((field, 'FieldValueForbidden', f'Forbidden: {detail}'))

    def duplicate(self, field, value):
        self.causes.append((field, 'FieldValueDuplicate', f'Duplicate value: {go_repr(value)}'))

    def raise_if_any(self, strategy, obj):
        if self.causes:
            name = (obj.get('metadata') or {}).get('name', '')
            raise ApiError.invalid(strategy.key, name, self.causes, kind=strategy.qualified_kind)


def go_repr(value):
    """Render a value roughly the way Go's %#v does in Kubernetes' validation messages."""
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, str):
        return '"' + value.replace('\\', '\\\\').replace('"', '\\"') + '"'
    if isinstance(value, dict) and all(isinstance(v, str) for v in value.values()):
        inner = ', '.join(f'"{k}":"{v}"' for k, v in sorted(value.items()))
        return 'map[string]string{' + inner + '}'
    if value is None:
        return 'null'
    return str(value)


# ---- object metadata -----------------------------------------------------------------------------
def validate_name(errs, obj, field='metadata.name'):
    name = (obj.get('metadata') or {}).get('name', '')
    if name and (len(name) > 253 or not _DNS1123_SUBDOMAIN.match(name)):
        errs.invalid(field, name, SUBDOMAIN_MSG)


def validate_labels(errs, labels, field):
    if labels is None:
        return
    if not isinstance(labels, dict):
        errs.invalid(field, labels, 'must be a map of strings')
        return
    for key, value in labels.items():
        prefix, _, name = key.rpartition('/')
        if (not name or len(name) > 63 or not _QUALIFIED_NAME.match(name)
                or (prefix and (len(prefix) > 253 or not _DNS1123_SUBDOMAIN.match(prefix)))):
            errs.invalid(field, key, QUALIFIED_NAME_MSG)
        if not isinstance(value, str) or len(value) > 63 or not _LABEL_VALUE.match(value):
            errs.invalid(field, value, LABEL_VALUE_MSG)


# ValidateAnnotationsSize (apimachinery's objectmeta validation): keys and values together.
TOTAL_ANNOTATION_SIZE = 256 * 1024


def validate_annotations_size(errs, annotations):
    if not isinstance(annotations, dict):
        return
    total = sum(len(str(k).encode()) + len(str(v).encode()) for k, v in annotations.items())
    if total > TOTAL_ANNOTATION_SIZE:
        errs.causes.append(('metadata.annotations', 'FieldValueTooLong',
                            f'Too long: may not be more than {TOTAL_ANNOTATION_SIZE} bytes'))


# ---- fields --------------------------------------------------------------------------------------
def validate_non_negative(errs, spec, key, path=None):
    value = spec.get(key)
    if value is None:
        return
    if not isinstance(value, int) or isinstance(value, bool):
        errs.invalid(path or f'spec.{key}', value, 'must be an integer')
    elif value < 0:
        errs.invalid(path or f'spec.{key}', value, 'must be greater than or equal to 0')


def validate_int_or_percent(errs, value, field, at_most_100=True):
    if value is None:
        return None
    if isinstance(value, bool):
        errs.invalid(field, value, 'must be an integer or percentage (e.g \'5%\')')
        return None
    if isinstance(value, int):
        if value < 0:
            errs.invalid(field, value, 'must be greater than or equal to 0')
        return value
    if isinstance(value, str) and _PERCENT.match(value):
        percent = int(value[:-1])
        if at_most_100 and percent > 100:
            errs.invalid(field, value, 'must not be greater than 100%')
        return percent
    errs.invalid(field, value, 'a valid percent string must be a numeric string followed by an ending '
                               '\'%\' (e.g. \'1%\',  or \'93%\', regex used for validation is \'[0-9]+%\')')
    return None

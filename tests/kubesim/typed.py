"""The typed round-trip: a body is read as the API server's decoder reads it into Go structs and
written back as its encoder writes them.

Field knowledge comes from the official `kubernetes` client's models (generated from the same
OpenAPI as the server; the venv's client matches the version kubesim presents): every model's
`attribute_map` names its JSON fields and `openapi_types` their types. What the round-trip does:

- a field no model knows is dropped (and reported, for `fieldValidation`);
- a null is dropped (a nil pointer, map or slice: omitted on output), so `creationTimestamp: null`
  in a pod template reads back as absent, as 1.33+ servers print it;
- an empty map or list is dropped (`nodeSelector: {}`, `tolerations: []`: omitempty);
- `object`-typed fields (IntOrString, RawExtension such as ControllerRevision `data`, free-form
  maps) are kept as they are.

Empty structs (`securityContext: {}`) stay, as Go prints a non-nil pointer to an empty struct.
"""

import functools
import importlib
import re

_LIST = re.compile(r'^[Ll]ist\[(.+)\]$')
_DICT = re.compile(r'^(?:dict\(str, (.+)\)|Dict\[str, (.+)\])$')
_SCALARS = {'str', 'int', 'bool', 'float', 'datetime', 'date', 'object', 'bytes'}
# Kinds whose client model is not V1<Kind>.
_ROOT_MODELS = {'Event': 'CoreV1Event'}


@functools.lru_cache(maxsize=None)
def _models():
    # Imported on first use: the client takes about a second to import, more than kubesim's start.
    return importlib.import_module('kubernetes.client')


def warm_up():
    """Import the client's models now (the CLI does it in the background once it serves)."""
    _models()


@functools.lru_cache(maxsize=None)
def _fields(model_name):
    """JSON field name -> type string, for one model (None when the client has no such model)."""
    model = getattr(_models(), model_name, None)
    if model is None:
        return None
    return {model.attribute_map[attr]: typ for attr, typ in model.openapi_types.items()}


def root_model(kind):
    return _ROOT_MODELS.get(kind, f'V1{kind}')


def _join(path, key):
    return f'{path}.{key}' if path else key


def _walk(value, typ, path, unknown):
    """The normalised value (or None to drop it); unknown field paths are appended to ``unknown``."""
    if value is None:
        return None
    if typ in _SCALARS:
        return value
    match = _LIST.match(typ)
    if match:
        if not isinstance(value, list):
            return value
        items = [_walk(v, match.group(1), f'{path}[{i}]', unknown) for i, v in enumerate(value)]
        return items or None
    match = _DICT.match(typ)
    if match:
        if not isinstance(value, dict):
            return value
        out, item_type = {}, match.group(1) or match.group(2)
        for key, item in value.items():
            item = _walk(item, item_type, _join(path, key), unknown)
            if item is not None:
                out[key] = item
        return out or None
    fields = _fields(typ)
    if fields is None or not isinstance(value, dict):
        return value
    out = {}
    for key, item in value.items():
        if key not in fields:
            unknown.append(_join(path, key))
            continue
        item = _walk(item, fields[key], _join(path, key), unknown)
        if item is not None:
            out[key] = item
    return out


def normalise(kind, obj):
    """(the object as the server would hold it, the unknown field paths in the order found)."""
    if _fields(root_model(kind)) is None:
        return obj, []
    unknown = []
    out = _walk(obj, root_model(kind), '', unknown)
    return out, unknown

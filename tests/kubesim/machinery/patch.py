"""The three patch formats the API server accepts: JSON patch, JSON merge patch, strategic merge patch.

All functions take and return plain JSON values and never mutate their arguments. Errors are
`ApiError`s shaped like the API server's: a malformed patch is 400 BadRequest, a JSON patch that
cannot be applied (a failing `test`, a missing path) is 422 Invalid.

Strategic merge patch follows apimachinery's `strategicpatch` package. The Go code looks the merge
strategy of each field up in the typed structs; kubesim has no structs, so `field_strategy` answers
from a table of the fields Kubernetes tags with `patchStrategy:"merge"` (by the field's path).
"""

import copy
import json

import jsonpatch
import jsonpointer

from .errors import ApiError

JSON_PATCH = 'application/json-patch+json'
MERGE_PATCH = 'application/merge-patch+json'
STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json'
APPLY_PATCH = 'application/apply-patch+yaml'
PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH)

DIRECTIVE = '$patch'
RETAIN_KEYS = '$retainKeys'
SET_ELEMENT_ORDER = '$setElementOrder/'
DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList/'

_CONTAINER_LISTS = ('containers', 'initContainers', 'ephemeralContainers')

# Lists of objects merged by a key: field name -> merge key, for the fields whose meaning does not
# depend on where they appear in the kinds kubesim serves.
_MERGE_KEYS = {
    'containers': 'name',
    'initContainers': 'name',
    'ephemeralContainers': 'name',
    'volumes': 'name',
    'env': 'name',
    'volumeMounts': 'mountPath',
    'volumeDevices': 'devicePath',
    'imagePullSecrets': 'name',
    'hostAliases': 'ip',
    'topologySpreadConstraints': 'topologyKey',
    'schedulingGates': 'name',
    'resourceClaims': 'name',
    'ownerReferences': 'uid',
    'conditions': 'type',
    'podIPs': 'ip',
    'hostIPs': 'ip',
    'addresses': 'type',
}
# Lists of scalars with the merge strategy: they merge as sets.
_MERGE_PRIMITIVE = {('metadata', 'finalizers')}


def field_strategy(path):
    """(strategy, merge_key) of the list field at ``path`` (field names, list levels skipped).

    strategy is 'merge' or 'replace'; merge_key is None for merged lists of scalars.
    """
    name = path[-1] if path else ''
    parent = path[-2] if len(path) > 1 else ''
    if tuple(path[-2:]) in _MERGE_PRIMITIVE:
        return 'merge', None
    if name == 'ports':
        if parent in _CONTAINER_LISTS:
            return 'merge', 'containerPort'
        if path[-2:] == ('spec', 'ports') and len(path) == 2:
            return 'merge', 'port'  # Service.spec.ports
        return 'replace', None
    if name == 'conditions' and parent != 'status':
        return 'replace', None
    if name in ('addresses', 'podIPs', 'hostIPs') and parent != 'status':
        return 'replace', None
    if name == 'volumes' and parent != 'spec':
        return 'replace', None
    key = _MERGE_KEYS.get(name)
    if key:
        return 'merge', key
    return 'replace', None


# ---- JSON patch (RFC 6902) ------------------------------------------------------------------

def json_patch(doc, patch):
    if not isinstance(patch, list):
        raise ApiError.bad_request('json: cannot unmarshal object into Go value of type jsonpatch.Patch')
    for op in patch:
        if not isinstance(op, dict) or 'op' not in op:
            raise ApiError.bad_request(f'invalid JSON patch operation: {json.dumps(op)}')
    try:
        ops = [jsonpatch.JsonPatch([op]) for op in patch]
    except (jsonpatch.InvalidJsonPatch, jsonpointer.JsonPointerException) as e:
        raise ApiError.bad_request(str(e))
    doc = copy.deepcopy(doc)
    # One operation at a time, so an error names the operation that failed.
    for raw, op in zip(patch, ops):
        try:
            doc = op.apply(doc, in_place=True)
        except jsonpatch.JsonPatchTestFailed:
            raise _unprocessable(f'testing value {raw.get("path")} failed: test failed')
        except (jsonpatch.JsonPatchConflict, jsonpointer.JsonPointerException, jsonpatch.InvalidJsonPatch,
                KeyError, IndexError, TypeError) as e:
            raise _unprocessable(f'{raw.get("op")} operation does not apply: doc is missing path: '
                                 f'"{raw.get("path")}": {e}')
    return doc


class _PatchNotApplied(ApiError):
    """The API server's answer to a JSON patch that does not apply (a failed `test` included): the
    patch handler's NewGenericServerResponse(422, ..., isUnexpectedResponse=false) keeps no causes,
    so the answer is a bare 422 Invalid with empty details; ``detail`` stays server-side."""

    def __init__(self, detail):
        super().__init__(422, 'Invalid', 'the server rejected our request due to an error in our request')
        self.detail = detail

    def status(self):
        body = super().status()
        body['details'] = {}
        return body


def _unprocessable(detail):
    return _PatchNotApplied(detail)


# ---- JSON merge patch (RFC 7386) ------------------------------------------------------------

def merge_patch(doc, patch):
    if not isinstance(patch, dict):
        raise ApiError.bad_request('Invalid JSON Patch')
    return _merge(copy.deepcopy(doc), patch)


def _merge(target, patch):
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    if not isinstance(target, dict):
        target = {}
    for key, value in patch.items():
        if value is None:
            target.pop(key, None)
        else:
            target[key] = _merge(target.get(key), value)
    return target


# ---- strategic merge patch ------------------------------------------------------------------

class _PatchError(Exception):
    """A strategic merge patch the API server cannot apply. Like apimachinery, malformed directive
    lists are 400, a retainKeys mismatch 422, and anything else (an unknown `$patch`, a missing merge
    key) the untyped 500 the API server gives errors it has no Status for."""

    def __init__(self, message, code=500):
        super().__init__(message)
        self.code = code


def strategic_merge_patch(doc, patch):
    if not isinstance(patch, dict):
        raise ApiError.bad_request('json: cannot unmarshal array into Go value of type '
                                   'map[string]interface {}')
    try:
        return _merge_map(copy.deepcopy(doc), copy.deepcopy(patch), ())
    except _PatchError as e:
        if e.code == 400:
            raise ApiError.bad_request(str(e))
        if e.code == 422:
            raise _unprocessable(str(e))
        raise ApiError(500, '', str(e))


def _strip(value):
    """A patch value copied in whole loses what decoding into the typed object would drop:
    directive keys and nulls."""
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if not k.startswith('$') and v is not None}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _merge_map(original, patch, path):
    if DIRECTIVE in patch:
        directive = patch.pop(DIRECTIVE)
        if directive == 'replace':
            return _strip(patch)
        if directive == 'delete':
            return {}
        # apimachinery accepts no other directive on a map, not even 'merge'.
        raise _PatchError(f'unknown patch type: {directive} in map: {patch}')
    if original is None:
        original = {}

    if RETAIN_KEYS in patch:
        retain = patch.pop(RETAIN_KEYS)
        if not isinstance(retain, list):
            raise _PatchError('invalid patch format of retainKeys', 400)
        for k, v in patch.items():
            if v is None or k.startswith((SET_ELEMENT_ORDER, DELETE_FROM_PRIMITIVE_LIST)):
                continue
            if k not in retain:
                raise _PatchError('invalid patch format of retainKeys', 400)
        for k in list(original):
            if k not in retain:
                del original[k]

    # $setElementOrder lists, merged together with the list they order.
    for key in [k for k in patch if k.startswith(SET_ELEMENT_ORDER)]:
        order = patch.pop(key)
        field = key[len(SET_ELEMENT_ORDER):]
        if not isinstance(order, list):
            raise _PatchError('invalid patch format of setElementOrder list', 400)
        if field not in original and field not in patch:
            continue
        strategy, merge_key = field_strategy(path + (field,))
        orig_list = original.get(field)
        patch_list = patch.pop(field, None)
        if field in original and not isinstance(orig_list, list):
            raise _PatchError(f'{field} is not a list')
        if patch_list is None:
            merged = orig_list or []
        elif orig_list is None:
            merged = _strip(patch_list)
        elif strategy == 'merge':
            merged = _merge_list(orig_list, patch_list, path + (field,), merge_key)
        else:
            merged = _strip(patch_list)
        original[field] = _order(merged, order, orig_list or [], merge_key)

    # $deleteFromPrimitiveList before additions, so a patch may delete and add in one go.
    for key in [k for k in patch if k.startswith(DELETE_FROM_PRIMITIVE_LIST)]:
        remove = patch.pop(key)
        field = key[len(DELETE_FROM_PRIMITIVE_LIST):]
        if not isinstance(remove, list):
            raise _PatchError('invalid patch format of deleteFromPrimitiveList', 400)
        if isinstance(original.get(field), list):
            original[field] = [v for v in original[field] if v not in remove]

    for key, value in patch.items():
        if value is None:
            original.pop(key, None)
            continue
        if key not in original:
            original[key] = _strip(value)
            continue
        current = original[key]
        if isinstance(current, dict) and isinstance(value, dict):
            original[key] = _merge_map(current, value, path + (key,))
        elif isinstance(current, list) and isinstance(value, list):
            strategy, merge_key = field_strategy(path + (key,))
            if strategy == 'merge':
                original[key] = _merge_list(current, value, path + (key,), merge_key)
            else:
                original[key] = _strip(value)
        else:
            original[key] = _strip(value)
    return original


def _is_map_list(*lists):
    kinds = {isinstance(v, dict) for lst in lists for v in lst}
    if len(kinds) > 1:
        raise _PatchError('list element types are not identical')
    return kinds == {True}


def _merge_list(original, patch, path, merge_key):
    if not original and not patch:
        return original
    if not _is_map_list(original, patch):
        merged = list(original)
        for v in patch:
            if v not in merged:
                merged.append(v)
        return _normalize(merged, patch, original, None)
    if not merge_key:
        raise _PatchError('cannot merge lists without merge key')

    # Directive elements first: {"$patch": "delete", key: v} and {"$patch": "replace"}.
    items, replace = [], False
    original = list(original)
    for elem in patch:
        directive = elem.get(DIRECTIVE)
        if directive is None:
            items.append(elem)
        elif directive == 'delete':
            if merge_key not in elem:
                raise _PatchError(f'map: {elem} does not contain declared merge key: {merge_key}')
            original = [o for o in original if o.get(merge_key) != elem[merge_key]]
        elif directive == 'replace':
            replace = True
        elif directive == 'merge':
            raise _PatchError('merging lists cannot yet be specified in the patch')
        else:
            raise _PatchError(f'unknown patch type: {directive} in map: {elem}')
    if replace:
        replaced = _strip(items)
        return _normalize(replaced, [], replaced, merge_key)

    merged = list(original)
    for elem in items:
        if merge_key not in elem:
            raise _PatchError(f'map: {elem} does not contain declared merge key: {merge_key}')
        for i, o in enumerate(merged):
            if o.get(merge_key) == elem[merge_key]:
                merged[i] = _merge_map(o, elem, path)
                break
        else:
            merged.append(_strip(elem))
    return _normalize(merged, items, original, merge_key)


def _index(lst, item, merge_key):
    for i, v in enumerate(lst):
        if (v.get(merge_key) == item.get(merge_key)) if merge_key else v == item:
            return i
    return -1


def _normalize(merged, patch_order, server_order, merge_key):
    """The element order apimachinery gives a merged list: patch items in patch order, server-only
    items in server order, interleaved by their positions in the server's list."""
    patch_items = [v for v in merged if _index(patch_order, v, merge_key) >= 0]
    server_only = [v for v in merged if _index(patch_order, v, merge_key) < 0]
    patch_items.sort(key=lambda v: _index(patch_order, v, merge_key))
    server_only.sort(key=lambda v: _index(server_order, v, merge_key))
    out, i, j = [], 0, 0
    while i < len(server_only) or j < len(patch_items):
        if i >= len(server_only):
            out.append(patch_items[j])
            j += 1
        elif j >= len(patch_items):
            out.append(server_only[i])
            i += 1
        else:
            li = _index(server_order, server_only[i], merge_key)
            ri = _index(server_order, patch_items[j], merge_key)
            if li >= 0 and ri >= 0 and li < ri:
                out.append(server_only[i])
                i += 1
            else:
                out.append(patch_items[j])
                j += 1
    return out


def _order(merged, order, server_order, merge_key):
    if merge_key:
        for v in order:
            if not isinstance(v, dict) or merge_key not in v:
                raise _PatchError(f'map: {v} does not contain declared merge key: {merge_key}')
    return _normalize(merged, order, server_order, merge_key)


# ---- entry point ----------------------------------------------------------------------------

def apply_patch(content_type, doc, patch):
    """Apply a decoded patch body of the given content type to ``doc``; returns the new document."""
    if content_type == JSON_PATCH:
        return json_patch(doc, patch)
    if content_type == MERGE_PATCH:
        return merge_patch(doc, patch)
    if content_type == STRATEGIC_MERGE_PATCH:
        return strategic_merge_patch(doc, patch)
    raise ApiError.unsupported_media_type()

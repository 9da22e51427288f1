"""JSON bytes as Go's encoding/json writes them: a map[string]interface{} with sorted keys,
compact, UTF-8, with <, >, & and U+2028/U+2029 escaped (encode.go's HTML-safe string writer).

kubectl and the controllers compare and hash such bytes (a ControllerRevision's `data`, the
last-applied annotation), so they must be Go's to the byte. And `copy_json`, the store's copy of
such values."""

import copy
import json

_SCALARS = (str, int, float, bool, type(None))
_ESCAPES = (('<', '\\u003c'), ('>', '\\u003e'), ('&', '\\u0026'),
            ('\u2028', '\\u2028'), ('\u2029', '\\u2029'))


def canonical_json(value):
    """Compact JSON with sorted keys: the byte form Go's encoder gives a map[string]interface{}."""
    return json.dumps(value, sort_keys=True, separators=(',', ':'), ensure_ascii=False)


def go_escaped(text):
    """``text`` (JSON) with the characters Go's encoder escapes escaped."""
    for char, escaped in _ESCAPES:
        text = text.replace(char, escaped)
    return text


def go_json(value):
    """The bytes `json.Marshal` gives a map[string]interface{} holding ``value``."""
    return go_escaped(canonical_json(value)).encode()


def copy_json(value):
    """A deep copy of stored objects (JSON data), several times faster than copy.deepcopy; anything
    else falls back to it."""
    kind = type(value)
    if kind is dict:
        return {k: copy_json(v) for k, v in value.items()}
    if kind is list:
        return [copy_json(v) for v in value]
    if kind in _SCALARS:
        return value
    return copy.deepcopy(value)

"""Answers as the API server writes them (apiserver pkg/endpoints/handlers/responsewriters):
JSON, encoded as Go's encoder does it.

API objects (objects, lists, Status errors, Tables, discovery documents) go through the JSON
serializer (apimachinery runtime/serializer/json), which writes them with `json.NewEncoder(w).Encode`:
compact, ending with a newline. The few non-API documents (`/version`, the root path list) go
through `WriteRawJSON`: `json.MarshalIndent(object, "", "  ")`, without the newline."""

import json

from aiohttp import web

from ...machinery.gojson import go_escaped as _go_escaped

JSON = 'application/json'


def _go_json(value):
    """JSON as Go's encoder writes it: compact, UTF-8, with <, >, & and U+2028/9 escaped.

    kubectl compares a ControllerRevision's raw `data` bytes with its own encoding of the workload
    (`rollout undo` says "skipped rollback" when they are equal), so the bytes must match Go's.
    """
    return _go_escaped(json.dumps(value, separators=(',', ':'), ensure_ascii=False))


def _encoded(value):
    """An API object's body as the JSON serializer writes it: json.Encoder's line, newline included."""
    return _go_json(value) + '\n'


def _json_response(body, **kwargs):
    """An API object's answer: `Content-Type: application/json` (no charset, as the API server
    writes it), the encoder's bytes."""
    return web.Response(body=_encoded(body).encode(), content_type=JSON, **kwargs)


def _raw_json_response(body, **kwargs):
    """responsewriters.WriteRawJSON: a non-API object, indented by two spaces, no final newline."""
    text = _go_escaped(json.dumps(body, indent=2, ensure_ascii=False))
    return web.Response(body=text.encode(), content_type=JSON, **kwargs)

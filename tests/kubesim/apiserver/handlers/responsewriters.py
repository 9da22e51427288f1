"""Answers as the API server writes them (apiserver pkg/endpoints/handlers/responsewriters):
JSON, encoded as Go's encoder does it.

API objects (objects, lists, Status errors, Tables, discovery documents) go through the JSON
serializer (apimachinery runtime/serializer/json), which writes them with `json.NewEncoder(w).Encode`:
compact, ending with a newline. The few non-API documents (`/version`, the root path list) go
through `WriteRawJSON`: `json.MarshalIndent(object, "", "  ")`, without the newline.

A client that asks for it gets the API objects pretty-printed (the negotiation's `isPrettyPrint`,
endpoints/handlers/negotiation/negotiate.go, choosing the JSON serializer's pretty form): `?pretty=`
a true value (strconv.ParseBool), or, without the parameter, a User-Agent starting with `curl`,
`Wget` or `Mozilla/5.0`. Pretty is `json.MarshalIndent(object, "", "  ")`, without the newline."""

import json

from aiohttp import web

from ...machinery.gojson import go_escaped as _go_escaped

JSON = 'application/json'
# The API object a response of `_json_response` carries, for the pretty form (`pretty_if_asked`).
API_OBJECT = web.ResponseKey('kubesim_api_object', object)
_TRUE = ('1', 't', 'T', 'TRUE', 'true', 'True')
_HUMAN_AGENTS = ('curl', 'Wget', 'Mozilla/5.0')


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
    response = web.Response(body=_encoded(body).encode(), content_type=JSON, **kwargs)
    response[API_OBJECT] = body
    return response


def wants_pretty(request):
    """isPrettyPrint: `?pretty=` when it has a value (a value ParseBool rejects is false), else
    whether the User-Agent is a browser's or a command-line HTTP tool's."""
    value = request.query.get('pretty', '')
    if value:
        return value in _TRUE
    return request.headers.get('User-Agent', '').startswith(_HUMAN_AGENTS)


def pretty_if_asked(request, response):
    """``response`` as the client asked: an API object's JSON answer re-encoded indented when
    `wants_pretty`; anything else (raw JSON, protobuf, streams, plain text) as it is."""
    if not isinstance(response, web.Response) or response.get(API_OBJECT) is None \
            or response.content_type != JSON or not wants_pretty(request):
        return response
    text = _go_escaped(json.dumps(response[API_OBJECT], indent=2, ensure_ascii=False))
    response.body = text.encode()
    return response


def _raw_json_response(body, **kwargs):
    """responsewriters.WriteRawJSON: a non-API object, indented by two spaces, no final newline."""
    text = _go_escaped(json.dumps(body, indent=2, ensure_ascii=False))
    return web.Response(body=text.encode(), content_type=JSON, **kwargs)

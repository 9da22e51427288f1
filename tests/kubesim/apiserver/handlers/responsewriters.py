"""Answers as the API server writes them (apiserver pkg/endpoints/handlers/responsewriters):
JSON, encoded as Go's encoder does it."""

import json

from aiohttp import web

JSON = 'application/json'


def _go_json(value):
    """JSON as Go's encoder writes it: compact, UTF-8, with <, >, & and U+2028/9 escaped.

    kubectl compares a ControllerRevision's raw `data` bytes with its own encoding of the workload
    (`rollout undo` says "skipped rollback" when they are equal), so the bytes must match Go's.
    """
    text = json.dumps(value, separators=(',', ':'), ensure_ascii=False)
    for char, escaped in (('<', '\\u003c'), ('>', '\\u003e'), ('&', '\\u0026'),
                          ('\u2028', '\\u2028'), ('\u2029', '\\u2029')):
        text = text.replace(char, escaped)
    return text


def _json_response(body, **kwargs):
    return web.json_response(body, dumps=_go_json, **kwargs)

"""Server-side apply by `kubectl` on an object client-side apply made: the field manager's
last-applied manager and updater (apimachinery pkg/util/managedfields/internal/
lastappliedmanager.go, lastappliedupdater.go).

- An apply by the manager `kubectl` that conflicts only on fields the object's
  `kubectl.kubernetes.io/last-applied-configuration` holds with their live values is forced: those
  fields were kubectl's own, written by client-side apply (the fields of the annotation that the
  live object has added, changed or removed since are not, and still conflict).
- After an apply by `kubectl`, an object that carries the annotation gets it rewritten to the
  applied configuration (without the annotation itself), as Go's JSON encoder writes it.

Other managers never get either: `--field-manager=x` opts out."""

import json

from ..machinery.gojson import go_json
from . import fieldmanager

LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration'
KUBECTL = 'kubectl'


def apply(live, config, type_name, manager, api_version, force, subresource='', applied=None):
    """fieldmanager.apply with the two steps above; ``applied`` is the configuration as the client
    sent it (before conversion to the storage version), for the annotation."""
    try:
        merged = fieldmanager.apply(live, config, type_name, manager, api_version, force, subresource)
    except fieldmanager.Conflicts as err:
        if manager != KUBECTL:
            raise
        allowed = _allowed_conflicts(live, type_name, api_version)
        if allowed is None:
            raise
        left = [(key, path) for key, path in err.conflicts if path not in allowed]
        if left:
            raise fieldmanager.Conflicts(left) from None
        merged = fieldmanager.apply(live, config, type_name, manager, api_version, True, subresource)
    annotations = (merged.get('metadata') or {}).get('annotations') or {}
    if manager == KUBECTL and annotations.get(LAST_APPLIED):
        merged['metadata']['annotations'] = {**annotations, LAST_APPLIED: build(applied or config)}
    return merged


def build(config):
    """The annotation's value for an applied configuration (buildLastApplied): the configuration
    without the annotation, JSON as `runtime.Encode` writes it (a newline at the end)."""
    obj = json.loads(json.dumps(config))
    meta = obj.get('metadata')
    if isinstance(meta, dict) and isinstance(meta.get('annotations'), dict):
        meta['annotations'].pop(LAST_APPLIED, None)
    return go_json(obj).decode() + '\n'


def _allowed_conflicts(live, type_name, api_version):
    """The paths of the live object's annotation that still hold their live values (None when
    there is no usable annotation: the conflicts stand)."""
    text = ((live or {}).get('metadata') or {}).get('annotations', {}).get(LAST_APPLIED)
    if not text:
        return None
    try:
        last = json.loads(text)
    except ValueError:
        return None
    if not isinstance(last, dict) or last.get('apiVersion') != api_version:
        return None
    added, modified, removed = fieldmanager.compare(last, live, type_name)
    return fieldmanager.field_set(last, type_name) - added - modified - removed

"""The typed round-trip: a body is read as the API server's decoder reads it into Go structs and
written back as its encoder writes them (machinery/gotypes.py, with the struct facts of
machinery/gotypes_table.py).

- a field no Go struct declares is dropped (and reported, for `fieldValidation`);
- a null is a nil pointer, slice or map (or a zero value): omitted when the field has
  `omitempty`, printed as null otherwise; an empty map or list with `omitempty` is dropped too
  (`nodeSelector: {}`), so `creationTimestamp: null` in a pod template reads back as absent;
- a field without `omitempty` is always printed, with its zero value when absent (a new
  StatefulSet's status is `{"replicas": 0, "availableReplicas": 0}`);
- a value of the wrong type or out of its Go type's range is refused (`gotypes.DecodeError`);
- `RawExtension` fields (ControllerRevision `data`) and IntOrString values are kept as they are.

Empty structs (`securityContext: {}`) stay, as Go prints a non-nil pointer to an empty struct.
"""

from ..machinery import gotypes

DecodeError = gotypes.DecodeError
# Kind -> (group, version) of the built-in resources, for callers that name a kind alone: filled by
# the resource registry as it loads (registry/resources.py).
GROUPS_BY_KIND = {}


def _type_name(kind, group=None, version='v1'):
    if group is None:
        group, version = GROUPS_BY_KIND.get(kind, ('', version))
    return gotypes.type_for(group, version, kind)


def normalise(kind, obj, group=None, version='v1', unstructured=False):
    """(the object as the server would hold it, the unknown field paths in the order found).
    Raises DecodeError when the API server's decoder (or, with ``unstructured``, the unstructured
    converter strategic merge patches go through) refuses it."""
    type_name = _type_name(kind, group, version)
    if type_name is None:
        return obj, []
    if unstructured:
        return gotypes.convert(type_name, obj)
    return gotypes.decode(type_name, obj)


def encode(group, version, kind, obj):
    """What the API server stores and prints for an object it already accepted (controllers'
    writes): unknown fields dropped, zero values filled, Go's field order."""
    type_name = gotypes.type_for(group, version, kind)
    if type_name is None:
        return obj
    try:
        return gotypes.decode(type_name, obj)[0]
    except gotypes.DecodeError:
        return obj

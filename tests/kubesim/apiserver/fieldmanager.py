"""Field management: `metadata.managedFields` and server-side apply, after
sigs.k8s.io/structured-merge-diff (typed/compare.go, typed/tofieldset.go, typed/merge.go,
merge/update.go) and apiserver's fieldmanager.

Objects are walked with their Go types (machinery/gotypes_table.py) and the server-side apply
markers of `k8s.io/api` (`LIST_TYPES`, `ATOMIC_STRUCTS`): structs and maps are granular unless
atomic; a list is atomic (one value) unless `+listType=map` (items by their `+listMapKey`s:
`k:{"name":"app"}`) or `set` (items by value: `v:"x"`); scalars, Quantities, times and raw
extensions are leaves.

A field set is a Python set of paths, each a tuple of path elements as FieldsV1 writes them
(`f:spec`, `f:replicas`, `k:{"name":"app"}`, `v:"finalizer"`); `to_fields_v1` and
`from_fields_v1` convert to and from the `fieldsV1` tree, where a node that is itself a member
carries `".": {}`.

- An update (create, update, patch: `operation: Update`) owns what it changed: the paths that the
  comparison of the stored object (the Go zero object for a create) with the new one finds added
  or modified are added to the manager's set and taken from every other manager; removed paths
  leave every set.
- An apply (`operation: Apply`) owns exactly the fields of its configuration: the configuration
  is merged into the live object, what the manager applied before and no longer applies is
  removed unless another manager owns it, and the fields the merge changes that another manager
  owns are conflicts (409) unless the apply is forced, which takes them over.
"""

import json

from ..machinery.clock import now_rfc3339
from ..machinery.errors import ApiError
from ..machinery.gotypes import zero
from ..machinery.gotypes_table import ATOMIC_STRUCTS, LIST_TYPES, TYPES

APPLY, UPDATE = 'Apply', 'Update'
_MISSING = object()


# ---- the schema -------------------------------------------------------------------------------
_FIELDS = {}


class SchemaType:
    """A custom resource's structural schema node (a CRD version's JSONSchemaProps) standing for a
    Go type, as structured-merge-diff builds its schema from a CRD: `properties` make a struct,
    `additionalProperties` a map, `x-kubernetes-list-type: map|set` lists granular (others atomic),
    `x-kubernetes-map-type: atomic` maps atomic; `x-kubernetes-preserve-unknown-fields` and a
    missing schema are deduced (objects granular, lists atomic); the `metadata` of the resource and
    of embedded resources is ObjectMeta."""

    def __init__(self, schema, resource=False):
        self.schema = schema if isinstance(schema, dict) else None
        self.resource = resource or bool((self.schema or {}).get('x-kubernetes-embedded-resource'))
        self._fields = None
        self._shape = None

    def shape(self):
        if self._shape is None:
            s = self.schema or {}
            typ = s.get('type')
            if s.get('x-kubernetes-int-or-string') or typ in ('string', 'integer', 'number', 'boolean'):
                self._shape = ('leaf',)
            elif typ == 'array':
                kind = s.get('x-kubernetes-list-type')
                if kind in ('map', 'set'):
                    self._shape = ('list', SchemaType(s.get('items')), kind,
                                   tuple(s.get('x-kubernetes-list-map-keys') or ()))
                else:
                    self._shape = ('leaf',)
            elif s.get('x-kubernetes-map-type') == 'atomic':
                self._shape = ('leaf',)
            elif self.schema is None or s.get('properties') or self.resource or not isinstance(
                    s.get('additionalProperties'), dict):
                self._shape = ('struct', self)
            else:
                self._shape = ('map', SchemaType(s['additionalProperties']))
        return self._shape

    def fields(self):
        if self._fields is None:
            s = self.schema or {}
            found = {k: (SchemaType(v), '') for k, v in (s.get('properties') or {}).items()}
            if self.resource:
                found.update({'apiVersion': ('string', ''), 'kind': ('string', ''),
                              'metadata': ('meta.v1.ObjectMeta', '')})
            self._fields = _SchemaFields(found, self.schema is None or bool(
                s.get('x-kubernetes-preserve-unknown-fields')))
        return self._fields


class _SchemaFields(dict):
    """A schema node's fields; with preserved unknown fields every other key is deduced."""

    def __init__(self, found, preserve):
        super().__init__(found)
        self.preserve = preserve

    def __contains__(self, key):
        return self.preserve or super().__contains__(key)

    def __getitem__(self, key):
        if super().__contains__(key):
            return super().__getitem__(key)
        return (DEDUCED, '')

    def get(self, key, default=None):
        if key in self:  # the mapping answers for unknown keys when it preserves them
            return self[key]
        return default


DEDUCED = SchemaType(None)


def _zero(type_name):
    return {} if isinstance(type_name, SchemaType) else zero(type_name)


def _fields(type_name):
    """{json name: (type, '<declaring struct>.<json name>')}, inline structs flattened."""
    if isinstance(type_name, SchemaType):
        return type_name.fields()
    found = _FIELDS.get(type_name)
    if found is None:
        found = {}
        for name, typ, _number, flags, *_patch in TYPES[type_name]:
            if 'i' in flags:
                if typ == 'meta.v1.TypeMeta':
                    found['kind'] = found['apiVersion'] = ('string', '')
                else:
                    found.update(_fields(typ.lstrip('*')))
                continue
            found[name] = (typ, f'{type_name}.{name}')
        _FIELDS[type_name] = found
    return found


def _shape(typ, origin):
    """('struct', type) | ('map', item type) | ('list', item type, list type, keys) | ('leaf',)."""
    if isinstance(typ, SchemaType):
        return typ.shape()
    typ = typ.lstrip('*')
    marker = LIST_TYPES.get(origin)
    if typ.startswith('[]'):
        if marker and marker[0] in ('map', 'set'):
            return ('list', typ[2:], marker[0], marker[1])
        return ('leaf',)
    if typ.startswith('map['):
        if marker and marker[0] == 'atomic':
            return ('leaf',)
        return ('map', typ[4:-1])
    if typ in TYPES and typ not in ATOMIC_STRUCTS:
        return ('struct', typ)
    return ('leaf',)


def _item_element(item, list_type, keys):
    if list_type == 'set':
        return 'v:' + json.dumps(item, separators=(',', ':'))
    key = {k: item.get(k) for k in sorted(keys) if isinstance(item, dict) and k in item}
    return 'k:' + json.dumps(key, separators=(',', ':'))


def _children(value, shape):
    """[(path element, child value, child type, child origin)] of a granular node."""
    if shape[0] == 'struct':
        fields = _fields(shape[1])
        return [(f'f:{k}', v, *fields[k]) for k, v in value.items() if k in fields]
    if shape[0] == 'map':
        return [(f'f:{k}', v, shape[1], '') for k, v in value.items()]
    _kind, item_type, list_type, keys = shape
    return [(_item_element(item, list_type, keys), item, item_type, '') for item in value]


def _container(value, shape):
    if shape[0] == 'list':
        return isinstance(value, list)
    return isinstance(value, dict)


# ---- comparing two objects (typed/compare.go) ------------------------------------------------------
def compare(lhs, rhs, type_name):
    """(added, modified, removed) paths from ``lhs`` to ``rhs`` (None for a missing object: the Go
    zero object)."""
    added, modified, removed = set(), set(), set()
    if lhs is None:
        lhs = _zero(type_name)
    _compare(lhs, rhs, type_name, '', (), added, modified, removed)
    return added, modified, removed


def _compare(lhs, rhs, typ, origin, path, added, modified, removed):
    shape = _shape(typ, origin)
    granular = shape[0] != 'leaf' and (lhs is _MISSING or lhs is None or _container(lhs, shape)) and (
        rhs is _MISSING or rhs is None or _container(rhs, shape))
    if not granular:
        if lhs is _MISSING:
            added.add(path)
        elif rhs is _MISSING:
            removed.add(path)
        elif lhs != rhs:
            modified.add(path)
        return
    if path:
        if lhs is _MISSING:
            added.add(path)
        elif rhs is _MISSING:
            removed.add(path)
    left = {pe: (v, t, o) for pe, v, t, o in _children(lhs, shape)} if lhs not in (_MISSING, None) else {}
    right = {pe: (v, t, o) for pe, v, t, o in _children(rhs, shape)} if rhs not in (_MISSING, None) else {}
    for pe in list(left) + [pe for pe in right if pe not in left]:
        lv, lt, lo = left.get(pe, (_MISSING, None, None))
        rv, rt, ro = right.get(pe, (_MISSING, None, None))
        _compare(lv, rv, lt or rt, lo if lo is not None else ro, path + (pe,), added, modified, removed)


# ---- the fields of an applied configuration (typed/tofieldset.go) ---------------------------------
def field_set(value, type_name):
    out = set()
    _to_set(value, type_name, '', (), out)
    return out


def _to_set(value, typ, origin, path, out):
    shape = _shape(typ, origin)
    if shape[0] == 'leaf' or not _container(value, shape):
        out.add(path)
        return
    for pe, child, child_type, child_origin in _children(value, shape):
        _to_set(child, child_type, child_origin, path + (pe,), out)
        # List items and map entries are members themselves; a struct field only when empty.
        if shape[0] in ('list', 'map') or child is None or (isinstance(child, dict) and not child):
            out.add(path + (pe,))


# ---- merging an applied configuration into the live object (typed/merge.go) -----------------------
def merge(live, config, type_name):
    return _merge(live, config, type_name, '')


def _merge(live, config, typ, origin):
    shape = _shape(typ, origin)
    if shape[0] == 'leaf' or not _container(config, shape) or not _container(live, shape):
        return config
    if shape[0] == 'list':
        _kind, item_type, list_type, keys = shape
        merged = [(_item_element(item, list_type, keys), item) for item in live]
        index = {pe: i for i, (pe, _item) in enumerate(merged)}
        for item in config:
            pe = _item_element(item, list_type, keys)
            if pe in index:
                i = index[pe]
                merged[i] = (pe, _merge(merged[i][1], item, item_type, ''))
            else:
                index[pe] = len(merged)
                merged.append((pe, item))
        return [item for _pe, item in merged]
    out = dict(live)
    fields = _fields(shape[1]) if shape[0] == 'struct' else {}
    for key, value in config.items():
        child_type, child_origin = fields.get(key, (shape[1] if shape[0] == 'map' else 'string', ''))
        out[key] = _merge(live[key], value, child_type, child_origin) if key in live else value
    return out


def remove(obj, paths):
    """``obj`` without the nodes at ``paths`` (a node whose own path is listed goes whole)."""
    for path in sorted(paths, key=len):
        _remove(obj, path)
    return obj


def _remove(node, path):
    for i, pe in enumerate(path):
        last = i == len(path) - 1
        kind, _, text = pe.partition(':')
        if kind == 'f':
            if not isinstance(node, dict) or text not in node:
                return
            if last:
                del node[text]
                return
            node = node[text]
        else:
            if not isinstance(node, list):
                return
            wanted = json.loads(text)
            for j, item in enumerate(node):
                if (kind == 'v' and item == wanted) or (kind == 'k' and isinstance(item, dict) and all(
                        item.get(k) == v for k, v in wanted.items())):
                    if last:
                        del node[j]
                        return
                    node = item
                    break
            else:
                return


# ---- FieldsV1 and paths -------------------------------------------------------------------------
class FieldsTree(dict):
    """A `fieldsV1` tree the field manager wrote: never changed once built (a new write builds a
    new one), so copies of an object share it instead of copying it (the controllers copy
    objects all the time, and every object of theirs now carries managedFields)."""

    def __deepcopy__(self, memo):
        return self

    def __copy__(self):
        return self

    def _frozen(self, *args, **kwargs):
        raise TypeError('a managedFields tree is not changed in place')

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _frozen

    paths = None  # the root's set of paths (a frozenset), so it is read back without a walk


def to_fields_v1(paths):
    tree = {}
    members = set()
    for path in paths:
        node = tree
        for pe in path:
            node = node.setdefault(pe, {})
        members.add(path)

    def render(node, path):
        out = {}
        if path in members and node:
            out['.'] = {}
        for key in sorted(node):
            out[key] = render(node[key], path + (key,))
        return FieldsTree(out)
    root = render(tree, ())
    root.paths = frozenset(members)
    return root


def from_fields_v1(tree, path=()):
    if not path and isinstance(tree, FieldsTree) and tree.paths is not None:
        return set(tree.paths)
    out = set()
    for key, child in (tree or {}).items():
        if key == '.':
            out.add(path)
            continue
        sub = path + (key,)
        if not child:
            out.add(sub)
        else:
            out |= from_fields_v1(child, sub)
    return out


def path_text(path):
    """A path as structured-merge-diff prints it: `.spec.template.spec.containers[name="app"].image`."""
    out = ''
    for pe in path:
        kind, _, text = pe.partition(':')
        if kind == 'f':
            out += '.' + text
        elif kind == 'k':
            pairs = json.loads(text)
            out += '[' + ','.join(f'{k}={json.dumps(v)}' for k, v in pairs.items()) + ']'
        elif kind == 'v':
            out += f'[={text}]'
        else:
            out += f'[{text}]'
    return out


# ---- managers -----------------------------------------------------------------------------------
def _key(entry):
    version = entry.get('apiVersion', '') if entry.get('operation') == UPDATE else ''
    return (entry.get('manager', ''), entry.get('operation', ''), version, entry.get('subresource', ''))


def managers(obj):
    """{(manager, operation, apiVersion for updates, subresource): [entry, paths]} of an object."""
    out = {}
    for entry in (obj or {}).get('metadata', {}).get('managedFields') or []:
        if isinstance(entry, dict):
            out[_key(entry)] = [entry, from_fields_v1(entry.get('fieldsV1'))]
    return out


# What the field manager's stripMetaManager takes out of every set: identity and server metadata.
_STRIPPED = {('f:apiVersion',), ('f:kind',), ('f:metadata',)} | {
    ('f:metadata', f'f:{name}') for name in ('name', 'namespace', 'creationTimestamp', 'selfLink', 'uid',
                                             'clusterName', 'generation', 'managedFields', 'resourceVersion')}


def encode(found, now):
    """`metadata.managedFields` from managers, in the API server's order (operation, time,
    manager, apiVersion, subresource)."""
    entries = []
    for key, (entry, paths) in found.items():
        paths = paths - _STRIPPED
        if not paths:
            continue
        manager, operation, _version, subresource = key
        tree = entry.get('fieldsV1')
        if not (isinstance(tree, FieldsTree) and tree.paths == paths):
            tree = to_fields_v1(paths)
        out = {'manager': manager, 'operation': operation, 'apiVersion': entry.get('apiVersion', ''),
               'time': entry.get('time') or now, 'fieldsType': 'FieldsV1', 'fieldsV1': tree}
        if subresource:
            out['subresource'] = subresource
        entries.append(out)
    entries.sort(key=lambda e: (e['operation'], e['time'], e['manager'], e['apiVersion'],
                                e.get('subresource', '')))
    return entries


# Metadata the API server sets itself, after the field manager ran: never anyone's.
_SERVER_METADATA = ('managedFields', 'resourceVersion', 'uid', 'creationTimestamp', 'generation',
                    'deletionTimestamp', 'deletionGracePeriodSeconds', 'selfLink')


def _without_managed(obj, subresource=''):
    """What a write's managers are judged on: without the server's metadata, and for a `status`
    write only the status and the metadata its strategy lets through (the store has put back the
    rest: spec, and the labels of the kinds whose status strategy resets them), only the rest for
    a main-resource one (the strategies' reset fields)."""
    if obj is None:
        return None
    meta = {k: v for k, v in (obj.get('metadata') or {}).items() if k not in _SERVER_METADATA}
    if subresource == 'status':
        return {'metadata': meta, **({'status': obj['status']} if 'status' in obj else {})}
    return {**{k: v for k, v in obj.items() if k != 'status'}, 'metadata': meta}


def update(old, new, type_name, manager, api_version, subresource=''):
    """`new`'s managedFields after an Update by ``manager`` (old is None for a create) through
    ``subresource`` ('' for the main resource). The managers are those ``new`` carries when the
    client sent some, else the stored object's."""
    given = (new.get('metadata') or {}).get('managedFields')
    found = managers(new if given else old)
    judged = 'status' if subresource == 'status' else ''
    added, modified, removed = compare(_without_managed(old, judged), _without_managed(new, judged),
                                       type_name)
    changed = added | modified
    if not changed and not removed and old is not None:
        # Nothing changed: the managers stay, those the client sent when it sent some (a write of
        # managedFields alone, as kubectl's move of client-side apply's fields to its apply).
        return given if found else (old.get('metadata') or {}).get('managedFields')
    for key in found:
        found[key][1] -= changed
        found[key][1] -= removed
    key = (manager, UPDATE, api_version, subresource)
    entry, mine = found.get(key, [{'apiVersion': api_version}, set()])
    found[key] = [{**entry, 'time': None, 'apiVersion': api_version}, (mine - removed) | changed]
    return encode(found, now_rfc3339()) or None


class Conflicts(ApiError):
    """The 409 of an apply that would change fields other managers own (apiserver's
    fieldmanager NewConflictError)."""

    def __init__(self, conflicts):
        self.conflicts = conflicts
        causes, by_manager = [], {}
        for key, path in conflicts:
            name = _manager_text(key)
            causes.append({'reason': 'FieldManagerConflict', 'message': f'conflict with {name}',
                           'field': path_text(path)})
            by_manager.setdefault(name, []).append(path_text(path))
        if len(conflicts) == 1:
            message = f'Apply failed with 1 conflict: conflict with {_manager_text(conflicts[0][0])}: ' \
                      f'{path_text(conflicts[0][1])}'
        else:
            lines = []
            for name in sorted(by_manager):
                lines.append(f'conflicts with {name}:')
                lines += [f'- {p}' for p in by_manager[name]]
            message = f'Apply failed with {len(conflicts)} conflicts: ' + '\n'.join(lines)
        super().__init__(409, 'Conflict', message, {'causes': causes})


def _manager_text(key):
    manager, operation, version, subresource = key
    text = json.dumps(manager)
    if subresource:
        text += f' with subresource {json.dumps(subresource)}'
    if operation == UPDATE:
        text += f' using {version}'
    return text


def apply(live, config, type_name, manager, api_version, force, subresource=''):
    """(the merged object with its managedFields) for an apply of ``config`` by ``manager`` to
    ``live`` (None: the object does not exist yet) through ``subresource`` ('' for the main
    resource; the caller has kept in ``config`` only what that subresource writes); Conflicts
    unless ``force``."""
    judged = 'status' if subresource == 'status' else ''
    base = _without_managed(live, judged) if live is not None else _zero(type_name)
    found = managers(live)
    key = (manager, APPLY, '', subresource)
    applied = field_set({k: v for k, v in config.items() if k not in ('apiVersion', 'kind')}, type_name)
    applied = {p for p in applied if p and p[0] not in ('f:apiVersion', 'f:kind')}
    applied.discard(('f:metadata', 'f:name'))
    applied.discard(('f:metadata', 'f:namespace'))
    merged = merge(base, config, type_name)
    last = found.get(key, [None, set()])[1]
    others = set().union(*(paths for k, (_e, paths) in found.items() if k != key)) if found else set()
    # A field applied before and not now goes unless someone still owns it or something under it.
    kept = applied | others
    stale = {p for p in last - kept if not any(q[:len(p)] == p for q in kept)}
    if stale:
        merged = remove(json.loads(json.dumps(merged)), stale)
    added, modified, removed = compare(base, _without_managed(merged, judged), type_name)
    changed = added | modified
    conflicts = []
    for other, (_entry, paths) in found.items():
        if other == key:
            continue
        for path in sorted(paths & changed):
            conflicts.append((other, path))
    if conflicts and not force:
        conflicts.sort(key=lambda c: (c[0][0], path_text(c[1])))
        raise Conflicts(conflicts)
    for other in found:
        if other != key:
            found[other][1] -= changed
            found[other][1] -= removed
    entry = found.get(key, [{}, set()])[0]
    # An apply that changes no value keeps its entry's time: the object is stored as it was.
    kept_time = None if changed or removed else entry.get('time')
    found[key] = [{**entry, 'time': kept_time, 'apiVersion': api_version}, applied]
    merged.setdefault('metadata', {})['managedFields'] = encode(found, now_rfc3339())
    return merged


# ---- the components' own writes (recorders.py names the components) ----------------------------
def row_recorder(row, manager, subresource=''):
    """`recorder` for a resource row (the storage version's row of a store key, from the store's
    registry: `store.registry.strategy(key)`), custom resources included."""
    type_name = row.managed_type()
    if type_name is None:
        return None
    version = row.group_version
    return lambda old, new: update(old, new, type_name, manager, version, subresource)


def manager_name(request):
    """The field manager of a request: `fieldManager`, else the User-Agent's first part."""
    given = request.query.get('fieldManager')
    if given:
        return given
    return request.headers.get('User-Agent', '').split('/')[0]

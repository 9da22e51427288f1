"""/openapi/v2: the Swagger 2.0 document of the served kinds, as JSON or as the protobuf kubectl
asks for (`application/com.github.proto-openapi.spec.v2@v1.0+protobuf`, the gnostic OpenAPIv2
messages of github.com/google/gnostic-models `openapiv2/OpenAPIv2.proto`).

The definitions come from the Go struct facts of machinery/gotypes_table.py, named by Go package
as the API server names them (`io.k8s.api.apps.v1.Deployment`,
`io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`): properties with their types (integers with
format int32/int64), `$ref`s to other structs, `x-kubernetes-group-version-kind` on the served
kinds and their lists, and `x-kubernetes-patch-strategy`/`x-kubernetes-patch-merge-key` where the
Go field has a patch strategy. kubectl reads them to validate what the server cannot validate
for it (the items of a `kind: List`) and to compute client-side apply patches. There are no paths
and no descriptions; nothing is marked required (the API server validates that).
"""

import functools
import json

from ..machinery import protowire as pw
from ..machinery.gotypes_table import TYPES

PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf'
# What kube-openapi's handler answers it with ('@' is not allowed in a media type).
PROTOBUF_RETURNED = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf'
_PACKAGE_PATHS = {'core': 'io.k8s.api.core', 'apps': 'io.k8s.api.apps',
                  'autoscaling': 'io.k8s.api.autoscaling', 'coordination': 'io.k8s.api.coordination',
                  'meta': 'io.k8s.apimachinery.pkg.apis.meta', 'batch': 'io.k8s.api.batch',
                  'discovery': 'io.k8s.api.discovery'}
_GROUPS = {'core': '', 'apps': 'apps', 'autoscaling': 'autoscaling', 'coordination': 'coordination.k8s.io',
           'batch': 'batch', 'discovery': 'discovery.k8s.io'}
_PACKAGE_PATHS.update({'rbac': 'io.k8s.api.rbac', 'authorization': 'io.k8s.api.authorization'})
_GROUPS.update({'rbac': 'rbac.authorization.k8s.io', 'authorization': 'authorization.k8s.io'})
_PACKAGE_PATHS.update({'storage': 'io.k8s.api.storage',
                       'apiregistration': 'io.k8s.kube-aggregator.pkg.apis.apiregistration'})
_GROUPS.update({'storage': 'storage.k8s.io', 'apiregistration': 'apiregistration.k8s.io'})
_PACKAGE_PATHS.update({'policy': 'io.k8s.api.policy', 'networking': 'io.k8s.api.networking',
                       'certificates': 'io.k8s.api.certificates',
                       'metrics': 'io.k8s.metrics.pkg.apis.metrics'})
_GROUPS.update({'policy': 'policy', 'networking': 'networking.k8s.io', 'certificates': 'certificates.k8s.io',
                'metrics': 'metrics.k8s.io'})
_SPECIAL = {
    'Time': ('io.k8s.apimachinery.pkg.apis.meta.v1.Time', {'type': 'string', 'format': 'date-time'}),
    'MicroTime': ('io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime',
                  {'type': 'string', 'format': 'date-time'}),
    'Quantity': ('io.k8s.apimachinery.pkg.api.resource.Quantity', {'type': 'string'}),
    'IntOrString': ('io.k8s.apimachinery.pkg.util.intstr.IntOrString', {'type': 'string',
                                                                        'format': 'int-or-string'}),
    'RawExtension': ('io.k8s.apimachinery.pkg.runtime.RawExtension', {'type': 'object'}),
    'FieldsV1': ('io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1', {'type': 'object'}),
    'Duration': ('io.k8s.apimachinery.pkg.apis.meta.v1.Duration', {'type': 'string'}),
}
_SCALARS = {'string': {'type': 'string'}, 'bool': {'type': 'boolean'},
            'int32': {'type': 'integer', 'format': 'int32'}, 'int64': {'type': 'integer', 'format': 'int64'},
            'uint32': {'type': 'integer', 'format': 'int32'},
            'uint64': {'type': 'integer', 'format': 'int64'},
            'float64': {'type': 'number', 'format': 'double'},
            'bytes': {'type': 'string', 'format': 'byte'}}


def definition_name(type_name):
    package, version, name = type_name.split('.')
    return f'{_PACKAGE_PATHS[package]}.{version}.{name}'


def _ref(name):
    return {'$ref': f'#/definitions/{name}'}


def _schema(typ):
    if typ[0] == '*':
        return _schema(typ[1:])
    if typ.startswith('[]'):
        return {'type': 'array', 'items': _schema(typ[2:])}
    if typ.startswith('map['):
        return {'type': 'object', 'additionalProperties': _schema(typ[4:-1])}
    if typ in _SPECIAL:
        return _ref(_SPECIAL[typ][0])
    if typ in TYPES:
        return _ref(definition_name(typ))
    return dict(_SCALARS[typ])


def _properties(type_name):
    out = {}
    for name, typ, _number, flags, *patch in TYPES[type_name]:
        if 'i' in flags:
            if typ == 'meta.v1.TypeMeta':
                out['apiVersion'] = {'type': 'string'}
                out['kind'] = {'type': 'string'}
            else:
                out.update(_properties(typ))
            continue
        schema = _schema(typ)
        if patch and patch[0]:
            strategy, _, merge_key = patch[0].partition('@')
            if merge_key:
                schema['x-kubernetes-patch-merge-key'] = merge_key
            schema['x-kubernetes-patch-strategy'] = strategy
        out[name] = schema
    return out


@functools.lru_cache(maxsize=None)
def document():
    """The Swagger 2.0 document as JSON-ready data."""
    from .discovery import SERVER_VERSION
    from .registry.resources import RESOURCES

    served = {}
    for r in RESOURCES:
        if r.decoder is not None:
            continue  # kinds kept as JSON (the CRD) have no Go type definitions here
        package = next(p for p, g in _GROUPS.items() if g == r.group)
        for kind in (r.kind, f'{r.kind}List'):
            served[f'{package}.{r.version}.{kind}'] = {'group': r.group, 'kind': kind, 'version': r.version}
    definitions = {name: dict(schema) for name, schema in _SPECIAL.values()}
    for type_name in sorted(TYPES):
        schema = {'type': 'object', 'properties': _properties(type_name)}
        if type_name in served:
            schema['x-kubernetes-group-version-kind'] = [served[type_name]]
        definitions[definition_name(type_name)] = schema
    return {'swagger': '2.0', 'info': {'title': 'Kubernetes', 'version': SERVER_VERSION['gitVersion']},
            'paths': {}, 'definitions': dict(sorted(definitions.items()))}


@functools.lru_cache(maxsize=None)
def json_bytes():
    return json.dumps(document(), separators=(',', ':')).encode()


# ---- the gnostic protobuf encoding ---------------------------------------------------------------
def _yaml(value):
    """A vendor extension's value as the YAML text gnostic keeps in `Any.yaml`."""
    if isinstance(value, str):
        return value + '\n'
    lines = []
    for item in value:
        first = True
        for key in sorted(item):
            text = item[key] if item[key] != '' else '""'
            lines.append(f'{"- " if first else "  "}{key}: {text}')
            first = False
    return '\n'.join(lines) + '\n'


def _encode_schema(schema):
    out = b''
    if '$ref' in schema:
        out += pw.field_bytes(1, schema['$ref'])                       # _ref
    if 'format' in schema:
        out += pw.field_bytes(2, schema['format'])                     # format
    if 'additionalProperties' in schema:                               # additional_properties
        out += pw.field_bytes(21, pw.field_bytes(1, _encode_schema(schema['additionalProperties'])))
    if 'type' in schema:                                               # type: TypeItem{value}
        out += pw.field_bytes(22, pw.field_bytes(1, schema['type']))
    if 'items' in schema:                                              # items: ItemsItem{schema}
        out += pw.field_bytes(23, pw.field_bytes(1, _encode_schema(schema['items'])))
    if 'properties' in schema:                                         # properties: Properties
        named = b''.join(pw.field_bytes(1, pw.field_bytes(1, name) + pw.field_bytes(2, _encode_schema(sub)))
                         for name, sub in schema['properties'].items())
        out += pw.field_bytes(25, named)
    for name, value in schema.items():                                 # vendor_extension: NamedAny
        if name.startswith('x-'):
            any_value = pw.field_bytes(2, _yaml(value))                # Any.yaml
            out += pw.field_bytes(31, pw.field_bytes(1, name) + pw.field_bytes(2, any_value))
    return out


@functools.lru_cache(maxsize=None)
def protobuf_bytes():
    doc = document()
    info = pw.field_bytes(1, doc['info']['title']) + pw.field_bytes(2, doc['info']['version'])
    definitions = b''.join(
        pw.field_bytes(1, pw.field_bytes(1, name) + pw.field_bytes(2, _encode_schema(schema)))
        for name, schema in doc['definitions'].items())
    return (pw.field_bytes(1, doc['swagger'])       # swagger
            + pw.field_bytes(2, info)               # info
            + pw.field_bytes(8, b'')                # paths
            + pw.field_bytes(9, definitions))       # definitions

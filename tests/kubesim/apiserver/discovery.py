"""The discovery documents (APIVersions, APIGroupList, APIResourceList, OpenAPI v3) built from
the resource rows of a registry (registry/resources.py: the built-in resources and the custom
resources of the store's CustomResourceDefinitions)."""

import base64
import hashlib
import re

from .registry.resources import BUILTIN

# The one Kubernetes version kubesim presents (README: "Version"). Its defaults, validation, feature
# gates and serialisation follow this version's API server and controllers.
KUBERNETES_MINOR = 37
SERVER_VERSION = {
    'major': '1',
    'minor': str(KUBERNETES_MINOR),
    'emulationMajor': '1',
    'emulationMinor': str(KUBERNETES_MINOR),
    'minCompatibilityMajor': '1',
    'minCompatibilityMinor': str(KUBERNETES_MINOR - 1),
    'gitVersion': f'v1.{KUBERNETES_MINOR}.0',
    'gitCommit': '0000000000000000000000000000000000000000',
    'gitTreeState': 'clean',
    'buildDate': '2026-08-01T00:00:00Z',
    'goVersion': 'go1.25.0',
    'compiler': 'gc',
    'platform': 'linux/amd64',
}


def api_versions(server_address):
    return {'kind': 'APIVersions', 'versions': ['v1'],
            'serverAddressByClientCIDRs': [{'clientCIDR': '0.0.0.0/0', 'serverAddress': server_address}]}


_KUBE_VERSION = re.compile(r'^v(\d+)(?:(alpha|beta)(\d+))?$')


def kube_version_key(version):
    """The order of version priority (apimachinery `version.CompareKubeAwareVersionStrings`): GA
    before beta before alpha, higher numbers first, then other names alphabetically."""
    match = _KUBE_VERSION.match(version)
    if not match:
        return (3, 0, 0, version)
    major, stage, minor = int(match.group(1)), match.group(2), int(match.group(3) or 0)
    return ({None: 0, 'beta': 1, 'alpha': 2}[stage], -major, -minor, version)


def api_group(name, registry=BUILTIN):
    """The group's versions, the preferred first: for built-in groups the version objects are
    stored in, for the groups of custom resources the versions in kube-aware priority order
    (customresource_discovery_controller.go)."""
    rows = [r for r in registry.rows if r.group == name]
    if any(r.custom is not None for r in rows):
        ordered = sorted(registry.groups()[name], key=kube_version_key)
    else:
        stored = {r.version for r in rows if r.to_version is None}
        ordered = sorted(registry.groups()[name], key=lambda v: (v not in stored, v))
    versions = [{'groupVersion': f'{name}/{v}', 'version': v} for v in ordered]
    return {'kind': 'APIGroup', 'apiVersion': 'v1', 'name': name, 'versions': versions,
            'preferredVersion': versions[0]}


def api_group_list(registry=BUILTIN):
    return {'kind': 'APIGroupList', 'apiVersion': 'v1',
            'groups': [{k: v for k, v in api_group(g, registry).items() if k not in ('kind', 'apiVersion')}
                       for g in registry.groups()]}


def storage_version_hash(group, version, kind):
    """The `storageVersionHash` of a resource stored as group/version/kind (apiserver
    endpoints/discovery/storageversionhash.go): the first 8 bytes of the SHA-256 of
    "group/version/kind", in standard base64. Discovery gives it to a resource's main entry when
    the resource has storage (the registry store; not the reviews, not the subresources); every
    version of a resource carries its storage version's hash."""
    digest = hashlib.sha256(f'{group}/{version}/{kind}'.encode()).digest()
    return base64.b64encode(digest[:8]).decode()


def api_resource_list(group, version, registry=BUILTIN):
    """None when the group/version is not served."""
    members = [r for r in registry.rows if r.group == group and r.version == version]
    if not members:
        return None
    resources = []
    for r in members:
        entries = r.api_resources()
        stored = registry.by_key.get(r.key)
        if stored is not None and 'get' in r.verbs:  # the reviews are answered, never stored
            entries[0]['storageVersionHash'] = storage_version_hash(stored.group, stored.version, stored.kind)
        resources.extend(entries)
    gv = f'{group}/{version}' if group else version
    return {'kind': 'APIResourceList', 'apiVersion': 'v1', 'groupVersion': gv, 'resources': resources}


# ---- OpenAPI v3 ----------------------------------------------------------------------------
# kubectl reads OpenAPI v3 only to learn that PATCH takes `fieldValidation` (then it validates on
# the server instead of downloading schemas); for patch strategies it falls back to its compiled-in
# types. So each group-version document lists the PATCH operations, with no component schemas.

_PATCH_PARAMETERS = [
    {'name': name, 'in': 'query', 'schema': {'type': typ, 'uniqueItems': True}}
    for name, typ in (('dryRun', 'string'), ('fieldManager', 'string'), ('fieldValidation', 'string'),
                      ('force', 'boolean'))
]


def _gv_path(group, version):
    return f'apis/{group}/{version}' if group else f'api/{version}'


def openapi_v3_document(group, version, registry=BUILTIN):
    """The OpenAPI v3 document of one group-version, or None if not served."""
    members = [r for r in registry.rows if r.group == group and r.version == version]
    if not members:
        return None
    paths = {}
    for r in members:
        scope = '/namespaces/{namespace}' if r.namespaced else ''
        gvk = {'group': r.group, 'version': r.version, 'kind': r.kind}
        paths[f'/{_gv_path(group, version)}{scope}/{r.plural}/{{name}}'] = {
            'patch': {
                'operationId': f'patch{"Namespaced" if r.namespaced else ""}{r.kind}',
                'x-kubernetes-action': 'patch',
                'x-kubernetes-group-version-kind': gvk,
                'parameters': _PATCH_PARAMETERS,
                'requestBody': {'content': {t: {'schema': {'type': 'object'}} for t in r.patch_types or (
                    'application/json-patch+json', 'application/merge-patch+json',
                    'application/strategic-merge-patch+json', 'application/apply-patch+yaml')},
                    'required': True},
                'responses': {'200': {'description': 'OK'}, '201': {'description': 'Created'}},
            },
        }
    info = {'title': 'Kubernetes (kubesim)', 'version': SERVER_VERSION['gitVersion']}
    schemas = {}
    for r in members:
        if r.custom is not None and r.custom.schema:
            schemas.update(_custom_schemas(r))
    if schemas:
        schemas[OBJECT_META] = {'type': 'object', 'description': OBJECT_META_TEXT}
    return {'openapi': '3.0.0', 'info': info, 'paths': paths, 'components': {'schemas': schemas}}


OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'
OBJECT_META_TEXT = ('ObjectMeta is metadata that all persisted resources must have, which includes all '
                    'objects users must create.')


def _custom_schemas(row):
    """A custom resource's component schema, as the CRD OpenAPI builder names and completes it
    (apiextensions-apiserver pkg/controller/openapi/builder/builder.go): the definition named by the
    reversed group, with its group-version-kind, apiVersion, kind and metadata added."""
    import copy

    name = '.'.join(reversed(row.group.split('.'))) + f'.{row.version}.{row.kind}'
    schema = copy.deepcopy(row.custom.schema)
    props = schema.setdefault('properties', {})
    props['apiVersion'] = {'type': 'string', 'description': (
        'APIVersion defines the versioned schema of this representation of an object.')}
    props['kind'] = {'type': 'string', 'description': (
        'Kind is a string value representing the REST resource this object represents.')}
    props['metadata'] = {'allOf': [{'$ref': f'#/components/schemas/{OBJECT_META}'}], 'default': {},
                         'description': 'Standard object\'s metadata.'}
    schema['x-kubernetes-group-version-kind'] = [
        {'group': row.group, 'version': row.version, 'kind': row.kind}]
    return {name: schema}


def openapi_v3_root(registry=BUILTIN):
    """/openapi/v3: where each group-version's document lives (the hash lets clients cache it)."""
    import hashlib
    import json

    paths = {}
    gvs = sorted({(r.group, r.version) for r in registry.rows})
    for group, version in gvs:
        doc = json.dumps(openapi_v3_document(group, version, registry), sort_keys=True).encode()
        digest = hashlib.sha512(doc).hexdigest().upper()
        paths[_gv_path(group, version)] = {
            'serverRelativeURL': f'/openapi/v3/{_gv_path(group, version)}?hash={digest}'}
    return {'paths': paths}

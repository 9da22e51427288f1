"""Every resource kubesim serves and its per-kind facts: one row per resource, as the API server's
per-kind strategy (registry/<group>/<kind>/strategy.go) holds them.

A row says where the resource lives (group, version, plural: the URL path), whether it is
namespaced, what discovery lists (short names, categories, subresources, verbs), whether writes
track `metadata.generation`, what a delete propagates to by default, which strategy hooks default
and validate it (functions of the strategies/ modules, run by `admit`) and which columns
`kubectl get` prints (see tables.py). The HTTP router, the store, discovery, fault injection and
the Table printer all read this table.
"""

import dataclasses
from typing import Callable, Optional

from ...machinery import gotypes
from ...machinery import errors
from ...machinery.errors import ApiError
from .. import tables, tables_more, tables_services, typed
from ..apiextensions import strategy as apiextensions
from ..strategies import apps, autoscaling, batch, coordination, core, discovery, service
from ..strategies import rbac as rbac_strategy
from ..strategies import apiregistration, storage
from ..strategies import certificates, limitrange, networking, policy
from ..strategies.validation import Errors, validate_annotations_size, validate_labels, validate_name

ALL_VERBS = ('create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch')
SUB_VERBS = ('get', 'patch', 'update')


@dataclasses.dataclass(frozen=True)
class Resource:
    group: str  # '' for the core API
    version: str
    plural: str
    kind: str
    namespaced: bool = True
    short_names: tuple = ()
    categories: tuple = ()
    subresources: tuple = ()  # 'status', 'scale'
    verbs: tuple = ALL_VERBS
    # Whether spec writes bump `metadata.generation` (false for kinds without a spec to track).
    generation: bool = True
    # What a DELETE without propagationPolicy or orphanDependents does to dependents.
    delete_propagation: str = 'Background'
    # Admission hooks: defaulter(obj, old), validator(obj, old, errs), after_admit(obj, old).
    defaulter: Optional[Callable] = None
    validator: Optional[Callable] = None
    after_admit: Optional[Callable] = None
    # `kubectl get` columns: (name, type, priority, cell function) tuples.
    columns: tuple = tuple(tables.DEFAULT)
    # Field selector labels beyond metadata.name/namespace, when the kind registers its own field
    # label conversion (then others are `field label not supported: X`); None: the generic one.
    field_labels: Optional[tuple] = None
    # Metadata fields a write to `/status` cannot change (its status strategy's PrepareForUpdate
    # restores them from the stored object); every other metadata change is kept.
    status_keeps: tuple = ()
    # PrepareForCreate: the status a new object gets whatever the client sent, from the object
    # (empty_status for the workload kinds); None keeps what was sent.
    initial_status: Optional[Callable] = None
    # A version the objects are not stored in: `to_version` converts a stored object into it,
    # `from_version` converts one back (the storage version's row has neither).
    to_version: Optional[Callable] = None
    from_version: Optional[Callable] = None
    # A deprecation warning the API server sends with every request to this resource.
    warning: Optional[str] = None
    # ---- beyond the Go types (custom resources, and kinds kubesim keeps as JSON) ----
    # The discovery's singularName when it is not the lower-cased kind.
    singular_name: str = ''
    # The body decoder instead of the Go types': obj -> (decoded obj, unknown field paths),
    # raising typed.DecodeError; and the encoder of what is stored (obj -> obj).
    decoder: Optional[Callable] = None
    encoder: Optional[Callable] = None
    # What the field manager walks instead of the kind's Go type (a fieldmanager.SchemaType).
    field_type: Optional[object] = None
    # The patch media types PATCH accepts (None: all of them, strategic merge patch included).
    patch_types: Optional[tuple] = None
    # A DELETE of an object not yet being deleted, instead of the registry store's:
    # on_delete(store, key, obj, dry_run) -> the object now being deleted (the CRD's REST.Delete).
    on_delete: Optional[Callable] = None
    # Whether a write through `status` is admitted (defaulted and validated) like the object.
    status_admission: bool = False
    # A write to a subresource (status, approval) by the kind's own strategies instead of the
    # store's: update_subresource(subresource, obj, old, row, now) -> the object to store.
    update_subresource: Optional[Callable] = None
    # False for the row of a storage version that is not served (it keys the store, no route).
    served: bool = True
    # A custom resource's serving information (apiextensions/handler.py), None for built-in kinds.
    custom: Optional[object] = dataclasses.field(default=None, compare=False)

    def shown(self, obj):
        """A stored object as this version shows it (as this version's Go type prints it)."""
        if self.custom is not None:
            return self.custom.shown(obj)
        if self.to_version is None:
            return obj
        return typed.encode(self.group, self.version, self.kind, self.to_version(obj))

    def stored(self, obj):
        """An object of this version as it is stored."""
        if self.custom is not None:
            return self.custom.stored(obj)
        return self.from_version(obj) if self.from_version is not None else obj

    def managed_type(self):
        """What the field manager walks for this row's objects: its Go type name, or a schema
        (custom resources, JSON-only kinds); None when neither is known."""
        if self.field_type is not None:
            return self.field_type
        return gotypes.type_for(self.group, self.version, self.kind)

    @property
    def returns_deleted_object(self):
        """Whether a DELETE that removes the object answers the object (see RETURN_DELETED_OBJECT)."""
        return self.key in RETURN_DELETED_OBJECT

    @property
    def key(self):
        """The store's resource key, e.g. 'apps/deployments' or '/pods'."""
        return f'{self.group}/{self.plural}'

    @property
    def group_version(self):
        return f'{self.group}/{self.version}' if self.group else self.version

    @property
    def singular(self):
        return self.singular_name or self.kind.lower()

    @property
    def qualified_kind(self):
        """The kind as validation errors name it: 'Deployment.apps', 'Pod'."""
        return f'{self.kind}.{self.group}' if self.group else self.kind

    def api_resources(self):
        """This resource's entries in an APIResourceList (the resource, then its subresources)."""
        main = {'name': self.plural, 'singularName': self.singular, 'namespaced': self.namespaced,
                'kind': self.kind, 'verbs': list(self.verbs)}
        if self.short_names:
            main['shortNames'] = list(self.short_names)
        if self.categories:
            main['categories'] = list(self.categories)
        out = [main]
        for sub in self.subresources:
            entry = {'name': f'{self.plural}/{sub}', 'singularName': '', 'namespaced': self.namespaced,
                     'kind': self.kind, 'verbs': list(SUB_VERBS)}
            if sub == 'scale':
                entry.update(group='autoscaling', version='v1', kind='Scale')
            entry.update(SUBRESOURCE_ENTRIES.get(f'{self.plural}/{sub}', {}))
            out.append(entry)
        return out


def empty_status(obj):
    """The zero status the workload strategies (Deployment, ReplicaSet, StatefulSet, DaemonSet,
    ReplicationController), Services and ResourceQuotas start from: the encoder prints its
    fields without omitempty (`replicas: 0` ...)."""
    return {}


RESOURCES = [
    Resource('', 'v1', 'namespaces', 'Namespace', namespaced=False, short_names=('ns',),
             subresources=('status',), verbs=('create', 'delete', 'get', 'list', 'patch', 'update', 'watch'),
             generation=False, defaulter=core.default_namespace, columns=tuple(tables.NAMESPACE),
             initial_status=core.namespace_initial_status,
             field_labels=('status.phase',)),
    Resource('', 'v1', 'nodes', 'Node', namespaced=False, short_names=('no',), subresources=('status',),
             generation=False, columns=tuple(tables.NODE), field_labels=('spec.unschedulable',)),
    Resource('', 'v1', 'pods', 'Pod', short_names=('po',), categories=('all',),
             subresources=('attach', 'eviction', 'exec', 'log', 'portforward', 'resize', 'status'),
             defaulter=core.default_pod, validator=core.validate_pod_object,
             columns=tuple(tables.POD), status_keeps=('ownerReferences',),
             initial_status=core.pod_initial_status,
             field_labels=('spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName',
                           'spec.serviceAccountName', 'spec.hostNetwork', 'status.phase', 'status.podIP',
                           'status.podIPs', 'status.nominatedNodeName')),
    # core/v1 ReplicationController keeps the pre-GC default (orphan) for compatibility.
    Resource('', 'v1', 'replicationcontrollers', 'ReplicationController', short_names=('rc',),
             categories=('all',), subresources=('scale', 'status'), delete_propagation='Orphan',
             defaulter=core.default_rc, validator=core.validate_rc,
             initial_status=empty_status, columns=tuple(tables.REPLICA_SET),
             field_labels=('status.replicas',)),
    Resource('', 'v1', 'resourcequotas', 'ResourceQuota', short_names=('quota',), subresources=('status',),
             generation=False, validator=core.validate_resourcequota,
             initial_status=empty_status, columns=tuple(tables.RESOURCE_QUOTA)),
    Resource('', 'v1', 'events', 'Event', short_names=('ev',), generation=False, columns=tuple(tables.EVENT),
             field_labels=('involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name',
                           'involvedObject.uid', 'involvedObject.apiVersion',
                           'involvedObject.resourceVersion', 'involvedObject.fieldPath', 'reason',
                           'reportingComponent', 'source', 'type')),
    Resource('', 'v1', 'configmaps', 'ConfigMap', short_names=('cm',), generation=False,
             columns=tuple(tables.CONFIG_MAP)),
    Resource('', 'v1', 'secrets', 'Secret', generation=False, columns=tuple(tables.SECRET),
             field_labels=('type',), defaulter=core.convert_secret, validator=core.validate_secret),
    Resource('', 'v1', 'serviceaccounts', 'ServiceAccount', short_names=('sa',), generation=False),
    Resource('', 'v1', 'services', 'Service', short_names=('svc',), categories=('all',),
             subresources=('status',), generation=False, initial_status=empty_status,
             defaulter=service.default_service, validator=service.validate_service,
             columns=tuple(tables_services.SERVICE)),
    Resource('', 'v1', 'endpoints', 'Endpoints', short_names=('ep',), generation=False,
             defaulter=discovery.default_endpoints, validator=discovery.validate_endpoints,
             columns=tuple(tables_services.ENDPOINTS), warning=discovery.ENDPOINTS_DEPRECATED),
    Resource('discovery.k8s.io', 'v1', 'endpointslices', 'EndpointSlice',
             defaulter=discovery.default_endpointslice, validator=discovery.validate_endpointslice,
             columns=tuple(tables_services.ENDPOINT_SLICE)),
    Resource('coordination.k8s.io', 'v1', 'leases', 'Lease', generation=False,
             validator=coordination.validate_lease, columns=tuple(tables.LEASE)),
    Resource('autoscaling', 'v2', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler', short_names=('hpa',),
             categories=('all',), subresources=('status',), defaulter=autoscaling.default,
             validator=autoscaling.validate, initial_status=empty_status,
             columns=tuple(tables.HORIZONTAL_POD_AUTOSCALER)),
    Resource('autoscaling', 'v1', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler', short_names=('hpa',),
             categories=('all',), subresources=('status',), columns=tuple(tables.HORIZONTAL_POD_AUTOSCALER),
             to_version=autoscaling.to_v1, from_version=autoscaling.to_v2),
    Resource('apps', 'v1', 'controllerrevisions', 'ControllerRevision', generation=False,
             validator=apps.validate_controllerrevision, columns=tuple(tables.CONTROLLER_REVISION)),
    Resource('apps', 'v1', 'daemonsets', 'DaemonSet', short_names=('ds',), categories=('all',),
             subresources=('status',), defaulter=apps.default_daemonset,
             validator=apps.validate_daemonset, after_admit=apps.daemonset_template_generation,
             initial_status=empty_status,
             columns=tuple(tables.DAEMON_SET)),
    Resource('apps', 'v1', 'deployments', 'Deployment', short_names=('deploy',), categories=('all',),
             subresources=('scale', 'status'), defaulter=apps.default_deployment,
             validator=apps.validate_deployment, after_admit=apps.bump_deployment_generation,
             initial_status=empty_status,
             columns=tuple(tables.DEPLOYMENT), status_keeps=('labels',)),
    Resource('apps', 'v1', 'replicasets', 'ReplicaSet', short_names=('rs',), categories=('all',),
             subresources=('scale', 'status'), defaulter=apps.default_replicaset,
             validator=apps.validate_replicaset, columns=tuple(tables.REPLICA_SET),
             initial_status=empty_status),
    Resource('apps', 'v1', 'statefulsets', 'StatefulSet', short_names=('sts',), categories=('all',),
             subresources=('scale', 'status'), defaulter=apps.default_statefulset,
             validator=apps.validate_statefulset, columns=tuple(tables.STATEFUL_SET),
             initial_status=empty_status),
    # apiextensions.k8s.io/v1 CustomResourceDefinitions (apiextensions/strategy.py), served as JSON.
    Resource('apiextensions.k8s.io', 'v1', 'customresourcedefinitions', 'CustomResourceDefinition',
             namespaced=False, short_names=('crd', 'crds'), categories=('api-extensions',),
             subresources=('status',), defaulter=apiextensions.default, validator=apiextensions.validate,
             initial_status=apiextensions.initial_status, columns=tuple(apiextensions.COLUMNS),
             decoder=apiextensions.decode, encoder=apiextensions.encode, field_type=apiextensions.FIELD_TYPE,
             on_delete=apiextensions.delete, status_keeps=apiextensions.STATUS_KEEPS),
]

# batch/v1 (pkg/registry/batch/job, pkg/registry/batch/cronjob): Jobs run pods to completion
# (controllers/job.py); CronJobs create them on schedule (controllers/cronjob.py).
RESOURCES += [
    Resource('batch', 'v1', 'jobs', 'Job', categories=('all',), subresources=('status',),
             defaulter=batch.default_job, validator=batch.validate_job, initial_status=empty_status,
             columns=tuple(tables.JOB)),
    Resource('batch', 'v1', 'cronjobs', 'CronJob', short_names=('cj',), categories=('all',),
             subresources=('status',), defaulter=batch.default_cronjob, validator=batch.validate_cronjob,
             initial_status=empty_status, columns=tuple(tables.CRON_JOB)),
]

# Volumes (pkg/registry/core/persistentvolume{,claim}, pkg/registry/storage/storageclass): claims are
# provisioned and bound by controllers/volume.py. APIServices (kube-aggregator's registry): stored and
# listed, the built-in ones registered at start; nothing is aggregated.
RESOURCES += [
    Resource('', 'v1', 'persistentvolumeclaims', 'PersistentVolumeClaim', short_names=('pvc',),
             subresources=('status',), generation=False, defaulter=storage.default_claim,
             validator=storage.validate_claim, initial_status=storage.claim_initial_status,
             columns=tuple(tables.PERSISTENT_VOLUME_CLAIM)),
    Resource('', 'v1', 'persistentvolumes', 'PersistentVolume', namespaced=False, short_names=('pv',),
             subresources=('status',), generation=False, defaulter=storage.default_volume,
             validator=storage.validate_volume, initial_status=storage.volume_initial_status,
             columns=tuple(tables.PERSISTENT_VOLUME)),
    Resource('storage.k8s.io', 'v1', 'storageclasses', 'StorageClass', namespaced=False, short_names=('sc',),
             generation=False, defaulter=storage.default_storage_class,
             validator=storage.validate_storage_class,
             columns=tuple(tables.STORAGE_CLASS)),
    Resource('apiregistration.k8s.io', 'v1', 'apiservices', 'APIService', namespaced=False,
             categories=('api-extensions',), subresources=('status',), generation=False,
             validator=apiregistration.validate, columns=tuple(tables.API_SERVICE)),
]
# The pods' connect subresources (pkg/registry/core/pod/rest/subresources.go, log.go): their verbs
# and kinds in discovery, as the installer lists a connecter's (create for POST, get for GET).
SUBRESOURCE_ENTRIES = {
    'pods/attach': {'kind': 'PodAttachOptions', 'verbs': ['create', 'get']},
    'pods/eviction': {'group': 'policy', 'version': 'v1', 'kind': 'Eviction', 'verbs': ['create']},
    'pods/exec': {'kind': 'PodExecOptions', 'verbs': ['create', 'get']},
    'pods/log': {'kind': 'Pod', 'verbs': ['get']},
    'pods/portforward': {'kind': 'PodPortForwardOptions', 'verbs': ['create', 'get']},
}

# The resources whose registry store sets `ReturnDeletedObject: true`
# (pkg/registry/core/{pod,service,serviceaccount,persistentvolume,persistentvolumeclaim}/storage and
# pkg/registry/storage/storageclass/storage): a DELETE that removes one at once answers the object as
# it was; every other store answers a Success Status naming it (the registry store's finalizeDelete).
RETURN_DELETED_OBJECT = frozenset({'/pods', '/services', '/serviceaccounts', '/persistentvolumes',
                                   '/persistentvolumeclaims', 'storage.k8s.io/storageclasses'})

# rbac.authorization.k8s.io/v1 (strategies/rbac.py: each row's one hook defaults, checks escalation
# and validates) and authorization.k8s.io/v1, whose reviews are answered and never stored
# (apiserver/authorization.py).
RESOURCES += [
    Resource('rbac.authorization.k8s.io', 'v1', 'clusterrolebindings', 'ClusterRoleBinding', namespaced=False,
             generation=False, defaulter=rbac_strategy.admit_cluster_role_binding,
             columns=tuple(tables.ROLE_BINDING)),
    Resource('rbac.authorization.k8s.io', 'v1', 'clusterroles', 'ClusterRole', namespaced=False,
             generation=False, defaulter=rbac_strategy.admit_cluster_role, columns=tuple(tables.ROLE)),
    Resource('rbac.authorization.k8s.io', 'v1', 'rolebindings', 'RoleBinding', generation=False,
             defaulter=rbac_strategy.admit_role_binding, columns=tuple(tables.ROLE_BINDING)),
    Resource('rbac.authorization.k8s.io', 'v1', 'roles', 'Role', generation=False,
             defaulter=rbac_strategy.admit_role, columns=tuple(tables.ROLE)),
    Resource('authorization.k8s.io', 'v1', 'localsubjectaccessreviews', 'LocalSubjectAccessReview',
             verbs=('create',), generation=False),
    Resource('authorization.k8s.io', 'v1', 'selfsubjectaccessreviews', 'SelfSubjectAccessReview',
             namespaced=False, verbs=('create',), generation=False),
    Resource('authorization.k8s.io', 'v1', 'selfsubjectrulesreviews', 'SelfSubjectRulesReview',
             namespaced=False, verbs=('create',), generation=False),
    Resource('authorization.k8s.io', 'v1', 'subjectaccessreviews', 'SubjectAccessReview',
             namespaced=False, verbs=('create',), generation=False),
]


# policy/v1, networking.k8s.io/v1, certificates.k8s.io/v1 and core/v1 LimitRange (strategies/policy.py,
# networking.py, certificates.py, limitrange.py; columns in tables_more.py); metrics.k8s.io/v1beta1
# is answered from the pods and nodes, never stored (handlers/metrics.py).
RESOURCES += [
    Resource('policy', 'v1', 'poddisruptionbudgets', 'PodDisruptionBudget', short_names=('pdb',),
             subresources=('status',), validator=policy.validate_pdb, initial_status=policy.initial_status,
             columns=tuple(tables_more.POD_DISRUPTION_BUDGET)),
    Resource('networking.k8s.io', 'v1', 'networkpolicies', 'NetworkPolicy', short_names=('netpol',),
             defaulter=networking.default_network_policy, validator=networking.validate_network_policy,
             columns=tuple(tables_more.NETWORK_POLICY)),
    Resource('networking.k8s.io', 'v1', 'ingresses', 'Ingress', short_names=('ing',),
             subresources=('status',),
             validator=networking.validate_ingress, initial_status=policy.initial_status,
             columns=tuple(tables_more.INGRESS)),
    Resource('networking.k8s.io', 'v1', 'ingressclasses', 'IngressClass', namespaced=False,
             defaulter=networking.default_ingress_class, validator=networking.validate_ingress_class,
             columns=tuple(tables_more.INGRESS_CLASS)),
    Resource('', 'v1', 'limitranges', 'LimitRange', short_names=('limits',), generation=False,
             defaulter=limitrange.default_limit_range, validator=limitrange.validate_limit_range,
             columns=tuple(tables_more.LIMIT_RANGE)),
    Resource('certificates.k8s.io', 'v1', 'certificatesigningrequests', 'CertificateSigningRequest',
             namespaced=False, short_names=('csr',), subresources=('approval', 'status'), generation=False,
             defaulter=certificates.prepare, validator=certificates.validate,
             initial_status=certificates.initial_status, update_subresource=certificates.update_subresource,
             columns=tuple(tables_more.CERTIFICATE_SIGNING_REQUEST)),
    Resource('metrics.k8s.io', 'v1beta1', 'pods', 'PodMetrics', verbs=('get', 'list'), generation=False),
    Resource('metrics.k8s.io', 'v1beta1', 'nodes', 'NodeMetrics', namespaced=False, verbs=('get', 'list'),
             generation=False),
]


def admit_row(row, obj, old):
    """Default ``obj`` in place and validate it with the hooks of ``row`` (the storage version's
    row of its resource); ``old`` is the stored object on updates. Raises a 422 listing every
    invalid field."""
    if row.defaulter is None and row.validator is None and row.initial_status is None:
        return
    if row.custom is None and row.validator is not None and not isinstance(obj.get('spec', {}), dict):
        raise ApiError.invalid(row.key, (obj.get('metadata') or {}).get('name', ''),
                               [('spec', 'FieldValueInvalid', 'Invalid value: must be an object')],
                               kind=row.qualified_kind)
    if row.defaulter is not None:
        row.defaulter(obj, old)
    if old is None and row.initial_status is not None:
        obj['status'] = row.initial_status(obj)
    if row.validator is None:
        return
    errs = Errors()
    if old is None and row.key != 'apiregistration.k8s.io/apiservices':  # its own name rule: `v1.` is one
        validate_name(errs, obj)
    validate_labels(errs, (obj.get('metadata') or {}).get('labels'), 'metadata.labels')
    validate_annotations_size(errs, (obj.get('metadata') or {}).get('annotations'))
    row.validator(obj, old, errs)
    errs.raise_if_any(row, obj)
    if row.after_admit is not None:
        row.after_admit(obj, old)


def encode_row(row, obj):
    """``obj`` as ``row``'s kind prints it: its encoder, else its Go type (typed.encode)."""
    if row.encoder is not None:
        return row.encoder(obj)
    return typed.encode(row.group, row.version, row.kind, obj)


class Registry:
    """The resources one API server serves: the built-in rows above and, added and removed while it
    runs, the rows of the custom resources its CustomResourceDefinitions define (one row per
    served version, apiextensions/handler.py). Each Store has its own (`store.registry`), so a CRD
    created in one KubeSim is served by that one only. The router, the store, discovery, OpenAPI,
    fault injection and the printer read it.

    `serve(crd_name, rows)` replaces what a CRD serves, `unserve(crd_name)` takes it away. A custom
    row never shadows a built-in one (the API server routes to built-in resources first)."""

    def __init__(self, builtin=None):
        self._builtin = tuple(RESOURCES if builtin is None else builtin)
        self._custom = {}  # CRD name -> rows
        self._reindex()

    def _reindex(self):
        builtin_paths = {(r.group, r.version, r.plural) for r in self._builtin}
        builtin_keys = {r.key for r in self._builtin}
        custom = [r for rows in self._custom.values() for r in rows
                  if (r.group, r.version, r.plural) not in builtin_paths and r.key not in builtin_keys]
        every = list(self._builtin) + custom
        # The served rows (routing, discovery, OpenAPI).
        self.rows = [r for r in every if r.served]
        # Store key -> the row of the version objects are stored in.
        self.by_key = {r.key: r for r in every if r.to_version is None}
        # (group, version, plural) -> Resource, for routing.
        self.by_path = {(r.group, r.version, r.plural): r for r in self.rows}
        groups = {}
        for r in self.rows:
            if r.group:
                groups.setdefault(r.group, set()).add(r.version)
        self._groups = {g: sorted(v) for g, v in sorted(groups.items())}

    def serve(self, crd_name, rows):
        self._custom[crd_name] = tuple(rows)
        self._reindex()

    def unserve(self, crd_name):
        if self._custom.pop(crd_name, None) is not None:
            self._reindex()

    def custom_rows(self):
        """Every row a CRD serves (served or not), by CRD name."""
        return dict(self._custom)

    def lookup(self, group, version, plural):
        return self.by_path.get((group, version, plural))

    def strategy(self, key):
        """The row for a resource key; a namespaced, generation-tracking row with no hooks for keys
        kubesim does not serve (unit tests store whatever they like)."""
        found = self.by_key.get(key)
        if found is None:
            group, _, plural = key.partition('/')
            found = Resource(group, 'v1', plural, plural)
        return found

    def groups(self):
        """Non-core group name -> sorted versions."""
        return self._groups

    def admit(self, key, obj, old):
        """The store's admission hook (`admit_row` with the row of ``key``)."""
        admit_row(self.strategy(key), obj, old)

    def encode(self, key, obj):
        """The store's encoder: ``obj`` as its kind prints it (`encode_row`)."""
        row = self.by_key.get(key)
        return obj if row is None else encode_row(row, obj)


# The built-in resources alone: what module-level code and unit tests without a store read.
BUILTIN = Registry()
BY_KEY = BUILTIN.by_key
# What the layers below look up by key or kind without importing the registry.
errors.QUALIFIED_KINDS.update((key, row.qualified_kind) for key, row in BY_KEY.items())
for _row in RESOURCES:
    typed.GROUPS_BY_KIND.setdefault(_row.kind, (_row.group, _row.version))
BY_PATH = BUILTIN.by_path
lookup = BUILTIN.lookup
strategy = BUILTIN.strategy
groups = BUILTIN.groups


def admit(key, obj, old):
    """The admission hook of the built-in resources (`Registry.admit`)."""
    BUILTIN.admit(key, obj, old)


def encode(key, obj):
    """The encoder of the built-in resources (`Registry.encode`)."""
    return BUILTIN.encode(key, obj)

"""PersistentVolumeClaims, PersistentVolumes (core/v1) and StorageClasses (storage.k8s.io/v1): their
strategies (pkg/registry/core/persistentvolumeclaim/strategy.go,
pkg/registry/core/persistentvolume/strategy.go, pkg/registry/storage/storageclass/strategy.go),
defaults (pkg/apis/core/v1/defaults.go, pkg/apis/storage/v1/defaults.go) and validation
(pkg/apis/core/validation: ValidatePersistentVolumeClaim, ValidatePersistentVolumeClaimUpdate,
ValidatePersistentVolume; pkg/apis/storage/validation: ValidateStorageClass), with the admission
plugins that look at claims: DefaultStorageClass
(plugin/pkg/admission/storage/storageclass/setdefault) and PersistentVolumeClaimResize
(plugin/pkg/admission/storage/persistentvolume/resize)."""

import copy

from ...machinery.clock import now_rfc3339
from ...machinery.errors import ApiError
from ...machinery.quantity import parse_quantity
from ...machinery.selectors import SUBDOMAIN_MSG
from .validation import DNS1123_LABEL

STORAGE_CLASSES = 'storage.k8s.io/storageclasses'
DEFAULT_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class'
BETA_DEFAULT_CLASS_ANNOTATION = 'storageclass.beta.kubernetes.io/is-default-class'
ACCESS_MODES = ('ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod')
VOLUME_MODES = ('Block', 'Filesystem')
RECLAIM_POLICIES = ('Delete', 'Recycle', 'Retain')
BINDING_MODES = ('Immediate', 'WaitForFirstConsumer')
# The store the admission checks read StorageClasses from (sim.py binds it).
_STORE = []


def bind_store(store):
    _STORE[:] = [store]


def _storage_class(name):
    return _STORE[0].get(STORAGE_CLASSES, '', name) if _STORE and name else None


def is_default_class(sc):
    annotations = (sc.get('metadata') or {}).get('annotations') or {}
    return annotations.get(DEFAULT_CLASS_ANNOTATION) == 'true' or \
        annotations.get(BETA_DEFAULT_CLASS_ANNOTATION) == 'true'


def claim_class(pvc):
    """GetPersistentVolumeClaimClass: the beta annotation, else spec.storageClassName, else ''."""
    annotations = (pvc.get('metadata') or {}).get('annotations') or {}
    if 'volume.beta.kubernetes.io/storage-class' in annotations:
        return annotations['volume.beta.kubernetes.io/storage-class']
    return (pvc.get('spec') or {}).get('storageClassName') or ''


def _quantity(errs, value, field):
    try:
        quantity = parse_quantity(value)
    except (ValueError, TypeError) as err:
        errs.invalid(field, value, str(err))
        return None
    return quantity


def _validate_access_modes(errs, modes, field):
    for mode in modes or []:
        if mode not in ACCESS_MODES:
            errs.unsupported(field, mode, ACCESS_MODES)
    if 'ReadWriteOncePod' in (modes or []) and any(m != 'ReadWriteOncePod' and m in ACCESS_MODES
                                                   for m in modes):
        errs.forbidden(field, 'may not use ReadWriteOncePod with other access modes')


def _validate_class_name(errs, name, field):
    if name and (len(name) > 253 or not all(DNS1123_LABEL.match(p) for p in name.split('.'))):
        errs.invalid(field, name, SUBDOMAIN_MSG)


# ---- PersistentVolumeClaim -------------------------------------------------------------------------
def default_claim(obj, old=None):
    """SetDefaults_PersistentVolumeClaimSpec: volumeMode Filesystem."""
    spec = obj.setdefault('spec', {})
    if isinstance(spec, dict) and spec.get('volumeMode') is None:
        spec['volumeMode'] = 'Filesystem'


def claim_initial_status(obj):
    """persistentvolumeclaimStrategy.PrepareForCreate: the status starts empty; the claim is
    Pending until the PV controller binds it."""
    return {'phase': 'Pending'}


def validate_claim_spec(errs, spec, path='spec'):
    """ValidatePersistentVolumeClaimSpec (also a StatefulSet's volumeClaimTemplates)."""
    spec = spec if isinstance(spec, dict) else {}
    if not spec.get('accessModes'):
        errs.required(f'{path}.accessModes', 'at least 1 access mode is required')
    _validate_access_modes(errs, spec.get('accessModes'), f'{path}.accessModes')
    requests = ((spec.get('resources') or {}).get('requests')) or {}
    field = f'{path}.resources[storage]'
    if 'storage' not in requests:
        errs.required(field)
    else:
        quantity = _quantity(errs, requests['storage'], field)
        if quantity is not None and quantity.value <= 0:
            errs.invalid(field, requests['storage'], 'must be greater than zero')
    _validate_class_name(errs, spec.get('storageClassName'), f'{path}.storageClassName')
    if spec.get('volumeMode') is not None and spec['volumeMode'] not in VOLUME_MODES:
        errs.unsupported(f'{path}.volumeMode', spec['volumeMode'], VOLUME_MODES)
    _validate_class_name(errs, spec.get('volumeAttributesClassName'), f'{path}.volumeAttributesClassName')


def _storage_request(pvc):
    raw = (((pvc.get('spec') or {}).get('resources') or {}).get('requests') or {}).get('storage')
    try:
        return parse_quantity(raw).value if raw is not None else None
    except (ValueError, TypeError):
        return None


def _spec_diff(old, new):
    """A short rendering of what differs, after cmp.Diff's headline (kubesim lists the fields)."""
    lines = ['  core.PersistentVolumeClaimSpec{']
    for key in sorted(set(old) | set(new)):
        if old.get(key) != new.get(key):
            lines.append(f'- \t{key[0].upper() + key[1:]}: {old.get(key)!r},')
            lines.append(f'+ \t{key[0].upper() + key[1:]}: {new.get(key)!r},')
    lines.append('  }')
    return '\n'.join(lines) + '\n'


def validate_claim(obj, old, errs):
    """ValidatePersistentVolumeClaim and, on updates, ValidatePersistentVolumeClaimUpdate: the spec
    is immutable but for `volumeName` set once, `resources.requests.storage` of a bound claim
    (never below the previous value) and `volumeAttributesClassName`; then the resize admission
    plugin: only a claim of a class with `allowVolumeExpansion` may grow."""
    spec = obj.get('spec') or {}
    validate_claim_spec(errs, spec)
    if old is None:
        return
    old_spec = old.get('spec') or {}
    new_clone, old_clone = copy.deepcopy(spec), copy.deepcopy(old_spec)
    if not old_spec.get('volumeName'):
        old_clone['volumeName'] = new_clone.get('volumeName')
        if old_clone.get('volumeName') is None:
            old_clone.pop('volumeName', None)
    if old_spec.get('storageClassName') is None and spec.get('storageClassName') is not None:
        old_clone['storageClassName'] = spec['storageClassName']
    bound = (obj.get('status') or {}).get('phase') == 'Bound'
    if bound and (new_clone.get('resources') or {}).get('requests') is not None:
        new_clone['resources']['requests']['storage'] = \
            ((old_spec.get('resources') or {}).get('requests') or {}).get('storage')
    new_clone['volumeAttributesClassName'] = old_clone.get('volumeAttributesClassName')
    if new_clone.get('volumeAttributesClassName') is None:
        new_clone.pop('volumeAttributesClassName', None)
    if new_clone != old_clone:
        errs.forbidden('spec', 'spec is immutable after creation except resources.requests and '
                               'volumeAttributesClassName for bound claims\n'
                               + _spec_diff(old_clone, new_clone))
    old_size, new_size = _storage_request(old), _storage_request(obj)
    if old_size is not None and new_size is not None and new_size < old_size:
        # RecoverVolumeExpansionFailure (GA): a request may come back down, not to the capacity.
        raw = ((old.get('status') or {}).get('capacity') or {}).get('storage')
        capacity = parse_quantity(raw).value if raw is not None else 0
        if new_size <= capacity:
            errs.forbidden('spec.resources.requests.storage', 'field can not be less than status.capacity')
    if spec.get('volumeMode') != old_spec.get('volumeMode'):
        errs.invalid('volumeMode', spec.get('volumeMode'), 'field is immutable')
    if not errs.causes and old_size is not None and new_size is not None and new_size > old_size:
        _admit_resize(obj, old)


def _admit_resize(pvc, old):
    """The PersistentVolumeClaimResize admission plugin: a claim grows only when it is bound to a
    volume its class provisioned and the class allows expansion."""
    name = pvc['metadata'].get('name', '')
    if (old.get('status') or {}).get('phase') != 'Bound':
        raise ApiError.forbidden_because('/persistentvolumeclaims', name,
                                         'Only bound persistent volume claims can be expanded')
    sc = _storage_class(claim_class(pvc))
    if sc is None or not sc.get('allowVolumeExpansion'):
        raise ApiError.forbidden_because(
            '/persistentvolumeclaims', name,
            'only dynamically provisioned pvc can be resized and the storageclass that provisions '
            'the pvc must support resize')


def admit_default_class(store, resource, obj, old):
    """DefaultStorageClass: a claim created without `storageClassName` (nil, not "") gets the
    default StorageClass's name (the newest default when several are marked)."""
    if resource != '/persistentvolumeclaims' or old is not None:
        return
    spec = obj.setdefault('spec', {})
    if not isinstance(spec, dict) or spec.get('storageClassName') is not None:
        return
    if 'volume.beta.kubernetes.io/storage-class' in ((obj.get('metadata') or {}).get('annotations') or {}):
        return
    defaults = [sc for sc in store.list(STORAGE_CLASSES) if is_default_class(sc)]
    if not defaults:
        return
    defaults.sort(key=lambda sc: (sc['metadata'].get('creationTimestamp', ''), sc['metadata']['name']))
    newest = max(sc['metadata'].get('creationTimestamp', '') for sc in defaults)
    chosen = sorted(sc['metadata']['name'] for sc in defaults
                    if sc['metadata'].get('creationTimestamp', '') == newest)[0]
    spec['storageClassName'] = chosen


# ---- PersistentVolume ------------------------------------------------------------------------------
VOLUME_SOURCES = ('gcePersistentDisk', 'awsElasticBlockStore', 'hostPath', 'glusterfs', 'nfs', 'rbd',
                  'iscsi', 'cinder', 'cephfs', 'fc', 'flocker', 'flexVolume', 'azureFile', 'vsphereVolume',
                  'quobyte', 'azureDisk', 'photonPersistentDisk', 'portworxVolume', 'scaleIO', 'local',
                  'storageos', 'csi')


def default_volume(obj, old=None):
    """SetDefaults_PersistentVolume: reclaim policy Retain, volumeMode Filesystem."""
    spec = obj.setdefault('spec', {})
    if not isinstance(spec, dict):
        return
    spec.setdefault('persistentVolumeReclaimPolicy', 'Retain')
    if spec.get('volumeMode') is None:
        spec['volumeMode'] = 'Filesystem'


def volume_initial_status(obj):
    """persistentvolumeStrategy.PrepareForCreate: Pending, with the phase's transition time."""
    return {'phase': 'Pending', 'lastPhaseTransitionTime': now_rfc3339()}


def validate_volume(obj, old, errs):
    """ValidatePersistentVolume's essentials: access modes and a storage capacity required, exactly
    one volume source, a supported reclaim policy; on updates the source is immutable."""
    spec = obj.get('spec') or {}
    if not spec.get('accessModes'):
        errs.required('spec.accessModes')
    _validate_access_modes(errs, spec.get('accessModes'), 'spec.accessModes')
    capacity = spec.get('capacity') or {}
    if not capacity:
        errs.required('spec.capacity')
    elif 'storage' not in capacity or len(capacity) > 1:
        errs.unsupported('spec.capacity', sorted(capacity), ['storage'])
    else:
        quantity = _quantity(errs, capacity['storage'], 'spec.capacity[storage]')
        if quantity is not None and quantity.value <= 0:
            errs.invalid('spec.capacity[storage]', capacity['storage'], 'must be greater than zero')
    policy = spec.get('persistentVolumeReclaimPolicy')
    if policy and policy not in RECLAIM_POLICIES:
        errs.unsupported('spec.persistentVolumeReclaimPolicy', policy, RECLAIM_POLICIES)
    _validate_class_name(errs, spec.get('storageClassName'), 'spec.storageClassName')
    sources = [s for s in VOLUME_SOURCES if spec.get(s) is not None]
    if not sources:
        errs.required('spec', 'must specify a volume type')
    elif len(sources) > 1:
        errs.forbidden(f'spec.{sources[1]}', 'may not specify more than 1 volume type')
    if spec.get('volumeMode') is not None and spec['volumeMode'] not in VOLUME_MODES:
        errs.unsupported('spec.volumeMode', spec['volumeMode'], VOLUME_MODES)
    if old is not None:
        old_spec = old.get('spec') or {}
        if {s: spec.get(s) for s in VOLUME_SOURCES} != {s: old_spec.get(s) for s in VOLUME_SOURCES}:
            errs.forbidden('spec.persistentvolumesource', 'spec.persistentvolumesource is immutable after '
                                                         'creation')
        if spec.get('volumeMode') != old_spec.get('volumeMode'):
            errs.invalid('volumeMode', spec.get('volumeMode'), 'field is immutable')


# ---- StorageClass ----------------------------------------------------------------------------------
def default_storage_class(obj, old=None):
    """SetDefaults_StorageClass: reclaimPolicy Delete, volumeBindingMode Immediate."""
    if obj.get('reclaimPolicy') is None:
        obj['reclaimPolicy'] = 'Delete'
    if obj.get('volumeBindingMode') is None:
        obj['volumeBindingMode'] = 'Immediate'


def validate_storage_class(obj, old, errs):
    """ValidateStorageClass and ValidateStorageClassUpdate: a provisioner required (a qualified
    name), a supported reclaim policy and binding mode; parameters, provisioner and reclaim policy
    immutable."""
    provisioner = obj.get('provisioner') or ''
    if not provisioner:
        errs.required('provisioner')
    elif len(provisioner) > 63 and '/' not in provisioner:
        errs.invalid('provisioner', provisioner, 'must be no more than 63 characters')
    if obj.get('reclaimPolicy') not in RECLAIM_POLICIES[:1] + RECLAIM_POLICIES[2:]:
        errs.unsupported('reclaimPolicy', obj.get('reclaimPolicy'), ('Delete', 'Retain'))
    if obj.get('volumeBindingMode') not in BINDING_MODES:
        errs.unsupported('volumeBindingMode', obj.get('volumeBindingMode'), BINDING_MODES)
    if old is None:
        return
    if (obj.get('parameters') or {}) != (old.get('parameters') or {}):
        errs.forbidden('parameters', 'updates to parameters are forbidden.')
    if provisioner != old.get('provisioner'):
        errs.forbidden('provisioner', 'updates to provisioner are forbidden.')
    if obj.get('reclaimPolicy') != old.get('reclaimPolicy'):
        errs.forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.')
    if obj.get('volumeBindingMode') != old.get('volumeBindingMode'):
        errs.forbidden('volumeBindingMode', 'field is immutable')


DEFAULT_CLASS = {
    'apiVersion': 'storage.k8s.io/v1', 'kind': 'StorageClass',
    'metadata': {'name': 'standard', 'annotations': {DEFAULT_CLASS_ANNOTATION: 'true'}},
    'provisioner': 'kubesim.io/hostpath', 'reclaimPolicy': 'Delete', 'volumeBindingMode': 'Immediate',
}



PVC_PROTECTION = 'kubernetes.io/pvc-protection'
PV_PROTECTION = 'kubernetes.io/pv-protection'


def admit_protection(store, resource, obj, old):
    """StorageObjectInUseProtection (plugin/pkg/admission/storage/storageobjectinuseprotection):
    every new claim gets the `kubernetes.io/pvc-protection` finalizer, every new volume
    `kubernetes.io/pv-protection`; the protection controllers remove them once unused."""
    finalizer = {'/persistentvolumeclaims': PVC_PROTECTION, '/persistentvolumes': PV_PROTECTION}.get(resource)
    if finalizer is None or old is not None:
        return
    finalizers = obj['metadata'].setdefault('finalizers', [])
    if finalizer not in finalizers:
        finalizers.append(finalizer)

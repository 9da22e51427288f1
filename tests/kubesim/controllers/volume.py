"""The volume controllers of kube-controller-manager, for claims of kubesim's own provisioner: the
PV controller (pkg/controller/volume/persistentvolume: pv_controller.go binds claims and volumes,
reclaims released volumes; its provisioning half stands in for an external provisioner), the
volume expander (pkg/controller/volume/expand) and the protection controllers
(pkg/controller/volume/pvcprotection, pkg/controller/volume/pvprotection).

A claim whose StorageClass has the provisioner `kubesim.io/hostpath` and binding mode Immediate
gets a volume `pvc-<claim uid>`: capacity the claim's request, its access modes and volume mode,
the class's reclaim policy, a `hostPath` under /var/lib/kubesim/volumes, a `claimRef` to the claim,
annotated `pv.kubernetes.io/provisioned-by`. Then both are bound: the claim gets `volumeName`,
`status.phase: Bound` with the volume's capacity and access modes and the annotations
`pv.kubernetes.io/bind-completed`, `pv.kubernetes.io/bound-by-controller` and
`volume.kubernetes.io/storage-provisioner`; the volume `status.phase: Bound`. A claim of a class
that does not exist, or of another provisioner, stays Pending (`ProvisioningFailed` or
`ExternalProvisioning` events). When a bound claim is gone its volume is Released, then, with
reclaim policy Delete, deleted; Retain keeps it Released. A bound claim whose request grows (its
class allows expansion) has its volume and `status.capacity` grown.

Protection: a claim being deleted keeps its `kubernetes.io/pvc-protection` finalizer (and stays
Terminating) while a pod that is not finished uses it; a volume being deleted keeps
`kubernetes.io/pv-protection` while it is Bound.
"""

from ..apiserver.recorders import CONTROLLER_MANAGER, recorder
from ..machinery.clock import now_rfc3339
from ..apiserver.strategies.storage import PV_PROTECTION, PVC_PROTECTION, STORAGE_CLASSES, claim_class
from ..machinery.errors import ApiError
from ..machinery.quantity import parse_quantity
from .common import is_deleting, name_of, ns_of, uid_of
from .events import NORMAL, WARNING

PROVISIONER = 'kubesim.io/hostpath'
CLAIMS, VOLUMES = '/persistentvolumeclaims', '/persistentvolumes'
COMPONENT = 'persistentvolume-controller'
BIND_COMPLETED = 'pv.kubernetes.io/bind-completed'
BOUND_BY_CONTROLLER = 'pv.kubernetes.io/bound-by-controller'
PROVISIONED_BY = 'pv.kubernetes.io/provisioned-by'
STORAGE_PROVISIONER = 'volume.kubernetes.io/storage-provisioner'
BETA_STORAGE_PROVISIONER = 'volume.beta.kubernetes.io/storage-provisioner'


def claim_names(pod):
    """The claims a pod's volumes name."""
    return [(v.get('persistentVolumeClaim') or {}).get('claimName')
            for v in (pod.get('spec') or {}).get('volumes') or [] if v.get('persistentVolumeClaim')]


def _size(raw):
    try:
        return parse_quantity(raw).value if raw is not None else None
    except (ValueError, TypeError):
        return None


class VolumeController:
    resource = CLAIMS

    def __init__(self, mgr):
        self.mgr = mgr
        self.store = mgr.store

    def sync_all(self, objects=None):
        for claim in self.mgr.index.list(CLAIMS):
            self.mgr.guard('PersistentVolumeClaim', claim, self.sync_claim, claim)
        for volume in self.mgr.index.list(VOLUMES):
            self.mgr.guard('PersistentVolume', volume, self.sync_volume, volume)

    def _write(self, resource, obj, subresource=None):
        return self.store.update(resource, obj, subresource=subresource,
                                 manager=recorder(resource, CONTROLLER_MANAGER, subresource or ''))

    # ---- claims ----------------------------------------------------------------------------------
    def in_use(self, claim):
        for pod in self.mgr.index.list('/pods', ns_of(claim)):
            if (pod.get('status') or {}).get('phase') in ('Succeeded', 'Failed'):
                continue
            if name_of(claim) in claim_names(pod):
                return True
        return False

    def sync_claim(self, claim):
        meta = claim['metadata']
        if is_deleting(claim):
            if PVC_PROTECTION in (meta.get('finalizers') or []) and not self.in_use(claim):
                meta['finalizers'] = [f for f in meta['finalizers'] if f != PVC_PROTECTION]
                self._write(CLAIMS, claim)
            return
        spec = claim.get('spec') or {}
        if spec.get('volumeName'):
            self.expand(claim)
            return
        class_name = claim_class(claim)
        if not class_name:
            return  # waits for a matching pre-made volume (kubesim binds none)
        sc = self.store.get(STORAGE_CLASSES, '', class_name)
        if sc is None:
            self.mgr.events.record(claim, WARNING, 'ProvisioningFailed',
                                   f'storageclass.storage.k8s.io "{class_name}" not found', COMPONENT)
            return
        if sc.get('provisioner') != PROVISIONER:
            self.mgr.events.record(claim, NORMAL, 'ExternalProvisioning',
                                   'Waiting for a volume to be created either by the external provisioner '
                                   f"'{sc.get('provisioner')}' or manually by the system administrator. If "
                                   'volume creation is delayed, please verify that the provisioner is '
                                   'running and correctly registered.', COMPONENT)
            return
        if sc.get('volumeBindingMode', 'Immediate') != 'Immediate':
            return
        volume = self.store.get(VOLUMES, '', f'pvc-{uid_of(claim)}') or self.provision(claim, sc)
        self.bind(claim, volume)

    def provision(self, claim, sc):
        """The provisioner's work: the volume, pre-bound to the claim."""
        annotations = claim['metadata'].setdefault('annotations', {})
        if annotations.get(STORAGE_PROVISIONER) != PROVISIONER:
            annotations[STORAGE_PROVISIONER] = annotations[BETA_STORAGE_PROVISIONER] = PROVISIONER
            claim.update(self._write(CLAIMS, claim))
        name = f'pvc-{uid_of(claim)}'
        spec = claim.get('spec') or {}
        request = ((spec.get('resources') or {}).get('requests') or {}).get('storage')
        volume = {
            'apiVersion': 'v1', 'kind': 'PersistentVolume',
            'metadata': {'name': name, 'annotations': {PROVISIONED_BY: PROVISIONER}},
            'spec': {'capacity': {'storage': request},
                     'hostPath': {'path': f'/var/lib/kubesim/volumes/{name}', 'type': ''},
                     'accessModes': list(spec.get('accessModes') or []),
                     'claimRef': self.claim_ref(claim),
                     'persistentVolumeReclaimPolicy': sc.get('reclaimPolicy') or 'Delete',
                     'storageClassName': name_of(sc), 'volumeMode': spec.get('volumeMode') or 'Filesystem'},
        }
        created = self.store.create(VOLUMES, volume, manager=recorder(VOLUMES, CONTROLLER_MANAGER))
        self.mgr.events.record(claim, NORMAL, 'ProvisioningSucceeded',
                               f'Successfully provisioned volume {name} using {PROVISIONER}', COMPONENT)
        return created

    @staticmethod
    def claim_ref(claim):
        return {'kind': 'PersistentVolumeClaim', 'namespace': ns_of(claim), 'name': name_of(claim),
                'uid': uid_of(claim), 'apiVersion': 'v1',
                'resourceVersion': claim['metadata'].get('resourceVersion', '')}

    def bind(self, claim, volume):
        """bindVolumeToClaim, then bindClaimToVolume and their statuses (pv_controller.go bind)."""
        if (volume.get('status') or {}).get('phase') != 'Bound':
            volume['status'] = {'phase': 'Bound', 'lastPhaseTransitionTime': now_rfc3339()}
            volume = self._write(VOLUMES, volume, 'status')
        claim = self.store.get(CLAIMS, ns_of(claim), name_of(claim))
        annotations = claim['metadata'].setdefault('annotations', {})
        annotations[BIND_COMPLETED] = 'yes'
        annotations[BOUND_BY_CONTROLLER] = 'yes'
        claim['spec']['volumeName'] = name_of(volume)
        claim = self._write(CLAIMS, claim)
        claim['status'] = {'phase': 'Bound', 'accessModes': list(volume['spec'].get('accessModes') or []),
                           'capacity': dict(volume['spec'].get('capacity') or {})}
        self._write(CLAIMS, claim, 'status')

    def expand(self, claim):
        """The volume expander, for a bound claim of a class that allows it: the volume and the
        claim's capacity follow a grown request."""
        wanted = ((claim['spec'].get('resources') or {}).get('requests') or {}).get('storage')
        have = ((claim.get('status') or {}).get('capacity') or {}).get('storage')
        if (claim.get('status') or {}).get('phase') != 'Bound' or _size(wanted) is None \
                or _size(have) is None or _size(wanted) <= _size(have):
            return
        volume = self.store.get(VOLUMES, '', claim['spec']['volumeName'])
        if volume is None:
            return
        if _size((volume['spec'].get('capacity') or {}).get('storage')) != _size(wanted):
            volume['spec']['capacity'] = {'storage': wanted}
            self._write(VOLUMES, volume)
        claim['status']['capacity'] = {'storage': wanted}
        self._write(CLAIMS, claim, 'status')

    # ---- volumes ---------------------------------------------------------------------------------
    def sync_volume(self, volume):
        meta, spec = volume['metadata'], volume.get('spec') or {}
        phase = (volume.get('status') or {}).get('phase')
        if is_deleting(volume):
            if PV_PROTECTION in (meta.get('finalizers') or []) and phase != 'Bound':
                meta['finalizers'] = [f for f in meta['finalizers'] if f != PV_PROTECTION]
                self._write(VOLUMES, volume)
            return
        ref = spec.get('claimRef')
        if not ref:
            if phase != 'Available':
                volume['status'] = {'phase': 'Available', 'lastPhaseTransitionTime': now_rfc3339()}
                self._write(VOLUMES, volume, 'status')
            return
        claim = self.store.get(CLAIMS, ref.get('namespace', ''), ref.get('name', ''))
        if claim is not None and (not ref.get('uid') or uid_of(claim) == ref.get('uid')):
            return
        if phase == 'Bound':
            volume['status'] = {'phase': 'Released', 'lastPhaseTransitionTime': now_rfc3339()}
            volume = self._write(VOLUMES, volume, 'status')
            phase = 'Released'
        if phase == 'Released' and spec.get('persistentVolumeReclaimPolicy') == 'Delete':
            try:
                self.store.delete(VOLUMES, '', name_of(volume))
            except ApiError as err:
                if err.code != 404:
                    raise

"""The EndpointSlice controller (pkg/controller/endpointslice/endpointslice_controller.go, with the
reconciler and helpers of staging/src/k8s.io/endpointslice: reconciler.go, utils.go, and
pkg/api/v1/pod/util.go's FindPort).

For each Service with a selector (not ExternalName) it keeps EndpointSlices named
`<service>-<5 chars>` (generateName), owned by the Service (a controller reference: the garbage
collector deletes them with it), labelled `kubernetes.io/service-name` and
`endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io` (and the Service's own
labels, and `service.kubernetes.io/headless` for a headless Service), one address type per
family in the Service's `ipFamilies`. Every selected pod that has an IP and has not finished is
one endpoint (terminating pods included), with the conditions `podToEndpoint` gives; pods whose
ports resolve alike share slices of at most `MAX_ENDPOINTS_PER_SLICE`. As the reconciler does,
changed slices are rewritten with their endpoints replaced in place, new endpoints fill the
slices being rewritten first, then an unchanged slice they fit in, then new slices; a slice whose
ports no pod has any more is deleted (or recycled for a slice to create); a Service with no
endpoint keeps one empty placeholder slice. Slices of a Service that loses its selector are left
as they are, as the controller returns early for it.

The controller is driven by controllers/endpointqueue.py (the informers' indexes and the queue
both endpoint controllers share).
"""

import json

from ..apiserver.recorders import CONTROLLER_MANAGER, recorder
from ..machinery.errors import ApiError
from .common import is_pod_ready, labels_of, name_of, ns_of, pod_phase, random_suffix, uid_of

RESOURCE = 'discovery.k8s.io/endpointslices'
LABEL_SERVICE_NAME = 'kubernetes.io/service-name'
LABEL_MANAGED_BY = 'endpointslice.kubernetes.io/managed-by'
LABEL_HEADLESS = 'service.kubernetes.io/headless'
CONTROLLER_NAME = 'endpointslice-controller.k8s.io'
TRIGGER_TIME = 'endpoints.kubernetes.io/last-change-trigger-time'
# kube-controller-manager --max-endpoints-per-slice
MAX_ENDPOINTS_PER_SLICE = 100


# ---- pods as endpoints ---------------------------------------------------------------------------
def find_port(pod, service_port):
    """podutil.FindPort: a numeric targetPort as it is; a named one is the container port of that
    name and the Service port's protocol (regular containers, then sidecars); None when the pod
    has no such port."""
    target = service_port.get('targetPort')
    if isinstance(target, int) and not isinstance(target, bool):
        return target
    if not isinstance(target, str):
        return None
    protocol = service_port.get('protocol', 'TCP')
    spec = pod.get('spec') or {}
    sidecars = [c for c in spec.get('initContainers') or [] if c.get('restartPolicy') == 'Always']
    for container in (spec.get('containers') or []) + sidecars:
        for port in container.get('ports') or []:
            if port.get('name') == target and port.get('protocol', 'TCP') == protocol:
                return port.get('containerPort')
    return None


def should_pod_be_in_endpoints(pod, include_terminating):
    """endpointsliceutil.ShouldPodBeInEndpoints: not finished, has an IP, and (unless
    ``include_terminating``) not being deleted."""
    if pod_phase(pod) in ('Succeeded', 'Failed'):
        return False
    status = pod.get('status') or {}
    if not status.get('podIP') and not status.get('podIPs'):
        return False
    return include_terminating or not pod['metadata'].get('deletionTimestamp')


def should_set_hostname(pod, service):
    """endpointsliceutil.ShouldSetHostname: the pod's hostname, when its subdomain is the Service."""
    spec = pod.get('spec') or {}
    return bool(spec.get('hostname')) and spec.get('subdomain') == name_of(service) \
        and ns_of(pod) == ns_of(service)


def pod_addresses(pod, address_type):
    """getEndpointAddresses: the pod's IPs of the slice's family."""
    out = []
    for entry in (pod.get('status') or {}).get('podIPs') or []:
        ip = entry.get('ip', '')
        if (':' in ip) == (address_type == 'IPv6'):
            out.append(ip)
    return out


def pod_to_endpoint(pod, service, address_type):
    """podToEndpoint: serving is the pod's readiness, terminating its deletion, ready is
    `publishNotReadyAddresses || (serving && !terminating)`."""
    serving = is_pod_ready(pod)
    terminating = bool(pod['metadata'].get('deletionTimestamp'))
    ready = bool((service.get('spec') or {}).get('publishNotReadyAddresses')) or (serving and not terminating)
    endpoint = {'addresses': pod_addresses(pod, address_type),
                'conditions': {'ready': ready, 'serving': serving, 'terminating': terminating}}
    if should_set_hostname(pod, service):
        endpoint['hostname'] = pod['spec']['hostname']
    endpoint['targetRef'] = {'kind': 'Pod', 'namespace': ns_of(pod), 'name': name_of(pod), 'uid': uid_of(pod)}
    node = (pod.get('spec') or {}).get('nodeName')
    if node:
        endpoint['nodeName'] = node
    return endpoint


def endpoint_ports(service, pod):
    """getEndpointPorts: each Service port the pod resolves (FindPort), named as the Service port
    (`""` when unnamed); a port the pod lacks is left out."""
    spec = service.get('spec') or {}
    out = []
    for port in spec.get('ports') or []:
        number = find_port(pod, port)
        if number is None:
            continue
        entry = {'name': port.get('name') or '', 'protocol': port.get('protocol', 'TCP'), 'port': number}
        if port.get('appProtocol') is not None:
            entry['appProtocol'] = port['appProtocol']
        out.append(entry)
    return out


def address_types(service):
    """getAddressTypesForService: one per family in `ipFamilies`."""
    families = (service.get('spec') or {}).get('ipFamilies') or []
    return [f for f in families if f in ('IPv4', 'IPv6')] or ['IPv4']


def slice_labels(service, current=None):
    """setEndpointSliceLabels: the Service's labels (but the two the controller owns), the
    headless label, the service name and the manager."""
    labels = {k: v for k, v in (current or {}).items() if k in (LABEL_SERVICE_NAME, LABEL_MANAGED_BY)}
    for key, value in labels_of(service).items():
        if key not in (LABEL_SERVICE_NAME, LABEL_MANAGED_BY, LABEL_HEADLESS):
            labels[key] = value
    if (service.get('spec') or {}).get('clusterIP') == 'None':
        labels[LABEL_HEADLESS] = ''
    labels[LABEL_SERVICE_NAME] = name_of(service)
    labels[LABEL_MANAGED_BY] = CONTROLLER_NAME
    return labels


def _ports_key(ports):
    return json.dumps(ports or [], sort_keys=True)


def _endpoint_key(endpoint):
    ref = endpoint.get('targetRef') or {}
    return ref.get('uid') or json.dumps(endpoint.get('addresses'))


class EndpointSliceController:
    def __init__(self, store, max_per_slice=MAX_ENDPOINTS_PER_SLICE):
        self.store = store
        self.max = max_per_slice
        self.writes = 0  # slice creates, updates and deletes (a measure of the work)

    def sync(self, service, pods, slices, trigger_time):
        """Reconcile the Service's managed ``slices`` (stored objects, not changed here) with
        ``pods`` (its selected pods); ``trigger_time`` is the `last-change-trigger-time`
        annotation's value (None: none)."""
        by_type = {}
        for es in slices:
            if es['metadata'].get('deletionTimestamp'):
                continue  # dropEndpointSlicesPendingDeletion
            if not any(ref.get('uid') == uid_of(service) and ref.get('controller')
                       for ref in es['metadata'].get('ownerReferences') or []):
                self._delete(es)  # not this Service's (ownedBy)
                continue
            by_type.setdefault(es.get('addressType'), []).append(es)
        wanted = address_types(service)
        for address_type, existing in by_type.items():
            if address_type not in wanted:
                for es in existing:
                    self._delete(es)
        for address_type in wanted:
            self._reconcile(service, pods, by_type.get(address_type, []), address_type, trigger_time)

    def _reconcile(self, service, pods, existing, address_type, trigger_time):
        desired = {}  # ports key -> (ports, {endpoint key: endpoint})
        for pod in sorted(pods, key=name_of):
            if not should_pod_be_in_endpoints(pod, True):
                continue
            endpoint = pod_to_endpoint(pod, service, address_type)
            if not endpoint['addresses']:
                continue
            ports = endpoint_ports(service, pod)
            entry = desired.setdefault(_ports_key(ports), (ports, {}))
            entry[1][_endpoint_key(endpoint)] = endpoint
        labels = slice_labels(service)
        to_update, to_delete, unchanged = [], [], []
        for es in sorted(existing, key=name_of):
            key = _ports_key(es.get('ports'))
            if key not in desired:
                to_delete.append(es)
                continue
            left = desired[key][1]
            endpoints, changed = [], False
            for endpoint in es.get('endpoints') or []:
                fresh = left.pop(_endpoint_key(endpoint), None)
                if fresh is None:
                    changed = True
                    continue
                changed = changed or fresh != endpoint
                endpoints.append(fresh)
            if changed or slice_labels(service, labels_of(es)) != labels_of(es):
                to_update.append((es, endpoints))
            else:
                unchanged.append(es)
        to_create = []
        for key, (ports, left) in desired.items():
            pending = list(left.values())
            if not pending:
                continue
            # Fill the slices being rewritten (the fullest first), then an unchanged one the rest
            # fits in, then new slices.
            for _es, endpoints in sorted((u for u in to_update if _ports_key(u[0].get('ports')) == key),
                                         key=lambda u: -len(u[1])):
                room = self.max - len(endpoints)
                endpoints.extend(pending[:room])
                pending = pending[room:]
            while pending:
                fits = [es for es in unchanged if _ports_key(es.get('ports')) == key
                        and len(es.get('endpoints') or []) + len(pending) <= self.max] \
                    if len(pending) < self.max else []
                if fits:
                    es = max(fits, key=lambda s: len(s.get('endpoints') or []))
                    unchanged.remove(es)
                    to_update.append((es, list(es.get('endpoints') or []) + pending))
                    pending = []
                else:
                    to_create.append((ports, pending[:self.max]))
                    pending = pending[self.max:]
        if len(existing) == len(to_delete) and not to_create:
            # The placeholder: a Service with no endpoint keeps one empty slice.
            placeholder = [es for es in to_delete if not es.get('endpoints') and not es.get('ports')]
            if len(to_delete) == 1 and placeholder:
                to_delete = []
                if slice_labels(service, labels_of(placeholder[0])) != labels_of(placeholder[0]):
                    to_update.append((placeholder[0], []))
            else:
                to_create.append(([], []))
        # Recycle slices to delete for slices to create (fewer writes, as finalize() does).
        while to_create and to_delete:
            ports, endpoints = to_create.pop()
            es = to_delete.pop()
            es = dict(es, ports=ports)
            to_update.append((es, endpoints))
        for ports, endpoints in to_create:
            self._create(service, address_type, ports, endpoints, labels, trigger_time)
        for es, endpoints in to_update:
            self._update(service, es, endpoints, labels, trigger_time)
        for es in to_delete:
            self._delete(es)

    @staticmethod
    def _annotate(meta, trigger_time):
        annotations = dict(meta.get('annotations') or {})
        if trigger_time:
            annotations[TRIGGER_TIME] = trigger_time
        else:
            annotations.pop(TRIGGER_TIME, None)
        if annotations:
            meta['annotations'] = annotations
        else:
            meta.pop('annotations', None)

    def _create(self, service, address_type, ports, endpoints, labels, trigger_time):
        prefix = f'{name_of(service)}-'
        if len(prefix) > 253 - 5:
            prefix = 'endpointslice-'
        meta = {'generateName': prefix, 'namespace': ns_of(service), 'labels': dict(labels),
                'ownerReferences': [{'apiVersion': 'v1', 'kind': 'Service', 'name': name_of(service),
                                     'uid': uid_of(service), 'controller': True, 'blockOwnerDeletion': True}]}
        self._annotate(meta, trigger_time)
        body = {'apiVersion': 'discovery.k8s.io/v1', 'kind': 'EndpointSlice', 'metadata': meta,
                'addressType': address_type, 'endpoints': endpoints or None, 'ports': ports or None}
        for _ in range(10):
            meta['name'] = prefix + random_suffix()
            try:
                self.store.create(RESOURCE, body, manager=recorder(RESOURCE, CONTROLLER_MANAGER))
                self.writes += 1
                return
            except ApiError as err:
                if err.code != 409:
                    raise

    def _update(self, service, es, endpoints, labels, trigger_time):
        new = dict(es, endpoints=endpoints or None, ports=es.get('ports') or None)
        meta = new['metadata'] = dict(es['metadata'])
        meta['labels'] = slice_labels(service, labels_of(es))
        self._annotate(meta, trigger_time)
        self.store.update(RESOURCE, new, manager=recorder(RESOURCE, CONTROLLER_MANAGER))
        self.writes += 1

    def _delete(self, es):
        try:
            self.store.delete(RESOURCE, ns_of(es), name_of(es), preconditions={'uid': uid_of(es)})
            self.writes += 1
        except ApiError:
            pass

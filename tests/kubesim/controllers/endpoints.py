"""The Endpoints controller (pkg/controller/endpoint/endpoints_controller.go, with
pkg/api/v1/endpoints/util.go's RepackSubsets): the legacy core/v1 Endpoints of each Service with
a selector, named as the Service, without an owner (the controller deletes it when the Service
goes), labelled with the Service's labels (plus `service.kubernetes.io/headless: ""` for a
headless Service).

A selected pod that has an IP and has not finished is an address, ready (`addresses`) when the pod
is Ready or the Service publishes not-ready addresses, else in `notReadyAddresses`; a pod being
deleted is left out unless the Service publishes not-ready addresses (the EndpointSlice
controller keeps it, as a terminating endpoint). Each Service port the pod resolves
(`FindPort`) is an endpoint port; subsets are repacked so that addresses offering the same
ports share one. The `endpoints.kubernetes.io/last-change-trigger-time` annotation carries the
trigger time (the Service's creation on its first sync, else the earliest pod readiness change
not yet written); over 1000 addresses are truncated with `endpoints.kubernetes.io/over-capacity:
truncated`.

Ordering: within a subset addresses are sorted by IP (then pod UID), as SortSubsets does; subsets
and ports are sorted by their first address and port name where Go orders them by a hash of their
printed form (the set is the same; only the order can differ from a cluster's).
"""

from ..apiserver.recorders import CONTROLLER_MANAGER, recorder
from ..machinery.errors import ApiError
from .common import is_pod_ready, labels_of, name_of, ns_of, uid_of
from .endpointslice import (LABEL_HEADLESS, TRIGGER_TIME, find_port, should_pod_be_in_endpoints,
                            should_set_hostname)

RESOURCE = '/endpoints'
OVER_CAPACITY = 'endpoints.kubernetes.io/over-capacity'
MAX_CAPACITY = 1000


def pod_address(pod, service):
    """podToEndpointAddressForService: the pod's IP of the Service's family, its node, a
    reference to it; None when it has no IP of that family."""
    families = (service.get('spec') or {}).get('ipFamilies') or ['IPv4']
    want_v6 = families[0] == 'IPv6'
    for entry in (pod.get('status') or {}).get('podIPs') or []:
        ip = entry.get('ip', '')
        if (':' in ip) == want_v6:
            address = {'ip': ip}
            if should_set_hostname(pod, service):
                address['hostname'] = pod['spec']['hostname']
            address['nodeName'] = (pod.get('spec') or {}).get('nodeName', '')
            address['targetRef'] = {'kind': 'Pod', 'namespace': ns_of(pod), 'name': name_of(pod),
                                    'uid': uid_of(pod)}
            return address
    return None


def _port_tuple(port):
    return (port.get('name', ''), port.get('port'), port.get('protocol', ''), port.get('appProtocol'))


def repack(entries):
    """RepackSubsets: ``entries`` are (address, ready, ports) per pod and port; addresses offering
    the same set of ports end up in one subset."""
    by_port = {}  # port tuple (None: no ports) -> {address key: (address, ready)}
    for address, ready, port in entries:
        key = (address['ip'], address.get('targetRef', {}).get('uid'))
        by_port.setdefault(_port_tuple(port) if port else None, {})[key] = (address, ready)
    by_addresses = {}  # frozenset of (key, ready) -> ports
    sets = {}
    for port, addresses in by_port.items():
        signature = frozenset((k, ready) for k, (_a, ready) in addresses.items())
        sets[signature] = addresses
        ports = by_addresses.setdefault(signature, [])
        if port is not None:
            ports.append(port)
    subsets = []
    for signature, ports in by_addresses.items():
        addresses = sets[signature]
        ordered = sorted(addresses.items(), key=lambda item: item[0])
        subset = {}
        ready = [a for _k, (a, r) in ordered if r]
        not_ready = [a for _k, (a, r) in ordered if not r]
        if ready:
            subset['addresses'] = ready
        if not_ready:
            subset['notReadyAddresses'] = not_ready
        if ports:
            subset['ports'] = [_port_dict(p) for p in sorted(ports, key=lambda p: (p[0], p[1], p[2]))]
        subsets.append(subset)
    subsets.sort(key=lambda s: ((s.get('addresses') or s.get('notReadyAddresses') or [{}])[0].get('ip', ''),
                                [p.get('name', '') for p in s.get('ports') or []]))
    return subsets


def _port_dict(port):
    name, number, protocol, app_protocol = port
    out = {'name': name, 'port': number, 'protocol': protocol}
    if app_protocol is not None:
        out['appProtocol'] = app_protocol
    if not name:
        del out['name']
    return out


def truncate(subsets):
    """truncateEndpoints: over MAX_CAPACITY addresses, keep the ready ones first, shared out over
    the subsets in proportion (rounded up). Returns whether it truncated."""
    total_ready = sum(len(s.get('addresses') or []) for s in subsets)
    total_not_ready = sum(len(s.get('notReadyAddresses') or []) for s in subsets)
    if total_ready + total_not_ready <= MAX_CAPACITY:
        return False
    truncate_ready = total_ready > MAX_CAPACITY
    limit = MAX_CAPACITY if truncate_ready else MAX_CAPACITY - total_ready
    total = total_ready if truncate_ready else total_not_ready
    can_add = limit
    for subset in subsets:
        key = 'addresses' if truncate_ready else 'notReadyAddresses'
        count = len(subset.get(key) or [])
        share = min(-(-count * limit // total), can_add) if total else 0
        subset[key] = (subset.get(key) or [])[:share]
        if truncate_ready:
            subset.pop('notReadyAddresses', None)
        can_add -= len(subset[key])
        if not subset[key]:
            del subset[key]
    return True


class EndpointsController:
    def __init__(self, store):
        self.store = store
        self.writes = 0

    def desired_subsets(self, service, pods):
        spec = service.get('spec') or {}
        publish = bool(spec.get('publishNotReadyAddresses'))
        entries = []
        for pod in sorted(pods, key=name_of):
            if not should_pod_be_in_endpoints(pod, publish):
                continue
            address = pod_address(pod, service)
            if address is None:
                continue
            ready = publish or is_pod_ready(pod)
            if not spec.get('ports'):
                if spec.get('clusterIP') == 'None':
                    entries.append((address, ready, None))
                continue
            for port in spec['ports']:
                number = find_port(pod, port)
                if number is None:
                    continue
                entries.append((address, ready, {'name': port.get('name') or '', 'port': number,
                                                 'protocol': port.get('protocol', 'TCP'),
                                                 'appProtocol': port.get('appProtocol')}))
        return repack(entries)

    def sync(self, service, pods, current, trigger_time):
        """``current``: the stored Endpoints (or None); ``trigger_time`` as for the slices."""
        subsets = self.desired_subsets(service, pods)
        labels = dict(labels_of(service))
        compare = {k: v for k, v in labels_of(current or {'metadata': {}}).items() if k != LABEL_HEADLESS}
        over = sum(len(s.get('addresses') or []) + len(s.get('notReadyAddresses') or []) for s in subsets) \
            > MAX_CAPACITY
        annotations = ((current or {}).get('metadata') or {}).get('annotations') or {}
        if current is not None and (current.get('subsets') or []) == subsets and compare == labels \
                and (OVER_CAPACITY in annotations) == over:
            return
        meta = dict((current or {}).get('metadata') or {})
        meta.update(name=name_of(service), namespace=ns_of(service))
        annotations = dict(annotations)
        if trigger_time:
            annotations[TRIGGER_TIME] = trigger_time
        else:
            annotations.pop(TRIGGER_TIME, None)
        if truncate(subsets):
            annotations[OVER_CAPACITY] = 'truncated'
        else:
            annotations.pop(OVER_CAPACITY, None)
        if (service.get('spec') or {}).get('clusterIP') == 'None':
            labels[LABEL_HEADLESS] = ''
        meta['labels'] = labels
        meta['annotations'] = annotations
        for key in ('labels', 'annotations'):
            if not meta[key]:
                del meta[key]
        body = {'apiVersion': 'v1', 'kind': 'Endpoints', 'metadata': meta, 'subsets': subsets}
        if current is None:
            self.store.create(RESOURCE, body, manager=recorder(RESOURCE, CONTROLLER_MANAGER))
        else:
            self.store.update(RESOURCE, body, manager=recorder(RESOURCE, CONTROLLER_MANAGER))
        self.writes += 1

    def delete(self, namespace, name):
        """The Service is gone: so are its Endpoints."""
        try:
            self.store.delete(RESOURCE, namespace, name)
            self.writes += 1
        except ApiError:
            pass

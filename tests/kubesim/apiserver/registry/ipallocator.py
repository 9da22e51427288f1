"""The Service registry's allocators (pkg/registry/core/service/ipallocator,
pkg/registry/core/service/portallocator, and the create path of
pkg/registry/core/service/storage/alloc.go): cluster IPs from the service range and node ports
from the node port range, held while a Service holds them and released when it goes.

`ServiceAllocator` follows the stored Services (a store listener): what they hold is allocated.
Its `admit` is the store's mutating admission step for Service creates, run where the registry's
BeginCreate runs (after the create handler's field manager, so nothing it sets is a manager's):
`normalizeClusterIPs`, `initIPFamilyFields` (with ValidateServiceClusterIPsRelatedFields), then
`allocClusterIPs` and `initNodePorts`.

Dynamic allocation: as the allocator does with its reserved lower band (KEP-3070), a free address
is picked from the upper part of the range, from a random offset (a generator seeded per store,
so one run hands out the same addresses), the lower band (the first 256 addresses) only once the
upper is full; a requested address anywhere in the range is honoured when free, so the lower band
is what static addresses should use. The first address, 10.96.0.1, is the `kubernetes` Service's.
"""

import ipaddress
import random

from ...machinery.errors import ApiError
from ..strategies import service as svc_strategy

# min(max(16, size/16), 256) addresses at the bottom are kept for static allocation.
LOWER_BAND = 256


class ServiceAllocator:
    def __init__(self, store, cidr=svc_strategy.SERVICE_CIDR, seed=0):
        self.store = store
        self.cidr = cidr
        self.base = int(cidr.network_address) + 1  # the network address is never handed out
        self.size = cidr.num_addresses - 2  # nor the broadcast address
        self.ips = {}  # ip text -> (namespace, name)
        self.node_ports = {}  # (port, protocol) -> (namespace, name)
        self._rng = random.Random(seed)
        for (resource, namespace, name), obj in store.objects.items():
            if resource == '/services':
                self._hold(namespace, name, obj)

    def attach(self):
        self.store.listeners.append(self._on_event)
        self.store.mutating_admission.append(self.admit)
        return self

    # ---- following the stored Services ---------------------------------------------------------
    def _held(self, spec):
        ips = [ip for ip in spec.get('clusterIPs') or [] if ip not in ('', 'None')]
        ports = [(p.get('nodePort'), p.get('protocol')) for p in spec.get('ports') or []
                 if isinstance(p, dict) and p.get('nodePort')]
        return ips, ports

    def _hold(self, namespace, name, obj):
        ips, ports = self._held(obj.get('spec') or {})
        for ip in ips:
            self.ips[ip] = (namespace, name)
        for port in ports:
            self.node_ports[port] = (namespace, name)

    def _release(self, namespace, name):
        for table in (self.ips, self.node_ports):
            for key in [k for k, owner in table.items() if owner == (namespace, name)]:
                del table[key]

    def _on_event(self, event_type, resource, obj):
        if resource != '/services':
            return
        meta = obj['metadata']
        namespace, name = meta.get('namespace', ''), meta['name']
        self._release(namespace, name)
        if event_type != 'DELETED':
            self._hold(namespace, name, obj)

    # ---- allocation ----------------------------------------------------------------------------
    def _in_range(self, ip):
        value = int(ipaddress.ip_address(ip))
        return self.base <= value < self.base + self.size

    def _next_ip(self):
        upper = self.size - LOWER_BAND
        start = self._rng.randrange(upper)
        for step in range(upper):
            ip = str(ipaddress.ip_address(self.base + LOWER_BAND + (start + step) % upper))
            if ip not in self.ips:
                return ip
        for offset in range(LOWER_BAND):
            ip = str(ipaddress.ip_address(self.base + offset))
            if ip not in self.ips:
                return ip
        raise ApiError(500, 'InternalError', 'Internal error occurred: failed to allocate a serviceIP: '
                                             'range is full')

    def _next_node_port(self, protocol):
        low, high = svc_strategy.NODE_PORT_RANGE
        span = high - low + 1
        start = self._rng.randrange(span)
        for step in range(span):
            port = low + (start + step) % span
            if (port, protocol) not in self.node_ports:
                return port
        raise ApiError(500, 'InternalError', 'Internal error occurred: failed to allocate a nodePort: '
                                             'range is full')

    def admit(self, store, resource, obj, old):
        """The registry's BeginCreate for Services: IP family fields, cluster IPs, node ports;
        422 when a requested address is taken or outside the range."""
        if resource != '/services' or old is not None:
            return
        spec = obj.setdefault('spec', {})
        name = (obj.get('metadata') or {}).get('name', '')
        svc_strategy.normalize_cluster_ips(spec)
        causes = svc_strategy.init_ip_families(obj)
        if causes:
            raise ApiError.invalid(resource, name, causes)
        if spec.get('type') != 'ExternalName' and not svc_strategy.is_headless(obj):
            self._allocate_ips(resource, name, spec)
        node_ports = spec.get('type') == 'NodePort' or (
            spec.get('type') == 'LoadBalancer' and spec.get('allocateLoadBalancerNodePorts', True))
        if node_ports:
            self._allocate_node_ports(resource, name, spec)

    def _allocate_ips(self, resource, name, spec):
        cluster_ips = spec.setdefault('clusterIPs', [])
        while len(cluster_ips) < len(spec.get('ipFamilies') or []):
            cluster_ips.append('')
        for i, ip in enumerate(cluster_ips):
            if not ip:
                cluster_ips[i] = self._next_ip()
                continue
            if not self._in_range(ip):
                reason = (f'the provided IP ({ip}) is not in the valid range. The range of valid IPs '
                          f'is {self.cidr}')
            elif ip in self.ips:
                reason = 'provided IP is already allocated'
            else:
                continue
            listed = svc_strategy.go_strings(cluster_ips)
            raise ApiError.invalid(resource, name, [(
                'spec.clusterIPs', 'FieldValueInvalid',
                f'Invalid value: {listed}: failed to allocate IP {ip}: {reason}')])
        if cluster_ips:
            spec['clusterIP'] = cluster_ips[0]

    def _allocate_node_ports(self, resource, name, spec):
        low, high = svc_strategy.NODE_PORT_RANGE
        for i, port in enumerate(spec.get('ports') or []):
            if not isinstance(port, dict):
                continue
            wanted = port.get('nodePort')
            protocol = port.get('protocol', 'TCP')
            if not wanted:
                port['nodePort'] = self._next_node_port(protocol)
            elif not low <= wanted <= high:
                raise ApiError.invalid(resource, name, [(
                    f'spec.ports[{i}].nodePort', 'FieldValueInvalid',
                    f'Invalid value: {wanted}: provided port is not in the valid range. The range of valid '
                    f'ports is {low}-{high}')])
            elif (wanted, protocol) in self.node_ports:
                raise ApiError.invalid(resource, name, [(
                    f'spec.ports[{i}].nodePort', 'FieldValueInvalid',
                    f'Invalid value: {wanted}: provided port is already allocated')])

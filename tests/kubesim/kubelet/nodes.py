"""The Nodes kubesim runs, as their kubelets register them and report their status
(pkg/kubelet/kubelet_node_status.go and pkg/kubelet/nodestatus): capacity, conditions,
addresses, node info."""

import uuid

from ..apiserver.discovery import SERVER_VERSION
from ..machinery.clock import now_rfc3339

NODE_LABELS = {'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64'}


def node_manifest(index):
    name = f'node-{index}'
    node_id = uuid.uuid5(uuid.NAMESPACE_DNS, f'{name}.kubesim')
    boot_id = uuid.uuid4()
    now = now_rfc3339()
    conditions = [
        {'type': t, 'status': 'False', 'lastHeartbeatTime': now, 'lastTransitionTime': now,
         'reason': reason, 'message': msg}
        for t, reason, msg in (
            ('MemoryPressure', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
            ('DiskPressure', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
            ('PIDPressure', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
        )
    ]
    conditions.append({'type': 'Ready', 'status': 'True', 'lastHeartbeatTime': now,
                       'lastTransitionTime': now, 'reason': 'KubeletReady',
                       'message': 'kubelet is posting ready status'})
    resources = {'cpu': '4', 'memory': '8Gi', 'pods': '110', 'ephemeral-storage': '100Gi'}
    return {
        'apiVersion': 'v1', 'kind': 'Node',
        'metadata': {'name': name, 'labels': {**NODE_LABELS, 'kubernetes.io/hostname': name}},
        'spec': {'podCIDR': f'10.244.{index}.0/24', 'podCIDRs': [f'10.244.{index}.0/24']},
        'status': {
            'conditions': conditions,
            'addresses': [{'type': 'InternalIP', 'address': f'10.0.0.{10 + index}'},
                          {'type': 'Hostname', 'address': name}],
            'capacity': dict(resources), 'allocatable': dict(resources),
            'daemonEndpoints': {'kubeletEndpoint': {'Port': 10250}},
            # Everything the kubelet reports (NodeSystemInfo; kubeProxyVersion is no longer set).
            'nodeInfo': {'machineID': node_id.hex, 'systemUUID': str(node_id), 'bootID': str(boot_id),
                         'kernelVersion': '6.8.0-kubesim', 'osImage': 'kubesim',
                         'containerRuntimeVersion': 'containerd://2.1.0',
                         'kubeletVersion': SERVER_VERSION['gitVersion'], 'kubeProxyVersion': '',
                         'operatingSystem': 'linux', 'architecture': 'amd64'},
            'runtimeHandlers': [{'name': name, 'features': {'recursiveReadOnlyMounts': True,
                                                            'userNamespaces': True}}
                                for name in ('', 'runc')],
            'features': {'supplementalGroupsPolicy': True},
        },
    }


def node_is_ready(node):
    for cond in (node.get('status') or {}).get('conditions') or []:
        if cond.get('type') == 'Ready':
            return cond.get('status') == 'True'
    return False


def node_ip(node):
    for addr in (node.get('status') or {}).get('addresses') or []:
        if addr.get('type') == 'InternalIP':
            return addr.get('address')
    return '10.0.0.1'

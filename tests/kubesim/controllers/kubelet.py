"""Nodes, a scheduler and a kubelet stand-in: pods get a node, then start after `ready_delay`.

A pod whose images (init containers too) all pull becomes Running and Ready `ready_delay` real
seconds after it was created. A pod with an image matching `fail_image` stays Pending forever with
its container waiting in `ImagePullBackOff`, as a pod with a bad image does on a real node.
"""

import copy
import hashlib

from ..errors import ApiError
from ..store import now_rfc3339
from .common import name_of, ns_of, pod_phase

NODE_LABELS = {'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64'}


def node_manifest(index):
    name = f'node-{index}'
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
            'nodeInfo': {'kubeletVersion': 'v1.31.0', 'containerRuntimeVersion': 'containerd://1.7.0',
                         'operatingSystem': 'linux', 'architecture': 'amd64',
                         'osImage': 'kubesim', 'kernelVersion': '6.0.0'},
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


def _condition(cond_type, status, now, reason=None, message=None):
    cond = {'type': cond_type, 'status': status, 'lastProbeTime': None, 'lastTransitionTime': now}
    if reason:
        cond['reason'] = reason
    if message:
        cond['message'] = message
    return cond


class Kubelet:
    def __init__(self, mgr):
        self.mgr = mgr
        self.store = mgr.store
        self._ips = {}  # node name -> last host octet handed out

    def ensure_nodes(self, count):
        for index in range(1, count + 1):
            manifest = node_manifest(index)
            if self.store.get('/nodes', '', manifest['metadata']['name']) is None:
                status = manifest.pop('status')
                created = self.store.create('/nodes', manifest)
                created['status'] = status
                self.store.update('/nodes', created, subresource='status')

    def failing_images(self, pod):
        pattern = self.mgr.fail_image
        if pattern is None:
            return set()
        spec = pod.get('spec') or {}
        containers = (spec.get('initContainers') or []) + (spec.get('containers') or [])
        return {c.get('image', '') for c in containers if pattern.search(c.get('image', ''))}

    def sync(self):
        index = self.mgr.index
        nodes = {name_of(n): n for n in index.peek('/nodes') if node_is_ready(n)}
        pods = index.peek('/pods')
        load = {}
        for pod in pods:
            node = (pod.get('spec') or {}).get('nodeName')
            if node:
                load[node] = load.get(node, 0) + 1
        for pod in pods:
            if self._settled(pod):
                continue
            try:
                self._sync_pod(copy.deepcopy(pod), nodes, load)
            except ApiError:
                continue  # deleted or changed under us; the next pass sees the new state

    def _settled(self, pod):
        """Nothing left to do for this pod (checked on the stored object, without copying it)."""
        status = pod.get('status') or {}
        if pod['metadata'].get('deletionTimestamp') or status.get('phase') in ('Succeeded', 'Failed'):
            return True
        if not (pod.get('spec') or {}).get('nodeName'):
            return False
        if status.get('phase') == 'Running':
            return True
        return status.get('phase') == 'Pending' and bool(status.get('containerStatuses'))

    def _sync_pod(self, pod, nodes, load):
        spec = pod.get('spec') or {}
        node_name = spec.get('nodeName')
        if not node_name:
            if not nodes:
                return
            node_name = min(nodes, key=lambda n: (load.get(n, 0), n))
            load[node_name] = load.get(node_name, 0) + 1
            pod['spec']['nodeName'] = node_name
            pod = self.store.update('/pods', pod)
        node = nodes.get(node_name)
        if node is None:
            return  # bound to a node that does not exist (or is not ready): stays Pending
        created = self.mgr.pods.created_at(pod)
        if created is not None and self.mgr.clock() < created + self.mgr.ready_delay:
            self._set_status(pod, self._pending_status(pod))
            self.mgr.wake_at(created + self.mgr.ready_delay)
            return
        failing = self.failing_images(pod)
        if failing:
            if not (pod.get('status') or {}).get('containerStatuses'):
                self._set_status(pod, self._backoff_status(pod, node, failing))
        elif pod_phase(pod) != 'Running':
            self._set_status(pod, self._running_status(pod, node))

    def _set_status(self, pod, status):
        if status == pod.get('status'):
            return
        self.store.update('/pods', {'metadata': {'name': name_of(pod), 'namespace': ns_of(pod)},
                                    'status': status}, subresource='status')

    def _pending_status(self, pod):
        status = dict(pod.get('status') or {})
        status.setdefault('phase', 'Pending')
        status.setdefault('qosClass', 'BestEffort')
        if not any(c.get('type') == 'PodScheduled' for c in status.get('conditions') or []):
            status['conditions'] = list(status.get('conditions') or []) + [
                _condition('PodScheduled', 'True', now_rfc3339())]
        return status

    def _pod_ip(self, node):
        name = name_of(node)
        octet = self._ips.get(name, 1) + 1
        if octet > 254:
            octet = 2
        self._ips[name] = octet
        index = name.rsplit('-', 1)[-1]
        index = index if index.isdigit() else '0'
        return f'10.244.{index}.{octet}'

    def _base_status(self, pod, node, phase, now):
        old = pod.get('status') or {}
        host_ip = node_ip(node)
        status = {'phase': phase, 'hostIP': host_ip, 'hostIPs': [{'ip': host_ip}],
                  'startTime': old.get('startTime') or now, 'qosClass': old.get('qosClass', 'BestEffort')}
        return status

    def _running_status(self, pod, node):
        now = now_rfc3339()
        spec = pod.get('spec') or {}
        status = self._base_status(pod, node, 'Running', now)
        ip = self._pod_ip(node)
        status['podIP'] = ip
        status['podIPs'] = [{'ip': ip}]
        status['conditions'] = [
            _condition('PodReadyToStartContainers', 'True', now),
            _condition('Initialized', 'True', now),
            _condition('Ready', 'True', now),
            _condition('ContainersReady', 'True', now),
            _condition('PodScheduled', 'True', now),
        ]
        status['containerStatuses'] = [self._container_running(c, now) for c in spec.get('containers') or []]
        if spec.get('initContainers'):
            status['initContainerStatuses'] = [self._container_completed(c, now)
                                               for c in spec['initContainers']]
        return status

    def _backoff_status(self, pod, node, failing):
        now = now_rfc3339()
        spec = pod.get('spec') or {}
        status = self._base_status(pod, node, 'Pending', now)
        inits = spec.get('initContainers') or []
        init_blocked = any(c.get('image') in failing for c in inits)
        bad = [c['name'] for c in spec.get('containers') or [] if init_blocked or c.get('image') in failing]
        conditions = [_condition('PodReadyToStartContainers', 'True', now)]
        if init_blocked:
            names = [c['name'] for c in inits if c.get('image') in failing]
            conditions.append(_condition('Initialized', 'False', now, 'ContainersNotInitialized',
                                         f'containers with incomplete status: [{" ".join(names)}]'))
        else:
            conditions.append(_condition('Initialized', 'True', now))
        message = f'containers with unready status: [{" ".join(bad)}]'
        conditions += [_condition('Ready', 'False', now, 'ContainersNotReady', message),
                       _condition('ContainersReady', 'False', now, 'ContainersNotReady', message),
                       _condition('PodScheduled', 'True', now)]
        status['conditions'] = conditions
        containers = []
        for c in spec.get('containers') or []:
            if c.get('image') in failing:
                containers.append(self._container_backoff(c))
            elif init_blocked:
                containers.append(self._container_waiting(c, 'PodInitializing'))
            else:
                containers.append(self._container_running(c, now))
        status['containerStatuses'] = containers
        if inits:
            status['initContainerStatuses'] = [
                self._container_backoff(c) if c.get('image') in failing else self._container_completed(c, now)
                for c in inits]
        return status

    @staticmethod
    def _ids(container):
        image = container.get('image', '')
        digest = hashlib.sha256(image.encode()).hexdigest()
        repo = image.split('@')[0].rsplit(':', 1)[0] if ':' in image.rsplit('/', 1)[-1] else image
        return f'{repo}@sha256:{digest}', 'containerd://' + hashlib.sha256(
            (image + container.get('name', '')).encode()).hexdigest()

    def _container_running(self, container, now):
        image_id, container_id = self._ids(container)
        return {'name': container['name'], 'image': container.get('image', ''), 'imageID': image_id,
                'containerID': container_id, 'ready': True, 'started': True, 'restartCount': 0,
                'state': {'running': {'startedAt': now}}, 'lastState': {}}

    def _container_completed(self, container, now):
        image_id, container_id = self._ids(container)
        return {'name': container['name'], 'image': container.get('image', ''), 'imageID': image_id,
                'containerID': container_id, 'ready': True, 'started': False, 'restartCount': 0,
                'state': {'terminated': {'exitCode': 0, 'reason': 'Completed', 'startedAt': now,
                                         'finishedAt': now, 'containerID': container_id}},
                'lastState': {}}

    @staticmethod
    def _container_backoff(container):
        image = container.get('image', '')
        return {'name': container['name'], 'image': image, 'imageID': '', 'ready': False,
                'started': False, 'restartCount': 0, 'lastState': {},
                'state': {'waiting': {'reason': 'ImagePullBackOff',
                                      'message': f'Back-off pulling image "{image}"'}}}

    @staticmethod
    def _container_waiting(container, reason):
        return {'name': container['name'], 'image': container.get('image', ''), 'imageID': '',
                'ready': False, 'started': False, 'restartCount': 0, 'lastState': {},
                'state': {'waiting': {'reason': reason}}}

"""The pod statuses the kubelet writes (pkg/kubelet/kubelet_pods.go, generateAPIPodStatus, and the
status manager): Pending until it starts, Running and Ready, ImagePullBackOff, an in-place
resize taken, a terminal status once its containers stopped; the conditions and container
statuses of each."""

import copy
import hashlib

from ..machinery.clock import now_rfc3339
from ..controllers.common import name_of
from .nodes import node_ip


def new_condition(cond_type, status, now, reason=None, message=None):
    cond = {'type': cond_type, 'status': status, 'lastProbeTime': None, 'lastTransitionTime': now}
    if reason:
        cond['reason'] = reason
    if message:
        cond['message'] = message
    return cond


def set_readiness(status, now):
    """Pod Ready/ContainersReady from the container statuses (transition times kept when unchanged)."""
    not_ready = [cs['name'] for cs in status.get('containerStatuses') or [] if not cs.get('ready')]
    conditions = []
    for cond in status.get('conditions') or []:
        if cond.get('type') in ('Ready', 'ContainersReady'):
            want = 'False' if not_ready else 'True'
            if cond.get('status') != want:
                cond = new_condition(cond['type'], want, now, *(
                    ('ContainersNotReady', f'containers with unready status: [{" ".join(not_ready)}]')
                    if not_ready else ()))
        conditions.append(cond)
    status['conditions'] = conditions


def running_resources(container):
    """The cpu and memory a running container is given (its status `resources`): what its spec asks."""
    out = {}
    for key in ('requests', 'limits'):
        values = {k: v for k, v in ((container.get('resources') or {}).get(key) or {}).items()
                  if k in ('cpu', 'memory')}
        if values:
            out[key] = values
    return out


def resize_pending(pod):
    """A running container of ``pod`` asks for other cpu or memory than it runs with."""
    spec = {c.get('name'): c for c in (pod.get('spec') or {}).get('containers') or []}
    for cs in (pod.get('status') or {}).get('containerStatuses') or []:
        container = spec.get(cs.get('name'))
        if (container is not None and 'running' in (cs.get('state') or {})
                and running_resources(container) != (cs.get('resources') or {})):
            return True
    return False


class StatusMixin:
    """The kubelet's status builders."""

    # ---- in-place resize -------------------------------------------------------------------------
    def _resized_status(self, pod):
        """Actuate an in-place resize (the pod's spec resources changed through `pods/resize`): each
        running container whose cpu or memory differ from what it runs with takes them at once; when
        its `resizePolicy` says `RestartContainer` for a resource that changed, the container is
        restarted (stopped cleanly: `lastState.terminated` exit 0 `Completed`, `restartCount` + 1)
        and Ready again at once, as no back-off applies to it. No new pod, no new revision."""
        status = copy.deepcopy(pod.get('status') or {})
        stamp = now_rfc3339()
        spec = {c.get('name'): c for c in (pod.get('spec') or {}).get('containers') or []}
        for cs in status.get('containerStatuses') or []:
            container = spec.get(cs.get('name'))
            if container is None or 'running' not in (cs.get('state') or {}):
                continue
            wanted = running_resources(container)
            have = cs.get('resources') or {}
            if wanted == have:
                continue
            changed = {name for key in ('requests', 'limits')
                       for name in set((wanted.get(key) or {})) | set((have.get(key) or {}))
                       if (wanted.get(key) or {}).get(name) != (have.get(key) or {}).get(name)}
            if wanted:
                cs['resources'] = wanted
            else:
                cs.pop('resources', None)
            restart = any(p.get('resourceName') in changed and p.get('restartPolicy') == 'RestartContainer'
                          for p in container.get('resizePolicy') or [])
            if restart:
                started = cs['state']['running'].get('startedAt', stamp)
                cs['lastState'] = {'terminated': {
                    'exitCode': 0, 'reason': 'Completed', 'startedAt': started, 'finishedAt': stamp,
                    'containerID': cs.get('containerID', '')}}
                cs['restartCount'] = cs.get('restartCount', 0) + 1
                cs['state'] = {'running': {'startedAt': stamp}}
        return status

    # ---- termination -----------------------------------------------------------------------------
    @staticmethod
    def _stopped_status(pod, killed):
        now = now_rfc3339()
        status = copy.deepcopy(pod.get('status') or {})
        code, reason = (137, 'Error') if killed else (0, 'Completed')
        succeeded = True
        for key in ('initContainerStatuses', 'containerStatuses'):
            for cs in status.get(key) or []:
                current = cs.get('state') or {}
                if 'running' in current:
                    started = current['running'].get('startedAt', now)
                    cs['state'] = {'terminated': {'exitCode': code, 'reason': reason, 'startedAt': started,
                                                  'finishedAt': now,
                                                  'containerID': cs.get('containerID', '')}}
                    succeeded = succeeded and code == 0
                elif key == 'containerStatuses' and 'terminated' not in current:
                    succeeded = False
                cs['ready'] = False
                if key == 'containerStatuses':
                    cs['started'] = False
        status['phase'] = 'Succeeded' if succeeded and status.get('containerStatuses') else 'Failed'
        conditions = []
        for cond in status.get('conditions') or []:
            if cond.get('type') in ('Ready', 'ContainersReady'):
                cond = new_condition(cond['type'], 'False', now, 'PodCompleted')
            elif cond.get('type') == 'PodReadyToStartContainers':
                cond = new_condition(cond['type'], 'False', now)
            conditions.append(cond)
        status['conditions'] = conditions
        return status

    # ---- starting and running --------------------------------------------------------------------
    def _pending_status(self, pod):
        status = dict(pod.get('status') or {})
        status.setdefault('phase', 'Pending')
        status.setdefault('qosClass', 'BestEffort')
        if not any(c.get('type') == 'PodScheduled' and c.get('status') == 'True'
                   for c in status.get('conditions') or []):
            others = [c for c in status.get('conditions') or [] if c.get('type') != 'PodScheduled']
            status['conditions'] = others + [new_condition('PodScheduled', 'True', now_rfc3339())]
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
            new_condition('PodReadyToStartContainers', 'True', now),
            new_condition('Initialized', 'True', now),
            new_condition('Ready', 'True', now),
            new_condition('ContainersReady', 'True', now),
            new_condition('PodScheduled', 'True', now),
        ]
        status['containerStatuses'] = [self._container_running(c, now) for c in spec.get('containers') or []]
        if spec.get('initContainers'):
            status['initContainerStatuses'] = [self._container_completed(c, now)
                                               for c in spec['initContainers']]
        if pod['metadata'].get('uid') in self.probe_failing:
            # A failing readiness probe (fault injection): running, not ready.
            for cs in status['containerStatuses']:
                cs['ready'] = False
            set_readiness(status, now)
        return status

    def _backoff_status(self, pod, node, failing):
        now = now_rfc3339()
        spec = pod.get('spec') or {}
        status = self._base_status(pod, node, 'Pending', now)
        inits = spec.get('initContainers') or []
        init_blocked = any(c.get('image') in failing for c in inits)
        bad = [c['name'] for c in spec.get('containers') or [] if init_blocked or c.get('image') in failing]
        conditions = [new_condition('PodReadyToStartContainers', 'True', now)]
        if init_blocked:
            names = [c['name'] for c in inits if c.get('image') in failing]
            conditions.append(new_condition('Initialized', 'False', now, 'ContainersNotInitialized',
                                         f'containers with incomplete status: [{" ".join(names)}]'))
        else:
            conditions.append(new_condition('Initialized', 'True', now))
        message = f'containers with unready status: [{" ".join(bad)}]'
        conditions += [new_condition('Ready', 'False', now, 'ContainersNotReady', message),
                       new_condition('ContainersReady', 'False', now, 'ContainersNotReady', message),
                       new_condition('PodScheduled', 'True', now)]
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
        status = {'name': container['name'], 'image': container.get('image', ''), 'imageID': image_id,
                  'containerID': container_id, 'ready': True, 'started': True, 'restartCount': 0,
                  'state': {'running': {'startedAt': now}}, 'lastState': {}}
        resources = running_resources(container)
        if resources:
            status['resources'] = resources
        return status

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

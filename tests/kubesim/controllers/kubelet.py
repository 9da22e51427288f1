"""Nodes, a scheduler and a kubelet stand-in: pods get a node, then start after `ready_delay`.

The scheduler binds a pod to the ready node with the fewest pods among those where it fits: the
node's `status.allocatable` cpu, memory and pods must cover what the pods already bound there
request plus this pod's requests (limits stand in for unset requests), and `nodeSelector` must
match the node's labels. A pod that fits nowhere stays Pending with `PodScheduled=False`, reason
`Unschedulable`, and a `FailedScheduling` event carrying the scheduler's message
("0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No
preemption victims found for incoming pod."); it is bound once it fits.

A pod whose images (init containers too) all pull becomes Running and Ready `ready_delay` real
seconds after it was created. A pod with an image matching `fail_image` stays Pending forever with
its container waiting in `ImagePullBackOff` (events `Failed` and `BackOff`), as a pod with a bad
image does on a real node. A container whose image matches `crash_image` runs for `crash_after`
real seconds, exits with code 1, is restarted at once the first time, then after a back-off of 10 s
doubling up to 5 minutes (on the controller clock, so `time_scale` shortens it) during which it
waits in `CrashLoopBackOff` and a `BackOff` event is recorded; `restartCount` counts the restarts
and `lastState.terminated` describes the last exit.
"""

import copy
import hashlib
import uuid
from fractions import Fraction

from ..apiserver.discovery import SERVER_VERSION
from ..machinery.errors import ApiError
from ..apiserver.fieldmanager import KUBELET as KUBELET_MANAGER, recorder
from ..machinery.quantity import parse_quantity
from ..apiserver.registry.store import now_rfc3339
from .common import name_of, ns_of, pod_phase, uid_of
from .events import NORMAL, WARNING
from .programs import Program, program

SCHEDULER = 'default-scheduler'
KUBELET = 'kubelet'
# The kubelet's container restart back-off: 10 s doubling up to 5 minutes.
BACKOFF_INITIAL, BACKOFF_MAX = 10, 300
CRASH_EXIT_CODE = 1

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


def _condition(cond_type, status, now, reason=None, message=None):
    cond = {'type': cond_type, 'status': status, 'lastProbeTime': None, 'lastTransitionTime': now}
    if reason:
        cond['reason'] = reason
    if message:
        cond['message'] = message
    return cond


def pod_requests(pod):
    """The cpu and memory a pod asks for: containers summed, at least its largest init container;
    a container's limit stands in for an unset request (as API defaulting fills it in)."""
    spec = pod.get('spec') or {}
    out = {}
    for name in ('cpu', 'memory'):
        def value(container, name=name):
            resources = container.get('resources') or {}
            raw = (resources.get('requests') or {}).get(name, (resources.get('limits') or {}).get(name))
            try:
                return parse_quantity(raw).value if raw is not None else Fraction(0)
            except ValueError:
                return Fraction(0)
        total = sum((value(c) for c in spec.get('containers') or []), Fraction(0))
        for c in spec.get('initContainers') or []:
            total = max(total, value(c))
        out[name] = total
    return out


def _requirement_matches(req, value):
    op, values = req.get('operator'), req.get('values') or []
    if op == 'In':
        return value is not None and value in values
    if op == 'NotIn':
        return value is None or value not in values
    if op == 'Exists':
        return value is not None
    if op == 'DoesNotExist':
        return value is None
    if op in ('Gt', 'Lt') and value is not None and len(values) == 1:
        try:
            actual, bound = int(value), int(values[0])
        except ValueError:
            return False
        return actual > bound if op == 'Gt' else actual < bound
    return False


def matches_node_selector(required, node):
    """A required node-affinity NodeSelector: terms are ORed; a term's matchExpressions (labels)
    and matchFields (only metadata.name) are ANDed; no terms matches nothing, no selector all."""
    if not required:
        return True
    labels = node['metadata'].get('labels') or {}
    for term in required.get('nodeSelectorTerms') or []:
        exprs, fields = term.get('matchExpressions') or [], term.get('matchFields') or []
        if not exprs and not fields:
            continue
        if all(_requirement_matches(r, labels.get(r.get('key'))) for r in exprs) and all(
                _requirement_matches(r, name_of(node) if r.get('key') == 'metadata.name' else None)
                for r in fields):
            return True
    return False


def unschedulable_message(total, reasons):
    """The scheduler's FitError text with the preemption post-filter's verdict (no pod in kubesim
    has a priority, so preemption never finds victims)."""
    def histogram(counts):
        return ', '.join(sorted(f'{n} {reason}' for reason, n in counts.items()))

    preemption = {}
    for reason, n in reasons.items():
        helpful = reason.startswith('Insufficient ') or reason == 'Too many pods'
        verdict = 'No preemption victims found for incoming pod' if helpful else \
            'Preemption is not helpful for scheduling'
        preemption[verdict] = preemption.get(verdict, 0) + n
    return (f'0/{total} nodes are available: {histogram(reasons)}. '
            f'preemption: 0/{total} nodes are available: {histogram(preemption)}.')


def _pod_ref(pod):
    """A pod as the kubelet names it in messages: name_namespace(uid)."""
    return f'{name_of(pod)}_{ns_of(pod)}({uid_of(pod)})'


def _go_duration(seconds):
    """Go's time.Duration text for whole seconds: 10s, 1m20s, 5m0s."""
    seconds = int(seconds)
    if seconds < 60:
        return f'{seconds}s'
    return f'{seconds // 60}m{seconds % 60}s'


def _set_readiness(status, now):
    """Pod Ready/ContainersReady from the container statuses (transition times kept when unchanged)."""
    not_ready = [cs['name'] for cs in status.get('containerStatuses') or [] if not cs.get('ready')]
    conditions = []
    for cond in status.get('conditions') or []:
        if cond.get('type') in ('Ready', 'ContainersReady'):
            want = 'False' if not_ready else 'True'
            if cond.get('status') != want:
                cond = _condition(cond['type'], want, now, *(
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


class Kubelet:
    def __init__(self, mgr):
        self.mgr = mgr
        self.store = mgr.store
        self._ips = {}  # node name -> last host octet handed out
        # pod uid -> container name -> {'running': bool, 'until': monotonic time, 'exits': int,
        # 'done': bool} for containers whose process ends
        self._crash = {}
        self._stopping = {}  # pod uid -> {'at': monotonic time its containers stop, 'killed': bool}

    def ensure_nodes(self, count):
        for index in range(1, count + 1):
            manifest = node_manifest(index)
            if self.store.get('/nodes', '', manifest['metadata']['name']) is None:
                status = manifest.pop('status')
                created = self.store.create('/nodes', manifest, manager=recorder('/nodes', KUBELET_MANAGER))
                created['status'] = status
                self.store.update('/nodes', created, subresource='status',
                                  manager=recorder('/nodes', KUBELET_MANAGER, 'status'))

    def failing_images(self, pod):
        pattern = self.mgr.fail_image
        if pattern is None:
            return set()
        spec = pod.get('spec') or {}
        containers = (spec.get('initContainers') or []) + (spec.get('containers') or [])
        return {c.get('image', '') for c in containers if pattern.search(c.get('image', ''))}

    def programs(self, pod):
        """{container name: Program} for the regular containers whose process ends: an image
        matching `crash_image` exits 1 after `crash_after` real seconds; otherwise the
        container's command decides (programs.py). Containers not listed keep running."""
        out = {}
        pattern = self.mgr.crash_image
        for c in (pod.get('spec') or {}).get('containers') or []:
            if pattern is not None and pattern.search(c.get('image', '')):
                out[c.get('name')] = Program(self.mgr.crash_after, CRASH_EXIT_CODE, scaled=False)
            elif c.get('command') or c.get('args'):
                found = program(c)
                if found is not None:
                    out[c.get('name')] = found
        return out

    def sync(self):
        index = self.mgr.index
        all_nodes = index.peek('/nodes')
        nodes = {name_of(n): n for n in all_nodes if node_is_ready(n)}
        pods = index.peek('/pods')
        load = {}
        # What the nodes run matters only to the scheduling of a pod without a node.
        unbound = any(not (pod.get('spec') or {}).get('nodeName') for pod in pods)
        for pod in pods if unbound else ():
            node = (pod.get('spec') or {}).get('nodeName')
            if node and pod_phase(pod) not in ('Succeeded', 'Failed'):
                used = load.setdefault(node, {'pods': 0, 'cpu': Fraction(0), 'memory': Fraction(0)})
                used['pods'] += 1
                for name, value in pod_requests(pod).items():
                    used[name] += value
        live = {uid_of(pod) for pod in pods}
        for pod in pods:
            if self._settled(pod):
                continue
            if self.mgr.out_of_time():
                break  # the rest on the next pass
            try:
                self._sync_pod(copy.deepcopy(pod), nodes, load, all_nodes)
            except ApiError:
                continue  # deleted or changed under us; the next pass sees the new state
        for states in (self._crash, self._stopping):
            for uid in list(states):
                if uid not in live:
                    del states[uid]

    def _settled(self, pod):
        """Nothing left to do for this pod (checked on the stored object, without copying it)."""
        status = pod.get('status') or {}
        if status.get('phase') in ('Succeeded', 'Failed'):
            # Finished; a pod being deleted is deleted once more, as the kubelet does.
            return not (pod['metadata'].get('deletionTimestamp') and uid_of(pod) in self._stopping)
        if pod['metadata'].get('deletionTimestamp'):
            return False
        if not (pod.get('spec') or {}).get('nodeName'):
            return False
        if self.programs(pod):
            return False
        if status.get('phase') == 'Running':
            return not resize_pending(pod)
        return status.get('phase') == 'Pending' and bool(status.get('containerStatuses'))

    def _sync_pod(self, pod, nodes, load, all_nodes):
        if pod['metadata'].get('deletionTimestamp'):
            self._terminate(pod)
            return
        spec = pod.get('spec') or {}
        node_name = spec.get('nodeName')
        if not node_name:
            if not all_nodes or spec.get('schedulingGates'):
                return  # the SchedulingGates plugin keeps a gated pod out of scheduling
            node_name = self.schedule(pod, nodes, load, all_nodes)
            if node_name is None:
                return
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
                self._pull_failure_events(pod, node, failing)
            return
        programs = self.programs(pod)
        if programs:
            self._sync_programs(pod, node, programs)
        elif pod_phase(pod) != 'Running':
            self._set_status(pod, self._running_status(pod, node))
        elif resize_pending(pod):
            self._set_status(pod, self._resized_status(pod))

    # ---- in-place resize ---------------------------------------------------------------------------
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
    def _terminate(self, pod):
        """A pod being deleted: its running containers get SIGTERM and stop `stop_delay` real
        seconds later, or are killed when the grace period (`deletionGracePeriodSeconds`, on the
        controller clock) ends first; then the pod's terminal status is written (Succeeded when
        every container exited 0, else Failed) and the pod is deleted for good (grace period 0,
        with a UID precondition), as the kubelet's status manager does."""
        uid = uid_of(pod)
        now = self.mgr.clock()
        state = self._stopping.get(uid)
        if state is None:
            statuses = (pod.get('status') or {}).get('containerStatuses') or []
            running = any('running' in (cs.get('state') or {}) for cs in statuses)
            delay = self.mgr.stop_delay if running and pod_phase(pod) not in ('Succeeded', 'Failed') else 0.0
            limit = (pod['metadata'].get('deletionGracePeriodSeconds') or 0) / self.mgr.time_scale
            state = self._stopping[uid] = {'at': now + min(delay, limit), 'killed': delay > limit}
        if now < state['at']:
            self.mgr.wake_at(state['at'])
            return
        if pod_phase(pod) not in ('Succeeded', 'Failed'):
            self._set_status(pod, self._stopped_status(pod, state['killed']))
        try:
            self.store.delete('/pods', ns_of(pod), name_of(pod), grace_seconds=0,
                              preconditions={'uid': uid})
        except ApiError:
            pass  # gone already, or a new pod of that name
        self._crash.pop(uid, None)

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
                cond = _condition(cond['type'], 'False', now, 'PodCompleted')
            elif cond.get('type') == 'PodReadyToStartContainers':
                cond = _condition(cond['type'], 'False', now)
            conditions.append(cond)
        status['conditions'] = conditions
        return status

    # ---- scheduling ------------------------------------------------------------------------------
    def schedule(self, pod, nodes, load, all_nodes):
        """The node to bind ``pod`` to, or None after marking it unschedulable."""
        wanted = pod_requests(pod)
        spec = pod.get('spec') or {}
        selector = spec.get('nodeSelector') or {}
        required = ((spec.get('affinity') or {}).get('nodeAffinity') or {}).get(
            'requiredDuringSchedulingIgnoredDuringExecution')
        fits, reasons = [], {}
        for node in all_nodes:
            name = name_of(node)
            why = self._misfit(node, name in nodes, wanted, selector, load.get(name), required)
            if why:
                for reason in why:
                    reasons[reason] = reasons.get(reason, 0) + 1
            else:
                fits.append(name)
        if fits:
            chosen = min(fits, key=lambda n: ((load.get(n) or {}).get('pods', 0), n))
            used = load.setdefault(chosen, {'pods': 0, 'cpu': Fraction(0), 'memory': Fraction(0)})
            used['pods'] += 1
            for name, value in wanted.items():
                used[name] += value
            return chosen
        self._unschedulable(pod, unschedulable_message(len(all_nodes), reasons))
        return None

    @staticmethod
    def _misfit(node, ready, wanted, selector, used, required=None):
        """Why ``node`` cannot take the pod, as the scheduler's filter plugins word it."""
        if not ready:
            return ['node(s) had untolerated taint {node.kubernetes.io/not-ready: }']
        labels = node['metadata'].get('labels') or {}
        if any(labels.get(k) != v for k, v in selector.items()) or not matches_node_selector(required, node):
            return ["node(s) didn't match Pod's node affinity/selector"]
        allocatable = (node.get('status') or {}).get('allocatable') or {}
        used = used or {'pods': 0, 'cpu': Fraction(0), 'memory': Fraction(0)}
        out = []
        if 'pods' in allocatable and used['pods'] + 1 > parse_quantity(allocatable['pods']).value:
            out.append('Too many pods')
        for name in ('cpu', 'memory'):
            if wanted.get(name) and name in allocatable:
                if used[name] + wanted[name] > parse_quantity(allocatable[name]).value:
                    out.append(f'Insufficient {name}')
        return out

    def _unschedulable(self, pod, message):
        status = copy.deepcopy(pod.get('status') or {})
        status.setdefault('phase', 'Pending')
        conditions = [c for c in status.get('conditions') or [] if c.get('type') != 'PodScheduled']
        old = next((c for c in status.get('conditions') or [] if c.get('type') == 'PodScheduled'), None)
        if old is not None and old.get('status') == 'False' and old.get('message') == message:
            return
        conditions.append(_condition('PodScheduled', 'False', now_rfc3339(), 'Unschedulable', message))
        status['conditions'] = conditions
        self._set_status(pod, status)
        self.mgr.events.record(pod, WARNING, 'FailedScheduling', message, SCHEDULER)

    # ---- containers whose process ends ------------------------------------------------------------
    def _sync_programs(self, pod, node, programs):
        """Run the containers whose process ends (`programs`): each runs its program's time, then
        exits with its code (exit 0 `Completed`, else `Error`, in `lastState`/`state`
        `terminated`). The pod's `restartPolicy` decides what follows: Always restarts it,
        OnFailure only after a non-zero exit, Never leaves it terminated. The first restart is
        immediate; after each later exit the container waits in `CrashLoopBackOff` for the
        kubelet's back-off (10 s doubling up to 5 minutes, on the controller clock) and a `BackOff`
        event is recorded. Once every container is terminated for good the pod is Succeeded (all
        exited 0) or Failed."""
        now = self.mgr.clock()
        states = self._crash.setdefault(uid_of(pod), {})
        policy = (pod.get('spec') or {}).get('restartPolicy', 'Always')
        if not states:
            status = self._running_status(pod, node)
        else:
            status = copy.deepcopy(pod.get('status') or {})
        stamp = now_rfc3339()
        by_name = {cs.get('name'): cs for cs in status.get('containerStatuses') or []}
        for name, prog in sorted(programs.items()):
            cs = by_name.get(name)
            if cs is None:
                continue
            state = states.get(name)
            if state is None:
                state = states[name] = {'running': True, 'until': now + self._seconds(prog), 'exits': 0,
                                        'done': False}
            if state['done'] or now < state['until']:
                continue
            if state['running']:
                state['exits'] += 1
                started = ((cs.get('state') or {}).get('running') or {}).get('startedAt', stamp)
                terminated = {'exitCode': prog.code, 'reason': 'Completed' if prog.code == 0 else 'Error',
                              'startedAt': started, 'finishedAt': stamp,
                              'containerID': cs.get('containerID', '')}
                if policy == 'Never' or (policy == 'OnFailure' and prog.code == 0):
                    state['done'] = True
                    cs['state'] = {'terminated': terminated}
                    cs['ready'], cs['started'] = False, False
                    continue
                cs['lastState'] = {'terminated': terminated}
                if state['exits'] == 1:  # the first restart is immediate
                    cs['restartCount'] = cs.get('restartCount', 0) + 1
                    cs['state'] = {'running': {'startedAt': stamp}}
                    state['until'] = now + self._seconds(prog)
                    continue
                backoff = min(BACKOFF_INITIAL * 2 ** (state['exits'] - 2), BACKOFF_MAX)
                state['running'] = False
                state['until'] = now + backoff / self.mgr.time_scale
                cs['ready'], cs['started'] = False, False
                cs['state'] = {'waiting': {'reason': 'CrashLoopBackOff', 'message': (
                    f'back-off {_go_duration(backoff)} restarting failed container={name} '
                    f'pod={_pod_ref(pod)}')}}
                self.mgr.events.record(pod, WARNING, 'BackOff',
                                       f'Back-off restarting failed container {name} in pod {_pod_ref(pod)}',
                                       KUBELET, host=name_of(node), field_path=f'spec.containers{{{name}}}')
            else:
                state['running'] = True
                state['until'] = now + self._seconds(prog)
                cs['restartCount'] = cs.get('restartCount', 0) + 1
                cs['ready'], cs['started'] = True, True
                cs['state'] = {'running': {'startedAt': stamp}}
        for state in states.values():
            if not state['done']:
                self.mgr.wake_at(state['until'])
        if len(by_name) == len(programs) and all(states.get(name, {}).get('done') for name in by_name):
            codes = [cs['state']['terminated']['exitCode'] for cs in by_name.values()]
            status['phase'] = 'Succeeded' if not any(codes) else 'Failed'
            _set_readiness(status, stamp)
            for cond in status.get('conditions') or []:
                if cond.get('type') in ('Ready', 'ContainersReady') and cond.get('status') == 'False':
                    cond['reason'] = 'PodCompleted'
                    cond.pop('message', None)
        else:
            _set_readiness(status, stamp)
        self._set_status(pod, status)

    def _seconds(self, prog):
        """How long a program runs, on the monotonic clock."""
        return prog.seconds / self.mgr.time_scale if prog.scaled else prog.seconds

    def _pull_failure_events(self, pod, node, failing):
        spec = pod.get('spec') or {}
        for key in ('initContainers', 'containers'):
            for c in spec.get(key) or []:
                image = c.get('image', '')
                if image not in failing:
                    continue
                where = {'host': name_of(node), 'field_path': f'spec.{key}{{{c.get("name")}}}'}
                record = self.mgr.events.record
                record(pod, WARNING, 'Failed', f'Failed to pull image "{image}": rpc error: code = NotFound '
                       f'desc = failed to pull and unpack image "{image}": failed to resolve reference '
                       f'"{image}": {image}: not found', KUBELET, **where)
                record(pod, WARNING, 'Failed', 'Error: ErrImagePull', KUBELET, **where)
                record(pod, NORMAL, 'BackOff', f'Back-off pulling image "{image}"', KUBELET, **where)
                record(pod, WARNING, 'Failed', 'Error: ImagePullBackOff', KUBELET, **where)

    def _set_status(self, pod, status):
        if status == pod.get('status'):
            return
        self.store.update('/pods', {'metadata': {'name': name_of(pod), 'namespace': ns_of(pod)},
                                    'status': status}, subresource='status',
                          manager=recorder('/pods', KUBELET_MANAGER, 'status'))

    def _pending_status(self, pod):
        status = dict(pod.get('status') or {})
        status.setdefault('phase', 'Pending')
        status.setdefault('qosClass', 'BestEffort')
        if not any(c.get('type') == 'PodScheduled' and c.get('status') == 'True'
                   for c in status.get('conditions') or []):
            others = [c for c in status.get('conditions') or [] if c.get('type') != 'PodScheduled']
            status['conditions'] = others + [_condition('PodScheduled', 'True', now_rfc3339())]
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

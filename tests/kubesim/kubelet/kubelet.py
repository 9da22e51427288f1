"""The kubelet stand-in: pods get a node (scheduler.py), then start after `ready_delay`. The
Nodes are nodes.py, the pod statuses it writes status.py, what containers' commands do programs.py.

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
from fractions import Fraction

from ..apiserver.recorders import KUBELET as KUBELET_MANAGER, recorder
from ..machinery.clock import now_rfc3339
from ..controllers.common import name_of, ns_of, pod_phase, uid_of
from ..controllers.events import NORMAL, WARNING
from ..machinery.errors import ApiError
from .nodes import node_is_ready, node_manifest
from .programs import Program, ignores_sigterm, program
from .scheduler import SchedulerMixin, pod_requests
from .status import StatusMixin, resize_pending, set_readiness

KUBELET = 'kubelet'
# The kubelet's container restart back-off: 10 s doubling up to 5 minutes.
BACKOFF_INITIAL, BACKOFF_MAX = 10, 300
CRASH_EXIT_CODE = 1


def _pod_ref(pod):
    """A pod as the kubelet names it in messages: name_namespace(uid)."""
    return f'{name_of(pod)}_{ns_of(pod)}({uid_of(pod)})'


def _go_duration(seconds):
    """Go's time.Duration text for whole seconds: 10s, 1m20s, 5m0s."""
    seconds = int(seconds)
    if seconds < 60:
        return f'{seconds}s'
    return f'{seconds // 60}m{seconds % 60}s'


class Kubelet(SchedulerMixin, StatusMixin):
    def __init__(self, mgr):
        self.mgr = mgr
        self.store = mgr.store
        self._ips = {}  # node name -> last host octet handed out
        # pod uid -> container name -> {'running': bool, 'until': monotonic time, 'exits': int,
        # 'done': bool} for containers whose process ends
        self._crash = {}
        self._stopping = {}  # pod uid -> {'at': monotonic time its containers stop, 'killed': bool}
        self.probe_failing = set()  # uids of pods whose readiness probes fail (fault injection)
        # pod uid -> container name -> the runs of its program (the last two): (monotonic start,
        # Program), what its log (pods/log, and with previous=true) shows
        self._runs = {}

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
        for states in (self._crash, self._stopping, self._runs):
            for uid in list(states):
                if uid not in live:
                    del states[uid]
        self.probe_failing &= live

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

    # ---- termination -----------------------------------------------------------------------------
    def _terminate(self, pod):
        """A pod being deleted: its running containers get SIGTERM and stop `stop_delay` real
        seconds later (a PID 1 that ignores SIGTERM: when its program ends), or are killed (exit
        137) when the grace period (`deletionGracePeriodSeconds`, on the controller clock) ends
        first; then the pod's terminal status is written (Succeeded when
        every container exited 0, else Failed) and the pod is deleted for good (grace period 0,
        with a UID precondition), as the kubelet's status manager does."""
        uid = uid_of(pod)
        now = self.mgr.clock()
        state = self._stopping.get(uid)
        if state is None:
            limit = (pod['metadata'].get('deletionGracePeriodSeconds') or 0) / self.mgr.time_scale
            delay = self._stop_delay(pod, now) if pod_phase(pod) not in ('Succeeded', 'Failed') else 0.0
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

    def _stop_delay(self, pod, now):
        """Monotonic seconds until the pod's running containers have stopped after SIGTERM:
        `stop_delay` for those that handle it; for a PID 1 that ignores it (programs.py
        `ignores_sigterm`), until its program ends by itself, else forever (the grace period's
        SIGKILL ends it)."""
        running = {cs.get('name') for cs in (pod.get('status') or {}).get('containerStatuses') or []
                   if 'running' in (cs.get('state') or {})}
        if not running:
            return 0.0
        states = self._crash.get(uid_of(pod)) or {}
        delay = 0.0
        for c in (pod.get('spec') or {}).get('containers') or []:
            name = c.get('name')
            if name not in running:
                continue
            if not ignores_sigterm(c):
                delay = max(delay, self.mgr.stop_delay)
                continue
            state = states.get(name)
            ends = state['until'] - now if state and state['running'] and not state['done'] else float('inf')
            delay = max(delay, ends)
        return delay

    # ---- containers whose process ends -----------------------------------------------------------
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
                self._ran(pod, name, prog, now)
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
                    self._ran(pod, name, prog, now)
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
                self._ran(pod, name, prog, now)
                cs['restartCount'] = cs.get('restartCount', 0) + 1
                cs['ready'], cs['started'] = True, True
                cs['state'] = {'running': {'startedAt': stamp}}
        for state in states.values():
            if not state['done']:
                self.mgr.wake_at(state['until'])
        if len(by_name) == len(programs) and all(states.get(name, {}).get('done') for name in by_name):
            codes = [cs['state']['terminated']['exitCode'] for cs in by_name.values()]
            status['phase'] = 'Succeeded' if not any(codes) else 'Failed'
            set_readiness(status, stamp)
            for cond in status.get('conditions') or []:
                if cond.get('type') in ('Ready', 'ContainersReady') and cond.get('status') == 'False':
                    cond['reason'] = 'PodCompleted'
                    cond.pop('message', None)
        else:
            set_readiness(status, stamp)
        self._set_status(pod, status)

    def _ran(self, pod, name, prog, now):
        """A run of the container's program starts: the one before becomes its previous log."""
        runs = self._runs.setdefault(uid_of(pod), {}).setdefault(name, [])
        runs.append((now, prog))
        del runs[:-2]

    def log(self, pod, container, previous=False):
        """What the container printed (programs.py `output`) in its current run, or with
        ``previous`` the run before, so far; None when there is no previous run. A container
        without a program (a server) printed nothing."""
        runs = (self._runs.get(uid_of(pod)) or {}).get(container) or []
        if previous:
            if len(runs) < 2:
                return None
            runs = runs[:-1]
        if not runs:
            return ''
        started, prog = runs[-1]
        now = self.mgr.clock()
        scale = self.mgr.time_scale if prog.scaled else 1.0
        return ''.join(text for at, text in prog.output if started + at / scale <= now)

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

    # ---- readiness probes ------------------------------------------------------------------------
    def set_probe_result(self, namespace, name, ready):
        """A readiness probe of the pod's containers starts failing (``ready`` False) or passes
        again: as the prober manager does, the kubelet writes the containers' `ready` and the
        pod's Ready and ContainersReady conditions (ContainersNotReady, `containers with unready
        status: [...]`); the containers keep running. Returns the pod, or None when there is no
        such pod. A pod not running yet starts unready while its probe fails."""
        pod = self.store.get('/pods', namespace, name)
        if pod is None:
            return None
        uid = uid_of(pod)
        if ready:
            self.probe_failing.discard(uid)
        else:
            self.probe_failing.add(uid)
        if pod_phase(pod) != 'Running' or pod['metadata'].get('deletionTimestamp'):
            return pod
        status = copy.deepcopy(pod.get('status') or {})
        for cs in status.get('containerStatuses') or []:
            if 'running' in (cs.get('state') or {}):
                cs['ready'] = bool(ready)
        set_readiness(status, now_rfc3339())
        self._set_status(pod, status)
        return pod

    # ---- status ----------------------------------------------------------------------------------
    def _set_status(self, pod, status):
        if status == pod.get('status'):
            return
        self.store.update('/pods', {'metadata': {'name': name_of(pod), 'namespace': ns_of(pod)},
                                    'status': status}, subresource='status',
                          manager=recorder('/pods', KUBELET_MANAGER, 'status'))

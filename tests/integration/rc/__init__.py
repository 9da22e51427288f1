"""Helpers for the rolling_update_rc integration tests: RCs over an independent HTTP client, pod
counts over time from kubesim's readiness log, and playbook runs that can be killed mid-update."""

import json
import os
import pathlib
import signal
import subprocess
import sys
import time

import yaml

from ..conftest import BIN, CALLBACKS, ROOT

COLLECTIONS = ROOT / '.collections'
if str(COLLECTIONS) not in sys.path:  # the driver is also run in-process by some tests
    sys.path.insert(0, str(COLLECTIONS))

RCS = '/api/v1/namespaces/{ns}/replicationcontrollers'
PODS = '/api/v1/namespaces/{ns}/pods'
NEXT = 'kubectl.kubernetes.io/next-controller-id'
ORIGINAL = 'kubectl.kubernetes.io/original-replicas'
DESIRED = 'kubectl.kubernetes.io/desired-replicas'
SOURCE = 'kubectl.kubernetes.io/update-source-id'
UPDATE_ANNOTATIONS = (NEXT, ORIGINAL, DESIRED, SOURCE)


def rc_manifest(name='web', image='nginx:1.25', replicas=3, ns='default', containers=None, labels=None):
    labels = dict(labels or {'app': name})
    return {'apiVersion': 'v1', 'kind': 'ReplicationController',
            'metadata': {'name': name, 'namespace': ns, 'labels': dict(labels)},
            'spec': {'replicas': replicas, 'selector': dict(labels),
                     'template': {'metadata': {'labels': dict(labels)},
                                  'spec': {'containers': containers or [{'name': 'app', 'image': image}]}}}}


def selector_query(selector):
    return ','.join(f'{k}={v}' for k, v in sorted(selector.items()))


class Rcs:
    """ReplicationControllers and pods of one namespace through the test suite's own client."""

    def __init__(self, kube, ns='default'):
        self.kube = kube
        self.ns = ns

    def create(self, obj):
        return self.kube.request('POST', RCS.format(ns=self.ns), obj)

    def get(self, name):
        items = [rc for rc in self.list() if rc['metadata']['name'] == name]
        return items[0] if items else None

    def list(self):
        return self.kube.request('GET', RCS.format(ns=self.ns))['items']

    def replace(self, obj):
        return self.kube.request('PUT', f'{RCS.format(ns=self.ns)}/{obj["metadata"]["name"]}', obj)

    def pods(self, selector=None):
        """The pods not being deleted (those the RCs count; a deleted pod lingers, Terminating,
        until its containers stopped)."""
        query = f'?labelSelector={selector_query(selector)}' if selector else ''
        items = self.kube.request('GET', PODS.format(ns=self.ns) + query)['items']
        return [p for p in items if not p['metadata'].get('deletionTimestamp')]

    def patch_pod(self, name, body):
        return self.kube.request('PATCH', f'{PODS.format(ns=self.ns)}/{name}', body,
                                 'application/merge-patch+json')

    def wait_ready(self, name, replicas=None, timeout=30):
        """Until the RC has ``replicas`` (default: its spec) pods, all ready."""
        deadline = time.monotonic() + timeout
        while True:
            rc = self.get(name)
            want = rc['spec'].get('replicas', 1) if replicas is None else replicas
            st = rc.get('status') or {}
            if st.get('replicas', 0) == want and st.get('readyReplicas', 0) == want and \
                    st.get('observedGeneration', 0) >= rc['metadata'].get('generation', 1):
                return rc
            if time.monotonic() > deadline:
                raise AssertionError(f'RC {name} never had {want} ready pods: {st}')
            time.sleep(0.05)


def image_of(rc, index=0):
    return rc['spec']['template']['spec']['containers'][index]['image']


# ---- pod counts over time ------------------------------------------------------------------------
def pod_timeline(log, namespace, rc_names, since=None):
    """Replay the readiness log for the pods created by any RC of ``rc_names`` (the old RC and the
    new one together). Returns ``[(t, pods, ready), ...]``, one entry after every event.

    A pod belongs to the RC that created it (the log records the owner at creation): pods the old
    RC adopts when renamed stay counted, under the new RC's name, until they are deleted.
    """
    pods = {}
    out = []
    for entry in list(log):
        if entry['namespace'] != namespace or entry['owner_kind'] != 'ReplicationController' or \
                entry['owner_name'] not in rc_names:
            continue
        if entry['event'] == 'created':
            pods[entry['pod']] = False
        elif entry['event'] == 'ready':
            pods[entry['pod']] = True
        elif entry['event'] == 'unready':
            pods[entry['pod']] = False
        elif entry['event'] == 'deleted':
            pods.pop(entry['pod'], None)
        if since is None or entry['t'] >= since:
            out.append((entry['t'], len(pods), sum(pods.values())))
    return out


def assert_bounds(timeline, max_pods, min_ready):
    """Every instant of the timeline: at most ``max_pods`` pods, at least ``min_ready`` ready."""
    assert timeline, 'no pod events recorded'
    worst_pods = max(p for _t, p, _r in timeline)
    worst_ready = min(r for _t, _p, r in timeline)
    assert worst_pods <= max_pods, f'{worst_pods} pods at once (limit {max_pods}): {timeline}'
    assert worst_ready >= min_ready, f'only {worst_ready} ready pods at once (need {min_ready}): {timeline}'
    return worst_pods, worst_ready


class RcCreations:
    """Records the name of every RC created (in order) from when it is attached: a store listener,
    so that nothing is missed however many events kubesim keeps."""

    def __init__(self, sim):
        self.sim = sim
        self.names = []  # (namespace, name)

        def listener(event_type, resource, obj):
            if resource == '/replicationcontrollers' and event_type == 'ADDED':
                self.names.append((obj['metadata'].get('namespace'), obj['metadata']['name']))
        sim.call(lambda: sim.store.listeners.append(listener))

    def __call__(self, ns='default', prefix=None):
        return [name for n, name in list(self.names)
                if n == ns and (prefix is None or name == prefix or name.startswith(prefix + '-'))]


# ---- playbooks that can be killed ----------------------------------------------------------------
def start_playbook(kubeconfig, tasks, workdir, new_session=False):
    """``ansible-playbook`` in the background (see ``kill_when``); with ``new_session`` it leads a
    process group of its own (for ``os.killpg``)."""
    play = [{'hosts': 'localhost', 'gather_facts': False,
             'module_defaults': {'group/kubeops.rollout.rollout': {'kubeconfig': str(kubeconfig)}},
             'tasks': tasks}]
    workdir = pathlib.Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    book = workdir / 'play.yml'
    book.write_text(yaml.safe_dump(play, sort_keys=False))
    env = {k: v for k, v in os.environ.items() if not k.startswith('K8S_AUTH_') and k != 'KUBECONFIG'}
    env.update({'ANSIBLE_CONFIG': str(ROOT / 'ansible.cfg'), 'ANSIBLE_CALLBACK_PLUGINS': str(CALLBACKS),
                'ANSIBLE_CALLBACKS_ENABLED': 'kubeops_record', 'ANSIBLE_NOCOLOR': '1',
                'KUBEOPS_RECORD_OUT': str(workdir / 'results.json'),
                'PATH': f'{BIN}{os.pathsep}{env.get("PATH", "")}'})
    return subprocess.Popen([str(BIN / 'ansible-playbook'), str(book)], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=new_session)


def finished_results(proc, workdir, timeout=120):
    """Wait for a background playbook; its task results by name."""
    proc.wait(timeout)
    out = pathlib.Path(workdir) / 'results.json'
    assert out.exists(), f'the playbook in {workdir} recorded no results (exit {proc.returncode})'
    return json.loads(out.read_text())


def _children():
    """{parent pid: [child pids]} from /proc."""
    tree = {}
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open(f'/proc/{entry}/stat') as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(')', 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry))
    return tree


def kill_tree(pid):
    """SIGKILL ``pid`` and every descendant. Ansible's workers start sessions of their own
    (setsid), so a process group kill would leave the module running."""
    tree = _children()
    victims, todo = [], [pid]
    while todo:
        p = todo.pop()
        victims.append(p)
        todo.extend(tree.get(p, []))
    for p in reversed(victims):  # the module process first: it is the one sending requests
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass


def kill_when(proc, condition, timeout=60, interval=0.02):
    """SIGKILL the playbook and all its processes as soon as ``condition()`` holds. Returns whether
    it was killed (False: the playbook ended first)."""
    deadline = time.monotonic() + timeout
    try:
        while proc.poll() is None:
            if condition():
                kill_tree(proc.pid)
                proc.wait(10)
                return True
            if time.monotonic() > deadline:
                raise AssertionError('the kill condition never held')
            time.sleep(interval)
        return False
    finally:
        if proc.poll() is None:
            kill_tree(proc.pid)
            proc.wait(10)

"""Measurement 5: the release engine at scale, one `rollout_release` of 100 Deployments against kubectl.

On a kubesim of its own whose pods are Ready 0.2 s after creation (TLS and a bearer token, as the
other suites), each side gets 100 fresh Deployments of 2 replicas (made, rolled out and settled
before the clock starts; deleted, with their pods, after it stops) and the same change, a new image:

- release: one `ansible-playbook` run of one `kubeops.rollout.rollout_release` task naming the 100
  workloads (default options: preflight with dry runs, write, wait for all, early-stop probes). Its
  time is the task's, from the bench_timer callback; the playbook's whole wall time is beside it.
  The peak memory of ansible-playbook's process tree is measured (memory.py): the modules run in
  the controller's worker process (the controller path), so that is the release's memory.
- kubectl: 100 shells started at once, each running
  `kubectl set image deployment/X web=IMAGE && kubectl rollout status deployment/X`, timed from the
  first start to the last exit (kubectl's discovery cache warm, as on an operator's machine).

The sides take turns, repetition by repetition; a repetition in which a side failed is run again
(at most EXTRA_ATTEMPTS more). Each tool runs in a session of its own (ansible-playbook's worker
calls setsid; the shells are started by parallel.py in a new session), kubesim in the harness's:
with the kernel's autogroup scheduling, each session shares the CPU as one group. Each side's
requests come from kubesim's request
log (between two offsets), split by verb per workload. An observer, one WATCH of the side's
Deployments with kubesim's read-only token (its requests are left out of every count), notes when
each Deployment got the new template and when its rollout was complete on the server; with the
request log's timestamps that gives where the time goes (`phases`).
"""

import http.client
import json
import os
import secrets
import shlex
import subprocess
import sys
import threading
import time
import urllib.parse

from . import ansible_run, fixtures as fx
from .kube import ROOT, ApiClient, KubeSim, describe
from .memory import process_cpu

READY = 0.2
REPLICAS = 2
COUNT = 100
TIMEOUT = 900  # seconds either side may take: far above what it takes, never what is measured
# Repetitions run beyond those asked for when a side failed (e.g. kubectl's 10-second TLS handshake
# timeout, when 100 kubectl processes start at once on a busy machine), so that enough pairs count.
EXTRA_ATTEMPTS = 2
AUTOGROUP = '/proc/sys/kernel/sched_autogroup_enabled'
# The user kubesim logs for its --readonly-token: the observer's requests.
OBSERVER_USER = 'kubesim-viewer'
VERBS = ('GET', 'LIST', 'PATCH', 'WATCH')
TOOLS = ('release', 'kubectl')


# ---- pure parts: what the request log and the observer say --------------------------------------

def measured(requests):
    """The requests of the tool measured: the observer's (read-only user) left out."""
    return [r for r in requests if r.get('user') != OBSERVER_USER]


def _resource(entry):
    """The resource plural a request names (/apis/apps/v1/namespaces/x/replicasets -> replicasets)."""
    parts = [p for p in entry['path'].split('/') if p]
    base = 2 if parts[:1] == ['api'] else 3
    rest = parts[base:]
    if rest[:1] == ['namespaces'] and len(rest) >= 3:
        rest = rest[2:]
    return rest[0] if rest else ''


def per_workload(requests, count):
    """Requests per workload: by verb (GET, LIST, PATCH, WATCH and any other), dry runs among the
    PATCHes, LISTs by resource, and the total without the watches (what the target counts)."""
    verbs, lists = {}, {}
    dry_runs = 0
    for r in requests:
        verb = describe(r)
        verbs[verb] = verbs.get(verb, 0) + 1
        if verb == 'LIST':
            res = _resource(r)
            lists[res] = lists.get(res, 0) + 1
        if verb == 'PATCH' and r.get('dry_run'):
            dry_runs += 1
    non_watch = sum(n for v, n in verbs.items() if v != 'WATCH')
    return {'total': len(requests), 'per_workload': non_watch / count,
            'watches_per_workload': verbs.get('WATCH', 0) / count,
            'verbs': {v: n / count for v, n in sorted(verbs.items())},
            'lists': {res: n / count for res, n in sorted(lists.items())},
            'dry_runs': dry_runs / count}


def _to_relative(t, start, offset):
    return None if t is None else t - offset - start


def phases(requests, start, offset, completions, end, count):
    """Where one side's time went, in seconds from its ``start`` (monotonic).

    ``requests``: its request log entries (their ``time`` is the wall clock; ``offset`` is
    time.time() - time.monotonic() when the side started); ``completions``: {name: monotonic time
    its rollout was first seen complete on the server}; ``end``: monotonic time the side ended.
    """
    times = [r['time'] for r in requests]
    dry = [r['time'] for r in requests if describe(r) == 'PATCH' and r.get('dry_run')]
    writes = {}
    for r in requests:
        if describe(r) == 'PATCH' and not r.get('dry_run'):
            writes.setdefault(r['path'].rsplit('/', 1)[-1], r['time'])
    done = [t for t in completions.values() if t is not None]
    out = {
        'first_request': _to_relative(min(times, default=None), start, offset),
        'last_dry_run': _to_relative(max(dry, default=None), start, offset),
        'first_write': _to_relative(min(writes.values(), default=None), start, offset),
        'last_write': _to_relative(max(writes.values(), default=None), start, offset),
        'first_complete': None if not done else min(done) - start,
        'last_complete': None if len(done) < count else max(done) - start,
        'complete': len(done),
        'end': end - start,
    }
    # Each workload's own rollout: from its write to its completion on the server.
    own = sorted(completions[n] - (writes[n] - offset) for n in writes if completions.get(n) is not None)
    out['rollout_median'] = own[len(own) // 2] if own else None
    out['rollout_max'] = own[-1] if own else None
    return out


class Completions:
    """What the observer makes of the watch events: per Deployment, when its template first had the
    new image and when its rollout with that template was first complete (monotonic)."""

    def __init__(self, names, image, clock=time.monotonic):
        self.image = image
        self.clock = clock
        self.seen = dict.fromkeys(names)
        self.complete = dict.fromkeys(names)

    def observe(self, obj):
        name = obj['metadata']['name']
        if name not in self.complete or self.complete[name] is not None:
            return
        containers = obj['spec']['template']['spec']['containers']
        if not any(c['name'] == fx.CONTAINER and c['image'] == self.image for c in containers):
            return
        now = self.clock()
        if self.seen[name] is None:
            self.seen[name] = now
        if fx.rollout_complete(obj, 'Deployment'):
            self.complete[name] = now

    def all_complete(self):
        return all(t is not None for t in self.complete.values())


# ---- the observer --------------------------------------------------------------------------------

class Observer:
    """One WATCH of the Deployments labelled ``selector``, in a thread, feeding a Completions."""

    def __init__(self, kubeconfig, token, selector, completions):
        self.client = ApiClient(kubeconfig)
        self.client.headers['Authorization'] = 'Bearer ' + token
        self.selector = selector
        self.completions = completions
        self.error = None
        self._conn = None
        self._closing = False
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self._thread.start()
        if not self._ready.wait(30):
            raise RuntimeError(f'the observer did not start: {self.error}')
        return self

    def _connect(self):
        parsed = urllib.parse.urlsplit(self.client.server)
        if parsed.scheme == 'https':
            return http.client.HTTPSConnection(parsed.hostname, parsed.port, context=self.client.context)
        return http.client.HTTPConnection(parsed.hostname, parsed.port)

    def _run(self):
        # No resourceVersion: the objects as they are first (ADDED), then every change.
        query = urllib.parse.urlencode({'watch': 'true', 'labelSelector': self.selector})
        try:
            self._conn = self._connect()
            self._conn.request('GET', fx.collection('Deployment') + '?' + query, headers=self.client.headers)
            resp = self._conn.getresponse()
            if resp.status != 200:
                raise RuntimeError(f'watch: HTTP {resp.status}: {resp.read()[:300]!r}')
            self._ready.set()
            while True:
                line = resp.readline()
                if not line:
                    break
                event = json.loads(line)
                if event.get('type') in ('ADDED', 'MODIFIED'):
                    self.completions.observe(event['object'])
        except Exception as e:  # noqa: BLE001 -- reported with the sample, never hides the run
            if not self._closing:
                self.error = f'{type(e).__name__}: {e}'
        finally:
            self._ready.set()

    def wait(self, timeout):
        """Until every rollout was seen complete, at most ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while not self.completions.all_complete() and time.monotonic() < deadline and self._thread.is_alive():
            time.sleep(0.05)

    def stop(self):
        self._closing = True
        if self._conn is not None and self._conn.sock is not None:
            try:
                self._conn.sock.shutdown(2)
            except OSError:
                pass
            self._conn.close()
        self._thread.join(10)


# ---- the two sides -------------------------------------------------------------------------------

def _names(tool, rep, count):
    return [f'scale-{tool}-{rep}-{i}' for i in range(count)]


def _selector(tool, rep):
    return f'release-scale={tool}-{rep}'


def _settled(api, selector, count, timeout=600, interval=1.0):
    """Wait until ``count`` Deployments labelled ``selector`` have rolled out (one LIST a second:
    polling harder would slow kubesim's controllers, which share its loop with the API)."""
    deadline = time.monotonic() + timeout
    while True:
        items = api.get(fx.collection('Deployment'), labelSelector=selector)['items']
        if len(items) == count and all(fx.rollout_complete(o, 'Deployment') for o in items):
            return
        if time.monotonic() > deadline:
            pending = [o['metadata']['name'] for o in items if not fx.rollout_complete(o, 'Deployment')]
            raise RuntimeError(f'{selector}: not settled within {timeout}s ({len(items)} made, pending '
                               f'{pending[:5]})')
        time.sleep(interval)


def make(api, tool, rep, count):
    label = _selector(tool, rep).split('=', 1)
    for name in _names(tool, rep, count):
        fx.create(api, fx.workload('Deployment', name, replicas=REPLICAS, labels={label[0]: label[1]}))
    _settled(api, _selector(tool, rep), count)


def remove(api, tool, rep, count, timeout=600):
    """Delete the side's Deployments and wait until their pods are gone: the next side starts from
    the same cluster."""
    for name in _names(tool, rep, count):
        fx.delete(api, 'Deployment', name)
    prefix = f'scale-{tool}-{rep}-'
    deadline = time.monotonic() + timeout
    while True:
        left = [p for p in api.get(fx.collection('Pod'))['items'] if p['metadata']['name'].startswith(prefix)]
        left += [r for r in api.get(fx.collection('ReplicaSet'))['items']
                 if r['metadata']['name'].startswith(prefix)]
        if not left:
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f'{prefix}*: {len(left)} objects left after {timeout}s')
        time.sleep(1.0)


def _release_play(sim, names, image):
    return [ansible_run.play([{
        'name': 'release',
        'kubeops.rollout.rollout_release': {
            'kubeconfig': sim.kubeconfig,
            'namespace': fx.NAMESPACE,
            'timeout': TIMEOUT,
            'workloads': [{'kind': 'Deployment', 'name': n, 'images': {fx.CONTAINER: image}} for n in names],
        },
    }], name='release-scale')]


def release(ctx, sim, names, image, label):
    run = ansible_run.run_playbook(_release_play(sim, names, image), os.path.join(ctx.workdir, 'playbooks'),
                                   label, request_log=sim.request_log_path, timeout=TIMEOUT + 120,
                                   memory=True)
    task = next((t for t in run.tasks if t.name == 'release'), None)
    if task is None:
        raise RuntimeError(f'ansible-playbook ran no release task:\n{run.output[-3000:]}')
    ok = run.returncode == 0 and task.status == 'ok'
    return {'start': task.start, 'end': task.start + task.seconds, 'seconds': task.seconds, 'wall': run.wall,
            'ok': ok, 'msg': '' if ok else (task.msg or run.output[-300:])[:300], 'memory': run.memory,
            'cpu_seconds': run.memory['cpu_seconds'], 'requests': measured(task.requests)}


def kubectl_shell(kubectl, kubeconfig, cache_dir, name, image):
    """The shell one workload gets: set image, then rollout status."""
    base = [kubectl, '--kubeconfig', kubeconfig, '--cache-dir', cache_dir, '-n', fx.NAMESPACE]
    set_image = [*base, 'set', 'image', f'deployment/{name}', f'{fx.CONTAINER}={image}']
    status = [*base, 'rollout', 'status', f'deployment/{name}', f'--timeout={TIMEOUT}s']
    return f'{shlex.join(set_image)} >/dev/null && {shlex.join(status)} >/dev/null'


def kubectl(ctx, sim, names, image, cache_dir):
    """The shells, through parallel.py in a session of its own (see its docstring)."""
    shells = [kubectl_shell(ctx.kubectl_path, sim.kubeconfig, cache_dir, n, image) for n in names]
    offset = sim.log.offset()
    proc = subprocess.run([sys.executable, '-m', 'tests.bench.parallel'], input=json.dumps(shells),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                          start_new_session=True, timeout=TIMEOUT + 120)
    if proc.returncode:
        raise RuntimeError(f'tests.bench.parallel failed: {proc.stderr[-2000:]}')
    out = json.loads(proc.stdout)
    errors = [r['stderr'][-200:] or f'exit {r["returncode"]}' for r in out['results'] if r['returncode']]
    return {'start': out['start'], 'end': out['end'], 'seconds': out['end'] - out['start'], 'ok': not errors,
            'msg': '; '.join(errors)[:300], 'failed_shells': len(errors), 'processes': 2 * len(names),
            'cpu_seconds': out['cpu_seconds'], 'requests': measured(sim.log.between(offset))}


def measure_side(ctx, sim, observer_token, tool, rep, count, image, cache_dir):
    names = _names(tool, rep, count)
    completions = Completions(names, image)
    observer = Observer(sim.kubeconfig, observer_token, _selector(tool, rep), completions).start()
    offset = time.time() - time.monotonic()
    load = os.getloadavg()[0]
    sim_cpu = process_cpu(sim.proc.pid)
    try:
        if tool == 'release':
            sample = release(ctx, sim, names, image, f'release-scale-{rep}')
        else:
            sample = kubectl(ctx, sim, names, image, cache_dir)
        observer.wait(10)  # the last events may still be on their way
    finally:
        observer.stop()
    sim_after = process_cpu(sim.proc.pid)
    sample['kubesim_cpu_seconds'] = None if sim_cpu is None or sim_after is None else sim_after - sim_cpu
    sample['loadavg'] = load
    requests = sample.pop('requests')
    sample['requests'] = per_workload(requests, count)
    sample['phases'] = phases(requests, sample.pop('start'), offset, completions.complete, sample.pop('end'),
                              count)
    sample['observer_error'] = observer.error
    return sample


def _summary_line(sample):
    mem = sample.get('memory') or {}
    q = sample['requests']
    return (f'took {sample["seconds"]:.1f} s, {q["per_workload"]:.1f} requests per workload + '
            f'{q["watches_per_workload"]:.1f} watches'
            + (f', peak {mem["maxrss_mb"]:.0f} MB' if mem else '')
            + f', CPU {sample["cpu_seconds"]:.1f} s (kubesim {sample["kubesim_cpu_seconds"] or 0:.1f} s)'
            + ('' if sample['ok'] else f' (failed: {sample["msg"][:200]})'))


def autogroup():
    """Whether the kernel schedules each session as one group (None: unknown)."""
    try:
        with open(AUTOGROUP) as f:
            return f.read().strip() == '1'
    except OSError:
        return None


def valid_pairs(samples):
    """Repetitions in which both sides succeeded."""
    return sum(1 for a, b in zip(samples['release'], samples['kubectl']) if a['ok'] and b['ok'])


def run(ctx, reps, count=COUNT):
    token, viewer = secrets.token_hex(16), secrets.token_hex(16)
    sim = KubeSim(os.path.join(ctx.workdir, 'kubesim-release-scale'), ready_delay=READY,
                  extra_args=['--tls', '--token', token, '--readonly-token', viewer]).start()
    try:
        fx.namespace(sim.client, fx.NAMESPACE)
        cache_dir = ctx.fresh_dir('kubectl-cache', 'release-scale')
        # Untimed: kubectl's discovery cache filled, as on an operator's machine.
        ctx.kubectl(['-n', fx.NAMESPACE, 'get', 'deployments'], cache_dir, sim=sim)
        samples = {tool: [] for tool in TOOLS}
        r = 0
        while valid_pairs(samples) < reps and r < reps + EXTRA_ATTEMPTS:
            image = fx.IMAGE.format(f'scale-{r + 2}')
            for tool in (TOOLS if r % 2 == 0 else TOOLS[::-1]):
                ctx.log(f'release-scale: {count} fresh Deployments for {tool} (repetition {r + 1})')
                make(sim.client, tool, r, count)
                ctx.log(f'release-scale: {tool} (repetition {r + 1})')
                sample = measure_side(ctx, sim, viewer, tool, r, count, image, cache_dir)
                samples[tool].append(sample)
                ctx.log(f'release-scale: {tool} {_summary_line(sample)}')
                remove(sim.client, tool, r, count)
            r += 1
        return {'reps': reps, 'attempts': r, 'workloads': count, 'replicas': REPLICAS, 'ready_delay': READY,
                'autogroup': autogroup(), 'samples': samples}
    finally:
        sim.stop()

"""Integration harness: real ``ansible-playbook`` runs (subprocesses of the venv's) against kubesim.

``play(sim, tasks, ...)`` writes a one-play playbook whose module_defaults point every
kubeops.rollout module at ``sim`` (its kubeconfig), runs it and returns a ``PlayResult`` with each
task's result by task name. ``Kube`` is a tiny independent HTTP client (stdlib only) for setting up
and inspecting objects, so checks do not rely on the code under test.
"""

import base64
import json
import os
import pathlib
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

import pytest
import yaml
from tests.support import manifests

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(sys.executable).parent
CALLBACKS = pathlib.Path(__file__).resolve().parent / 'callback_plugins'


class PlayResult:
    def __init__(self, proc, results, duration):
        self.proc = proc
        self.rc = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.results = results
        self.duration = duration

    def __getitem__(self, name):
        if name not in self.results:
            raise AssertionError(f'no result for task {name!r}; have {sorted(self.results)}\n'
                                 f'{self.stdout[-4000:]}')
        return self.results[name]

    def ok(self, name):
        r = self[name]
        assert r['_status'] == 'ok', f'task {name!r} failed: {r.get("msg")}'
        return r

    def failed(self, name):
        r = self[name]
        assert r['_status'] == 'failed', f'task {name!r} did not fail: {json.dumps(r)[:2000]}'
        return r


def recording_env(out):
    """The environment of an ansible-playbook run whose task results the recorder callback writes to
    ``out``: the repository's ansible.cfg, the venv first on PATH, and no K8S_AUTH_* or KUBECONFIG
    (only the kubeconfig a test gives decides where the modules connect)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith('K8S_AUTH_') and k != 'KUBECONFIG'}
    env.update({
        'ANSIBLE_CONFIG': str(ROOT / 'ansible.cfg'),
        'ANSIBLE_CALLBACK_PLUGINS': str(CALLBACKS),
        'ANSIBLE_CALLBACKS_ENABLED': 'kubeops_record',
        'KUBEOPS_RECORD_OUT': str(out),
        'ANSIBLE_NOCOLOR': '1',
        'PATH': f'{BIN}{os.pathsep}{env.get("PATH", "")}',
    })
    return env


def run_playbook(kubeconfig, tasks, *, check=False, diff=False, extra_env=None, timeout=300,
                 module_defaults=None, workdir=None, ansible_core=None):
    """``ansible_core``: a directory holding another ansible-core (tests/conftest.py's
    ``ansible_core``) to run the play with instead of the venv's."""
    defaults = {'kubeconfig': str(kubeconfig)} if kubeconfig else {}
    defaults.update(module_defaults or {})
    play = [{'hosts': 'localhost', 'gather_facts': False,
             'module_defaults': {'group/kubeops.rollout.rollout': defaults},
             'tasks': tasks}]
    workdir = pathlib.Path(workdir or tempfile.mkdtemp(prefix='kubeops-play-'))
    book = workdir / 'play.yml'
    book.write_text(yaml.safe_dump(play, sort_keys=False))
    out = workdir / 'results.json'
    env = recording_env(out)
    env['ANSIBLE_DEPRECATION_WARNINGS'] = 'false'
    env.update(extra_env or {})
    cmd = [str(BIN / 'ansible-playbook'), str(book)]
    if ansible_core is not None:
        env['PYTHONPATH'] = os.pathsep.join([str(ansible_core)] + [p for p in [env.get('PYTHONPATH')] if p])
        cmd = [str(BIN / 'python'), '-m', 'ansible.cli.playbook', str(book)]
    if check:
        cmd.append('--check')
    if diff:
        cmd.append('--diff')
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=timeout)
    duration = time.monotonic() - start
    results = json.loads(out.read_text()) if out.exists() else {}
    if not results:
        raise AssertionError(f'ansible-playbook produced no results (rc={proc.returncode}):\n'
                             f'{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}')
    return PlayResult(proc, results, duration)


@pytest.fixture
def play(tmp_path):
    counter = iter(range(1000))

    def run(sim_or_kubeconfig, tasks, **kwargs):
        kubeconfig = getattr(sim_or_kubeconfig, 'kubeconfig', sim_or_kubeconfig)
        workdir = tmp_path / f'play{next(counter)}'
        workdir.mkdir(exist_ok=True)  # a test may put files beside the playbook first
        return run_playbook(kubeconfig, tasks, workdir=workdir, **kwargs)

    return run


def task(title, module, **args):
    """A task of ``module``; ``check_mode``/``diff`` become task keywords; failures are recorded."""
    t = {'name': title, f'kubeops.rollout.{module}': args, 'register': 'r', 'ignore_errors': True}
    for key in ('check_mode', 'diff'):
        if key in args:
            t[key] = args.pop(key)
    return t


def entry(result):
    """The one workload of a module result."""
    assert len(result['workloads']) == 1, result
    return result['workloads'][0]


# ---- an independent little client ------------------------------------------------------------

PATHS = {
    'Deployment': '/apis/apps/v1/namespaces/{ns}/deployments',
    'StatefulSet': '/apis/apps/v1/namespaces/{ns}/statefulsets',
    'DaemonSet': '/apis/apps/v1/namespaces/{ns}/daemonsets',
    'ReplicaSet': '/apis/apps/v1/namespaces/{ns}/replicasets',
    'ControllerRevision': '/apis/apps/v1/namespaces/{ns}/controllerrevisions',
    'Pod': '/api/v1/namespaces/{ns}/pods',
    'ConfigMap': '/api/v1/namespaces/{ns}/configmaps',
    'Secret': '/api/v1/namespaces/{ns}/secrets',
    'Namespace': '/api/v1/namespaces',
}


# One workload of each kind, by the names the tests use for them.
ONE_OF_EACH = {'Deployment': 'web', 'StatefulSet': 'db', 'DaemonSet': 'agent'}


class Kube:
    def __init__(self, kubeconfig):
        config = yaml.safe_load(pathlib.Path(kubeconfig).read_text())
        ctx = next(c['context'] for c in config['contexts'] if c['name'] == config['current-context'])
        cluster = next(c['cluster'] for c in config['clusters'] if c['name'] == ctx['cluster'])
        user = next((u['user'] for u in config['users'] if u['name'] == ctx['user']), {}) or {}
        self.url = cluster['server'].rstrip('/')
        self.token = user.get('token')
        self.headers = {}  # more headers for every request (Impersonate-User, ...)
        self.ctx = None
        if self.url.startswith('https'):
            self.ctx = ssl.create_default_context(cadata=base64.b64decode(
                cluster['certificate-authority-data']).decode())

    def request(self, method, path, body=None, content_type='application/json'):
        req = urllib.request.Request(self.url + path, method=method,
                                     data=json.dumps(body).encode() if body is not None else None)
        req.add_header('Accept', 'application/json')
        if body is not None:
            req.add_header('Content-Type', content_type)
        if self.token:
            req.add_header('Authorization', 'Bearer ' + self.token)
        for key, value in self.headers.items():
            req.add_header(key, value)
        for attempt in range(20):  # kubesim may be set to inject faults: retry them here
            try:
                with urllib.request.urlopen(req, context=self.ctx, timeout=30) as resp:
                    return json.loads(resp.read() or b'{}')
            except urllib.error.HTTPError as e:
                if e.code in (429, 500, 502, 503) and attempt < 19:
                    time.sleep(0.05)
                    continue
                raise AssertionError(f'{method} {path} -> {e.code}: {e.read()[:500]!r}') from None
            except (urllib.error.URLError, ConnectionError) as e:
                if attempt < 19:
                    time.sleep(0.05)
                    continue
                raise AssertionError(f'{method} {path}: {e}') from None

    def path(self, kind, name=None, ns='default'):
        base = PATHS[kind].format(ns=ns)
        return f'{base}/{name}' if name else base

    def create(self, obj):
        ns = obj['metadata'].get('namespace', 'default')
        return self.request('POST', self.path(obj['kind'], ns=ns), obj)

    def get(self, kind, name, ns='default'):
        return self.request('GET', self.path(kind, name, ns))

    def list(self, kind, ns='default', selector=None):
        q = ('?labelSelector=' + urllib.request.quote(selector)) if selector else ''
        return self.request('GET', self.path(kind, ns=ns) + q)['items']

    def patch(self, kind, name, body, ns='default', content_type='application/strategic-merge-patch+json'):
        return self.request('PATCH', self.path(kind, name, ns), body, content_type)

    def wait(self, kind, name, predicate, ns='default', timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            obj = self.get(kind, name, ns)
            if predicate(obj):
                return obj
            if time.monotonic() > deadline:
                raise AssertionError(f'{kind} {name} never satisfied the condition: {json.dumps(obj)[:1500]}')
            time.sleep(0.05)

    def create_rolled_out(self, manifests):
        """Create every manifest (all at once, so their rollouts overlap), then wait for each."""
        for obj in manifests:
            self.create(obj)
        for obj in manifests:
            meta = obj['metadata']
            self.rolled_out(obj['kind'], meta['name'], ns=meta.get('namespace', 'default'))

    def rolled_out(self, kind, name, ns='default', timeout=30):
        """Wait (test-side polling, independent of the modules) until the controller has settled."""
        def done(obj):
            st, spec, meta = obj.get('status') or {}, obj['spec'], obj['metadata']
            if st.get('observedGeneration', 0) < meta.get('generation', 1):
                return False
            if kind == 'Deployment':
                r = spec.get('replicas', 1)
                # Settled only once the replaced pods are gone too: until then the controller
                # still reports them (status.terminatingReplicas).
                return (st.get('updatedReplicas', 0) == r and st.get('replicas', 0) == r
                        and st.get('availableReplicas', 0) == r and not st.get('terminatingReplicas'))
            if kind == 'StatefulSet':
                r = spec.get('replicas', 1)
                return st.get('readyReplicas', 0) == r and st.get('updatedReplicas', 0) == r
            return (st.get('updatedNumberScheduled', 0) == st.get('desiredNumberScheduled', -1)
                    and st.get('numberAvailable', 0) == st.get('desiredNumberScheduled', -1))
        return self.wait(kind, name, done, ns, timeout)

    def history_numbers(self, kind, obj):
        uid = obj['metadata']['uid']
        labels = obj['spec']['selector']['matchLabels']
        sel = ','.join(f'{k}={v}' for k, v in sorted(labels.items()))

        def owned(item):
            refs = item['metadata'].get('ownerReferences', [])
            return any(r.get('uid') == uid and r.get('controller') for r in refs)

        if kind == 'Deployment':
            items = self.list('ReplicaSet', obj['metadata']['namespace'], sel)
            nums = [int(i['metadata']['annotations']['deployment.kubernetes.io/revision'])
                    for i in items if owned(i)]
        else:
            items = self.list('ControllerRevision', obj['metadata']['namespace'], sel)
            nums = [i['revision'] for i in items if owned(i)]
        return sorted(nums)


def include(role, **role_vars):
    """A task including one of the collection's roles with ``role_vars``."""
    return {'name': role, 'ansible.builtin.include_role': {'name': f'kubeops.rollout.{role}'},
            'vars': role_vars}


def caught(role_task, fact):
    """The role, and its result fact shown whether it failed or not."""
    return [{'block': [role_task], 'rescue': [{'name': 'failed', 'ansible.builtin.debug': {'msg': 'failed'}}],
             'always': [{'name': 'show', 'ansible.builtin.debug': {'var': fact}}]}]


def image_of(obj):
    """The first container's image of a workload's pod template."""
    return obj['spec']['template']['spec']['containers'][0]['image']


def workload(kind, name, image='nginx:1.25', labels=None, replicas=2, ns='default', extra_template=None):
    """A small workload manifest: one container ``app`` (labels app=<name> unless given)."""
    labels = dict(labels or {})
    labels.setdefault('app', name)
    return manifests.workload(kind, name, image, replicas, namespace=ns, labels=labels,
                              extra_template=extra_template)


def read_log(path):
    p = pathlib.Path(path)
    if not p.exists():
        return []
    return [json.loads(line) for line in p.read_text().splitlines() if line.strip()]

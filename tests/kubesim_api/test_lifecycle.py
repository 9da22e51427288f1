"""KubeSim's in-process lifecycle and the shared fixtures."""

import socket
import threading

import pytest

from tests.conftest import RealCluster
from tests.kubesim import KubeSim

from .conftest import Http, configmap

pytestmark = pytest.mark.kubesim


def test_stop_releases_the_port_and_the_thread():
    sim = KubeSim(nodes=1).start()
    port = int(sim.url.rsplit(':', 1)[1])
    Http(sim.url).post('/api/v1/namespaces/default/configmaps', configmap('a'))
    sim.stop()
    sim.stop()  # idempotent
    assert not [t for t in threading.enumerate() if t.name == 'kubesim']
    with socket.socket() as s, pytest.raises(ConnectionRefusedError):
        s.connect(('127.0.0.1', port))


def test_context_manager_and_call():
    with KubeSim(nodes=0) as sim:
        Http(sim.url).post('/api/v1/namespaces/default/configmaps', configmap('a'))
        names = sim.call(lambda: [o['metadata']['name'] for o in sim.store.list('/configmaps', 'default')])
        assert names == ['a', 'kube-root-ca.crt']

        async def coroutine():
            return sim.store.resource_version

        assert sim.call(coroutine) == sim.call(lambda: sim.store.resource_version)
    with pytest.raises(RuntimeError):
        sim.call(lambda: None)


def test_start_failure_is_reported():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        s.listen()
        with pytest.raises(OSError):
            KubeSim(port=s.getsockname()[1]).start()
    assert not [t for t in threading.enumerate() if t.name == 'kubesim']


def test_shared_kubesim_and_kubectl_using(shared_kubesim, kubectl):
    result = kubectl.using(shared_kubesim)('get', 'ns', 'kube-system', '-o', 'name', check=True)
    assert result.stdout.strip() == 'namespace/kube-system'


def test_real_cluster_stand_in_skips_what_needs_kubesim(kubesim, kubectl):
    """With KUBEOPS_TEST_KUBECONFIG the fixtures yield this object; here it points at a kubesim."""
    real = RealCluster(kubesim.kubeconfig)
    assert real.url == kubesim.url
    assert kubectl.using(real)('get', 'ns', 'default', check=True).returncode == 0
    for use in (lambda: real.store, lambda: real.call(len, []), lambda: real.set_faults('500=1'),
                lambda: real.readiness_log):
        with pytest.raises(pytest.skip.Exception, match='KUBEOPS_TEST_KUBECONFIG'):
            use()

"""Rolling out an OnDelete StatefulSet (engine/ondelete.py): the order of the deletions (``plan``),
and ``roll`` driven against kubesim through the API client."""

import time

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.api.client import ApiClient
from ansible_collections.kubeops.rollout.plugins.module_utils.engine import ondelete
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.status import (
    COMPLETE,
    TIMEOUT,
    RolloutStatus,
)

from tests.support.manifests import pod, workload

pytestmark = pytest.mark.unit

STS_PATH = '/apis/apps/v1/namespaces/default/statefulsets'
PODS_PATH = '/api/v1/namespaces/default/pods'
BAD_IMAGE = 'registry.invalid/db:2'


def sts_pod(name, revision, deleting=False):
    return pod(name, labels={'app': 'db', 'controller-revision-hash': revision}, deleting=deleting)


def names(pods):
    return [p['metadata']['name'] for p in pods]


# ---- plan ---------------------------------------------------------------------------

def test_plan_deletes_the_live_pods_of_other_revisions_highest_ordinal_first():
    pods = [sts_pod('db-0', 'old'), sts_pod('db-10', 'old'), sts_pod('db-2', 'new'), sts_pod('db-3', 'old'),
            sts_pod('db-4', 'old', deleting=True), sts_pod('db-1', 'older')]
    assert names(ondelete.plan(pods, 'db', 'new')) == ['db-10', 'db-3', 'db-1', 'db-0']
    assert ondelete.plan([sts_pod('db-0', 'new')], 'db', 'new') == []


def test_plan_puts_pods_without_an_ordinal_last():
    pods = [sts_pod('stray', 'old'), sts_pod('db-1', 'old')]
    assert names(ondelete.plan(pods, 'db', 'new')) == ['db-1', 'stray']


# ---- roll, against kubesim ------------------------------------------------------------------------

def _client(sim):
    client = ApiClient.from_params({'kubeconfig': str(sim.kubeconfig)}, env={})
    client.sleep = lambda _s: None
    return client


def _settled(client, name='db', timeout=20):
    """The StatefulSet once all its pods are Ready at one revision."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        obj = client.get('%s/%s' % (STS_PATH, name))
        status = obj.get('status') or {}
        if (status.get('observedGeneration') == obj['metadata']['generation']
                and status.get('readyReplicas') == obj['spec']['replicas']
                and status.get('currentRevision') == status.get('updateRevision')):
            return obj
        time.sleep(0.05)
    raise AssertionError('kubesim did not roll out %s' % name)


def _pods(client):
    items = client.list(PODS_PATH, label_selector='app=db')['items']
    return {p['metadata']['name']: p for p in items}


def _on_delete_statefulset(client, replicas=3):
    client.create(STS_PATH, workload('StatefulSet', 'db', 'db:1', replicas, namespace='default',
                                     updateStrategy={'type': 'OnDelete'}))
    return _settled(client)


def _set_image(client, image):
    """The object as the write returns it: what a release hands ``roll``."""
    return client.patch('%s/db' % STS_PATH, {'spec': {'template': {'spec': {
        'containers': [{'name': 'app', 'image': image}]}}}})


@pytest.mark.kubesim_options(ready_delay=0.02)
def test_roll_replaces_one_pod_at_a_time_highest_ordinal_first(kubesim):
    client = _client(kubesim)
    _on_delete_statefulset(client)
    before = {name: p['metadata']['uid'] for name, p in _pods(client).items()}
    written = _set_image(client, 'db:2')
    # The controller changes no pod by itself.
    time.sleep(0.2)
    assert {name: p['metadata']['uid'] for name, p in _pods(client).items()} == before

    lines = []
    status, deleted = ondelete.roll(client, written, timeout=30,
                                    progress=lambda obj, s: lines.append(s.message))
    assert (status.done, status.reason) == (True, COMPLETE), status.message
    assert deleted == ['db-2', 'db-1', 'db-0']
    final = client.get('%s/db' % STS_PATH)
    revision = final['status']['updateRevision']
    assert status.message == 'statefulset "db" OnDelete update complete: 3 pods at revision %s' % revision
    pods = _pods(client)
    assert sorted(pods) == ['db-0', 'db-1', 'db-2']
    assert {p['metadata']['labels']['controller-revision-hash'] for p in pods.values()} == {revision}
    assert all(p['spec']['containers'][0]['image'] == 'db:2' for p in pods.values())
    assert not set(before.values()) & {p['metadata']['uid'] for p in pods.values()}
    # Each deletion waited for the replacement before it, which was Ready on the new revision.
    deletions = [line for line in lines if 'deleting pod' in line]
    assert deletions == [
        'Waiting for statefulset "db" OnDelete update: deleting pod db-%d (%d of 3 pods on the new revision)'
        % (2 - n, n) for n in range(3)]


@pytest.mark.kubesim_options(ready_delay=0.02)
def test_roll_is_done_at_once_when_every_pod_is_on_the_revision(kubesim):
    client = _client(kubesim)
    obj = _on_delete_statefulset(client, replicas=2)
    status, deleted = ondelete.roll(client, obj, timeout=10)
    assert (status.done, status.reason, deleted) == (True, COMPLETE, [])


@pytest.mark.kubesim_options(fail_image=r'^registry\.invalid/', ready_delay=0.02)
def test_a_replacement_that_never_gets_ready_stops_the_deletions_until_the_timeout(kubesim):
    client = _client(kubesim)
    _on_delete_statefulset(client)
    written = _set_image(client, BAD_IMAGE)
    started = time.monotonic()
    status, deleted = ondelete.roll(client, written, timeout=2)
    assert time.monotonic() - started >= 2
    assert (status.done, status.reason, deleted) == (False, TIMEOUT, ['db-2'])
    assert status.message == ('timed out after 2s replacing the pods of StatefulSet default/db '
                              '(replaced: db-2)')
    pods = _pods(client)
    assert pods['db-2']['spec']['containers'][0]['image'] == BAD_IMAGE
    assert {pods[n]['spec']['containers'][0]['image'] for n in ('db-0', 'db-1')} == {'db:1'}


@pytest.mark.kubesim_options(ready_delay=0.02)
def test_the_probe_and_a_stop_end_the_roll_before_any_deletion(kubesim):
    client = _client(kubesim)
    _on_delete_statefulset(client, replicas=2)
    written = _set_image(client, 'db:2')
    uids = {p['metadata']['uid'] for p in _pods(client).values()}

    seen = []
    verdict = RolloutStatus(False, 'db-1 crash-looping', 'CrashLoopBackOff', failed=True)
    def probe(obj):
        seen.append(obj)
        return verdict

    status, deleted = ondelete.roll(client, written, timeout=10, probe=probe, probe_interval=0)
    assert status is verdict and deleted == [] and seen == [written]

    status, deleted = ondelete.roll(client, written, timeout=10, stopped=lambda: True)
    assert (status.reason, deleted) == (TIMEOUT, [])
    assert status.message.endswith('(replaced: none)')
    assert {p['metadata']['uid'] for p in _pods(client).values()} == uids

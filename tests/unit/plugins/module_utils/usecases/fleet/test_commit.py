"""The commit point of a fleet release (usecases/fleet/commit.py) against kubesim: every release
Lease of the fleet on a cluster marked passed (once: a second commit writes nothing), the mark read
back by the inspection, nothing written in check mode or for another fleet, and a cluster that
cannot be reached named in a failed commit."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ConnectionFailure
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.fleet import commit, read
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import fleet as release_fleet
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import (
    targets as release_targets,
)

from tests.support.kube import api_client, create_settled, read_log, writes
from tests.support.manifests import workload

pytestmark = pytest.mark.unit

WEB = [{'kind': 'Deployment', 'name': 'web', 'images': {'app': 'nginx:2'}}]
CLUSTER = {'name': 'eu', 'workloads': WEB}


@pytest.fixture
def sim(kubesim_factory, tmp_path):
    sim = kubesim_factory(request_log=tmp_path / 'requests.log', ready_delay=0.02)
    sim.log = tmp_path / 'requests.log'
    sim.client = api_client(sim)
    create_settled(sim.client, workload('Deployment', 'web', 'nginx:1', 1))
    opts = release_targets.ReleaseOptions(timeout=30, fleet={'id': 'f-abc', 'wave': 1, 'keep_records': True})
    result = release_fleet.FleetRelease(sim.client, release_targets.build_targets(WEB, 'default'), opts).run()
    assert not result.failed, result.message
    return sim


def test_every_release_lease_of_the_fleet_is_marked_passed_once(sim):
    mark = len(read_log(sim.log))
    preview = commit.commit_cluster(sim.client, CLUSTER, 'f-abc', check_mode=True)
    assert preview['marked'] == [] and len(preview['releases']) == 1
    assert writes(read_log(sim.log)[mark:]) == []

    done = commit.commit_cluster(sim.client, CLUSTER, 'f-abc', at='2026-01-01T00:00:00Z')
    assert done['error'] is None and done['marked'] == done['releases'] == preview['releases']
    sent = writes(read_log(sim.log)[mark:])
    assert [(w['method'], '/leases/' in w['path']) for w in sent] == [('PUT', True)]
    entry = read.read_cluster(sim.client, CLUSTER)['workloads'][0]
    assert (entry['passed']['fleet'], entry['passed']['at']) == ('f-abc', '2026-01-01T00:00:00Z')
    assert entry['released']['fleet'] == 'f-abc' and entry['problem'] is None  # the seals still hold

    again = commit.commit_cluster(sim.client, CLUSTER, 'f-abc')
    assert again['marked'] == [] and len(writes(read_log(sim.log)[mark:])) == 1


def test_another_fleet_is_not_marked_and_an_unreachable_cluster_fails_the_commit(sim):
    mark = len(read_log(sim.log))

    def client_of(cluster):
        if cluster['name'] == 'down':
            raise ConnectionFailure('cannot connect to https://127.0.0.1:1: connection refused')
        return sim.client

    results = commit.commit_fleet([CLUSTER, {'name': 'down', 'workloads': WEB}], client_of, 'f-other')
    assert results[0] == {'name': 'eu', 'error': None, 'releases': [], 'marked': []}
    assert results[1]['error'] == 'cannot connect to https://127.0.0.1:1: connection refused'
    assert writes(read_log(sim.log)[mark:]) == []
    failed, message = commit.outcome(results, 'f-other')
    assert failed and 'down could not be marked passed' in message and 'nothing was finished' in message
    failed, message = commit.outcome(results[:1], 'f-other')
    assert not failed and '0 release Lease(s) marked passed on 1 cluster(s)' in message

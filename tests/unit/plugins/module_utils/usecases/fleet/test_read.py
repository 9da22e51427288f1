"""Reading where a cluster stands (usecases/fleet/read.py) against kubesim: no record, a kept record
of a fleet with its released mark, a record whose seal is not on its Lease, a missing workload, a
cluster that cannot be reached; and not one write."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ConnectionFailure
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.fleet import read
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import fleet as release_fleet
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import (
    targets as release_targets,
)

from tests.support.kube import api_client, create_settled, read_log, writes
from tests.support.manifests import workload

pytestmark = pytest.mark.unit

DEPLOY = '/apis/apps/v1/namespaces/default/deployments/web'
WEB = [{'kind': 'Deployment', 'name': 'web', 'images': {'app': 'nginx:2'}}]


@pytest.fixture
def sim(kubesim_factory, tmp_path):
    sim = kubesim_factory(request_log=tmp_path / 'requests.log', ready_delay=0.02)
    sim.log = tmp_path / 'requests.log'
    sim.client = api_client(sim)
    create_settled(sim.client, workload('Deployment', 'web', 'nginx:1', 1))
    return sim


def keep(client, fleet='f-abc'):
    opts = release_targets.ReleaseOptions(timeout=30, fleet={'id': fleet, 'wave': 1, 'keep_records': True})
    result = release_fleet.FleetRelease(client, release_targets.build_targets(WEB, 'default'), opts).run()
    assert not result.failed, result.message


def test_a_clean_cluster_says_what_would_change_and_writes_nothing(sim):
    mark = len(read_log(sim.log))
    got = read.read_cluster(sim.client, {'name': 'eu', 'workloads': WEB})
    assert got['name'] == 'eu' and got['error'] is None
    assert got['workloads'] == [{'workload': 'Deployment default/web', 'record': None, 'problem': None,
                                 'live': None, 'released': None, 'passed': None, 'would_change': True}]
    assert writes(read_log(sim.log)[mark:]) == []


def test_a_kept_record_is_read_with_its_fleet_wave_and_released_mark(sim):
    keep(sim.client)
    mark = len(read_log(sim.log))
    entry = read.read_cluster(sim.client, {'name': 'eu', 'workloads': WEB})['workloads'][0]
    assert (entry['record']['fleet'], entry['record']['wave']) == ('f-abc', 1)
    assert entry['released']['fleet'] == 'f-abc' and entry['live'] is None and entry['problem'] is None
    assert entry['would_change'] is False
    assert writes(read_log(sim.log)[mark:]) == []


def test_a_record_whose_seal_is_not_on_its_lease_is_a_problem_naming_the_way_out(sim):
    keep(sim.client)
    sim.client.delete('/apis/coordination.k8s.io/v1/namespaces/default/leases/%s'
                      % sim.client.list('/apis/coordination.k8s.io/v1/namespaces/default/leases')['items'][0]
                      ['metadata']['name'])
    entry = read.read_cluster(sim.client, {'name': 'eu', 'workloads': WEB})['workloads'][0]
    assert entry['record'] is None
    assert 'not acted on' in entry['problem']
    assert 'kubectl annotate deployment web -n default kubeops.rollout/release-' in entry['problem']


def test_a_missing_workload_and_an_unreachable_cluster(sim):
    missing = [{'kind': 'Deployment', 'name': 'gone', 'images': {'app': 'x:2'}}]

    def client_of(cluster):
        if cluster['name'] == 'down':
            raise ConnectionFailure('cannot connect to https://127.0.0.1:1: connection refused')
        return sim.client

    clusters = [{'name': 'eu', 'workloads': missing}, {'name': 'down', 'workloads': WEB}]
    got = read.read_fleet(clusters, client_of)
    assert got[0]['workloads'][0]['problem'] == 'not found'
    assert got[1] == {'name': 'down', 'error': 'cannot connect to https://127.0.0.1:1: connection refused',
                      'workloads': []}

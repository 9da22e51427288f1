"""Around each wave (usecases/fleet/gate.py): the check before its first write (a cluster that can
no longer be read, or holds another release, is refused), which clusters the wave gate watches and
when it measures nothing, the judgement (a wave passes only when every cluster and the analysis
passed), and the soak itself against kubesim (a Ready workload passes; one whose pods are not Ready
fails, naming the pod; not one write)."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ConnectionFailure
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.fleet import gate

from tests.support.kube import api_client, create_settled, read_log, writes
from tests.support.manifests import workload

pytestmark = pytest.mark.unit

F = 'f-000000000001'
WEB = [{'kind': 'Deployment', 'name': 'web', 'images': {'app': 'nginx:1'}}]
OK = {'failed': False, 'changed': True}


def test_which_clusters_the_gate_watches_and_when_it_measures_nothing():
    assert gate.to_gate(['a', 'b', 'c'], [OK, {'skipped': True}, OK], ['', '', '']) == ['a', 'c']
    assert gate.to_gate(['a', 'b'], [OK, {'failed': True}], []) is None  # the wave failed already
    assert gate.to_gate(['a', 'b'], [OK, {'skipped': True}], ['', 'refused before any write']) is None
    assert gate.to_gate(['a'], [{'skipped': True}], []) == []
    assert gate.skip_reason(['a'], True, 5, None) == 'check mode'
    assert gate.skip_reason(None, False, 5, None) == 'a cluster of it failed'
    assert gate.skip_reason([], False, 5, None) == 'no cluster of it was released now'
    assert gate.skip_reason(['a'], False, 0, None) == 'no wave soak or analysis asked for'
    assert gate.skip_reason(['a'], False, 0, object()) is None
    assert gate.skip_reason(['a'], False, 5, None) is None


def test_a_wave_passes_only_when_every_cluster_and_the_analysis_passed():
    assert gate.judge(2, ['a', 'b'], {'a': None, 'b': None}, None, 5) == (
        {}, 'wave 2 passed its gate: every workload of 2 cluster(s) stayed Ready for 5s')
    failures, message = gate.judge(2, ['a', 'b', 'c'], {'a': 'pod web-1 is not Ready', 'b': None}, None, 5)
    assert failures == {'a': 'wave 2 gate: pod web-1 is not Ready', 'b': 'wave 2 gate: its wave failed (a)',
                        'c': 'wave 2 gate: its wave failed (a)'}
    assert message == 'wave 2 failed its gate: a: pod web-1 is not Ready'
    analysis = {'passed': False, 'measured': 1, 'message': 'analysis failed: check "errors" 0.2 > 0.05'}
    failures, message = gate.judge(3, ['a'], {'a': None}, analysis, 0)
    assert failures == {'a': 'wave 3 gate: analysis failed: check "errors" 0.2 > 0.05'}
    assert message.endswith('analysis failed: check "errors" 0.2 > 0.05')
    assert gate.judge(3, ['a'], {'a': None}, {'passed': True, 'measured': 2}, 0)[1] == \
        'wave 3 passed its gate: the analysis passed (2 measurement(s))'


def standing(name, state, detail=''):
    return {'cluster': name, 'state': state, 'detail': detail, 'wave': None, 'released': False}


def test_a_wave_cluster_that_cannot_be_read_or_holds_another_release_is_refused():
    got = gate.refusals([standing('a', 'clean'), standing('b', 'unreachable', 'cannot be read: refused'),
                         standing('c', 'other_fleet', 'Deployment default/web carries the record of r-9'),
                         standing('d', 'fleet')])
    assert sorted(got) == ['b', 'c']
    assert got['b'].startswith('refused before any write in its wave: b: cannot be read: refused')
    assert 'finish it' in got['c']


@pytest.fixture
def sim(kubesim_factory, tmp_path):
    sim = kubesim_factory(request_log=tmp_path / 'requests.log', ready_delay=0.02, nodes=1,
                          fail_image=r'^broken:')
    sim.log = tmp_path / 'requests.log'
    sim.client = api_client(sim)
    create_settled(sim.client, workload('Deployment', 'web', 'nginx:1', 1))
    return sim


def test_the_check_reads_again_and_the_soak_watches_every_cluster_at_once(sim):
    mark = len(read_log(sim.log))

    def client_of(cluster):
        if cluster['name'] == 'down':
            raise ConnectionFailure('cannot connect to https://127.0.0.1:1: connection refused')
        return sim.client

    clusters = [{'name': 'eu', 'workloads': WEB}, {'name': 'down', 'workloads': WEB}]
    standings, refusals = gate.check_wave(clusters, client_of, F)
    assert [s['state'] for s in standings] == ['clean', 'unreachable'] and list(refusals) == ['down']

    causes, result = gate.gate_wave(clusters, client_of, 1)
    assert causes['eu'] is None and result is None
    assert 'connection refused' in causes['down']
    sim.client.patch('/apis/apps/v1/namespaces/default/deployments/web',
                     {'spec': {'template': {'spec': {'containers': [{'name': 'app', 'image': 'broken:1'}]}}}})
    causes, _ = gate.gate_wave(clusters[:1], client_of, 1)
    assert causes['eu'] and 'web' in causes['eu'], causes
    assert [w for w in writes(read_log(sim.log)[mark:]) if 'deployments' not in w['path']] == []

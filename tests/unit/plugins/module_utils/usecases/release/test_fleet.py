"""A cluster's release as part of a fleet (usecases/release/fleet.py) against kubesim: records naming
the fleet and wave, kept sealed and marked released with keep_records, put back from them by
recover: rollback, removed by finish; a record of another fleet refused."""

import json

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.engine import records
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.wait_options import GateOptions
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases import strategies
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import fleet as fleet_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import record as release_record
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import (
    targets as release_targets,
)

from tests.support.kube import api_client, create_settled, read_log, writes
from tests.support.manifests import workload

pytestmark = pytest.mark.unit

DEPLOY = '/apis/apps/v1/namespaces/default/deployments/web'
STS = '/apis/apps/v1/namespaces/default/statefulsets/db'
LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases'
FAST = {'ready_delay': 0.02, 'fail_image': r'^registry\.invalid/'}


@pytest.fixture
def sim(kubesim_factory, tmp_path):
    sim = kubesim_factory(request_log=tmp_path / 'requests.log', **FAST)
    sim.log = tmp_path / 'requests.log'
    sim.client = api_client(sim)
    create_settled(sim.client, workload('Deployment', 'web', 'nginx:1', 2))
    create_settled(sim.client, workload('StatefulSet', 'db', 'redis:1', 1))
    return sim


def entries(web='nginx:2', db='redis:2'):
    return [{'kind': 'Deployment', 'name': 'web', 'images': {'app': web}},
            {'kind': 'StatefulSet', 'name': 'db', 'images': {'app': db}}]


def release(client, wanted, fleet, **options):
    options.setdefault('timeout', 30)
    options.setdefault('gates', GateOptions(fail_fast_seconds=1))
    opts = release_targets.ReleaseOptions(fleet=fleet, **options)
    chosen = strategies.strategy(opts)
    assert chosen is fleet_mod.FleetRelease
    return chosen(client, release_targets.build_targets(wanted, 'default', 'release 2'), opts).run()


def record_of(client, path):
    text = release_record.text_of(client.get(path))
    return None if text is None else json.loads(text)


def image(client, path):
    return client.get(path)['spec']['template']['spec']['containers'][0]['image']


def leases(client):
    return [item['metadata']['name'] for item in client.get(LEASES)['items']]


def test_the_released_mark_reads_back_and_anything_else_is_no_mark():
    text = fleet_mod.released_text({'id': 'f-1', 'wave': 2}, 'r-1', '2026-01-01T00:00:00Z')
    lease = {'metadata': {'annotations': {fleet_mod.RELEASED_ANNOTATION: text}}}
    assert fleet_mod.released_mark(lease) == {'fleet': 'f-1', 'wave': 2, 'release': 'r-1',
                                              'at': '2026-01-01T00:00:00Z', 'v': records.VERSION}
    assert fleet_mod.released_mark(None) is None
    for text in ('[1]', '{}', 'not json'):
        lease = {'metadata': {'annotations': {fleet_mod.RELEASED_ANNOTATION: text}}}
        assert fleet_mod.released_mark(lease) is None


def test_kept_records_name_the_fleet_and_wave_are_marked_released_and_verified(sim):
    result = release(sim.client, entries(), {'id': 'f-abc', 'wave': 2, 'keep_records': True})

    assert not result.failed, result.message
    assert result.lines == ['Upgraded (kept for the fleet): Deployment default/web',
                            'Upgraded (kept for the fleet): StatefulSet default/db']
    kinds = [t.kind for t in release_targets.build_targets(entries(), 'default')]
    for path, kind in zip((DEPLOY, STS), kinds):
        record = record_of(sim.client, path)
        assert (record['fleet'], record['wave']) == ('f-abc', 2)
        # The marked record still belongs to the workload as it is, and its seal is on the Lease.
        workload_obj = kind(sim.client.get(path))
        checked, problem = release_record.check(workload_obj)
        assert problem is None and checked['id'] == record['id']
        assert release_record.verify(sim.client, 'default', workload_obj, record['id']) is None
    # The Lease stays, without a holder, to vouch for the records.
    lease = sim.client.get('%s/kubeops-release-%s' % (LEASES, record['id']))
    assert not lease['spec'].get('holderIdentity')
    mark = fleet_mod.released_mark(lease)
    assert (mark['fleet'], mark['wave'], mark['release']) == ('f-abc', 2, record['id'])


def test_without_keep_records_the_records_go_as_in_a_plain_release(sim):
    result = release(sim.client, entries(), {'id': 'f-abc', 'wave': 1})
    assert not result.failed, result.message
    assert record_of(sim.client, DEPLOY) is None and record_of(sim.client, STS) is None
    assert leases(sim.client) == []


def test_recover_rollback_puts_a_kept_release_back_from_its_records(sim):
    fleet = {'id': 'f-abc', 'wave': 1, 'keep_records': True}
    assert not release(sim.client, entries(), fleet).failed
    mark = len(read_log(sim.log))

    back = release(sim.client, entries(), fleet, recover='rollback')

    assert not back.failed, back.message
    assert [t.outcome for t in back.targets] == [release_targets.ROLLED_BACK] * 2
    assert (image(sim.client, DEPLOY), image(sim.client, STS)) == ('nginx:1', 'redis:1')
    assert record_of(sim.client, DEPLOY) is None and record_of(sim.client, STS) is None
    assert leases(sim.client) == []
    # Only the put-backs (and the Lease) were written.
    paths = {w['path'].split('?')[0] for w in writes(read_log(sim.log)[mark:], dry_run=False)}
    assert paths <= {DEPLOY, STS} | {p for p in paths if p.startswith(LEASES)}, paths


def test_finish_removes_the_records_of_the_fleet_and_the_lease_and_writes_no_image(sim):
    fleet = {'id': 'f-abc', 'wave': 1, 'keep_records': True}
    assert not release(sim.client, entries(), fleet).failed
    before = {path: sim.client.get(path)['spec']['template'] for path in (DEPLOY, STS)}

    preview = release(sim.client, entries(), {'id': 'f-abc', 'finish': True}, check_mode=True)
    assert not preview.failed and preview.changed, preview.message
    assert record_of(sim.client, DEPLOY) is not None

    done = release(sim.client, entries(), {'id': 'f-abc', 'finish': True})

    assert not done.failed and done.changed, done.message
    assert done.lines == ['Finished (record removed): Deployment default/web',
                          'Finished (record removed): StatefulSet default/db']
    assert record_of(sim.client, DEPLOY) is None and record_of(sim.client, STS) is None
    assert leases(sim.client) == []
    assert {path: sim.client.get(path)['spec']['template'] for path in (DEPLOY, STS)} == before
    assert (image(sim.client, DEPLOY), image(sim.client, STS)) == ('nginx:2', 'redis:2')
    again = release(sim.client, entries(), {'id': 'f-abc', 'finish': True})
    assert not again.failed and not again.changed


def test_a_finish_stopped_after_removing_the_records_leaves_a_lease_the_next_finish_removes(sim):
    fleet = {'id': 'f-abc', 'wave': 1, 'keep_records': True}
    assert not release(sim.client, entries(), fleet).failed
    # The finish stopped between the records' removal and the Lease's: the records are gone.
    for path in (DEPLOY, STS):
        sim.client.patch(path, [{'op': 'remove', 'path': '/metadata/annotations/kubeops.rollout~1release'}],
                         'application/json-patch+json')
    assert len(leases(sim.client)) == 1

    preview = release(sim.client, entries(), {'id': 'f-abc', 'finish': True}, check_mode=True)
    assert not preview.failed and 'would be removed' in ' '.join(preview.warnings), preview.warnings
    assert preview.changed  # as the real run: a Lease is deleted
    assert len(leases(sim.client)) == 1
    done = release(sim.client, entries(), {'id': 'f-abc', 'finish': True})
    assert not done.failed and 'removed: a finish of fleet release f-abc' in ' '.join(done.warnings)
    assert done.changed
    assert leases(sim.client) == []
    # Another fleet's finish leaves a Lease of this one alone.
    assert not release(sim.client, entries(web='nginx:3'), fleet).failed
    sim.client.patch(DEPLOY, [{'op': 'remove', 'path': '/metadata/annotations/kubeops.rollout~1release'}],
                     'application/json-patch+json')  # db did not change: no record there
    other = release(sim.client, entries(web='nginx:3'), {'id': 'f-other', 'finish': True})
    assert not other.failed and other.warnings == [] and len(leases(sim.client)) == 1


def test_a_record_of_another_fleet_is_refused_naming_it(sim):
    assert not release(sim.client, entries(), {'id': 'f-one', 'wave': 1, 'keep_records': True}).failed
    mark = len(read_log(sim.log))

    other = release(sim.client, entries(), {'id': 'f-two', 'wave': 1, 'keep_records': True})

    assert other.failed
    assert 'of fleet release f-one' in other.message and 'not of fleet release f-two' in other.message
    assert writes(read_log(sim.log)[mark:], dry_run=False) == []


def test_a_failed_cluster_release_puts_itself_back_and_keeps_nothing(sim):
    result = release(sim.client, entries(web='registry.invalid/web:2'),
                     {'id': 'f-abc', 'wave': 1, 'keep_records': True})
    assert result.failed
    assert (image(sim.client, DEPLOY), image(sim.client, STS)) == ('nginx:1', 'redis:1')
    assert record_of(sim.client, DEPLOY) is None and record_of(sim.client, STS) is None
    assert leases(sim.client) == []

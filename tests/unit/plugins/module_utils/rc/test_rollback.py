"""kubectl's --rollback of a rolling update (rc/rollback.py, Rollback on RollingUpdate) against
kubesim: nothing to roll back, an update that made no progress planned back then rolled back (the old
controller at its original size, the partial new one deleted, the annotations gone), and the
annotations an update left behind."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import UpdateError
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.driver import RollingUpdate
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.objects import UPDATE_ANNOTATIONS

from tests.support.kube import api_client, read_log, writes
from tests.support.rc import NEXT, ORIGINAL, RCS, create_ready_rc, options, wait_ready_rc

pytestmark = pytest.mark.unit

FAST = {'update_period': 0.01, 'poll_interval': 0.01, 'timeout': 20}


@pytest.fixture
def sim(kubesim_factory, tmp_path):
    sim = kubesim_factory(request_log=tmp_path / 'requests.log', ready_delay=0.02,
                          fail_image=r'^registry\.invalid/')
    sim.log = tmp_path / 'requests.log'
    sim.client = api_client(sim)
    sim.old = create_ready_rc(sim.client, replicas=2)
    return sim


def rollback(sim, check_mode=False, **kw):
    kw = dict(FAST, rollback=True, image=None, **kw)
    updater = RollingUpdate(sim.client, options(**kw), check_mode=check_mode)
    return updater, updater.run()


def rc_writes(sim, since):
    return [e for e in writes(read_log(sim.log)[since:], dry_run=False) if e['path'].startswith(RCS)]


def stuck_update(sim):
    """An update to an image that never pulls, given up after a second: its partial new RC's name."""
    updater = RollingUpdate(sim.client, options(**dict(FAST, image='registry.invalid/web:2', timeout=1)))
    with pytest.raises(UpdateError):
        updater.run()
    return updater.new_name


def names(sim):
    return sorted(rc['metadata']['name'] for rc in sim.client.list(RCS)['items'])


def test_nothing_to_roll_back(sim):
    mark = len(read_log(sim.log))
    updater, result = rollback(sim)
    assert not result['changed'] and result['msg'] == ('no rolling update of "web" in progress: nothing to '
                                                       'roll back')
    assert rc_writes(sim, mark) == [] and updater.diff is None


def test_an_update_in_progress_is_planned_back_then_rolled_back(sim):
    partial = stuck_update(sim)
    assert names(sim) == sorted(['web', partial])
    mark = len(read_log(sim.log))
    updater, planned = rollback(sim, check_mode=True)
    assert planned['planned'] and planned['changed']
    assert planned['msg'] == 'would roll "%s" back to "web" (2 replicas) and delete "%s"' % (partial, partial)
    assert [(s['action'], s['controller'], s['to']) for s in planned['steps']] == [('scale down', partial, 0)]
    assert planned['replication_controller']['spec']['replicas'] == 2
    assert writes(read_log(sim.log)[mark:]) == []
    assert updater.diff['before']['spec']['containers'][0]['image'] == 'registry.invalid/web:2'
    assert updater.diff['after']['spec']['containers'][0]['image'] == 'nginx:1.25'

    updater, result = rollback(sim)
    assert result['changed'] and result['msg'] == 'rolled back "%s" to "web" and deleted "%s"' % (partial,
                                                                                                  partial)
    assert names(sim) == ['web']
    web = wait_ready_rc(sim.client, 'web', 2)
    assert web['metadata']['uid'] == sim.old['metadata']['uid']
    assert not set(UPDATE_ANNOTATIONS) & set(web['metadata'].get('annotations') or {})
    pods = sim.client.list('/api/v1/namespaces/default/pods')['items']
    live = [p for p in pods if not p['metadata'].get('deletionTimestamp')]
    assert sorted(p['spec']['containers'][0]['image'] for p in live) == ['nginx:1.25'] * 2
    _, again = rollback(sim)
    assert not again['changed']


def test_the_annotations_a_finished_update_left_are_removed(sim):
    leftovers = {NEXT: 'web-gone', ORIGINAL: '2', 'keep': 'me'}
    sim.client.patch(RCS + '/web', {'metadata': {'annotations': leftovers}})
    _, planned = rollback(sim, check_mode=True)
    assert planned['changed'] and planned['msg'] == 'would remove the leftover update annotations of "web"'
    _, result = rollback(sim)
    assert result['msg'] == 'rollback of "web" finished'
    assert sim.client.get(RCS + '/web')['metadata']['annotations'] == {'keep': 'me'}


def test_a_controller_that_is_not_the_update_of_this_one_is_refused(sim):
    create_ready_rc(sim.client, name='other', replicas=1, pod_labels={'app': 'other'})
    sim.client.patch(RCS + '/web', {'metadata': {'annotations': {ORIGINAL: '2'}}})
    mark = len(read_log(sim.log))
    with pytest.raises(UpdateError, match='ReplicationController "other" is not the new controller of an '
                                          'update of "web": nothing to roll back'):
        rollback(sim, new_name='other')
    assert rc_writes(sim, mark) == []

"""RollingUpdate (rc/driver.py) against kubesim: a forward update by image (scale steps within the
surge, then renamed back, or the old one deleted), a run that finds it done, the lease taken and
released, the old controller missing, and an update that makes no progress (how far it got, why)."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError, UpdateError
from ansible_collections.kubeops.rollout.plugins.module_utils.engine.lease import LEASES_PATH
from ansible_collections.kubeops.rollout.plugins.module_utils.rc import lease as rc_lease
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.driver import RollingUpdate
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.objects import UPDATE_ANNOTATIONS
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.steps import step_dict

from tests.support.kube import api_client, read_log, writes
from tests.support.rc import RCS, create_ready_rc, options

pytestmark = pytest.mark.unit

FAST = {'update_period': 0.01, 'poll_interval': 0.01, 'timeout': 20}
LEASE = LEASES_PATH % 'default' + '/' + rc_lease.lease_name('web')


@pytest.fixture
def sim(kubesim_factory, tmp_path):
    sim = kubesim_factory(request_log=tmp_path / 'requests.log', ready_delay=0.02,
                          fail_image=r'^registry\.invalid/')
    sim.log = tmp_path / 'requests.log'
    sim.client = api_client(sim)
    return sim


def update(sim, **kw):
    return RollingUpdate(sim.client, options(**dict(FAST, **kw)))


def rcs(sim):
    return {rc['metadata']['name']: rc for rc in sim.client.list(RCS)['items']}


def pod_images(sim, selector):
    query = ','.join('%s=%s' % kv for kv in sorted(selector.items()))
    pods = sim.client.list('/api/v1/namespaces/default/pods', label_selector=query)['items']
    live = [p for p in pods if not p['metadata'].get('deletionTimestamp')]
    return sorted(p['spec']['containers'][0]['image'] for p in live)


def test_an_image_update_scales_within_the_surge_and_renames_back(sim):
    old = create_ready_rc(sim.client, replicas=3)
    updater = update(sim)
    taken = []
    updater.on_step = taken.append
    result = updater.run()
    new_name = result['new_name']
    assert result['changed'] and new_name.startswith('web-') and len(new_name) == len('web-') + 32
    assert result['msg'] == ('rolling updated "web" to "%s" in 6 scale steps then renamed back to "web"'
                             % new_name)
    assert [(s['action'], s['controller'], s['to']) for s in result['steps']] == [
        ('scale up', new_name, 1), ('scale down', 'web', 2), ('scale up', new_name, 2),
        ('scale down', 'web', 1), ('scale up', new_name, 3), ('scale down', 'web', 0)]
    assert [step_dict(s) for s in taken] == result['steps']
    assert list(rcs(sim)) == ['web']
    web = rcs(sim)['web']
    assert web['metadata']['uid'] == old['metadata']['uid']  # renamed in place
    assert web['spec']['selector'] == {'app': 'web', 'deployment': new_name[len('web-'):]}
    assert not set(UPDATE_ANNOTATIONS) & set(web['metadata'].get('annotations') or {})
    assert result['replication_controller']['metadata']['name'] == 'web'
    assert pod_images(sim, web['spec']['selector']) == ['nginx:1.26'] * 3
    assert updater.diff['after']['spec']['containers'][0]['image'] == 'nginx:1.26'
    with pytest.raises(ApiError) as gone:  # the lease was released
        sim.client.get(LEASE)
    assert gone.value.status == 404

    mark = len(read_log(sim.log))
    again = update(sim).run()
    assert not again['changed'] and again['steps'] == []
    assert [e['path'] for e in writes(read_log(sim.log)[mark:])] == [
        LEASES_PATH % 'default', LEASE]  # the lease taken and released, nothing else


def test_a_new_name_deletes_the_old_controller(sim):
    create_ready_rc(sim.client, replicas=2)
    result = update(sim, new_name='web-v2').run()
    assert result['msg'] == 'rolling updated "web" to "web-v2" in 4 scale steps and deleted "web"'
    assert list(rcs(sim)) == ['web-v2'] and result['new_name'] == 'web-v2'
    assert not set(UPDATE_ANNOTATIONS) & set(rcs(sim)['web-v2']['metadata'].get('annotations') or {})


def test_the_old_controller_missing_is_an_error_before_any_write(sim):
    mark = len(read_log(sim.log))
    with pytest.raises(UpdateError, match='ReplicationController "web" not found in namespace "default"'):
        update(sim).run()
    assert [e['path'] for e in writes(read_log(sim.log)[mark:])] == [
        LEASES_PATH % 'default', LEASE]


def test_an_update_without_progress_says_how_far_it_got_and_why(sim):
    create_ready_rc(sim.client, replicas=2)
    updater = update(sim, image='registry.invalid/web:2', timeout=1)
    with pytest.raises(UpdateError, match='timed out waiting for any update progress to be made'):
        updater.run()
    new_name = updater.new_name
    assert updater.in_progress and updater.changed
    assert [(s.action, s.controller, s.to_replicas) for s in updater.steps] == [('scale up', new_name, 1)]
    assert updater.progress() == ('"web" has 2 replicas; "%s" has 1 replicas; last change in this run: '
                                  'scaled %s to 1' % (new_name, new_name))
    lines = ' '.join(updater.diagnosis['lines'])
    assert 'ErrImagePull' in lines or 'ImagePullBackOff' in lines, lines
    assert sorted(rcs(sim)) == ['web', new_name]

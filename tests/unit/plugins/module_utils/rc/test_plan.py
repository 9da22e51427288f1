"""Check mode of a rolling update (rc/plan.py, CheckModePlan on RollingUpdate) against kubesim: the
plan of a forward update without a persisted write (the new controller validated by a dry-run
create, or computed locally when the credentials may not create), each cleanup policy's words, and
the note on a lease another run holds."""

import time

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.common import times
from ansible_collections.kubeops.rollout.plugins.module_utils.engine.lease import LEASES_PATH
from ansible_collections.kubeops.rollout.plugins.module_utils.rc import lease as rc_lease
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.driver import RollingUpdate

from tests.support.kube import api_client, read_log, writes
from tests.support.rc import RCS, create_ready_rc, options

pytestmark = pytest.mark.unit

FAST = {'update_period': 0.01, 'poll_interval': 0.01, 'timeout': 20}
LEASES = LEASES_PATH % 'default'


@pytest.fixture
def sim(kubesim_factory, tmp_path):
    sim = kubesim_factory(request_log=tmp_path / 'requests.log', ready_delay=0.02, token='admin-token',
                          readonly_token='viewer-token')
    sim.log = tmp_path / 'requests.log'
    sim.client = api_client(sim, allow_insecure_credentials=True)
    sim.old = create_ready_rc(sim.client, replicas=3)
    return sim


def plan(client, **kw):
    updater = RollingUpdate(client, options(**dict(FAST, **kw)), check_mode=True)
    return updater, updater.run()


def test_the_plan_of_an_image_update_writes_nothing(sim):
    mark = len(read_log(sim.log))
    updater, result = plan(sim.client)
    new_name = result['new_name']
    assert result['changed'] and result['planned'] and updater.warnings == []
    hash_value = new_name[len('web-'):]
    assert result['msg'].startswith('would update "web" to "%s" and rename it back to "web" (labelling its '
                                    'pods deployment=' % new_name)
    assert [(s['action'], s['controller'], s['to']) for s in result['steps']] == [
        ('scale up', new_name, 1), ('scale down', 'web', 2), ('scale up', new_name, 2),
        ('scale down', 'web', 1), ('scale up', new_name, 3), ('scale down', 'web', 0)]
    final = result['replication_controller']
    assert final['metadata']['name'] == 'web' and final['spec']['replicas'] == 3
    assert final['spec']['selector'] == {'app': 'web', 'deployment': hash_value}
    assert final['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1.26'
    log = read_log(sim.log)[mark:]
    assert [(e['method'], e['path'], e['dry_run']) for e in writes(log)] == [('POST', RCS, True)]
    assert ('GET', LEASES + '/' + rc_lease.lease_name('web')) in [(e['method'], e['path']) for e in log]
    (web,) = sim.client.list(RCS)['items']
    assert web['metadata']['resourceVersion'] == sim.old['metadata']['resourceVersion']


@pytest.mark.parametrize('kw, words', [
    ({'new_name': 'web-v2'}, 'would update "web" to "web-v2" and delete "web"'),
    ({'cleanup_policy': 'preserve'}, 'and keep "web" at 0 replicas'),
])
def test_each_cleanup_policy_in_its_words(sim, kw, words):
    _, result = plan(sim.client, **kw)
    assert words in result['msg']
    if 'new_name' in kw:
        assert result['replication_controller']['metadata']['name'] == 'web-v2'


def test_credentials_that_may_not_create_get_a_plan_computed_locally(sim, tmp_path):
    sim.write_kubeconfig(tmp_path / 'viewer', readonly=True)
    updater, result = plan(api_client(sim, allow_insecure_credentials=True))
    assert result['planned'] and len(result['steps']) == 6
    (warning,) = updater.warnings
    assert warning.startswith('check mode could not validate the new ReplicationController "%s" with a '
                              'dry-run create (forbidden' % result['new_name'])
    assert warning.endswith('the plan was computed locally')


def test_a_lease_another_run_holds_is_noted(sim):
    now = times.micro_time(time.time())
    sim.client.create(LEASES, {'metadata': {'name': rc_lease.lease_name('web')}, 'spec': {
        'holderIdentity': 'ci-runner/42/abcdefgh', 'leaseDurationSeconds': 30, 'acquireTime': now,
        'renewTime': now}})
    updater, result = plan(sim.client)
    assert result['planned']
    (warning,) = updater.warnings
    assert warning.startswith('another run is updating ReplicationController "web" ("ci-runner/42/abcdefgh" '
                              'holds Lease default/rolling-update-rc-web')
    assert warning.endswith('this plan is from the state it has reached so far')


def test_an_expired_lease_is_not_noted(sim):
    old = times.micro_time(time.time() - 120)
    sim.client.create(LEASES, {'metadata': {'name': rc_lease.lease_name('web')}, 'spec': {
        'holderIdentity': 'ci-runner/42/abcdefgh', 'leaseDurationSeconds': 30, 'acquireTime': old,
        'renewTime': old}})
    updater, _ = plan(sim.client)
    assert updater.warnings == []


def test_the_plan_of_an_update_that_is_already_done(sim):
    RollingUpdate(sim.client, options(**FAST)).run()
    mark = len(read_log(sim.log))
    _, result = plan(sim.client)
    assert not result['changed'] and result['steps'] == [] and 'planned' not in result
    assert writes(read_log(sim.log)[mark:]) == []

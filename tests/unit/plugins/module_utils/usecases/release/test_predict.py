"""What check mode predicts of a release (usecases/release/predict.py), against kubesim: each
prediction compared with the real run of the same release that follows it, and nothing written by
the check."""

import time

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.engine import lease as lease_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.common import times
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.wait_options import GateOptions
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workloads import Deployment
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases import strategies
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import predict
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import record as release_record
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import (
    targets as release_targets,
)

from tests.support.kube import api_client, create_settled, read_log, wait_until, writes
from tests.support.manifests import template, workload

pytestmark = pytest.mark.unit

BAD = 'registry.invalid/app:9'
PODS = '/api/v1/namespaces/default/pods'


@pytest.fixture
def sim(kubesim_factory, tmp_path):
    sim = kubesim_factory(request_log=tmp_path / 'requests.log', ready_delay=0.02,
                          fail_image=r'^registry\.invalid/')
    sim.log = tmp_path / 'requests.log'
    sim.client = api_client(sim)
    create_settled(sim.client, workload('Deployment', 'web', 'nginx:1', 1))
    return sim


def run(client, wanted, check, **options):
    options.setdefault('timeout', 20)
    options.setdefault('gates', GateOptions(fail_fast_seconds=1))
    opts = release_targets.ReleaseOptions(check_mode=check, **options)
    targets = release_targets.build_targets(wanted, 'default')
    return strategies.strategy(opts)(client, targets, opts).run()


def entry(name, image):
    return {'kind': 'Deployment', 'name': name, 'images': {'app': image}}


def pulling_forever(sim, name):
    """A Deployment ``name`` whose images run already and whose pod cannot pull them; its pod."""
    sim.client.create('/apis/apps/v1/namespaces/default/deployments', workload('Deployment', name, BAD, 1))

    def backing_off():
        pods = sim.client.list(PODS, label_selector='app=%s' % name)['items']
        waiting = [((cs.get('state') or {}).get('waiting') or {}).get('reason')
                   for p in pods for cs in (p.get('status') or {}).get('containerStatuses') or []]
        return pods[0]['metadata']['name'] if 'ImagePullBackOff' in waiting else None
    wait_until(backing_off, 'the pull back-off of %s' % name)
    return backing_off()


def test_a_workload_that_cannot_pull_the_images_it_runs_fails_the_check_as_it_fails_the_real_run(sim):
    pod = pulling_forever(sim, 'api')
    mark = len(read_log(sim.log))
    check = run(sim.client, [entry('web', 'nginx:2'), entry('api', BAD)], check=True)
    assert writes(read_log(sim.log)[mark:], dry_run=False) == []
    web, api = check.targets
    assert check.failed and check.changed
    assert 'ImagePullBackOff' in api.cause and pod in api.cause and 'check the image name' in api.cause
    assert (web.outcome, web.cause) == (release_targets.ROLLED_BACK, 'put back because the release failed')
    assert api.outcome == release_targets.UNTOUCHED

    real = run(sim.client, [entry('web', 'nginx:2'), entry('api', BAD)], check=False)
    assert real.failed and real.changed
    assert [t.outcome for t in real.targets] == [t.outcome for t in check.targets]
    assert 'ImagePullBackOff' in real.targets[1].cause and pod in real.targets[1].cause
    assert real.targets[0].cause == web.cause


def test_pods_still_starting_are_a_warning_not_a_failure(kubesim_factory):
    sim = kubesim_factory(ready_delay=30)
    client = api_client(sim)
    client.create('/apis/apps/v1/namespaces/default/deployments', workload('Deployment', 'web', 'nginx:1', 1))
    wait_until(lambda: client.list(PODS)['items'], 'the pod')
    result = run(client, [entry('web', 'nginx:1')], check=True)
    assert not result.failed and not result.changed, result.message
    assert result.targets[0].outcome == release_targets.UNCHANGED
    assert len(result.warnings) == 1 and 'a real run waits for it (up to 20 s)' in result.warnings[0]


def test_another_live_run_holding_the_lease_refuses_the_check_as_it_refuses_the_real_run(sim):
    opts = release_targets.ReleaseOptions()
    targets = release_targets.build_targets([entry('web', 'nginx:2')], 'default')
    name = lease_mod.lease_name(release_record.LEASE_PREFIX, release_record.release_id(targets))
    now = times.micro_time(time.time())
    sim.client.create('/apis/coordination.k8s.io/v1/namespaces/default/leases', {
        'apiVersion': 'coordination.k8s.io/v1', 'kind': 'Lease', 'metadata': {'name': name},
        'spec': {'holderIdentity': 'other-host/4242', 'leaseDurationSeconds': 600, 'acquireTime': now,
                 'renewTime': now}})
    assert opts.check_mode is False
    mark = len(read_log(sim.log))
    check = run(sim.client, [entry('web', 'nginx:2')], check=True)
    assert writes(read_log(sim.log)[mark:], dry_run=False) == []
    real = run(sim.client, [entry('web', 'nginx:2')], check=False)
    for result in (check, real):
        assert result.failed and not result.changed
        assert 'is running elsewhere' in result.message and 'other-host/4242' in result.message
        assert result.fields['next_step'] == 'wait'
    assert check.message == real.message


def test_the_text_of_a_put_back_says_the_images_were_not_released():
    t = release_targets.Target(Deployment, 'web', 'default', {'app': 'nginx:3'}, None)
    t.record = {'id': 'r-1', 'images': {'app': 'nginx:2'}}
    t.original_template = template('nginx:1')
    assert predict.put_back_text(t, False) == (
        'the images of release r-1 (app=nginx:2) were NOT released: it runs web=nginx:1 again; the images '
        'of this task (app=nginx:3) were not released either: run it again without recover to release them')
    t.images = {'app': 'nginx:2'}
    assert predict.put_back_text(t, True) == (
        'the images of release r-1 (app=nginx:2) would be NOT released: it would run web=nginx:1 again')

"""The preview as a release strategy (usecases/bluegreen/prepare.py) against kubesim: the idle color
gets the live template recolored with the new images and the live replicas, with a release record
every module recognises; a repeat writes nothing; a failed preview is put back with its replicas."""

import time

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.services import colored_template
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workloads import Deployment
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import record as release_record
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen.prepare import Prepare
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen.states import BlueGreen
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release.targets import (
    ReleaseOptions,
    Target,
)

from ..bluegreen_support import DEPLOYMENTS, LABEL, app

pytestmark = pytest.mark.unit


def targets(a, replicas=2):
    t = Target(Deployment, 'web-green', 'default', a.images, 'rollout_bluegreen: app=' + a.images['app'])
    t.base = colored_template(a.deployment('blue').template, LABEL, 'green')
    t.replicas = replicas
    return [t]


def test_the_preview_gets_the_live_template_recolored_then_a_repeat_writes_nothing(bluegreen_sim):
    sim = bluegreen_sim
    a, _options = app(sim.client)
    options = ReleaseOptions(timeout=30, release_id='bg-1')
    result = Prepare(sim.client, targets(a), options).run()
    assert not result.failed, result.message
    green = sim.client.get(DEPLOYMENTS + '/web-green')
    assert green['spec']['replicas'] == 2
    assert green['spec']['template']['metadata']['labels'] == {'app': 'web', LABEL: 'green'}
    assert green['spec']['template']['spec']['containers'][0]['image'] == 'nginx:2'
    assert release_record.RECORD_ANNOTATION not in green['metadata'].get('annotations', {})
    again = Prepare(sim.client, targets(app(sim.client)[0]), options).run()
    assert not again.changed and again.targets[0].patch is None


def test_the_write_carries_a_record_other_modules_recognise(bluegreen_sim):
    sim = bluegreen_sim
    a, _options = app(sim.client)
    (t,) = targets(a)
    prepare = Prepare(sim.client, [t], ReleaseOptions(release_id='bg-1'))
    assert prepare.preflight() == []
    written = Deployment(sim.client.patch(t.workload.path, t.patch[1], t.patch[0]))
    record, problem = release_record.check(written)
    assert problem is None and record['id'] == 'bg-1' and record['replicasBefore'] == 0
    assert release_record.in_flight_refusal(sim.client, written, 'rollback')[0]


def test_a_failed_preview_is_put_back_with_its_replicas(bluegreen_sim):
    sim = bluegreen_sim
    a, _options = app(sim.client, images={'app': 'registry.invalid/x:1'})
    options = ReleaseOptions(timeout=3, release_id='bg-2')
    result = Prepare(sim.client, targets(a), options).run()
    assert result.failed and result.targets[0].outcome == 'rolled_back', result.message
    green = sim.client.get(DEPLOYMENTS + '/web-green')
    assert green['spec']['replicas'] == 0
    assert green['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1'


def test_a_preview_refused_because_another_run_holds_the_release_names_that_run(bluegreen_sim):
    """The cause is the preview's own (a live run holds the release's Lease: wait for it), in the
    app's cause and the message; never "another preview failed"."""
    import os
    import socket
    from ansible_collections.kubeops.rollout.plugins.module_utils.common import times
    from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen import (
        record as record_mod,
    )

    sim = bluegreen_sim
    a, options = app(sim.client, state='prepared')
    holder = '%s/%d/live' % (socket.gethostname(), os.getpid())  # this very process: alive
    now = times.micro_time(time.time())
    sim.client.create('/apis/coordination.k8s.io/v1/namespaces/default/leases', {
        'metadata': {'name': 'kubeops-release-' + record_mod.release_id([a])},
        'spec': {'holderIdentity': holder, 'leaseDurationSeconds': 30, 'acquireTime': now, 'renewTime': now}})
    result = BlueGreen(sim.client, [a], options).run()
    assert result.failed and a.outcome == 'refused'
    assert 'is running elsewhere' in a.cause and 'wait for it to end' in a.cause, a.cause
    assert 'another preview failed' not in result.message and 'wait for it to end' in result.message
    assert result.next_step == 'wait'

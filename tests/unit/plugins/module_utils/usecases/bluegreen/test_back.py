"""The way back of a blue/green switch (usecases/bluegreen/back.py) against kubesim: it goes back only
to the images that were live before the switch, from a record the operator sealed; the color that is
the way back is never prepared over while it is up."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen import record as record_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen.states import BlueGreen

from tests.support import seals

from ..bluegreen_support import DEPLOYMENTS, LABEL, SERVICES, app

pytestmark = pytest.mark.unit


def switch(sim, images=None):
    a, options = app(sim.client, state='switched', images=images, scale_down_delay=600)
    result = BlueGreen(sim.client, [a], options).run()
    assert not result.failed, result.message
    return sim.client.get(SERVICES + '/web')


def image_of(sim, name):
    return sim.client.get(DEPLOYMENTS + '/' + name)['spec']['template']['spec']['containers'][0]['image']


def test_the_switch_record_keeps_the_images_left_and_is_sealed(bluegreen_sim):
    sim = bluegreen_sim
    live = switch(sim)
    record = seals.record_of(live, record_mod.ANNOTATION)
    assert (record['from'], record['to'], record['fromImages']) == ('blue', 'green', {'app': 'nginx:1'})
    assert 'lease' not in record  # the Lease is computed from the release id, never read from a record
    assert 'Service/default/web' in seals.seals_on(sim.client, 'default', record['release'])
    a, options = app(sim.client, state='rolled_back')
    result = BlueGreen(sim.client, [a], options).run()
    assert not result.failed, result.message
    assert a.outcome == 'rolled_back'
    assert sim.client.get(SERVICES + '/web')['spec']['selector'][LABEL] == 'blue'


def test_rolled_back_never_sends_traffic_to_images_that_were_never_live(bluegreen_sim):
    sim = bluegreen_sim
    switch(sim)
    sim.client.patch(DEPLOYMENTS + '/web-blue', {'spec': {'template': {'spec': {'containers': [
        {'name': 'app', 'image': 'nginx:never-live'}]}}}})
    a, options = app(sim.client, state='rolled_back')
    result = BlueGreen(sim.client, [a], options).run()
    assert result.failed and a.outcome == 'rollback_failed'
    assert 'no longer runs the images that were live before the switch (app=nginx:1; now ' \
           'app=nginx:never-live)' in a.cause
    assert sim.client.get(SERVICES + '/web')['spec']['selector'][LABEL] == 'green'  # not switched


def test_preparing_over_the_way_back_is_refused_until_finished_or_rolled_back(bluegreen_sim):
    sim = bluegreen_sim
    switch(sim)
    a, options = app(sim.client, state='prepared', images={'app': 'nginx:3'})
    result = BlueGreen(sim.client, [a], options).run()
    assert result.failed and a.outcome == 'refused' and not result.changed
    assert 'Deployment default/web-blue is the way back of the switch' in a.cause
    assert 'state: finished first' in a.cause and 'state: rolled_back' in a.cause
    assert image_of(sim, 'web-blue') == 'nginx:1'
    # Once the way back is scaled down (what finished does), the next version may be prepared there.
    sim.client.patch(DEPLOYMENTS + '/web-blue', {'spec': {'replicas': 0}})
    a, options = app(sim.client, state='prepared', images={'app': 'nginx:3'})
    result = BlueGreen(sim.client, [a], options).run()
    assert not result.failed, result.message
    assert image_of(sim, 'web-blue') == 'nginx:3'


def test_an_unsealed_switch_record_is_refused_and_nothing_is_written(bluegreen_sim):
    sim = bluegreen_sim
    live = switch(sim)
    forged = dict(seals.record_of(live, record_mod.ANNOTATION), scaleDownAt='2000-01-01T00:00:00Z')
    text = record_mod.records.encode(forged)
    sim.client.patch(SERVICES + '/web', {'metadata': {'annotations': {record_mod.ANNOTATION: text}}})
    for state in ('rolled_back', 'finished'):
        a, options = app(sim.client, state=state)
        result = BlueGreen(sim.client, [a], options).run()
        assert result.failed and not result.changed
        assert 'is not acted on' in result.message
        assert 'its seal is not on its release\'s Lease' in result.message
        assert 'kubectl annotate service web -n default kubeops.rollout/bluegreen-' in result.message
    assert sim.client.get(DEPLOYMENTS + '/web-blue')['spec']['replicas'] == 2
    assert sim.client.get(SERVICES + '/web')['spec']['selector'][LABEL] == 'green'

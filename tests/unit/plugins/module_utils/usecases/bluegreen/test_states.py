"""rollout_bluegreen's states (usecases/bluegreen/states.py) against kubesim, before any write: what is
refused and why, each app named, nothing changed."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen.states import BlueGreen

from ..bluegreen_support import DEPLOYMENTS, LABEL, SERVICES, app

pytestmark = pytest.mark.unit


def test_a_service_without_a_color_is_refused_naming_adoption(bluegreen_sim):
    sim = bluegreen_sim
    pointer = '/spec/selector/' + LABEL.replace('/', '~1')
    sim.client.patch(SERVICES + '/web', [{'op': 'remove', 'path': pointer}],
                     'application/json-patch+json')
    a, options = app(sim.client)
    result = BlueGreen(sim.client, [a], options).run()
    assert result.failed and a.outcome == 'refused' and not result.changed
    assert 'selects no color' in result.message and 'state: adopted' in result.message


def test_a_record_that_does_not_describe_the_service_is_refused_with_its_way_out(bluegreen_sim):
    sim = bluegreen_sim
    sim.client.patch(SERVICES + '/web', {'metadata': {'annotations': {'kubeops.rollout/bluegreen': 'nope'}}})
    a, options = app(sim.client)
    result = BlueGreen(sim.client, [a], options).run()
    assert result.failed and 'is not acted on: it is not JSON' in result.message
    assert 'kubectl annotate service web -n default kubeops.rollout/bluegreen-' in result.message
    assert sim.client.get(DEPLOYMENTS + '/web-green')['spec']['replicas'] == 0


def test_rolled_back_without_a_recorded_switch_is_refused(bluegreen_sim):
    sim = bluegreen_sim
    a, options = app(sim.client, state='rolled_back')
    result = BlueGreen(sim.client, [a], options).run()
    assert result.failed and 'nothing to switch back to' in result.message and not result.changed


def test_the_switch_goes_live_only_to_the_template_its_preview_judged(bluegreen_sim, monkeypatch):
    """The idle color's image changed after the preview passed its gates, before the Service write
    (a colleague with edit rights, in that window): nothing is switched and the task says why."""
    sim = bluegreen_sim
    original = BlueGreen._gate

    def gate_then_edit(self, apps, what, switched):
        original(self, apps, what, switched)
        if not switched:
            sim.client.patch(DEPLOYMENTS + '/web-green', {'spec': {'template': {'spec': {'containers': [
                {'name': 'app', 'image': 'nginx:never-judged'}]}}}})

    monkeypatch.setattr(BlueGreen, '_gate', gate_then_edit)
    a, options = app(sim.client, state='switched')
    result = BlueGreen(sim.client, [a], options).run()
    assert result.failed and a.outcome == 'refused', (a.outcome, a.cause)
    assert 'web-green is no longer what its preview judged' in a.cause
    assert 'app=nginx:never-judged, judged app=nginx:2' in a.cause
    assert sim.client.get(SERVICES + '/web')['spec']['selector'][LABEL] == 'blue'

"""state: finished (usecases/bluegreen/finish.py) against kubesim: the color a Service left is scaled
to 0 only once its record's scaleDownAt has passed; before, nothing is written and the summary says
when."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen import record as record_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen.states import BlueGreen

from tests.support import seals

from ..bluegreen_support import DEPLOYMENTS, LABEL, SERVICES, app

pytestmark = pytest.mark.unit


def switched_to_green(sim, delay):
    text = record_mod.record_text('bg-1', 'blue', 'green', {'app': 'web', LABEL: 'blue'}, record_mod.SWITCHED,
                                  delay, 'host/1/ab')
    written = sim.client.patch(SERVICES + '/web', {'metadata': {'annotations': {record_mod.ANNOTATION: text}},
                                                   'spec': {'selector': {'app': 'web', LABEL: 'green'}}})
    seals.seal(sim.client, 'default', 'bg-1', written, record_mod.ANNOTATION)


@pytest.mark.parametrize('delay', [600, 0])
def test_the_old_color_goes_only_after_the_delay(bluegreen_sim, delay):
    sim = bluegreen_sim
    switched_to_green(sim, delay)
    a, options = app(sim.client, state='finished')
    result = BlueGreen(sim.client, [a], options).run()
    assert not result.failed, result.message
    replicas = sim.client.get(DEPLOYMENTS + '/web-blue')['spec']['replicas']
    if delay:
        assert a.outcome == 'unchanged' and replicas == 2 and not result.changed
        assert any('may be scaled down at %s' % a.scale_down_at in line for line in result.lines)
    else:
        assert a.outcome == 'scaled_down' and replicas == 0 and result.changed

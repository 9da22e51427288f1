"""The switch's writes (usecases/bluegreen/switch.py) against kubesim's Services: one guarded patch
of the selector with its record, a lost answer recognised by the record, a change by someone else
never written over, check mode persisting nothing; the preview Service's selector and its put-back."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen import record as record_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen.switch import (
    ChangedElsewhere,
    Traffic,
    describe_routes,
)

from ..bluegreen_support import LABEL, SERVICES, app

pytestmark = pytest.mark.unit


def traffic(client, options):
    return Traffic(client, options, 'bg-1', 'host/1/ab', lambda obj, annotation, *texts: None)


def test_a_lost_answer_switches_once_and_is_recognised_by_its_record(bluegreen_sim):
    sim = bluegreen_sim
    a, options = app(sim.client)
    sim.set_faults('drop_after_write=services/default/web:1')
    traffic(sim.client, options).switch(a, 'green', record_mod.SWITCHING)
    live = sim.client.get(SERVICES + '/web')
    assert live['spec']['selector'] == {'app': 'web', LABEL: 'green'}
    record, problem = record_mod.check(a.service, LABEL)
    assert problem is None
    assert (record['from'], record['to'], record['phase']) == ('blue', 'green', 'switching')
    assert a.steps and a.changed and a.diffs[0][0] == 'selector'
    traffic(sim.client, options).mark(a, record_mod.SWITCHED)
    assert record_mod.check(a.service, LABEL)[0]['phase'] == 'switched'


def test_a_selector_changed_since_the_read_is_never_switched_over(bluegreen_sim):
    sim = bluegreen_sim
    a, options = app(sim.client)
    sim.client.patch(SERVICES + '/web', {'spec': {'selector': {'app': 'web', LABEL: 'blue', 'tier': 'x'}}})
    with pytest.raises(ChangedElsewhere) as e:
        traffic(sim.client, options).switch(a, 'green', record_mod.SWITCHING)
    assert 'changed by someone else' in str(e.value)
    assert sim.client.get(SERVICES + '/web')['spec']['selector'][LABEL] == 'blue'


def test_check_mode_sends_the_switch_as_a_dry_run(bluegreen_sim):
    sim = bluegreen_sim
    a, options = app(sim.client, check_mode=True)
    traffic(sim.client, options).switch(a, 'green', record_mod.SWITCHING)
    assert a.service.selector[LABEL] == 'green'  # the dry run's answer
    live = sim.client.get(SERVICES + '/web')
    assert live['spec']['selector'][LABEL] == 'blue' and record_mod.ANNOTATION not in (
        live['metadata'].get('annotations') or {})


def test_describe_routes_names_what_is_wrong():
    text = describe_routes({'ready': ['a'], 'missing': ['b'], 'unexpected': ['c'], 'not_ready': [],
                            'terminating': [], 'missing_ports': []})
    assert text == '1 ready; Ready pods without an endpoint: b; other pods routed: c'


def test_the_preview_selector_survives_a_lost_answer_and_is_put_back_unless_changed_since(bluegreen_sim):
    sim = bluegreen_sim
    a, options = app(sim.client)
    blue = {'app': 'web', LABEL: 'blue'}
    sim.set_faults('drop_after_write=services/default/web-preview:1')
    t = traffic(sim.client, options)
    a.preview_before = t.select_preview(a, blue)
    assert a.preview_before == {'app': 'web', LABEL: 'green'}
    assert sim.client.get(SERVICES + '/web-preview')['spec']['selector'] == blue
    warnings = []
    t.put_back_preview(a, warnings)
    assert warnings == [] and sim.client.get(SERVICES + '/web-preview')['spec']['selector'][LABEL] == 'green'
    assert [d[0] for d in a.diffs] == ['preview selector', 'preview selector'] and len(a.steps) == 2

    # Changed by someone else after it was selected: not put back over that change, a warning says so.
    a.preview_before = t.select_preview(a, blue)
    edited = {'app': 'web', LABEL: 'blue', 'x': 'y'}
    sim.client.patch(SERVICES + '/web-preview', {'spec': {'selector': edited}})
    sim.set_faults('conflict=services/default/web-preview:1')
    t.put_back_preview(a, warnings)
    assert len(warnings) == 1 and 'was not put back' in warnings[0], warnings
    assert 'changed by someone else' in warnings[0], warnings
    assert sim.client.get(SERVICES + '/web-preview')['spec']['selector']['x'] == 'y'

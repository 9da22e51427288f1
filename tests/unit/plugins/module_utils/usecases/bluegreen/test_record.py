import json

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.services import Service
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen import record
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen.apps import build_apps

pytestmark = pytest.mark.unit

LABEL = 'kubeops.rollout/color'


def recorded(selector, text):
    return Service(
        {
            'metadata': {'name': 'web', 'namespace': 'shop', 'annotations': {record.ANNOTATION: text}},
            'spec': {'selector': selector},
        }
    )


def text(phase='switching', to='green', before=None):
    return record.record_text(
        'bg-1',
        'blue',
        to,
        before or {'app': 'web', LABEL: 'blue'},
        phase,
        300,
        'host/1/ab',
        now=1000.0,
    )


def test_a_record_holds_the_switch_and_when_the_old_color_may_go():
    r, problem = record.parse(text())
    assert problem is None
    assert (r['from'], r['to'], r['phase'], r['release']) == ('blue', 'green', 'switching', 'bg-1')
    assert r['switchedAt'] == '1970-01-01T00:16:40Z' and r['scaleDownAt'] == '1970-01-01T00:21:40Z'
    assert record.scale_down_due(r, 1000.0) == 300
    assert json.loads(record.with_phase(text(), 'switched'))['phase'] == 'switched'


def test_a_delay_given_later_counts_from_the_switch_and_only_brings_the_time_forward():
    r, _problem = record.parse(text())
    assert record.scale_down_due(r, 1000.0, None) == 300
    assert record.scale_down_due(r, 1000.0, 60) == 60
    assert record.scale_down_due(r, 1100.0, 0) == -100
    assert record.scale_down_due(r, 1000.0, 900) == 300
    assert record.scale_down_stamp(r, None) == r['scaleDownAt']
    assert record.scale_down_stamp(r, 60) == '1970-01-01T00:17:40Z'
    assert record.scale_down_stamp(r, 900) == r['scaleDownAt']


def test_no_delay_given_at_a_switch_is_the_default_delay():
    r, _problem = record.parse(record.record_text('bg-1', 'blue', 'green', {'app': 'web'}, 'switched', None,
                                                  'host/1/ab', now=1000.0))
    assert record.scale_down_due(r, 1000.0) == record.DEFAULT_SCALE_DOWN_DELAY == 300


def test_a_record_is_acted_on_only_while_it_describes_the_service():
    ok, problem = record.check(recorded({'app': 'web', LABEL: 'green'}, text()), LABEL)
    assert problem is None and ok['to'] == 'green'
    _r, problem = record.check(recorded({'app': 'web', LABEL: 'blue'}, text()), LABEL)
    assert 'it selects kubeops.rollout/color=blue' in problem
    _r, problem = record.check(recorded({'app': 'shop', LABEL: 'green'}, text()), LABEL)
    assert 'rest of the Service' in problem
    for bad, words in (
        ('nope', 'not JSON'),
        ('[]', 'not a JSON object'),
        (json.dumps({'release': 'x'}), 'missing or of the wrong value'),
        (text().replace('"green"', '"red"'), 'from, to, phase or scaleDownAt'),
    ):
        _r, problem = record.check(recorded({'app': 'web', LABEL: 'green'}, bad), LABEL)
        assert words in problem, (bad, problem)
    svc = recorded({'app': 'web', LABEL: 'green'}, text())
    assert record.clear(svc) == 'kubectl annotate service web -n shop kubeops.rollout/bluegreen-'


def test_the_release_id_is_the_same_before_and_after_the_switch():
    apps = build_apps(
        [{'service': 'web', 'deployments': {'blue': 'a', 'green': 'b'}, 'images': {'app': 'x:1'}}],
        'shop',
        'switched',
    )
    again = build_apps(
        [{'service': 'web', 'deployments': {'blue': 'a', 'green': 'b'}, 'images': {'app': 'x:1'}}],
        'shop',
        'switched',
    )
    other = build_apps(
        [{'service': 'web', 'deployments': {'blue': 'a', 'green': 'b'}, 'images': {'app': 'x:2'}}],
        'shop',
        'switched',
    )
    assert record.release_id(apps) == record.release_id(again) != record.release_id(other)

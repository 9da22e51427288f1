"""What a blue/green task is about (usecases/bluegreen/apps.py): the entries checked before any
request, the apps read from kubesim (colors swapped, an HPA of another workload), the result."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen.apps import (
    BadApps,
    build_apps,
    judged,
    read_app,
    result_fields,
)

from ..bluegreen_support import LABEL, app

pytestmark = pytest.mark.unit


def test_bad_apps_are_refused_before_any_request_each_named():
    with pytest.raises(BadApps) as e:
        build_apps(
            [
                {'service': 'web', 'deployments': {'blue': 'web'}, 'images': {'app': 'x:1'}},
                {'service': 'api', 'deployments': {'blue': 'api', 'green': 'api'}, 'images': {}},
                {
                    'service': 'db',
                    'preview_service': 'db',
                    'deployments': {'blue': 'a', 'green': 'b'},
                    'images': {'app': ''},
                },
                {'service': 'Bad_Name', 'deployments': {'blue': 'a', 'green': 'b'}, 'images': {'app': 'x:1'}},
            ],
            'shop',
            'prepared',
        )
    problems = ' | '.join(e.value.args[0])
    assert 'apps[0] (web): deployments must name both colors' in problems
    assert 'apps[1] (api): deployments.blue and deployments.green name the same Deployment' in problems
    assert 'images is empty' in problems
    assert 'preview_service is the live Service' in problems and 'empty image' in problems
    assert 'apps[3] (Bad_Name): service' in problems
    # Without images: fine for the states that do not release.
    assert build_apps([{'service': 'web', 'deployments': {'blue': 'a', 'green': 'b'}}], 'shop', 'rolled_back')


def test_an_app_is_read_with_its_colors_and_refused_when_they_are_swapped(bluegreen_sim):
    sim = bluegreen_sim
    a, _options = app(sim.client)
    assert (a.active, a.idle) == ('blue', 'green') and a.runs_images('green') is False
    (b,) = build_apps([{'service': 'web', 'deployments': {'blue': 'web-green', 'green': 'web-blue'}}],
                      'default', 'rolled_back')
    problems = read_app(sim.client, b, LABEL)
    assert any('the colors are swapped' in p for p in problems), problems
    (c,) = build_apps([{'service': 'nope', 'deployments': {'blue': 'web-blue', 'green': 'web-green'}}],
                      'default', 'rolled_back')
    assert read_app(sim.client, c, LABEL) == ['Service default/nope: the Service not found']


def test_the_result_lists_each_app_under_its_outcome(bluegreen_sim):
    sim = bluegreen_sim
    a, _options = app(sim.client)
    a.outcome = 'switched'
    out = result_fields([a], ['Switched: Service default/web'])
    assert out['switched'] == ['Service default/web'] and out['rolled_back'] == []
    assert out['apps'][0]['deployments'] == {'blue': 'web-blue', 'green': 'web-green'}


class _Gate:
    def __init__(self, measurements):
        self.measurements = measurements

    def result(self):
        return {'passed': True, 'measured': self.measurements}


def test_each_app_judged_by_a_gate_gets_the_analysis_with_the_gate(bluegreen_sim):
    web, _options = app(bluegreen_sim.client)
    other, _options = app(bluegreen_sim.client)
    judged([web], None, 'preview')
    judged([web], _Gate(0), 'preview')
    assert web.entry().get('analysis') is None  # not given, or never measured: not returned
    judged([web], _Gate(2), 'live')
    assert web.entry()['analysis'] == {'passed': True, 'measured': 2, 'gate': 'live'}
    assert 'analysis' not in other.entry()

"""rollout_bluegreen through real ansible-playbook against kubesim's Services and EndpointSlices:
prepare, switch, switch back, finish and adopt, each repeated without a change; the live Service
never without a ready endpoint and never routing to a pod that is not Ready; check mode writing
nothing; an HPA following the switch."""

import pytest

from ..conftest import image_of, read_log
from .conftest import LABEL, NEW, OLD, Apps, app, bluegreen

pytestmark = pytest.mark.integration

LAG = 0.3  # seconds the EndpointSlice controller takes to follow a change


def test_prepare_switch_back_switch_finish_each_safe_to_repeat_and_traffic_never_broken(
    kubesim_factory, play
):
    sim = kubesim_factory(endpoint_lag=LAG, ready_delay=0.1)
    kube = Apps(sim.kubeconfig)
    kube.create_app(replicas=2)
    start = sim.clock()
    res = play(sim, [bluegreen('prepared'), bluegreen('prepared', title='again')])
    first = res.ok('prepared')
    (a,) = first['apps']
    assert a['outcome'] == 'prepared' and a['active'] == 'blue' and first['changed'], a
    green = kube.get('Deployment', 'web-green')
    assert image_of(green) == NEW and green['spec']['replicas'] == 2
    assert green['spec']['template']['metadata']['labels'][LABEL] == 'green'
    assert kube.color('web') == 'blue' and kube.color('web-preview') == 'green'
    assert 'kubeops.rollout/release' not in (green['metadata'].get('annotations') or {})
    (a,) = res.ok('again')['apps']
    assert a['outcome'] == 'unchanged' and not a['changed'], a

    res = play(sim, [bluegreen('switched'), bluegreen('switched', title='again')])
    r = res.ok('switched')
    (a,) = r['apps']
    assert a['outcome'] == 'switched' and (a['active_before'], a['active']) == ('blue', 'green'), a
    assert a['endpoints']['exact'] and len(a['endpoints']['ready']) == 2, a['endpoints']
    assert a['endpoints']['seconds'] <= LAG + 0.5, a['endpoints']
    assert a['selector_diff']['after'][LABEL] == 'green'
    assert kube.color('web') == 'green'
    record = kube.record('web')
    assert record['phase'] == 'switched' and (record['from'], record['to']) == ('blue', 'green')
    assert record['selectorBefore'] == {'app': 'web', LABEL: 'blue'}
    # Blue stays up: the way back is instant.
    assert kube.get('Deployment', 'web-blue')['spec']['replicas'] == 2

    (a,) = res.ok('again')['apps']
    assert a['outcome'] == 'unchanged' and not a['changed'], a

    res = play(
        sim,
        [
            bluegreen('rolled_back', app(images=False)),
            bluegreen('rolled_back', app(images=False), title='again'),
        ],
    )
    (a,) = res.ok('rolled_back')['apps']
    assert a['outcome'] == 'rolled_back' and a['instant'] is True and kube.color('web') == 'blue', a
    assert kube.record('web')['phase'] == 'rolled_back'
    (a,) = res.ok('again')['apps']
    assert a['outcome'] == 'unchanged' and not a['changed'], a

    res = play(sim, [bluegreen('switched', scale_down_delay=0)])
    (a,) = res.ok('switched')['apps']
    assert a['outcome'] == 'switched' and a['active'] == 'green', a

    res = play(sim, [bluegreen('finished', app(images=False))])
    (a,) = res.ok('finished')['apps']
    assert a['outcome'] == 'scaled_down', a
    kube.wait('Deployment', 'web-blue', lambda d: (d['status'].get('replicas') or 0) == 0)
    res = play(sim, [bluegreen('finished', app(images=False))])
    assert res.ok('finished')['apps'][0]['outcome'] == 'unchanged'
    assert sim.endpoint_gaps('default', 'web', since=start) == []
    assert sim.unready_routes('default', 'web', since=start) == []
    routed = set().union(*(pods for _t, pods in sim.endpoints_timeline('default', 'web')))
    assert {p.split('-')[1] for p in routed} == {'blue', 'green'}, routed


def test_a_switch_back_after_finish_scales_the_old_color_up_first_and_says_it_was_not_instant(
    kubesim_factory, play
):
    sim = kubesim_factory(endpoint_lag=LAG, ready_delay=0.1)
    kube = Apps(sim.kubeconfig)
    kube.create_app(replicas=2)
    play(sim, [bluegreen('switched', scale_down_delay=0)]).ok('switched')
    play(sim, [bluegreen('finished', app(images=False))]).ok('finished')
    kube.wait('Deployment', 'web-blue', lambda d: (d['status'].get('replicas') or 0) == 0)
    start = sim.clock()
    res = play(sim, [bluegreen('rolled_back', app(images=False))])
    (a,) = res.ok('rolled_back')['apps']
    assert a['outcome'] == 'rolled_back' and a['instant'] is False and a['active'] == 'blue', a
    assert kube.get('Deployment', 'web-blue')['spec']['replicas'] == 2
    assert sim.endpoint_gaps('default', 'web', since=start) == []
    assert sim.unready_routes('default', 'web', since=start) == []


def test_finished_before_the_delay_reports_when_and_changes_nothing(kubesim_factory, play):
    sim = kubesim_factory(ready_delay=0.1)
    kube = Apps(sim.kubeconfig)
    kube.create_app(replicas=1)
    play(sim, [bluegreen('switched', scale_down_delay=600)]).ok('switched')
    res = play(sim, [bluegreen('finished', app(images=False))])
    r = res.ok('finished')
    (a,) = r['apps']
    assert a['outcome'] == 'unchanged' and not r['changed'] and a['scale_down_at'], a
    assert any('may be scaled down at' in line for line in r['summary']), r['summary']
    assert kube.get('Deployment', 'web-blue')['spec']['replicas'] == 1


def test_check_mode_writes_nothing_and_says_whether_it_is_safe_to_switch(kubesim_factory, play, tmp_path):
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(ready_delay=0.1, request_log=str(log))
    kube = Apps(sim.kubeconfig)
    kube.create_app(replicas=2, hpa=True)
    before = {n: kube.get('Deployment', n) for n in ('web-blue', 'web-green')}
    start = len(read_log(log))
    res = play(sim, [bluegreen('switched', app(hpa='web'), check_mode=True, diff=True)])
    r = res.ok('switched')
    (a,) = r['apps']
    assert r['changed'] and a['outcome'] == 'switched', a
    assert a['safe_to_switch']['safe'] is False and 'not prepared yet' in a['safe_to_switch']['reasons'][0], a
    headers = ' '.join(d['before_header'] for d in r['diff'])
    assert 'selector' in headers and 'hpa' in headers and 'preview' in headers, headers
    writes = [e for e in read_log(log)[start:] if e['method'] not in ('GET',)]
    assert writes and all(e.get('dry_run') for e in writes), [e for e in writes if not e.get('dry_run')]
    assert kube.color('web') == 'blue' and kube.record('web') is None
    for name, obj in before.items():
        assert kube.get('Deployment', name)['metadata']['generation'] == obj['metadata']['generation']

    # Prepared for real, check mode says it is safe now, and still writes nothing.
    play(sim, [bluegreen('prepared', app(hpa='web'))]).ok('prepared')
    start = len(read_log(log))
    (a,) = play(sim, [bluegreen('switched', app(hpa='web'), check_mode=True)]).ok('switched')['apps']
    assert a['safe_to_switch'] == {'safe': True, 'reasons': []}, a
    assert all(e.get('dry_run') for e in read_log(log)[start:] if e['method'] != 'GET')
    assert kube.color('web') == 'blue'


def test_an_hpa_follows_the_switch_and_the_switch_back(kubesim_factory, play):
    sim = kubesim_factory(endpoint_lag=LAG, ready_delay=0.1)
    kube = Apps(sim.kubeconfig)
    kube.create_app(replicas=2, hpa=True)
    (a,) = play(sim, [bluegreen('switched', app(hpa='web'))]).ok('switched')['apps']
    assert a['hpa']['target'] == 'web-green' and a['hpa']['target_before'] == 'web-blue', a
    assert kube.hpa('web')['spec']['scaleTargetRef']['name'] == 'web-green'
    assert kube.record('web')['hpa'] == {'name': 'web', 'from': 'web-blue', 'to': 'web-green'}
    (a,) = play(sim, [bluegreen('rolled_back', app(hpa='web', images=False))]).ok('rolled_back')['apps']
    assert a['outcome'] == 'rolled_back' and a['instant'] is True, a
    assert kube.hpa('web')['spec']['scaleTargetRef']['name'] == 'web-blue'


def test_adoption_gives_an_app_its_colors_without_a_moment_of_zero_ready_endpoints(kubesim_factory, play):
    sim = kubesim_factory(endpoint_lag=LAG, ready_delay=0.1)
    kube = Apps(sim.kubeconfig)
    plain = {
        'apiVersion': 'apps/v1',
        'kind': 'Deployment',
        'metadata': {'name': 'web', 'namespace': 'default'},
        'spec': {
            'replicas': 2,
            'selector': {'matchLabels': {'app': 'web'}},
            'template': {
                'metadata': {'labels': {'app': 'web'}},
                'spec': {
                    'containers': [
                        {'name': 'app', 'image': OLD, 'ports': [{'name': 'http', 'containerPort': 80}]}
                    ]
                },
            },
        },
    }
    kube.create_rolled_out([plain])
    from .conftest import SERVICES, service

    kube.request('POST', SERVICES.format(ns='default'), service('web', {'app': 'web'}))
    entry = {'service': 'web', 'deployments': {'blue': 'web', 'green': 'web-green'}}
    kube.wait('Deployment', 'web', lambda d: d['status'].get('availableReplicas') == 2)
    start = sim.clock()
    res = play(sim, [bluegreen('adopted', entry), bluegreen('adopted', entry, title='again')])
    assert res.ok('adopted')['apps'][0]['outcome'] == 'adopted'
    assert res.ok('again')['apps'][0]['outcome'] == 'unchanged'
    assert kube.color('web') == 'blue' and kube.record('web')['phase'] == 'adopted'
    green = kube.get('Deployment', 'web-green')
    assert green['spec']['replicas'] == 0 and green['spec']['selector']['matchLabels'][LABEL] == 'green'
    assert kube.get('Deployment', 'web')['spec']['template']['metadata']['labels'][LABEL] == 'blue'
    assert sim.endpoint_gaps('default', 'web', since=start) == []
    # The label's rollout replaces pods the Service still routes to for the endpoint lag, as any
    # rolling update does; beyond that lag, never.
    assert sim.unready_routes('default', 'web', since=start, tolerance=LAG + 0.2) == []
    # Then a release works as for any blue/green app.
    (a,) = play(sim, [bluegreen('switched', {**entry, 'images': {'app': NEW}})]).ok('switched')['apps']
    assert a['outcome'] == 'switched' and a['active'] == 'green', a


def test_the_playbook_runs_each_state_from_the_surveys_answers(kubesim_factory, tmp_path):
    import json
    import os
    import subprocess

    from ..conftest import BIN, ROOT

    sim = kubesim_factory(endpoint_lag=LAG, ready_delay=0.1)
    kube = Apps(sim.kubeconfig)
    kube.create_app(replicas=1)
    answers = {'service': 'web', 'preview_service': 'web-preview', 'blue_deployment': 'web-blue',
               'green_deployment': 'web-green', 'container': 'app', 'image': NEW,
               'workload_namespace': 'default', 'kubeconfig': str(sim.kubeconfig), 'fail_fast_seconds': 5}
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / 'ansible.cfg'), ANSIBLE_NOCOLOR='1')
    for state, color in (('prepared', 'blue'), ('switched', 'green'), ('rolled_back', 'blue')):
        proc = subprocess.run([str(BIN / 'ansible-playbook'), str(ROOT / 'playbooks' / 'bluegreen.yml'),
                               '-e', json.dumps(dict(answers, bluegreen_state=state))],
                              capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
        assert kube.color('web') == color, state
    assert image_of(kube.get('Deployment', 'web-green')) == NEW

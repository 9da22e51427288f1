"""rollout_bluegreen through real ansible-playbook against kubesim's Services and EndpointSlices:
prepare, switch, switch back, finish and adopt, each repeated without a change; the live Service
never without a ready endpoint and never routing to a pod that is not Ready (kubesim's endpoints
timeline, with an endpoint lag); check mode writing nothing; an HPA following the switch. One play
per scenario, each state a task of it (ansible-playbook's start costs more than the states)."""

import json
import os
import subprocess

import pytest

from ..conftest import BIN, ROOT, image_of, read_log
from ..metrics import MetricsServer
from .conftest import LABEL, NEW, OLD, SERVICES, Apps, app, bluegreen, service

pytestmark = pytest.mark.integration

LAG = 0.3  # seconds the EndpointSlice controller takes to follow a change
BARE = app(images=False)


def never_broken(sim, service, start, tolerance=0.0):
    assert sim.endpoint_gaps('default', service, since=start) == []
    assert sim.unready_routes('default', service, since=start, tolerance=tolerance) == []


def test_prepare_switch_back_switch_finish_each_safe_to_repeat_and_traffic_never_broken(
        kubesim_factory, play):
    sim = kubesim_factory(endpoint_lag=LAG, ready_delay=0.1)
    kube = Apps(sim.kubeconfig)
    kube.create_app(replicas=2)
    start = sim.clock()
    res = play(sim, [
        bluegreen('prepared'), bluegreen('prepared', title='prepared again'),
        bluegreen('switched'), bluegreen('switched', title='switched again'),
        bluegreen('rolled_back', BARE), bluegreen('rolled_back', BARE, title='rolled back again'),
        bluegreen('switched', scale_down_delay_seconds=0, title='switched after all'),
        bluegreen('finished', BARE), bluegreen('finished', BARE, title='finished again')])
    r = res.ok('prepared')
    (a,) = r['apps']
    assert a['outcome'] == 'prepared' and a['active'] == 'blue' and r['changed'], a
    (a,) = res.ok('switched')['apps']
    assert a['outcome'] == 'switched' and (a['active_before'], a['active']) == ('blue', 'green'), a
    assert a['endpoints']['exact'] and len(a['endpoints']['ready']) == 2, a['endpoints']
    assert a['endpoints']['seconds'] <= LAG + 0.5, a['endpoints']
    assert a['selector_diff']['after'][LABEL] == 'green' and a['scale_down_at'], a
    (a,) = res.ok('rolled_back')['apps']
    assert a['outcome'] == 'rolled_back' and a['instant'] is True and a['active'] == 'blue', a
    (a,) = res.ok('switched after all')['apps']
    assert a['outcome'] == 'switched' and a['active'] == 'green', a
    (a,) = res.ok('finished')['apps']
    assert a['outcome'] == 'scaled_down', a
    for again in ('prepared again', 'switched again', 'rolled back again', 'finished again'):
        (a,) = res.ok(again)['apps']
        assert a['outcome'] == 'unchanged' and not a['changed'], (again, a)
    green = kube.get('Deployment', 'web-green')
    assert image_of(green) == NEW and green['spec']['replicas'] == 2
    assert green['spec']['template']['metadata']['labels'][LABEL] == 'green'
    assert 'kubeops.rollout/release' not in (green['metadata'].get('annotations') or {})
    assert kube.get('Deployment', 'web-blue')['spec']['replicas'] == 0
    assert kube.color('web') == 'green' and kube.color('web-preview') == 'green'
    record = kube.record('web')
    assert record['phase'] == 'switched' and (record['from'], record['to']) == ('blue', 'green')
    assert record['selectorBefore'] == {'app': 'web', LABEL: 'blue'}
    never_broken(sim, 'web', start)
    routed = set().union(*(pods for _t, pods in sim.endpoints_timeline('default', 'web')))
    assert {p.split('-')[1] for p in routed} == {'blue', 'green'}, routed


def test_a_switch_back_after_finish_scales_the_old_color_up_first_and_says_it_was_not_instant(
        kubesim_factory, play):
    sim = kubesim_factory(endpoint_lag=LAG, ready_delay=0.1)
    kube = Apps(sim.kubeconfig)
    kube.create_app(replicas=2)
    start = sim.clock()
    res = play(sim, [bluegreen('switched', scale_down_delay_seconds=0), bluegreen('finished', BARE),
                     bluegreen('rolled_back', BARE)])
    assert res.ok('finished')['apps'][0]['outcome'] == 'scaled_down'
    (a,) = res.ok('rolled_back')['apps']
    assert a['outcome'] == 'rolled_back' and a['instant'] is False and a['active'] == 'blue', a
    assert kube.get('Deployment', 'web-blue')['spec']['replicas'] == 2
    never_broken(sim, 'web', start)


def test_finished_before_the_delay_reports_when_and_changes_nothing(kubesim_factory, play):
    sim = kubesim_factory(ready_delay=0.1)
    kube = Apps(sim.kubeconfig)
    kube.create_app(replicas=1)
    res = play(sim, [bluegreen('switched', scale_down_delay_seconds=600), bluegreen('finished', BARE)])
    r = res.ok('finished')
    (a,) = r['apps']
    assert a['outcome'] == 'unchanged' and not r['changed'] and a['scale_down_at'], a
    assert any('may be scaled down at' in line for line in r['summary']), r['summary']
    assert kube.get('Deployment', 'web-blue')['spec']['replicas'] == 1


def test_finished_with_a_delay_of_its_own_takes_the_earlier_of_it_and_the_recorded_time(
        kubesim_factory, play):
    sim = kubesim_factory(ready_delay=0.1)
    kube = Apps(sim.kubeconfig)
    kube.create_app(replicas=1)
    res = play(sim, [bluegreen('switched', scale_down_delay_seconds=600),
                     bluegreen('finished', BARE, title='later than recorded', scale_down_delay_seconds=1200),
                     bluegreen('finished', BARE, title='earlier than recorded', scale_down_delay_seconds=60),
                     bluegreen('finished', BARE, title='now', scale_down_delay_seconds=0)])
    record = kube.record('web')
    later = res.ok('later than recorded')
    assert later['apps'][0]['outcome'] == 'unchanged' and not later['changed']
    assert later['apps'][0]['scale_down_at'] == record['scaleDownAt'], later['apps'][0]
    earlier = res.ok('earlier than recorded')
    assert earlier['apps'][0]['outcome'] == 'unchanged' and not earlier['changed']
    assert earlier['apps'][0]['scale_down_at'] < record['scaleDownAt'], (earlier['apps'][0], record)
    assert any('may be scaled down at %s' % earlier['apps'][0]['scale_down_at'] in line
               for line in earlier['summary']), earlier['summary']
    now = res.ok('now')
    assert now['apps'][0]['outcome'] == 'scaled_down' and now['changed'], now['apps'][0]
    assert kube.get('Deployment', 'web-blue')['spec']['replicas'] == 0


def test_check_mode_writes_nothing_and_says_whether_it_is_safe_to_switch(kubesim_factory, play, tmp_path):
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(ready_delay=0.1, request_log=str(log))
    kube = Apps(sim.kubeconfig)
    kube.create_app(replicas=2, hpa=True)
    generations = {n: kube.get('Deployment', n)['metadata']['generation'] for n in ('web-blue', 'web-green')}
    start = len(read_log(log))
    res = play(sim, [bluegreen('switched', app(hpa='web'), check_mode=True, diff=True)])
    r = res.ok('switched')
    (a,) = r['apps']
    assert r['changed'] and a['outcome'] == 'switched', a
    assert a['safe_to_switch']['safe'] is False and 'not prepared yet' in a['safe_to_switch']['reasons'][0], a
    headers = ' '.join(d['before_header'] for d in r['diff'])
    assert 'selector' in headers and 'hpa' in headers and 'preview' in headers, headers
    writes = [e for e in read_log(log)[start:] if e['method'] != 'GET']
    assert writes and all(e.get('dry_run') for e in writes), [e for e in writes if not e.get('dry_run')]
    assert kube.color('web') == 'blue' and kube.record('web') is None
    for name, generation in generations.items():
        assert kube.get('Deployment', name)['metadata']['generation'] == generation

    # Prepared for real: check mode now says it is safe, and still writes nothing to the Service or HPA.
    start = len(read_log(log))
    res = play(sim, [bluegreen('prepared', app(hpa='web')),
                     bluegreen('switched', app(hpa='web'), check_mode=True, title='check')])
    (a,) = res.ok('check')['apps']
    assert a['safe_to_switch'] == {'safe': True, 'reasons': []}, a
    live = ('/services/web', '/horizontalpodautoscalers/web')
    services = [e for e in read_log(log)[start:] if e['method'] != 'GET' and e['path'].endswith(live)]
    assert services and all(e.get('dry_run') for e in services), services
    assert kube.color('web') == 'blue' and kube.hpa('web')['spec']['scaleTargetRef']['name'] == 'web-blue'


def test_an_hpa_follows_the_switch_and_the_switch_back(kubesim_factory, play):
    sim = kubesim_factory(endpoint_lag=LAG, ready_delay=0.1)
    kube = Apps(sim.kubeconfig)
    kube.create_app(replicas=2, hpa=True)
    res = play(sim, [bluegreen('switched', app(hpa='web')),
                     bluegreen('rolled_back', app(hpa='web', images=False))])
    (a,) = res.ok('switched')['apps']
    assert a['hpa']['target'] == 'web-green' and a['hpa']['target_before'] == 'web-blue', a
    (a,) = res.ok('rolled_back')['apps']
    assert a['outcome'] == 'rolled_back' and a['instant'] is True and a['hpa']['target'] == 'web-blue', a
    assert kube.hpa('web')['spec']['scaleTargetRef']['name'] == 'web-blue'
    assert kube.record('web')['hpa'] == {'name': 'web', 'from': 'web-green', 'to': 'web-blue'}


def test_adoption_gives_an_app_its_colors_without_a_moment_of_zero_ready_endpoints(kubesim_factory, play):
    sim = kubesim_factory(endpoint_lag=LAG, ready_delay=0.1)
    kube = Apps(sim.kubeconfig)
    container = {'name': 'app', 'image': OLD, 'ports': [{'name': 'http', 'containerPort': 80}]}
    kube.create_rolled_out([{
        'apiVersion': 'apps/v1', 'kind': 'Deployment', 'metadata': {'name': 'web', 'namespace': 'default'},
        'spec': {'replicas': 2, 'selector': {'matchLabels': {'app': 'web'}},
                 'template': {'metadata': {'labels': {'app': 'web'}}, 'spec': {'containers': [container]}}}}])
    kube.request('POST', SERVICES.format(ns='default'), service('web', {'app': 'web'}))
    kube.wait_routed('web')
    entry = {'service': 'web', 'deployments': {'blue': 'web', 'green': 'web-green'}}
    start = sim.clock()
    res = play(sim, [bluegreen('adopted', entry), bluegreen('adopted', entry, title='adopted again'),
                     bluegreen('switched', dict(entry, images={'app': NEW}))])
    assert res.ok('adopted')['apps'][0]['outcome'] == 'adopted'
    assert res.ok('adopted again')['apps'][0]['outcome'] == 'unchanged'
    (a,) = res.ok('switched')['apps']
    assert a['outcome'] == 'switched' and (a['active_before'], a['active']) == ('blue', 'green'), a
    green = kube.get('Deployment', 'web-green')
    assert green['spec']['selector']['matchLabels'][LABEL] == 'green' and image_of(green) == NEW
    assert kube.get('Deployment', 'web')['spec']['template']['metadata']['labels'][LABEL] == 'blue'
    # The label's rollout replaces pods the Service routes to for the endpoint lag, as any rolling
    # update does; never longer, and never without a ready endpoint.
    never_broken(sim, 'web', start, tolerance=LAG + 0.2)


def test_the_playbook_runs_each_state_from_the_surveys_answers(kubesim_factory):
    sim = kubesim_factory(endpoint_lag=LAG, ready_delay=0.1)
    kube = Apps(sim.kubeconfig)
    kube.create_app(replicas=1)
    answers = {'service': 'web', 'preview_service': 'web-preview', 'blue_deployment': 'web-blue',
               'green_deployment': 'web-green', 'container': 'app', 'image': NEW,
               'workload_namespace': 'default', 'kubeconfig': str(sim.kubeconfig), 'fail_fast_seconds': 5}
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / 'ansible.cfg'), ANSIBLE_NOCOLOR='1')
    for state, color in (('switched', 'green'), ('rolled_back', 'blue')):
        proc = subprocess.run([str(BIN / 'ansible-playbook'), str(ROOT / 'playbooks' / 'bluegreen.yml'),
                               '-e', json.dumps(dict(answers, bluegreen_state=state))],
                              capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
        assert kube.color('web') == color, state
    assert image_of(kube.get('Deployment', 'web-green')) == NEW


def test_check_mode_of_prepare_switch_back_and_finish_writes_nothing_and_shows_what_the_run_then_does(
        kubesim_factory, play, tmp_path):
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(endpoint_lag=LAG, ready_delay=0.1, request_log=str(log))
    kube = Apps(sim.kubeconfig)
    kube.create_app(replicas=2)

    def checked_then_run(state, entry, before=(), **options):
        """``state`` in check mode (its own play: its requests alone in the log), then for real."""
        if before:
            play(sim, list(before))
        first = len(read_log(log))
        objects = {n: kube.get('Deployment', n) for n in ('web-blue', 'web-green')}
        services = {n: kube.service(n) for n in ('web', 'web-preview')}
        check = play(sim, [bluegreen(state, entry, check_mode=True, diff=True, **options)]).ok(state)
        writes = [e for e in read_log(log)[first:] if e['method'] != 'GET']
        assert writes and all(e['dry_run'] for e in writes), [e for e in writes if not e['dry_run']]
        for name, obj in objects.items():  # (its status may move on: the controllers' writes)
            now = kube.get('Deployment', name)
            assert (now['metadata']['generation'], now['spec'], now['metadata'].get('annotations')) == \
                (obj['metadata']['generation'], obj['spec'], obj['metadata'].get('annotations')), name
        for name, obj in services.items():
            assert kube.service(name)['metadata']['resourceVersion'] == obj['metadata']['resourceVersion']
        real = play(sim, [bluegreen(state, entry, diff=True, **options)]).ok(state)
        assert check['changed'] is real['changed'] is True, (check, real)
        assert check['diff'] and check['diff'] == real['diff'], (check['diff'], real['diff'])
        (c,), (r,) = check['apps'], real['apps']
        for key in ('outcome', 'active_before', 'active', 'selector_diff', 'changed'):
            assert c.get(key) == r.get(key), (key, c, r)
        return c, r

    c, r = checked_then_run('prepared', app())
    assert r['outcome'] == 'prepared' and kube.color('web-preview') == 'green'
    assert image_of(kube.get('Deployment', 'web-green')) == NEW
    c, r = checked_then_run('finished', BARE, before=[bluegreen('switched', scale_down_delay_seconds=0)])
    assert r['outcome'] == 'scaled_down' and kube.get('Deployment', 'web-blue')['spec']['replicas'] == 0
    # blue has no pods now: the switch back scales it up first, in check mode too (a dry run).
    c, r = checked_then_run('rolled_back', BARE)
    assert c['instant'] is r['instant'] is False and r['outcome'] == 'rolled_back', (c, r)
    assert kube.color('web') == 'blue' and kube.record('web')['phase'] == 'rolled_back'
    assert kube.get('Deployment', 'web-blue')['spec']['replicas'] == 2


def test_the_analysis_is_returned_per_app_with_the_gate_that_judged_it(kubesim_factory, play):
    metrics = MetricsServer()
    try:
        sim = kubesim_factory(endpoint_lag=LAG, ready_delay=0.1)
        kube = Apps(sim.kubeconfig)
        kube.create_app('web', replicas=1)
        kube.create_app('api', replicas=1)
        smoke = {'interval': 1, 'checks': [{'name': 'smoke', 'http': {'url': metrics.url + '/healthz'}}]}
        # The old color is scaled down (finished) before the next version is prepared in it: while
        # it is up it is the way back of the switch, which a preview never overwrites.
        res = play(sim, [bluegreen('switched', app('web'), app('api'), soak_seconds=1, analysis=smoke,
                                   scale_down_delay_seconds=0),
                         bluegreen('finished', app('web'), app('api'))])
        r = res.ok('switched')
        for a in r['apps']:
            assert a['outcome'] == 'switched' and a['analysis']['gate'] == 'live', a
            assert a['analysis']['passed'] is True and a['analysis']['checks'][0]['name'] == 'smoke', a
        assert r['analysis']['passed'] is True and r['analysis']['measured'] >= 2, r['analysis']

        # The checks fail on the preview: the app says so, with the gate, and nothing was switched.
        metrics.health_status = 500
        r = play(sim, [bluegreen('switched', app('web', images={'app': 'nginx:1.27'}), soak_seconds=1,
                                 analysis=smoke)]).failed('switched')
        (a,) = r['apps']
        assert a['analysis']['gate'] == 'preview' and a['analysis']['passed'] is False, a
        assert 'analysis failed' in a['analysis']['message'] and a['outcome'] == 'rolled_back', a
        assert kube.color('web') == 'green'
    finally:
        metrics.stop()

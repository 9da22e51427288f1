"""rollout_bluegreen interrupted (SIGTERM to ansible-playbook, as an AWX cancel sends) at the steps
after the switch, then the same task run again: the switch back that scales the old color up first,
the scale-down of ``finished``, adoption's rolling update and its Service selector change. The re-run
finishes the job; the live Service never has zero ready endpoints and never routes to a pod that is
not Ready (kubesim's endpoints timeline); the record ends consistent with the Service."""

import signal

import pytest

from ..conftest import read_log
from ..release.test_release_survives_its_runner import interrupted_when
from .conftest import LABEL, OLD, SERVICES, Apps, app, bluegreen, service

pytestmark = pytest.mark.integration

LAG = 0.3
BARE = app(images=False)


def traffic_never_broken(sim, name, start, tolerance=0.0):
    assert sim.endpoint_gaps('default', name, since=start) == []
    assert sim.unready_routes('default', name, since=start, tolerance=tolerance) == []


def test_a_switch_back_interrupted_while_the_old_color_scales_up_is_finished_by_the_same_task(
        kubesim_factory, play, tmp_path):
    sim = kubesim_factory(endpoint_lag=LAG, ready_delay=1.0)
    kube = Apps(sim.kubeconfig)
    kube.create_app(replicas=2)
    start = sim.clock()
    res = play(sim, [bluegreen('switched', scale_down_delay_seconds=0), bluegreen('finished', BARE)])
    assert res.ok('finished')['apps'][0]['outcome'] == 'scaled_down'
    assert kube.get('Deployment', 'web-blue')['spec']['replicas'] == 0

    # blue has no pods: the switch back scales it up first and waits for it; stopped in that wait.
    output = interrupted_when(sim, tmp_path, signal.SIGTERM, [bluegreen('rolled_back', BARE)],
                              lambda: kube.get('Deployment', 'web-blue')['spec']['replicas'] == 2,
                              'blue scaled up')
    assert 'interrupted' in output, output[-3000:]
    assert kube.color('web') == 'green' and kube.record('web')['phase'] == 'switched'

    (a,) = play(sim, [bluegreen('rolled_back', BARE)]).ok('rolled_back')['apps']
    assert a['outcome'] == 'rolled_back' and a['active'] == 'blue', a
    assert kube.color('web') == 'blue' and kube.get('Deployment', 'web-blue')['spec']['replicas'] == 2
    record = kube.record('web')
    assert record['phase'] == 'rolled_back' and (record['from'], record['to']) == ('green', 'blue'), record
    assert record['selectorBefore'][LABEL] == 'green'
    traffic_never_broken(sim, 'web', start)


def test_a_scale_down_interrupted_before_its_write_lands_is_done_by_the_same_task(
        kubesim_factory, play, tmp_path):
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(endpoint_lag=LAG, ready_delay=0.1, request_log=str(log))
    kube = Apps(sim.kubeconfig)
    kube.create_app(replicas=2)
    start = sim.clock()
    play(sim, [bluegreen('switched', scale_down_delay_seconds=0)]).ok('switched')
    # The API server answers every PATCH 429 (Retry-After 10 s): finished's scale-down waits to send
    # its write again, and is stopped there.
    sim.set_faults('429=1;methods=PATCH;retry_after=10')
    first = len(read_log(log))

    def held():
        return any(e['method'] == 'PATCH' and e['status'] == 429 for e in read_log(log)[first:])
    output = interrupted_when(sim, tmp_path, signal.SIGTERM, [bluegreen('finished', BARE)], held,
                              'the scale-down answered 429')
    assert 'interrupted' in output, output[-3000:]
    assert kube.get('Deployment', 'web-blue')['spec']['replicas'] == 2
    sim.set_faults('')

    res = play(sim, [bluegreen('finished', BARE), bluegreen('finished', BARE, title='finished again')])
    assert res.ok('finished')['apps'][0]['outcome'] == 'scaled_down'
    assert res.ok('finished again')['apps'][0]['outcome'] == 'unchanged'
    assert kube.get('Deployment', 'web-blue')['spec']['replicas'] == 0
    assert kube.color('web') == 'green' and kube.record('web')['phase'] == 'switched'
    traffic_never_broken(sim, 'web', start)


def _single(kube, replicas=2):
    """An app with one Deployment ``web`` (no color) and its Service."""
    container = {'name': 'app', 'image': OLD, 'ports': [{'name': 'http', 'containerPort': 80}]}
    kube.create_rolled_out([{
        'apiVersion': 'apps/v1', 'kind': 'Deployment', 'metadata': {'name': 'web', 'namespace': 'default'},
        'spec': {'replicas': replicas, 'selector': {'matchLabels': {'app': 'web'}},
                 'template': {'metadata': {'labels': {'app': 'web'}}, 'spec': {'containers': [container]}}}}])
    kube.request('POST', SERVICES.format(ns='default'), service('web', {'app': 'web'}))
    kube.wait_routed('web')


@pytest.mark.parametrize('step', ['rollout', 'selector'])
def test_an_interrupted_adoption_is_finished_by_the_same_task(kubesim_factory, play, tmp_path, step):
    lag = 1.0 if step == 'selector' else LAG
    sim = kubesim_factory(endpoint_lag=lag, ready_delay=3.0 if step == 'rollout' else 0.1)
    kube = Apps(sim.kubeconfig)
    _single(kube)
    entry = {'service': 'web', 'deployments': {'blue': 'web', 'green': 'web-green'}}
    start = sim.clock()
    if step == 'rollout':  # the color label's rolling update of web is under way
        def ready():
            labels = kube.get('Deployment', 'web')['spec']['template']['metadata']['labels']
            return labels.get(LABEL) == 'blue'
    else:  # the Service's selector has the color; its EndpointSlices follow after the lag
        def ready():
            return kube.color('web') == 'blue'
    output = interrupted_when(sim, tmp_path, signal.SIGTERM, [bluegreen('adopted', entry)], ready, step)
    assert 'interrupted' in output, output[-3000:]

    res = play(sim, [bluegreen('adopted', entry), bluegreen('adopted', entry, title='adopted again')])
    (a,) = res.ok('adopted')['apps']
    assert a['outcome'] in (('adopted',) if step == 'rollout' else ('adopted', 'unchanged')), a
    assert res.ok('adopted again')['apps'][0]['outcome'] == 'unchanged'
    assert kube.color('web') == 'blue' and kube.record('web')['phase'] == 'adopted'
    assert kube.get('Deployment', 'web-green')['spec']['replicas'] == 0
    web = kube.get('Deployment', 'web')
    assert web['spec']['template']['metadata']['labels'][LABEL] == 'blue'
    ready_pods, other = kube.routes('web')
    assert len(ready_pods) == 2 and not other, (ready_pods, other)
    # The label's rollout replaces pods the Service routes to for the endpoint lag, never longer.
    traffic_never_broken(sim, 'web', start, tolerance=lag + 0.2)

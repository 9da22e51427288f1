"""rollout_bluegreen when things go wrong, through real ansible-playbook against kubesim: a pod made
unready between the check and the switch, lost answers and conflicts on the Service patch, two
Services where the second fails (both back), a run interrupted by SIGTERM at each step then run
again. The live Service never has zero ready endpoints and never routes to a pod that is not Ready."""

import signal
import threading
import time

import pytest

from ..conftest import image_of, read_log
from ..release.test_release_survives_its_runner import interrupted_when
from .conftest import LABEL, NEW, OLD, Apps, app, bluegreen

pytestmark = pytest.mark.integration

LAG = 0.3


def traffic_never_broken(sim, service, start, tolerance=0.0):
    assert sim.endpoint_gaps('default', service, since=start) == []
    assert sim.unready_routes('default', service, since=start, tolerance=tolerance) == []


def test_a_pod_made_unready_between_the_check_and_the_switch_switches_back(kubesim_factory, play):
    sim = kubesim_factory(endpoint_lag=LAG, ready_delay=0.1)
    kube = Apps(sim.kubeconfig)
    kube.create_app(replicas=2)
    start = sim.clock()
    struck = []

    def strike():
        # The preview passed its checks: the moment the live selector names green, a green pod fails
        # its readiness probe (and stays so).
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and kube.color('web') != 'green':
            time.sleep(0.01)
        pod = sorted(p['metadata']['name'] for p in kube.list('Pod', selector='%s=green' % LABEL))[0]
        sim.make_unready('default', pod)
        struck.append(pod)

    helper = threading.Thread(target=strike, daemon=True)
    helper.start()
    res = play(sim, [bluegreen('switched', fail_fast_seconds=2, timeout=20)])
    helper.join(5)
    r = res.failed('switched')
    (a,) = r['apps']
    assert struck and a['outcome'] == 'rolled_back', a
    assert '1 Ready green pods, 2 needed' in a['cause'], a['cause']
    assert kube.color('web') == 'blue' and kube.record('web')['phase'] == 'rolled_back'
    # The unready pod stays an endpoint for the lag (the EndpointSlice controller's), never longer.
    traffic_never_broken(sim, 'web', start, tolerance=LAG + 0.2)


@pytest.mark.parametrize('fault', ['drop_after_write', 'conflict'])
def test_a_lost_answer_or_a_conflict_on_the_service_patch_switches_exactly_once(
    kubesim_factory, play, tmp_path, fault
):
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(endpoint_lag=LAG, ready_delay=0.1, request_log=str(log))
    kube = Apps(sim.kubeconfig)
    kube.create_app(replicas=2)
    sim.set_faults('%s=services/default/web:1' % fault)
    start, first = sim.clock(), len(read_log(log))
    (a,) = play(sim, [bluegreen('switched')]).ok('switched')['apps']
    assert a['outcome'] == 'switched' and kube.color('web') == 'green', a
    patches = [
        e
        for e in read_log(log)[first:]
        if e['method'] == 'PATCH' and e['path'].endswith('/services/web') and not e.get('dry_run')
    ]
    applied = [e for e in patches if e['status'] in (0, 200)]
    # The switch applied once (the lost answer's or after the conflict), then the record's phase.
    assert len(applied) == 2, patches
    assert kube.record('web')['phase'] == 'switched'
    traffic_never_broken(sim, 'web', start)


def test_two_services_where_the_second_fails_are_both_switched_back(kubesim_factory, play):
    sim = kubesim_factory(endpoint_lag=LAG, ready_delay=0.1)
    kube = Apps(sim.kubeconfig)
    kube.create_app('web', replicas=2)
    kube.create_app('api', replicas=2)
    # api's switch keeps conflicting (someone else keeps writing it): it cannot switch.
    sim.set_faults('conflict=services/default/api:20')
    start = sim.clock()
    r = play(sim, [bluegreen('switched', app('web'), app('api'))]).failed('switched')
    web, api = r['apps']
    assert web['outcome'] == 'rolled_back' and web['active'] == 'blue', web
    assert api['outcome'] in ('refused', 'unchanged', 'rolled_back') and api['cause'], api
    assert kube.color('web') == 'blue' and kube.color('api') == 'blue'
    assert kube.record('web')['phase'] == 'rolled_back'
    traffic_never_broken(sim, 'web', start)
    traffic_never_broken(sim, 'api', start)


def _phase(kube):
    record = kube.record('web')
    return record and record['phase']


@pytest.mark.parametrize('step', ['preview', 'soak'])
def test_an_interrupted_run_is_resumed_by_the_same_task(kubesim_factory, play, tmp_path, step):
    sim = kubesim_factory(endpoint_lag=LAG, ready_delay=1.0 if step == 'preview' else 0.1)
    kube = Apps(sim.kubeconfig)
    kube.create_app(replicas=2)
    start = sim.clock()
    tasks = [bluegreen('switched', soak_seconds=4 if step == 'soak' else 0)]
    if step == 'preview':
        def ready():
            annotations = kube.get('Deployment', 'web-green')['metadata'].get('annotations') or {}
            return 'kubeops.rollout/release' in annotations
    else:
        def ready():
            return _phase(kube) == 'switching'
    output = interrupted_when(sim, tmp_path, signal.SIGTERM, tasks, ready, step)
    assert 'interrupted' in output, output[-3000:]
    if step == 'soak':
        assert _phase(kube) == 'switching' and kube.color('web') == 'green'
    res = play(sim, [bluegreen('switched')])
    (a,) = res.ok('switched')['apps']
    assert a['outcome'] == 'switched' and kube.color('web') == 'green', a
    assert _phase(kube) == 'switched'
    traffic_never_broken(sim, 'web', start)


def test_an_unverified_switch_of_another_release_is_refused_then_recover_rollback_switches_back(
    kubesim_factory, play, tmp_path
):
    sim = kubesim_factory(endpoint_lag=LAG, ready_delay=0.1)
    kube = Apps(sim.kubeconfig)
    kube.create_app(replicas=2)
    interrupted_when(
        sim,
        tmp_path,
        signal.SIGTERM,
        [bluegreen('switched', soak_seconds=4)],
        lambda: _phase(kube) == 'switching',
        'the switch',
    )
    other = app(images={'app': 'nginx:1.27'})
    r = play(sim, [bluegreen('switched', other)]).failed('switched')
    assert 'was not verified' in r['msg'] and 'recover: resume' in r['msg'], r['msg']
    (a,) = play(sim, [bluegreen('switched', other, recover='rollback')]).ok('switched')['apps']
    assert a['outcome'] == 'rolled_back' and kube.color('web') == 'blue', a
    assert _phase(kube) == 'rolled_back'


def test_recover_rollback_says_the_images_were_not_released_and_check_mode_previews_the_same(
        kubesim_factory, play, tmp_path):
    sim = kubesim_factory(endpoint_lag=LAG, ready_delay=0.1)
    kube = Apps(sim.kubeconfig)
    kube.create_app(replicas=2)
    interrupted_when(sim, tmp_path, signal.SIGTERM, [bluegreen('switched', soak_seconds=4)],
                     lambda: _phase(kube) == 'switching', 'the switch')
    first, version = kube.record('web'), kube.service('web')['metadata']['resourceVersion']
    asked = bluegreen('switched', app(images={'app': 'nginx:1.27'}), recover='rollback')
    check = play(sim, [dict(asked, check_mode=True, diff=True)]).ok('switched')
    assert kube.service('web')['metadata']['resourceVersion'] == version and kube.color('web') == 'green'
    real = play(sim, [dict(asked, diff=True)]).ok('switched')
    assert kube.color('web') == 'blue' and _phase(kube) == 'rolled_back'
    assert [a['outcome'] for a in check['apps']] == [a['outcome'] for a in real['apps']] == ['rolled_back']
    assert check['changed'] is real['changed'] is True
    assert check['diff'] and check['diff'] == real['diff']
    said = 'the images of release %s (app=%s on green)' % (first['release'], NEW)
    assert check['msg'].startswith('Would switch back: Service default/web (green -> blue)'), check['msg']
    assert said + ' would be NOT released: live traffic would be back on blue (app=%s)' % OLD in check['msg']
    assert said + ' were NOT released: live traffic is back on blue (app=%s)' % OLD in real['msg']
    assert 'the images of this task (app=nginx:1.27) were not released either' in real['msg']


def test_recover_resume_finishes_the_unverified_switch_of_another_release_and_says_its_images_wait(
        kubesim_factory, play, tmp_path):
    sim = kubesim_factory(endpoint_lag=LAG, ready_delay=0.1)
    kube = Apps(sim.kubeconfig)
    kube.create_app(replicas=2)
    start = sim.clock()
    # Stopped in the post-switch soak (the preview soaks first, as long): the switch is unverified.
    interrupted_when(sim, tmp_path, signal.SIGTERM, [bluegreen('switched', soak_seconds=4)],
                     lambda: _phase(kube) == 'switching', 'the switch')
    first = kube.record('web')
    other = app(images={'app': 'nginx:1.27'})
    r = play(sim, [bluegreen('switched', other, recover='resume')]).ok('switched')
    (a,) = r['apps']
    assert a['outcome'] == 'switched' and (a['active_before'], a['active']) == ('blue', 'green'), a
    assert a['endpoints']['exact'] and len(a['endpoints']['ready']) == 2, a
    record = kube.record('web')
    assert record['phase'] == 'switched' and record['release'] == first['release'], record
    # The other release's switch is what was resumed: its images, not this task's, which it says.
    assert image_of(kube.get('Deployment', 'web-green')) == NEW
    assert any('nginx:1.27' in w and 'were not released' in w for w in r.get('warnings') or []), r
    traffic_never_broken(sim, 'web', start)


def test_a_failed_preview_put_back_puts_its_preview_service_back_too(kubesim_factory, play):
    sim = kubesim_factory(endpoint_lag=LAG, ready_delay=0.1, fail_image='broken')
    kube = Apps(sim.kubeconfig)
    kube.create_app(replicas=2)
    broken = app(images={'app': 'broken:1'})
    # blue is scaled down first (finished): while it is up it is the switch's way back, which a
    # preview never overwrites.
    res = play(sim, [bluegreen('switched', scale_down_delay_seconds=0), bluegreen('finished'),
                     bluegreen('switched', broken, fail_fast_seconds=2, title='broken')])
    assert res.ok('switched')['apps'][0]['active'] == 'green'
    # green is live and the preview selects it; the broken preview of blue is put back (blue's
    # template and replicas), and the preview Service with it: it routes to green again, not nothing.
    (a,) = res.failed('broken')['apps']
    assert a['outcome'] == 'rolled_back' and a['active'] == 'green', a
    assert [s for s in a['steps'] if 'web-preview selector' in s] == [
        'Service default/web-preview selector app=web,%s=green -> app=web,%s=blue' % (LABEL, LABEL),
        'Service default/web-preview selector app=web,%s=blue -> app=web,%s=green' % (LABEL, LABEL),
    ], a['steps']
    assert kube.color('web-preview') == 'green' and image_of(kube.get('Deployment', 'web-blue')) == OLD
    kube.wait_routed('web-preview')
    assert kube.color('web') == 'green'

"""Check mode predicts the real run: for each refusal that blue/green, the release, the traffic canary
and rollout_traffic can give from what is already on the cluster, the same task in check mode and
then for real (two real ansible-playbook runs against kubesim) fail alike: the same cause in their
messages, the same ``changed``. The check run wrote nothing: no write but dry runs in kubesim's
request log, and the objects' generation, resourceVersion, spec and annotations as before it."""

import json
import time

import pytest

from ..bluegreen.conftest import LABEL, NEW, SERVICES, Apps, app, bluegreen
from ..conftest import read_log, task
from ..traffic.conftest import build, canary_task, traffic_task

pytestmark = pytest.mark.integration

BROKEN = 'registry.example.com/broken:9'  # kubesim's fail_image: never pulls
LEASE_PREFIX = 'kubeops-release-'  # the Lease of release <id>: kubeops-release-<id>
LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases'
ROUTES = '/apis/gateway.networking.k8s.io/v1/namespaces/default/httproutes'
DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments'


def held_lease(kube, release):
    """The Lease of ``release``, held and renewed just now by a run on another host."""
    now = time.strftime('%Y-%m-%dT%H:%M:%S.000000Z', time.gmtime())
    kube.request('POST', LEASES, {
        'apiVersion': 'coordination.k8s.io/v1', 'kind': 'Lease', 'metadata': {'name': LEASE_PREFIX + release},
        'spec': {'holderIdentity': 'other-host/4242', 'leaseDurationSeconds': 600, 'acquireTime': now,
                 'renewTime': now}})
    return ['is running elsewhere', 'other-host/4242']


def pods_waiting(kube, selector, reason):
    """The names of the pods of ``selector`` once each waits in ``reason``."""
    deadline = time.monotonic() + 20
    while True:
        pods = kube.list('Pod', selector=selector)
        states = [((cs.get('state') or {}).get('waiting') or {}).get('reason')
                  for p in pods for cs in (p.get('status') or {}).get('containerStatuses') or []]
        if pods and states and all(s == reason for s in states):
            return sorted(p['metadata']['name'] for p in pods)
        assert time.monotonic() < deadline, 'the pods of %s never waited in %s: %s' % (
            selector, reason, states)
        time.sleep(0.1)


# -- blue/green
def bg_crash_looping(kube, sim):
    """The idle color runs the new images already, and crash-loops: the switch is refused."""
    kube.create_app(replicas=1)
    kube.patch('Deployment', 'web-green', {'spec': {'replicas': 1, 'template': {'spec': {
        'containers': [{'name': 'app', 'image': NEW}]}}}})
    pods = pods_waiting(kube, 'app=web,%s=green' % LABEL, 'CrashLoopBackOff')
    return (bluegreen('switched', fail_fast_seconds=1),
            ['CrashLoopBackOff', 'container app', 'restarts'] + pods)


def bg_selects_no_color(kube, sim):
    kube.create_app(replicas=1)
    kube.request('PATCH', SERVICES.format(ns='default') + '/web',
                 {'spec': {'selector': {LABEL: None}}}, 'application/merge-patch+json')
    return bluegreen('switched'), ['selects no color', 'adopt the app first']


def bg_nothing_to_switch_back(kube, sim):
    kube.create_app(replicas=1)
    return bluegreen('rolled_back', app(images=False)), ['no switch is recorded on it']


def bg_lease_held(kube, sim):
    kube.create_app(replicas=1)
    return bluegreen('switched', release_id='bg-check'), held_lease(kube, 'bg-check')


# -- the release
def release(*entries, **options):
    options.setdefault('timeout', 30)
    options.setdefault('fail_fast_seconds', 1)
    return task('release', 'rollout_release', workloads=[
        {'kind': 'Deployment', 'name': name, 'images': {'app': image}} for name, image in entries], **options)


def release_cannot_pull(kube, sim):
    """api runs its images already and cannot pull them: the release fails, web is put back."""
    kube.create_rolled_out([_deployment('web', 'nginx:1.25')])
    kube.create(_deployment('api', BROKEN))
    pods = pods_waiting(kube, 'app=api', 'ImagePullBackOff')
    return (release(('web', 'nginx:1.26'), ('api', BROKEN)),
            ['ImagePullBackOff', 'check the image name'] + pods)


def release_paused(kube, sim):
    kube.create_rolled_out([_deployment('web', 'nginx:1.25')])
    kube.patch('Deployment', 'web', {'spec': {'paused': True}})
    return release(('web', 'nginx:1.26')), ['Deployment default/web is paused', 'resume it first']


def release_unknown_container(kube, sim):
    kube.create_rolled_out([_deployment('web', 'nginx:1.25')])
    out = task('release', 'rollout_release', workloads=[
        {'kind': 'Deployment', 'name': 'web', 'images': {'sidecar': 'nginx:1.26'}}])
    return out, ['Deployment default/web', 'sidecar']


def release_lease_held(kube, sim):
    kube.create_rolled_out([_deployment('web', 'nginx:1.25')])
    return release(('web', 'nginx:1.26'), release_id='r-check'), held_lease(kube, 'r-check')


# -- the traffic canary and rollout_traffic
def canary_wrong_service(kube, sim):
    build(kube, replicas=2)
    return (canary_task('release', [{'weight': 50}], traffic={'canary_service': 'web-legacy'}),
            ['Service default/web-legacy (canary_service) does not select the canary\'s pods'])


def canary_route_rejected(kube, sim):
    build(kube, replicas=2)
    sim.set_gateway(reject='NotAllowedByListeners')
    return canary_task('release', [{'weight': 50}]), ['Accepted is False (reason NotAllowedByListeners']


def traffic_route_rejected(kube, sim):
    build(kube, replicas=2, canary_replicas=1)  # the canary Service has the endpoints its share needs
    sim.set_gateway(reject='NotAllowedByListeners')
    header = {'name': 'testers', 'header': 'X-Canary', 'value': 'yes'}
    return (traffic_task('release', 10, header_route=header),
            ['Accepted is False (reason NotAllowedByListeners'])


def traffic_route_missing(kube, sim):
    build(kube, replicas=2)
    out = traffic_task('release', 10)
    out['kubeops.rollout.rollout_traffic']['route'] = {'name': 'nope'}
    return out, ['HTTPRoute default/nope not found']


def _deployment(name, image):
    labels = {'app': name}
    return {'apiVersion': 'apps/v1', 'kind': 'Deployment', 'metadata': {'name': name, 'namespace': 'default'},
            'spec': {'replicas': 1, 'selector': {'matchLabels': labels}, 'template': {
                'metadata': {'labels': labels}, 'spec': {'containers': [{'name': 'app', 'image': image}]}}}}


SIM = {'ready_delay': 0.1}
GATEWAY = dict(SIM, gateway_api=True, gateway_delay=0.05)
CASES = {
    # Never Ready: each container exits before its readiness is reached.
    'bluegreen crash-looping color': (bg_crash_looping, {'ready_delay': 0.5, 'crash_image': 'nginx:1.26',
                                                         'crash_after': 0.1}),
    'bluegreen selects no color': (bg_selects_no_color, SIM),
    'bluegreen nothing to switch back': (bg_nothing_to_switch_back, SIM),
    'bluegreen lease held': (bg_lease_held, SIM),
    'release cannot pull': (release_cannot_pull, dict(SIM, fail_image='broken')),
    'release paused': (release_paused, SIM),
    'release unknown container': (release_unknown_container, SIM),
    'release lease held': (release_lease_held, SIM),
    'traffic canary wrong service': (canary_wrong_service, GATEWAY),
    'traffic canary route rejected': (canary_route_rejected, GATEWAY),
    'rollout_traffic route rejected': (traffic_route_rejected, GATEWAY),
    'rollout_traffic route missing': (traffic_route_missing, GATEWAY),
}


def state(kube):
    """What a write changes, per object: generation, resourceVersion (objects no controller writes),
    spec and annotations."""
    out = {}
    for kind, path in (('Deployment', DEPLOYMENTS), ('Service', SERVICES.format(ns='default')),
                       ('Lease', LEASES), ('HTTPRoute', ROUTES)):
        try:
            items = kube.request('GET', path)['items']
        except AssertionError:  # no Gateway API in this kubesim
            continue
        for obj in items:
            meta = obj['metadata']
            out['%s/%s' % (kind, meta['name'])] = (
                meta.get('generation'), meta['resourceVersion'] if kind in ('Service', 'Lease') else None,
                json.dumps(obj.get('spec'), sort_keys=True), meta.get('annotations'))
    return out


@pytest.mark.parametrize('case', list(CASES), ids=list(CASES))
def test_check_mode_fails_as_the_real_run_fails_and_writes_nothing(kubesim_factory, play, tmp_path, case):
    setup, options = CASES[case]
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(request_log=str(log), **options)
    kube = Apps(sim.kubeconfig)
    the_task, causes = setup(kube, sim)
    before, mark = state(kube), len(read_log(log))
    check = play(sim, [dict(the_task, check_mode=True)]).failed(the_task['name'])
    sent = [e for e in read_log(log)[mark:] if e['method'] != 'GET' and not e.get('dry_run')]
    assert sent == [], sent
    assert state(kube) == before
    real = play(sim, [the_task]).failed(the_task['name'])
    for text in causes:
        assert text in check['msg'], (text, check['msg'])
        assert text in real['msg'], (text, real['msg'])
    assert check['changed'] is real['changed'], (check['changed'], real['changed'], check['msg'], real['msg'])
    assert check.get('next_step') == real.get('next_step'), (check.get('next_step'), real.get('next_step'))

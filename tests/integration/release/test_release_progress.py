"""What a release prints while it runs, at the default verbosity (AWX's): each write, what the wait
waits for, a blocking cause as soon as it is seen, a heartbeat during a long wait, each rollout's
end and each put-back; and on failure one short message, each cause in it once."""

import re

import pytest

from ..conftest import Kube, task, workload

pytestmark = pytest.mark.integration

BROKEN = 'registry.example.com/broken:9'


def lines_of(stdout):
    return [line for line in stdout.splitlines() if line.startswith('<localhost> ')]


def test_a_long_wait_tells_what_it_waits_for_and_a_stuck_rollout_its_cause(kubesim_factory, play):
    sim = kubesim_factory(fail_image='broken')
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web'), workload('Deployment', 'api')])
    entries = [{'kind': 'Deployment', 'name': 'web', 'images': {'app': BROKEN}},
               {'kind': 'Deployment', 'name': 'api', 'images': {'app': 'nginx:1.26'}}]
    res = play(sim, [
        # No early stop: the wait lasts until its timeout, past one heartbeat.
        task('slow', 'rollout_release', workloads=entries, timeout=33, fail_fast_seconds=0),
        # Early stop: the cause is announced when first seen, with the time left.
        task('fast', 'rollout_release', workloads=entries, fail_fast_seconds=4),
    ])
    slow, fast = res.failed('slow'), res.failed('fast')
    out = lines_of(res.stdout)
    first = out[:out.index('<localhost> waiting for 2 rollouts (up to 300 s): Deployment default/web, '
                           'Deployment default/api')]
    assert '<localhost> Deployment default/web: new images written (generation 2)' in first
    assert '<localhost> waiting for 2 rollouts (up to 33 s): Deployment default/web, Deployment default/api' \
        in first
    assert '<localhost> Deployment default/api: rolled out' in first
    beats = [line for line in first if 'still waiting' in line]
    assert len(beats) == 1, first
    assert re.match(r'<localhost> still waiting for 1 of 2 rollouts: Deployment default/web '
                    r'\(3\d s so far, at most [0-3] s more\)$', beats[0]), beats
    assert '<localhost> putting back Deployment default/web, Deployment default/api' in first
    assert '<localhost> Deployment default/web: put back to the template it had before the release' in first
    assert not any('stopping in' in line for line in first)  # no early stop asked for

    second = out[len(first):]
    seen = [line for line in second if 'stopping in' in line]
    assert len(seen) == 1, second
    assert re.match(r'<localhost> Deployment default/web: (ImagePullBackOff|ErrImagePull) on 1 pod '
                    r'\(web-[a-z0-9]+-[a-z0-9]+\), stopping in 4 s unless it clears$', seen[0]), seen
    ended = [line for line in second if line.startswith('<localhost> Deployment default/web: not rolled out')]
    assert len(ended) == 1 and 'stopped early' in ended[0], second
    assert second.index(seen[0]) < second.index(ended[0])

    # One short message: each cause once, then the workloads by outcome; the lines in the result.
    for r, cause in ((slow, 'timed out after 33s'), (fast, 'stopped early')):
        assert r['msg'].startswith('release failed: Deployment default/web') and cause in r['msg'], r['msg']
        assert r['msg'].endswith('ROLLED BACK: Deployment default/web, Deployment default/api'), r['msg']
        assert r['msg'].count('not ready') <= 1, r['msg']
        assert r['summary'][0].startswith('ROLLED BACK: Deployment default/web (')
    # A failed release does not also print its summary lines (the message and the result carry them).
    assert not any(line.startswith('ROLLED BACK: ') for line in res.stdout.splitlines())


def test_a_release_that_succeeds_prints_its_summary(kubesim_factory, play):
    sim = kubesim_factory()
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web')])
    entries = [{'kind': 'Deployment', 'name': 'web', 'images': {'app': 'nginx:1.26'}}]
    res = play(sim, [task('ok', 'rollout_release', workloads=entries)])
    assert res.ok('ok')['changed'] is True
    assert 'Upgraded: Deployment default/web' in res.stdout.splitlines()
    assert '<localhost> Deployment default/web: rolled out' in lines_of(res.stdout)


@pytest.mark.parametrize('kind, pod', [('Deployment', r'web-[a-z0-9]+-[a-z0-9]{5}'),
                                       ('StatefulSet', r'web-\d+'), ('DaemonSet', r'web-[a-z0-9]{5}')])
def test_an_early_stop_on_a_pull_error_names_the_pod_for_every_kind(kubesim_factory, play, kind, pod):
    sim = kubesim_factory(fail_image='broken')
    Kube(sim.kubeconfig).create_rolled_out([workload(kind, 'web', replicas=1)])
    res = play(sim, [task('fast', 'rollout_release', workloads=[
        {'kind': kind, 'name': 'web', 'images': {'app': BROKEN}}], fail_fast_seconds=3)])
    failed = res.failed('fast')
    assert 'stopped early' in failed['msg']
    (cause,) = failed['workloads'][0]['diagnosis']['causes']
    assert len(cause['pods']) == 1 and re.fullmatch(pod, cause['pods'][0]), cause
    seen = [line for line in lines_of(res.stdout) if 'stopping in' in line]
    assert len(seen) == 1, lines_of(res.stdout)
    assert re.match(r'<localhost> %s default/web: (ImagePullBackOff|ErrImagePull) on 1 pod \(%s\), '
                    r'stopping in 3 s unless it clears$' % (kind, pod), seen[0]), seen


def test_a_held_canary_is_said_to_be_held_not_rolled_out(kubesim_factory, play):
    sim = kubesim_factory()
    Kube(sim.kubeconfig).create_rolled_out([workload('Deployment', 'web'), workload('StatefulSet', 'db')])
    entries = [{'kind': 'Deployment', 'name': 'web', 'images': {'app': 'nginx:1.26'}},
               {'kind': 'StatefulSet', 'name': 'db', 'images': {'app': 'nginx:1.26'}}]
    res = play(sim, [task('start', 'rollout_release', workloads=entries, canary='start')])
    assert res.ok('start')['changed'] is True
    out = lines_of(res.stdout)
    for label in ('Deployment default/web', 'StatefulSet default/db'):
        assert f'<localhost> {label}: canary pods Ready, held until the promotion or the abort' in out, out
        assert f'<localhost> {label}: rolled out' not in out, out

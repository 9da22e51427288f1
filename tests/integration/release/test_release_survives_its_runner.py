"""A release outlives the ansible-playbook that started it: a record on every workload it writes, a
Lease while it runs, a re-run that resumes it, ``recover`` to finish or put back another release,
and writes guarded by what was read. Real ansible-playbook processes, killed with real signals."""

import json
import os
import signal
import subprocess
import time

import pytest
import yaml

from ..conftest import BIN, CALLBACKS, ROOT, Kube, PlayResult, image_of, task, workload

pytestmark = pytest.mark.integration

GOOD = 'nginx:1.26'
BROKEN = 'registry.example.com/broken:9'  # --fail-image: never pulls
RECORD = 'kubeops.rollout/release'


def release(*entries, **options):
    options.setdefault('timeout', 60)
    return task('release', 'rollout_release', workloads=list(entries), **options)


def entry(name, image, kind='Deployment'):
    return {'kind': kind, 'name': name, 'images': {'app': image}}


def record_of(kube, name, kind='Deployment'):
    text = ((kube.get(kind, name)['metadata'].get('annotations')) or {}).get(RECORD)
    return json.loads(text) if text else None


def start_playbook(sim, tasks, workdir):
    """ansible-playbook in a process group of its own, as a terminal or AWX starts it."""
    play = [{'hosts': 'localhost', 'gather_facts': False,
             'module_defaults': {'group/kubeops.rollout.rollout': {'kubeconfig': str(sim.kubeconfig)}},
             'tasks': tasks}]
    book = workdir / 'play.yml'
    book.write_text(yaml.safe_dump(play, sort_keys=False))
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / 'ansible.cfg'), ANSIBLE_NOCOLOR='1',
               ANSIBLE_CALLBACK_PLUGINS=str(CALLBACKS), ANSIBLE_CALLBACKS_ENABLED='kubeops_record',
               KUBEOPS_RECORD_OUT=str(workdir / 'results.json'), ANSIBLE_DEPRECATION_WARNINGS='false',
               PATH='%s%s%s' % (BIN, os.pathsep, os.environ.get('PATH', '')))
    for key in list(env):
        if key.startswith('K8S_AUTH_') or key == 'KUBECONFIG':
            del env[key]
    return subprocess.Popen([str(BIN / 'ansible-playbook'), str(book)], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)


def until(condition, timeout=60, what='the condition'):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.2)
    raise AssertionError('timed out waiting for %s' % what)


def interrupted_when(sim, tmp_path, sig, tasks, ready, what):
    """Start ``tasks``, send ``sig`` to the process group once ``ready()``, return the output."""
    proc = start_playbook(sim, tasks, tmp_path)
    try:
        until(ready, what=what)
        os.killpg(proc.pid, sig)
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            left = subprocess.run(['ps', '-eo', 'pid,ppid,stat,etime,cmd'], capture_output=True,
                                  text=True).stdout
            raise AssertionError('ansible-playbook did not end after %s:\n%s' % (
                sig, '\n'.join(line for line in left.splitlines() if 'ansible' in line)))
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode != 0
    return out + err


def interrupted_release(sim, kube, tmp_path, sig, tasks):
    """``tasks`` interrupted by ``sig`` a second after web carries a record (in the wait); the output."""
    def in_the_wait():
        return record_of(kube, 'web') is not None and time.sleep(1.0) is None
    return interrupted_when(sim, tmp_path, sig, tasks, in_the_wait, 'the release record on web')


@pytest.mark.parametrize('sig', [signal.SIGINT, signal.SIGTERM], ids=['SIGINT', 'SIGTERM'])
def test_an_interrupted_release_keeps_its_record_and_the_same_task_again_resumes_it(
        kubesim_factory, play, tmp_path, sig):
    sim = kubesim_factory(fail_image='broken')
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web')])
    before = kube.get('Deployment', 'web')
    tasks = [release(entry('web', BROKEN), timeout=120, fail_fast_seconds=0)]
    output = interrupted_release(sim, kube, tmp_path, sig, tasks)

    # The run says what it wrote, that the record is left, and how to resume or put back.
    assert 'interrupted; written so far: Deployment default/web' in output, output[-3000:]
    assert 'run the same task again to resume the release' in output
    record = record_of(kube, 'web')
    assert record is not None and record['images'] == {'app': BROKEN}
    assert record['generation'] == kube.get('Deployment', 'web')['metadata']['generation']
    assert image_of(kube.get('Deployment', 'web')) == BROKEN

    # The same task again resumes: nothing written again, the wait fails, the release is put back.
    res = play(sim, [release(entry('web', BROKEN), timeout=5, fail_fast_seconds=0)])
    r = res.failed('release')
    (w,) = r['workloads']
    assert w['outcome'] == 'rolled_back', w
    after = kube.get('Deployment', 'web')
    assert image_of(after) == image_of(before) and record_of(kube, 'web') is None
    assert 'resuming release %s' % record['id'] in res.proc.stdout + res.proc.stderr or w['changed']


def test_another_release_is_refused_then_recover_rollback_puts_the_recorded_one_back(
        kubesim_factory, play, tmp_path):
    sim = kubesim_factory(fail_image='broken')
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web')])
    before = kube.get('Deployment', 'web')
    interrupted_release(sim, kube, tmp_path, signal.SIGTERM,
                        [release(entry('web', BROKEN), timeout=120, fail_fast_seconds=0)])
    recorded = record_of(kube, 'web')

    # Another release of web: refused before any write, naming the release and the ways out.
    res = play(sim, [release(entry('web', 'nginx:1.27'))])
    r = res.failed('release')
    assert 'release %s' % recorded['id'] in r['msg'] and 'recover: resume' in r['msg'], r['msg']
    assert 'recover: rollback' in r['msg']
    assert image_of(kube.get('Deployment', 'web')) == BROKEN

    # recover: rollback puts back what the record says, and removes it.
    res = play(sim, [release(entry('web', 'nginx:1.27'), recover='rollback')])
    (w,) = res.ok('release')['workloads']
    assert w['outcome'] == 'rolled_back', w
    assert image_of(kube.get('Deployment', 'web')) == image_of(before) and record_of(kube, 'web') is None


def test_a_record_that_does_not_belong_to_the_workload_is_never_acted_on(kubesim_factory, play):
    sim = kubesim_factory()
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web')])
    for text in ('not json', json.dumps({'id': 'r-x', 'images': ['nginx'], 'template': {}, 'generation': 1,
                                         'lease': 'default/l'})):
        kube.patch('Deployment', 'web', {'metadata': {'annotations': {RECORD: text}}})
        res = play(sim, [release(entry('web', 'nginx:1.27'), recover='rollback')])
        r = res.failed('release')
        assert 'is not acted on' in r['msg'] and 'kubectl annotate deployment web -n default %s-' % RECORD \
            in r['msg'], r['msg']
        assert image_of(kube.get('Deployment', 'web')) != 'nginx:1.27'
    # A well-formed record whose generation is not the workload's (an edit since, or an undo that
    # brought an old record back) is stale.
    current = kube.get('Deployment', 'web')
    stale = {'id': 'r-old', 'images': {'app': 'nginx:9'}, 'template': current['spec']['template'],
             'generation': current['metadata']['generation'] - 1, 'lease': 'default/kubeops-release-r-old'}
    kube.patch('Deployment', 'web', {'metadata': {'annotations': {RECORD: json.dumps(stale)}}})
    r = play(sim, [release(entry('web', 'nginx:1.27'), recover='rollback')]).failed('release')
    assert 'written at generation' in r['msg'] and 'is not acted on' in r['msg'], r['msg']


def test_a_live_release_refuses_a_second_run_of_it(kubesim_factory, play, tmp_path):
    sim = kubesim_factory(fail_image='broken')
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web')])
    tasks = [release(entry('web', BROKEN), timeout=120, fail_fast_seconds=0)]
    proc = start_playbook(sim, tasks, tmp_path)
    try:
        until(lambda: record_of(kube, 'web') is not None, what='the release record on web')
        res = play(sim, [release(entry('web', BROKEN), timeout=120, fail_fast_seconds=0)])
        r = res.failed('release')
        assert 'is running elsewhere' in r['msg'] or 'is in progress' in r['msg'], r['msg']
        assert 'holds Lease default/kubeops-release-' in r['msg']
        # Another release of web (other images): refused too, naming the live one.
        other = play(sim, [release(entry('web', 'nginx:1.27'))]).failed('release')
        assert 'is in progress' in other['msg'] and 'wait for it to end' in other['msg'], other['msg']
        # An undo, a restart or another image by this collection would fight the live release.
        D = {'kind': 'Deployment', 'name': 'web'}
        res = play(sim, [task('undo', 'rollout_undo', **D), task('restart', 'rollout_restart', **D),
                         task('image', 'rollout_image', images={'app': 'nginx:1.27'}, **D),
                         release(entry('web', 'nginx:1.27'), canary='start')])
        # A canary start too: refused before any write, naming the release record.
        canary = res.failed('release')
        assert 'carries a kubeops.rollout/release record' in canary['msg'], canary
        assert canary['changed'] is False
        for name, verb in (('undo', 'rollback'), ('restart', 'restart'), ('image', 'change of images')):
            msg = res.failed(name)['msg']
            assert 'Deployment default/web is being released (release r-' in msg, msg
            assert 'holds Lease default/kubeops-release-' in msg, msg
            assert 'a %s now would fight it' % verb in msg, msg
        assert image_of(kube.get('Deployment', 'web')) == BROKEN
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.communicate(timeout=60)
    # Its runner gone, the record stays: the same verbs now name the ways to finish the release.
    recorded = record_of(kube, 'web')
    assert recorded is not None
    msg = play(sim, [task('undo', 'rollout_undo', kind='Deployment', name='web')]).failed('undo')['msg']
    assert 'carries the record of release %s' % recorded['id'] in msg and 'recover: rollback' in msg, msg


def test_a_change_by_someone_else_during_the_soak_fails_the_release_and_is_not_put_back(
        kubesim_factory, play, tmp_path):
    sim = kubesim_factory()
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web')])
    proc = start_playbook(sim, [release(entry('web', 'nginx:1.27'), soak_seconds=12)], tmp_path)
    try:
        until(lambda: record_of(kube, 'web') is not None, what='the release to write')
        kube.rolled_out('Deployment', 'web')
        time.sleep(2)  # in the soak now
        kube.patch('Deployment', 'web', {'spec': {'template': {'spec': {'containers': [
            {'name': 'app', 'image': 'nginx:hotfix'}]}}}})
        proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    res = PlayResult(proc, json.loads((tmp_path / 'results.json').read_text()), 0)
    r = res.failed('release')
    assert 'changed by someone else' in json.dumps(r), r['msg']
    # Not put back over the hotfix.
    assert image_of(kube.get('Deployment', 'web')) == 'nginx:hotfix'


def test_a_plain_release_refuses_a_partitioned_statefulset(kubesim_factory, play):
    sim = kubesim_factory()
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('StatefulSet', 'db')])
    kube.patch('StatefulSet', 'db', {'spec': {'updateStrategy': {'type': 'RollingUpdate',
                                                                 'rollingUpdate': {'partition': 2}}}})
    r = play(sim, [release(entry('db', 'nginx:1.27', kind='StatefulSet'))]).failed('release')
    assert 'rolling update partition of 2' in r['msg'], r['msg']
    assert image_of(kube.get('StatefulSet', 'db')) != 'nginx:1.27'


def test_an_analysis_check_that_cannot_be_measured_refuses_the_release_before_any_write(
        kubesim_factory, play):
    sim = kubesim_factory()
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web')])
    before = kube.get('Deployment', 'web')
    analysis = {'checks': [{'name': 'up', 'http': {'url': 'http://127.0.0.1:1/healthz', 'timeout': 2}}]}
    r = play(sim, [release(entry('web', 'nginx:1.27'), soak_seconds=5, analysis=analysis)]).failed('release')
    assert 'preflight' in r['msg'] or 'refused before any write' in r['msg'], r['msg']
    assert 'check "up"' in r['msg'] and 'before' in r['msg'], r['msg']
    after = kube.get('Deployment', 'web')
    assert after['metadata']['generation'] == before['metadata']['generation']
    assert record_of(kube, 'web') is None


@pytest.mark.parametrize('sig', [signal.SIGINT, signal.SIGTERM], ids=['SIGINT', 'SIGTERM'])
def test_a_release_interrupted_during_its_soak_resumes_with_a_new_soak(kubesim_factory, play, tmp_path, sig):
    sim = kubesim_factory()
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web')])

    def soaking():
        obj = kube.get('Deployment', 'web')
        st = obj['status']
        return record_of(kube, 'web') is not None and st.get('observedGeneration') == obj['metadata'][
            'generation'] and st.get('updatedReplicas') == st.get('replicas') == st.get('availableReplicas')

    output = interrupted_when(sim, tmp_path, sig, [release(entry('web', GOOD), soak_seconds=60)],
                              lambda: soaking() and time.sleep(1.5) is None, 'the soak')
    assert 'interrupted; written so far: Deployment default/web' in output, output[-3000:]
    recorded = record_of(kube, 'web')
    assert recorded is not None and image_of(kube.get('Deployment', 'web')) == GOOD
    # The same task again: nothing written again, the soak runs (it judges what the release wrote),
    # the record goes.
    res = play(sim, [release(entry('web', GOOD), soak_seconds=2)])
    (w,) = res.ok('release')['workloads']
    assert w['outcome'] == 'upgraded' and record_of(kube, 'web') is None, w
    assert 'no soak' not in res.ok('release')['msg']
    assert 'resuming release %s' % recorded['id'] in res.stdout


@pytest.mark.parametrize('sig', [signal.SIGINT, signal.SIGTERM], ids=['SIGINT', 'SIGTERM'])
def test_a_release_interrupted_during_its_put_back_leaves_nothing_on_two_versions_unrecorded(
        kubesim_factory, play, tmp_path, sig):
    sim = kubesim_factory(fail_image='broken')
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web'), workload('Deployment', 'api')])
    before = {n: image_of(kube.get('Deployment', n)) for n in ('web', 'api')}
    tasks = [release(entry('web', BROKEN), entry('api', GOOD), fail_fast_seconds=2)]

    def putting_back():  # the put-back's write: the old template back, the record gone with it
        return any(image_of(kube.get('Deployment', n)) == before[n] and record_of(kube, n) is None
                   and kube.get('Deployment', n)['metadata']['generation'] > 2 for n in ('web', 'api'))

    output = interrupted_when(sim, tmp_path, sig, tasks, putting_back, 'the put-back')
    # The report tells the workloads being put back from those that keep their record.
    assert 'interrupted; written so far: Deployment default/web, Deployment default/api' in output, \
        output[-3000:]
    assert '. Put back (the template and change-cause they had, the record removed' in output, \
        output[-3000:]
    # Each workload is either back (no record) or still on the release's images with its record:
    # never on the new images without a record that says so.
    for name in ('web', 'api'):
        obj = kube.get('Deployment', name)
        assert image_of(obj) == before[name] or record_of(kube, name) is not None, (name, obj['metadata'])
    # A re-run with recover: rollback finishes whatever the interrupted put-back left.
    res = play(sim, [release(entry('web', BROKEN), entry('api', GOOD), recover='rollback')])
    res.ok('release')
    for name in ('web', 'api'):
        assert image_of(kube.rolled_out('Deployment', name)) == before[name] and record_of(kube, name) is None


@pytest.mark.parametrize('seed', [1, 2, 3])
def test_api_errors_around_the_timeout_still_reach_the_put_back(kubesim_factory, play, seed):
    # Half the reads and writes answered 500 or with a dropped connection from the start: the wait
    # times out amid them, the diagnosis may be unreadable, and still every workload ends with an
    # outcome, and none is left on the new images without its record.
    sim = kubesim_factory(fail_image='broken', faults='seed=%d;500=0.35;drop=0.15;methods=GET,PATCH' % seed)
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web'), workload('Deployment', 'api')])
    before = {n: image_of(kube.get('Deployment', n)) for n in ('web', 'api')}
    res = play(sim, [release(entry('web', BROKEN), entry('api', GOOD), timeout=4, fail_fast_seconds=0)])
    r = res.failed('release')
    outcomes = {w['name']: w['outcome'] for w in r.get('workloads') or []}
    assert set(outcomes) == {'web', 'api'}, r['msg']
    assert set(outcomes.values()) <= {'rolled_back', 'rollback_failed', 'untouched'}, r['workloads']
    for w in r['workloads']:
        if w['outcome'] == 'rollback_failed':
            assert 'recover: rollback' in w['rollback'] or 'kubectl annotate' in w['rollback'], w
    for name in ('web', 'api'):
        obj = kube.get('Deployment', name)
        assert image_of(obj) == before[name] or record_of(kube, name) is not None, (name, outcomes)


def test_a_record_brought_back_by_kubectl_rollout_undo_is_stale(kubesim_factory, play, kubectl):
    # The Deployment controller copies the Deployment's annotations, the release record among them,
    # onto the ReplicaSet the release's write creates; kubectl rollout undo copies them back.
    sim = kubesim_factory()
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web')])
    play(sim, [release(entry('web', GOOD))]).ok('release')
    play(sim, [release(entry('web', 'nginx:1.27'))]).ok('release')
    assert record_of(kube, 'web') is None
    kubectl.using(sim)('rollout', 'undo', 'deployment/web', check=True)
    kube.rolled_out('Deployment', 'web')
    brought_back = record_of(kube, 'web')
    if brought_back is None:
        pytest.fail('the undo did not bring the record back: nothing to check (kubesim lost the copy)')
    assert image_of(kube.get('Deployment', 'web')) == GOOD
    # Never acted on: neither resumed nor put back; refused with the way to clear it.
    res = play(sim, [release(entry('web', 'nginx:1.28'), recover='rollback')])
    msg = res.failed('release')['msg']
    assert 'is not acted on' in msg and 'kubectl annotate deployment web -n default %s-' % RECORD in msg, msg
    assert image_of(kube.get('Deployment', 'web')) == GOOD


def test_a_change_by_someone_else_during_the_wait_fails_the_release_and_is_not_put_back(
        kubesim_factory, tmp_path):
    sim = kubesim_factory(fail_image='broken')
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web')])
    proc = start_playbook(sim, [release(entry('web', BROKEN), timeout=120, fail_fast_seconds=0)], tmp_path)
    try:
        until(lambda: record_of(kube, 'web') is not None, what='the release to write')
        time.sleep(1)  # in the wait: the broken pods never become ready
        kube.patch('Deployment', 'web', {'spec': {'template': {'spec': {'containers': [
            {'name': 'app', 'image': 'nginx:hotfix'}]}}}})
        edited = time.monotonic()
        proc.communicate(timeout=120)
        ended = time.monotonic() - edited
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    res = PlayResult(proc, json.loads((tmp_path / 'results.json').read_text()), 0)
    r = res.failed('release')
    (w,) = r['workloads']
    assert 'changed by someone else' in (w.get('cause') or '') + (w.get('rollback') or ''), w
    assert ended < 60, ended  # at the edit, not at the 120 s timeout
    # Not put back over the hotfix.
    assert image_of(kube.get('Deployment', 'web')) == 'nginx:hotfix'


def test_recover_rollback_says_the_images_were_not_released_and_check_mode_previews_the_same(
        kubesim_factory, play, tmp_path):
    sim = kubesim_factory(fail_image='broken')
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web')])
    interrupted_release(sim, kube, tmp_path, signal.SIGTERM,
                        [release(entry('web', BROKEN), timeout=120, fail_fast_seconds=0)])
    recorded, generation = record_of(kube, 'web'), kube.get('Deployment', 'web')['metadata']['generation']
    asked = release(entry('web', 'nginx:1.27'), recover='rollback')
    check = play(sim, [dict(asked, check_mode=True, diff=True)]).ok('release')
    assert kube.get('Deployment', 'web')['metadata']['generation'] == generation
    assert record_of(kube, 'web') == recorded
    real = play(sim, [dict(asked, diff=True)]).ok('release')
    assert image_of(kube.get('Deployment', 'web')) == 'nginx:1.25' and record_of(kube, 'web') is None
    # The same outcome, changed and diff; the check says it would put back, never that it would upgrade.
    assert [w['outcome'] for w in check['workloads']] == [w['outcome'] for w in real['workloads']] == [
        'rolled_back']
    assert check['changed'] is real['changed'] is True
    assert check['diff'] and check['diff'] == real['diff']
    (diff,) = real['diff']
    assert image_of(diff['before']) == BROKEN and image_of(diff['after']) == 'nginx:1.25'
    assert 'Would upgrade' not in check['msg']
    assert check['msg'].startswith('Would put back: Deployment default/web'), check['msg']
    said = 'the images of release %s (app=%s)' % (recorded['id'], BROKEN)
    assert said + ' would be NOT released: it would run app=nginx:1.25 again' in check['msg'], check['msg']
    assert said + ' were NOT released: it runs app=nginx:1.25 again' in real['msg'], real['msg']
    assert 'the images of this task (app=nginx:1.27) were not released either' in real['msg']

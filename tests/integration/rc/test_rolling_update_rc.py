"""rolling_update_rc against kubesim: real ansible-playbook runs (some killed mid-update), the bounds
from kubesim's readiness log, check mode's request log, and resuming after a crash at every write."""

import hashlib
import time

import pytest

from ..conftest import Kube, read_log
from . import (DESIRED, NEXT, ORIGINAL, SOURCE, UPDATE_ANNOTATIONS, RcCreations, Rcs, assert_bounds,
               image_of, kill_when, pod_timeline, rc_manifest, start_playbook)

pytestmark = pytest.mark.integration

MODULE = 'kubeops.rollout.rolling_update_rc'
FAST = {'update_period': 0.05, 'poll_interval': 0.05, 'timeout': 30}


def task(title, **args):
    t = {'name': title, MODULE: dict(FAST, **args), 'ignore_errors': True}
    for key in ('check_mode', 'diff'):
        if key in args:
            t[key] = t[MODULE].pop(key)
    return t


LEASES = '/apis/coordination.k8s.io/'


def writes(log, leases=False):
    """The log's writes; without ``leases``, those of the update's lease left out (every run but
    check mode takes and releases it)."""
    return [e for e in log
            if e['method'] not in ('GET', 'HEAD') and (leases or not e['path'].startswith(LEASES))]


def setup(sim, *manifests, ns='default'):
    sim.created = RcCreations(sim)
    rcs = Rcs(Kube(sim.kubeconfig), ns)
    for manifest in manifests:
        rcs.create(manifest)
    for manifest in manifests:
        rcs.wait_ready(manifest['metadata']['name'])
    return rcs


def assert_finished(rcs, name, image, replicas, others=()):
    """Only ``name`` (plus ``others``) left, running ``replicas`` ready pods of ``image``, all its own."""
    names = sorted(rc['metadata']['name'] for rc in rcs.list())
    assert names == sorted([name, *others]), names
    rc = rcs.wait_ready(name, replicas)
    assert image_of(rc) == image
    assert not set(UPDATE_ANNOTATIONS) & set(rc['metadata'].get('annotations') or {}), rc['metadata']
    pods = rcs.pods(rc['spec']['selector'])
    assert len(pods) == replicas
    for pod in pods:
        assert pod['spec']['containers'][0]['image'] == image
        assert [r['name'] for r in pod['metadata']['ownerReferences'] if r.get('controller')] == [name]
    return rc


# ---- the happy paths -------------------------------------------------------------------------------
def test_image_update_with_defaults(kubesim_factory, play, tmp_path):
    log_path = tmp_path / 'requests.log'
    sim = kubesim_factory(ready_delay=0.1, request_log=log_path)
    rcs = setup(sim, rc_manifest('web', 'nginx:1.25', 3))
    before = rcs.get('web')
    args = {'name': 'web', 'image': 'nginx:1.26'}

    mark = len(read_log(log_path))
    check = play(sim, [task('check', check_mode=True, diff=True, **args)]).ok('check')
    check_writes = writes(read_log(log_path)[mark:], leases=True)
    assert check_writes and all(e['dry_run'] for e in check_writes), check_writes  # the dry-run create
    assert rcs.get('web') == before and len(rcs.list()) == 1
    assert check['changed'] and check['planned']
    new_name = check['new_name']
    assert new_name.startswith('web-') and len(new_name) == len('web-') + 32
    planned = [(s['action'], s['controller'], s['to']) for s in check['steps']]
    assert planned == [('scale up', new_name, 1), ('scale down', 'web', 2), ('scale up', new_name, 2),
                       ('scale down', 'web', 1), ('scale up', new_name, 3), ('scale down', 'web', 0)]
    assert check['diff']['before']['spec']['containers'][0]['image'] == 'nginx:1.25'
    assert check['diff']['after']['spec']['containers'][0]['image'] == 'nginx:1.26'
    assert check['replication_controller']['metadata']['name'] == 'web'
    assert image_of(check['replication_controller']) == 'nginx:1.26'

    t0 = time.monotonic()
    update = play(sim, [task('update', diff=True, **args)]).ok('update')
    assert update['changed'] and update['new_name'] == new_name
    assert [(s['action'], s['controller'], s['to']) for s in update['steps']] == planned
    assert update['diff']['after']['spec']['containers'][0]['image'] == 'nginx:1.26'
    rc = assert_finished(rcs, 'web', 'nginx:1.26', 3)
    assert rc['metadata']['uid'] == before['metadata']['uid']  # renamed in place
    assert rc['spec']['selector'] == {'app': 'web', 'deployment': new_name[len('web-'):]}
    assert update['replication_controller']['metadata']['name'] == 'web'
    assert sim.created() == ['web', new_name]
    assert_bounds(pod_timeline(sim.readiness_log, 'default', {'web', new_name}, since=t0), 4, 3)

    mark = len(read_log(log_path))
    again = play(sim, [task('again', **args)]).ok('again')
    assert not again['changed'] and again['steps'] == []
    assert writes(read_log(log_path)[mark:]) == []

    # A second update: the RC already has the deployment label, so no -orig label this time.
    t1 = time.monotonic()
    third = play(sim, [task('third', name='web', image='nginx:1.27')]).ok('third')
    assert third['changed'] and third['new_name'] not in (new_name, 'web')
    rc = assert_finished(rcs, 'web', 'nginx:1.27', 3)
    assert rc['spec']['selector'] == {'app': 'web', 'deployment': third['new_name'][len('web-'):]}
    owners = {'web', new_name, third['new_name']}
    assert_bounds(pod_timeline(sim.readiness_log, 'default', owners, since=t1), 4, 3)


def test_every_write_whose_answer_is_lost_is_made_once(kubesim_factory, play):
    """kubesim applies each write to the two RCs and the lease, then drops the connection or answers
    500: the create, each fenced scale, the annotation updates and the delete are repeated, found
    in place, and the update ends as a clean one does, each step taken once."""
    sim = kubesim_factory(ready_delay=0.1)
    rcs = setup(sim, rc_manifest('web', 'nginx:1.25', 3))
    args = {'name': 'web', 'image': 'nginx:1.26'}
    check = play(sim, [task('check', check_mode=True, **args)]).ok('check')
    new_name = check['new_name']
    planned = [(s['action'], s['controller'], s['to']) for s in check['steps']]
    # The old RC: its annotation (PUT), selector (PATCH) and two scale-downs; the new one: its
    # create and two scale-ups.
    sim.set_faults(f'drop_after_write=replicationcontrollers/default/web:4;'
                   f'500_after_write=replicationcontrollers/default/{new_name}:3;'
                   f'drop_after_write=coordination.k8s.io/leases/default/rolling-update-rc-web:1')

    update = play(sim, [task('update', **args)]).ok('update')
    lost = sim.faults.injected
    sim.set_faults('')
    assert ('POST', '/api/v1/namespaces/default/replicationcontrollers', '500_after_write') in lost, lost
    assert sorted(method for method, _p, _a in lost) == ['PATCH'] * 5 + ['POST'] * 2 + ['PUT'], lost
    assert any(path.endswith('/leases') for _m, path, _a in lost), lost
    assert update['changed'] and update['new_name'] == new_name
    assert [(s['action'], s['controller'], s['to']) for s in update['steps']] == planned
    assert_finished(rcs, 'web', 'nginx:1.26', 3)
    assert sim.created() == ['web', new_name]


SURGE_0_STEPS = [('scale down', 2), ('scale up', 1), ('scale down', 1), ('scale up', 2), ('scale down', 0),
                 ('scale up', 3)]


@pytest.mark.parametrize('surge, unavailable, replicas, bounds, expected', [
    (0, 1, 3, (3, 2), SURGE_0_STEPS),
    ('50%', '25%', 4, (6, 3), None),
], ids=['surge0-unavailable1', 'percentages'])
def test_surge_and_unavailability_limits(kubesim_factory, play, surge, unavailable, replicas, bounds,
                                         expected):
    sim = kubesim_factory(ready_delay=0.1)
    rcs = setup(sim, rc_manifest('web', 'nginx:1.25', replicas))
    t0 = time.monotonic()
    result = play(sim, [task('update', name='web', new_name='web-v2', image='nginx:1.26', max_surge=surge,
                             max_unavailable=unavailable)]).ok('update')
    if expected:
        assert [(s['action'], s['to']) for s in result['steps']] == expected
    assert_finished(rcs, 'web-v2', 'nginx:1.26', replicas)  # new_name given: the old RC is deleted
    assert_bounds(pod_timeline(sim.readiness_log, 'default', {'web', 'web-v2'}, since=t0), *bounds)


def test_zero_desired_replicas(kubesim_factory, play):
    sim = kubesim_factory(ready_delay=0.05)
    rcs = setup(sim, rc_manifest('idle', 'nginx:1.25', 0),
                rc_manifest('api', 'nginx:1.25', 2, labels={'app': 'api', 'version': '1'}))
    definition = {'metadata': {'name': 'api-v2'},
                  'spec': {'replicas': 0, 'selector': {'app': 'api', 'version': '2'},
                           'template': {'metadata': {'labels': {'app': 'api', 'version': '2'}},
                                        'spec': {'containers': [{'name': 'app', 'image': 'nginx:1.26'}]}}}}
    res = play(sim, [task('idle', name='idle', image='nginx:1.26'),
                     task('api', name='api', new_controller=definition)])
    idle = res.ok('idle')
    assert idle['changed'] and idle['steps'] == []
    rc = rcs.get('idle')
    assert image_of(rc) == 'nginx:1.26' and rc['spec']['replicas'] == 0
    api = res.ok('api')
    assert [(s['action'], s['controller'], s['to']) for s in api['steps']] == [('scale down', 'api', 0)]
    assert_finished(rcs, 'api-v2', 'nginx:1.26', 0, others=['idle'])


def test_new_controller_definition(kubesim_factory, play):
    sim = kubesim_factory(ready_delay=0.05)
    labels = {'app': 'api', 'version': '1'}
    rcs = setup(sim, rc_manifest('api-v1', 'nginx:1.25', 2, labels=labels))
    definition = {'apiVersion': 'v1', 'kind': 'ReplicationController', 'metadata': {'name': 'api-v2'},
                  'spec': {'replicas': 3, 'selector': {'app': 'api', 'version': '2'},
                           'template': {'metadata': {'labels': {'app': 'api', 'version': '2'}},
                                        'spec': {'containers': [{'name': 'app', 'image': 'nginx:1.26'}]}}}}
    res = play(sim, [task('update', name='api-v1', new_controller=definition),
                     task('again', name='api-v1', new_controller=definition)])
    assert res.ok('update')['changed']
    assert_finished(rcs, 'api-v2', 'nginx:1.26', 3)
    again = res.ok('again')
    assert not again['changed'] and again['new_name'] == 'api-v2'


@pytest.mark.parametrize('policy', ['delete', 'preserve', 'rename'])
def test_cleanup_policies(kubesim_factory, play, policy):
    sim = kubesim_factory(ready_delay=0.05)
    rcs = setup(sim, rc_manifest('web', 'nginx:1.25', 2))
    args = {'name': 'web', 'new_name': 'web-v2', 'image': 'nginx:1.26', 'cleanup_policy': policy}
    res = play(sim, [task('update', **args), task('again', **args),
                     task('check again', check_mode=True, diff=True, **args)])
    assert res.ok('update')['changed']
    runs = 'web' if policy == 'rename' else 'web-v2'  # the RC that runs the pods now
    for name in ('again', 'check again'):
        again = res.ok(name)
        assert not again['changed'] and again['steps'] == [] and again['new_name'] == runs, again
    if policy == 'delete':
        assert_finished(rcs, 'web-v2', 'nginx:1.26', 2)
    elif policy == 'preserve':
        assert_finished(rcs, 'web-v2', 'nginx:1.26', 2, others=['web'])
        old = rcs.get('web')
        assert old['spec']['replicas'] == 0 and image_of(old) == 'nginx:1.25'
        assert old['metadata']['annotations'][NEXT] == 'web-v2'  # as kubectl leaves it
        assert old['metadata']['annotations'][ORIGINAL] == '2'
    else:
        rc = assert_finished(rcs, 'web', 'nginx:1.26', 2)
        pod = rcs.pods(rc['spec']['selector'])[0]
        assert rc['spec']['selector']['deployment'] == pod['metadata']['labels']['deployment']


def test_delete_policy_without_new_name_rerun_is_unchanged(kubesim_factory, play, tmp_path):
    """The old RC is gone after such an update; the same task again finds the new RC by its derived
    name <name>-<hash> and reports nothing to do, in check mode too. Another image is still an error."""
    log_path = tmp_path / 'requests.log'
    sim = kubesim_factory(ready_delay=0.05, request_log=log_path)
    rcs = setup(sim, rc_manifest('web', 'nginx:1.25', 2))
    args = {'name': 'web', 'image': 'nginx:1.26', 'cleanup_policy': 'delete'}
    res = play(sim, [task('update', **args)])
    new_name = res.ok('update')['new_name']
    assert new_name.startswith('web-') and len(new_name) == len('web-') + 32, new_name
    assert_finished(rcs, new_name, 'nginx:1.26', 2)
    mark = len(read_log(log_path))
    res = play(sim, [task('again', **args), task('check', check_mode=True, diff=True, **args),
                     task('other image', **dict(args, image='nginx:1.27'))])
    for name in ('again', 'check'):
        again = res.ok(name)
        assert not again['changed'] and again['steps'] == [] and again['new_name'] == new_name, again
        assert again['replication_controller']['metadata']['name'] == new_name
    assert res.failed('other image')['msg'] == 'ReplicationController "web" not found in namespace "default"'
    assert writes(read_log(log_path)[mark:]) == []
    assert_finished(rcs, new_name, 'nginx:1.26', 2)


# ---- failures --------------------------------------------------------------------------------------
def test_clear_failures_without_writes(kubesim_factory, play, tmp_path):
    log_path = tmp_path / 'requests.log'
    sim = kubesim_factory(ready_delay=0.05, request_log=log_path)
    two = [{'name': 'app', 'image': 'nginx:1.25'}, {'name': 'side', 'image': 'busybox:1'}]
    rcs = setup(sim, rc_manifest('multi', containers=two, replicas=1), rc_manifest('web', 'nginx:1.25', 1))
    mark = len(read_log(log_path))
    res = play(sim, [task('multi', name='multi', image='nginx:1.26'),
                     task('same image', name='web', image='nginx:1.25'),
                     task('missing', name='ghost', image='nginx:1.26'),
                     task('unknown container', name='multi', container='nope', image='nginx:1.26')])
    assert 'has 2 containers (app, side): set container' in res.failed('multi')['msg']
    assert 'image_pull_policy (Always, IfNotPresent or Never) must be given when image is the same as the ' \
           'current image of ReplicationController "web" (nginx:1.25)' in res.failed('same image')['msg']
    assert res.failed('missing')['msg'] == 'ReplicationController "ghost" not found in namespace "default"'
    assert 'container "nope" not found' in res.failed('unknown container')['msg']
    for name in ('multi', 'same image', 'missing'):
        assert 'Traceback' not in str(res[name]) and 'resume' not in res[name]['msg']
    assert writes(read_log(log_path)[mark:]) == []
    assert sorted(rc['metadata']['name'] for rc in rcs.list()) == ['multi', 'web']


def test_no_progress_fails_with_how_far_it_got_then_rollback(kubesim_factory, play):
    sim = kubesim_factory(ready_delay=0.05, fail_image='broken')
    rcs = setup(sim, rc_manifest('web', 'nginx:1.25', 3))
    res = play(sim, [task('update', name='web', image='nginx:broken', timeout=1.5),
                     task('rollback', name='web', rollback=True)])
    failed = res.failed('update')
    new_name = failed['new_name']
    assert 'timed out waiting for any update progress to be made' in failed['msg']
    assert f'"web" has 3 replicas; "{new_name}" has 1 replicas; last change in this run: scaled {new_name} ' \
           'to 1' in failed['msg']
    assert 'Run the task again with the same arguments to resume, or with rollback: true to return to ' \
           '"web"' in failed['msg']
    assert failed['next_step'] == 'rerun'  # the message's first way on, as data
    rolled = res.ok('rollback')
    assert rolled['changed'] and rolled['new_name'] == new_name
    rc = assert_finished(rcs, 'web', 'nginx:1.25', 3)
    assert rc['spec']['selector']['deployment'].endswith('-orig')  # kubectl leaves the label


# ---- interruptions -------------------------------------------------------------------------------
def _replicas(rcs, name):
    rc = rcs.get(name)
    return None if rc is None else rc['spec']['replicas']


def _new_rc(rcs):
    return next((rc for rc in rcs.list() if rc['metadata']['name'] != 'web'), None)


KILL_POINTS = {
    'old annotated': lambda rcs: NEXT in (rcs.get('web')['metadata'].get('annotations') or {}),
    'new rc created': lambda rcs: _new_rc(rcs) is not None,
    'after 3 scale steps': lambda rcs: (_new_rc(rcs) or {}).get('spec', {}).get('replicas', 0) >= 2
    and _replicas(rcs, 'web') <= 3,
}


@pytest.mark.parametrize('point', sorted(KILL_POINTS))
def test_killed_mid_update_resumes(kubesim_factory, play, tmp_path, point):
    sim = kubesim_factory(ready_delay=0.2)
    rcs = setup(sim, rc_manifest('web', 'nginx:1.25', 3))
    args = {'name': 'web', 'image': 'nginx:1.26'}
    t0 = time.monotonic()
    proc = start_playbook(sim.kubeconfig, [task('update', **args)], tmp_path / 'killed')
    assert kill_when(proc, lambda: KILL_POINTS[point](rcs)), 'the update finished before the kill'
    time.sleep(0.3)  # nothing moves once the playbook is dead
    frozen = [(rc['metadata']['name'], rc['spec']['replicas']) for rc in rcs.list()]
    time.sleep(0.2)
    assert [(rc['metadata']['name'], rc['spec']['replicas']) for rc in rcs.list()] == frozen
    assert sorted(rc['metadata']['name'] for rc in rcs.list()) != ['web'] or point == 'old annotated'

    result = play(sim, [task('resume', **args)]).ok('resume')
    assert result['changed']
    assert_finished(rcs, 'web', 'nginx:1.26', 3)
    created = sim.created()
    assert created == ['web', result['new_name']], created  # exactly one new RC, ever
    assert_bounds(pod_timeline(sim.readiness_log, 'default', set(created), since=t0), 4, 3)


def test_rollback_of_a_killed_update(kubesim_factory, play, tmp_path):
    sim = kubesim_factory(ready_delay=0.15)
    rcs = setup(sim, rc_manifest('web', 'nginx:1.25', 4))
    proc = start_playbook(sim.kubeconfig, [task('update', name='web', image='nginx:1.26')],
                          tmp_path / 'killed')
    assert kill_when(proc, lambda: _replicas(rcs, 'web') <= 2)
    new_name = _new_rc(rcs)['metadata']['name']
    t0 = time.monotonic()
    res = play(sim, [task('rollback', name='web', rollback=True, diff=True),
                     task('rollback again', name='web', rollback=True)])
    rolled = res.ok('rollback')
    assert rolled['changed'] and rolled['new_name'] == new_name
    # Which comes first depends on where the kill fell (web's scale-down or the next scale-up).
    assert {s['action'] for s in rolled['steps']} == {'scale up', 'scale down'}
    assert all(s['controller'] == ('web' if s['action'] == 'scale up' else new_name) for s in rolled['steps'])
    assert_finished(rcs, 'web', 'nginx:1.25', 4)
    again = res.ok('rollback again')
    assert not again['changed'] and 'nothing to roll back' in again['msg']
    assert_bounds(pod_timeline(sim.readiness_log, 'default', {'web', new_name}, since=t0), 5, 4)


def test_finishes_an_update_kubectl_left_half_done(kubesim_factory, play):
    """kubectl rolling-update web --image=nginx:1.26, interrupted after two scale steps each way:
    its annotations, its labels (md5 values of its own) and the replica counts, made by API."""
    sim = kubesim_factory(ready_delay=0.05)
    new_hash = hashlib.md5(b'kubectl new controller').hexdigest()
    old_hash = hashlib.md5(b'kubectl old controller').hexdigest() + '-orig'
    old = rc_manifest('web', 'nginx:1.25', 4, labels={'app': 'web', 'deployment': old_hash})
    old['metadata']['annotations'] = {NEXT: f'web-{new_hash}', ORIGINAL: '4'}
    rcs = setup(sim, old)
    uid = rcs.get('web')['metadata']['uid']
    new = rc_manifest(f'web-{new_hash}', 'nginx:1.26', 2, labels={'app': 'web', 'deployment': new_hash})
    new['metadata']['labels'] = {'app': 'web'}
    new['metadata']['annotations'] = {DESIRED: '4', SOURCE: f'web:{uid}'}
    rcs.create(new)
    rcs.wait_ready(f'web-{new_hash}')
    live = rcs.get('web')
    live['spec']['replicas'] = 2
    rcs.replace(live)
    rcs.wait_ready('web', 2)
    t0 = time.monotonic()

    result = play(sim, [task('finish', name='web', image='nginx:1.26')]).ok('finish')
    assert result['new_name'] == f'web-{new_hash}'
    assert [(s['action'], s['to']) for s in result['steps']] == [('scale up', 3), ('scale down', 1),
                                                                ('scale up', 4), ('scale down', 0)]
    rc = assert_finished(rcs, 'web', 'nginx:1.26', 4)
    assert rc['spec']['selector'] == {'app': 'web', 'deployment': new_hash}  # kubectl's value is kept
    assert sim.created() == ['web', f'web-{new_hash}']
    assert_bounds(pod_timeline(sim.readiness_log, 'default', {'web', f'web-{new_hash}'}, since=t0), 5, 4)


# ---- a crash between any two requests (the driver in-process) ----------------------------------------
class Crash(Exception):
    pass


class CrashingApi:
    """The real API client, stopping dead after its ``after``-th persisted write of the update (the
    lease's writes are not counted: a crash releases it, as the end of a killed run's lease is
    tested with real processes in test_rolling_update_rc_overlap.py)."""

    def __init__(self, api, after=None):
        self.api = api
        self.after = after
        self.writes = 0

    def __getattr__(self, name):
        method = getattr(self.api, name)
        if name not in ('create', 'replace', 'patch', 'delete'):
            return method

        def write(*args, **kwargs):
            result = method(*args, **kwargs)
            if not kwargs.get('dry_run') and not args[0].startswith(LEASES):
                self.writes += 1
                if self.writes == self.after:
                    raise Crash()
            return result
        return write


def _driver(sim, after=None, check_mode=False, **params):
    from ansible_collections.kubeops.rollout.plugins.modules.rolling_update_rc import ARGUMENT_SPEC
    from ansible_collections.kubeops.rollout.plugins.module_utils.rc.driver import RollingUpdate
    from ansible_collections.kubeops.rollout.plugins.module_utils.rc.state import Options
    from ansible_collections.kubeops.rollout.plugins.module_utils.api.client import ApiClient
    from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection.options import (
        load_connection,
    )

    api = CrashingApi(ApiClient(load_connection({'kubeconfig': str(sim.kubeconfig)})), after)
    defaults = {name: spec.get('default') for name, spec in ARGUMENT_SPEC.items()}
    opts = Options(**dict(defaults, namespace='default', update_period=0, poll_interval=0.02, timeout=20,
                          **params))
    return RollingUpdate(api, opts, check_mode=check_mode), api


@pytest.mark.parametrize('policy', ['rename', 'delete', 'delete-derived', 'rollback'])
def test_resumes_after_a_crash_between_any_two_requests(kubesim_factory, policy):
    """Crash after write 1, 2, ... of a clean run (each on its own RC); check mode then writes nothing
    and predicts the end; run again: always finished, never a second new RC, bounds held throughout."""
    sim = kubesim_factory(ready_delay=0.03)
    created_rcs = RcCreations(sim)
    kube = Kube(sim.kubeconfig)
    rcs = Rcs(kube)

    def scenario(n, after):
        name = f'w{n}'
        rcs.create(rc_manifest(name, 'nginx:1.25', 2))
        rcs.wait_ready(name)
        params = {'name': name, 'image': 'nginx:1.26'}
        final = name
        if policy == 'delete':
            params['new_name'] = final = f'{name}-next'
        elif policy == 'delete-derived':
            # No new name: the new RC keeps its derived name <name>-<hash>, and the old one is deleted.
            from ansible_collections.kubeops.rollout.plugins.module_utils.rc.objects import image_target
            params['cleanup_policy'] = 'delete'
            target = image_target(rcs.get(name), 'nginx:1.26', None, None, 'deployment')
            final = f"{name}-{target.selector['deployment']}"
        t0 = time.monotonic()
        if policy == 'rollback':
            # A partial update to roll back: crashed after its first scale-down.
            partial, _ = _driver(sim, **params)
            partial.api.after = 7
            with pytest.raises(Crash):
                partial.run()
            params = {'name': name, 'rollback': True}
        updater, api = _driver(sim, after, **params)
        try:
            updater.run()
            crashed = False
        except Crash:
            crashed = True
        image = 'nginx:1.25' if policy == 'rollback' else 'nginx:1.26'
        if crashed:
            # Check mode on the half-done update: no write, and it predicts the same end.
            checker, check_api = _driver(sim, check_mode=True, **params)
            plan = checker.run()
            assert check_api.writes == 0, after
            assert plan['changed'], (after, plan['msg'])
            predicted = plan['replication_controller']
            assert (predicted['metadata']['name'], image_of(predicted), predicted['spec']['replicas']) == \
                (final, image, 2), (after, plan['msg'])
            resumed, _ = _driver(sim, **params)
            resumed.run()
        created = created_rcs(prefix=name)
        mine = Rcs(kube)
        rc = mine.wait_ready(final, 2)
        assert image_of(rc) == image, (n, after)
        left_annotations = set(UPDATE_ANNOTATIONS) & set(rc['metadata'].get('annotations') or {})
        assert not left_annotations, (after, rc['metadata'])
        left = sorted(r['metadata']['name'] for r in rcs.list() if r['metadata']['name'].startswith(name))
        assert left == [final], (after, left)
        pods = rcs.pods({'app': name})
        assert len(pods) == 2, (after, pods)
        assert all(p['spec']['containers'][0]['image'] == image for p in pods), (after, pods)
        assert len(created) == 2, (after, created)  # the old RC and one new RC
        assert_bounds(pod_timeline(sim.readiness_log, 'default', set(created), since=t0), 3, 2)
        return api.writes, crashed

    total, crashed = scenario(0, None)
    assert not crashed and total >= 4
    for after in range(1, total):
        _writes, crashed = scenario(after, after)
        assert crashed, after

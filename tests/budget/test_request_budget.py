"""API request budgets per operation: a module that starts asking the API server more fails here.

One `ansible-playbook` run against kubesim does every operation once; the bench_timer callback marks
where kubesim's request log stood at each task's start and result, so each task's requests are
known exactly (kubesim logs a request before answering it). The budgets are what each operation
needs by design, not what the code happens to send:

- a named workload is read with one GET; its revisions with one LIST by its selector;
- a change is one PATCH; a no-op (already paused, same image) and check mode write nothing (check
  mode sends its change once with dryRun=All, for the API server's own answer);
- undo reads the revisions with one LIST (revision before and after); image and restart only with
  `read_revisions` (a StatefulSet's or DaemonSet's; a Deployment's come from its annotation);
- `status` of a finished rollout needs the GET only: a watch is for waiting;
- with `label_selectors`, one LIST replaces the per-workload GETs;
- a wait that succeeds reads nothing more; one that fails adds a fixed few reads per failed
  workload to say why (below);
- nothing ever asks for discovery (`/api`, `/apis`, `/openapi`, `/version`): the modules know
  their resources' paths.

`test_request_shapes` pins the exact requests (method and resource) of the common verbs as well,
through the integration harness (tests/integration/conftest.py).
"""

import dataclasses

import pytest

from tests.bench import fixtures as fx
from tests.bench.ansible_run import run_playbook, play, task
from tests.bench.kube import KubeSim, is_discovery
from tests.integration.conftest import Kube, task as module_task, workload
from tests.integration.conftest import run_playbook as run_ansible

pytestmark = pytest.mark.budget

KINDS = ('Deployment', 'StatefulSet', 'DaemonSet')
GROUP = 'budget-group'
NEW_IMAGE = fx.IMAGE.format(3)
RC = 'legacy'
RC_REPLICAS = 3


@dataclasses.dataclass
class Op:
    """One task, the most requests it may send, and exactly how many writes it must send."""
    label: str
    module: str
    args: dict
    budget: int
    writes: int
    changed: bool
    check_mode: bool = False


def _target(kind):
    return {'Deployment': 'web', 'StatefulSet': 'db', 'DaemonSet': 'agent'}[kind]


def operations():
    ops = []
    for kind in KINDS:
        name = _target(kind)
        t = {'kind': kind, 'name': name}
        ops += [
            Op(f'history {kind}', 'rollout_history', t, 2, 0, False),
            Op(f'history revision {kind}', 'rollout_history', dict(t, revision=1), 2, 0, False),
            Op(f'status {kind}', 'rollout_status', t, 1, 0, False),
            # kubectl's GET and PATCH: a Deployment's revision numbers come from its annotation, a
            # StatefulSet's or DaemonSet's are only listed with read_revisions (below).
            Op(f'image {kind}', 'rollout_image', dict(t, images={fx.CONTAINER: NEW_IMAGE}), 2, 1, True),
            Op(f'restart {kind}', 'rollout_restart', t, 2, 1, True),
            Op(f'undo {kind}', 'rollout_undo', t, 3, 1, True),
        ]
    d = {'kind': 'Deployment', 'name': 'web'}
    ops += [
        Op('image unchanged Deployment', 'rollout_image', dict(d, images={fx.CONTAINER: NEW_IMAGE}),
           2, 0, False),
        Op('restart read_revisions StatefulSet', 'rollout_restart',
           {'kind': 'StatefulSet', 'name': 'db', 'read_revisions': True}, 3, 1, True),
        Op('restart check mode Deployment', 'rollout_restart', d, 3, 0, True, check_mode=True),
        Op('pause check mode Deployment', 'rollout_pause', dict(d, state='paused'), 2, 0, True,
           check_mode=True),
        Op('pause Deployment', 'rollout_pause', dict(d, state='paused'), 2, 1, True),
        Op('pause again Deployment', 'rollout_pause', dict(d, state='paused'), 1, 0, False),
        Op('resume Deployment', 'rollout_pause', dict(d, state='resumed'), 2, 1, True),
        Op('undo to revision 1 Deployment', 'rollout_undo', dict(d, to_revision=1), 3, 1, True),
    ]
    # Three Deployments by label: one LIST instead of three GETs, then per workload what it needs.
    sel = {'kind': 'Deployment', 'label_selectors': [f'group={GROUP}']}
    ops += [
        Op('status by label (3)', 'rollout_status', sel, 1, 0, False),
        Op('history by label (3)', 'rollout_history', sel, 1 + 3, 0, False),
        Op('restart by label (3)', 'rollout_restart', sel, 1 + 3 * 2, 3, True),
    ]
    # A clean rolling update of a 3-replica RC without the deployment label (kubectl's image mode):
    # the Lease (create, delete), one LIST and one WATCH of the RCs, the annotate PUT, one LIST and
    # one label PATCH per pod, the selector PATCH, the create (at the first scale-up), 5 more scales,
    # the orphaning DELETE and the rename PUT. A long lease so that no renewal falls inside the run.
    ops += [
        Op('rolling update ReplicationController', 'rolling_update_rc',
           {'name': RC, 'image': NEW_IMAGE, 'update_period': 0.02, 'lease_duration': 600, 'timeout': 120},
           2 + 2 + 1 + (1 + RC_REPLICAS) + 1 + 1 + 5 + 2, 2 + 1 + RC_REPLICAS + 1 + 1 + 5 + 2, True),
    ]
    return ops


OPS = operations()


@pytest.fixture(scope='module')
def measured(tmp_path_factory):
    workdir = tmp_path_factory.mktemp('budget')
    sim = KubeSim(str(workdir / 'kubesim'), ready_delay=0.02, extra_args=['--tls', '--token', 'budget'])
    with sim:
        api = sim.client
        fx.namespace(api)
        fx.with_two_revisions(api, [(kind, _target(kind)) for kind in KINDS])
        for i in range(3):
            fx.create(api, fx.workload('Deployment', f'member-{i}', replicas=1, labels={'group': GROUP}))
        fx.wait_all_complete(api, 'Deployment', f'group={GROUP}')
        fx.create(api, fx.workload('ReplicationController', RC, replicas=RC_REPLICAS))
        fx.wait_complete(api, [('ReplicationController', RC)])
        tasks = []
        for op in OPS:
            args = dict(op.args, namespace=fx.NAMESPACE, kubeconfig=sim.kubeconfig)
            if op.module == 'rollout_undo' and not op.check_mode:
                # An undo is measured on a workload at rest. Status writes no longer make it retry
                # (its guard is the generation), but right after the previous task's template change
                # the Deployment controller writes the revision annotation the undo's guard covers:
                # a conflict handled as designed (tests/integration/faults/test_concurrent_writers.py
                # covers both).
                target = {k: v for k, v in args.items() if k in ('kind', 'name', 'label_selectors',
                                                                 'namespace', 'kubeconfig')}
                tasks.append(task(f'settle before {op.label}', {
                    'kubeops.rollout.rollout_status': dict(target, wait=True, wait_timeout=60)}))
            keywords = {'ignore_errors': True}
            if op.check_mode:
                keywords['check_mode'] = True
            tasks.append(task(op.label, {f'kubeops.rollout.{op.module}': args}, **keywords))
        run = run_playbook([play(tasks, name='request budgets')], str(workdir), 'budget',
                           request_log=sim.request_log_path)
    by_name = {t.name: t for t in run.tasks}
    missing = [op.label for op in OPS if op.label not in by_name]
    assert not missing, f'tasks that did not run: {missing}\n{run.output[-3000:]}'
    return by_name


@pytest.mark.parametrize('op', OPS, ids=[op.label for op in OPS])
def test_request_budget(measured, op):
    t = measured[op.label]
    sent = [f'{r["method"]} {r["path"]}' + (f'?{r["query"]}' if r.get('query') else '') for r in t.requests]
    assert t.status == 'ok', f'{op.label} failed: {t.msg}'
    assert t.changed == op.changed, f'{op.label}: changed={t.changed}, expected {op.changed}'
    discovery = [s for s, r in zip(sent, t.requests) if is_discovery(r['path'])]
    assert not discovery, f'{op.label} asked for discovery: {discovery}'
    writes = [s for s, r in zip(sent, t.requests)
              if r['method'] in ('POST', 'PUT', 'PATCH', 'DELETE') and not r.get('dry_run')]
    assert len(writes) == op.writes, f'{op.label}: {len(writes)} writes, expected {op.writes}: {sent}'
    assert len(t.requests) <= op.budget, (
        f'{op.label}: {len(t.requests)} requests, budget {op.budget}: {sent}')


COLLECTIONS = ('replicasets', 'controllerrevisions', 'deployments', 'statefulsets', 'daemonsets',
               'replicationcontrollers', 'pods', 'events')


def shape(requests):
    """[(method, resource path tail)] e.g. ('GET', 'deployments/web'), ('LIST', 'replicasets')."""
    out = []
    for r in requests:
        parts = r['path'].split('/')
        tail = parts[-1] if parts[-2] == 'default' else '/'.join(parts[-2:])
        method = r['method']
        if method == 'GET' and tail.split('/')[-1] in COLLECTIONS:
            method = 'WATCH' if 'watch=true' in r['query'] else 'LIST'
        out.append((method, tail))
    return out


def test_request_shapes(kubesim_factory, tmp_path):
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(request_log=log)
    kube = Kube(sim.kubeconfig)
    kube.create(workload('Deployment', 'web', image='app:1'))
    kube.create(workload('StatefulSet', 'db', image='app:1'))
    for kind, name in (('Deployment', 'web'), ('StatefulSet', 'db')):
        kube.rolled_out(kind, name)
    D = {'kind': 'Deployment', 'name': 'web'}
    S = {'kind': 'StatefulSet', 'name': 'db'}
    # A Deployment's image and restart read its revision annotation instead of listing its
    # ReplicaSets once the controller has observed the spec: each write is followed by a wait (its
    # requests not counted) so that the next task starts from the same state every time.
    tasks = [
        module_task('history', 'rollout_history', **D),
        module_task('image', 'rollout_image', **D, images={'app': 'app:2'}),
        module_task('settle 1', 'rollout_status', **D),
        module_task('image unchanged', 'rollout_image', **D, images={'app': 'app:2'}),
        module_task('undo', 'rollout_undo', **D),
        module_task('settle 2', 'rollout_status', **D),
        module_task('restart', 'rollout_restart', **D),
        module_task('settle 3', 'rollout_status', **D),
        module_task('pause', 'rollout_pause', **D),
        module_task('status', 'rollout_status', **D, wait=False),
        module_task('sts image', 'rollout_image', **S, images={'app': 'app:2'}),
        module_task('sts history', 'rollout_history', **S),
        module_task('sts undo', 'rollout_undo', **S, to_revision=1),
        module_task('selector history', 'rollout_history', kind='Deployment', label_selectors=['app=web']),
    ]
    workdir = tmp_path / 'play'
    workdir.mkdir()
    res = run_ansible(sim.kubeconfig, tasks, workdir=workdir, extra_env={'KUBEOPS_REQUEST_LOG': str(log)})
    expected = {
        'history': [('GET', 'deployments/web'), ('LIST', 'replicasets')],
        'image': [('GET', 'deployments/web'), ('PATCH', 'deployments/web')],
        'image unchanged': [('GET', 'deployments/web')],
        'undo': [('GET', 'deployments/web'), ('LIST', 'replicasets'), ('PATCH', 'deployments/web')],
        'restart': [('GET', 'deployments/web'), ('PATCH', 'deployments/web')],
        'pause': [('GET', 'deployments/web'), ('PATCH', 'deployments/web')],
        'status': [('GET', 'deployments/web')],
        'sts image': [('GET', 'statefulsets/db'), ('PATCH', 'statefulsets/db')],
        'sts history': [('GET', 'statefulsets/db'), ('LIST', 'controllerrevisions')],
        'sts undo': [('GET', 'statefulsets/db'), ('LIST', 'controllerrevisions'),
                     ('PATCH', 'statefulsets/db')],
        'selector history': [('LIST', 'deployments'), ('LIST', 'replicasets')],
    }
    for name, want in expected.items():
        assert shape(res.ok(name)['_requests']) == want, name


# ---- the diagnosis of a failed wait ------------------------------------------------------------
#
# A wait that succeeds reads nothing to explain itself. A wait that fails (a progress deadline, a
# timeout, rolling_update_rc giving up) adds one fixed set of reads per failed workload, never one
# per pod: a Deployment LISTs its ReplicaSets (to find the new one), its new pods and the namespace's
# Warning events; a StatefulSet (its status names the update revision) and a ReplicationController
# (the new controller itself) only the pods and the events. The modules never pass the ReplicaSets or
# ControllerRevisions they read: the only verb that reads them, undo, reads them before its own write,
# which changes which of them is current (and how many pods the new ReplicaSet wants), so the
# diagnosis reads them again after the wait. read_diagnosis's saving when a caller has current ones is
# measured in tests/unit/plugins/test_diagnosis.py.

DIAGNOSIS_SIM = {'fail_image': r'^broken/', 'ready_delay': 0.05, 'time_scale': 10}
DIAGNOSIS_READS = {'pods', 'events', 'replicasets', 'controllerrevisions'}


def after_last_watch(requests):
    """The requests a module sent after its wait's last WATCH: what explaining the failure cost."""
    shapes = shape(requests)
    watches = [i for i, (method, _tail) in enumerate(shapes) if method == 'WATCH']
    assert watches, f'no wait: {shapes}'
    return shapes[watches[-1] + 1:]


def test_diagnosis_costs_nothing_on_success_and_a_few_reads_per_failed_workload(kubesim_factory, tmp_path):
    from tests.integration.rc import Rcs, rc_manifest

    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(request_log=log, **DIAGNOSIS_SIM)
    kube = Kube(sim.kubeconfig)
    web = workload('Deployment', 'web', image='app:1', replicas=3)
    web['spec']['progressDeadlineSeconds'] = 10
    kube.create_rolled_out([web, workload('StatefulSet', 'db', image='app:1', replicas=2)])
    rcs = Rcs(kube)
    rcs.create(rc_manifest('legacy', 'app:1', 2))
    rcs.wait_ready('legacy')
    D = {'kind': 'Deployment', 'name': 'web'}
    S = {'kind': 'StatefulSet', 'name': 'db'}
    tasks = [
        module_task('good', 'rollout_image', **D, images={'app': 'app:2'}, wait=True, wait_timeout=30),
        module_task('broken', 'rollout_image', **D, images={'app': 'broken/app:3'}, wait=True,
                    wait_timeout=30),
        module_task('sts broken', 'rollout_image', **S, images={'app': 'broken/app:3'}, wait=True,
                    wait_timeout=2),
        {'name': 'rc broken', 'ignore_errors': True, 'kubeops.rollout.rolling_update_rc': {
            'name': 'legacy', 'image': 'broken/app:3', 'update_period': 0.05, 'poll_interval': 0.1,
            'timeout': 1}},
    ]
    workdir = tmp_path / 'play'
    workdir.mkdir()
    res = run_ansible(sim.kubeconfig, tasks, workdir=workdir, extra_env={'KUBEOPS_REQUEST_LOG': str(log)})

    good = res.ok('good')
    assert 'diagnosis' not in good['workloads'][0]
    sent = shape(good['_requests'])
    # Before the write, the Deployment alone (its revision annotation gives revision before/after);
    # after it, no diagnosis read.
    write = sent.index(('PATCH', 'deployments/web'))
    assert sent[:write] == [('GET', 'deployments/web')], sent
    assert not [s for s in sent[write:] if s[1].split('/')[0] in DIAGNOSIS_READS], sent
    assert after_last_watch(good['_requests']) == []

    broken = res.failed('broken')
    assert broken['workloads'][0]['status']['reason'] == 'ProgressDeadlineExceeded'
    assert broken['workloads'][0]['diagnosis']['causes'], broken['workloads'][0]
    assert after_last_watch(broken['_requests']) == [('LIST', 'replicasets'), ('LIST', 'pods'),
                                                     ('LIST', 'events')]

    sts = res.failed('sts broken')
    assert sts['workloads'][0]['status']['reason'] == 'Timeout'
    assert sts['workloads'][0]['diagnosis']['causes'], sts['workloads'][0]
    assert after_last_watch(sts['_requests']) == [('LIST', 'pods'), ('LIST', 'events')]

    # rolling_update_rc waits on a watch of the controllers; when it gives up, the diagnosis adds one
    # LIST of the new controller's pods and one of the events (the only events read), and no more.
    rc = res.failed('rc broken')
    assert rc['diagnosis']['causes'], rc['diagnosis']
    sent = shape(rc['_requests'])
    events = [i for i, s in enumerate(sent) if s[1] == 'events']
    assert len(events) == 1, sent
    assert sent[events[0] - 2:events[0] + 1] == [('WATCH', 'replicationcontrollers'), ('LIST', 'pods'),
                                                 ('LIST', 'events')], sent[-8:]
    assert [s for s in sent[events[0] + 1:] if s[1] in ('pods', 'events')] == [], sent[-8:]

"""A failed wait names its cause: real ansible-playbook runs against kubesim, with each failure made
the way the components make it (the kubelet's image pulls and crash back-off, the scheduler against
node allocatable, ResourceQuota admission refusing the controllers' pod creations). The message
names the cause and how many pods it affects, for every kind and for rolling_update_rc; the
structured ``diagnosis`` is in the result; the connection's token never shows.

kubesim cannot simulate a missing ConfigMap key (no CreateContainerConfigError) nor an
unschedulable DaemonSet pod (its DaemonSet controller binds pods to nodes itself): the unit tests
cover those from recorded objects.
"""

import json
import re

import pytest

from ..conftest import Kube, task, workload
from ..rc import Rcs, rc_manifest

pytestmark = pytest.mark.integration

TOKEN = 'diagnosis-secret-token'
# Controller time 10x faster: a 20 s progress deadline passes in 2 s, the kubelet's first crash
# back-off (10 s) in 1 s; a crashing container runs 0.05 s, so it is almost never seen Ready.
SIM = {'nodes': 2, 'ready_delay': 0.05, 'fail_image': r'^broken/', 'crash_image': r'^crash/',
       'crash_after': 0.05, 'time_scale': 10, 'token': TOKEN}
# kubesim on plain http (its timing is what these cases were tuned to): the token is sent anyway.
INSECURE = {'K8S_AUTH_ALLOW_INSECURE_CREDENTIALS': 'true'}
PULL = r'ImagePullBackOff \(broken/app:2: not found\)'
CRASH = r'CrashLoopBackOff \(container app, \d+ restarts, last exit 1 Error\)'
CPU = r'Unschedulable \(0/2 nodes are available: 2 Insufficient cpu\.'
QUOTA = r'FailedCreate \(pods "{pod}" is forbidden: exceeded quota: compute, requested: pods=1'
HUGE = {'spec': {'containers': [{'name': 'app', 'image': 'app:1', 'resources': {'requests': {'cpu': '64'}}}]}}


def failing(kind, name, cause, ns='default'):
    """A workload whose first rollout cannot finish, for ``cause``."""
    image = {'pull': 'broken/app:2', 'crash': 'crash/app:2'}.get(cause, 'app:1')
    obj = workload(kind, name, image=image, ns=ns, labels={'diag': 'yes'},
                   extra_template=HUGE if cause == 'cpu' else None)
    if cause == 'crash':
        obj['spec']['minReadySeconds'] = 10  # a crashing pod's moments of readiness never count
    if kind == 'Deployment':
        obj['spec']['progressDeadlineSeconds'] = 20
    return obj


def assert_line(result, kind, name, pattern, ns='default'):
    """The task's message and the workload's diagnosis both carry the line for ``name``."""
    line = re.compile(r'%s %s/%s: %s' % (kind, ns, re.escape(name), pattern))
    assert line.search(result['msg']), (name, result['msg'])
    entries = [e for e in result['workloads'] if e['name'] == name]
    assert len(entries) == 1, result['workloads']
    diagnosis = entries[0]['diagnosis']
    assert [ln for ln in diagnosis['lines'] if line.match(ln)], diagnosis
    assert diagnosis['errors'] == [], diagnosis
    return diagnosis


def assert_no_secret(res):
    assert TOKEN not in res.stdout + res.stderr
    assert TOKEN not in json.dumps(res.results)


KINDS = ('Deployment', 'StatefulSet', 'DaemonSet')
ROLE_VARS = {'rollout_upgrade_timeout': 30,
             'rollout_upgrade_workloads': [
                 {'kind': 'Deployment', 'name': 'store', 'images': {'app': 'crash/app:2'}}]}


def test_every_cause_for_every_kind(kubesim_factory, play):
    """One kubesim, one play (to keep the suite quick): first rollouts that cannot finish, waited for
    by kind; a quota that refuses every pod in namespace tight; an upgrade of a running Deployment."""
    sim = kubesim_factory(**SIM)
    kube = Kube(sim.kubeconfig)
    cases = {'Deployment': ('web', ('pull', 'crash', 'cpu')),
             'StatefulSet': ('db', ('pull', 'crash', 'cpu')),
             'DaemonSet': ('agent', ('pull', 'crash'))}
    for kind, (base, causes) in cases.items():
        for cause in causes:
            kube.create(failing(kind, f'{base}-{cause}', cause))
    kube.create({'apiVersion': 'v1', 'kind': 'Namespace', 'metadata': {'name': 'tight'}})
    kube.request('POST', '/api/v1/namespaces/tight/resourcequotas',
                 {'apiVersion': 'v1', 'kind': 'ResourceQuota', 'metadata': {'name': 'compute'},
                  'spec': {'hard': {'pods': '0'}}})
    for kind in KINDS:
        kube.create(failing(kind, 'shop', 'quota', ns='tight'))
    running = workload('Deployment', 'front', image='app:1', replicas=3)
    running['spec']['progressDeadlineSeconds'] = 20
    store = workload('Deployment', 'store', image='app:1', replicas=2)
    store['spec']['progressDeadlineSeconds'] = 20
    kube.create_rolled_out([running, store])

    # One task per kind waits for all its workloads at once; each fails its own way.
    # The Deployments' progress deadline (2 s at this time scale) ends their wait well before its
    # timeout, even on a loaded machine; the other kinds have no deadline and time out.
    res = play(sim, [task(f'wait {kind}', 'rollout_status', kind=kind, label_selectors=['diag=yes'],
                          wait_timeout=12 if kind == 'Deployment' else 4) for kind in KINDS]
               + [task(f'quota {kind}', 'rollout_status', kind=kind, name='shop', namespace='tight',
                       wait_timeout=2) for kind in KINDS]
               + [task('upgrade', 'rollout_image', kind='Deployment', name='front',
                       images={'app': 'broken/app:2'}, wait=True, wait_timeout=30)]
               # Last: the role fails the play.
               + [{'name': 'role', 'vars': ROLE_VARS,
                   'ansible.builtin.include_role': {'name': 'kubeops.rollout.rollout_upgrade'}}],
               extra_env=INSECURE)

    web = res.failed('wait Deployment')
    # The progress deadline, not the timeout, ends the Deployments' waits.
    assert {e['reason'] for e in web['workloads']} == {'ProgressDeadlineExceeded'}
    assert 'deployment "web-pull" exceeded its progress deadline' in web['msg']
    pulled = assert_line(web, 'Deployment', 'web-pull', '2/2 new pods not ready: ' + PULL)
    assert pulled['desired'] == 2 and pulled['pods'] == 2 and pulled['ready'] == 0
    assert pulled['revision']['kind'] == 'ReplicaSet'
    assert pulled['causes'][0]['reason'] == 'ImagePullBackOff' and pulled['causes'][0]['count'] == 2
    assert {e['reason'] for e in pulled['events']} == {'Failed'}
    assert_line(web, 'Deployment', 'web-crash', '2/2 new pods not ready: ' + CRASH)
    assert_line(web, 'Deployment', 'web-cpu', '2/2 new pods not ready: ' + CPU)

    # OrderedReady: the second pod is never created while the first is not ready.
    db = res.failed('wait StatefulSet')
    assert {e['reason'] for e in db['workloads']} == {'Timeout'}
    assert_line(db, 'StatefulSet', 'db-pull', '1/1 new pods not ready: ' + PULL)
    # OrderedReady: a crashing pod is Ready for moments, so the controller may already have made the next.
    assert_line(db, 'StatefulSet', 'db-crash', r'([12])/\1 new pods not ready: ' + CRASH)
    assert_line(db, 'StatefulSet', 'db-cpu', '1/1 new pods not ready: ' + CPU)

    agent = res.failed('wait DaemonSet')
    assert_line(agent, 'DaemonSet', 'agent-pull', '2/2 new pods not ready: ' + PULL)
    assert_line(agent, 'DaemonSet', 'agent-crash', '2/2 new pods not ready: ' + CRASH)

    found = assert_line(res.failed('quota Deployment'), 'Deployment', 'shop',
                        '2/2 new pods not created: ' + QUOTA.format(pod=r'shop-\w+-\w+'), ns='tight')
    assert found['pods'] == 0 and found['causes'][0]['category'] == 'creation'
    # The StatefulSet controller's "create Pod ... failed error:" prefix is left out.
    assert_line(res.failed('quota StatefulSet'), 'StatefulSet', 'shop',
                '2/2 new pods not created: ' + QUOTA.format(pod='shop-0'), ns='tight')
    assert_line(res.failed('quota DaemonSet'), 'DaemonSet', 'shop',
                '2/2 new pods not created: ' + QUOTA.format(pod=r'shop-\w+'), ns='tight')

    # Only the new ReplicaSet's pods count: maxSurge 25% of 3 rounds up to 1 and maxUnavailable
    # down to 0, so one new pod at a time.
    up = res.failed('upgrade')
    assert up['changed'] is True
    assert up['workloads'][0]['status']['reason'] == 'ProgressDeadlineExceeded'
    assert assert_line(up, 'Deployment', 'front', '1/1 new pods not ready: ' + PULL)['desired'] == 1

    # The upgrade role's summary (what AWX shows) and its failure name the cause, and the store is
    # rolled back. Crashing pods are Ready for moments, so how many new pods the controller started
    # varies, and on a loaded machine both may be Ready at one moment: the rollout then completes and
    # the soak catches the first restart.
    cause = (r'Deployment default/store: ((1/1|2/2) new pods not ready: %s|pod store-\w+-\w+ restarted '
             r'\d+ times? during the soak \(max_restarts 0\): container app, last exit 1 Error)' % CRASH)
    # The release task fails the play with one message naming the cause (printed, as AWX shows it);
    # the summary's lines are in its result.
    failure = res.failed('kubeops.rollout.rollout_upgrade : Release the new images')
    rolled_back = r'ROLLED BACK: Deployment default/store \(.*'
    assert [ln for ln in failure['summary'] if re.match(rolled_back + cause, ln)], failure['summary']
    assert re.search(cause, failure['msg'])
    assert [ln for ln in res.stdout.splitlines() if ln.startswith('[ERROR]') and re.search(cause, ln)], \
        res.stdout[-3000:]
    store = kube.get('Deployment', 'store')
    assert store['spec']['template']['spec']['containers'][0]['image'] == 'app:1'
    assert_no_secret(res)


def test_rolling_update_rc_names_the_cause_when_it_gives_up(kubesim_factory, play):
    sim = kubesim_factory(**SIM)
    kube = Kube(sim.kubeconfig)
    rcs = Rcs(kube)
    rcs.create(rc_manifest('front', 'app:1', 2))
    rcs.wait_ready('front')

    res = play(sim, [{'name': 'update', 'ignore_errors': True, 'kubeops.rollout.rolling_update_rc': {
        'name': 'front', 'image': 'broken/app:2', 'update_period': 0.05, 'poll_interval': 0.1,
        'timeout': 2}}], extra_env=INSECURE)

    up = res.failed('update')
    line = r'ReplicationController default/front-\w+: 1/1 new pods not ready: ' + PULL
    assert re.search(line, up['msg']), up['msg']
    assert 'timed out waiting for any update progress' in up['msg']
    assert 'Run the task again' in up['msg']
    assert up['diagnosis']['kind'] == 'ReplicationController'
    assert up['diagnosis']['causes'][0]['reason'] == 'ImagePullBackOff'
    assert_no_secret(res)

"""rollout_release through real ansible-playbook runs against kubesim: preflight before any write,
write all, wait with early stop, soak, put back on every failure, OnDelete StatefulSets, check mode."""

import pytest

from ..conftest import Kube, image_of, read_log, task, workload

pytestmark = pytest.mark.integration

GOOD = 'nginx:1.26'
BROKEN = 'registry.example.com/broken:9'  # --fail-image: never pulls
CRASHING = 'registry.example.com/crashy:1'  # --crash-image: Ready, then crashes


def release(*entries, **options):
    options.setdefault('timeout', 60)
    return task('release', 'rollout_release', workloads=list(entries), **options)


def entry(kind, name, image=GOOD, **extra):
    return dict({'kind': kind, 'name': name, 'images': {'app': image}}, **extra)


def by_name(result):
    return {w['name']: w for w in result['workloads']}


def templates(kube, names):
    return {(kind, name): kube.get(kind, name)['spec']['template'] for kind, name in names}


def writes(log):
    return [r for r in log if r['method'] in ('PATCH', 'PUT', 'POST', 'DELETE') and not r.get('dry_run')]


@pytest.mark.kubesim_options(fail_image='broken', request_log=None)
def test_preflight_refuses_everything_before_any_write(kubesim_factory, play, tmp_path):
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(request_log=str(log))
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out(
        [workload('Deployment', 'web'), workload('Deployment', 'paused'), workload('StatefulSet', 'db')]
    )
    kube.patch('Deployment', 'paused', {'spec': {'paused': True}})
    names = [('Deployment', 'web'), ('Deployment', 'paused'), ('StatefulSet', 'db')]
    before = templates(kube, names)
    log.write_text('')

    res = play(
        sim,
        [
            release(
                entry('Deployment', 'web'),
                entry('Deployment', 'paused'),
                {'kind': 'sts', 'name': 'db', 'images': {'nope': GOOD}},
                entry('Deployment', 'missing'),
                entry('ReplicaSet', 'rs'),
            )
        ],
    )
    r = res.failed('release')
    assert templates(kube, names) == before
    assert not writes(read_log(log)), writes(read_log(log))
    msg = r['msg']
    assert msg.startswith('release refused before any write')
    assert 'workloads[4] (rs): kind "ReplicaSet" is not a kind rollouts apply to' in msg
    # Every workload that can be read is judged: all three problems in one message.
    res = play(
        sim,
        [
            release(
                entry('Deployment', 'web'),
                entry('Deployment', 'paused'),
                {'kind': 'sts', 'name': 'db', 'images': {'nope': GOOD}},
                entry('Deployment', 'missing'),
            )
        ],
    )
    msg = res.failed('release')['msg']
    assert 'Deployment default/paused is paused' in msg, msg
    assert 'StatefulSet default/db' in msg and 'nope' in msg, msg
    assert 'Deployment default/missing: not found' in msg, msg
    assert templates(kube, names) == before
    assert not writes(read_log(log))


def test_an_invalid_change_is_refused_by_the_dry_run_before_any_write(kubesim, play):
    kube = Kube(kubesim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web'), workload('Deployment', 'api')])
    before = templates(kube, [('Deployment', 'web'), ('Deployment', 'api')])
    res = play(kubesim, [release(entry('Deployment', 'web'), entry('Deployment', 'api', image=' '))])
    msg = res.failed('release')['msg']
    assert 'Deployment default/api: no image given for container app' in msg, msg
    res = play(
        kubesim, [release(entry('Deployment', 'web'), entry('Deployment', 'api', image='nginx:1.26 '))]
    )
    msg = res.failed('release')['msg']
    assert 'Deployment default/api: the API server refused the change in a dry run' in msg, msg
    assert templates(kube, [('Deployment', 'web'), ('Deployment', 'api')]) == before


def test_a_release_upgrades_every_kind_and_a_second_run_changes_nothing(kubesim, play):
    kube = Kube(kubesim.kubeconfig)
    ondelete = workload('StatefulSet', 'legacy', replicas=3)
    ondelete['spec']['updateStrategy'] = {'type': 'OnDelete'}
    kube.create_rolled_out(
        [
            workload('Deployment', 'web'),
            workload('StatefulSet', 'db'),
            workload('DaemonSet', 'agent'),
            ondelete,
        ]
    )
    entries = [
        entry('Deployment', 'web'),
        entry('StatefulSet', 'db'),
        entry('ds', 'agent'),
        entry('StatefulSet', 'legacy'),
    ]
    res = play(kubesim, [release(*entries)])
    r = res.ok('release')
    assert r['changed'] is True
    assert {w['name']: w['outcome'] for w in r['workloads']} == dict.fromkeys(
        ('web', 'db', 'agent', 'legacy'), 'upgraded'
    )
    # The OnDelete StatefulSet's pods were replaced highest ordinal first, and all run the new image.
    assert by_name(r)['legacy']['deleted_pods'] == ['legacy-2', 'legacy-1', 'legacy-0']
    for pod in kube.list('Pod', selector='app=legacy'):
        assert pod['spec']['containers'][0]['image'] == GOOD
    for kind, name in (('Deployment', 'web'), ('StatefulSet', 'db'), ('DaemonSet', 'agent')):
        assert image_of(kube.rolled_out(kind, name)) == GOOD

    res = play(kubesim, [release(*entries)])
    r = res.ok('release')
    assert r['changed'] is False
    assert {w['outcome'] for w in r['workloads']} == {'unchanged'}


def test_check_mode_shows_the_diff_and_writes_nothing(kubesim, play):
    kube = Kube(kubesim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web'), workload('StatefulSet', 'db', image=GOOD)])
    before = templates(kube, [('Deployment', 'web'), ('StatefulSet', 'db')])
    res = play(
        kubesim, [release(entry('Deployment', 'web'), entry('StatefulSet', 'db'))], check=True, diff=True
    )
    r = res.ok('release')
    assert r['changed'] is True
    assert {w['name']: w['outcome'] for w in r['workloads']} == {'web': 'upgraded', 'db': 'unchanged'}
    assert len(r['diff']) == 1
    assert r['diff'][0]['after']['spec']['template']['spec']['containers'][0]['image'] == GOOD
    assert r['diff'][0]['before']['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1.25'
    assert templates(kube, [('Deployment', 'web'), ('StatefulSet', 'db')]) == before


@pytest.mark.kubesim_options(fail_image='broken')
def test_a_statefulset_that_cannot_pull_stops_early_and_everything_is_put_back(kubesim, play):
    kube = Kube(kubesim.kubeconfig)
    kube.create_rolled_out(
        [workload('Deployment', 'web'), workload('StatefulSet', 'db'), workload('DaemonSet', 'agent')]
    )
    names = [('Deployment', 'web'), ('StatefulSet', 'db'), ('DaemonSet', 'agent')]
    before = templates(kube, names)
    res = play(
        kubesim,
        [
            release(
                entry('Deployment', 'web'),
                entry('StatefulSet', 'db', image=BROKEN),
                entry('DaemonSet', 'agent'),
                timeout=300,
                fail_fast_seconds=2,
            )
        ],
    )
    r = res.failed('release')
    assert res.duration < 60, res.duration  # not the 300 s timeout
    outcomes = {w['name']: w['outcome'] for w in r['workloads']}
    assert outcomes == dict.fromkeys(('web', 'db', 'agent'), 'rolled_back'), r['workloads']
    db = by_name(r)['db']
    assert db['status']['reason'] == 'RolloutStuck'
    assert 'ImagePullBackOff' in db['cause'] and 'Next: check the image name' in db['cause'], db['cause']
    assert r['changed'] is True  # it wrote, even though it put everything back
    for kind, name in names:
        kube.rolled_out(kind, name)
    after = templates(kube, names)
    for key in names:
        assert after[key]['spec'] == before[key]['spec'], key
    assert 'ROLLED BACK: Deployment default/web, StatefulSet default/db, DaemonSet default/agent' in r['msg']


@pytest.mark.kubesim_options(crash_image='crashy', crash_after=1.0)
def test_pods_that_crash_after_becoming_ready_fail_the_soak(kubesim, play):
    kube = Kube(kubesim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web'), workload('Deployment', 'api')])
    res = play(
        kubesim,
        [
            release(
                entry('Deployment', 'web', image=CRASHING),
                entry('Deployment', 'api'),
                soak_seconds=6,
                atomic=False,
            )
        ],
    )
    r = res.failed('release')
    web, api = by_name(r)['web'], by_name(r)['api']
    assert web['outcome'] == 'rolled_back', web
    assert web['status']['reason'] in ('SoakRestarts', 'SoakPodNotReady'), web
    assert 'during the soak' in web['cause']
    # atomic: false keeps the workloads that passed.
    assert api['outcome'] == 'upgraded', api
    assert image_of(kube.rolled_out('Deployment', 'api')) == GOOD
    assert image_of(kube.rolled_out('Deployment', 'web')) == 'nginx:1.25'


def test_a_refused_third_write_puts_back_the_first_two(kubesim_factory, play):
    sim = kubesim_factory(faults='persisting_conflict=apps/deployments/default/c:100')
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', n) for n in 'abc'])
    names = [('Deployment', n) for n in 'abc']
    before = templates(kube, names)
    res = play(sim, [release(*[entry('Deployment', n) for n in 'abc'])])
    r = res.failed('release')
    outcomes = {w['name']: w['outcome'] for w in r['workloads']}
    assert outcomes == {'a': 'rolled_back', 'b': 'rolled_back', 'c': 'untouched'}, r['workloads']
    assert 'the write was refused' in by_name(r)['c']['cause']
    assert r['changed'] is True
    for _kind, name in names:
        kube.rolled_out('Deployment', name)
    after = templates(kube, names)
    for key in names:
        assert after[key]['spec'] == before[key]['spec'], key


def test_many_workloads_of_one_namespace_are_read_and_probed_with_shared_lists(kubesim_factory, play,
                                                                               tmp_path):
    # Six Deployments of one namespace, one of them broken: the preflight reads them with one LIST,
    # and their early-stop probes read the namespace's pods, ReplicaSets and warnings from copies
    # they share, each LISTed once and kept current by a WATCH, which still see the pull error.
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(request_log=str(log), fail_image='broken')
    kube = Kube(sim.kubeconfig)
    names = ['w%d' % i for i in range(6)]
    kube.create_rolled_out([workload('Deployment', n) for n in names])
    log.write_text('')
    res = play(sim, [release(*[entry('Deployment', n, image=BROKEN if n == 'w0' else GOOD) for n in names],
                             timeout=300, fail_fast_seconds=3)])
    r = res.failed('release')
    assert res.duration < 90, res.duration
    w0 = by_name(r)['w0']
    assert w0['status']['reason'] == 'RolloutStuck', w0
    assert 'ImagePullBackOff' in w0['cause'], w0['cause']
    assert {w['outcome'] for w in r['workloads']} == {'rolled_back'}, r['workloads']
    requests = read_log(log)  # the play's alone: the log was emptied before it
    reads = [(e['method'], e['path'], e['query']) for e in requests
             if e['method'] == 'GET' and 'watch=' not in e['query']]
    deployments = '/apis/apps/v1/namespaces/default/deployments'
    assert [q for q in reads if q[1].startswith(deployments)][:1] == [('GET', deployments, '')], reads
    # Each probe collection: one LIST of the whole namespace, then only WATCHes from a resourceVersion
    # (re-opened only when the server ends one), however many probe rounds ran.
    for path in ('/api/v1/namespaces/default/pods', '/api/v1/namespaces/default/events',
                 '/apis/apps/v1/namespaces/default/replicasets'):
        of = [e['query'] for e in requests if e['method'] == 'GET' and e['path'] == path]
        assert of and of[0] == '', (path, of)  # the probes ran, and read the whole list first
        lists = [q for q in of if 'watch=' not in q]
        watches = [q for q in of if 'watch=' in q]
        assert lists == [''], (path, of)
        assert watches and all('resourceVersion=' in q for q in watches), (path, of)


def test_a_rerun_that_writes_nothing_does_not_soak_and_says_so(kubesim_factory, play, tmp_path):
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(request_log=str(log))
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web')])
    first = play(sim, [release(entry('Deployment', 'web'), soak_seconds=4)]).ok('release')
    assert first['changed'] is True and 'no soak' not in first['msg'], first['msg']
    log.write_text('')
    res = play(sim, [release(entry('Deployment', 'web'), soak_seconds=30)])
    again = res.ok('release')
    assert again['changed'] is False
    assert 'no soak or analysis: nothing was written' in again['msg'], again['msg']
    assert res.duration < 25, res.duration  # not the 30 s soak
    pod_lists = [e for e in read_log(log) if e['method'] == 'GET' and e['path'].endswith('/pods')]
    assert pod_lists == [], pod_lists

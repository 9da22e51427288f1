"""Several kinds in one task, kubectl's ``deploy,sts -l ...``, side by side with kubectl.

Each workload exists twice, in namespace ``mod`` (driven by the modules) and ``kctl`` (driven by
kubectl); after the same verbs both namespaces must show the same workloads changed.
"""

import pytest

from ..conftest import Kube, task, workload

pytestmark = pytest.mark.integration

RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt'
SHOP = 'app.kubernetes.io/part-of=shop'
# (kind, name, in the shop?)
WORKLOADS = [('Deployment', 'web', True), ('StatefulSet', 'db', True), ('DaemonSet', 'agent', True),
             ('Deployment', 'other', False)]


def setup_namespaces(kube, namespaces):
    for ns in namespaces:
        kube.request('POST', '/api/v1/namespaces', {'apiVersion': 'v1', 'kind': 'Namespace',
                                                     'metadata': {'name': ns}})
        manifests = []
        for kind, name, shop in WORKLOADS:
            labels = {'app.kubernetes.io/part-of': 'shop' if shop else 'else'}
            manifests.append(workload(kind, name, image='app:1', labels=labels, ns=ns, replicas=1))
        kube.create_rolled_out(manifests)


def restarted(kube, ns):
    out = set()
    for kind, name, _shop in WORKLOADS:
        annotations = kube.get(kind, name, ns)['spec']['template']['metadata'].get('annotations') or {}
        if RESTARTED_AT in annotations:
            out.add((kind, name))
    return out


def paused(kube, ns):
    return {(kind, name) for kind, name, _shop in WORKLOADS
            if kind == 'Deployment' and kube.get(kind, name, ns)['spec'].get('paused')}


def identities(result):
    return [(w['kind'], w['name']) for w in result['workloads']]


def test_several_kinds_by_selector_match_kubectl(kubesim_factory, play, kubectl):
    sim = kubesim_factory(nodes=1)
    kube = Kube(sim.kubeconfig)
    run = kubectl.using(sim)
    setup_namespaces(kube, ('mod', 'kctl'))

    # kubectl: restart deploy,sts; history of all three; pause deploy,sts (fails for the StatefulSet)
    run('rollout', 'restart', 'deploy,sts', '-l', SHOP, '-n', 'kctl', check=True)
    history_out = run('rollout', 'history', 'deploy,sts,ds', '-l', SHOP, '-n', 'kctl', check=True).stdout
    kubectl_pause = run('rollout', 'pause', 'deploy,sts', '-l', SHOP, '-n', 'kctl')

    shop = {'namespace': 'mod', 'label_selectors': [SHOP]}
    res = play(sim, [
        task('restart deploy,sts', 'rollout_restart', kind='deploy,sts', **shop),
        task('history, kind omitted', 'rollout_history', **shop),
        task('status of a list of kinds', 'rollout_status', kind=['Deployment', 'sts', 'daemonsets.apps'],
             wait_timeout=60, **shop),
        task('pause deploy,sts', 'rollout_pause', kind='deploy,sts', **shop),
        task('name without kind', 'rollout_history', name='web', namespace='mod'),
        task('name with two kinds', 'rollout_history', kind='deploy,sts', name='web', namespace='mod'),
    ])

    restart = res.ok('restart deploy,sts')
    assert identities(restart) == [('Deployment', 'web'), ('StatefulSet', 'db')]
    assert restarted(kube, 'mod') == restarted(kube, 'kctl') == {('Deployment', 'web'), ('StatefulSet', 'db')}

    history = res.ok('history, kind omitted')
    assert identities(history) == [('Deployment', 'web'), ('StatefulSet', 'db'), ('DaemonSet', 'agent')]
    for kind, name, _shop in WORKLOADS[:3]:  # kubectl lists the same three workloads
        assert f'{kind.lower()}.apps/{name}' in history_out, history_out
    assert 'other' not in history_out

    status = res.ok('status of a list of kinds')
    assert identities(status) == [('Deployment', 'web'), ('StatefulSet', 'db'), ('DaemonSet', 'agent')]
    assert all(w['done'] for w in status['workloads']), status['workloads']

    # Both pause the Deployment and fail for the StatefulSet, with the same reason.
    assert kubectl_pause.returncode != 0 and 'not supported' in kubectl_pause.stderr
    pause = res.failed('pause deploy,sts')
    assert 'statefulsets.apps "db" pausing is not supported' in pause['msg']
    assert identities(pause) == [('Deployment', 'web')] and pause['changed'] is True
    assert paused(kube, 'mod') == paused(kube, 'kctl') == {('Deployment', 'web')}

    assert 'kind is required with name' in res.failed('name without kind')['msg']
    assert 'give one kind with name' in res.failed('name with two kinds')['msg']


def undo_setup(kube, ns):
    kube.request('POST', '/api/v1/namespaces', {'apiVersion': 'v1', 'kind': 'Namespace',
                                                 'metadata': {'name': ns}})
    labels = {'app.kubernetes.io/part-of': 'shop'}
    # two revisions: a, paused, db; one revision: fresh (nothing to go back to)
    manifests = [workload(kind, name, image='app:1', labels=labels, ns=ns, replicas=1)
                 for kind, name in (('Deployment', 'a'), ('Deployment', 'fresh'), ('Deployment', 'paused'),
                                    ('StatefulSet', 'db'))]
    kube.create_rolled_out(manifests)
    for kind, name in (('Deployment', 'a'), ('Deployment', 'paused'), ('StatefulSet', 'db')):
        new_image = {'spec': {'template': {'spec': {'containers': [{'name': 'app', 'image': 'app:2'}]}}}}
        kube.patch(kind, name, new_image, ns=ns)
        kube.rolled_out(kind, name, ns=ns)
    kube.patch('Deployment', 'paused', {'spec': {'paused': True}}, ns=ns)


def images(kube, ns):
    return {name: kube.get(kind, name, ns)['spec']['template']['spec']['containers'][0]['image']
            for kind, name in (('Deployment', 'a'), ('Deployment', 'fresh'), ('Deployment', 'paused'),
                               ('StatefulSet', 'db'))}


def test_undo_by_selector_does_the_rest_and_lists_each_failure_like_kubectl(kubesim_factory, play, kubectl):
    sim = kubesim_factory(nodes=1)
    kube = Kube(sim.kubeconfig)
    for ns in ('mod', 'kctl'):
        undo_setup(kube, ns)
    before = images(kube, 'mod')
    assert before == images(kube, 'kctl')
    assert before == {'a': 'app:2', 'fresh': 'app:1', 'paused': 'app:2', 'db': 'app:2'}

    by_kubectl = kubectl.using(sim)('rollout', 'undo', 'deploy,sts', '-l', SHOP, '-n', 'kctl')
    shop = {'namespace': 'mod', 'label_selectors': [SHOP]}
    res = play(sim, [task('check', 'rollout_undo', check_mode=True, **shop)])
    check = res.failed('check')
    assert images(kube, 'mod') == before  # check mode changed nothing
    res = play(sim, [task('undo', 'rollout_undo', **shop)])
    undo = res.failed('undo')

    # kubectl undoes the two it can and exits non-zero naming the other two; so do the modules.
    assert by_kubectl.returncode != 0
    assert 'no rollout history found for deployment "fresh"' in by_kubectl.stderr
    assert 'cannot rollback a paused deployment' in by_kubectl.stderr
    assert images(kube, 'mod') == images(kube, 'kctl') == {'a': 'app:1', 'fresh': 'app:1', 'paused': 'app:2',
                                                           'db': 'app:1'}
    for result in (check, undo):
        assert result['changed'] is True
        assert identities(result) == [('Deployment', 'a'), ('StatefulSet', 'db')]
        assert [(f['kind'], f['name']) for f in result['failures']] == [('Deployment', 'fresh'),
                                                                         ('Deployment', 'paused')]
        assert 'no rollout history found for deployment "fresh"' in result['failures'][0]['msg']
        assert 'cannot rollback a paused deployment' in result['failures'][1]['msg']
        assert all(f['msg'] in result['msg'] for f in result['failures'])


def test_a_selector_matching_nothing_warns_or_fails_with_require_match(kubesim_factory, play, kubectl):
    sim = kubesim_factory(nodes=1)
    kube = Kube(sim.kubeconfig)
    setup_namespaces(kube, ('mod',))
    nothing = 'app.kubernetes.io/part-of=nothing'
    none = {'namespace': 'mod', 'label_selectors': [nothing]}
    by_kubectl = kubectl.using(sim)('rollout', 'restart', 'deploy,sts', '-l', nothing, '-n', 'mod')
    res = play(sim, [
        task('restart nothing', 'rollout_restart', kind='deploy,sts', **none),
        task('status nothing', 'rollout_status', **none),
        task('restart nothing, required', 'rollout_restart', kind='deploy', require_match=True, **none),
        task('check mode, required', 'rollout_undo', require_match=True, check_mode=True, **none),
        task('a match, required', 'rollout_history', require_match=True, namespace='mod',
             label_selectors=[SHOP]),
    ])
    # kubectl says so and succeeds; the module warns and succeeds
    assert by_kubectl.returncode == 0 and 'No resources found in mod namespace' in by_kubectl.stderr
    restart = res.ok('restart nothing')
    assert restart['changed'] is False and restart['workloads'] == []
    assert restart['warnings'] == [f'label_selectors "{nothing}" matched no Deployment or StatefulSet in '
                                   'namespace "mod": nothing was done']
    status = res.ok('status nothing')
    assert 'matched no Deployment, StatefulSet or DaemonSet in namespace "mod"' in status['warnings'][0]
    for title in ('restart nothing, required', 'check mode, required'):
        failed = res.failed(title)
        assert 'matched no' in failed['msg'] and 'namespace "mod"' in failed['msg'], failed['msg']
        assert 'require_match' in failed['msg'] and failed['changed'] is False
    matched = res.ok('a match, required')
    assert len(matched['workloads']) == 3 and not matched.get('warnings')
    assert restarted(kube, 'mod') == set()

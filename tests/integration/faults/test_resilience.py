"""Transient faults and forced conflicts still end in the right state; fields the client library
does not model survive every write."""


import pytest

from ..conftest import ONE_OF_EACH, Kube, entry, read_log, task, workload

pytestmark = pytest.mark.integration

FAULTS = 'seed=11;429=0.12;500=0.08;503=0.08;drop=0.04;retry_after=0'


def test_transient_faults_and_conflicts(kubesim_factory, play, tmp_path):
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(request_log=log)
    kube = Kube(sim.kubeconfig)
    kinds = ONE_OF_EACH
    kube.create_rolled_out([workload(kind, name, image='app:1') for kind, name in kinds.items()])
    # Every write to each workload meets two conflicts first, on top of random faults everywhere.
    conflicts = ';'.join(f'conflict=apps/{kind.lower()}s/default/{name}:2' for kind, name in kinds.items())
    sim.set_faults(f'{FAULTS};{conflicts}')

    tasks = []
    for kind, name in kinds.items():
        W = {'kind': kind, 'name': name}
        tasks += [
            task(f'{kind} image', 'rollout_image', **W, images={'app': 'app:2'}, wait=True, wait_timeout=60),
            task(f'{kind} history', 'rollout_history', **W),
            task(f'{kind} undo', 'rollout_undo', **W, wait=True, wait_timeout=60),
            task(f'{kind} restart', 'rollout_restart', **W, wait=True, wait_timeout=60),
            task(f'{kind} status', 'rollout_status', **W, wait_timeout=60),
        ]
    tasks.append(task('pause', 'rollout_pause', kind='Deployment', name='web'))
    res = play(sim, tasks)
    sim.set_faults('')

    statuses = [r['status'] for r in read_log(log)]
    assert {429, 500, 503} <= set(statuses), 'the faults were not injected'
    assert statuses.count(409) >= 6, 'the forced conflicts were not met'
    for kind, name in kinds.items():
        assert entry(res.ok(f'{kind} image'))['status']['done'] is True
        assert [r['revision'] for r in entry(res.ok(f'{kind} history'))['revisions']] == [1, 2]
        undo = entry(res.ok(f'{kind} undo'))
        assert undo['changed'] and undo['to_revision'] == 1
        assert entry(res.ok(f'{kind} restart'))['status']['done'] is True
        assert entry(res.ok(f'{kind} status'))['done'] is True
        obj = kube.get(kind, name)
        assert obj['spec']['template']['spec']['containers'][0]['image'] == 'app:1'
        assert 'kubectl.kubernetes.io/restartedAt' in obj['spec']['template']['metadata']['annotations']
        assert kube.history_numbers(kind, obj) == [2, 3, 4]
    assert entry(res.ok('pause'))['paused'] is True
    assert kube.get('Deployment', 'web')['spec']['paused'] is True


# Fields the API server knows but the collection's code never names: every write must carry them
# back untouched (a real server drops fields it does not know, so those cannot be the test).
UNMODELLED = {
    'metadata': {'annotations': {'example.com/made-up': 'keep me'}},
    'spec': {'dnsConfig': {'options': [{'name': 'ndots', 'value': '2'}], 'searches': ['svc.example']},
             'hostAliases': [{'ip': '10.1.2.3', 'hostnames': ['db.example']}]},
}
UNMODELLED_SPEC = UNMODELLED['spec']


def test_lossless_through_image_restart_and_undo(kubesim_factory, play):
    sim = kubesim_factory()
    kube = Kube(sim.kubeconfig)
    kinds = ONE_OF_EACH
    kube.create_rolled_out([workload(kind, name, image='app:1', extra_template=UNMODELLED)
                            for kind, name in kinds.items()])
    for kind, name in kinds.items():
        spec = kube.get(kind, name)['spec']['template']['spec']
        assert {k: spec.get(k) for k in UNMODELLED_SPEC} == UNMODELLED_SPEC

    tasks = []
    for kind, name in kinds.items():
        W = {'kind': kind, 'name': name}
        tasks += [
            task(f'{kind} image', 'rollout_image', **W, images={'app': 'app:2'}, wait=True),
            task(f'{kind} restart', 'rollout_restart', **W, wait=True),
            task(f'{kind} undo', 'rollout_undo', **W, to_revision=1, wait=True),
            task(f'{kind} history', 'rollout_history', **W, revision=4),  # revision 1 became 4
        ]
    res = play(sim, tasks)
    for kind, name in kinds.items():
        for verb in ('image', 'restart', 'undo'):
            assert res.ok(f'{kind} {verb}')['changed']
        template = kube.get(kind, name)['spec']['template']
        assert template['metadata']['annotations'] == {'example.com/made-up': 'keep me'}
        assert {k: template['spec'].get(k) for k in UNMODELLED_SPEC} == UNMODELLED_SPEC
        assert template['spec']['containers'][0]['image'] == 'app:1'
        shown = entry(res.ok(f'{kind} history'))['template']
        assert {k: shown['spec'].get(k) for k in UNMODELLED_SPEC} == UNMODELLED_SPEC

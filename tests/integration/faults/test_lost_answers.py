"""A write that was applied but whose answer was lost (the connection closed, or a 500 after the
commit) is reported as applied, and done once: restart, image and pause, through real
ansible-playbook against kubesim's after-write faults."""

import pytest

from ..conftest import Kube, image_of, read_log, task, workload

pytestmark = pytest.mark.integration


@pytest.mark.parametrize('fault', ['drop_after_write', '500_after_write'])
def test_restart_image_and_pause_whose_answer_is_lost_are_reported_applied_once(kubesim_factory, play,
                                                                                fault, tmp_path):
    names = ('restarted', 'imaged', 'paused')
    log = tmp_path / 'requests.jsonl'
    # Faults set once the workloads exist (their creation is a write too).
    sim = kubesim_factory(faults='', request_log=str(log))
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', n) for n in names])
    sim.set_faults(';'.join('%s=apps/deployments/default/%s:1' % (fault, n) for n in names))
    generations = {n: kube.get('Deployment', n)['metadata']['generation'] for n in names}
    res = play(sim, [
        task('restart', 'rollout_restart', kind='Deployment', name='restarted'),
        task('image', 'rollout_image', kind='Deployment', name='imaged', images={'app': 'nginx:1.27'}),
        task('pause', 'rollout_pause', kind='Deployment', name='paused'),
    ])
    for name in ('restart', 'image', 'pause'):
        assert res.ok(name)['changed'] is True, res.ok(name)
    # Each write's answer was lost and the write sent again (the repeat found it done).
    for n in names:
        sent = [e for e in read_log(log) if e['method'] == 'PATCH' and e['path'].endswith('/' + n)
                and not e['dry_run']]
        assert len(sent) >= 2, (n, sent)
    # Each applied once: one spec change (one generation more), whatever the retries saw.
    after = {n: kube.get('Deployment', n) for n in names}
    assert {n: after[n]['metadata']['generation'] - generations[n] for n in names} == dict.fromkeys(names, 1)
    assert image_of(after['imaged']) == 'nginx:1.27' and after['paused']['spec']['paused'] is True
    template = after['restarted']['spec']['template']
    stamp = template['metadata']['annotations']['kubectl.kubernetes.io/restartedAt']
    assert res.ok('restart')['workloads'][0]['restarted_at'] == stamp

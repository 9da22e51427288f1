"""The upgrade role's StatefulSet canary (by partition) through real ansible-playbook runs against
kubesim: what the verification tasks see, acceptance, rejection with rollback, check mode and a
second run that changes nothing."""

import pytest
import yaml

from ..conftest import Kube, workload

pytestmark = pytest.mark.integration


def include_upgrade(**role_vars):
    return {'name': 'upgrade', 'ansible.builtin.include_role': {'name': 'kubeops.rollout.rollout_upgrade'},
            'vars': role_vars, 'ignore_errors': True}


def show(fact):
    return {'name': f'show {fact}', 'ansible.builtin.debug': {'var': fact}}


def verify_file(tmp_path, url, reject):
    """Verification tasks that record the pods' images as the canary stands, and may reject it."""
    tasks = [
        {'name': 'read the pods', 'ansible.builtin.uri': {
            'url': f'{url}/api/v1/namespaces/default/pods?labelSelector=app%3Ddb', 'return_content': True},
         'register': 'pods'},
        {'name': 'note what the canary looks like', 'ansible.builtin.set_fact': {
            'canary_seen': "{{ dict(pods.json['items'] | map(attribute='metadata.name') | "
                           "zip(pods.json['items'] | map(attribute='spec.containers') | map('first') "
                           "| map(attribute='image'))) }}"}},
    ]
    if reject:
        tasks.append({'name': 'the canary is bad', 'ansible.builtin.fail': {'msg': 'error rate too high'}})
    path = tmp_path / ('reject.yml' if reject else 'accept.yml')
    path.write_text(yaml.safe_dump(tasks, sort_keys=False))
    return str(path)


def upgrade(verify, image='nginx:1.26'):
    return include_upgrade(
        rollout_upgrade_canary=True, rollout_upgrade_canary_verify_tasks=verify, rollout_upgrade_timeout=60,
        rollout_upgrade_workloads=[{'kind': 'StatefulSet', 'name': 'db', 'images': {'app': image}}])


def images(kube):
    return {p['metadata']['name']: p['spec']['containers'][0]['image']
            for p in kube.list('Pod', selector='app=db')}


def partition(kube):
    return kube.get('StatefulSet', 'db')['spec']['updateStrategy']['rollingUpdate']['partition']


def test_statefulset_canary_accepted(kubesim, play, tmp_path):
    kube = Kube(kubesim.kubeconfig)
    kube.create(workload('StatefulSet', 'db', image='nginx:1.25', replicas=3))
    kube.rolled_out('StatefulSet', 'db')
    verify = verify_file(tmp_path, kube.url, reject=False)
    generation = kube.get('StatefulSet', 'db')['metadata']['generation']

    check = play(kubesim, [upgrade(verify), show('rollout_upgrade_result')], check=True, diff=True)
    assert check.rc == 0, check.stdout[-3000:]
    planned = check.ok('show rollout_upgrade_result')['rollout_upgrade_result']
    assert planned['upgraded'] == ['StatefulSet default/db'], planned
    assert planned['changed'] is True
    assert kube.get('StatefulSet', 'db')['metadata']['generation'] == generation, 'check mode wrote'
    assert '"image": "nginx:1.26"' in check.stdout  # the --diff of the template

    res = play(kubesim, [upgrade(verify), show('rollout_upgrade_result'), show('canary_seen')])
    assert res.rc == 0, res.stdout[-3000:]
    # While the verification ran, only the highest ordinal had the new image.
    assert res.ok('show canary_seen')['canary_seen'] == {
        'db-0': 'nginx:1.25', 'db-1': 'nginx:1.25', 'db-2': 'nginx:1.26'}
    result = res.ok('show rollout_upgrade_result')['rollout_upgrade_result']
    assert result['upgraded'] == ['StatefulSet default/db'] and result['failed'] is False, result
    assert result['summary'] == ['Promoted: StatefulSet default/db']
    kube.rolled_out('StatefulSet', 'db')
    assert images(kube) == {'db-0': 'nginx:1.26', 'db-1': 'nginx:1.26', 'db-2': 'nginx:1.26'}
    assert partition(kube) == 0

    generation = kube.get('StatefulSet', 'db')['metadata']['generation']
    again = play(kubesim, [upgrade(verify), show('rollout_upgrade_result')])
    assert again.rc == 0, again.stdout[-3000:]
    assert again.ok('show rollout_upgrade_result')['rollout_upgrade_result']['unchanged'] == [
        'StatefulSet default/db']
    assert 'changed=0' in again.stdout.split('PLAY RECAP')[-1]
    assert kube.get('StatefulSet', 'db')['metadata']['generation'] == generation


def test_statefulset_canary_rejected_is_rolled_back_before_the_partition_is_released(kubesim, play, tmp_path):
    kube = Kube(kubesim.kubeconfig)
    kube.create(workload('StatefulSet', 'db', image='nginx:1.25', replicas=3))
    kube.rolled_out('StatefulSet', 'db')
    verify = verify_file(tmp_path, kube.url, reject=True)

    res = play(kubesim, [{'name': 'upgrade, then show', 'block': [upgrade(verify)],
                          'always': [show('rollout_upgrade_result'), show('canary_seen')]}])
    assert res.rc != 0
    # The role's last task fails the play, naming the verification task that rejected the canary.
    final = [name for name in res.results if name.endswith('Canary | fail the play')]
    msg = res.failed(final[0])['msg']
    assert len(final) == 1 and 'canary rejected at "the canary is bad": error rate too high' in msg, msg
    assert res.ok('show canary_seen')['canary_seen'] == {
        'db-0': 'nginx:1.25', 'db-1': 'nginx:1.25', 'db-2': 'nginx:1.26'}
    aborted = res.ok('show rollout_upgrade_result')['rollout_upgrade_result']
    assert aborted['rolled_back'] == ['StatefulSet default/db'], aborted
    assert aborted['summary'] == ['Canary rolled back: StatefulSet default/db']
    assert aborted['workloads'][0]['rollback'] == 'put back to the template it had before the release'
    kube.rolled_out('StatefulSet', 'db')
    # The lower ordinals never ran the rejected image, and the partition is released.
    assert images(kube) == {'db-0': 'nginx:1.25', 'db-1': 'nginx:1.25', 'db-2': 'nginx:1.25'}
    assert partition(kube) == 0
    template = kube.get('StatefulSet', 'db')['spec']['template']
    assert template['spec']['containers'][0]['image'] == 'nginx:1.25'


@pytest.mark.parametrize('problem', ['missing', 'unknown module', 'not a list'])
def test_a_verification_file_that_cannot_run_refuses_the_canary_before_any_write(kubesim, play, tmp_path,
                                                                                  problem):
    kube = Kube(kubesim.kubeconfig)
    kube.create(workload('StatefulSet', 'db', image='nginx:1.25', replicas=3))
    before = kube.rolled_out('StatefulSet', 'db')
    verify = tmp_path / 'verify.yml'
    if problem == 'unknown module':
        verify.write_text(yaml.safe_dump([{'name': 'probe', 'community.nothing.probe': {'url': 'x'}}]))
    elif problem == 'not a list':
        verify.write_text(yaml.safe_dump({'name': 'probe', 'ansible.builtin.debug': {'msg': 'x'}}))
    res = play(kubesim, [upgrade(str(verify))])
    assert res.rc != 0
    checks = [name for name in res.results if name.endswith('Canary | check the verification tasks load')]
    msg = res.failed(checks[0])['msg']
    expected = {
        'missing': 'task file %s not found on the controller' % verify,
        'unknown module': "cannot be loaded: couldn't resolve module/action 'community.nothing.probe'",
        'not a list': 'is not a list of tasks',
    }[problem]
    assert expected in msg, msg
    assert not any('Canary | start' in name for name in res.results), res.results
    after = kube.get('StatefulSet', 'db')
    assert after['metadata']['resourceVersion'] == before['metadata']['resourceVersion']
    assert 'kubeops.rollout/canary' not in (after['metadata'].get('annotations') or {})

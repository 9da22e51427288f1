"""Every error a user can meet ends in a clear failure naming the object and what to do, never a
traceback, never a secret."""

import socket

import pytest

from tests.kubesim.apiserver.kubeconfig import write_kubeconfig

from ..conftest import Kube, task, workload

pytestmark = pytest.mark.integration

TOKEN = 'full-access-token-3f9c1a'
READONLY = 'read-only-token-77b2e0'
WRONG = 'not-a-valid-token-5d41'


def closed_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_errors_are_clear_and_leak_no_secret(kubesim_factory, play, tmp_path):
    sim = kubesim_factory(tls=True, token=TOKEN, readonly_token=READONLY)
    other = kubesim_factory(tls=True)  # a different CA
    kube = Kube(sim.kubeconfig)
    kube.create(workload('Deployment', 'web'))
    kube.rolled_out('Deployment', 'web')

    wrong_token = write_kubeconfig(tmp_path / 'wrong', sim.url, ca_pem=sim.ca_pem, token=WRONG)
    readonly = write_kubeconfig(tmp_path / 'readonly', sim.url, ca_pem=sim.ca_pem, token=READONLY)
    wrong_ca = write_kubeconfig(tmp_path / 'wrong-ca', sim.url, ca_pem=other.ca_pem, token=TOKEN)
    unreachable = write_kubeconfig(tmp_path / 'closed', f'https://127.0.0.1:{closed_port()}', token=TOKEN)
    D = {'kind': 'Deployment', 'name': 'web'}
    tasks = [
        task('missing workload', 'rollout_restart', kind='Deployment', name='nope'),
        task('missing in other namespace', 'rollout_history', kind='StatefulSet', name='web',
             namespace='shop'),
        task('bad kind', 'rollout_history', kind='ReplicaSet', name='web'),
        task('name and selector', 'rollout_history', kind='Deployment', name='web', label_selectors=['a=b']),
        task('unauthorized', 'rollout_history', **D, kubeconfig=wrong_token),
        task('unauthorized api_key', 'rollout_history', **D, host=sim.url, api_key=WRONG,
             validate_certs=False),
        task('forbidden write', 'rollout_restart', **D, kubeconfig=readonly),
        task('readonly read', 'rollout_history', **D, kubeconfig=readonly),
        task('readonly check mode', 'rollout_restart', **D, kubeconfig=readonly, check_mode=True),
        task('tls wrong ca', 'rollout_status', **D, kubeconfig=wrong_ca),
        task('tls skipped', 'rollout_status', **D, kubeconfig=wrong_ca, validate_certs=False),
        task('unreachable', 'rollout_status', **D, kubeconfig=unreachable),
        task('missing kubeconfig', 'rollout_status', **D, kubeconfig=str(tmp_path / 'absent')),
        task('unknown context', 'rollout_status', **D, context='nope'),
        task('bad revision', 'rollout_undo', **D, to_revision=7),
        task('negative revision', 'rollout_undo', **D, to_revision=-1),
        task('unknown container', 'rollout_image', **D, images={'nope': 'x:1'}),
        task('empty selection', 'rollout_restart', kind='Deployment', label_selectors=['app=nothing-here']),
    ]
    res = play(sim, tasks)
    everything = res.stdout + res.stderr + str(res.results)
    for secret in (TOKEN, READONLY, WRONG):
        assert secret not in everything
    assert 'Traceback' not in everything

    assert res.failed('missing workload')['msg'] == 'Deployment default/nope not found'
    assert res.failed('missing in other namespace')['msg'] == 'StatefulSet shop/web not found'
    assert res.failed('bad kind')['msg'] == (
        'kind "ReplicaSet" is not a kind rollouts apply to; use one of '
        'Deployment (deploy), StatefulSet (sts) or DaemonSet (ds), in any case')
    assert 'mutually exclusive' in res.failed('name and selector')['msg']
    for name in ('unauthorized', 'unauthorized api_key'):
        msg = res.failed(name)['msg']
        assert 'rejected the credentials (401 Unauthorized)' in msg and 'Deployment default/web' in msg, msg
    forbidden = res.failed('forbidden write')['msg']
    assert 'forbidden (403)' in forbidden and 'patch' in forbidden and 'docs/rbac.md' in forbidden
    assert res.ok('readonly read')['workloads'][0]['revisions']
    # check mode only reads, or writes with dryRun=All: refused to read-only credentials, it computes
    # the answer locally and says so
    readonly_check = res.ok('readonly check mode')
    assert readonly_check['changed'] is True
    assert any('computed locally' in w for w in readonly_check['warnings']), readonly_check
    tls = res.failed('tls wrong ca')['msg']
    assert 'TLS handshake with the Kubernetes API at ' + sim.url in tls
    assert 'certificate verify failed' in tls and 'ca_cert' in tls
    assert res.ok('tls skipped')['workloads'][0]['done'] is True
    down = res.failed('unreachable')
    assert 'cannot reach the Kubernetes API at https://127.0.0.1:' in down['msg']
    assert 'Connection refused' in down['msg']
    assert down['_duration'] < 10
    missing = res.failed('missing kubeconfig')['msg']
    assert 'kubeconfig file %s does not exist' % (tmp_path / 'absent') in missing
    assert 'context "nope" not found in kubeconfig' in res.failed('unknown context')['msg']
    assert 'unable to find specified revision 7 in history (existing revisions: 1)' in \
        res.failed('bad revision')['msg']
    assert res.failed('negative revision')['msg'] == 'to_revision must be 0 or more (got -1)'
    assert res.failed('unknown container')['msg'] == \
        'Deployment default/web: unable to find container named "nope" (containers: app)'
    empty = res.ok('empty selection')
    assert empty['changed'] is False and empty['workloads'] == []
    # nothing was changed by the failed attempts
    assert kube.history_numbers('Deployment', kube.get('Deployment', 'web')) == [1]

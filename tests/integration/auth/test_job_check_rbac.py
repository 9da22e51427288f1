"""Job analysis checks with exactly the permissions docs/rbac.md gives them ("Job analysis checks"),
against kubesim authorizing with RBAC, through one real ansible-playbook run: a check passes and a
failing one shows its pod's log as the documented user; without `get` on `pods/log` the failure
says the log cannot be read; without `create` on `jobs` the measurement is an error naming the
refusal."""

import re

import pytest
import yaml

from tests.kubesim import KubeSim

from ..conftest import ROOT, Kube, run_playbook, task

pytestmark = pytest.mark.integration

ADMIN = 'rbac-admin-token-job-7c1d'
NS = 'shop'
USERS = {'checker': None, 'no-log': ('', 'pods/log', 'get'), 'no-create': ('batch', 'jobs', 'create')}


def documented_rules():
    """The rule block of the "Job analysis checks" section of docs/rbac.md."""
    text = (ROOT / 'docs' / 'rbac.md').read_text().split('\n## Job analysis checks', 1)[1]
    rules = yaml.safe_load(re.search(r'```yaml\n(.*?)```', text, re.S).group(1))
    assert isinstance(rules, list) and rules
    return rules


def without(rules, taken):
    if taken is None:
        return rules
    group, resource, verb = taken
    out = []
    for rule in rules:
        for g in rule['apiGroups']:
            for r in rule['resources']:
                verbs = [v for v in rule['verbs'] if (g, r, v) != (group, resource, verb)]
                if verbs:
                    out.append({'apiGroups': [g], 'resources': [r], 'verbs': verbs})
    return out


def job_check(script):
    job = {'template': {'spec': {'containers': [{'name': 'smoke', 'image': 'busybox',
                                                 'command': ['sh', '-c', script]}]}}}
    return {'interval': 1, 'checks': [{'name': 'smoke', 'timeout': 20, 'job': job}]}


def test_job_checks_with_the_documented_permissions(tmp_path):
    tokens = tmp_path / 'tokens.csv'
    tokens.write_text(''.join('%s-token-%d,%s,%s,""\n' % (name, i, name, name)
                              for i, name in enumerate(USERS)))
    sim = KubeSim(tls=True, token=ADMIN, token_file=tokens, authorization_mode='RBAC',
                  ready_delay=0.05).start()
    try:
        kube = Kube(sim.write_kubeconfig(tmp_path / 'admin'))
        kube.request('POST', '/api/v1/namespaces', {'metadata': {'name': NS}})
        rbac = '/apis/rbac.authorization.k8s.io/v1/namespaces/%s' % NS
        configs = {}
        for i, (user, taken) in enumerate(USERS.items()):
            kube.request('POST', rbac + '/roles', {'metadata': {'name': user},
                                                   'rules': without(documented_rules(), taken)})
            kube.request('POST', rbac + '/rolebindings', {
                'metadata': {'name': user},
                'roleRef': {'apiGroup': 'rbac.authorization.k8s.io', 'kind': 'Role', 'name': user},
                'subjects': [{'kind': 'User', 'name': user}]})
            configs[user] = str(sim.write_kubeconfig(tmp_path / user, token='%s-token-%d' % (user, i),
                                                     namespace=NS))
        failing = job_check('echo rate 7% over 5%; exit 1')
        res = run_playbook(None, [
            task('passes', 'rollout_analysis', kubeconfig=configs['checker'], analysis=job_check('exit 0')),
            task('fails', 'rollout_analysis', kubeconfig=configs['checker'], analysis=failing),
            task('no log', 'rollout_analysis', kubeconfig=configs['no-log'], analysis=failing),
            task('no create', 'rollout_analysis', kubeconfig=configs['no-create'], analysis=failing),
        ], workdir=tmp_path)
    finally:
        sim.stop()
    assert res.ok('passes')['analysis']['checks'][0]['measurements'][0]['outcome'] == 'passed'
    assert res.failed('fails')['msg'].endswith('container smoke: rate 7% over 5% (1 failed measurement, '
                                               'failure_limit 0)')
    msg = res.failed('no log')['msg']
    assert 'failed (BackoffLimitExceeded' in msg and 'the log of pod smoke-' in msg
    assert 'cannot be read:' in msg and 'pods "smoke-' in msg and 'forbidden' in msg
    (measurement,) = res.failed('no create')['analysis']['checks'][0]['measurements']
    assert measurement['outcome'] == 'error'
    assert measurement['message'].startswith('check "smoke": cannot run its Job in namespace shop: ')
    assert 'User "no-create" cannot create resource "jobs" in API group "batch"' in measurement['message']

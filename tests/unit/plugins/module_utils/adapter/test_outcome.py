"""The ``outcome`` a rollout module returns (adapter/outcome.py): each workload done, failed or not
reached, in words and lines the roles keep."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.adapter.outcome import outcome_summary
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workloads import Deployment, StatefulSet
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.writes import Outcome

from tests.support.manifests import workload

pytestmark = pytest.mark.unit


def deploy(name):
    return Deployment(workload('Deployment', name, namespace='shop'))


def identity(name, kind='Deployment'):
    return {'kind': kind, 'name': name, 'namespace': 'shop'}


def test_each_workload_is_done_with_what_happened_to_it():
    outcomes = [Outcome(deploy('a'), True, {'message': 'rolled back'}), Outcome(deploy('b'), False),
                Outcome(deploy('c'), True), Outcome(deploy('d'), False)]
    entries = [o.entry() for o in outcomes]
    entries[3]['status'] = {'done': True, 'message': 'deployment "d" successfully rolled out'}
    out = outcome_summary(outcomes, entries, [], [], None, {})
    assert out['done'] == [dict(identity(n), workload='Deployment shop/%s' % n, changed=c)
                           for n, c in (('a', True), ('b', False), ('c', True), ('d', False))]
    assert out['failed'] == [] and out['not_reached'] == []
    assert out['lines'] == ['Deployment shop/a: rolled back', 'Deployment shop/b: unchanged',
                            'Deployment shop/c: changed',
                            'Deployment shop/d: deployment "d" successfully rolled out']


def test_failures_refusals_and_what_was_not_reached():
    failed = Outcome(deploy('a'), True)
    entry = failed.entry()
    entry['diagnosis'] = {'lines': ['a-1: ImagePullBackOff'], 'causes': []}
    text = 'Deployment shop/a: timed out waiting for the rollout'
    refused = [(identity('b'), 'Deployment shop/b: cannot rollback a paused deployment'),
               (identity('gone'), 'Deployment shop/gone not found')]
    not_reached = [StatefulSet(workload('StatefulSet', 'db', namespace='shop'))]
    out = outcome_summary([failed], [entry], refused, not_reached, None, {id(failed): (text, 'Timeout')})
    assert out['done'] == []
    b, gone, a = out['failed']
    assert b == dict(identity('b'), workload='Deployment shop/b', msg=refused[0][1],
                     message='cannot rollback a paused deployment', reason=None, causes=[], diagnosis=None)
    assert gone['message'] == 'Deployment shop/gone not found'  # not prefixed by its label: kept whole
    assert (a['msg'], a['message'], a['reason']) == (text, 'timed out waiting for the rollout', 'Timeout')
    assert a['causes'] == ['a-1: ImagePullBackOff'] and a['diagnosis'] is entry['diagnosis']
    assert out['not_reached'] == [dict(identity('db', 'StatefulSet'), workload='StatefulSet shop/db')]
    assert out['lines'] == ['FAILED Deployment shop/b: cannot rollback a paused deployment',
                            'FAILED Deployment shop/gone not found', 'FAILED ' + text,
                            'Not reached (one at a time stops at the first failure): StatefulSet shop/db']


def test_a_module_summary_adds_its_own_lines_before_the_failures():
    done = Outcome(deploy('a'), True, {'restart_reason': 'ConfigMap/x changed'})
    failed = Outcome(deploy('b'), True)
    seen = {}

    def summarize(out, entries):
        seen.update(entries)
        out['restarted'] = [d['workload'] for d in out['done']]
        out['lines'] = ['Restarted: ' + ', '.join(out['restarted'])]

    out = outcome_summary([done, failed], [done.entry(), failed.entry()], [], [], summarize,
                          {id(failed): ('Deployment shop/b: boom', None)})
    assert sorted(seen) == ['Deployment shop/a', 'Deployment shop/b']
    assert seen['Deployment shop/a']['restart_reason'] == 'ConfigMap/x changed'
    assert out['restarted'] == ['Deployment shop/a']
    assert out['lines'] == ['Restarted: Deployment shop/a', 'FAILED Deployment shop/b: boom']

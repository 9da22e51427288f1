"""The fleet's summary (usecases/fleet/summary.py): one row per cluster from what the run did there,
the table, and whether the fleet failed."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.fleet import summary

pytestmark = pytest.mark.unit

WEB = 'Deployment default/web'
PLAN = {'hosts': {
    'a': {'wave': 1, 'passed': False, 'refusal': None},
    'b': {'wave': 2, 'passed': True, 'refusal': None},
    'c': {'wave': 3, 'passed': False, 'refusal': None},
}}
OK = {'failed': False, 'upgraded': [WEB], 'rolled_back': [], 'msg': 'Upgraded: ' + WEB}
FAILED = {'failed': True, 'upgraded': [], 'rolled_back': [WEB], 'next_step': None,
          'msg': 'release failed: ... ROLLED BACK: ' + WEB}
BACK = {'failed': False, 'rolled_back': [WEB], 'msg': 'Put back: ' + WEB}
NOTHING_BACK = {'failed': False, 'rolled_back': [], 'unchanged': [WEB]}


def test_a_failure_in_the_last_wave_after_the_put_back_of_the_others():
    rows = summary.rows(summary.inputs(['a', 'b', 'c'], [OK, {'skipped': True}, FAILED],
                                       [BACK, BACK, NOTHING_BACK], PLAN))
    assert [(r['cluster'], r['wave'], r['status']) for r in rows] == [
        ('a', 1, 'rolled back'), ('b', 2, 'rolled back'), ('c', 3, 'failed')]
    assert rows[0]['cause'] == 'put back: ' + WEB
    assert 'ROLLED BACK' in rows[2]['cause']
    assert summary.outcome(rows, 'f-1') == (
        True, 'fleet release f-1 FAILED - rolled back: a, b; failed: c')


def test_a_put_back_that_cannot_finish_says_what_remains_and_how():
    stuck = {'failed': True, 'rolled_back': [], 'rollback_failed': [WEB], 'msg': 'not put back: changed',
             'next_step': 'kubeops.rollout.rollout_undo'}
    rows = summary.rows(summary.inputs(['a'], [OK], [stuck], PLAN))
    assert rows[0]['status'] == 'failed' and rows[0]['remains'] == [WEB]
    assert rows[0]['next_step'] == 'kubeops.rollout.rollout_undo'
    assert 'What remains: ' + WEB in rows[0]['cause'] and 'Finish it with kubeops.rollout.rollout_undo' in \
        rows[0]['cause']


def test_passed_earlier_paused_and_not_attempted():
    rows = summary.rows(summary.inputs(['a', 'b', 'c'], [OK], [], PLAN, paused_after=2))
    assert [r['status'] for r in rows] == ['upgraded', 'upgraded', 'not attempted']
    assert rows[1]['cause'] == 'released in an earlier run of this fleet release'
    assert rows[2]['cause'] == 'paused after wave 2 (fleet_pause): the next run of the fleet goes on'
    assert summary.outcome(rows, 'f-1')[0] is False


def test_a_failed_settings_check_and_a_refusal():
    plan = {'hosts': dict(PLAN['hosts'], c={'wave': 3, 'refusal': 'cannot be read'})}
    rows = summary.rows(summary.inputs(['a', 'c'], [], [], plan, failures=['no workloads', '']))
    assert [(r['status'], r['cause']) for r in rows] == [('failed', 'no workloads'),
                                                         ('not attempted', 'cannot be read')]


def test_a_rollback_asked_for_is_no_failure_and_check_mode_says_would():
    rows = summary.rows(summary.inputs(['a'], [], [BACK], PLAN))
    assert summary.outcome(rows, 'f-1', asked_back=True)[0] is False
    assert summary.outcome(rows, 'f-1')[0] is True
    preview = summary.rows(summary.inputs(['a'], [OK], [], PLAN), check_mode=True)
    assert preview[0]['cause'] == 'check mode: would change ' + WEB


def test_the_table_has_a_header_and_a_line_per_cluster_in_columns():
    rows = summary.rows(summary.inputs(['a', 'b', 'c'], [OK, None, FAILED], [], PLAN))
    table = summary.table(rows)
    assert table[0].split() == ['CLUSTER', 'WAVE', 'STATUS', 'DETAIL']
    assert [line.split()[:3] for line in table[1:]] == [['a', '1', 'UPGRADED'], ['b', '2', 'UPGRADED'],
                                                        ['c', '3', 'FAILED']]
    assert len({line.index(line.split()[2]) for line in table}) == 1  # the STATUS column is aligned


def test_a_failed_wave_gate_fails_its_released_clusters_which_are_put_back():
    gate = 'wave 1 gate: Deployment default/web: pod web-1 is not Ready during the soak'
    rows = summary.rows(summary.inputs(['a', 'c'], [OK, {'skipped': True}], [BACK, NOTHING_BACK], PLAN,
                                       failures=[gate, None]))
    assert [(r['cluster'], r['status']) for r in rows] == [('a', 'failed'), ('c', 'not attempted')]
    assert rows[0]['cause'] == gate + '; put back: ' + WEB and rows[0]['rolled_back'] == [WEB]
    assert summary.outcome(rows, 'f-1')[0]

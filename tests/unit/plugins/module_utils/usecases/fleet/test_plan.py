"""The fleet's decisions (usecases/fleet/plan.py): its id, its waves as play serial batches them,
each cluster's standing from its reading, and what the run does from the standings of every cluster."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.fleet import plan

pytestmark = pytest.mark.unit

F = 'f-000000000001'
WEB = {'kind': 'Deployment', 'name': 'web', 'images': {'app': 'web:2'}}


def reading(name, *workloads, error=None):
    return {'name': name, 'error': error, 'workloads': list(workloads)}


def wl(label='Deployment default/web', record=None, problem=None, live=None, released=None,
       would_change=False, passed=None):
    return {'workload': label, 'record': record, 'problem': problem, 'live': live, 'released': released,
            'passed': passed, 'would_change': would_change}


def rec(fleet=F, wave=1, release='r-1'):
    return {'id': release, 'fleet': fleet, 'wave': wave, 'started': '2026-01-01T00:00:00Z'}


def mark(fleet=F):
    return {'fleet': fleet, 'wave': 1, 'release': 'r-1'}


def test_the_fleet_id_depends_on_clusters_workloads_and_images_not_their_order():
    one = [{'name': 'a', 'workloads': [WEB]}, {'name': 'b', 'workloads': [WEB]}]
    assert plan.fleet_id(one) == plan.fleet_id(list(reversed(one)))
    assert plan.fleet_id(one).startswith('f-') and len(plan.fleet_id(one)) == 14
    other = [{'name': 'a', 'workloads': [dict(WEB, images={'app': 'web:3'})]},
             {'name': 'b', 'workloads': [WEB]}]
    assert plan.fleet_id(other) != plan.fleet_id(one)
    assert plan.fleet_id(one + [{'name': 'c', 'workloads': [WEB]}]) != plan.fleet_id(one)
    assert plan.fleet_id(one, 'given') == 'given'


@pytest.mark.parametrize('count, serial, sizes', [
    (3, [1, '25%', '100%'], [1, 1, 1]),
    (10, [1, '50%', '100%'], [1, 5, 4]),
    (10, [1, '25%', '100%'], [1, 2, 7]),
    (4, 2, [2, 2]),
    (5, [1, 2], [1, 2, 2]),
    (3, [0], [3]),
    (2, ['100%'], [2]),
])
def test_waves_are_the_batches_of_play_serial(count, serial, sizes):
    hosts = ['h%d' % i for i in range(count)]
    batches = plan.waves(hosts, serial)
    assert [len(b) for b in batches] == sizes
    assert [h for b in batches for h in b] == hosts


def test_standing_of_each_kind_of_cluster():
    assert plan.standing(reading('a', wl()), F)['state'] == plan.CLEAN
    assert plan.standing(reading('a', error='connection refused'), F)['state'] == plan.UNREACHABLE
    released = plan.standing(reading('a', wl(record=rec(wave=2), released=mark())), F)
    assert (released['state'], released['wave'], released['released']) == (plan.FLEET, 2, True)
    interrupted = plan.standing(reading('a', wl(record=rec()), wl('StatefulSet default/db')), F)
    assert (interrupted['state'], interrupted['released']) == (plan.FLEET, False)
    assert 'interrupted' in interrupted['detail'] and interrupted['records'] == ['Deployment default/web']
    assert plan.standing(reading('a', wl(record=rec(fleet='f-other'))), F)['state'] == plan.OTHER_FLEET
    assert plan.standing(reading('a', wl(record=rec(fleet=None))), F)['state'] == plan.RELEASE
    assert plan.standing(reading('a', wl(record=rec(), live='held by x')), F)['state'] == plan.LIVE
    assert plan.standing(reading('a', wl(problem='not found')), F)['state'] == plan.BLOCKED
    # A released mark of another fleet is no pass of this one.
    assert not plan.standing(reading('a', wl(record=rec(), released=mark('f-other'))), F)['released']
    assert plan.standing(reading('a', wl(would_change=True)), F)['would_change'] == ['Deployment default/web']


def standings(**states):
    return [plan.standing(r, F) for r in states.values()]


def test_a_clean_fleet_starts_and_every_host_is_released_in_its_wave():
    s = standings(a=reading('a', wl()), b=reading('b', wl()), c=reading('c', wl()))
    p = plan.decide(s, F, None, ['a', 'b', 'c'], [1, '100%'])
    assert (p['action'], p['refused'], p['release_waves'], p['put_back_all']) == ('start', False, True, False)
    assert p['waves'] == [['a'], ['b', 'c']] and p['put_back_serial'] == [2, 1]
    assert p['hosts']['b'] == {'wave': 2, 'release': True, 'recover': None, 'put_back': False,
                               'passed': False, 'refusal': None}
    assert p['wave_releases'] == [True, True]
    assert 'starts: 3 cluster(s) in 2 wave(s)' in p['message']


def test_any_unreachable_cluster_of_the_inventory_refuses_even_outside_the_run():
    s = standings(a=reading('a', wl()), b=reading('b', error='connection refused'))
    p = plan.decide(s, F, None, ['a'], [1])
    assert p['refused'] and p['action'] == 'refuse'
    assert p['refusals'][0].startswith('b: cannot be read: connection refused')
    assert p['hosts']['a']['refusal'].startswith('refused: b: cannot be read')
    assert not p['hosts']['a']['release']


def test_another_fleet_or_release_in_progress_refuses_naming_it():
    s = standings(a=reading('a', wl(record=rec(fleet='f-other', release='r-9'))), b=reading('b', wl()))
    p = plan.decide(s, F, 'resume', ['a', 'b'], [1])
    assert p['refused'] and 'r-9 of fleet release f-other' in p['refusals'][0]
    assert p['hosts']['a']['refusal'].startswith('Deployment default/web carries the record')
    s = standings(a=reading('a', wl(record=rec(fleet=None))))
    assert 'of no fleet' in plan.decide(s, F, None, ['a'], [1])['refusals'][0]


def test_a_paused_fleet_resumes_without_recover_skipping_the_clusters_that_passed():
    s = standings(a=reading('a', wl(record=rec(), released=mark())), b=reading('b', wl()))
    p = plan.decide(s, F, None, ['a', 'b'], [1])
    assert p['action'] == 'resume' and not p['refused']
    assert p['hosts']['a'] == {'wave': 1, 'release': False, 'recover': None, 'put_back': False,
                               'passed': True, 'refusal': None}
    assert p['hosts']['b']['release'] and p['wave_releases'] == [False, True]
    assert 'a passed already' in p['message']


def test_an_interrupted_fleet_is_refused_until_recover_says_what_to_do():
    s = standings(a=reading('a', wl(record=rec(), released=mark())), b=reading('b', wl(record=rec(wave=2))))
    refused = plan.decide(s, F, None, ['a', 'b'], [1])
    assert refused['refused'] and 'fleet_recover=resume' in refused['message']
    assert 'b: this fleet - wave 2: its release was interrupted' in refused['message']

    resume = plan.decide(s, F, 'resume', ['a', 'b'], [1])
    assert resume['action'] == 'resume'
    assert (resume['hosts']['a']['release'], resume['hosts']['b']['release']) == (False, True)
    assert resume['hosts']['b']['recover'] == 'resume'

    back = plan.decide(s, F, 'rollback', ['a', 'b'], [1])
    assert back['action'] == 'rollback' and back['put_back_all'] and not back['release_waves']
    assert [back['hosts'][h]['put_back'] for h in 'ab'] == [True, True]
    assert 'putting back a, b, last wave first' in back['message']


def test_rollback_with_nothing_recorded_says_so_and_names_clusters_outside_the_run():
    s = standings(a=reading('a', wl()), b=reading('b', wl(record=rec(), released=mark())))
    p = plan.decide(s, F, 'rollback', ['a'], [1])
    assert p['outside'] == ['b']
    assert 'no cluster holds a record of it' in p['message'] and 'b hold records' in p['message']


def test_past_the_commit_point_the_fleet_is_finished_and_never_put_back():
    passed = {'fleet': F, 'at': '2026-01-01T00:00:00Z'}
    # Killed during the finish: a's records still there (marked passed), b already finished (clean).
    a = plan.standing(reading('a', wl(record=rec(), released=mark(), passed=passed)), F)
    assert (a['state'], a['released'], a['passed']) == (plan.FLEET, True, True)
    assert 'passed every wave' in a['detail']
    s = [a, plan.standing(reading('b', wl()), F)]
    back = plan.decide(s, F, 'rollback', ['a', 'b'], [1])
    assert back['refused'] and not back['put_back_all'] and back['committed']
    assert 'passed every wave (marked passed on a)' in back['message']
    assert 'fleet_recover=resume' in back['message']
    for recover in (None, 'resume'):
        go_on = plan.decide(s, F, recover, ['a', 'b'], [1])
        assert go_on['action'] == 'resume' and go_on['release_waves'] and not go_on['refused']
        assert [go_on['hosts'][h]['release'] for h in 'ab'] == [False, False]  # nothing released again
        assert [go_on['hosts'][h]['passed'] for h in 'ab'] == [True, True]
        assert 'its finish goes on' in go_on['message']
    # A passed mark of another fleet is no commit of this one.
    elsewhere = dict(passed, fleet='f-x')
    other = plan.standing(reading('a', wl(record=rec(), released=mark(), passed=elsewhere)), F)
    assert not other['passed']

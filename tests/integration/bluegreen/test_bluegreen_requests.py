"""What a blue/green switch asks the API server: a switch and a switch back each take at most 20
requests, and a switch refused after waiting asks no more for waiting longer (its waits are watches,
never polls)."""

import collections

import pytest

from ..conftest import read_log
from .conftest import Apps, app, bluegreen

pytestmark = pytest.mark.integration

LAG = 0.3


def requests_of(log, play_it):
    start = len(read_log(log))
    result = play_it()
    return result, read_log(log)[start:]


def shape(entries):
    return collections.Counter('%s %s' % (e['method'], e['path'].split('/namespaces/')[-1].split('/')[1]
                                          if '/namespaces/' in e['path'] else e['path'])
                               for e in entries)


def test_a_switch_and_a_switch_back_each_take_at_most_20_requests(kubesim_factory, play, tmp_path):
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(endpoint_lag=LAG, ready_delay=0.1, request_log=str(log))
    kube = Apps(sim.kubeconfig)
    kube.create_app(replicas=2)
    play(sim, [bluegreen('prepared')]).ok('prepared')
    res, switch = requests_of(log, lambda: play(sim, [bluegreen('switched', scale_down_delay_seconds=600)]))
    res.ok('switched')
    res, back = requests_of(log, lambda: play(sim, [bluegreen('rolled_back', app(images=False))]))
    res.ok('rolled_back')
    assert kube.color('web') == 'blue'
    print('switch', len(switch), dict(shape(switch)))
    print('back', len(back), dict(shape(back)))
    assert len(switch) <= 20, dict(shape(switch))
    assert len(back) <= 20, dict(shape(back))


def test_a_refused_switch_asks_no_more_for_waiting_longer(kubesim_factory, play, tmp_path):
    """The preview's endpoints never catch up (an endpoint lag longer than the task's timeout): the
    switch is refused after its timeout, with the same requests for a wait of 2 s and of 6 s."""
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(endpoint_lag=600, ready_delay=0.1, request_log=str(log))
    kube = Apps(sim.kubeconfig)
    kube.create_app(replicas=1, wait=False)
    counts = {}
    for timeout in (2, 6):
        res, asked = requests_of(log, lambda timeout=timeout: play(
            sim, [bluegreen('switched', app(images={'app': 'nginx:1.%d' % (20 + timeout)}), timeout=timeout,
                            fail_fast_seconds=0, scale_down_delay_seconds=0)]))
        (a,) = res.failed('switched')['apps']
        assert 'not switched' in a['cause'] or 'did not route' in a['cause'], a
        counts[timeout] = len(asked)
        print(timeout, len(asked), dict(shape(asked)))
    assert kube.color('web') == 'blue'
    assert counts[6] <= counts[2] + 2, counts

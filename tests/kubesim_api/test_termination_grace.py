"""A deleted pod's containers and SIGTERM: a PID 1 without a handler runs out the grace period."""

import time

import pytest

from .conftest import wait_for, watch_events


def _pod(name, command):
    return {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': name},
            'spec': {'containers': [{'name': 'app', 'image': 'busybox:1.36', 'command': command}]}}


def _running(http, name):
    status, _, pod = http.get(f'/api/v1/namespaces/default/pods/{name}')
    return status == 200 and (pod.get('status') or {}).get('phase') == 'Running'


@pytest.mark.kubesim_options(ready_delay=0.02, time_scale=10)
def test_sleep_ignores_sigterm_until_the_grace_period_kills_it(kubesim, http):
    http.post('/api/v1/namespaces/default/pods', _pod('sleeper', ['sleep', '600']))
    wait_for(lambda: _running(http, 'sleeper'), 'the pod to run')
    start = time.monotonic()
    status, _, _ = http.delete('/api/v1/namespaces/default/pods/sleeper', {'gracePeriodSeconds': 20})
    assert status == 200
    # 20 s of grace at 10 times the speed: 2 real seconds Running and Terminating.
    time.sleep(1.0)
    status, _, pod = http.get('/api/v1/namespaces/default/pods/sleeper')
    assert status == 200 and pod['status']['phase'] == 'Running' and pod['metadata']['deletionTimestamp']
    events, _ = watch_events(kubesim.url, '/api/v1/namespaces/default/pods?watch=1&fieldSelector='
                             'metadata.name%3Dsleeper', timeout=5, until=lambda e: e['type'] == 'DELETED')
    assert events[-1]['type'] == 'DELETED' and time.monotonic() - start >= 1.9
    terminated = events[-1]['object']['status']['containerStatuses'][0]['state']['terminated']
    assert (terminated['exitCode'], terminated['reason']) == (137, 'Error')


@pytest.mark.kubesim_options(ready_delay=0.02, time_scale=10)
def test_a_trap_or_a_server_stops_at_once(http):
    http.post('/api/v1/namespaces/default/pods',
              _pod('trapper', ['sh', '-c', 'trap "exit 0" TERM; while true; do sleep 1; done']))
    server = _pod('server', None)
    del server['spec']['containers'][0]['command']
    http.post('/api/v1/namespaces/default/pods', server)
    for name in ('trapper', 'server'):
        wait_for(lambda n=name: _running(http, n), f'{name} to run')
    start = time.monotonic()
    for name in ('trapper', 'server'):
        assert http.delete(f'/api/v1/namespaces/default/pods/{name}')[0] == 200  # 30 s: 3 real seconds
    for name in ('trapper', 'server'):
        path = f'/api/v1/namespaces/default/pods/{name}'
        wait_for(lambda p=path: http.get(p)[0] == 404, f'{name} gone', 2.0)
    assert time.monotonic() - start < 2.0


@pytest.mark.kubesim_options(ready_delay=0.02, time_scale=10)
def test_a_program_that_ends_within_the_grace_period_exits_by_itself(kubesim, http):
    http.post('/api/v1/namespaces/default/pods', _pod('short', ['sleep', '15']))
    wait_for(lambda: _running(http, 'short'), 'the pod to run')
    start = time.monotonic()
    http.delete('/api/v1/namespaces/default/pods/short', {'gracePeriodSeconds': 300})
    events, _ = watch_events(kubesim.url, '/api/v1/namespaces/default/pods?watch=1&fieldSelector='
                             'metadata.name%3Dshort', timeout=5, until=lambda e: e['type'] == 'DELETED')
    assert events[-1]['type'] == 'DELETED' and time.monotonic() - start < 3.0
    terminated = events[-1]['object']['status']['containerStatuses'][0]['state']['terminated']
    assert terminated['exitCode'] == 0

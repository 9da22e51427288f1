"""pods/{name}/log: what a container's command printed (`echo`, `printf`), as the kubelet serves it:
the current run or, with previous=true, the one before; tailLines, limitBytes; over a socket."""

import pytest

from .conftest import wait_for

pytestmark = [pytest.mark.kubesim, pytest.mark.kubesim_options(ready_delay=0.05)]

PODS = '/api/v1/namespaces/default/pods'
SCRIPT = ('echo one; printf "%s-%d\\n" two 2 three 3; echo to-stderr >&2; echo hidden > /tmp/file; '
          'echo -n "no newline"; exit 1')


def pod(name, script, restart='Never', containers=None):
    main = {'name': 'main', 'image': 'busybox', 'command': ['sh', '-c', script]}
    return {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': name},
            'spec': {'restartPolicy': restart, 'containers': [main] + (containers or [])}}


def phase(http, name):
    return (http.get(f'{PODS}/{name}')[2].get('status') or {}).get('phase')


def log(http, name, query=''):
    status, headers, body = http.get(f'{PODS}/{name}/log{query}')
    return status, body if status != 200 else body or ''


def test_a_finished_container_log_is_what_it_printed(http):
    http.post(PODS, pod('printer', SCRIPT, containers=[{'name': 'quiet', 'image': 'nginx'}]))
    wait_for(lambda: phase(http, 'printer') == 'Running', 'the pod to run')
    wait_for(lambda: log(http, 'printer', '?container=main')[1].endswith('no newline'), 'the whole log')
    status, text = log(http, 'printer', '?container=main')
    assert (status, text) == (200, 'one\ntwo-2\nthree-3\nto-stderr\nno newline')
    assert log(http, 'printer', '?container=main&tailLines=2') == (200, 'to-stderr\nno newline')
    assert log(http, 'printer', '?container=main&tailLines=0') == (200, '')
    assert log(http, 'printer', '?container=main&limitBytes=3') == (200, 'one')
    assert log(http, 'printer', '?container=quiet') == (200, '')  # a server printed nothing
    status, body = log(http, 'printer', '?container=main&previous=true')
    assert (status, body['message']) == (
        400, 'previous terminated container "main" in pod "printer" not found')
    status, body = log(http, 'printer', '?container=main&tailLines=-1')
    assert status == 422
    assert 'tailLines: Invalid value: -1: must be greater than or equal to 0' in body['message']


def test_previous_is_the_run_before_a_restart(http):
    http.post(PODS, pod('again', 'echo run; exit 3', restart='Always'))
    wait_for(lambda: any(cs.get('restartCount') for cs in
                         (http.get(f'{PODS}/again')[2].get('status') or {}).get('containerStatuses') or []),
             'a restart')
    assert log(http, 'again', '?previous=true') == (200, 'run\n')


def test_a_running_container_shows_what_it_printed_so_far(http):
    http.post(PODS, pod('slow', 'echo before; sleep 600; echo after'))
    wait_for(lambda: phase(http, 'slow') == 'Running', 'the container to start')
    assert log(http, 'slow') == (200, 'before\n')

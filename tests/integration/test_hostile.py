"""Every bad answer a broken or hostile API server can give ends the task within its deadline, with a
clear message, a bounded number of requests and no partial change: real ansible-playbook runs
against tests/hostile's server."""

import base64

import pytest

from tests.hostile.fixtures import hostile_server  # noqa: F401  (fixture)
from tests.hostile.server import COLLECTION_PATH, OBJECT_PATH

from .conftest import task

pytestmark = pytest.mark.integration

WAIT = 5  # wait_timeout of the waiting tasks
SLACK = 8  # seconds a task may take past its deadline (module start-up on a crowded 2-core machine)
TOKEN = 'hostile-echo-token-5b8e1f0c'
D = {'kind': 'Deployment', 'name': 'web', 'namespace': 'default'}

# mode -> (server options, module, module options, words the failure message must hold, deadline)
CASES = {
    'bookmarks_only': ({}, 'rollout_status', {'wait_timeout': WAIT}, ['timed out after 5s'], WAIT),
    'other_objects': ({}, 'rollout_status', {'wait_timeout': WAIT}, ['timed out after 5s'], WAIT),
    'empty_watch': ({}, 'rollout_status', {'wait_timeout': WAIT}, ['timed out after 5s'], WAIT),
    'garbage_lines': ({}, 'rollout_status', {'wait_timeout': WAIT},
                      ['malformed watch event', 'not JSON', OBJECT_PATH.rsplit('/', 1)[0]], WAIT),
    'malformed_events': ({}, 'rollout_status', {'wait_timeout': WAIT}, ['malformed watch event'], WAIT),
    'trickle': ({'trickle_interval': 1.0}, 'rollout_history', {'request_timeout': 3},
                ['did not answer GET', 'within 3s'], 3),
    'silent': ({}, 'rollout_history', {'request_timeout': 3}, ['did not answer GET', 'within 3s'], 3),
    'huge': ({'huge_size': 80 * 1024 * 1024}, 'rollout_history', {},
             ['larger than 64 MiB', 'refusing to read it'], 10),
    'too_many_requests': ({'retry_after': 'soon'}, 'rollout_history', {}, ['429', 'Too many requests'], 10),
    'conflict': ({}, 'rollout_pause', {}, ['Conflict'], 10),
}


def test_every_hostile_answer_ends_in_time_with_a_clear_error(hostile_server, play):  # noqa: F811
    servers = {mode: hostile_server(mode, max_duration=30, **options)
               for mode, (options, *_rest) in CASES.items()}
    tasks = [task(mode, module, kubeconfig=servers[mode].kubeconfig(), **D, **args)
             for mode, (_o, module, args, _w, _d) in CASES.items()]
    result = play(None, tasks, timeout=240)

    for mode, (_o, _module, _a, words, deadline) in CASES.items():
        r = result.failed(mode)
        msg = r['msg']
        for word in words:
            assert word in msg, (mode, msg)
        assert 'unexpected error' not in msg and 'Traceback' not in msg, (mode, msg)
        assert r['_duration'] < deadline + SLACK, (mode, r['_duration'], msg)
        server = servers[mode]
        # No partial change: no write of this hostile server was ever accepted.
        writes = sum(server.count(method=m) for m in ('POST', 'PUT', 'PATCH', 'DELETE'))
        if mode == 'conflict':
            assert writes == 5, server.counts()  # decided again from a fresh read, 5 times in all
        else:
            assert writes == 0, (mode, server.counts())
        assert server.count() <= 40, (mode, server.counts())

    # A watch that ends at once is re-opened with a growing pause, not in a tight loop.
    assert servers['empty_watch'].count(COLLECTION_PATH, watch=True) <= 12, servers['empty_watch'].counts()
    # Malformed answers are not retried.
    assert servers['garbage_lines'].count(COLLECTION_PATH, watch=True) == 1
    assert servers['huge'].count(OBJECT_PATH, method='GET') == 1
    assert servers['silent'].count(OBJECT_PATH, method='GET') == 1


def test_unauthorized_echo_shows_no_credential(hostile_server, play):  # noqa: F811
    server = hostile_server('unauthorized_echo')
    result = play(None, [task('echo', 'rollout_history', kubeconfig=server.kubeconfig(token=TOKEN),
                              allow_insecure_credentials=True, **D)])
    r = result.failed('echo')
    assert '401 Unauthorized' in r['msg']

    for secret in (TOKEN, base64.b64encode(('Bearer ' + TOKEN).encode()).decode()):
        assert secret not in result.stdout and secret not in result.stderr
        assert secret not in str(r)
    assert any('plain http' in w for w in r.get('warnings', [])), r.get('warnings')
    # The header really was sent (the server saw it), so the redaction above is what hid it.
    assert server.requests[0].headers['Authorization'] == 'Bearer ' + TOKEN

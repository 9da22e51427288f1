"""The hostile server answers each mode as designed (raw sockets and http.client, short timeouts)."""

import base64
import http.client
import json
import socket
import time

import pytest

from tests.hostile.server import (
    COLLECTION_PATH,
    CONFLICT,
    MALFORMED_EVENTS,
    MODES,
    NAME,
    OBJECT_PATH,
    PATCH_TEST_FAILED,
    REDIRECT_TO,
    HostileServer,
)

pytestmark = pytest.mark.kubesim

WATCH = COLLECTION_PATH + '?watch=true&fieldSelector=metadata.name%3Dweb'


def request(server, method='GET', path=OBJECT_PATH, body=None, headers=None, timeout=5):
    conn = http.client.HTTPConnection('127.0.0.1', int(server.url.rsplit(':', 1)[1]), timeout=timeout)
    conn.request(method, path, body=body, headers=headers or {})
    return conn, conn.getresponse()


def read_lines(response, n):
    return [response.readline() for _ in range(n)]


def test_normal_answers_are_plausible(hostile_server):
    server = hostile_server()
    _, response = request(server)
    obj = json.loads(response.read())
    assert response.status == 200 and obj['metadata']['name'] == NAME
    assert obj['status']['observedGeneration'] < obj['metadata']['generation']  # mid-rollout
    _, response = request(server, path=COLLECTION_PATH)
    assert [i['metadata']['name'] for i in json.loads(response.read())['items']] == [NAME]
    _, response = request(server, path=WATCH)
    events = [json.loads(line) for line in response.read().splitlines()]
    assert [e['type'] for e in events] == ['MODIFIED']


def test_bookmarks_only_streams_bookmarks_and_never_ends_by_itself(hostile_server):
    server = hostile_server('bookmarks_only', event_interval=0.01)
    _, response = request(server, path=WATCH)
    assert response.status == 200 and response.getheader('Transfer-Encoding') == 'chunked'
    events = [json.loads(line) for line in read_lines(response, 20)]
    assert {e['type'] for e in events} == {'BOOKMARK'}
    assert len({e['object']['metadata']['resourceVersion'] for e in events}) == 20


def test_other_objects_never_mentions_the_watched_one(hostile_server):
    server = hostile_server('other_objects', event_interval=0.01)
    _, response = request(server, path=WATCH)
    events = [json.loads(line) for line in read_lines(response, 20)]
    assert {e['type'] for e in events} == {'MODIFIED'}
    assert NAME not in {e['object']['metadata']['name'] for e in events}


def test_garbage_lines_are_not_json(hostile_server):
    server = hostile_server('garbage_lines', event_interval=0.01)
    _, response = request(server, path=WATCH)
    for line in read_lines(response, 10):
        assert line.endswith(b'\n')
        with pytest.raises(ValueError):
            json.loads(line)


def _is_watch_event(line):
    try:
        event = json.loads(line)
    except ValueError:
        return False
    return (isinstance(event, dict) and event.get('type') in ('ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK')
            and isinstance(event.get('object'), dict))


def test_malformed_events_are_each_broken_then_the_stream_ends(hostile_server):
    server = hostile_server('malformed_events')
    _, response = request(server, path=WATCH)
    lines = response.read().splitlines()
    assert lines == list(MALFORMED_EVENTS)
    assert not any(_is_watch_event(line) for line in lines)


def test_empty_watch_is_an_immediate_empty_200(hostile_server):
    server = hostile_server('empty_watch')
    _, response = request(server, path=WATCH)
    assert (response.status, response.read()) == (200, b'')
    _, response = request(server)  # a plain GET still answers
    assert json.loads(response.read())['metadata']['name'] == NAME


def test_trickle_sends_one_byte_per_interval(hostile_server):
    server = hostile_server('trickle', trickle_interval=0.2)
    started = time.monotonic()
    conn, response = request(server)
    assert response.status == 200 and int(response.getheader('Content-Length')) > 500
    first = response.read(1)
    assert first == b'{'
    response.read(4)
    elapsed = time.monotonic() - started
    assert 0.7 < elapsed < 3  # four intervals after the first byte
    conn.close()


def test_silent_reads_the_request_and_never_answers(hostile_server):
    server = hostile_server('silent')
    sock = socket.create_connection(('127.0.0.1', int(server.url.rsplit(':', 1)[1])), timeout=0.5)
    sock.sendall(b'GET %s HTTP/1.1\r\nHost: x\r\n\r\n' % OBJECT_PATH.encode())
    with pytest.raises(socket.timeout):
        sock.recv(1)
    assert server.count(OBJECT_PATH) == 1
    sock.close()


@pytest.mark.parametrize('chunked', [False, True])
def test_huge_body(hostile_server, chunked):
    size = 3 * 1024 * 1024
    server = hostile_server('huge', huge_size=size, chunked=chunked)
    _, response = request(server)
    if chunked:
        assert response.getheader('Content-Length') is None
    else:
        assert int(response.getheader('Content-Length')) == size
    data = response.read()
    assert len(data) == size
    assert json.loads(data)['metadata']['name'] == NAME


def test_too_many_requests_with_non_numeric_retry_after(hostile_server):
    server = hostile_server('too_many_requests')
    _, response = request(server)
    body = json.loads(response.read())
    assert response.status == 429 and response.getheader('Retry-After') == 'soon'
    assert body['reason'] == 'TooManyRequests' and body['details']['retryAfterSeconds'] == 'soon'


def test_unauthorized_echoes_the_authorization_header(hostile_server):
    server = hostile_server('unauthorized_echo')
    basic = 'Basic ' + base64.b64encode(b'admin:hunter2').decode()
    _, response = request(server, headers={'Authorization': basic})
    body = json.loads(response.read())
    assert response.status == 401 and body['reason'] == 'Unauthorized'
    assert basic in body['message']
    assert base64.b64encode(basic.encode()).decode() in body['message']


def test_patch_test_failed_is_the_api_servers_exact_answer(hostile_server):
    server = hostile_server('patch_test_failed')
    patch = json.dumps([{'op': 'test', 'path': '/metadata/resourceVersion', 'value': '99'}])
    _, response = request(server, 'PATCH', body=patch,
                          headers={'Content-Type': 'application/json-patch+json'})
    assert response.status == 422
    assert json.loads(response.read()) == PATCH_TEST_FAILED
    _, response = request(server)  # reads still work: a client can re-read and decide
    assert response.status == 200


def test_conflict_on_writes_only(hostile_server):
    server = hostile_server('conflict')
    _, response = request(server, 'PUT', body='{}', headers={'Content-Type': 'application/json'})
    assert (response.status, json.loads(response.read())) == (409, CONFLICT)
    _, response = request(server)
    assert response.status == 200


def test_odd_answers_array_deep_json_and_redirect(hostile_server):
    _, response = request(hostile_server('json_array'))
    assert response.status == 200 and isinstance(json.loads(response.read()), list)
    _, response = request(hostile_server('deep_json'))
    body = response.read()
    assert response.status == 200 and body == b'[' * 10000 + b']' * 10000
    server = hostile_server('redirect')
    _, response = request(server)
    assert response.status == 302 and response.getheader('Location') == REDIRECT_TO
    _, response = request(server, path='/version')
    assert response.status == 200


def test_request_counts_per_path(hostile_server):
    server = hostile_server('empty_watch')
    for _ in range(3):
        request(server, path=WATCH)[1].read()
    request(server)[1].read()
    request(server, 'PATCH', body='{}')[1].read()
    assert server.count(COLLECTION_PATH, watch=True) == 3
    assert server.count(COLLECTION_PATH, watch=False) == 0
    assert server.count(OBJECT_PATH) == 2 and server.count(OBJECT_PATH, method='PATCH') == 1
    assert server.counts() == {('GET', COLLECTION_PATH): 3, ('GET', OBJECT_PATH): 1,
                               ('PATCH', OBJECT_PATH): 1}
    assert server.requests[-1].body == b'{}'


def test_max_duration_bounds_an_endless_stream(hostile_server):
    server = hostile_server('bookmarks_only', max_duration=0.5, event_interval=0.05)
    started = time.monotonic()
    _, response = request(server, path=WATCH)
    with pytest.raises(http.client.IncompleteRead):  # the server hangs up mid-stream
        response.read()
    assert time.monotonic() - started < 3


def test_stop_releases_held_connections_at_once():
    server = HostileServer('silent', max_duration=60).start()
    sock = socket.create_connection(('127.0.0.1', int(server.url.rsplit(':', 1)[1])), timeout=5)
    sock.sendall(b'GET / HTTP/1.1\r\nHost: x\r\n\r\n')
    deadline = time.monotonic() + 2
    while server.count() == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    started = time.monotonic()
    server.stop()
    assert sock.recv(1) == b''  # closed, not answered
    assert time.monotonic() - started < 2


def test_modes_are_all_tested_here():
    tested = {'normal', 'bookmarks_only', 'other_objects', 'garbage_lines', 'malformed_events',
              'empty_watch', 'trickle', 'silent', 'huge', 'too_many_requests', 'unauthorized_echo',
              'patch_test_failed', 'conflict', 'json_array', 'deep_json', 'redirect'}
    assert set(MODES) == tested
    with pytest.raises(ValueError):
        HostileServer('friendly')

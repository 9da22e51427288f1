import base64
import http.client
import json
import ssl

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.api import client as client_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.api import transport as transport_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.api.client import ApiClient
from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection.settings import Connection
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import (
    ApiError,
    ConfigError,
    ConnectionFailure,
)

pytestmark = pytest.mark.unit

TOKEN = 'sekret-token-0123456789'


# ---- requests, retries, errors ---------------------------------------------------------------

class FakeResponse:
    def __init__(self, status=200, body=None, headers=None, reason='OK', chunks=None):
        self.status = status
        self.data = b'' if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        self.headers = headers or {}
        self.reason = reason
        self.chunks = chunks or []
        self.closed = False

    def read1(self, amount):
        return self.chunks.pop(0) if self.chunks else b''

    def close(self):
        self.closed = True


class FakeTransport:
    """Stands in for client.Transport: records what would be sent, answers from a list."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.requests = []

    def request(self, method, target, body, headers, stream=False, read_timeout=None):
        self.requests.append({'method': method, 'url': target, 'body': body, 'headers': dict(headers),
                              'header_list': list(headers), 'stream': stream, 'read_timeout': read_timeout})
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def make_client(answers, **conn_attrs):
    conn = Connection()
    conn.server = 'https://api.example:6443'
    conn.token = TOKEN
    for k, v in conn_attrs.items():
        setattr(conn, k, v)
    sleeps = []
    client = ApiClient(conn, transport=FakeTransport(answers), sleep=sleeps.append)
    return client, client._transport, sleeps


def status_body(code, reason, message, **extra):
    return {'kind': 'Status', 'apiVersion': 'v1', 'status': 'Failure', 'code': code, 'reason': reason,
            'message': message, **extra}


def test_get_sends_bearer_token_and_decodes_json():
    client, pool, _ = make_client([FakeResponse(200, {'kind': 'Deployment', 'x-unknown': [1]})])
    got = client.get('/apis/apps/v1/namespaces/default/deployments/web')
    assert got == {'kind': 'Deployment', 'x-unknown': [1]}
    req = pool.requests[0]
    assert req['headers']['Authorization'] == 'Bearer ' + TOKEN
    assert req['url'] == '/apis/apps/v1/namespaces/default/deployments/web'  # the server is the transport's
    assert req['body'] is None and req['stream'] is False


def test_basic_auth_and_impersonation_headers():
    client, pool, _ = make_client([FakeResponse(200, {})], token=None, username='u', password='p',
                                  impersonate_user='jane', impersonate_groups=['a', 'b'])
    client.get('/x')
    headers = pool.requests[0]['headers']
    assert headers['Authorization'] == 'Basic ' + base64.b64encode(b'u:p').decode()
    assert headers['Impersonate-User'] == 'jane'


def test_impersonate_group_is_sent_as_separate_headers():
    client, _pool, _ = make_client([], impersonate_groups=['a', 'b'])
    headers = client._headers()
    assert [v for k, v in headers if k == 'Impersonate-Group'] == ['a', 'b']


def test_patch_query_content_type_and_dry_run():
    client, pool, _ = make_client([FakeResponse(200, {})])
    client.patch('/p', [{'op': 'test'}], 'application/json-patch+json', dry_run=True)
    req = pool.requests[0]
    assert req['method'] == 'PATCH'
    assert 'dryRun=All' in req['url'] and 'fieldManager=kubeops-rollout' in req['url']
    assert req['headers']['Content-Type'] == 'application/json-patch+json'
    assert json.loads(req['body']) == [{'op': 'test'}]


def test_429_honours_retry_after_then_succeeds():
    client, pool, sleeps = make_client([
        FakeResponse(429, status_body(429, 'TooManyRequests', 'slow down'), {'Retry-After': '3'}),
        FakeResponse(200, {'ok': True})])
    assert client.get('/x') == {'ok': True}
    assert sleeps == [3.0]
    assert len(pool.requests) == 2


def test_429_retry_after_is_capped():
    client, _pool, sleeps = make_client([
        FakeResponse(429, status_body(429, 'TooManyRequests', 'x'), {'Retry-After': '3600'}),
        FakeResponse(200, {})])
    client.get('/x')
    assert sleeps == [client_mod.RETRY_AFTER_MAX]


def test_429_is_retried_even_for_writes():
    throttled = FakeResponse(429, status_body(429, 'TooManyRequests', 'x'), {'Retry-After': '0'})
    client, pool, _ = make_client([throttled,
                                   FakeResponse(200, {})])
    client.patch('/p', {}, retry=False)
    assert len(pool.requests) == 2


def test_5xx_retried_with_growing_backoff_for_get_and_bounded():
    answers = [FakeResponse(503, status_body(503, 'ServiceUnavailable', 'busy'))] * client_mod.MAX_ATTEMPTS
    client, pool, sleeps = make_client(answers)
    with pytest.raises(ApiError) as e:
        client.get('/x')
    assert e.value.status == 503 and 'busy' in e.value.message
    assert len(pool.requests) == client_mod.MAX_ATTEMPTS
    assert len(sleeps) == client_mod.MAX_ATTEMPTS - 1
    assert sleeps[-1] > sleeps[0]
    assert max(sleeps) <= client_mod.BACKOFF_MAX * 1.25


def test_5xx_not_retried_for_unsafe_write():
    client, pool, _ = make_client([FakeResponse(500, status_body(500, 'InternalError', 'boom'))])
    with pytest.raises(ApiError):
        client.patch('/p', {}, retry=False)
    assert len(pool.requests) == 1


def test_dropped_connection_retried_only_when_safe():
    drop = ConnectionResetError(104, 'Connection reset by peer')
    client, pool, _ = make_client([drop, FakeResponse(200, {'ok': 1})])
    assert client.patch('/p', {}, retry=True) == {'ok': 1}
    client, pool, _ = make_client([drop])
    with pytest.raises(ConnectionFailure, match='failed during PATCH /p: .*Connection reset by peer'):
        client.patch('/p', {}, retry=False)
    assert len(pool.requests) == 1
    # A connection the server closed before answering is a drop too (http.client's own exception).
    client, pool, sleeps = make_client([http.client.RemoteDisconnected('Remote end closed connection')] * 5)
    with pytest.raises(ConnectionFailure, match='failed during GET /x: Remote end closed'):
        client.get('/x')
    assert len(pool.requests) == client_mod.MAX_ATTEMPTS and len(sleeps) == client_mod.MAX_ATTEMPTS - 1


def test_refused_connection_retried_briefly_then_clear_message():
    refused = transport_mod.ConnectFailed(ConnectionRefusedError(111, 'Connection refused'))
    client, pool, _ = make_client([refused] * client_mod.CONNECT_ATTEMPTS)
    with pytest.raises(ConnectionFailure) as e:
        client.get('/x')
    assert len(pool.requests) == client_mod.CONNECT_ATTEMPTS
    assert 'cannot reach the Kubernetes API at https://api.example:6443' in e.value.message
    assert '[Errno 111] Connection refused' in e.value.message
    # Nothing was sent, so even a write that must not be repeated is retried.
    client, pool, _ = make_client([refused, FakeResponse(201, {})])
    assert client.create('/c', {}) == {}
    assert len(pool.requests) == 2


def test_tls_failure_is_not_retried_and_says_what_to_do():
    err = transport_mod.ConnectFailed(ssl.SSLCertVerificationError(
        1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer '
        'certificate (_ssl.c:1006)'))
    client, pool, _ = make_client([err])
    with pytest.raises(ConnectionFailure) as e:
        client.get('/x')
    assert e.value.tls and len(pool.requests) == 1
    assert 'certificate verify failed: unable to get local issuer certificate' in e.value.message
    assert 'ca_cert' in e.value.message


def test_401_refreshes_token_once():
    client, pool, _ = make_client([FakeResponse(401, status_body(401, 'Unauthorized', 'Unauthorized')),
                                   FakeResponse(200, {'ok': 1})], refresh=lambda: 'new-token-value')
    assert client.get('/x') == {'ok': 1}
    assert pool.requests[1]['headers']['Authorization'] == 'Bearer new-token-value'
    client, pool, _ = make_client([FakeResponse(401, status_body(401, 'Unauthorized', 'Unauthorized'))] * 2,
                                  refresh=lambda: 'still-bad-token')
    with pytest.raises(ApiError) as e:
        client.get('/x')
    assert e.value.status == 401 and len(pool.requests) == 2


def test_non_json_error_body_and_conflict_detection():
    client, _pool, _ = make_client([FakeResponse(502, b'<html>bad gateway</html>', reason='Bad Gateway')] * 5)
    with pytest.raises(ApiError) as e:
        client.get('/x')
    assert e.value.status == 502 and 'bad gateway' in e.value.message
    assert ApiError(409, 'Conflict', 'x').is_conflict
    assert not ApiError(422, 'Invalid', 'spec.template: Invalid value').is_conflict


REAL_TEST_FAILED = {'kind': 'Status', 'apiVersion': 'v1', 'metadata': {}, 'status': 'Failure',
                    'message': 'the server rejected our request due to an error in our request',
                    'reason': 'Invalid', 'details': {}, 'code': 422}


def test_a_bare_422_answering_a_json_patch_with_a_test_is_a_conflict():
    guarded = [{'op': 'test', 'path': '/metadata/resourceVersion', 'value': '5'},
               {'op': 'replace', 'path': '/spec/replicas', 'value': 2}]
    client, _pool, _ = make_client([FakeResponse(422, REAL_TEST_FAILED)])
    with pytest.raises(ApiError) as e:
        client.patch('/x', guarded, content_type=client_mod.JSON_PATCH)
    assert e.value.is_conflict
    # The same answer to a patch without a test operation is a plain invalid request.
    client, _pool, _ = make_client([FakeResponse(422, REAL_TEST_FAILED)])
    with pytest.raises(ApiError) as e:
        client.patch('/x', guarded[1:], content_type=client_mod.JSON_PATCH)
    assert not e.value.is_conflict


def test_a_validation_422_answering_a_guarded_json_patch_is_not_a_conflict():
    # The `test` held; the patched object failed validation: a real error, never retried as a conflict.
    invalid = {'kind': 'Status', 'apiVersion': 'v1', 'metadata': {}, 'status': 'Failure',
               'message': 'Deployment.apps "web" is invalid: spec.template.spec.containers[0].image: '
                          'Required value', 'reason': 'Invalid',
               'details': {'name': 'web', 'group': 'apps', 'kind': 'Deployment', 'causes': [
                   {'reason': 'FieldValueRequired', 'message': 'Required value',
                    'field': 'spec.template.spec.containers[0].image'}]}, 'code': 422}
    guarded = [{'op': 'test', 'path': '/metadata/generation', 'value': 3},
               {'op': 'replace', 'path': '/spec/template/spec/containers/0/image', 'value': ''}]
    client, _pool, _ = make_client([FakeResponse(422, invalid)])
    with pytest.raises(ApiError) as e:
        client.patch('/x', guarded, content_type=client_mod.JSON_PATCH)
    assert e.value.patch_had_test and not e.value.is_conflict


@pytest.mark.parametrize('value, spelled', [
    ('a && b <c>', b'"a \\u0026\\u0026 b \\u003cc\\u003e"'),
    ('caf\u00e9 \u2603', '"caf\u00e9 \u2603"'.encode('utf-8')),
    ('line\u2028sep', b'"line\\u2028sep"'),
    ('tab\t"q"\\', b'"tab\\t\\"q\\"\\\\"'),
    ('\x01', b'"\\u0001"'),
])
def test_bodies_are_spelled_as_go_encodes_the_stored_object(value, spelled):
    # The API server's JSON patch compares a `test` value's bytes with the stored object as Go's
    # encoding/json writes it (HTML characters escaped, other non-ASCII text as UTF-8).
    assert client_mod.encode_body({'v': value}) == b'{"v":' + spelled + b'}'
    assert json.loads(client_mod.encode_body({'v': value})) == {'v': value}


def test_watch_parses_lines_across_chunks_and_raises_error_events():
    ev1 = json.dumps({'type': 'MODIFIED', 'object': {'metadata': {'name': 'a', 'resourceVersion': '5'}}})
    ev2 = json.dumps({'type': 'ERROR', 'object': status_body(410, 'Expired', 'too old resource version')})
    resp = FakeResponse(200, chunks=[ev1[:10].encode(), (ev1[10:] + '\n').encode(), (ev2 + '\n').encode()])
    client, pool, _ = make_client([resp])
    events = client.watch('/apis/apps/v1/namespaces/default/deployments', resource_version='4',
                          field_selector='metadata.name=a', timeout_seconds=30)
    assert next(events) == ('MODIFIED', {'metadata': {'name': 'a', 'resourceVersion': '5'}})
    with pytest.raises(ApiError) as e:
        next(events)
    assert e.value.status == 410
    url = pool.requests[0]['url']
    assert 'watch=true' in url and 'resourceVersion=4' in url and 'fieldSelector=metadata.name%3Da' in url
    assert 'timeoutSeconds=30' in url
    assert pool.requests[0]['stream'] is True and pool.requests[0]['read_timeout'] == 30 + 5
    assert resp.closed


def test_watch_ends_quietly_when_the_stream_breaks():
    ev1 = json.dumps({'type': 'ADDED', 'object': {'metadata': {'name': 'a'}}}) + '\n'

    class Broken(FakeResponse):
        def read1(self, amount):
            if self.chunks:
                return self.chunks.pop(0)
            raise http.client.IncompleteRead(b'')

    resp = Broken(200, chunks=[ev1.encode()])
    client, _pool, _ = make_client([resp])
    assert list(client.watch('/w')) == [('ADDED', {'metadata': {'name': 'a'}})]
    assert resp.closed


def test_error_answer_to_a_watch_is_raised_and_closed():
    resp = FakeResponse(403, status_body(403, 'Forbidden', 'no watch for you'))
    client, _pool, _ = make_client([resp])
    with pytest.raises(ApiError) as e:
        next(client.watch('/w'))
    assert e.value.status == 403 and resp.closed


# ---- secrets ---------------------------------------------------------------------------------

def test_error_messages_never_echo_the_token():
    body = status_body(403, 'Forbidden', 'token %s is not allowed' % TOKEN)
    client, _pool, _ = make_client([FakeResponse(403, body)])
    with pytest.raises(ApiError) as e:
        client.get('/x')
    assert TOKEN not in e.value.message and '********' in e.value.message


def test_proxy_and_no_proxy():
    conn = Connection()
    conn.server = 'http://api.internal:8080'
    conn.proxy = 'http://proxy:3128'
    assert ApiClient(conn)._transport.proxy == ('proxy', 3128)
    conn.proxy = 'proxy.corp'  # no scheme: http, port 80
    assert ApiClient(conn)._transport.proxy == ('proxy.corp', 80)
    conn.no_proxy = 'localhost,.internal'
    assert ApiClient(conn)._transport.proxy is None
    conn.no_proxy, conn.proxy = None, 'socks5://proxy:1080'
    with pytest.raises(ConfigError, match='invalid proxy socks5://proxy:1080: only http://'):
        ApiClient(conn)
    assert transport_mod._no_proxy_matches('10.1.2.3', '10.0.0.0/8')
    assert not transport_mod._no_proxy_matches('11.1.2.3', '10.0.0.0/8')

"""Watches: initial events, resuming from a resourceVersion, selectors, timeouts, watch-list."""

import concurrent.futures
import json
import time

import pytest

from .conftest import configmap, watch_events

pytestmark = pytest.mark.kubesim

CMS = '/api/v1/namespaces/default/configmaps'
ROOT_CA = 'kube-root-ca.crt'  # every namespace has it (the root CA publisher's)


def background_watch(kubesim, path, **kw):
    pool = concurrent.futures.ThreadPoolExecutor(1)
    future = pool.submit(watch_events, kubesim.url, path, **kw)
    pool.shutdown(wait=False)
    time.sleep(0.2)  # let the watch register before the test changes things
    return future


def test_watch_without_resource_version_starts_with_added_events(kubesim, http):
    http.post(CMS, configmap('a'))
    http.post(CMS, configmap('b'))
    events, ended = watch_events(kubesim.url, f'{CMS}?watch=1&timeoutSeconds=1', timeout=5)
    assert ended, 'the server ends the stream after timeoutSeconds'
    # The namespace's kube-root-ca.crt (from the root CA publisher) is there too.
    assert [(e['type'], e['object']['metadata']['name']) for e in events] == [
        ('ADDED', 'a'), ('ADDED', 'b'), ('ADDED', ROOT_CA)]
    assert events[0]['object']['kind'] == 'ConfigMap' and events[0]['object']['apiVersion'] == 'v1'


def test_watch_streams_changes_in_order(kubesim, http):
    future = background_watch(kubesim, f'{CMS}?watch=true&resourceVersion=0', count=5)
    _, _, created = http.post(CMS, configmap('a'))
    http.patch(f'{CMS}/a', {'data': {'k': 'v2'}}, content_type='application/merge-patch+json')
    http.delete(f'{CMS}/a')
    http.post(CMS, configmap('b'))
    events, _ = future.result(10)
    assert [(e['type'], e['object']['metadata']['name']) for e in events] == [
        ('ADDED', ROOT_CA), ('ADDED', 'a'), ('MODIFIED', 'a'), ('DELETED', 'a'), ('ADDED', 'b')]
    events = events[1:]
    assert events[1]['object']['data'] == {'k': 'v2'}
    rvs = [int(e['object']['metadata']['resourceVersion']) for e in events]
    assert rvs == sorted(rvs) and rvs[0] == int(created['metadata']['resourceVersion'])


def test_watch_resumes_after_a_resource_version(kubesim, http):
    _, _, first = http.post(CMS, configmap('a'))
    http.post(CMS, configmap('b'))
    http.patch(f'{CMS}/a', {'data': {'x': 'y'}}, content_type='application/merge-patch+json')
    rv = first['metadata']['resourceVersion']
    events, _ = watch_events(kubesim.url, f'{CMS}?watch=1&resourceVersion={rv}&timeoutSeconds=1')
    assert [(e['type'], e['object']['metadata']['name']) for e in events] == [
        ('ADDED', 'b'), ('MODIFIED', 'a')]


def test_watch_field_selector_on_one_object(kubesim, http):
    future = background_watch(kubesim, f'{CMS}?watch=1&fieldSelector=metadata.name%3Dwanted&timeoutSeconds=1')
    http.post(CMS, configmap('other'))
    http.post(CMS, configmap('wanted'))
    events, ended = future.result(10)
    assert ended
    assert [(e['type'], e['object']['metadata']['name']) for e in events] == [('ADDED', 'wanted')]


def test_watch_label_selector_sees_objects_enter_and_leave(kubesim, http):
    future = background_watch(kubesim, f'{CMS}?watch=1&labelSelector=tier%3Dweb&resourceVersion=0', count=3)
    merge = 'application/merge-patch+json'
    http.post(CMS, configmap('a'))
    http.patch(f'{CMS}/a', {'metadata': {'labels': {'tier': 'web'}}}, content_type=merge)
    http.patch(f'{CMS}/a', {'data': {'n': '1'}}, content_type=merge)
    http.patch(f'{CMS}/a', {'metadata': {'labels': {'tier': 'db'}}}, content_type=merge)
    events, _ = future.result(10)
    assert [e['type'] for e in events] == ['ADDED', 'MODIFIED', 'DELETED']


def test_watch_namespace_scope(kubesim, http):
    http.post('/api/v1/namespaces', {'metadata': {'name': 'other'}})
    future = background_watch(kubesim, '/api/v1/configmaps?watch=1&timeoutSeconds=1')
    http.post(CMS, configmap('in-default'))
    http.post('/api/v1/namespaces/other/configmaps', configmap('in-other'))
    all_events, _ = future.result(10)
    assert {(e['object']['metadata']['namespace'], e['object']['metadata']['name']) for e in all_events} == {
        ('default', 'in-default'), ('other', 'in-other')} | {
        (ns, ROOT_CA) for ns in ('default', 'kube-public', 'kube-system', 'other')}
    scoped, _ = watch_events(kubesim.url, '/api/v1/namespaces/other/configmaps?watch=1&timeoutSeconds=1')
    assert [e['object']['metadata']['name'] for e in scoped] == ['in-other', ROOT_CA]


def test_watch_list_sends_initial_events_then_a_bookmark(kubesim, http):
    http.post(CMS, configmap('a'))
    events, _ = watch_events(
        kubesim.url, f'{CMS}?watch=1&sendInitialEvents=true&allowWatchBookmarks=true'
        '&resourceVersionMatch=NotOlderThan&timeoutSeconds=1')
    assert [(e['type'], e['object']['metadata'].get('name')) for e in events] == [
        ('ADDED', 'a'), ('ADDED', ROOT_CA), ('BOOKMARK', None)]
    bookmark = events[2]['object']
    assert bookmark['metadata']['annotations'] == {'k8s.io/initial-events-end': 'true'}
    added_rv = int(events[0]['object']['metadata']['resourceVersion'])
    assert int(bookmark['metadata']['resourceVersion']) >= added_rv


def test_too_old_resource_version_is_an_expired_error_event(kubesim, http):
    def churn():
        from tests.kubesim.apiserver.registry import store as store_module

        for i in range(store_module.EVENT_HISTORY + 10):
            kubesim.store.create('/configmaps', {'metadata': {'name': f'c{i}', 'namespace': 'default'}})

    kubesim.call(churn)
    events, ended = watch_events(kubesim.url, f'{CMS}?watch=1&resourceVersion=1001', timeout=5)
    assert ended and len(events) == 1
    assert events[0]['type'] == 'ERROR'
    assert events[0]['object']['code'] == 410 and events[0]['object']['reason'] == 'Expired'


def test_watch_legacy_path_prefix(kubesim, http):
    http.post(CMS, configmap('a'))
    events, _ = watch_events(kubesim.url, '/api/v1/watch/namespaces/default/configmaps/a?timeoutSeconds=1')
    assert [(e['type'], e['object']['metadata']['name']) for e in events] == [('ADDED', 'a')]


def test_stop_ends_open_watches(kubesim_factory):
    sim = kubesim_factory()
    future = background_watch(sim, '/api/v1/configmaps?watch=1', timeout=20)
    started = time.monotonic()
    sim.stop()
    _, ended = future.result(10)
    assert ended and time.monotonic() - started < 5


def test_watch_with_kubernetes_client(kubesim, http):
    """The official client's Watch helper sees the same stream."""
    import kubernetes

    http.post(CMS, configmap('a'))
    client = kubernetes.config.new_client_from_config(str(kubesim.kubeconfig))
    core = kubernetes.client.CoreV1Api(client)
    names = [(ev['type'], ev['object'].metadata.name)
             for ev in kubernetes.watch.Watch().stream(core.list_namespaced_config_map, 'default',
                                                         timeout_seconds=1)]
    assert names == [('ADDED', 'a'), ('ADDED', ROOT_CA)]


# ---- protobuf watch streams -----------------------------------------------------------------------
PROTOBUF = 'application/vnd.kubernetes.protobuf'


def protobuf_watch(kubesim, path, accept=PROTOBUF + ';stream=watch'):
    """(Content-Type, body) of a watch that ends by its timeoutSeconds."""
    import http.client
    import urllib.parse

    parts = urllib.parse.urlsplit(kubesim.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        conn.request('GET', path, headers={'Accept': accept})
        resp = conn.getresponse()
        assert resp.status == 200
        return resp.headers['Content-Type'], resp.read()
    finally:
        conn.close()


def _varint(n):
    out = b''
    while n >= 0x80:
        out += bytes([n & 0x7F | 0x80])
        n >>= 7
    return out + bytes([n])


def test_protobuf_watch_frames_each_event_as_the_api_server_does(kubesim, http):
    """The expected bytes are built here from the wire facts, not by kubesim's encoder: a 4-byte
    big-endian length, then metav1.WatchEvent (type = 1, object = 2) whose RawExtension (raw = 1)
    holds the object exactly as a protobuf GET answers it."""
    http.post(CMS, configmap('a', {'k': 'v'}))
    content_type, obj = _raw_get(kubesim, f'{CMS}/a')
    assert content_type == PROTOBUF and obj.startswith(b'k8s\x00')
    extension = b'\x0a' + _varint(len(obj)) + obj
    message = b'\x0a\x05ADDED' + b'\x12' + _varint(len(extension)) + extension
    expected = len(message).to_bytes(4, 'big') + message
    for accept in (PROTOBUF + ';stream=watch', PROTOBUF, f'{PROTOBUF}, application/json'):
        content_type, stream = protobuf_watch(
            kubesim, f'{CMS}?watch=1&fieldSelector=metadata.name%3Da&timeoutSeconds=1', accept)
        assert content_type == PROTOBUF + ';stream=watch'
        assert stream == expected


def _raw_get(kubesim, path):
    import urllib.request

    req = urllib.request.Request(kubesim.url + path, headers={'Accept': PROTOBUF})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return resp.headers['Content-Type'], resp.read()


def test_protobuf_watch_replays_changes_errors_and_bookmarks(kubesim, http):
    from tests.kubesim.machinery import protobuf

    _, _, first = http.post(CMS, configmap('a'))
    http.patch(f'{CMS}/a', {'data': {'k': 'v2'}}, content_type='application/merge-patch+json')
    http.delete(f'{CMS}/a')
    rv = first['metadata']['resourceVersion']
    content_type, stream = protobuf_watch(kubesim, f'{CMS}?watch=1&resourceVersion={rv}&timeoutSeconds=1')
    events, rest = protobuf.read_watch_stream(stream)
    assert rest == b'' and content_type == PROTOBUF + ';stream=watch'
    assert [(t, o['kind'], o['metadata']['name']) for t, o in events] == [
        ('MODIFIED', 'ConfigMap', 'a'), ('DELETED', 'ConfigMap', 'a')]
    assert events[0][1]['data'] == {'k': 'v2'}
    # The watch-list's closing bookmark, in protobuf too.
    _, stream = protobuf_watch(kubesim, f'{CMS}?watch=1&sendInitialEvents=true&allowWatchBookmarks=true'
                                        '&resourceVersionMatch=NotOlderThan&timeoutSeconds=1')
    events, _ = protobuf.read_watch_stream(stream)
    assert [(t, o['metadata'].get('name')) for t, o in events] == [('ADDED', ROOT_CA), ('BOOKMARK', None)]
    assert events[1][1]['metadata']['annotations'] == {'k8s.io/initial-events-end': 'true'}
    # A JSON or Table client still gets JSON.
    content_type, stream = protobuf_watch(kubesim, f'{CMS}?watch=1&timeoutSeconds=1',
                                          'application/json, ' + PROTOBUF)
    assert content_type == 'application/json' and json.loads(stream.splitlines()[0])['type'] == 'ADDED'
    content_type, stream = protobuf_watch(kubesim, f'{CMS}?watch=1&timeoutSeconds=1',
                                          'application/json;as=Table;v=v1;g=meta.k8s.io')
    assert json.loads(stream.splitlines()[0])['object']['kind'] == 'Table'


def test_protobuf_watch_too_old_is_a_status_error_event(kubesim):
    from tests.kubesim.machinery import protobuf
    from tests.kubesim.apiserver.registry import store as store_module

    def churn():
        for i in range(store_module.EVENT_HISTORY + 10):
            kubesim.store.create('/configmaps', {'metadata': {'name': f'c{i}', 'namespace': 'default'}})

    kubesim.call(churn)
    _, stream = protobuf_watch(kubesim, f'{CMS}?watch=1&resourceVersion=1001')
    events, rest = protobuf.read_watch_stream(stream)
    assert rest == b'' and len(events) == 1
    typ, status = events[0]
    assert typ == 'ERROR' and (status['kind'], status['code'], status['reason']) == ('Status', 410, 'Expired')


def test_kubectl_run_waits_for_its_pod_through_a_protobuf_watch(kubectl):
    """`kubectl run -i` waits for the pod with client-go's typed client, which asks for protobuf and
    decodes the stream (a watch-list: initial events, then the bookmark). kubesim serves no attach,
    so kubectl's last request is the attach it makes once the watch saw the pod running."""
    proc = kubectl('run', 'solo', '--image=busybox:1.36', '-i', '--restart=Never',
                   '--pod-running-timeout=20s', '-v=8', '--command', '--', 'sleep', '3600')
    log = proc.stderr
    watch = log.index('/api/v1/namespaces/default/pods?allowWatchBookmarks=true')
    assert 'sendInitialEvents=true' in log[watch:watch + 300] and 'watch=true' in log[watch:watch + 300]
    assert 'Accept: application/vnd.kubernetes.protobuf' in log[watch:]
    assert 'Content-Type: application/vnd.kubernetes.protobuf;stream=watch' in log[watch:]
    assert '/api/v1/namespaces/default/pods/solo/attach' in log[watch:]
    # client-go reports every event it cannot decode; the only such line is the one it logs when it
    # closes the stream itself.
    undecoded = [line for line in log.splitlines() if 'unable to decode' in line]
    assert all('use of closed network connection' in line for line in undecoded), undecoded

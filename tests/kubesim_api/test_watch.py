"""Watches: initial events, resuming from a resourceVersion, selectors, timeouts, watch-list."""

import concurrent.futures
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
        from tests.kubesim import store as store_module

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

"""One LIST shared by many selector reads, filtered as the API server filters, and kept current by
a WATCH (an informer): a fake client records the requests and plays scripted watch streams."""

import threading
import time

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.api.shared_lists import (
    WATCH_FAILURES,
    SharedLists,
    selector_matches,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError, ConnectionFailure
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.pods import selector_string


@pytest.mark.parametrize('selector, labels, expected', [
    ('', {'a': '1'}, True),
    ('app=web', {'app': 'web', 'x': 'y'}, True),
    ('app=web', {'app': 'api'}, False),
    ('app==web', {'app': 'web'}, True),
    ('app!=web', {'app': 'api'}, True),
    ('app!=web', {}, True),
    ('app=web,pod-template-hash=abc', {'app': 'web', 'pod-template-hash': 'abc'}, True),
    ('app=web,pod-template-hash=abc', {'app': 'web', 'pod-template-hash': 'def'}, False),
    ('tier in (a,b),app=web', {'tier': 'b', 'app': 'web'}, True),
    ('tier in (a, b)', {'tier': 'c'}, False),
    ('tier notin (a,b)', {'tier': 'c'}, True),
    ('tier notin (a,b)', {}, True),
    ('tier', {'tier': ''}, True),
    ('tier', {}, False),
    ('!tier', {}, True),
    ('!tier', {'tier': 'x'}, False),
])
def test_selector_matches(selector, labels, expected):
    assert selector_matches(selector, labels) is expected


def test_the_selectors_this_collection_writes_are_read_back():
    selector = selector_string({'matchLabels': {'app': 'web'}, 'matchExpressions': [
        {'key': 'tier', 'operator': 'In', 'values': ['b', 'a']},
        {'key': 'canary', 'operator': 'DoesNotExist'},
        {'key': 'zone', 'operator': 'Exists'}]})
    assert selector_matches(selector, {'app': 'web', 'tier': 'a', 'zone': 'z1'})
    assert not selector_matches(selector, {'app': 'web', 'tier': 'a', 'zone': 'z1', 'canary': 'x'})
    assert not selector_matches(selector, {'app': 'web', 'tier': 'a'})


PODS = '/api/v1/namespaces/x/pods'


class Recorder:
    """A client that answers LISTs from ``items`` (at resourceVersion ``version``) and each WATCH
    with the next of ``streams`` (events, an exception among them is raised there); a stream with
    nothing scripted stays open, quiet, until ``hold`` is set. Records each request."""

    def __init__(self, items, streams=(), version='7'):
        self.items = items
        self.version = version
        self.streams = list(streams)
        self.requests = []
        self.hold = threading.Event()

    def list(self, path, label_selector=None, field_selector=None, query=None):
        self.requests.append((path, label_selector, field_selector, query))
        return {'kind': 'PodList', 'metadata': {'resourceVersion': self.version}, 'items': list(self.items)}

    def watch(self, path, resource_version=None, timeout_seconds=None):
        self.requests.append(('WATCH', path, resource_version))
        if not self.streams:
            self.hold.wait(5)
            return
        for event in self.streams.pop(0):
            if isinstance(event, Exception):
                raise event
            yield event

    def get(self, path):
        self.requests.append(('GET', path))
        return {'metadata': {'name': path}}

    def lists(self):
        return [r for r in self.requests if r[0] != 'WATCH']

    def watches(self):
        return [r[2] for r in self.requests if r[0] == 'WATCH']


@pytest.fixture
def opened():
    """Makes SharedLists and closes them (and lets quiet fake streams end) after the test."""
    made = []

    def make(client, ttl=5, clock=time.monotonic):
        made.append((client, SharedLists(client, ttl=ttl, clock=clock)))
        return made[-1][1]

    yield make
    for client, shared in made:
        client.hold.set()
        shared.close()


def _pod(name, version='1', **labels):
    return {'metadata': {'name': name, 'namespace': 'x', 'labels': labels, 'resourceVersion': version},
            'type': 'Warning' if 'warn' in name else 'Normal'}


def _names(answer):
    return [p['metadata']['name'] for p in answer['items']]


def _watch_threads():
    return [t for t in threading.enumerate() if t.name == 'watch %s' % PODS and t.is_alive()]


def eventually(check, seconds=3):
    """Wait for ``check()`` (the watch thread applies events on its own time)."""
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, 'never happened'
        time.sleep(0.01)


def test_the_first_read_lists_and_watches_then_reads_send_no_request_and_are_filtered(opened):
    now = [100.0]
    client = Recorder([_pod('web-1', app='web'), _pod('api-1', app='api'), _pod('warn-1', app='web')])
    shared = opened(client, ttl=2, clock=lambda: now[0])
    web = shared.list(PODS, label_selector='app=web')['items']
    api = shared.list(PODS, label_selector='app=api')['items']
    warnings = shared.list(PODS, field_selector='type=Warning')['items']
    assert [p['metadata']['name'] for p in web] == ['warn-1', 'web-1']  # the server's order: by name
    assert [p['metadata']['name'] for p in api] == ['api-1']
    assert [p['metadata']['name'] for p in warnings] == ['warn-1']
    eventually(lambda: client.watches() == ['7'])
    now[0] += 60  # long past the ttl: the watch keeps the copy current
    shared.list(PODS, label_selector='app=web')
    assert client.requests == [(PODS, None, None, None), ('WATCH', PODS, '7')]
    shared.list('/apis/apps/v1/namespaces/x/replicasets', label_selector='app=web')
    assert len(client.lists()) == 2


def test_concurrent_readers_wait_for_one_list(opened):
    client = Recorder([_pod('web-1', app='web')])
    shared = opened(client)
    answers = []

    def read():
        answers.append(_names(shared.list(PODS, label_selector='app=web')))

    readers = [threading.Thread(target=read) for _ in range(8)]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join(5)
    assert answers == [['web-1']] * 8
    assert len(client.lists()) == 1


def test_watch_events_are_applied_and_an_older_version_is_ignored(opened):
    client = Recorder([_pod('a', '5', app='web'), _pod('b', '6', app='web')], streams=[[
        ('ADDED', _pod('c', '8', app='web')),
        ('MODIFIED', _pod('a', '9', app='api')),
        ('DELETED', _pod('b', '10', app='web')),
        ('MODIFIED', _pod('c', '3', app='api')),  # older than the copy's: ignored
    ]])
    shared = opened(client)
    assert _names(shared.list(PODS, label_selector='app=web')) == ['a', 'b']
    eventually(lambda: _names(shared.list(PODS, label_selector='app=web')) == ['c'])
    answer = shared.list(PODS, label_selector='app=api')
    assert _names(answer) == ['a']
    assert answer['metadata']['resourceVersion'] == '10'  # the newest seen, not the older event's
    assert len(client.lists()) == 1


def test_a_stream_the_server_ends_is_watched_again_from_the_newest_version_and_bookmarks(opened):
    client = Recorder([_pod('a', '5')], streams=[
        [('ADDED', _pod('b', '8'))],
        [('BOOKMARK', {'kind': 'Pod', 'metadata': {'resourceVersion': '12'}})],
        [],
    ])
    shared = opened(client)
    shared.list(PODS)
    eventually(lambda: client.watches() == ['7', '8', '12', '12'])
    assert _names(shared.list(PODS)) == ['a', 'b']
    assert len(client.lists()) == 1


def test_410_gone_lists_again_and_watches_from_the_new_list(opened):
    client = Recorder([_pod('a', '5')], streams=[[ApiError(410, 'Expired', 'too old resource version')]])
    shared = opened(client)
    shared.list(PODS)
    client.items, client.version = [_pod('a', '5'), _pod('z', '40')], '41'
    # The copy that missed events is not served: the next read after the 410 LISTs again.
    eventually(lambda: _names(shared.list(PODS)) == ['a', 'z'])
    eventually(lambda: client.watches() == ['7', '41'])
    assert len(client.lists()) == 2


@pytest.mark.parametrize('error', [ConnectionFailure('refused'), ApiError(500, 'InternalError', 'boom')])
def test_a_watch_that_keeps_failing_is_given_up_for_a_list_per_ttl(opened, error):
    now = [0.0]
    client = Recorder([_pod('a', '5')], streams=[[error]] * WATCH_FAILURES)
    shared = opened(client, ttl=2, clock=lambda: now[0])
    shared.list(PODS)
    # After each failed watch the next read LISTs again and watches again, until it is given up.
    eventually(lambda: shared.list(PODS) and len(client.watches()) == WATCH_FAILURES)
    eventually(lambda: not _watch_threads())
    count = len(client.requests)
    assert len(client.lists()) == WATCH_FAILURES
    shared.list(PODS)
    shared.list(PODS)
    assert len(client.requests) == count  # within the ttl of the last LIST: its copy
    now[0] += 2
    shared.list(PODS)
    assert client.requests[count:] == [(PODS, None, None, None)]  # a LIST, no watch


def test_a_watch_refused_outright_is_given_up_at_once(opened):
    now = [0.0]
    client = Recorder([_pod('a', '5')], streams=[[ApiError(403, 'Forbidden', 'may not watch pods')]])
    shared = opened(client, ttl=2, clock=lambda: now[0])
    shared.list(PODS)
    eventually(lambda: not _watch_threads())
    shared.list(PODS)  # within the ttl of the LIST: its copy
    assert len(client.lists()) == 1
    now[0] += 2
    shared.list(PODS)
    assert client.watches() == ['7']
    assert len(client.lists()) == 2


def test_close_ends_the_watch_thread_and_no_watch_follows(opened):
    bookmarks = [('BOOKMARK', {'metadata': {'resourceVersion': '7'}})] * 1000

    class Busy(Recorder):
        def watch(self, path, resource_version=None, timeout_seconds=None):
            self.requests.append(('WATCH', path, resource_version))
            for event in bookmarks:
                time.sleep(0.002)
                yield event

    now = [0.0]
    client = Busy([_pod('a', '5')])
    shared = opened(client, ttl=2, clock=lambda: now[0])
    shared.list(PODS)
    helpers = _watch_threads()
    assert helpers and all(t.daemon for t in helpers)
    started = time.monotonic()
    with shared:
        pass  # leaving the block closes it
    assert time.monotonic() - started < 1  # joined in short steps, not until the stream ends
    eventually(lambda: not any(t.is_alive() for t in helpers))  # at its next event
    assert client.watches() == ['7']
    shared.list(PODS)  # after close: the last LIST for its ttl, then LISTs, never a watch
    now[0] += 2
    shared.list(PODS)
    assert client.watches() == ['7'] and len(client.lists()) == 2


def test_what_cannot_be_filtered_here_goes_to_the_server_and_other_calls_pass_through(opened):
    client = Recorder([])
    shared = opened(client, ttl=60)
    shared.list('/api/v1/pods', field_selector='spec.nodeName in (a)')
    shared.list('/api/v1/pods', label_selector='app=web', query={'limit': 5})
    assert shared.get('/x')['metadata']['name'] == '/x'
    assert client.requests == [('/api/v1/pods', None, 'spec.nodeName in (a)', None),
                               ('/api/v1/pods', 'app=web', None, {'limit': 5}), ('GET', '/x')]


class ScopedRecorder(Recorder):
    """A Recorder that filters its LISTs by the selectors sent and records a WATCH's selectors."""

    def list(self, path, label_selector=None, field_selector=None, query=None):
        self.requests.append((path, label_selector, field_selector, query))
        items = [i for i in self.items if selector_matches(label_selector, i['metadata']['labels'])
                 and (field_selector != 'type=Warning' or i['type'] == 'Warning')]
        return {'kind': 'PodList', 'metadata': {'resourceVersion': self.version}, 'items': items}

    def watch(self, path, resource_version=None, timeout_seconds=None, label_selector=None,
              field_selector=None):
        self.requests.append(('WATCH', path, resource_version, label_selector, field_selector,
                              timeout_seconds))
        self.hold.wait(5)
        return iter(())


def test_a_scoped_reader_lists_and_watches_its_scope_and_answers_the_lists_within_it():
    client = ScopedRecorder([_pod('web-1', app='web', h='a'), _pod('web-2', app='web', h='b'),
                             _pod('api-1', app='api'), _pod('warn-1', app='web', h='a')])
    events = '/api/v1/namespaces/x/events'
    shared = SharedLists.scoped(client, {PODS: ('app=web', None), events: (None, 'type=Warning')})
    try:
        assert _names(shared.list(PODS, label_selector='app=web,h=a')) == ['warn-1', 'web-1']
        assert _names(shared.list(PODS, label_selector='h=b,app=web')) == ['web-2']
        assert _names(shared.list(PODS, label_selector='app=web')) == ['warn-1', 'web-1', 'web-2']
        # One LIST of the scope, then its WATCH with the same selectors, held open for long.
        eventually(lambda: len(client.requests) == 2)
        assert client.requests[0] == (PODS, 'app=web', None, None)
        assert client.requests[1][:5] == ('WATCH', PODS, '7', 'app=web', None)
        assert client.requests[1][5] == 60
        # Outside the scope: to the server, unchanged, each time.
        assert _names(shared.list(PODS, label_selector='app=api')) == ['api-1']
        assert sorted(_names(shared.list(PODS))) == ['api-1', 'warn-1', 'web-1', 'web-2']
        assert client.lists()[1:] == [(PODS, 'app=api', None, None), (PODS, None, None, None)]
        assert _names(shared.list(events, field_selector='type=Warning')) == ['warn-1']
        assert _names(shared.list(events, field_selector='type=Warning')) == ['warn-1']
        assert [r for r in client.lists() if r[0] == events] == [(events, None, 'type=Warning', None)]
        eventually(lambda: [r[4] for r in client.requests if r[0] == 'WATCH' and r[1] == events]
                   == ['type=Warning'])
    finally:
        client.hold.set()
        shared.close()

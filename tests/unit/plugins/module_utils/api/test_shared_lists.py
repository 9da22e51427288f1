"""One LIST shared by many selector reads, filtered as the API server filters."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.api.shared_lists import (
    SharedLists,
    selector_matches,
)
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


class Recorder:
    """A client that answers LISTs from a fixed collection and records each request."""

    def __init__(self, items):
        self.items = items
        self.requests = []

    def list(self, path, label_selector=None, field_selector=None, query=None):
        self.requests.append((path, label_selector, field_selector, query))
        return {'kind': 'PodList', 'metadata': {'resourceVersion': '7'}, 'items': list(self.items)}

    def get(self, path):
        self.requests.append(('GET', path))
        return {'metadata': {'name': path}}


def _pod(name, **labels):
    return {'metadata': {'name': name, 'labels': labels}, 'type': 'Warning' if 'warn' in name else 'Normal'}


def test_reads_within_the_ttl_share_one_list_and_are_filtered():
    now = [100.0]
    client = Recorder([_pod('web-1', app='web'), _pod('api-1', app='api'), _pod('warn-1', app='web')])
    shared = SharedLists(client, ttl=2, clock=lambda: now[0])
    web = shared.list('/api/v1/namespaces/x/pods', label_selector='app=web')['items']
    api = shared.list('/api/v1/namespaces/x/pods', label_selector='app=api')['items']
    warnings = shared.list('/api/v1/namespaces/x/pods', field_selector='type=Warning')['items']
    assert [p['metadata']['name'] for p in web] == ['web-1', 'warn-1']
    assert [p['metadata']['name'] for p in api] == ['api-1']
    assert [p['metadata']['name'] for p in warnings] == ['warn-1']
    assert client.requests == [('/api/v1/namespaces/x/pods', None, None, None)]
    now[0] += 2
    shared.list('/api/v1/namespaces/x/pods', label_selector='app=web')
    shared.list('/apis/apps/v1/namespaces/x/replicasets', label_selector='app=web')
    assert len(client.requests) == 3


def test_what_cannot_be_filtered_here_goes_to_the_server_and_other_calls_pass_through():
    client = Recorder([])
    shared = SharedLists(client, ttl=60)
    shared.list('/api/v1/pods', field_selector='spec.nodeName in (a)')
    shared.list('/api/v1/pods', label_selector='app=web', query={'limit': 5})
    assert shared.get('/x')['metadata']['name'] == '/x'
    assert client.requests == [('/api/v1/pods', None, 'spec.nodeName in (a)', None),
                               ('/api/v1/pods', 'app=web', None, {'limit': 5}), ('GET', '/x')]

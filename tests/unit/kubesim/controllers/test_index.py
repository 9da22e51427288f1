"""The controllers' object index: scopes, owners and orphans, kept current by store events."""

import pytest

from tests.kubesim.controllers.index import ObjectIndex, json_copy
from tests.kubesim.machinery.selectors import parse_label_selector
from tests.kubesim.apiserver.registry.store import Store

pytestmark = pytest.mark.unit


def pod(name, labels, owner_uid=None, namespace='default'):
    meta = {'name': name, 'namespace': namespace, 'labels': labels}
    if owner_uid:
        meta['ownerReferences'] = [{'kind': 'ReplicaSet', 'name': 'rs', 'uid': owner_uid, 'controller': True}]
    return {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': meta, 'spec': {}}


def names(objs):
    return [o['metadata']['name'] for o in objs]


def test_json_copy_is_deep():
    value = {'a': [{'b': 1}, 'c'], 'd': {'e': None, 'f': True}}
    copied = json_copy(value)
    assert copied == value
    copied['a'][0]['b'] = 2
    copied['d']['f'] = False
    assert value == {'a': [{'b': 1}, 'c'], 'd': {'e': None, 'f': True}}


def test_owned_objects_and_matching_orphans():
    store = Store()
    index = ObjectIndex(store)
    store.listeners.append(index.observe)
    store.create('/pods', pod('mine', {'app': 'a'}, owner_uid='u1'))
    store.create('/pods', pod('theirs', {'app': 'a'}, owner_uid='u2'))
    store.create('/pods', pod('orphan-a', {'app': 'a'}))
    store.create('/pods', pod('orphan-b', {'app': 'b'}))
    store.create('/pods', pod('elsewhere', {'app': 'a'}, namespace='other'))
    index.rebuild()
    selector = parse_label_selector('app=a')
    assert names(index.list('/pods', 'default', selector, 'u1')) == ['mine', 'orphan-a']
    assert names(index.list('/pods', 'default', owner_uid='u2')) == ['theirs']
    assert names(index.list('/pods', 'default')) == ['mine', 'orphan-a', 'orphan-b', 'theirs']
    assert names(index.list('/pods')) == ['mine', 'orphan-a', 'orphan-b', 'theirs', 'elsewhere']

    # Events keep it current without a rebuild: adoption, relabelling, deletion.
    adopted = store.get('/pods', 'default', 'orphan-a')
    adopted['metadata']['ownerReferences'] = [
        {'kind': 'ReplicaSet', 'name': 'rs', 'uid': 'u1', 'controller': True}
    ]
    store.update('/pods', adopted)
    relabelled = store.get('/pods', 'default', 'orphan-b')
    relabelled['metadata']['labels'] = {'app': 'a'}
    store.update('/pods', relabelled)
    store.delete('/pods', 'default', 'mine')
    assert names(index.list('/pods', 'default', selector, 'u1')) == ['orphan-a', 'orphan-b']
    assert names(index.list('/pods', 'default', owner_uid='u1')) == ['orphan-a']


def test_copies_do_not_reach_the_store():
    store = Store()
    index = ObjectIndex(store)
    store.create('/pods', pod('p', {'app': 'a'}))
    index.rebuild()
    got = index.get('/pods', 'default', 'p')
    got['metadata']['labels']['app'] = 'changed'
    index.list('/pods')[0]['metadata']['labels']['app'] = 'changed'
    assert store.get('/pods', 'default', 'p')['metadata']['labels'] == {'app': 'a'}
    assert index.get('/pods', 'default', 'missing') is None

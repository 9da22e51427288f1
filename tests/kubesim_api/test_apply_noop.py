"""A server-side apply that changes nothing stores nothing (structured-merge-diff merge/update.go
returns no object; the field manager's managedfieldsupdater.go then keeps the entry's time)."""

import time

from .conftest import configmap

APPLY = 'application/apply-patch+yaml'
PATH = '/api/v1/namespaces/default/configmaps'


def _apply(http, body, manager='manager-00'):
    status, _, obj = http.patch(f'{PATH}/{body["metadata"]["name"]}?fieldManager={manager}', body,
                                content_type=APPLY)
    assert status in (200, 201), obj
    return obj


def _entry(obj, manager):
    return [e for e in obj['metadata']['managedFields'] if e['manager'] == manager]


def test_repeated_apply_keeps_resource_version_and_time(http):
    body = configmap('ssa-same', {'key': 'value-0'})
    first = _apply(http, body)
    # managedFields times have a resolution of one second: a rewrite would show a later one.
    time.sleep(1.1)
    again = _apply(http, body)
    assert again['metadata']['resourceVersion'] == first['metadata']['resourceVersion']
    assert again['metadata']['managedFields'] == first['metadata']['managedFields']
    assert _entry(again, 'manager-00')[0]['time'] == _entry(first, 'manager-00')[0]['time']
    _, _, stored = http.get(f'{PATH}/ssa-same')
    assert stored['metadata']['resourceVersion'] == first['metadata']['resourceVersion']


def test_apply_that_changes_a_value_is_a_write_with_a_new_time(http):
    first = _apply(http, configmap('ssa-changed', {'key': 'value-0'}))
    time.sleep(1.1)
    changed = _apply(http, configmap('ssa-changed', {'key': 'value-1'}))
    assert changed['data'] == {'key': 'value-1'}
    assert int(changed['metadata']['resourceVersion']) > int(first['metadata']['resourceVersion'])
    assert _entry(changed, 'manager-00')[0]['time'] > _entry(first, 'manager-00')[0]['time']

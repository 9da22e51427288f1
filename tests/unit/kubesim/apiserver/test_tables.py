"""Server-side printing (the Table kubectl get asks for)."""

import datetime

import pytest

from tests.kubesim.apiserver import tables
from tests.kubesim.apiserver.registry.resources import BY_KEY

pytestmark = pytest.mark.unit


@pytest.mark.parametrize('seconds, text', [
    (-5, '<invalid>'), (-1, '0s'), (0, '0s'), (119, '119s'), (120, '2m'), (185, '3m5s'), (600, '10m'),
    (179 * 60, '179m'), (3 * 3600, '3h'), (3 * 3600 + 60, '3h1m'), (8 * 3600, '8h'), (47 * 3600, '47h'),
    (48 * 3600, '2d'), (50 * 3600, '2d2h'), (8 * 86400, '8d'), (730 * 86400, '2y'), (731 * 86400, '2y1d'),
    (8 * 365 * 86400, '8y'),
])
def test_human_duration(seconds, text):
    assert tables.human_duration(seconds) == text


def test_wants_table_only_when_asked_first():
    kubectl = ('application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;'
               'g=meta.k8s.io,application/json')
    assert tables.wants_table(kubectl)
    assert not tables.wants_table('application/json')
    assert not tables.wants_table(None)
    assert not tables.wants_table('application/json, application/json;as=Table;v=v1;g=meta.k8s.io')


def test_deployment_table():
    three_hours_ago = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(hours=3, seconds=5)
    created = three_hours_ago.strftime('%Y-%m-%dT%H:%M:%SZ')
    deploy = {'metadata': {'name': 'web', 'namespace': 'default', 'creationTimestamp': created},
              'spec': {'replicas': 3, 'selector': {'matchLabels': {'app': 'web'}},
                       'template': {'spec': {'containers': [{'name': 'a', 'image': 'x:1'},
                                                            {'name': 'b', 'image': 'y:2'}]}}},
              'status': {'readyReplicas': 2, 'updatedReplicas': 3, 'availableReplicas': 2}}
    table = tables.table(BY_KEY['apps/deployments'].columns, [deploy], {'resourceVersion': '7'})
    assert table['kind'] == 'Table' and table['apiVersion'] == 'meta.k8s.io/v1'
    assert [(c['name'], c['priority']) for c in table['columnDefinitions']] == [
        ('Name', 0), ('Ready', 0), ('Up-to-date', 0), ('Available', 0), ('Age', 0), ('Containers', 1),
        ('Images', 1), ('Selector', 1)]
    cells = table['rows'][0]['cells']
    assert cells[:4] == ['web', '2/3', 3, 2] and cells[5:] == ['a,b', 'x:1,y:2', 'app=web']
    assert cells[4] == '3h'
    assert table['rows'][0]['object'] == {'kind': 'PartialObjectMetadata', 'apiVersion': 'meta.k8s.io/v1',
                                          'metadata': deploy['metadata']}


def test_pod_status_cell():
    pod = {'metadata': {'name': 'p'}, 'spec': {'containers': [{'name': 'a'}]},
           'status': {'phase': 'Pending', 'containerStatuses': [
               {'ready': False, 'restartCount': 2, 'state': {'waiting': {'reason': 'ImagePullBackOff'}}}]}}
    cells = tables.table(BY_KEY['/pods'].columns, [pod], {})['rows'][0]['cells']
    assert cells[:4] == ['p', '0/1', 'ImagePullBackOff', '2']


def test_kinds_without_a_printer_get_name_and_age():
    table = tables.table(BY_KEY['/serviceaccounts'].columns, [{'metadata': {'name': 'sa'}}], {})
    assert [c['name'] for c in table['columnDefinitions']] == ['Name', 'Age']
    assert table['rows'][0]['cells'] == ['sa', '<unknown>']


@pytest.mark.parametrize('include, expected', [
    ('Metadata', {'kind': 'PartialObjectMetadata', 'apiVersion': 'meta.k8s.io/v1',
                  'metadata': {'name': 'sa'}}),
    ('Object', {'kind': 'ServiceAccount', 'apiVersion': 'v1', 'metadata': {'name': 'sa'}}),
    ('None', None),
])
def test_rows_carry_what_include_object_asks(include, expected):
    sa = {'kind': 'ServiceAccount', 'apiVersion': 'v1', 'metadata': {'name': 'sa'}}
    row = tables.table(BY_KEY['/serviceaccounts'].columns, [sa], {}, include)['rows'][0]
    assert row['object'] == expected

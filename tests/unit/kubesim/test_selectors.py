"""Label and field selectors as the API server parses them."""

import pytest

from tests.kubesim.errors import ApiError
from tests.kubesim.selectors import (matches_fields, matches_labels, parse_field_selector,
                                     parse_label_selector, selector_from_label_selector_object)

pytestmark = pytest.mark.unit

LABELS = {'app': 'web', 'tier': 'fe', 'canary': ''}


@pytest.mark.parametrize('text, expected', [
    ('', True), ('app=web', True), ('app==web', True), ('app=db', False), ('app!=db', True),
    ('app!=web', False), ('missing!=x', True), ('tier in (fe,be)', True), ('tier in (be)', False),
    ('tier notin (be)', True), ('tier notin (fe, be)', False), ('canary', True), ('!canary', False),
    ('!missing', True), ('app=web,tier in (fe),!missing', True), ('app=web,tier=be', False),
])
def test_label_selectors(text, expected):
    assert matches_labels(parse_label_selector(text), LABELS) is expected


def test_bad_label_selector_is_400():
    with pytest.raises(ApiError) as err:
        parse_label_selector('app=web,(oops')
    assert err.value.code == 400


def test_selector_objects():
    sel = {'matchLabels': {'app': 'web'},
           'matchExpressions': [{'key': 'tier', 'operator': 'In', 'values': ['fe']},
                                {'key': 'gone', 'operator': 'DoesNotExist'}]}
    reqs = selector_from_label_selector_object(sel)
    assert matches_labels(reqs, LABELS)
    assert not matches_labels(reqs, {'app': 'web', 'tier': 'be'})


EVENT = {'metadata': {'name': 'e1', 'namespace': 'default'}, 'type': 'Normal', 'reason': 'ScalingReplicaSet',
         'involvedObject': {'kind': 'Deployment', 'name': 'web', 'uid': 'u1'}, 'source': {'component': 'dc'}}
POD = {'metadata': {'name': 'p'}, 'spec': {'nodeName': 'node-1', 'hostNetwork': False},
       'status': {'phase': 'Running'}}


@pytest.mark.parametrize('obj, text, expected', [
    (EVENT, 'involvedObject.name=web,involvedObject.kind=Deployment,involvedObject.uid=u1', True),
    (EVENT, 'involvedObject.name=api', False),
    (EVENT, 'type!=Warning,reason=ScalingReplicaSet,source=dc', True),
    (POD, 'spec.nodeName=node-1,status.phase==Running', True),
    (POD, 'spec.nodeName!=node-1', False),
    (POD, 'spec.hostNetwork=false', True),
    (POD, 'metadata.namespace=', True),
])
def test_field_selectors(obj, text, expected):
    assert matches_fields(parse_field_selector(text), obj) is expected


@pytest.mark.parametrize('text', ['spec.replicas=1', 'metadata.labels=x', 'nonsense'])
def test_unsupported_field_labels_are_400(text):
    with pytest.raises(ApiError) as err:
        parse_field_selector(text)
    assert err.value.code == 400

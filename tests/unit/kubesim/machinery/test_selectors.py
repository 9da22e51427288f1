"""Label and field selectors as the API server parses them."""

import pytest

from tests.kubesim.machinery.errors import ApiError
from tests.kubesim.apiserver.registry.resources import BY_KEY
from tests.kubesim.machinery.selectors import (matches_fields, matches_labels, parse_field_selector,
                                     parse_label_selector, selector_from_label_selector_object)

pytestmark = pytest.mark.unit

LABELS = {'app': 'web', 'tier': 'fe', 'canary': ''}


@pytest.mark.parametrize('text, expected', [
    ('', True), ('app=web', True), ('app==web', True), ('app=db', False), ('app!=db', True),
    ('app!=web', False), ('missing!=x', True), ('tier in (fe,be)', True), ('tier in (be)', False),
    ('tier notin (be)', True), ('tier notin (fe, be)', False), ('canary', True), ('!canary', False),
    ('!missing', True), ('app=web,tier in (fe),!missing', True), ('app=web,tier=be', False),
    ('tier in (,fe)', True), ('canary in ()', True), ('canary=', True), ('x in (in, notin)', False),
])
def test_label_selectors(text, expected):
    assert matches_labels(parse_label_selector(text), LABELS) is expected


@pytest.mark.parametrize('text, expected', [
    ('n>3', True), ('n>4', False), ('n<5', True), ('n<4', False), ('n>0', True), ('app>1', False),
    ('missing<9', False), ('n>3,app=web', True),
])
def test_greater_and_less_than_compare_integers(text, expected):
    assert matches_labels(parse_label_selector(text), {'n': '4', 'app': 'web'}) is expected


@pytest.mark.parametrize('text, message', [
    ('app=web,(oops', "found '(', expected: identifier after ','"),
    ('app===x', "unable to parse requirement: found '=', expected: identifier"),
    ('a=b,,c=d', "found ',', expected: identifier after ','"),
    ('a=b c', "found 'c', expected: ',' or 'end of string'"),
    ('-bad=1', 'unable to parse requirement: <nil>: Invalid value: "-bad": name part must consist of'),
    ('a in (b c)', "unable to parse requirement: found 'c', expected: ',' or ')'"),
    ('a=-b', 'unable to parse requirement: values[0][a]: Invalid value: "-b": a valid label must be'),
    ('n>x', "unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, "
            'the value must be an integer'),
    ('a~b', 'unable to parse requirement: <nil>: Invalid value: "a~b"'),
    ('app=', None),
])
def test_label_selector_syntax(text, message):
    if message is None:
        assert parse_label_selector(text) == [('app', '=', {''})]
        return
    with pytest.raises(ApiError) as err:
        parse_label_selector(text)
    assert err.value.code == 400
    assert err.value.message.startswith(message), err.value.message


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
    resource = BY_KEY['/events' if obj is EVENT else '/pods']
    assert matches_fields(parse_field_selector(text, resource), obj) is expected


@pytest.mark.parametrize('key, text, message', [
    ('/pods', 'spec.replicas=1', 'field label not supported: spec.replicas'),
    ('/pods', 'metadata.labels=x', 'field label not supported: metadata.labels'),
    ('/events', 'spec.nodeName=x', 'field label not supported: spec.nodeName'),
    ('apps/deployments', 'spec.replicas=1',
     '"spec.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"'),
    ('/pods', 'nonsense', "invalid selector: 'nonsense'; can't understand 'nonsense'"),
])
def test_unsupported_field_labels_are_400(key, text, message):
    with pytest.raises(ApiError) as err:
        parse_field_selector(text, BY_KEY[key])
    assert err.value.code == 400
    assert err.value.message == message

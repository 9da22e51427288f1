"""CustomResourceDefinitions and custom resources through the official Python client (typed,
CustomObjectsApi, dynamic) and raw HTTP: the CRD's status as its controllers write it, the custom
resources' discovery, decoding (defaults, pruning, fieldValidation), validation, status and scale
subresources, patches, watches and selectors, versions, and the CRD's deletion (the kubectl side
is tests/conformance/test_kubectl_custom_resources.py)."""

import copy
import json
import threading

import pytest

from .conftest import wait_for

pytestmark = pytest.mark.kubesim

CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions'
WIDGETS = '/apis/example.com/v1/namespaces/default/widgets'
SMP = 'application/strategic-merge-patch+json'
MERGE = 'application/merge-patch+json'
JSON_PATCH = 'application/json-patch+json'
APPLY = 'application/apply-patch+yaml'


def widget_crd(
    group='example.com',
    plural='widgets',
    kind='Widget',
    scope='Namespaced',
    status=True,
    scale=True,
    versions=None,
):
    schema = {
        'type': 'object',
        'properties': {
            'spec': {
                'type': 'object',
                'required': ['size'],
                'properties': {
                    'replicas': {'type': 'integer', 'minimum': 0, 'maximum': 3, 'default': 1},
                    'size': {'type': 'string', 'enum': ['small', 'large']},
                    'code': {'type': 'string', 'maxLength': 5, 'pattern': '^[a-z]+$'},
                    'color': {'type': 'string'},
                    'options': {
                        'type': 'object',
                        'properties': {
                            'retries': {'type': 'integer', 'default': 3},
                            'mode': {'type': 'string', 'default': 'fast'},
                        },
                    },
                    'extra': {'type': 'object', 'x-kubernetes-preserve-unknown-fields': True},
                    'tags': {'type': 'array', 'maxItems': 2, 'items': {'type': 'string'}},
                    'ports': {
                        'type': 'array',
                        'x-kubernetes-list-type': 'map',
                        'x-kubernetes-list-map-keys': ['name'],
                        'items': {
                            'type': 'object',
                            'required': ['name'],
                            'properties': {'name': {'type': 'string'}, 'port': {'type': 'integer'}},
                        },
                    },
                },
            },
            'status': {
                'type': 'object',
                'properties': {
                    'replicas': {'type': 'integer'},
                    'selector': {'type': 'string'},
                    'phase': {'type': 'string'},
                },
            },
        },
    }
    subresources = {}
    if status:
        subresources['status'] = {}
    if scale:
        subresources['scale'] = {
            'specReplicasPath': '.spec.replicas',
            'statusReplicasPath': '.status.replicas',
            'labelSelectorPath': '.status.selector',
        }
    version = {
        'name': 'v1',
        'served': True,
        'storage': True,
        'schema': {'openAPIV3Schema': schema},
        'additionalPrinterColumns': [
            {'name': 'Replicas', 'type': 'integer', 'jsonPath': '.spec.replicas'},
            {'name': 'Phase', 'type': 'string', 'jsonPath': '.status.phase'},
            {'name': 'Age', 'type': 'date', 'jsonPath': '.metadata.creationTimestamp'},
        ],
        'selectableFields': [{'jsonPath': '.spec.color'}],
    }
    if subresources:
        version['subresources'] = subresources
    return {
        'apiVersion': 'apiextensions.k8s.io/v1',
        'kind': 'CustomResourceDefinition',
        'metadata': {'name': f'{plural}.{group}'},
        'spec': {
            'group': group,
            'scope': scope,
            'names': {'plural': plural, 'kind': kind, 'shortNames': ['wd'], 'categories': ['all']},
            'versions': versions or [version],
        },
    }


def warnings_of(http, path, body):
    """(status, the Warning headers, the answer) of a POST."""
    import urllib.error
    import urllib.request

    req = urllib.request.Request(
        http.url + path,
        data=json.dumps(body).encode(),
        method='POST',
        headers={'Content-Type': 'application/json'},
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.headers.get_all('Warning') or [], json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, err.headers.get_all('Warning') or [], json.loads(err.read())


def widget(name, **spec):
    return {
        'apiVersion': 'example.com/v1',
        'kind': 'Widget',
        'metadata': {'name': name},
        'spec': {'size': 'small', **spec},
    }


@pytest.fixture
def crd(http):
    status, _h, body = http.post(CRDS, widget_crd())
    assert status == 201, body
    return body


def test_a_crd_is_named_established_and_served_at_once(http, crd):
    assert crd['status'] == {
        'conditions': None,
        'acceptedNames': {'plural': '', 'kind': ''},
        'storedVersions': ['v1'],
    }
    assert crd['spec']['names']['singular'] == 'widget' and crd['spec']['names']['listKind'] == 'WidgetList'
    assert crd['spec']['conversion'] == {'strategy': 'None'}
    status, _h, live = http.get(f'{CRDS}/widgets.example.com')
    conditions = {c['type']: (c['status'], c['reason'], c['message']) for c in live['status']['conditions']}
    assert conditions == {
        'NamesAccepted': ('True', 'NoConflicts', 'no conflicts found'),
        'Established': ('True', 'InitialNamesAccepted', 'the initial names have been accepted'),
    }
    assert live['status']['acceptedNames'] == {
        'plural': 'widgets',
        'singular': 'widget',
        'shortNames': ['wd'],
        'kind': 'Widget',
        'listKind': 'WidgetList',
        'categories': ['all'],
    }
    managers = {(m['manager'], m.get('subresource')) for m in live['metadata']['managedFields']}
    assert ('kube-apiserver', 'status') in managers
    _s, _h, group = http.get('/apis/example.com')
    assert group['preferredVersion'] == {'groupVersion': 'example.com/v1', 'version': 'v1'}
    _s, _h, groups = http.get('/apis')
    assert 'example.com' in [g['name'] for g in groups['groups']]
    _s, _h, listing = http.get('/apis/example.com/v1')
    assert listing['resources'] == [
        {
            'name': 'widgets',
            'singularName': 'widget',
            'namespaced': True,
            'kind': 'Widget',
            'verbs': ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
            'shortNames': ['wd'],
            'categories': ['all'],
            'storageVersionHash': 'gIwvi5rymmg=',  # of example.com/v1/Widget, the storage version
        },
        {
            'name': 'widgets/status',
            'singularName': '',
            'namespaced': True,
            'kind': 'Widget',
            'verbs': ['get', 'patch', 'update'],
        },
        {
            'name': 'widgets/scale',
            'singularName': '',
            'namespaced': True,
            'kind': 'Scale',
            'verbs': ['get', 'patch', 'update'],
            'group': 'autoscaling',
            'version': 'v1',
        },
    ]
    _s, _h, openapi = http.get('/openapi/v3')
    assert 'apis/example.com/v1' in openapi['paths']
    _s, _h, doc = http.get('/openapi/v3/apis/example.com/v1')
    patch = doc['paths']['/apis/example.com/v1/namespaces/{namespace}/widgets/{name}']['patch']
    assert 'fieldValidation' in [p['name'] for p in patch['parameters']]
    assert SMP not in patch['requestBody']['content']


def test_crd_validation_speaks_the_api_servers_words(http):
    bad = widget_crd()
    bad['metadata']['name'] = 'gadgets.example.com'
    bad['spec']['versions'][0]['storage'] = False
    status, _h, body = http.post(CRDS, bad)
    assert status == 422 and body['details']['kind'] == 'CustomResourceDefinition'
    fields = {(c['field'], c['message'].rsplit(': ', 1)[-1]) for c in body['details']['causes']}
    assert ('metadata.name', 'must be spec.names.plural+"."+spec.group') in fields
    assert ('spec.versions', 'must have exactly one version marked as storage version') in fields
    assert ('status.storedVersions', 'must have at least one stored version') in fields
    loose = widget_crd(group='loose.example.com')
    loose['spec']['versions'][0]['schema']['openAPIV3Schema']['properties']['spec']['properties']['size'] = {
        'enum': ['a']
    }
    loose['spec']['versions'][0]['schema']['openAPIV3Schema']['properties']['spec']['properties']['list'] = {
        'type': 'array'
    }
    status, _h, body = http.post(CRDS, loose)
    assert status == 422
    assert (
        'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[list].items: Required value: '
        'must be specified'
    ) in body['message']
    assert (
        'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size].type: Required value: '
        'must not be empty for specified object fields'
    ) in body['message']
    scope = widget_crd(group='scope.example.com', scope='Global')
    status, _h, body = http.post(CRDS, scope)
    assert status == 422
    assert (
        'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"'
        in body['message']
    )
    status, _h, body = http.post(
        CRDS + '?fieldValidation=Strict', dict(widget_crd(group='s.example.com'), bogus=1)
    )
    assert status == 400
    assert body['message'] == (
        'CustomResourceDefinition in version "v1" cannot be handled as a '
        'CustomResourceDefinition: strict decoding error: unknown field "bogus"'
    )


def test_the_schema_round_trips_as_jsonschemaprops(http):
    crd = widget_crd(group='round.example.com')
    spec_schema = crd['spec']['versions'][0]['schema']['openAPIV3Schema']['properties']['spec']
    spec_schema['properties']['quota'] = {
        'x-kubernetes-int-or-string': True,
        'anyOf': [{'type': 'integer'}, {'type': 'string'}],
        'description': 'q',
        'bogusKeyword': 1,
    }
    spec_schema['properties']['ratio'] = {
        'type': 'number',
        'maximum': 2.0,
        'exclusiveMinimum': True,
        'minimum': 0.5,
    }
    spec_schema['properties']['labels'] = {
        'type': 'object',
        'additionalProperties': {'type': 'string'},
        'x-kubernetes-map-type': 'atomic',
    }
    spec_schema['x-kubernetes-validations'] = [{'rule': 'self.replicas >= 0', 'message': 'm'}]
    status, warnings, body = warnings_of(http, CRDS, crd)
    assert status == 201, body
    assert warnings == [
        '299 - "unknown field \\"spec.versions[0].schema.openAPIV3Schema.'
        'properties.spec.properties.quota.bogusKeyword\\""'
    ]
    got = body['spec']['versions'][0]['schema']['openAPIV3Schema']['properties']['spec']
    assert got['properties']['quota'] == {
        'description': 'q',
        'anyOf': [{'type': 'integer'}, {'type': 'string'}],
        'x-kubernetes-int-or-string': True,
    }
    assert list(got['properties']['ratio']) == ['type', 'maximum', 'minimum', 'exclusiveMinimum']
    assert got['properties']['ratio']['maximum'] == 2
    assert got['properties']['labels'] == spec_schema['properties']['labels']
    assert got['x-kubernetes-validations'] == [{'rule': 'self.replicas >= 0', 'message': 'm'}]
    assert list(got)[:2] == ['type', 'required']


def test_defaults_pruning_and_field_validation(http, crd):
    body = widget('w1', options={}, bogus=1, extra={'anything': {'goes': [1]}})
    body['metadata']['bogus'] = 2
    status, warnings, created = warnings_of(http, WIDGETS, body)
    assert status == 201, created
    assert warnings == [
        '299 - "unknown field \\"metadata.bogus\\""',
        '299 - "unknown field \\"spec.bogus\\""',
    ]
    assert created['spec'] == {
        'extra': {'anything': {'goes': [1]}},
        'options': {'mode': 'fast', 'retries': 3},
        'replicas': 1,
        'size': 'small',
    }
    assert created['metadata']['generation'] == 1 and 'status' not in created
    status, _h, err = http.post(WIDGETS + '?fieldValidation=Strict', widget('w2', bogus=1))
    assert status == 400
    assert err['message'] == (
        'Widget in version "v1" cannot be handled as a Widget: strict decoding error: '
        'unknown field "spec.bogus"'
    )
    status, headers, _b = http.post(WIDGETS + '?fieldValidation=Ignore', widget('w3', bogus=1))
    assert status == 201 and 'Warning' not in headers


def test_schema_validation_errors(http, crd):
    status, _h, err = http.post(
        WIDGETS, widget('bad', replicas=5, size='huge', code='ABCDEFG', tags=['a', 'b', 'c'])
    )
    assert status == 422 and err['reason'] == 'Invalid'
    assert err['details']['name'] == 'bad' and err['details']['group'] == 'example.com'
    assert err['details']['kind'] == 'Widget'
    causes = {c['field']: (c['reason'], c['message']) for c in err['details']['causes']}
    assert causes['spec.replicas'] == (
        'FieldValueInvalid',
        'Invalid value: 5: spec.replicas in body should be less than or equal to 3',
    )
    assert causes['spec.size'] == (
        'FieldValueNotSupported',
        'Unsupported value: "huge": supported values: "small", "large"',
    )
    codes = [(c['reason'], c['message']) for c in err['details']['causes'] if c['field'] == 'spec.code']
    assert codes == [
        ('FieldValueTooLong', 'Too long: may not be more than 5 bytes'),
        ('FieldValueInvalid', 'Invalid value: "ABCDEFG": spec.code in body should match \'^[a-z]+$\''),
    ]
    assert causes['spec.tags'] == ('FieldValueTooMany', 'Too many: 3: must have at most 2 items')
    assert err['message'].startswith('Widget.example.com "bad" is invalid: ')
    status, _h, err = http.post(
        WIDGETS,
        {
            'apiVersion': 'example.com/v1',
            'kind': 'Widget',
            'metadata': {'name': 'bad'},
            'spec': {'replicas': 'two'},
        },
    )
    causes = [(c['field'], c['reason'], c['message']) for c in err['details']['causes']]
    assert causes == [
        (
            'spec.replicas',
            'FieldValueTypeInvalid',
            'Invalid value: "string": spec.replicas in body must be of type integer: "string"',
        ),
        ('spec.size', 'FieldValueRequired', 'Required value'),
        # the scale subresource's own check of specReplicasPath (validator.go)
        (
            '.spec.replicas',
            'FieldValueInvalid',
            'Invalid value: 0: .spec.replicas accessor error: two is of the type string, expected int64',
        ),
    ]
    status, _h, err = http.post(WIDGETS, widget('dup', ports=[{'name': 'a'}, {'name': 'a', 'port': 1}]))
    assert status == 422 and err['details']['causes'] == [
        {
            'reason': 'FieldValueDuplicate',
            'message': 'Duplicate value: {"name":"a"}',
            'field': 'spec.ports[1]',
        }
    ]


def test_status_subresource_and_generation(http, crd):
    status, _h, created = http.post(WIDGETS, dict(widget('w'), status={'phase': 'Set'}))
    assert 'status' not in created
    path = f'{WIDGETS}/w'
    _s, _h, patched = http.patch(
        path, {'spec': {'replicas': 2}, 'status': {'phase': 'Main'}}, content_type=MERGE
    )
    assert patched['metadata']['generation'] == 2 and 'status' not in patched
    _s, _h, patched = http.patch(
        path + '/status',
        {'spec': {'replicas': 3}, 'status': {'phase': 'Ready'}, 'metadata': {'labels': {'a': 'b'}}},
        content_type=MERGE,
    )
    assert patched['status'] == {'phase': 'Ready'} and patched['spec']['replicas'] == 2
    assert patched['metadata']['generation'] == 2 and 'labels' not in patched['metadata']
    _s, _h, patched = http.patch(path, {'metadata': {'labels': {'a': 'b'}}}, content_type=MERGE)
    assert patched['metadata']['generation'] == 2 and patched['status'] == {'phase': 'Ready'}
    status, _h, err = http.patch(path + '/status', {'status': {'replicas': 'x'}}, content_type=MERGE)
    assert status == 422 and err['details']['causes'][0]['field'] == 'status.replicas'
    _s, _h, got = http.get(path + '/status')
    assert got['status'] == {'phase': 'Ready'}


def test_without_status_subresource_status_is_an_ordinary_field(http):
    http.post(CRDS, widget_crd(group='plain.example.com', status=False, scale=False))
    path = '/apis/plain.example.com/v1/namespaces/default/widgets'
    body = dict(widget('p'), apiVersion='plain.example.com/v1', status={'phase': 'New'})
    status, _h, created = http.post(path, body)
    assert status == 201 and created['status'] == {'phase': 'New'}
    _s, _h, patched = http.patch(path + '/p', {'status': {'phase': 'Done'}}, content_type=MERGE)
    assert patched['status'] == {'phase': 'Done'} and patched['metadata']['generation'] == 2
    status, _h, _b = http.get(path + '/p/status')
    assert status == 404


def test_scale_subresource(http, crd):
    http.post(WIDGETS, widget('s', replicas=2))
    http.patch(f'{WIDGETS}/s/status', {'status': {'replicas': 1, 'selector': 'app=s'}}, content_type=MERGE)
    status, _h, scale = http.get(f'{WIDGETS}/s/scale')
    assert status == 200 and scale['kind'] == 'Scale' and scale['apiVersion'] == 'autoscaling/v1'
    assert scale['spec'] == {'replicas': 2} and scale['status'] == {'replicas': 1, 'selector': 'app=s'}
    scale['spec']['replicas'] = 3
    status, _h, updated = http.put(f'{WIDGETS}/s/scale', scale)
    assert status == 200 and updated['spec'] == {'replicas': 3}
    _s, _h, obj = http.get(f'{WIDGETS}/s')
    assert obj['spec']['replicas'] == 3 and obj['metadata']['generation'] == 2
    status, _h, err = http.patch(f'{WIDGETS}/s/scale', {'spec': {'replicas': 4}}, content_type=MERGE)
    assert status == 422 and 'spec.replicas in body should be less than or equal to 3' in err['message']


def test_patches_and_server_side_apply(http, crd):
    http.post(WIDGETS, widget('p', tags=['a']))
    path = f'{WIDGETS}/p'
    status, _h, err = http.patch(path, {'spec': {'replicas': 2}}, content_type=SMP)
    assert status == 415 and err['reason'] == 'UnsupportedMediaType'
    assert err['message'] == (
        'the body of the request was in an unknown format - accepted media types include: '
        'application/json-patch+json, application/merge-patch+json, '
        'application/apply-patch+yaml'
    )
    status, _h, got = http.patch(
        path,
        [
            {'op': 'test', 'path': '/spec/size', 'value': 'small'},
            {'op': 'add', 'path': '/spec/tags/-', 'value': 'b'},
        ],
        content_type=JSON_PATCH,
    )
    assert status == 200 and got['spec']['tags'] == ['a', 'b']
    status, _h, err = http.patch(
        path, [{'op': 'test', 'path': '/spec/size', 'value': 'large'}], content_type=JSON_PATCH
    )
    assert status == 422
    config = {
        'apiVersion': 'example.com/v1',
        'kind': 'Widget',
        'metadata': {'name': 'p'},
        'spec': {'size': 'small', 'ports': [{'name': 'http', 'port': 80}]},
    }
    status, _h, applied = http.patch(
        path + '?fieldManager=one', json.dumps(config).encode(), content_type=APPLY
    )
    assert status == 200, applied
    other = copy.deepcopy(config)
    other['spec'] = {'size': 'small', 'ports': [{'name': 'https', 'port': 443}]}
    status, _h, applied = http.patch(
        path + '?fieldManager=two', json.dumps(other).encode(), content_type=APPLY
    )
    assert status == 200 and [p['name'] for p in applied['spec']['ports']] == ['http', 'https']
    clash = copy.deepcopy(config)
    clash['spec']['ports'][0]['port'] = 8080
    status, _h, err = http.patch(path + '?fieldManager=two', json.dumps(clash).encode(), content_type=APPLY)
    assert status == 409
    assert err['message'] == (
        'Apply failed with 1 conflict: conflict with "one": .spec.ports[name="http"].port'
    )
    bogus = dict(config, spec={'size': 'small', 'bogus': 1})
    status, _h, err = http.patch(path + '?fieldManager=one', json.dumps(bogus).encode(), content_type=APPLY)
    assert status == 400
    assert err['message'] == (
        'failed to create typed patch object (default/p; example.com/v1, Kind=Widget): '
        '.spec.bogus: field not declared in schema'
    )
    new = dict(config, metadata={'name': 'fresh'})
    status, _h, created = http.patch(
        f'{WIDGETS}/fresh?fieldManager=one', json.dumps(new).encode(), content_type=APPLY
    )
    assert status == 201 and created['spec']['replicas'] == 1


def test_watch_selectors_paging_and_dry_run(http, crd):
    for name, color in (('a', 'red'), ('b', 'blue'), ('c', 'red')):
        body = widget(name, color=color)
        body['metadata']['labels'] = {'color': color}
        assert http.post(WIDGETS, body)[0] == 201
    _s, _h, listed = http.get(WIDGETS + '?labelSelector=color%3Dred')
    assert listed['kind'] == 'WidgetList' and [i['metadata']['name'] for i in listed['items']] == ['a', 'c']
    _s, _h, listed = http.get(WIDGETS + '?fieldSelector=spec.color%3Dblue')
    assert [i['metadata']['name'] for i in listed['items']] == ['b']
    status, _h, err = http.get(WIDGETS + '?fieldSelector=spec.size%3Dsmall')
    assert status == 400
    _s, _h, page = http.get(WIDGETS + '?limit=2')
    assert len(page['items']) == 2 and page['metadata']['remainingItemCount'] == 1
    _s, _h, rest = http.get(WIDGETS + '?limit=2&continue=' + page['metadata']['continue'])
    assert [i['metadata']['name'] for i in rest['items']] == ['c']
    status, _h, dry = http.post(WIDGETS + '?dryRun=All', widget('dry'))
    assert status == 201 and http.get(f'{WIDGETS}/dry')[0] == 404
    rv = page['metadata']['resourceVersion']
    http.patch(f'{WIDGETS}/a', {'spec': {'replicas': 2}}, content_type=MERGE)
    status, _h, raw = http.get(f'{WIDGETS}?watch=1&resourceVersion={rv}&timeoutSeconds=1')
    events = [json.loads(line) for line in raw.splitlines()] if isinstance(raw, str) else [raw]
    assert [(e['type'], e['object']['metadata']['name']) for e in events] == [('MODIFIED', 'a')]
    status, headers, got = http.get(
        f'{WIDGETS}/a', headers={'Accept': 'application/vnd.kubernetes.protobuf, application/json'}
    )
    assert (
        status == 200 and headers['Content-Type'].startswith('application/json') and got['kind'] == 'Widget'
    )
    status, _h, err = http.request(
        'POST', WIDGETS, b'\x6b\x38\x73\x00', content_type='application/vnd.kubernetes.protobuf'
    )
    assert status == 415


def test_versions_convert_with_strategy_none(http):
    crd = widget_crd(group='multi.example.com', scale=False)
    v1 = crd['spec']['versions'][0]
    beta = copy.deepcopy(v1)
    beta.update(name='v1beta1', storage=False)
    beta['schema']['openAPIV3Schema']['properties']['spec']['properties']['legacy'] = {'type': 'string'}
    crd['spec']['versions'] = [beta, v1]
    assert http.post(CRDS, crd)[0] == 201
    _s, _h, group = http.get('/apis/multi.example.com')
    assert [v['version'] for v in group['versions']] == ['v1', 'v1beta1']
    assert group['preferredVersion']['version'] == 'v1'
    body = dict(widget('m', legacy='x'), apiVersion='multi.example.com/v1beta1')
    status, _h, created = http.post('/apis/multi.example.com/v1beta1/namespaces/default/widgets', body)
    assert status == 201 and created['apiVersion'] == 'multi.example.com/v1beta1'
    status, _h, stored = http.get('/apis/multi.example.com/v1/namespaces/default/widgets/m')
    assert stored['apiVersion'] == 'multi.example.com/v1' and 'legacy' not in stored['spec']
    assert stored['spec']['replicas'] == 1


def test_deleting_the_crd_deletes_its_resources_and_stops_serving(http, crd, kubesim):
    http.post(WIDGETS, widget('x'))
    held = widget('held')
    held['metadata']['finalizers'] = ['example.com/hold']
    http.post(WIDGETS, held)
    status, _h, answer = http.delete(f'{CRDS}/widgets.example.com')
    assert status == 200 and answer['metadata']['deletionTimestamp']
    assert answer['metadata']['finalizers'] == ['customresourcecleanup.apiextensions.k8s.io']
    _s, _h, crd_now = http.get(f'{CRDS}/widgets.example.com')
    terminating = [c for c in crd_now['status']['conditions'] if c['type'] == 'Terminating']
    assert terminating[0]['reason'] == 'InstanceDeletionInProgress'
    assert http.get(f'{WIDGETS}/x')[0] == 404
    status, _h, err = http.post(WIDGETS, widget('late'))
    assert status == 403
    assert err['message'] == (
        'widgets.example.com "late" is forbidden: create not allowed while custom resource '
        'definition is terminating'
    )
    http.patch(f'{WIDGETS}/held', {'metadata': {'finalizers': None}}, content_type=MERGE)
    wait_for(lambda: http.get(f'{CRDS}/widgets.example.com')[0] == 404, 'the CRD to go')
    status, _h, body = http.get(WIDGETS)
    assert status == 404 and http.get('/apis/example.com/v1')[0] == 404
    assert kubesim.call(lambda: [k for k in kubesim.store.objects if k[0] == 'example.com/widgets']) == []


def test_a_crd_lives_in_its_own_kubesim_and_namespaces_delete_their_resources(http, crd, kubesim_factory):
    from .conftest import Http

    other = kubesim_factory(nodes=1)
    assert Http(other.url).get('/apis/example.com/v1')[0] == 404
    assert 'example.com' not in [g['name'] for g in Http(other.url).get('/apis')[2]['groups']]
    http.post('/api/v1/namespaces', {'metadata': {'name': 'gone'}})
    http.post('/apis/example.com/v1/namespaces/gone/widgets', widget('in-gone'))
    http.delete('/api/v1/namespaces/gone')
    wait_for(lambda: http.get('/api/v1/namespaces/gone')[0] == 404, 'the namespace to go')


def test_fault_targets_and_store_listeners_see_custom_resources(http, crd, kubesim):
    kubesim.set_faults('conflict=example.com/widgets/default/f:1')
    http.post(WIDGETS, widget('f'))
    status, _h, err = http.patch(f'{WIDGETS}/f', {'spec': {'replicas': 2}}, content_type=MERGE)
    assert status == 409 and err['details']['group'] == 'example.com'
    assert http.patch(f'{WIDGETS}/f', {'spec': {'replicas': 2}}, content_type=MERGE)[0] == 200
    seen = []
    kubesim.call(
        kubesim.store.listeners.append,
        lambda typ, key, obj: key == 'example.com/widgets' and seen.append((typ, obj['metadata']['name'])),
    )
    http.post(WIDGETS, widget('g'))
    assert seen == [('ADDED', 'g')]
    row = kubesim.call(kubesim.store.registry.strategy, 'example.com/widgets')
    assert row.kind == 'Widget' and row.custom.storage_version == 'v1'


# ---- the official Python client ------------------------------------------------------------------------
@pytest.fixture
def api(kubesim):
    import kubernetes

    return kubernetes.config.new_client_from_config(str(kubesim.kubeconfig))


def test_python_client_typed_and_custom_objects(api):
    from kubernetes import client

    ext = client.ApiextensionsV1Api(api)
    created = ext.create_custom_resource_definition(widget_crd())
    assert created.metadata.name == 'widgets.example.com' and created.status.stored_versions == ['v1']
    wait_for(
        lambda: any(
            c.type == 'Established' and c.status == 'True'
            for c in ext.read_custom_resource_definition('widgets.example.com').status.conditions or []
        ),
        'the CRD to be established',
    )
    schema = (
        ext.read_custom_resource_definition('widgets.example.com').spec.versions[0].schema.open_apiv3_schema
    )
    assert schema.properties['spec'].properties['ports'].x_kubernetes_list_type == 'map'
    objects = client.CustomObjectsApi(api)
    made = objects.create_namespaced_custom_object('example.com', 'v1', 'default', 'widgets', widget('py'))
    assert made['spec']['replicas'] == 1
    got = objects.get_namespaced_custom_object('example.com', 'v1', 'default', 'widgets', 'py')
    assert got['metadata']['uid'] == made['metadata']['uid']
    listed = objects.list_namespaced_custom_object('example.com', 'v1', 'default', 'widgets')
    assert [i['metadata']['name'] for i in listed['items']] == ['py']
    merged = objects.patch_namespaced_custom_object(
        'example.com', 'v1', 'default', 'widgets', 'py', {'spec': {'replicas': 2}}
    )
    assert merged['spec']['replicas'] == 2
    api.set_default_header('Content-Type', JSON_PATCH)
    patched = objects.patch_namespaced_custom_object(
        'example.com',
        'v1',
        'default',
        'widgets',
        'py',
        [{'op': 'replace', 'path': '/spec/size', 'value': 'large'}],
    )
    api.default_headers.pop('Content-Type')
    assert patched['spec']['size'] == 'large'
    status = objects.patch_namespaced_custom_object_status(
        'example.com', 'v1', 'default', 'widgets', 'py', {'status': {'phase': 'Ready'}}
    )
    assert status['status'] == {'phase': 'Ready'}
    with pytest.raises(client.ApiException) as err:
        objects.patch_namespaced_custom_object(
            'example.com', 'v1', 'default', 'widgets', 'py', {'spec': {'replicas': 9}}
        )
    assert err.value.status == 422
    objects.delete_namespaced_custom_object('example.com', 'v1', 'default', 'widgets', 'py')
    assert objects.list_namespaced_custom_object('example.com', 'v1', 'default', 'widgets')['items'] == []


def test_the_dynamic_client_finds_a_kind_created_after_it_was_built(api, tmp_path):
    from kubernetes import client, dynamic

    dyn = dynamic.DynamicClient(api, cache_file=str(tmp_path / 'discovery.json'))
    dyn.resources.get(api_version='v1', kind='ConfigMap')  # discovery cached before the CRD exists
    client.ApiextensionsV1Api(api).create_custom_resource_definition(widget_crd())
    widgets = dyn.resources.get(api_version='example.com/v1', kind='Widget')
    assert widgets.namespaced and widgets.subresources['status'].kind == 'Widget'
    made = widgets.create(body=widget('dyn'), namespace='default')
    assert made.spec.replicas == 1
    events, done = [], threading.Event()

    def watch():
        # From the object's version: the patch is seen however late the watch starts.
        for event in widgets.watch(namespace='default', timeout=2,
                                   resource_version=made.metadata.resourceVersion):
            events.append((event['type'], event['object'].metadata.name))
        done.set()

    threading.Thread(target=watch, daemon=True).start()
    widgets.patch(body={'spec': {'replicas': 2}}, name='dyn', namespace='default', content_type=MERGE)
    wait_for(lambda: ('MODIFIED', 'dyn') in events, 'the watch to see the change')

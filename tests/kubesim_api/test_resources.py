"""CRUD semantics through a real socket: errors, conflicts, generation, subresources, deletion."""

import time

import pytest

from .conftest import configmap, deployment

pytestmark = pytest.mark.kubesim

CMS = '/api/v1/namespaces/default/configmaps'
DEPLOYS = '/apis/apps/v1/namespaces/default/deployments'
RCS = '/api/v1/namespaces/default/replicationcontrollers'


def is_status(body, code, reason):
    return (body['kind'] == 'Status' and body['status'] == 'Failure' and body['code'] == code
            and body.get('reason') == reason)


# ---- errors ------------------------------------------------------------------------------------

@pytest.mark.parametrize('path', ['/nope', '/apis/policy/v1beta1', '/apis/nope', '/api/v2/pods'])
def test_paths_outside_the_api_are_the_plain_404(http, path):
    # Go's http.NotFound, from the API server's not-found handler: no Status.
    status, headers, body = http.get(path)
    assert (status, body) == (404, '404 page not found\n')
    assert headers['Content-Type'].startswith('text/plain')


@pytest.mark.parametrize('path', ['/apis/apps/v1/widgets', '/api/v1/namespaces/default/configmaps/a/b/c',
                                  '/apis/apps/v1/namespaces/default/deployments/web/logs'])
def test_unknown_paths_in_a_served_group_version_are_404_status(http, path):
    # go-restful finds no route under the group-version's root; the API server's service error
    # handler answers a Status with empty details.
    status, headers, body = http.get(path)
    assert status == 404 and is_status(body, 404, 'NotFound')
    assert body['message'] == 'the server could not find the requested resource' and body['details'] == {}
    assert headers['Content-Type'].startswith('application/json')


def test_not_found_names_the_resource(http):
    status, _, body = http.get(f'{DEPLOYS}/missing')
    assert status == 404 and is_status(body, 404, 'NotFound')
    assert body['message'] == 'deployments.apps "missing" not found'
    assert body['details'] == {'name': 'missing', 'group': 'apps', 'kind': 'deployments'}


def test_method_not_allowed(http):
    http.post(CMS, configmap('a'))
    status, _, body = http.post(f'{CMS}/a', configmap('a'))
    assert status == 405 and is_status(body, 405, 'MethodNotAllowed')
    status, _, body = http.put(CMS, configmap('a'))
    assert status == 405


def test_already_exists(http):
    assert http.post(CMS, configmap('a'))[0] == 201
    status, _, body = http.post(CMS, configmap('a'))
    assert status == 409 and is_status(body, 409, 'AlreadyExists')


def test_generate_name(http):
    status, _, body = http.post(CMS, {'metadata': {'generateName': 'cfg-'}, 'data': {}})
    assert status == 201 and body['metadata']['name'].startswith('cfg-') and len(body['metadata']['name']) > 4


def test_namespace_mismatch_is_400(http):
    body = configmap('a')
    body['metadata']['namespace'] = 'kube-system'
    status, _, err = http.post(CMS, body)
    assert status == 400 and is_status(err, 400, 'BadRequest')
    assert 'namespace' in err['message']


def test_name_mismatch_on_update_is_400(http):
    http.post(CMS, configmap('a'))
    status, _, err = http.put(f'{CMS}/a', configmap('b'))
    assert status == 400 and 'does not match the name on the URL' in err['message']


def test_kind_mismatch_is_400(http):
    status, _, err = http.post(CMS, deployment())
    assert status == 400 and is_status(err, 400, 'BadRequest')


def test_create_in_missing_namespace_is_404(http):
    status, _, err = http.post('/api/v1/namespaces/ghost/configmaps', configmap('a'))
    assert status == 404 and err['message'] == 'namespaces "ghost" not found'


def test_malformed_body_is_400(http):
    status, _, err = http.request('POST', CMS, b'{not json', content_type='application/json')
    assert status == 400 and is_status(err, 400, 'BadRequest')


def test_yaml_body_is_accepted(http):
    status, _, body = http.request('POST', CMS, b'metadata: {name: y}\ndata: {a: b}\n',
                                   content_type='application/yaml')
    assert status == 201 and body['data'] == {'a': 'b'}


def test_stale_resource_version_is_409_conflict(http):
    _, _, first = http.post(CMS, configmap('a'))
    first['data'] = {'k': 'v2'}
    assert http.put(f'{CMS}/a', first)[0] == 200
    first['data'] = {'k': 'v3'}  # still carries the old resourceVersion
    status, _, err = http.put(f'{CMS}/a', first)
    assert status == 409 and is_status(err, 409, 'Conflict')
    assert 'the object has been modified' in err['message']
    stale = {'metadata': {'resourceVersion': first['metadata']['resourceVersion']}, 'data': {'k': 'v4'}}
    status, _, _ = http.patch(f'{CMS}/a', stale, content_type='application/merge-patch+json')
    assert status == 409, 'a resourceVersion inside a patch is a precondition'


def test_uid_precondition_in_update(http):
    _, _, obj = http.post(CMS, configmap('a'))
    obj['metadata']['uid'] = 'not-the-uid'
    status, _, err = http.put(f'{CMS}/a', obj)
    assert status == 409 and 'Precondition failed: UID' in err['message']


def test_unsupported_patch_types(http):
    http.post(CMS, configmap('a'))
    status, _, err = http.patch(f'{CMS}/a', {'data': {}}, content_type='text/plain')
    assert status == 415 and is_status(err, 415, 'UnsupportedMediaType')
    # Server-side apply needs a field manager (and apiVersion and kind in the configuration).
    status, _, err = http.patch(f'{CMS}/a', {'apiVersion': 'v1', 'kind': 'ConfigMap', 'data': {}},
                                content_type='application/apply-patch+yaml')
    assert status == 400 and 'must specify a fieldManager' in err['message']


def test_failed_json_patch_test_is_422(http):
    http.post(CMS, configmap('a'))
    status, _, err = http.patch(f'{CMS}/a', [{'op': 'test', 'path': '/data/k', 'value': 'nope'}],
                                content_type='application/json-patch+json')
    # As the API server's patch handler answers: a generic 422 Invalid with no causes.
    assert status == 422 and is_status(err, 422, 'Invalid')
    assert err['message'] == 'the server rejected our request due to an error in our request'
    assert err['details'] == {}


def test_unexpected_exception_is_a_500_status_without_traceback(kubesim, http, capfd):
    def explode(resource, obj, old):
        raise RuntimeError('boom')

    kubesim.call(setattr, kubesim.store, 'admission', explode)
    status, _, err = http.post(CMS, configmap('a'))
    assert status == 500 and is_status(err, 500, 'InternalError')
    assert 'Traceback' not in err['message'] and 'boom' in err['message']
    assert 'Traceback' in capfd.readouterr().err, 'the traceback goes to stderr'


# ---- lists ---------------------------------------------------------------------------------------

def test_list_shape_and_selectors(http):
    for name, labels in (('a', {'tier': 'web', 'env': 'prod'}), ('b', {'tier': 'db', 'env': 'prod'}),
                         ('c', {'tier': 'web'})):
        http.post(CMS, configmap(name, labels=labels))

    def names(query):
        status, _, body = http.get(f'{CMS}?{query}')
        assert status == 200, body
        return [i['metadata']['name'] for i in body['items']]

    _, _, body = http.get(CMS)
    assert body['kind'] == 'ConfigMapList' and body['apiVersion'] == 'v1'
    assert int(body['metadata']['resourceVersion']) > 0
    assert 'kind' not in body['items'][0], 'list items carry no kind, as from the real API server'
    assert names('labelSelector=tier%3Dweb') == ['a', 'c']
    assert names('labelSelector=tier%3D%3Dweb,env%3Dprod') == ['a']
    # Every namespace also holds the root CA publisher's kube-root-ca.crt (no labels).
    assert names('labelSelector=tier!%3Dweb') == ['b', 'kube-root-ca.crt']
    assert names('labelSelector=tier%20in%20(db,cache)') == ['b']
    assert names('labelSelector=tier%20notin%20(db)') == ['a', 'c', 'kube-root-ca.crt']
    assert names('labelSelector=env') == ['a', 'b']
    assert names('labelSelector=!env') == ['c', 'kube-root-ca.crt']
    assert names('fieldSelector=metadata.name%3Db') == ['b']
    assert names('fieldSelector=metadata.name!%3Db') == ['a', 'c', 'kube-root-ca.crt']
    status, _, err = http.get(f'{CMS}?fieldSelector=spec.bogus%3D1')
    assert status == 400 and is_status(err, 400, 'BadRequest')


def test_list_all_namespaces_and_pagination(http):
    http.post('/api/v1/namespaces', {'metadata': {'name': 'other'}})
    for ns in ('default', 'other'):
        for name in ('a', 'b'):
            http.post(f'/api/v1/namespaces/{ns}/configmaps', configmap(name))
    _, _, everything = http.get('/api/v1/configmaps')
    pairs = [(i['metadata']['namespace'], i['metadata']['name']) for i in everything['items']]
    ca = 'kube-root-ca.crt'  # in every namespace
    assert pairs == [('default', 'a'), ('default', 'b'), ('default', ca), ('kube-public', ca),
                     ('kube-system', ca), ('other', 'a'), ('other', 'b'), ('other', ca)]
    seen, query = [], 'limit=3'
    while True:
        _, _, page = http.get(f'/api/v1/configmaps?{query}')
        seen += [(i['metadata']['namespace'], i['metadata']['name']) for i in page['items']]
        if not page['metadata'].get('continue'):
            break
        query = f'limit=3&continue={page["metadata"]["continue"]}'
    assert seen == pairs


# ---- generation, status and scale ---------------------------------------------------------------

def test_generation_follows_spec_changes_only(http):
    _, _, created = http.post(DEPLOYS, deployment(replicas=0))
    assert created['metadata']['generation'] == 1
    merge = 'application/merge-patch+json'
    _, _, after_labels = http.patch(f'{DEPLOYS}/web', {'metadata': {'labels': {'x': 'y'}}},
                                    content_type=merge)
    assert after_labels['metadata']['generation'] == 1
    _, _, after_spec = http.patch(f'{DEPLOYS}/web', {'spec': {'replicas': 0, 'paused': True}},
                                  content_type=merge)
    assert after_spec['metadata']['generation'] == 2
    _, _, after_status = http.patch(f'{DEPLOYS}/web/status', {'status': {'observedGeneration': 2}},
                                    content_type=merge)
    assert after_status['metadata']['generation'] == 2
    assert after_status['status']['observedGeneration'] == 2


def test_status_subresource_changes_only_status_and_main_resource_keeps_status(http):
    http.post(CMS, configmap('unused'))
    _, _, obj = http.post(DEPLOYS, deployment(replicas=0))
    obj['spec']['replicas'] = 7
    obj['status'] = {'replicas': 42}
    obj['metadata'].pop('resourceVersion')
    _, _, via_status = http.put(f'{DEPLOYS}/web/status', obj)
    assert via_status['status']['replicas'] == 42 and via_status['spec']['replicas'] == 0
    # The controller may write status between the two PUTs, so the main PUT is judged by a status
    # value no controller ever writes: it must be ignored.
    obj['status'] = {'replicas': 1, 'collisionCount': 99}
    _, _, via_main = http.put(f'{DEPLOYS}/web', obj)
    assert via_main['spec']['replicas'] == 7
    assert via_main['status'].get('collisionCount') != 99


def _workload(kind, api_version='apps/v1'):
    body = deployment(replicas=0)
    body['kind'], body['apiVersion'] = kind, api_version
    if kind == 'DaemonSet':
        del body['spec']['replicas']
    if kind == 'StatefulSet':
        body['spec']['serviceName'] = 'web'
    if kind == 'ReplicationController':
        body['spec']['selector'] = {'app': 'web'}
    return body


# What each kind's status strategy lets a /status write change in metadata: the apps/v1 and core
# ones keep label and annotation changes, except that Deployments keep their old labels.
@pytest.mark.parametrize('path, kind, labels_kept', [
    (DEPLOYS, 'Deployment', False),
    ('/apis/apps/v1/namespaces/default/replicasets', 'ReplicaSet', True),
    ('/apis/apps/v1/namespaces/default/statefulsets', 'StatefulSet', True),
    ('/apis/apps/v1/namespaces/default/daemonsets', 'DaemonSet', True),
    (RCS, 'ReplicationController', True),
])
def test_status_write_keeps_metadata_changes_its_strategy_allows(http, path, kind, labels_kept):
    api_version = 'v1' if path == RCS else 'apps/v1'
    status, _, obj = http.post(path, _workload(kind, api_version))
    assert status == 201, obj
    obj['metadata']['labels']['extra'] = 'x'
    obj['metadata']['annotations'] = {'note': 'via-status'}
    obj['spec']['minReadySeconds'] = 30
    obj['metadata'].pop('resourceVersion')
    status, _, written = http.put(f'{path}/web/status', obj)
    assert status == 200, written
    _, _, stored = http.get(f'{path}/web')
    for seen in (written, stored):
        assert _own_annotations(seen) == {'note': 'via-status'}
        assert ('extra' in seen['metadata']['labels']) is labels_kept
        assert seen['metadata']['labels']['app'] == 'web'
        assert 'minReadySeconds' not in seen['spec'] or seen['spec']['minReadySeconds'] == 0
        assert seen['metadata']['generation'] == 1
    # A merge patch through /status is the same write.
    _, _, patched = http.patch(f'{path}/web/status', {'metadata': {'annotations': {'note': 'patched'}}},
                               content_type='application/merge-patch+json')
    assert _own_annotations(patched) == {'note': 'patched'}


def _own_annotations(obj):
    # The Deployment controller may add its revision annotation at any moment: a concurrent writer.
    return {k: v for k, v in obj['metadata']['annotations'].items()
            if not k.startswith('deployment.kubernetes.io/')}


def test_pod_status_write_keeps_owner_references(http):
    _, _, cm = http.post(CMS, configmap('owner'))
    pods = '/api/v1/namespaces/default/pods'
    pod = {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': 'p', 'labels': {'a': 'b'}},
           'spec': {'containers': [{'name': 'c', 'image': 'nginx'}]}}
    status, _, obj = http.post(pods, pod)
    assert status == 201, obj
    obj['metadata']['ownerReferences'] = [{'apiVersion': 'v1', 'kind': 'ConfigMap', 'name': 'owner',
                                           'uid': cm['metadata']['uid']}]
    obj['metadata']['labels']['via'] = 'status'
    obj['metadata'].pop('resourceVersion')
    status, _, written = http.put(f'{pods}/p/status', obj)
    assert status == 200, written
    assert 'ownerReferences' not in written['metadata']
    assert written['metadata']['labels'] == {'a': 'b', 'via': 'status'}


@pytest.mark.parametrize('path, body', [
    (DEPLOYS, deployment(replicas=2)),
    (RCS, {'apiVersion': 'v1', 'kind': 'ReplicationController',
           'metadata': {'name': 'web'},
           'spec': {'replicas': 2, 'selector': {'app': 'web', 'tier': 'fe'},
                    'template': {'metadata': {'labels': {'app': 'web', 'tier': 'fe'}},
                                 'spec': {'containers': [{'name': 'app', 'image': 'nginx'}]}}}}),
])
def test_scale_subresource(http, path, body):
    http.post(path, body)
    status, _, scale = http.get(f'{path}/web/scale')
    assert status == 200 and scale['kind'] == 'Scale' and scale['apiVersion'] == 'autoscaling/v1'
    assert scale['spec'] == {'replicas': 2}
    assert scale['status']['selector'] == ('app=web' if 'apps' in path else 'app=web,tier=fe')
    _, _, patched = http.patch(f'{path}/web/scale', {'spec': {'replicas': 4}},
                               content_type='application/merge-patch+json')
    assert patched['spec']['replicas'] == 4
    assert http.get(f'{path}/web')[2]['spec']['replicas'] == 4
    scale['spec']['replicas'] = 5  # carries the resourceVersion from before the patch
    status, _, err = http.put(f'{path}/web/scale', scale)
    assert status == 409 and is_status(err, 409, 'Conflict')
    del scale['metadata']['resourceVersion']
    status, _, put = http.put(f'{path}/web/scale', scale)
    assert status == 200 and put['spec']['replicas'] == 5
    status, _, err = http.put(f'{path}/web/scale', {'spec': {'replicas': -1}})
    assert status == 422 and is_status(err, 422, 'Invalid')


def test_scale_selector_with_expressions(http):
    body = deployment()
    body['spec']['selector'] = {'matchLabels': {'app': 'web'},
                                'matchExpressions': [{'key': 'tier', 'operator': 'In', 'values': ['b', 'a']},
                                                     {'key': 'canary', 'operator': 'DoesNotExist'}]}
    body['spec']['template']['metadata']['labels'] = {'app': 'web', 'tier': 'a'}
    http.post(DEPLOYS, body)
    _, _, scale = http.get(f'{DEPLOYS}/web/scale')
    assert scale['status']['selector'] == 'app=web,!canary,tier in (a,b)'  # sorted by key, as in Go


# ---- deletion ------------------------------------------------------------------------------------

def owned_configmap(name, owner):
    cm = configmap(name)
    cm['metadata']['ownerReferences'] = [{'apiVersion': 'v1', 'kind': 'ConfigMap',
                                          'name': owner['metadata']['name'],
                                          'uid': owner['metadata']['uid'], 'controller': True}]
    return cm


def test_delete_returns_success_status(http):
    _, _, obj = http.post(CMS, configmap('a'))
    status, _, body = http.delete(f'{CMS}/a')
    assert status == 200 and body['kind'] == 'Status' and body['status'] == 'Success'
    assert body['details'] == {'name': 'a', 'kind': 'configmaps', 'uid': obj['metadata']['uid']}
    assert http.delete(f'{CMS}/a')[0] == 404


@pytest.mark.parametrize('how, orphaned', [
    ({'query': ''}, False),
    ({'query': '?propagationPolicy=Foreground'}, False),
    ({'query': '?propagationPolicy=Orphan'}, True),
    ({'body': {'kind': 'DeleteOptions', 'apiVersion': 'v1', 'propagationPolicy': 'Orphan'}}, True),
    ({'body': {'orphanDependents': True}}, True),
    ({'query': '?orphanDependents=false'}, False),
])
def test_delete_propagation(http, how, orphaned):
    _, _, owner = http.post(CMS, configmap('owner'))
    http.post(CMS, owned_configmap('child', owner))
    status, _, _ = http.delete(f'{CMS}/owner{how.get("query", "")}', how.get('body'))
    assert status == 200
    status, _, child = http.get(f'{CMS}/child')
    if orphaned:
        assert status == 200 and 'ownerReferences' not in child['metadata']
    else:
        assert status == 404


def test_replication_controllers_orphan_by_default(http):
    _, _, rc = http.post(RCS, {'metadata': {'name': 'rc'}, 'spec': {'replicas': 0, 'selector': {'a': 'b'},
                               'template': {'metadata': {'labels': {'a': 'b'}},
                                            'spec': {'containers': [{'name': 'c', 'image': 'i'}]}}}})
    child = owned_configmap('child', rc)
    child['metadata']['ownerReferences'][0].update(kind='ReplicationController')
    http.post(CMS, child)
    http.delete(f'{RCS}/rc')
    assert http.get(f'{CMS}/child')[0] == 200


def test_delete_preconditions(http):
    _, _, obj = http.post(CMS, configmap('a'))
    status, _, err = http.delete(f'{CMS}/a', {'preconditions': {'uid': 'wrong'}})
    assert status == 409 and is_status(err, 409, 'Conflict')
    status, _, err = http.delete(f'{CMS}/a', {'preconditions': {'resourceVersion': '1'}})
    assert status == 409
    assert http.delete(f'{CMS}/a', {'preconditions': {'uid': obj['metadata']['uid']}})[0] == 200


def test_delete_option_conflicts_are_422(http):
    http.post(CMS, configmap('a'))
    status, _, err = http.delete(f'{CMS}/a?propagationPolicy=Orphan&orphanDependents=true')
    assert status == 422 and is_status(err, 422, 'Invalid')
    status, _, err = http.delete(f'{CMS}/a?propagationPolicy=Sideways')
    assert status == 422


def test_delete_collection(http):
    for name, tier in (('a', 'web'), ('b', 'web'), ('c', 'db')):
        http.post(CMS, configmap(name, labels={'tier': tier}))
    status, _, body = http.delete(f'{CMS}?labelSelector=tier%3Dweb')
    assert status == 200 and body['kind'] == 'ConfigMapList'
    assert sorted(i['metadata']['name'] for i in body['items']) == ['a', 'b']
    assert [i['metadata']['name'] for i in http.get(CMS)[2]['items']] == ['c', 'kube-root-ca.crt']


def test_deleting_a_namespace_deletes_its_objects(http):
    http.post('/api/v1/namespaces', {'metadata': {'name': 'gone'}})
    http.post('/api/v1/namespaces/gone/configmaps', configmap('a'))
    assert http.delete('/api/v1/namespaces/gone')[0] == 200
    assert http.get('/api/v1/namespaces/gone')[0] == 404
    assert http.get('/api/v1/namespaces/gone/configmaps')[2]['items'] == []


def test_initial_namespaces(http):
    _, _, body = http.get('/api/v1/namespaces')
    names = [i['metadata']['name'] for i in body['items']]
    assert {'default', 'kube-system', 'kube-public'} <= set(names)
    assert all(i['status']['phase'] == 'Active' for i in body['items'])


def annotations(http):
    return http.get(f'{DEPLOYS}/web')[2]['metadata'].get('annotations') or {}


def test_annotations_over_256_kib_in_all_are_invalid(http):
    assert http.post(DEPLOYS, deployment(replicas=0))[0] == 201
    # The limit counts every annotation: the deployment controller's revision first.
    deadline = time.monotonic() + 10
    while 'deployment.kubernetes.io/revision' not in annotations(http):
        assert time.monotonic() < deadline, 'the deployment controller never set the revision'
        time.sleep(0.02)
    used = sum(len(k) + len(v) for k, v in annotations(http).items())
    at_limit = {'a': 'x' * (256 * 1024 - 1 - used)}
    merge = 'application/merge-patch+json'
    assert http.patch(f'{DEPLOYS}/web', {'metadata': {'annotations': at_limit}}, content_type=merge)[0] == 200
    over = {'metadata': {'annotations': {'a': None, 'bb': 'x' * (256 * 1024 - 1 - used)}}}
    status, _, body = http.patch(f'{DEPLOYS}/web', over, content_type=merge)
    assert status == 422 and is_status(body, 422, 'Invalid')
    assert body['details']['causes'] == [{'reason': 'FieldValueTooLong', 'field': 'metadata.annotations',
                                          'message': 'Too long: may not be more than 262144 bytes'}]

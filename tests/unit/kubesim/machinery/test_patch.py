"""kubesim's patch engines: JSON patch, JSON merge patch and strategic merge patch.

The strategic cases include the exact bodies kubectl 1.37 sends for `set image`, `rollout restart`,
`rollout undo` (DaemonSet/StatefulSet) and a three-way `apply` (captured with `kubectl -v=9`).
"""

import copy

import pytest

from tests.kubesim.machinery import patch
from tests.kubesim.machinery.errors import ApiError
from tests.support import manifests

pytestmark = pytest.mark.unit


def deployment():
    obj = manifests.workload(
        'Deployment', 'web', namespace='default', labels={'app': 'web'},
        strategy={'type': 'RollingUpdate', 'rollingUpdate': {'maxSurge': 1, 'maxUnavailable': 0}},
        template_spec={
            'volumes': [{'name': 'data', 'emptyDir': {}}, {'name': 'cache', 'emptyDir': {}}],
            'imagePullSecrets': [{'name': 'reg1'}],
            'tolerations': [{'key': 'k1', 'operator': 'Exists'}],
            'initContainers': [{'name': 'init', 'image': 'busybox:1'}],
            'containers': [
                {'name': 'app', 'image': 'nginx:1.25', 'args': ['-a', '-b'],
                 'env': [{'name': 'A', 'value': '1'}, {'name': 'B', 'value': '2'}],
                 'envFrom': [{'configMapRef': {'name': 'one'}}],
                 'ports': [{'containerPort': 80, 'name': 'http'}, {'containerPort': 443}],
                 'volumeMounts': [{'name': 'data', 'mountPath': '/data'}]},
                {'name': 'side', 'image': 'busybox:1'},
            ],
        })
    obj['metadata']['finalizers'] = ['a', 'b']
    obj['status'] = {'conditions': [{'type': 'Available', 'status': 'True'},
                                    {'type': 'Progressing', 'status': 'True'}]}
    return obj


def containers(doc):
    return doc['spec']['template']['spec']['containers']


def images(doc):
    return [(c['name'], c['image']) for c in containers(doc)]


def pod_spec(spec):
    """A patch body touching only the pod template's spec."""
    return {'spec': {'template': {'spec': spec}}}


def smp(doc, body):
    return patch.apply_patch(patch.STRATEGIC_MERGE_PATCH, doc, body)


# ---- JSON patch ------------------------------------------------------------------------------

def test_json_patch_ops_apply_in_order():
    doc = deployment()
    out = patch.apply_patch(patch.JSON_PATCH, doc, [
        {'op': 'test', 'path': '/spec/replicas', 'value': 2},
        {'op': 'replace', 'path': '/spec/replicas', 'value': 5},
        {'op': 'add', 'path': '/metadata/labels/tier', 'value': 'web'},
        {'op': 'remove', 'path': '/spec/strategy/rollingUpdate'},
        {'op': 'add', 'path': '/spec/template/spec/containers/-', 'value': {'name': 'x', 'image': 'y'}},
    ])
    assert out['spec']['replicas'] == 5
    assert out['metadata']['labels'] == {'app': 'web', 'tier': 'web'}
    assert 'rollingUpdate' not in out['spec']['strategy']
    assert [c['name'] for c in containers(out)] == ['app', 'side', 'x']
    assert doc == deployment(), 'the input must not be mutated'


def test_json_patch_failing_test_is_422_invalid():
    with pytest.raises(ApiError) as err:
        patch.apply_patch(patch.JSON_PATCH, deployment(), [
            {'op': 'replace', 'path': '/spec/replicas', 'value': 9},
            {'op': 'test', 'path': '/spec/replicas', 'value': 3},
        ])
    # Exactly the real API server's answer: no causes, nothing about the test in it.
    assert err.value.status() == {
        'kind': 'Status', 'apiVersion': 'v1', 'metadata': {}, 'status': 'Failure',
        'message': 'the server rejected our request due to an error in our request',
        'reason': 'Invalid', 'details': {}, 'code': 422}
    assert err.value.detail == 'testing value /spec/replicas failed: test failed'


def test_json_patch_missing_path_is_422_and_malformed_patch_is_400():
    with pytest.raises(ApiError) as err:
        patch.apply_patch(patch.JSON_PATCH, deployment(), [{'op': 'remove', 'path': '/spec/nope'}])
    assert err.value.code == 422
    with pytest.raises(ApiError) as err:
        patch.apply_patch(patch.JSON_PATCH, deployment(), {'op': 'remove', 'path': '/spec'})
    assert err.value.code == 400
    with pytest.raises(ApiError) as err:
        patch.apply_patch(patch.JSON_PATCH, deployment(), [{'op': 'frobnicate', 'path': '/spec'}])
    assert err.value.code == 400


def test_kubectl_undo_json_patch_for_deployments():
    """`rollout undo` on a Deployment: replace the template and the annotations."""
    template = copy.deepcopy(deployment()['spec']['template'])
    template['spec']['containers'][0]['image'] = 'nginx:1.24'
    current = deployment()
    current['metadata']['annotations'] = {'deployment.kubernetes.io/revision': '3'}
    out = patch.apply_patch(patch.JSON_PATCH, current, [
        {'op': 'replace', 'path': '/spec/template', 'value': template},
        {'op': 'replace', 'path': '/metadata/annotations',
         'value': {'deployment.kubernetes.io/revision': '1'}},
    ])
    assert containers(out)[0]['image'] == 'nginx:1.24'
    assert out['metadata']['annotations'] == {'deployment.kubernetes.io/revision': '1'}


def test_json_patch_replace_needs_an_existing_path():
    """RFC 6902: `replace` of a missing member fails (kubectl's undo relies on annotations existing)."""
    with pytest.raises(ApiError) as err:
        patch.apply_patch(patch.JSON_PATCH, deployment(),
                          [{'op': 'replace', 'path': '/metadata/annotations', 'value': {}}])
    assert err.value.code == 422


# ---- merge patch -----------------------------------------------------------------------------

def test_merge_patch_merges_maps_replaces_lists_and_null_deletes():
    out = patch.apply_patch(patch.MERGE_PATCH, deployment(), {
        'metadata': {'labels': {'tier': 'x', 'app': None}},
        'spec': {'paused': True, 'strategy': {'rollingUpdate': None},
                 'template': {'spec': {'containers': [{'name': 'only', 'image': 'z'}]}}},
    })
    assert out['metadata']['labels'] == {'tier': 'x'}
    assert out['spec']['paused'] is True
    assert out['spec']['strategy'] == {'type': 'RollingUpdate'}
    assert containers(out) == [{'name': 'only', 'image': 'z'}]
    assert out['spec']['template']['spec']['volumes'], 'untouched siblings stay'


def test_merge_patch_rejects_non_objects():
    with pytest.raises(ApiError) as err:
        patch.apply_patch(patch.MERGE_PATCH, deployment(), [1, 2])
    assert err.value.code == 400


def test_unknown_patch_type_is_415():
    with pytest.raises(ApiError) as err:
        patch.apply_patch('application/xml', deployment(), {})
    assert err.value.code == 415 and err.value.reason == 'UnsupportedMediaType'


# ---- strategic merge patch: kubectl's own bodies -------------------------------------------

def test_set_image_body():
    body = {'spec': {'template': {'spec': {
        '$setElementOrder/containers': [{'name': 'app'}, {'name': 'side'}],
        'containers': [{'image': 'nginx:1.27', 'name': 'app'}]}}}}
    out = smp(deployment(), body)
    assert images(out) == [('app', 'nginx:1.27'), ('side', 'busybox:1')]
    assert containers(out)[0]['env'] == deployment()['spec']['template']['spec']['containers'][0]['env']
    assert not any(k.startswith('$') for k in out['spec']['template']['spec'])


def test_rollout_restart_body():
    body = {'spec': {'template': {'metadata': {'annotations': {
        'kubectl.kubernetes.io/restartedAt': '2025-01-01T00:00:00Z'}}}}}
    out = smp(deployment(), body)
    assert out['spec']['template']['metadata'] == {
        'labels': {'app': 'web'},
        'annotations': {'kubectl.kubernetes.io/restartedAt': '2025-01-01T00:00:00Z'}}


def test_rollout_undo_body_for_daemonsets_replaces_the_whole_template():
    """The ControllerRevision's data, sent as is: `$patch: replace` drops what the old template lacks."""
    old_template = {'metadata': {'labels': {'app': 'web'}},
                    'spec': {'containers': [{'name': 'app', 'image': 'nginx:1.24'}]}}
    body = {'spec': {'template': {**copy.deepcopy(old_template), '$patch': 'replace'}}}
    out = smp(deployment(), body)
    assert out['spec']['template'] == old_template
    assert out['spec']['replicas'] == 2 and out['spec']['selector'] == {'matchLabels': {'app': 'web'}}


def test_three_way_apply_body():
    """kubectl apply after removing env B and container `side`, switching to Recreate and changing the
    volume source (body captured from kubectl 1.37)."""
    body = {
        'metadata': {'annotations': {'kubectl.kubernetes.io/last-applied-configuration': '{}'}},
        'spec': {
            'strategy': {'$retainKeys': ['type'], 'rollingUpdate': None, 'type': 'Recreate'},
            'template': {'spec': {
                '$setElementOrder/containers': [{'name': 'app'}],
                '$setElementOrder/volumes': [{'name': 'data'}],
                'containers': [{'$setElementOrder/env': [{'name': 'A'}],
                                'env': [{'$patch': 'delete', 'name': 'B'}], 'name': 'app'},
                               {'$patch': 'delete', 'name': 'side'}],
                'volumes': [{'$retainKeys': ['configMap', 'name'], 'configMap': {'name': 'cfg'},
                             'emptyDir': None, 'name': 'data'}],
            }},
        },
    }
    out = smp(deployment(), body)
    assert out['spec']['strategy'] == {'type': 'Recreate'}
    assert [c['name'] for c in containers(out)] == ['app']
    assert containers(out)[0]['env'] == [{'name': 'A', 'value': '1'}]
    # `cache` was never in the applied configuration: a server-side addition the patch keeps.
    assert out['spec']['template']['spec']['volumes'] == [{'name': 'data', 'configMap': {'name': 'cfg'}},
                                                          {'name': 'cache', 'emptyDir': {}}]
    assert out['metadata']['annotations']['kubectl.kubernetes.io/last-applied-configuration'] == '{}'


def test_scale_subresource_patch():
    scale = {'kind': 'Scale', 'apiVersion': 'autoscaling/v1', 'metadata': {'name': 'web'},
             'spec': {'replicas': 2}, 'status': {'replicas': 2, 'selector': 'app=web'}}
    assert smp(scale, {'spec': {'replicas': 5}})['spec'] == {'replicas': 5}


# ---- strategic merge patch: merge keys -------------------------------------------------------

@pytest.mark.parametrize('field, key, new_item, changed_item', [
    ('env', 'name', {'name': 'C', 'value': '3'}, {'name': 'A', 'value': '10'}),
    ('ports', 'containerPort', {'containerPort': 8080}, {'containerPort': 80, 'name': 'web'}),
    ('volumeMounts', 'mountPath', {'name': 'x', 'mountPath': '/x'}, {'name': 'other', 'mountPath': '/data'}),
])
def test_container_lists_merge_by_key(field, key, new_item, changed_item):
    body = pod_spec({'containers': [{'name': 'app', field: [new_item, changed_item]}]})
    out = smp(deployment(), body)
    items = containers(out)[0][field]
    original = deployment()['spec']['template']['spec']['containers'][0][field]
    assert len(items) == len(original) + 1
    merged = next(i for i in items if i[key] == changed_item[key])
    assert merged == {**next(i for i in original if i[key] == changed_item[key]), **changed_item}
    assert new_item in items


@pytest.mark.parametrize('field, item', [
    ('volumes', {'name': 'data', 'hostPath': {'path': '/tmp'}}),
    ('imagePullSecrets', {'name': 'reg2'}),
    ('initContainers', {'name': 'init', 'image': 'busybox:2'}),
    ('containers', {'name': 'side', 'image': 'busybox:2'}),
])
def test_pod_spec_lists_merge_by_name(field, item):
    out = smp(deployment(), {'spec': {'template': {'spec': {field: [item]}}}})
    merged = out['spec']['template']['spec'][field]
    before = deployment()['spec']['template']['spec'][field]
    names = [i['name'] for i in merged]
    assert sorted(names) == sorted({i['name'] for i in before} | {item['name']})
    entry = next(i for i in merged if i['name'] == item['name'])
    assert all(entry[k] == v for k, v in item.items())


def test_ephemeral_containers_merge_by_name():
    pod = {'spec': {'ephemeralContainers': [{'name': 'debug', 'image': 'busybox:1', 'tty': True}]}}
    out = smp(pod, {'spec': {'ephemeralContainers': [{'name': 'debug', 'image': 'busybox:2'}]}})
    assert out['spec']['ephemeralContainers'] == [{'name': 'debug', 'image': 'busybox:2', 'tty': True}]


def test_lists_without_a_merge_key_are_replaced():
    body = {'spec': {'template': {'spec': {
        'tolerations': [{'key': 'k2', 'operator': 'Exists'}],
        'containers': [{'name': 'app', 'args': ['-c'], 'envFrom': [{'secretRef': {'name': 's'}}]}]}}}}
    out = smp(deployment(), body)
    assert out['spec']['template']['spec']['tolerations'] == [{'key': 'k2', 'operator': 'Exists'}]
    assert containers(out)[0]['args'] == ['-c']
    assert containers(out)[0]['envFrom'] == [{'secretRef': {'name': 's'}}]


def test_status_conditions_merge_by_type():
    out = smp(deployment(), {'status': {'conditions': [{'type': 'Progressing', 'status': 'False',
                                                        'reason': 'ProgressDeadlineExceeded'}]}})
    assert out['status']['conditions'] == [
        {'type': 'Available', 'status': 'True'},
        {'type': 'Progressing', 'status': 'False', 'reason': 'ProgressDeadlineExceeded'},
    ]


def test_owner_references_merge_by_uid():
    doc = {'metadata': {'ownerReferences': [{'uid': 'u1', 'name': 'a', 'controller': True}]}}
    out = smp(doc, {'metadata': {'ownerReferences': [{'uid': 'u2', 'name': 'b'},
                                                     {'uid': 'u1', 'controller': False}]}})
    refs = {r['uid']: r for r in out['metadata']['ownerReferences']}
    assert refs == {'u1': {'uid': 'u1', 'name': 'a', 'controller': False}, 'u2': {'uid': 'u2', 'name': 'b'}}


def test_service_ports_merge_by_port():
    svc = {'spec': {'ports': [{'port': 80, 'targetPort': 8080}, {'port': 443}]}}
    out = smp(svc, {'spec': {'ports': [{'port': 80, 'targetPort': 9090}]}})
    assert out['spec']['ports'] == [{'port': 80, 'targetPort': 9090}, {'port': 443}]


# ---- strategic merge patch: ordering ---------------------------------------------------------

def test_new_items_go_before_server_items_as_in_apimachinery():
    out = smp(deployment(), {'spec': {'template': {'spec': {'containers': [{'name': 'new', 'image': 'n'}]}}}})
    assert [c['name'] for c in containers(out)] == ['new', 'app', 'side']


def test_set_element_order_reorders_the_merged_list():
    body = {'spec': {'template': {'spec': {
        '$setElementOrder/containers': [{'name': 'side'}, {'name': 'app'}],
        'containers': [{'name': 'side', 'image': 'busybox:2'}]}}}}
    out = smp(deployment(), body)
    assert images(out) == [('side', 'busybox:2'), ('app', 'nginx:1.25')]


def test_set_element_order_for_primitive_lists():
    body = {'metadata': {'$setElementOrder/finalizers': ['c', 'b', 'a'], 'finalizers': ['c']}}
    out = smp(deployment(), body)
    assert out['metadata']['finalizers'] == ['c', 'b', 'a']


def test_set_element_order_alone_keeps_the_items():
    body = pod_spec({'$setElementOrder/containers': [{'name': 'side'}, {'name': 'app'}]})
    out = smp(deployment(), body)
    assert [c['name'] for c in containers(out)] == ['side', 'app']
    assert containers(out)[1]['image'] == 'nginx:1.25'


# ---- strategic merge patch: directives ---------------------------------------------------------

def test_patch_delete_in_a_list_removes_the_element():
    body = {'spec': {'template': {'spec': {'containers': [{'name': 'side', '$patch': 'delete'}]}}}}
    assert [c['name'] for c in containers(smp(deployment(), body))] == ['app']


def test_patch_replace_in_a_list_replaces_the_list():
    body = pod_spec({'containers': [{'$patch': 'replace'}, {'name': 'solo', 'image': 's'}]})
    assert containers(smp(deployment(), body)) == [{'name': 'solo', 'image': 's'}]


def test_patch_replace_on_a_map():
    body = {'spec': {'strategy': {'$patch': 'replace', 'type': 'Recreate'}}}
    assert smp(deployment(), body)['spec']['strategy'] == {'type': 'Recreate'}


def test_patch_delete_on_a_map_empties_it():
    assert smp(deployment(), {'spec': {'strategy': {'$patch': 'delete'}}})['spec']['strategy'] == {}


def test_patch_merge_directive_is_rejected_like_apimachinery():
    """apimachinery accepts only replace and delete on a map, and no `$patch: merge` element in a list."""
    for body in ({'spec': {'strategy': {'$patch': 'merge', 'type': 'Recreate'}}},
                 {'spec': {'template': {'spec': {'containers': [{'$patch': 'merge', 'name': 'app'}]}}}}):
        with pytest.raises(ApiError) as err:
            smp(deployment(), body)
        assert err.value.code == 500 and 'patch' in err.value.message


def test_retain_keys_clears_other_keys():
    body = {'spec': {'strategy': {'$retainKeys': ['type'], 'type': 'Recreate'}}}
    assert smp(deployment(), body)['spec']['strategy'] == {'type': 'Recreate'}


def test_retain_keys_must_list_every_patched_key():
    body = {'spec': {'strategy': {'$retainKeys': ['type'], 'type': 'Recreate',
                                  'rollingUpdate': {'maxSurge': 2}}}}
    with pytest.raises(ApiError) as err:
        smp(deployment(), body)
    assert err.value.code == 400


def test_delete_from_primitive_list():
    out = smp(deployment(), {'metadata': {'$deleteFromPrimitiveList/finalizers': ['a']}})
    assert out['metadata']['finalizers'] == ['b']


def test_finalizers_merge_as_a_set():
    out = smp(deployment(), {'metadata': {'finalizers': ['b', 'c']}})
    assert sorted(out['metadata']['finalizers']) == ['a', 'b', 'c']
    assert len(out['metadata']['finalizers']) == 3


def test_null_deletes_a_key_and_unmatched_nulls_are_ignored():
    out = smp(deployment(), {'metadata': {'labels': {'app': None, 'gone': None}}, 'spec': {'paused': None}})
    assert out['metadata']['labels'] == {}
    assert 'paused' not in out['spec']


def test_values_copied_in_whole_lose_directives_and_nulls():
    out = smp({'spec': {}}, {'spec': {'template': {'metadata': {'annotations': {'a': None, 'b': 'x'}},
                                                    '$patch': 'replace'}}})
    assert out['spec']['template'] == {'metadata': {'annotations': {'b': 'x'}}}


def test_missing_merge_key_is_an_error():
    with pytest.raises(ApiError) as err:
        smp(deployment(), {'spec': {'template': {'spec': {'containers': [{'image': 'x'}]}}}})
    assert 'merge key' in err.value.message


def test_type_change_replaces_value():
    out = smp(deployment(), {'spec': {'replicas': {'weird': True}}})
    assert out['spec']['replicas'] == {'weird': True}


def test_strategic_patch_does_not_mutate_inputs():
    doc = deployment()
    body = pod_spec({'$setElementOrder/containers': [{'name': 'app'}, {'name': 'side'}],
                     'containers': [{'name': 'app', 'image': 'x', '$patch': 'replace'}]})
    body_copy = copy.deepcopy(body)
    smp(doc, body)
    assert doc == deployment() and body == body_copy

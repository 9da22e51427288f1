"""Unit tests of module_utils/rc/objects.py (the rolling update's objects)."""

import copy

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.common import errors, times
from ansible_collections.kubeops.rollout.plugins.module_utils.rc import objects
from tests.support.rc import DESIRED, KEY, NEXT, ORIGINAL, SOURCE, options, rc

pytestmark = pytest.mark.unit


# ---- hashes, labels, annotations -------------------------------------------------------------------
def test_template_hash_is_md5_hex_and_ignores_the_deployment_label():
    template = rc()['spec']['template']
    h = objects.template_hash(template, {'app': 'web'}, KEY)
    assert len(h) == 32 and int(h, 16) >= 0
    labelled = copy.deepcopy(template)
    labelled['metadata']['labels'][KEY] = 'abc-orig'
    assert objects.template_hash(labelled, {'app': 'web', KEY: 'abc-orig'}, KEY) == h
    other = copy.deepcopy(template)
    other['spec']['containers'][0]['image'] = 'nginx:1.26'
    assert objects.template_hash(other, {'app': 'web'}, KEY) != h


def test_orig_label_value():
    value = objects.orig_label_value(rc(), KEY)
    assert value.endswith('-orig') and len(value) == 32 + len('-orig')


def test_image_target_copies_the_old_rc():
    old = rc(annotations={'team': 'a', NEXT: 'x', ORIGINAL: '3'})
    target = objects.image_target(old, 'nginx:1.26', None, 'Always', KEY)
    container = target.template['spec']['containers'][0]
    assert container == {'name': 'app', 'image': 'nginx:1.26', 'imagePullPolicy': 'Always'}
    value = target.selector[KEY]
    assert target.template['metadata']['labels'] == {'app': 'web', KEY: value}
    assert target.selector == {'app': 'web', KEY: value}
    assert target.annotations == {'team': 'a'}  # update annotations are not copied
    assert target.replicas == 3
    assert old['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1.25'  # not mutated


def test_image_target_same_for_old_rc_labelled_orig():
    old = rc()
    labelled = copy.deepcopy(old)
    labelled['spec']['selector'][KEY] = objects.orig_label_value(old, KEY)
    labelled['spec']['template']['metadata']['labels'][KEY] = labelled['spec']['selector'][KEY]
    a = objects.image_target(old, 'nginx:1.26', None, None, KEY)
    b = objects.image_target(labelled, 'nginx:1.26', None, None, KEY)
    assert a.template == b.template and a.selector == b.selector


def test_container_rules():
    two = rc(containers=[{'name': 'app', 'image': 'a:1'}, {'name': 'side', 'image': 'b:1'}])
    with pytest.raises(errors.UpdateError, match=r'has 2 containers \(app, side\): set container'):
        objects.image_target(two, 'a:2', None, None, KEY)
    with pytest.raises(errors.UpdateError, match=r'container "nope" not found .* \(containers: app, side\)'):
        objects.image_target(two, 'a:2', 'nope', None, KEY)
    target = objects.image_target(two, 'b:2', 'side', None, KEY)
    assert [c['image'] for c in target.template['spec']['containers']] == ['a:1', 'b:2']


def test_same_image_needs_pull_policy():
    opts = options(image='nginx:1.25')
    old = rc()
    with pytest.raises(errors.UpdateError, match='image_pull_policy .* must be given when image is the same'):
        opts.check_can_start(old, opts.target(old, 'default'))
    options(image='nginx:1.25', image_pull_policy='Always').check_can_start(old, None)


def test_new_controller_body_has_kubectls_annotations():
    old = rc()
    target = objects.image_target(old, 'nginx:1.26', None, None, KEY)
    body = objects.new_controller_body(target, 'web-2', 'default', old, 3)
    assert body['spec']['replicas'] == 0
    assert body['metadata']['annotations'] == {objects.DESIRED_REPLICAS_ANNOTATION: '3',
                                               objects.SOURCE_ID_ANNOTATION: 'web:uid-1'}
    assert 'uid' not in body['metadata'] and 'status' not in body
    # created at its first scale-up instead of 0 and then scaled
    first = objects.new_controller_body(target, 'web-2', 'default', old, 3, replicas=1)
    assert first['spec']['replicas'] == 1


def test_renamed_body_keeps_identity_and_drops_update_annotations():
    old = rc(annotations={NEXT: 'web-2', ORIGINAL: '3'})
    new = rc('web-2', image='nginx:1.26', selector={'app': 'web', KEY: 'h'}, labels={'app': 'web', KEY: 'h'},
             annotations={SOURCE: 'web:uid-1', DESIRED: '3', 'team': 'a'},
             uid='uid-2')
    body = objects.renamed_body(old, new, 3)
    assert body['metadata']['name'] == 'web' and body['metadata']['uid'] == 'uid-1'
    assert body['metadata']['resourceVersion'] == '10'  # the update is guarded
    assert body['metadata']['annotations'] == {'team': 'a'}
    assert body['spec']['selector'] == {'app': 'web', KEY: 'h'}
    assert body['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1.26'
    assert 'status' not in body


def test_definition_target_validation():
    old = rc()
    good = {'metadata': {'name': 'web-v2'},
            'spec': {'selector': {'app': 'web', 'v': '2'},
                     'template': {'metadata': {'labels': {'app': 'web', 'v': '2'}},
                                  'spec': {'containers': [{'name': 'app', 'image': 'x:2'}]}}}}
    target = objects.definition_target(good, old, 'default')
    assert target.name == 'web-v2' and target.replicas == 3  # defaults to the old size
    with pytest.raises(errors.UpdateError, match='same namespace'):
        objects.definition_target(dict(good, metadata={'name': 'a', 'namespace': 'other'}), old, 'default')
    with pytest.raises(errors.UpdateError, match='not a ReplicationController'):
        objects.definition_target(dict(good, kind='Deployment'), old, 'default')
    with pytest.raises(errors.UpdateError, match='needs metadata.name'):
        objects.definition_target(dict(good, metadata={}), old, 'default')
    with pytest.raises(errors.UpdateError, match='differs from new_controller metadata.name'):
        objects.definition_target(good, old, 'default', new_name='other')
    with pytest.raises(errors.UpdateError, match='different value'):
        objects.check_distinct_selectors(old, objects.definition_target(
            dict(good, spec=dict(good['spec'], selector={'app': 'web'})), old, 'default'))


def test_subset_matches_ignores_server_defaults():
    wanted = {'spec': {'containers': [{'name': 'a', 'image': 'x'}]}}
    actual = {'spec': {'containers': [{'name': 'a', 'image': 'x', 'imagePullPolicy': 'IfNotPresent'}],
                       'restartPolicy': 'Always'}}
    assert objects.subset_matches(wanted, actual)
    assert not objects.subset_matches({'spec': {'containers': [{'name': 'a', 'image': 'y'}]}}, actual)
    assert not objects.subset_matches({'spec': {'containers': []}}, actual)


def test_orphans_for_picks_released_pods():
    old = rc(selector={'app': 'web', KEY: 'x-orig'})

    def pod(name, value, owned=False, deleting=False):
        meta = {'name': name, 'labels': {'app': 'web', KEY: value} if value else {'app': 'web'}}
        if owned:
            meta['ownerReferences'] = [{'kind': 'ReplicationController', 'name': 'o', 'controller': True}]
        if deleting:
            meta['deletionTimestamp'] = '2026-01-01T00:00:00Z'
        return {'metadata': meta}
    pods = [pod('a', 'h1'), pod('b', 'h1'), pod('c', 'x-orig'), pod('d', 'h2', owned=True),
            pod('e', 'h1', deleting=True), pod('f', None)]
    value, found = objects.orphans_for(pods, old, KEY)
    assert value == 'h1' and [p['metadata']['name'] for p in found] == ['a', 'b']


def test_pod_available_honours_min_ready_seconds():
    pod = {'metadata': {}, 'status': {'conditions': [
        {'type': 'Ready', 'status': 'True', 'lastTransitionTime': '2026-01-01T00:00:00Z'}]}}
    t0 = times.parse('2026-01-01T00:00:00Z')
    assert objects.pod_available(pod, 0, t0)
    assert not objects.pod_available(pod, 10, t0 + 5)
    assert objects.pod_available(pod, 10, t0 + 10)
    pod['metadata']['deletionTimestamp'] = '2026-01-01T00:00:01Z'
    assert not objects.pod_available(pod, 0, t0)
    assert not objects.pod_available({'metadata': {}, 'status': {}}, 0, t0)


def test_desired_replicas_annotation_must_parse():
    assert objects.desired_replicas(rc(annotations={objects.DESIRED_REPLICAS_ANNOTATION: '4'})) == 4
    with pytest.raises(errors.UpdateError, match='unable to parse annotation'):
        objects.desired_replicas(rc(annotations={objects.DESIRED_REPLICAS_ANNOTATION: 'x'}))

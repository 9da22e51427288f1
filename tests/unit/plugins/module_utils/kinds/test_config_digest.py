import hashlib
import json

import jsonpatch
import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import config_digest as cd

from tests.support.manifests import template

pytestmark = pytest.mark.unit


def refs_of(refs):
    return [(r.kind, r.name, r.optional) for r in refs]


def test_references_from_every_place_a_pod_template_names_them():
    t = template(extra_spec={
        'volumes': [
            {'name': 'a', 'configMap': {'name': 'vol-cm'}},
            {'name': 'b', 'secret': {'secretName': 'vol-secret', 'optional': True}},
            {'name': 'c', 'projected': {'sources': [{'configMap': {'name': 'proj-cm'}},
                                                    {'secret': {'name': 'proj-secret'}},
                                                    {'downwardAPI': {'items': []}}]}},
            {'name': 'd', 'emptyDir': {}}],
        'initContainers': [{'name': 'init', 'image': 'i',
                            'envFrom': [{'secretRef': {'name': 'init-secret'}}]}],
    })
    t['spec']['containers'][0]['envFrom'] = [{'configMapRef': {'name': 'env-cm', 'optional': True}}]
    t['spec']['containers'][0]['env'] = [
        {'name': 'A', 'value': 'plain'},
        {'name': 'B', 'valueFrom': {'configMapKeyRef': {'name': 'key-cm', 'key': 'k'}}},
        {'name': 'C', 'valueFrom': {'secretKeyRef': {'name': 'key-secret', 'key': 'k', 'optional': True}}},
        {'name': 'D', 'valueFrom': {'fieldRef': {'fieldPath': 'metadata.name'}}}]
    assert refs_of(cd.references(t)) == [
        ('ConfigMap', 'env-cm', True), ('ConfigMap', 'key-cm', False), ('ConfigMap', 'proj-cm', False),
        ('ConfigMap', 'vol-cm', False), ('Secret', 'init-secret', False), ('Secret', 'key-secret', True),
        ('Secret', 'proj-secret', False), ('Secret', 'vol-secret', True)]


def test_an_object_is_optional_only_if_every_reference_says_so():
    t = template(extra_spec={'volumes': [{'name': 'a', 'configMap': {'name': 'cm', 'optional': True}}]})
    t['spec']['containers'][0]['envFrom'] = [{'configMapRef': {'name': 'cm'}}]
    assert refs_of(cd.references(t)) == [('ConfigMap', 'cm', False)]
    # Named explicitly: always required, and merged with the template's reference.
    only_optional = template(extra_spec={'volumes': [{'name': 'a',
                                                      'configMap': {'name': 'cm', 'optional': True}}]})
    assert refs_of(cd.references(only_optional)) == [('ConfigMap', 'cm', True)]
    assert refs_of(cd.references(only_optional, config_maps=['cm'], secrets=['s'])) == [
        ('ConfigMap', 'cm', False), ('Secret', 's', False)]
    # Without a template, only the named objects.
    assert refs_of(cd.references(None, secrets=['s'])) == [('Secret', 's', False)]


def test_digest_covers_data_only_and_is_order_independent():
    a = {'metadata': {'name': 'x', 'labels': {'l': '1'}, 'resourceVersion': '1'},
         'data': {'b': '2', 'a': '1'}}
    b = {'metadata': {'name': 'x', 'resourceVersion': '9'}, 'data': {'a': '1', 'b': '2'}}
    assert cd.object_digest('ConfigMap', a) == cd.object_digest('ConfigMap', b)
    expected = hashlib.sha256(json.dumps({'data': {'a': '1', 'b': '2'}}, sort_keys=True,
                                         separators=(',', ':')).encode()).hexdigest()
    assert cd.object_digest('ConfigMap', a) == expected
    assert cd.object_digest('ConfigMap', dict(b, binaryData={'z': 'AA=='})) != expected
    assert cd.object_digest('ConfigMap', {'data': {'a': '1', 'b': '3'}}) != expected
    # A Secret's type is covered; its stringData never appears in what the API returns.
    s = {'data': {'p': 'aHVudGVyMg=='}, 'type': 'Opaque'}
    basic = dict(s, type='kubernetes.io/basic-auth')
    assert cd.object_digest('Secret', s) != cd.object_digest('Secret', basic)
    assert 'aHVudGVyMg==' not in cd.object_digest('Secret', s)


def test_annotation_round_trip_and_changes():
    refs = cd.references(None, config_maps=['cm', 'gone'], secrets=['s'])
    refs[1].optional = True
    objects = {'ConfigMap/cm': {'data': {'a': '1'}}, 'Secret/s': {'data': {'p': 'eA=='}}}
    assert [r.key for r in cd.missing_required(refs, objects)] == []
    digests = cd.digests(refs, objects)
    assert digests['ConfigMap/gone'] == cd.ABSENT
    value = cd.format_annotation(digests)
    assert value.split(',')[0].startswith('ConfigMap/cm=') and cd.parse_annotation(value) == digests
    assert cd.parse_annotation('garbage') == {} and cd.parse_annotation(None) == {}
    later = dict(digests, **{'ConfigMap/cm': 'f' * 64, 'Secret/new': 'e' * 64})
    del later['Secret/s']
    assert cd.changes(digests, later) == [
        {'object': 'ConfigMap/cm', 'change': 'changed'}, {'object': 'Secret/new', 'change': 'added'},
        {'object': 'Secret/s', 'change': 'removed'}]
    assert cd.changes(digests, digests) == []
    assert cd.describe_changes(None, []) == 'no configuration digest recorded yet'
    assert cd.describe_changes(value, cd.changes(digests, later)) == (
        'ConfigMap/cm changed, Secret/new added, Secret/s removed')


def test_missing_required_objects_are_named():
    refs = cd.references(None, config_maps=['a'], secrets=['b'])
    missing = cd.missing_required(refs, {})
    assert cd.missing_message(missing, 'shop') == (
        'ConfigMap "a", Secret "b" not found in namespace "shop"; nothing was restarted. Create them, or '
        'mark the pod template reference optional: true if the workload runs without it')


def test_restart_patch_and_template_agree():
    # The JSON patch, applied by the same RFC 6902 library the API server's behaviour follows, gives
    # the template restarted_template computes, whatever the template's metadata looked like.
    key = 'kubectl.kubernetes.io/restartedAt'
    for t in (template(annotations={'keep': 'me', key: 'old'}), template(), {'spec': {}}):
        workload = {'metadata': {'name': 'web', 'generation': 7, 'resourceVersion': '99'},
                    'spec': {'template': t}}
        patch = cd.restart_patch(workload, 'T', 'ConfigMap/a=x', key)
        assert patch[0] == {'op': 'test', 'path': '/metadata/generation', 'value': 7}
        after = cd.restarted_template(t, 'T', 'ConfigMap/a=x', key)
        assert jsonpatch.apply_patch(workload, patch)['spec']['template'] == after
        assert after['metadata']['annotations'][key] == 'T'
        assert cd.recorded(after) == 'ConfigMap/a=x' and cd.recorded(t) is None


def test_record_patch_and_annotations_agree_and_leave_the_template():
    for annotations in (None, {}, {'keep': 'me'}, {cd.CONFIG_DIGEST_ANNOTATION: 'ConfigMap/a=old'}):
        metadata = {'name': 'web', 'generation': 3}
        if annotations is not None:
            metadata['annotations'] = annotations
        workload = {'metadata': metadata, 'spec': {'template': template()}}
        patch = cd.record_patch(workload, 'ConfigMap/a=x')
        assert patch[0] == {'op': 'test', 'path': '/metadata/generation', 'value': 3}
        after = jsonpatch.apply_patch(workload, patch)
        assert after['metadata']['annotations'] == cd.recorded_annotations(annotations, 'ConfigMap/a=x')
        assert after['spec'] == workload['spec']
        assert cd.recorded_on_workload(after) == 'ConfigMap/a=x'
        assert cd.recorded(after['spec']['template']) is None


def test_a_restart_moves_the_first_runs_record_into_the_template():
    key = 'kubectl.kubernetes.io/restartedAt'
    workload = {'metadata': {'generation': 4, 'annotations': {cd.CONFIG_DIGEST_ANNOTATION: 'ConfigMap/a=x',
                                                              'keep': 'me'}},
                'spec': {'template': template()}}
    after = jsonpatch.apply_patch(workload, cd.restart_patch(workload, 'T', 'ConfigMap/a=y', key))
    assert after['metadata']['annotations'] == {'keep': 'me'}
    assert cd.recorded(after['spec']['template']) == 'ConfigMap/a=y'
    # Someone changed the record since it was read: the patch's test fails, nothing is applied.
    other = {cd.CONFIG_DIGEST_ANNOTATION: 'z'}
    changed = dict(workload, metadata=dict(workload['metadata'], annotations=other))
    with pytest.raises(jsonpatch.JsonPatchTestFailed):
        jsonpatch.apply_patch(changed, cd.restart_patch(workload, 'T', 'ConfigMap/a=y', key))

import copy

import jsonpatch
import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import patches
from tests.kubesim.machinery import patch as kube_patch
from tests.kubesim.apiserver import typed
from tests.kubesim.apiserver.registry import resources  # noqa: F401 (fills typed's kinds as it loads)
from tests.kubesim.machinery.errors import ApiError

from tests.support.manifests import (
    controller_revision,
    deployment,
    replica_set,
    statefulset,
    template,
)

pytestmark = pytest.mark.unit


def test_pause_and_resume_patches():
    assert patches.pause_patch(True) == {'spec': {'paused': True}}
    # kubectl's resume removes the field (its two-way merge patch sets it to null)
    assert patches.pause_patch(False) == {'spec': {'paused': None}}


def test_restart_patch_sets_template_annotation():
    assert patches.restart_patch('2026-01-02T03:04:05Z') == {
        'spec': {'template': {'metadata': {'annotations': {
            'kubectl.kubernetes.io/restartedAt': '2026-01-02T03:04:05Z'}}}}}




def test_restarted_template_keeps_everything_else():
    t = template('a', annotations={'keep': 'me'})
    out = patches.restarted_template(t, 'T')
    assert out['metadata']['annotations'] == {'keep': 'me', 'kubectl.kubernetes.io/restartedAt': 'T'}
    assert 'kubectl.kubernetes.io/restartedAt' not in t['metadata']['annotations']


def test_image_patch_merges_by_name_and_only_changed_containers():
    t = template('nginx:1', init_image='migrate:1')
    t['spec']['containers'].append({'name': 'sidecar', 'image': 'envoy:1'})
    assert patches.image_patch(t, {'web': 'nginx:2', 'sidecar': 'envoy:1'}) == {
        'spec': {'template': {'spec': {'containers': [{'name': 'web', 'image': 'nginx:2'}]}}}}
    assert patches.image_patch(t, {'migrate': 'migrate:2'}) == {
        'spec': {'template': {'spec': {'initContainers': [{'name': 'migrate', 'image': 'migrate:2'}]}}}}


def test_image_patch_noop_returns_none_and_change_cause_rides_along():
    t = template('nginx:1')
    assert patches.image_patch(t, {'web': 'nginx:1'}) is None
    assert patches.image_patch(t, {'web': 'nginx:1'}, {'kubernetes.io/change-cause': 'x'}, 'x') is None
    assert patches.image_patch(t, {'web': 'nginx:1'}, {}, 'why') == {
        'metadata': {'annotations': {'kubernetes.io/change-cause': 'why'}}}
    assert patches.image_patch(t, {'web': 'nginx:2'}, {}, 'why') == {
        'metadata': {'annotations': {'kubernetes.io/change-cause': 'why'}},
        'spec': {'template': {'spec': {'containers': [{'name': 'web', 'image': 'nginx:2'}]}}}}


def test_wildcard_sets_every_container_and_explicit_name_wins():
    t = template('nginx:1', init_image='migrate:1')
    assert patches.resolve_images(t, {'*': 'all:1'}) == {'migrate': 'all:1', 'web': 'all:1'}
    assert patches.resolve_images(t, {'*': 'all:1', 'web': 'web:9'}) == {'migrate': 'all:1', 'web': 'web:9'}
    out = patches.imaged_template(t, {'*': 'all:1'})
    assert out['spec']['initContainers'][0]['image'] == 'all:1'
    assert out['spec']['containers'][0] == {'name': 'web', 'image': 'all:1', 'resources': {}}


def test_unknown_container_names_the_existing_ones():
    with pytest.raises(patches.UnknownContainer) as e:
        patches.image_patch(template('nginx:1', init_image='m:1'), {'nope': 'x', 'web': 'y'})
    assert str(e.value) == 'unable to find container named "nope" (containers: migrate, web)'


def test_deployment_undo_patch_is_guarded_json_patch():
    d = deployment('nginx:3', annotations={
        'deployment.kubernetes.io/revision': '4',
        'kubectl.kubernetes.io/last-applied-configuration': '{}',
        'deployment.kubernetes.io/revision-history': '1,2',
        'only-on-deployment': 'dropped',
        'kubernetes.io/change-cause': 'current cause'})
    rs = replica_set(2, 'nginx:2', annotations={
        'kubernetes.io/change-cause': 'old cause',
        'deployment.kubernetes.io/desired-replicas': '3',
        'deployment.kubernetes.io/max-replicas': '4',
        'custom': 'from-rs'})
    ops = patches.deployment_undo_patch(d, rs)
    # guarded by what the decision was made from: the spec (generation) and the annotations it replaces
    assert ops[0] == {'op': 'test', 'path': '/metadata/generation', 'value': 4}
    assert ops[1] == {'op': 'test', 'path': '/metadata/annotations', 'value': d['metadata']['annotations']}
    assert ops[2]['op'] == 'replace' and ops[2]['path'] == '/spec/template'
    assert ops[2]['value']['metadata']['labels'] == {'app': 'web'}
    assert ops[2]['value']['spec']['containers'][0]['image'] == 'nginx:2'
    assert ops[3] == {'op': 'replace', 'path': '/metadata/annotations', 'value': {
        # skip-listed: kept from the Deployment (the RS's desired/max-replicas are not copied)
        'deployment.kubernetes.io/revision': '4',
        'kubectl.kubernetes.io/last-applied-configuration': '{}',
        'deployment.kubernetes.io/revision-history': '1,2',
        # the rest: from the ReplicaSet
        'kubernetes.io/change-cause': 'old cause',
        'custom': 'from-rs'}}
    # the source ReplicaSet keeps its hash label
    assert rs['spec']['template']['metadata']['labels']['pod-template-hash'] == 'h2'


def test_deployment_undo_patch_adds_annotations_when_absent():
    d = deployment('nginx:3')
    del d['metadata']['annotations']
    ops = patches.deployment_undo_patch(d, replica_set(1, 'nginx:1'))
    # no annotations to test: a JSON patch cannot test an absence, so the resourceVersion guards them
    assert ops[:2] == [{'op': 'test', 'path': '/metadata/generation', 'value': 4},
                       {'op': 'test', 'path': '/metadata/resourceVersion', 'value': '100'}]
    assert ops[3]['op'] == 'add'
    assert ops[3]['value'] == {}


def test_guards_fall_back_to_the_resource_version_once():
    meta = {'resourceVersion': '7'}
    assert patches.spec_guard(meta) == patches.annotations_guard(meta) == {
        'op': 'test', 'path': '/metadata/resourceVersion', 'value': '7'}
    d = deployment('nginx:3')
    del d['metadata']['annotations'], d['metadata']['generation']
    ops = patches.deployment_undo_patch(d, replica_set(1, 'nginx:1'))
    assert [op['op'] for op in ops] == ['test', 'replace', 'add']


def test_json_pointer_escapes_tilde_and_slash():
    assert patches.json_pointer('metadata', 'annotations', 'kubernetes.io/change-cause') == \
        '/metadata/annotations/kubernetes.io~1change-cause'
    assert patches.json_pointer('a~b/c') == '/a~0b~1c'
    doc = {'metadata': {'annotations': {'a~b/c': 'x'}}}
    pointer = patches.json_pointer('metadata', 'annotations', 'a~b/c')
    assert jsonpatch.apply_patch(doc, [{'op': 'test', 'path': pointer, 'value': 'x'}]) == doc


def _sts(annotations=None):
    sts = statefulset('redis:7')
    if annotations is not None:
        sts['metadata']['annotations'] = annotations
    return sts


CAUSE = 'kubernetes.io/change-cause'


@pytest.mark.parametrize('current, revision', [
    ({CAUSE: 'broken', 'mine': 'kept'}, {CAUSE: 'v2', 'other': 'x'}),  # replaced
    ({CAUSE: 'broken', 'mine': 'kept'}, None),                           # removed
    ({CAUSE: 'broken'}, None),                                           # removed, last one
    ({'mine': 'kept'}, {CAUSE: 'v2'}),                                   # added to the map
    (None, {CAUSE: 'v2'}),                                               # added with the map
    ({CAUSE: 'v2', 'mine': 'kept'}, {CAUSE: 'v2'}),                      # already equal
    (None, None),
])
def test_controller_revision_undo_json_patch_leaves_what_its_data_left(current, revision):
    """The JSON patch leaves the object exactly as the strategic merge patch of the revision's data
    (plus the change-cause) leaves it, and is guarded by the generation."""
    sts = _sts(current)
    cr = controller_revision(2, 'redis:2', labels={'app': 'db', 'pod-template-hash': 'kept-as-is'})
    if revision is not None:
        cr['metadata']['annotations'] = revision
    ops = patches.controller_revision_undo_patch(sts, cr)
    assert ops[0] == {'op': 'test', 'path': '/metadata/generation', 'value': 2}
    is_test = [op['op'] == 'test' for op in ops]
    assert is_test == sorted(is_test, reverse=True)  # every test before the first change
    by_json_patch = kube_patch.json_patch(sts, ops)

    strategic = copy.deepcopy(cr['data'])
    wanted = (revision or {}).get(CAUSE)
    if (current or {}).get(CAUSE) != wanted:
        strategic['metadata'] = {'annotations': {CAUSE: wanted}}
    by_data = kube_patch.strategic_merge_patch(sts, strategic)
    # compared as the API server holds them (its typed round-trip drops the null creationTimestamp
    # older servers print in a revision's data, which the strategic merge drops on its own)
    assert typed.normalise('StatefulSet', by_json_patch) == typed.normalise('StatefulSet', by_data)
    assert by_json_patch['spec']['template']['spec']['containers'][0]['image'] == 'redis:2'
    assert (by_json_patch['metadata'].get('annotations') or {}) == \
        patches.controller_revision_undo_annotations(current, cr)


def test_controller_revision_undo_json_patch_fails_on_a_concurrent_change_cause():
    sts = _sts({CAUSE: 'broken'})
    cr = controller_revision(2, 'redis:2')
    cr['metadata']['annotations'] = {CAUSE: 'v2'}
    ops = patches.controller_revision_undo_patch(sts, cr)
    moved = copy.deepcopy(sts)
    moved['metadata']['annotations'][CAUSE] = 'someone else'
    with pytest.raises(ApiError) as e:
        kube_patch.json_patch(moved, ops)
    assert e.value.code == 422
    # the key was absent when read: the whole map is tested, so a concurrent addition fails it too
    sts = _sts({'mine': 'kept'})
    ops = patches.controller_revision_undo_patch(sts, cr)
    moved = copy.deepcopy(sts)
    moved['metadata']['annotations'][CAUSE] = 'someone else'
    with pytest.raises(ApiError):
        kube_patch.json_patch(moved, ops)
    # a status write (same generation, new resourceVersion) does not
    moved = copy.deepcopy(sts)
    moved['metadata']['resourceVersion'] = '999'
    moved['status'] = {'observedGeneration': 2, 'readyReplicas': 1}
    assert kube_patch.json_patch(moved, ops)['metadata']['annotations'][CAUSE] == 'v2'


def test_partition_rides_in_the_image_patch():
    t = template('nginx:1')
    assert patches.image_patch(t, {'web': 'nginx:2'}, partition=2, current_partition=0) == {
        'spec': {'template': {'spec': {'containers': [{'name': 'web', 'image': 'nginx:2'}]}},
                 'updateStrategy': {'rollingUpdate': {'partition': 2}}}}
    # Only the partition (images as they are), and nothing at all when both are in place.
    assert patches.image_patch(t, {}, partition=0, current_partition=2) == {
        'spec': {'updateStrategy': {'rollingUpdate': {'partition': 0}}}}
    assert patches.image_patch(t, {'web': 'nginx:1'}, partition=2, current_partition=2) is None


def test_update_partition_defaults_and_ondelete():
    assert patches.update_partition({}) == 0
    rolling = {'type': 'RollingUpdate', 'rollingUpdate': {'partition': 3}}
    assert patches.update_partition({'updateStrategy': rolling}) == 3
    assert patches.update_partition({'updateStrategy': {'type': 'OnDelete'}}) is None


# ---- a release's put-back --------------------------------------------------------------------------

CAUSE = 'kubernetes.io/change-cause'


def released(generation=3, annotations=None, image='web:2'):
    """A workload as a release's write left it."""
    return {
        'metadata': {
            'generation': generation,
            'annotations': dict(annotations or {}),
            'resourceVersion': '7',
        },
        'spec': {'template': {'spec': {'containers': [{'name': 'web', 'image': image}]}}},
    }


def test_the_put_back_restores_the_template_and_change_cause_exactly():
    written = released(annotations={CAUSE: 'release 2', 'keep': 'me'})
    original = {'spec': {'containers': [{'name': 'web', 'image': 'web:1', 'unknownField': {'x': 1}}]}}
    body = patches.template_restore_patch(written, original, 'release 1')
    after = jsonpatch.apply_patch(written, body)
    assert after['spec']['template'] == original
    assert after['metadata']['annotations'] == {CAUSE: 'release 1', 'keep': 'me'}


def test_the_put_back_removes_a_change_cause_the_workload_did_not_have():
    written = released(annotations={CAUSE: 'release 2'})
    after = jsonpatch.apply_patch(written, patches.template_restore_patch(written, {}, None))
    assert after['metadata']['annotations'] == {}


def test_the_put_back_is_refused_once_anyone_wrote_the_spec_again():
    written = released(generation=3, annotations={CAUSE: 'release 2'})
    body = patches.template_restore_patch(written, {}, 'release 1')
    later = released(generation=4, annotations={CAUSE: 'release 2'})
    with pytest.raises(jsonpatch.JsonPatchTestFailed):
        jsonpatch.apply_patch(later, body)

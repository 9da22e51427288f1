import datetime

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils import patches

from .fixtures import controller_revision, deployment, replica_set, template

pytestmark = pytest.mark.unit


def test_pause_and_resume_patches():
    assert patches.pause_patch(True) == {'spec': {'paused': True}}
    # kubectl's resume removes the field (its two-way merge patch sets it to null)
    assert patches.pause_patch(False) == {'spec': {'paused': None}}


def test_restart_patch_sets_template_annotation():
    assert patches.restart_patch('2026-01-02T03:04:05Z') == {
        'spec': {'template': {'metadata': {'annotations': {
            'kubectl.kubernetes.io/restartedAt': '2026-01-02T03:04:05Z'}}}}}


def test_rfc3339_like_go():
    utc = datetime.datetime(2026, 1, 2, 3, 4, 5, 123456, tzinfo=datetime.timezone.utc)
    assert patches.rfc3339_now(utc) == '2026-01-02T03:04:05Z'
    plus8 = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.timezone(datetime.timedelta(hours=8)))
    assert patches.rfc3339_now(plus8) == '2026-01-02T03:04:05+08:00'


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
    assert ops[0] == {'op': 'test', 'path': '/metadata/resourceVersion', 'value': '100'}
    assert ops[1]['op'] == 'replace' and ops[1]['path'] == '/spec/template'
    assert ops[1]['value']['metadata']['labels'] == {'app': 'web'}
    assert ops[1]['value']['spec']['containers'][0]['image'] == 'nginx:2'
    assert ops[2] == {'op': 'replace', 'path': '/metadata/annotations', 'value': {
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
    assert ops[2]['op'] == 'add'
    assert ops[2]['value'] == {}


def test_controller_revision_undo_patch_is_its_data():
    cr = controller_revision(2, 'redis:2')
    body = patches.controller_revision_undo_patch(cr)
    assert body == cr['data'] and body is not cr['data']
    assert body['spec']['template']['$patch'] == 'replace'


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

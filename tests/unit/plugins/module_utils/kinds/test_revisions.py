import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import revisions

from tests.support.manifests import (
    DEPLOY_UID,
    STS_UID,
    controller_revision,
    replica_set,
    template,
)

pytestmark = pytest.mark.unit


def rs_history(*numbers):
    return revisions.replica_set_revisions([replica_set(n, 'nginx:%d' % n) for n in numbers], DEPLOY_UID)


def test_replica_sets_sorted_oldest_first_with_non_contiguous_numbers():
    revs = rs_history(4, 1, 3)
    assert [r.number for r in revs] == [1, 3, 4]
    assert revisions.find(revs, 3).template['spec']['containers'][0]['image'] == 'nginx:3'


def test_previous_is_second_highest_not_current_minus_one():
    revs = rs_history(1, 3, 4)
    assert revisions.previous(revs).number == 3
    revs = rs_history(1, 2, 5)
    assert revisions.previous(revs).number == 2


def test_previous_needs_two_revisions():
    assert revisions.previous(rs_history(7)) is None
    assert revisions.previous([]) is None


def test_unknown_revision_lists_existing():
    with pytest.raises(revisions.RevisionNotFound) as e:
        revisions.find(rs_history(1, 3, 4), 2)
    assert str(e.value) == 'unable to find specified revision 2 in history (existing revisions: 1, 3, 4)'


def test_only_controlled_replica_sets_count():
    items = [replica_set(1, 'a'), replica_set(2, 'b', owner_uid='someone-else'),
             replica_set(3, 'c', controller=False), replica_set(4, 'd')]
    del items[3]['metadata']['ownerReferences']
    items.append(replica_set(5, 'e'))
    assert [r.number for r in revisions.replica_set_revisions(items, DEPLOY_UID)] == [1, 5]


def test_replica_set_without_valid_revision_annotation_is_skipped():
    bad = replica_set(2, 'x')
    bad['metadata']['annotations']['deployment.kubernetes.io/revision'] = 'abc'
    revs = revisions.replica_set_revisions([replica_set(1, 'a'), bad], DEPLOY_UID)
    assert [r.number for r in revs] == [1]


def test_revision_template_has_no_pod_template_hash_and_source_is_untouched():
    rs = replica_set(2, 'nginx:2')
    rev = revisions.replica_set_revisions([rs], DEPLOY_UID)[0]
    assert 'pod-template-hash' not in rev.template['metadata']['labels']
    assert rs['spec']['template']['metadata']['labels']['pod-template-hash'] == 'h2'


def test_templates_equal_ignores_hash_and_null_or_empty_fields():
    a = template('nginx:1')
    b = template('nginx:1', labels={'app': 'web', 'pod-template-hash': 'abc'})
    del b['metadata']['creationTimestamp']
    b['spec']['containers'][0]['resources'] = {}
    b['spec']['volumes'] = []
    assert revisions.templates_equal(a, b)


def test_templates_differ_on_image_and_on_unknown_fields():
    assert not revisions.templates_equal(template('nginx:1'), template('nginx:2'))
    assert not revisions.templates_equal(template('nginx:1'),
                                         template('nginx:1', extra_spec={'x-unknown-field': {'k': 1}}))


def test_current_revision_matches_template():
    revs = rs_history(1, 3, 4)
    assert revisions.current(revs, template('nginx:3')).number == 3
    assert revisions.current(revs, template('nginx:9')) is None


def test_summary_lists_images_with_init_containers_flagged():
    rs = replica_set(2, 'nginx:2', init_image='migrate:1', replicas=3,
                     annotations={'kubernetes.io/change-cause': 'bump'})
    rev = revisions.replica_set_revisions([rs], DEPLOY_UID)[0]
    s = rev.summary(current=True)
    assert s == {'revision': 2, 'change_cause': 'bump', 'name': 'web-h2', 'created': '2026-01-02T00:00:00Z',
                 'images': {'migrate': 'migrate:1', 'web': 'nginx:2'}, 'init_containers': ['migrate'],
                 'current': True, 'replicas': 3}


def test_controller_revisions_template_from_data_without_patch_directive():
    crs = [controller_revision(3, 'redis:3'), controller_revision(1, 'redis:1'),
           controller_revision(2, 'redis:2', owner_uid='other')]
    revs = revisions.controller_revisions(crs, STS_UID)
    assert [r.number for r in revs] == [1, 3]
    assert '$patch' not in revs[0].template
    assert revs[1].template['spec']['containers'][0]['image'] == 'redis:3'
    assert 'replicas' not in revs[0].summary()


def test_renumbered_revision_is_found_only_while_it_is_current():
    # History 1, 3, 4 after "undo to 2": revision 2's ReplicaSet now carries 4 and remembers 2.
    revs = revisions.replica_set_revisions([
        replica_set(1, 'nginx:1'), replica_set(3, 'nginx:3'),
        replica_set(4, 'nginx:2', annotations={'deployment.kubernetes.io/revision-history': '2'})],
        DEPLOY_UID)
    assert revs[-1].former_numbers == (2,)
    current = revs[-1].template
    assert revisions.find(revs, 2, current_template=current).number == 4
    # Once another template is current, 2 is gone, as kubectl says.
    with pytest.raises(revisions.RevisionNotFound):
        revisions.find(revs, 2, current_template=revs[1].template)
    with pytest.raises(revisions.RevisionNotFound):
        revisions.find(revs, 2)


def test_template_diff_ignores_controller_labels_and_empty_fields():
    a = template('nginx:1.25', labels={'app': 'web', 'pod-template-hash': 'h1'})
    b = template('nginx:1.26', labels={'app': 'web', 'controller-revision-hash': 'h2'})
    b['metadata']['creationTimestamp'] = None
    b['metadata']['annotations'] = {}
    text = revisions.template_diff(a, b, 'revision 1', 'revision 2')
    lines = text.splitlines()
    assert lines[:2] == ['--- revision 1', '+++ revision 2']
    assert [ln for ln in lines[2:] if ln[:1] in '+-'] == ['-  - image: nginx:1.25', '+  - image: nginx:1.26']
    assert revisions.template_diff(a, template('nginx:1.25')) == ''
    # The inputs are left as they were.
    assert a['metadata']['labels']['pod-template-hash'] == 'h1'


def test_template_differences_name_where_two_templates_differ():
    a = {'metadata': {'labels': {'app': 'web', 'pod-template-hash': 'x'}},
         'spec': {'containers': [{'name': 'app', 'image': 'nginx:1'}]}}
    b = {'metadata': {'labels': {'app': 'web'}},
         'spec': {'containers': [{'name': 'app', 'image': 'nginx:1',
                                  'securityContext': {'privileged': True}}],
                  'hostNetwork': True}}
    assert revisions.template_differences(a, a) == []
    assert revisions.template_differences(a, b) == ['spec.containers[0].securityContext', 'spec.hostNetwork']
    c = dict(b, spec=dict(b['spec'], containers=b['spec']['containers'] + [{'name': 'side', 'image': 'x'}]))
    assert revisions.template_differences(a, c) == ['spec.containers', 'spec.hostNetwork']
    many = {'spec': dict.fromkeys('abcde', 1)}
    assert revisions.template_differences({}, many) == ['spec']
    assert revisions.template_differences({'spec': {'z': 0}}, many) == ['spec.a', 'spec.b', 'spec.c', '...']

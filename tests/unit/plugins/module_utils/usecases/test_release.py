import jsonpatch
import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import patches
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases import release_targets as release

pytestmark = pytest.mark.unit

CAUSE = 'kubernetes.io/change-cause'


def obj(generation=3, annotations=None, image='web:2'):
    return {
        'metadata': {
            'generation': generation,
            'annotations': dict(annotations or {}),
            'resourceVersion': '7',
        },
        'spec': {'template': {'spec': {'containers': [{'name': 'web', 'image': image}]}}},
    }


def test_the_put_back_restores_the_template_and_change_cause_exactly():
    written = obj(annotations={CAUSE: 'release 2', 'keep': 'me'})
    original = {'spec': {'containers': [{'name': 'web', 'image': 'web:1', 'unknownField': {'x': 1}}]}}
    body = patches.template_restore_patch(written, original, 'release 1')
    after = jsonpatch.apply_patch(written, body)
    assert after['spec']['template'] == original
    assert after['metadata']['annotations'] == {CAUSE: 'release 1', 'keep': 'me'}


def test_the_put_back_removes_a_change_cause_the_workload_did_not_have():
    written = obj(annotations={CAUSE: 'release 2'})
    after = jsonpatch.apply_patch(written, patches.template_restore_patch(written, {}, None))
    assert after['metadata']['annotations'] == {}


def test_the_put_back_is_refused_once_anyone_wrote_the_spec_again():
    written = obj(generation=3, annotations={CAUSE: 'release 2'})
    body = patches.template_restore_patch(written, {}, 'release 1')
    later = obj(generation=4, annotations={CAUSE: 'release 2'})
    with pytest.raises(jsonpatch.JsonPatchTestFailed):
        jsonpatch.apply_patch(later, body)


def test_targets_refuse_what_is_not_a_workload_before_any_request():
    with pytest.raises(release.PreflightFailed) as e:
        release.build_targets(
            [
                {'kind': 'ReplicaSet', 'name': 'rs', 'images': {'a': 'b'}},
                {'kind': 'deploy', 'name': ' ', 'images': {'a': 'b'}},
                {'kind': 'sts', 'name': 'db', 'images': {'a': None}},
                {'kind': 'ds', 'name': 'agent', 'images': {}},
                {'kind': 'deploy', 'name': 'web', 'images': {'a': 'b'}},
                {'kind': 'Deployment', 'name': 'web', 'images': {'a': 'c'}},
            ],
            'shop',
        )
    problems = e.value.args[0]
    assert problems[0].startswith('workloads[0] (rs): kind "ReplicaSet" is not a kind')
    assert problems[1] == 'workloads[1]: name is empty'
    assert problems[2] == 'StatefulSet shop/db: no image given for container a'
    assert problems[3] == 'DaemonSet shop/agent: images is empty'
    assert problems[4] == 'Deployment shop/web: listed twice'


def test_targets_take_the_entry_namespace_and_cause_first():
    (t,) = release.build_targets(
        [{'kind': 'deploy', 'name': 'web', 'namespace': 'a', 'images': {'w': 'x:1'}}], 'b', None
    )
    assert (t.namespace, t.change_cause) == ('a', 'rollout_release: w=x:1')


def test_helm_and_argo_cd_owners_are_found_from_labels_annotations_and_managed_fields():
    helm = {
        'metadata': {
            'labels': {'app.kubernetes.io/managed-by': 'Helm'},
            'annotations': {'meta.helm.sh/release-name': 'shop'},
        }
    }
    argo = {
        'metadata': {'annotations': {'argocd.argoproj.io/tracking-id': 'shop-app:apps/Deployment:shop/web'}}
    }
    fields = {'metadata': {'managedFields': [{'manager': 'argocd-controller'}, {'manager': 'kubectl'}]}}
    assert release.managers(helm) == ['Helm (release shop)']
    assert release.managers(argo) == ['Argo CD (application shop-app)']
    assert release.managers(fields) == ['Argo CD']
    assert release.managers({'metadata': {'labels': {'app.kubernetes.io/instance': 'web'}}}) == []


def test_the_result_groups_labels_by_outcome():
    entries = [
        {'kind': 'Deployment', 'namespace': 'a', 'name': 'x', 'outcome': 'upgraded', 'changed': True},
        {'kind': 'Deployment', 'namespace': 'a', 'name': 'y', 'outcome': 'rolled_back', 'changed': True},
        {'kind': 'StatefulSet', 'namespace': 'a', 'name': 'z', 'outcome': 'unchanged', 'changed': False},
    ]
    fact = release.result_fields(entries, ['line'])
    assert fact['upgraded'] == ['Deployment a/x'] and fact['rolled_back'] == ['Deployment a/y']
    assert fact['unchanged'] == ['StatefulSet a/z'] and fact['summary'] == ['line']
    assert fact['rollback_failed'] == [] and fact['untouched'] == []
    assert fact['workloads'][0]['workload'] == 'Deployment a/x'

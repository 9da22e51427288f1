"""Pure pieces of the StatefulSet forced rollback, kubectl's kind spellings, and the change-cause an
undo restores from a ControllerRevision."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import patches
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workloads import (
    DaemonSet,
    Deployment,
    StatefulSet,
    UnknownKind,
    pod_backing_off,
    rollout_kind,
    rollout_kinds,
    stuck_pods,
)

from tests.support.manifests import STS_UID, controller_revision

pytestmark = pytest.mark.unit


def pod(ordinal, revision, ready, waiting=None, owner=STS_UID, deleting=False):
    p = {'metadata': {'name': 'db-%d' % ordinal, 'uid': 'u%d' % ordinal, 'resourceVersion': '1',
                      'labels': {'app': 'db', 'controller-revision-hash': revision},
                      'ownerReferences': [{'kind': 'StatefulSet', 'uid': owner, 'controller': True}]},
         'status': {'conditions': [{'type': 'Ready', 'status': 'True' if ready else 'False'}]}}
    if waiting:
        p['status']['containerStatuses'] = [{'name': 'app', 'state': {'waiting': {'reason': waiting}}}]
    if deleting:
        p['metadata']['deletionTimestamp'] = '2026-01-01T00:00:00Z'
    return p


def names(pods):
    return [p['metadata']['name'] for p in pods]


def test_stuck_pods_are_those_of_another_revision_not_ready_lowest_ordinal_first():
    pods = [pod(3, 'db-bad', False, 'ImagePullBackOff'), pod(0, 'db-good', True), pod(1, 'db-good', False),
            pod(2, 'db-bad', False), pod(4, 'db-old', True)]
    # db-1 is not Ready but on the restored revision: never touched; db-4 is Ready: the controller's job.
    assert names(stuck_pods(pods, STS_UID, 'db', 'db-good')) == ['db-2', 'db-3']


def test_stuck_pods_ignore_other_owners_and_pods_being_deleted():
    pods = [pod(1, 'db-bad', False, owner='other'), pod(2, 'db-bad', False, deleting=True)]
    assert stuck_pods(pods, STS_UID, 'db', 'db-good') == []


def test_a_ready_pod_in_a_crash_back_off_is_stuck():
    p = pod(1, 'db-bad', True, 'CrashLoopBackOff')
    assert pod_backing_off(p) == 'CrashLoopBackOff'
    assert names(stuck_pods([p], STS_UID, 'db', 'db-good')) == ['db-1']


@pytest.mark.parametrize('spelling,kind', [
    ('Deployment', Deployment), ('deployment', Deployment), ('DEPLOY', Deployment),
    ('deployments', Deployment),
    ('deployments.apps', Deployment), ('sts', StatefulSet), ('StatefulSets', StatefulSet),
    ('statefulset.v1.apps', StatefulSet), ('ds', DaemonSet), ('daemonset', DaemonSet)])
def test_kubectl_spellings_of_the_kinds(spelling, kind):
    assert rollout_kind(spelling) is kind


def test_unknown_kind_and_replication_controller_hint():
    with pytest.raises(UnknownKind, match=r'kind "Pod" is not a kind rollouts apply to; use one of'):
        rollout_kind('Pod')
    with pytest.raises(UnknownKind, match='use the rolling_update_rc module'):
        rollout_kind('rc')


def test_lists_of_kinds_as_kubectl_reads_deploy_comma_sts():
    assert rollout_kinds('deploy,sts') == [Deployment, StatefulSet]
    assert rollout_kinds(['ds', 'Deployment,daemonsets.apps']) == [DaemonSet, Deployment]
    assert rollout_kinds(['sts', 'statefulsets']) == [StatefulSet]  # each kind once
    with pytest.raises(UnknownKind, match='kind "pod" is not a kind'):
        rollout_kinds('deploy,pod')
    with pytest.raises(UnknownKind, match='kind "" is not a kind'):
        rollout_kinds('deploy,')
    with pytest.raises(UnknownKind, match='kind is empty'):
        rollout_kinds([])


def test_controller_revision_undo_restores_or_removes_the_change_cause():
    cr = controller_revision(2, 'redis:6')
    cr['metadata']['annotations'] = {'kubernetes.io/change-cause': 'v6', 'other': 'x'}
    broken = {'kubernetes.io/change-cause': 'broken', 'mine': 'kept'}
    assert patches.controller_revision_undo_annotations(broken, cr) == {
        'kubernetes.io/change-cause': 'v6', 'mine': 'kept'}  # the revision's other annotations are not copied
    # the revision had none: the current one is removed
    assert patches.controller_revision_undo_annotations(broken, controller_revision(1, 'redis:5')) == {
        'mine': 'kept'}
    assert patches.controller_revision_undo_annotations(None, controller_revision(1, 'redis:5')) == {}
    removal = {'metadata': {'annotations': {'kubernetes.io/change-cause': None}}}
    assert patches.annotated({'a': '1', 'kubernetes.io/change-cause': 'x'}, removal) == {'a': '1'}

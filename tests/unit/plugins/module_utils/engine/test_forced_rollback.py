"""The change-cause an undo restores from a ControllerRevision. (The pure pieces of the forced
rollback - stuck pods, kubectl's kind spellings - are the kind classes', tested in
kinds/test_workloads.py.)"""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import patches

from tests.support.manifests import controller_revision

pytestmark = pytest.mark.unit


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

"""Unit tests of module_utils/rc/requests.py (the rolling update's requests)."""

import copy

import pytest

from tests.support.rc import NEXT, ORIGINAL, options, rc

pytestmark = pytest.mark.unit


# ---- fencing and the lease (pure parts) ------------------------------------------------------------
def test_fence_tests_guard_identity_replicas_selector_and_update_annotations():
    from ansible_collections.kubeops.rollout.plugins.module_utils.rc import requests as rc_requests
    old = rc(annotations={NEXT: 'web-2', ORIGINAL: '3', 'team': 'shop'}, selector={'app': 'web'})
    ops = rc_requests.fence_tests(old)
    assert all(op['op'] == 'test' for op in ops)
    tested = {op['path']: op['value'] for op in ops}
    assert tested == {'/metadata/uid': 'uid-1', '/spec/replicas': 3, '/spec/selector': {'app': 'web'},
                      '/metadata/annotations/kubectl.kubernetes.io~1next-controller-id': 'web-2',
                      '/metadata/annotations/kubectl.kubernetes.io~1original-replicas': '3'}
    renamed = copy.deepcopy(old)
    renamed['metadata']['annotations'] = {'team': 'shop'}
    assert rc_requests.fenced_fields(renamed) != rc_requests.fenced_fields(old)
    scaled = copy.deepcopy(old)
    scaled['spec']['replicas'] = 1
    scaled['metadata']['annotations']['team'] = 'other'  # not an update annotation: not fenced
    assert rc_requests.fenced_fields(scaled) == rc_requests.fenced_fields(old)


def test_pod_and_lease_paths_quote_every_segment():
    from ansible_collections.kubeops.rollout.plugins.module_utils.rc import lease as rc_lease
    from ansible_collections.kubeops.rollout.plugins.module_utils.rc import requests as rc_requests
    reqs = rc_requests.ControllerRequests(None, options(namespace='team a/b'))
    assert reqs._pods_path() == '/api/v1/namespaces/team%20a%2Fb/pods'
    assert reqs._pods_path('web-1?x') == '/api/v1/namespaces/team%20a%2Fb/pods/web-1%3Fx'
    assert reqs._rc_path('web').startswith('/api/v1/namespaces/team%20a%2Fb/')
    lease = rc_lease.UpdateLease(None, 'team a/b', 'web', 10)
    assert lease.path == '/apis/coordination.k8s.io/v1/namespaces/team%20a%2Fb/leases/rolling-update-rc-web'

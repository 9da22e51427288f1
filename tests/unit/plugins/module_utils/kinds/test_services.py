import copy

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import services
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.services import (
    HorizontalPodAutoscaler,
    Service,
)
from tests.kubesim.machinery import patch as kube_patch
from tests.kubesim.machinery.errors import ApiError

pytestmark = pytest.mark.unit

LABEL = 'kubeops.rollout/color'


def service(selector, annotations=None):
    meta = {'name': 'web', 'namespace': 'shop', 'resourceVersion': '7'}
    if annotations is not None:
        meta['annotations'] = dict(annotations)
    return {
        'apiVersion': 'v1',
        'kind': 'Service',
        'metadata': meta,
        'spec': {'selector': dict(selector), 'ports': [{'name': 'http', 'port': 80}]},
    }


def pod(name, color, ready=True, deleting=False):
    meta = {'name': name, 'labels': {'app': 'web', LABEL: color}}
    if deleting:
        meta['deletionTimestamp'] = '2026-01-01T00:00:00Z'
    return {
        'metadata': meta,
        'status': {'conditions': [{'type': 'Ready', 'status': 'True' if ready else 'False'}]},
    }


def endpoint(name, ready=True, terminating=False):
    return {
        'addresses': ['10.0.0.1'],
        'targetRef': {'kind': 'Pod', 'name': name},
        'conditions': {'ready': ready and not terminating, 'serving': ready, 'terminating': terminating},
    }


def slices(*endpoints, ports=('http',)):
    return [{'endpoints': list(endpoints), 'ports': [{'name': p, 'port': 80} for p in ports]}]


@pytest.mark.parametrize(
    'annotations', [None, {}, {'other': 'x'}, {'kubeops.rollout/bluegreen': '{"old": 1}'}]
)
def test_the_selector_patch_switches_once_and_never_over_another_change(annotations):
    svc = service({'app': 'web', LABEL: 'blue'}, annotations)
    ops = Service(svc).selector_patch(
        {'app': 'web', LABEL: 'green'}, 'kubeops.rollout/bluegreen', '{"new": 1}'
    )
    after = kube_patch.json_patch(copy.deepcopy(svc), ops)
    assert after['spec']['selector'][LABEL] == 'green'
    assert after['metadata']['annotations']['kubeops.rollout/bluegreen'] == '{"new": 1}'
    for key, value in (annotations or {}).items():
        if key != 'kubeops.rollout/bluegreen':
            assert after['metadata']['annotations'][key] == value
    # The same patch again (a lost answer's repeat) fails its test: it cannot switch twice.
    after['metadata']['resourceVersion'] = '8'
    with pytest.raises(ApiError):
        kube_patch.json_patch(after, ops)
    # Someone else's edit of the selector since the read: not written over.
    edited = copy.deepcopy(svc)
    edited['spec']['selector']['tier'] = 'front'
    with pytest.raises(ApiError):
        kube_patch.json_patch(edited, ops)


def test_routes_name_ready_not_ready_terminating_and_unexpected_pods():
    svc = Service(service({'app': 'web', LABEL: 'green'}))
    pods = [pod('g1', 'green'), pod('g2', 'green'), pod('g3', 'green', ready=False)]
    seen = services.routed(
        slices(endpoint('g1'), endpoint('b1'), endpoint('g3', ready=False), endpoint('b2', terminating=True)),
        pods,
        svc.selector,
        svc,
    )
    assert seen['ready'] == ['b1', 'g1'] and seen['not_ready'] == ['g3'] and seen['terminating'] == ['b2']
    assert seen['unexpected'] == ['b1'] and seen['expected'] == ['g1', 'g2'] and seen['missing'] == ['g2']
    assert not services.routes_exactly(seen, 2)
    exact = services.routed(slices(endpoint('g1'), endpoint('g2')), pods, svc.selector, svc)
    assert services.routes_exactly(exact, 2) and not services.routes_exactly(exact, 3)
    # A Service port no slice serves (a named targetPort the pods lack) is not a working route.
    unported = services.routed(
        slices(endpoint('g1'), endpoint('g2'), ports=('metrics',)), pods, svc.selector, svc
    )
    assert unported['missing_ports'] == ['http'] and not services.routes_exactly(unported, 2)
    # No endpoint at all is never exact, even with nothing expected.
    assert not services.routes_exactly(services.routed([], [], svc.selector, svc), 0)


def test_an_absent_ready_condition_is_ready_and_a_deleted_pod_is_not_expected():
    svc = Service(service({'app': 'web', LABEL: 'green'}))
    unknown = {'addresses': ['10.0.0.2'], 'targetRef': {'name': 'g1'}, 'conditions': {}}
    seen = services.routed(
        slices(unknown), [pod('g1', 'green'), pod('g2', 'green', deleting=True)], svc.selector, svc
    )
    assert seen['ready'] == ['g1'] and seen['expected'] == ['g1'] and services.routes_exactly(seen, 1)


def test_deployment_complete_needs_the_controller_and_enough_pods():
    d = {
        'metadata': {'generation': 3},
        'spec': {'replicas': 2},
        'status': {
            'observedGeneration': 3,
            'replicas': 2,
            'updatedReplicas': 2,
            'availableReplicas': 2,
            'readyReplicas': 2,
        },
    }
    assert services.deployment_complete(d) is None
    assert 'fewer than the 3' in services.deployment_complete(d, at_least=3)
    assert 'not observed' in services.deployment_complete(dict(d, metadata={'generation': 4}))
    short = copy.deepcopy(d)
    short['status']['availableReplicas'] = 1
    assert services.deployment_complete(short) == '2 of 2 pods updated, 1 available, 2 ready'


def test_the_hpa_retarget_and_replicas_patches_are_guarded():
    hpa = {
        'metadata': {'name': 'web'},
        'spec': {'scaleTargetRef': {'kind': 'Deployment', 'name': 'web-blue'}},
    }
    after = kube_patch.json_patch(
        copy.deepcopy(hpa), HorizontalPodAutoscaler(hpa).retarget_patch('web-green')
    )
    assert after['spec']['scaleTargetRef']['name'] == 'web-green'
    with pytest.raises(ApiError):
        kube_patch.json_patch(after, HorizontalPodAutoscaler(hpa).retarget_patch('web-green'))
    d = {'metadata': {'generation': 2}, 'spec': {'replicas': 3}}
    ops = services.replicas_patch(d, 0)
    assert kube_patch.json_patch(copy.deepcopy(d), ops)['spec']['replicas'] == 0
    with pytest.raises(ApiError):
        kube_patch.json_patch({'metadata': {'generation': 3}, 'spec': {'replicas': 3}}, ops)


def test_colored_template_changes_only_the_color_and_images():
    template = {
        'metadata': {'labels': {'app': 'web', LABEL: 'blue'}},
        'spec': {'containers': [{'name': 'app', 'image': 'a:1'}]},
    }
    out = services.colored_template(template, LABEL, 'green', {'app': 'a:2'})
    assert out['metadata']['labels'] == {'app': 'web', LABEL: 'green'}
    assert (
        out['spec']['containers'][0]['image'] == 'a:2' and template['spec']['containers'][0]['image'] == 'a:1'
    )
    assert services.other_color('blue') == 'green' and services.other_color('green') == 'blue'


# -- EndpointSlices (one home: kinds/services.py)


def slice_endpoint(pod, ready=None):
    e = {'addresses': ['10.0.0.%d' % len(pod)], 'targetRef': {'kind': 'Pod', 'name': pod}}
    if ready is not None:
        e['conditions'] = {'ready': ready}
    return e


def test_ready_endpoints_count_each_pod_once_and_absent_ready_as_ready():
    slices = [{'endpoints': [slice_endpoint('a'), slice_endpoint('b', True), slice_endpoint('c', False)]},
              {'endpoints': [slice_endpoint('a', True)]}, {'endpoints': None}]
    assert services.ready_endpoints(slices) == 2
    assert services.ready_endpoints([]) == 0


@pytest.mark.parametrize('percent,other,need', [(0, 4, 0), (5, 4, 1), (25, 4, 1), (50, 4, 2), (100, 4, 4),
                                               (10, 0, 1), (1, 100, 1), (30, 10, 3)])
def test_a_share_needs_the_capacity_it_takes(percent, other, need):
    assert services.needed_endpoints(percent, other) == need


def test_selects():
    assert services.selects({'app': 'web', 'track': 'canary'}, {'app': 'web', 'track': 'canary', 'x': 'y'})
    assert not services.selects({'app': 'web'}, {'app': 'api'})
    assert not services.selects({}, {'app': 'web'})  # a Service without selector has no managed endpoints


def test_a_terminating_endpoint_is_never_ready_whatever_its_readiness_says():
    """The one rule both a switch (routed) and a traffic step (ready_endpoints) read."""
    draining = slice_endpoint('d')
    draining['conditions'] = {'ready': True, 'terminating': True}
    assert services.endpoint_state(draining) == services.TERMINATING
    assert services.ready_endpoints([{'endpoints': [draining, slice_endpoint('a')]}]) == 1
    pieces = [{'endpoints': [draining, slice_endpoint('a')], 'ports': []}]
    seen = services.routed(pieces, [], {}, services.Service(service({})))
    assert seen['terminating'] == ['d'] and seen['ready'] == ['a']

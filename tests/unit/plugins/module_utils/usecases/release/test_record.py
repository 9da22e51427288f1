"""The release record: its id, its text, its shape and whether it belongs to the workload as it is."""

import json

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import patches
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workloads import Deployment, StatefulSet
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import record as rr
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release.targets import Target

from tests.support.manifests import workload

pytestmark = pytest.mark.unit


def deployment(image='nginx:1.25', generation=3, annotations=None):
    obj = workload('Deployment', 'web', image=image, namespace='default')
    obj['metadata'].update(generation=generation, annotations=dict(annotations or {}))
    return Deployment(obj)


def written(before, images, generation=None):
    """``before`` as a release leaves it: its images changed and its record on it."""
    after = json.loads(json.dumps(before.obj))
    after['spec']['template'] = patches.imaged_template(before.template, images)
    gen = generation if generation is not None else before.metadata['generation'] + 1
    after['metadata']['generation'] = gen
    after['metadata']['annotations'][rr.RECORD_ANNOTATION] = rr.record_text(
        'r-1', before, images, before.metadata['generation'] + 1, 'me/1/a', '2026-01-01T00:00:00Z')
    return Deployment(after)


def test_the_same_task_is_the_same_release_and_another_is_not():
    a = [Target(Deployment, 'web', 'default', {'app': 'nginx:2'}, 'cause')]
    assert rr.release_id(a) == rr.release_id([Target(Deployment, 'web', 'default', {'app': 'nginx:2'}, 'x')])
    assert rr.release_id(a) != rr.release_id([Target(Deployment, 'web', 'default', {'app': 'nginx:3'}, 'x')])
    assert rr.release_id(a) != rr.release_id([Target(Deployment, 'api', 'default', {'app': 'nginx:2'}, 'x')])
    assert rr.release_id(a).startswith('r-') and len(rr.release_id(a)) == 14


def test_a_record_belongs_to_the_workload_its_release_left():
    before = deployment(annotations={'kubernetes.io/change-cause': 'v1'})
    record, problem = rr.check(written(before, {'app': 'nginx:2'}))
    assert problem is None
    assert record['images'] == {'app': 'nginx:2'} and record['template'] == before.template
    assert record['changeCause'] == 'v1' and record['generation'] == 4
    assert rr.check(before) == (None, None)  # no record


def test_a_record_of_another_state_is_never_acted_on():
    before = deployment()
    # Edited since (or an old record brought back by an undo): another generation.
    _record, problem = rr.check(written(before, {'app': 'nginx:2'}, generation=7))
    assert 'written at generation 4 and the workload is at generation 7' in problem
    # The same generation, another template (a record copied onto a workload it does not describe).
    other = written(before, {'app': 'nginx:2'})
    other.obj['spec']['template']['spec']['containers'][0]['image'] = 'nginx:hotfix'
    assert 'not the recorded one' in rr.check(other)[1]


@pytest.mark.parametrize('text, wrong', [
    ('not json', 'not JSON'),
    ('[1, 2]', 'not a JSON object'),
    (json.dumps({'id': 'r', 'images': ['a'], 'template': {}, 'generation': 1, 'lease': 'x/y'}),
     'images'),
    (json.dumps({'id': 'r', 'images': {'app': 1}, 'template': {}, 'generation': 1, 'lease': 'x/y'}),
     'images'),
    (json.dumps({'images': {}, 'template': 'x', 'generation': '1'}), 'id, template, generation are'),
    # An id that is no release id of ours (it would name a Lease) is malformed.
    (json.dumps({'id': '../../kube-system', 'images': {}, 'template': {}, 'generation': 1}), 'its id is'),
    # Bounded: too large, too deep (a parser never sees it).
    (json.dumps({'id': 'r-1', 'images': {}, 'template': {'x': 'y' * 40000}, 'generation': 1}),
     'more than a record may hold'),
    ('{"a":' * 5000 + '1' + '}' * 5000, 'nested more than 8 levels deep'),
])
def test_a_malformed_record_says_what_is_wrong(text, wrong):
    w = deployment(annotations={rr.RECORD_ANNOTATION: text})
    record, problem = rr.check(w)
    assert record is None and wrong in problem


def test_the_way_out_of_a_record_is_a_kubectl_command():
    expected = 'kubectl annotate deployment web -n default kubeops.rollout/release-'
    assert rr.clear_command(deployment()) == expected


def test_a_plain_release_refuses_a_canary_or_a_partition():
    assert rr.hold_refusal(deployment(), 'D') is None
    canary = deployment(annotations={rr.CANARY_ANNOTATION: '{}'})
    assert 'canary in progress' in rr.hold_refusal(canary, 'Deployment default/web')
    sts = workload('StatefulSet', 'db')
    sts['spec']['updateStrategy'] = {'type': 'RollingUpdate', 'rollingUpdate': {'partition': 2}}
    assert 'partition of 2' in rr.hold_refusal(StatefulSet(sts), 'StatefulSet default/db')


class Leases:
    def __init__(self, lease):
        self.lease = lease

    def get(self, path):
        if self.lease is None:
            from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError
            raise ApiError(404, 'NotFound', 'not found')
        return self.lease


def test_a_record_is_live_while_its_lease_is_renewed():
    from ansible_collections.kubeops.rollout.plugins.module_utils.common import times
    import time
    spec = {'holderIdentity': 'h/1/a', 'leaseDurationSeconds': 30, 'renewTime': times.micro_time(time.time())}
    live = {'metadata': {'resourceVersion': '1'}, 'spec': spec}
    assert '"h/1/a" holds Lease shop/kubeops-release-r-1' in rr.live_holder(Leases(live), 'shop', 'r-1', 30)
    stale = json.loads(json.dumps(live))
    stale['spec']['renewTime'] = times.micro_time(time.time() - 120)
    assert rr.live_holder(Leases(stale), 'shop', 'r-1', 30) is None
    assert rr.live_holder(Leases(None), 'shop', 'r-1', 30) is None
    # The Lease is named by the release id, in the namespace the caller names: an id that could
    # name anything else is not looked up at all.
    assert rr.live_holder(Leases(live), 'shop', '../kube-system/leases/kube-scheduler', 30) is None

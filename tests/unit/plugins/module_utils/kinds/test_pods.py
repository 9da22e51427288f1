"""Pods as the rollout code reads them (kinds/pods.py): a label selector's query string, readiness,
back-off, a StatefulSet pod's ordinal, and the pods a forced rollback replaces."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.pods import (
    BACK_OFF_REASONS,
    POD_REVISION_LABEL,
    pod_backing_off,
    pod_ordinal,
    pod_ready,
    ready_condition,
    selector_string,
    stuck_pods,
)

from tests.support.manifests import STS_UID, pod

pytestmark = pytest.mark.unit


def names(pods):
    return [p['metadata']['name'] for p in pods]


# ---- selectors ------------------------------------------------------------------------------------

def test_selector_string_as_kubectl_writes_a_label_selector():
    assert selector_string(None) == '' and selector_string({}) == ''
    assert selector_string({'matchLabels': {'tier': 'web', 'app': 'shop'}}) == 'app=shop,tier=web'
    assert selector_string({'app': 'web', 'deployment': 'abc'}) == 'app=web,deployment=abc'  # an RC's map
    assert selector_string({'matchLabels': {'app': 'web'}, 'matchExpressions': [
        {'key': 'env', 'operator': 'In', 'values': ['prod', 'canary']},
        {'key': 'zone', 'operator': 'NotIn', 'values': ['b', 'a']},
        {'key': 'managed', 'operator': 'Exists'},
        {'key': 'legacy', 'operator': 'DoesNotExist'},
        {'key': 'odd', 'operator': 'Gt', 'values': ['1']},
    ]}) == 'app=web,env in (canary,prod),zone notin (a,b),managed,!legacy'


def test_selector_string_of_expressions_only_and_labels_sorted_before_them():
    assert selector_string({'matchLabels': {'b': '2', 'a': '1'}, 'matchExpressions': [
        {'key': 'tier', 'operator': 'In', 'values': ['front', 'back']},
        {'key': 'env', 'operator': 'NotIn', 'values': ['dev']},
        {'key': 'canary', 'operator': 'DoesNotExist'},
        {'key': 'team', 'operator': 'Exists'}]}) == (
        'a=1,b=2,tier in (back,front),env notin (dev),!canary,team')
    assert selector_string({'matchExpressions': [{'key': 'app', 'operator': 'Exists'}]}) == 'app'
    assert selector_string({'matchLabels': None, 'matchExpressions': None}) == ''


# ---- readiness ------------------------------------------------------------------------------------

def test_ready_condition_and_pod_ready():
    ready, not_ready = pod('a', ready=True), pod('b', ready=False)
    assert ready_condition(ready) == {'type': 'Ready', 'status': 'True'}
    assert pod_ready(ready) is True and pod_ready(not_ready) is False
    unknown = pod('c', ready=None, conditions=[{'type': 'PodScheduled', 'status': 'True'}])
    assert ready_condition(unknown) is None and pod_ready(unknown) is False
    assert pod_ready({}) is False


def test_ready_condition_is_found_among_the_others():
    p = pod('a', ready=False, conditions=[{'type': 'Initialized', 'status': 'True'},
                                          {'type': 'ContainersReady', 'status': 'True'}])
    assert ready_condition(p) == {'type': 'Ready', 'status': 'False'} and not pod_ready(p)
    assert not pod_ready(pod('b', ready=None, conditions=[{'type': 'Ready', 'status': 'Unknown'}]))


# ---- back-off -------------------------------------------------------------------------------------

def test_pod_backing_off_names_the_first_back_off_of_init_then_app_containers():
    p = pod('db-0', containers=[{'name': 'app', 'state': {'waiting': {'reason': 'CrashLoopBackOff'}}}],
            init_containers=[{'name': 'init', 'state': {'waiting': {'reason': 'ErrImagePull'}}}])
    assert pod_backing_off(p) == 'ErrImagePull'
    creating = {'name': 'app', 'state': {'waiting': {'reason': 'ContainerCreating'}}}
    starting = pod('db-1', containers=[creating])
    assert pod_backing_off(starting) is None and pod_backing_off(pod('db-2')) is None


@pytest.mark.parametrize('reason', sorted(BACK_OFF_REASONS))
def test_every_back_off_reason_is_one(reason):
    p = pod('a', containers=[{'name': 'app', 'state': {'running': {}}},
                             {'name': 'side', 'state': {'waiting': {'reason': reason}}}])
    assert pod_backing_off(p) == reason


def test_a_running_or_terminated_container_is_no_back_off():
    p = pod('a', containers=[{'name': 'app', 'state': {'terminated': {'reason': 'Error'}}},
                             {'name': 'side', 'state': {'running': {}}}, {'name': 'bare'}])
    assert pod_backing_off(p) is None and pod_backing_off({}) is None


# ---- ordinals -------------------------------------------------------------------------------------

@pytest.mark.parametrize('name, ordinal', [
    ('db-0', 0), ('db-12', 12), ('db-x', None), ('db-', None), ('web-1', None), ('db-1-2', None),
    ('dbx-1', None)])
def test_pod_ordinal(name, ordinal):
    assert pod_ordinal(pod(name), 'db') == ordinal


def test_pod_ordinal_of_a_set_whose_name_has_a_dash():
    assert pod_ordinal(pod('db-eu-3'), 'db-eu') == 3 and pod_ordinal(pod('db-eu-3'), 'db') is None
    assert pod_ordinal({}, 'db') is None


# ---- the pods a forced rollback replaces ----------------------------------------------------------

def sts_pod(ordinal, revision, ready, waiting=None, owner=STS_UID, deleting=False):
    containers = [{'name': 'app', 'state': {'waiting': {'reason': waiting}}}] if waiting else None
    return pod('db-%d' % ordinal, ready, labels={'app': 'db', POD_REVISION_LABEL: revision},
               owner=('StatefulSet', owner), containers=containers, deleting=deleting)


def test_stuck_pods_are_those_of_another_revision_not_ready_lowest_ordinal_first():
    pods = [sts_pod(3, 'db-bad', False, 'ImagePullBackOff'), sts_pod(0, 'db-good', True),
            sts_pod(1, 'db-good', False), sts_pod(2, 'db-bad', False), sts_pod(4, 'db-old', True),
            sts_pod(10, 'db-bad', False)]
    # db-1 is not Ready but on the restored revision: never touched; db-4 is Ready: the controller's job.
    assert names(stuck_pods(pods, STS_UID, 'db', 'db-good')) == ['db-2', 'db-3', 'db-10']


def test_stuck_pods_ignore_other_owners_pods_being_deleted_and_other_names():
    pods = [sts_pod(1, 'db-bad', False, owner='other'), sts_pod(2, 'db-bad', False, deleting=True)]
    stray = pod('cache-0', ready=False, labels={POD_REVISION_LABEL: 'db-bad'},
                owner=('StatefulSet', STS_UID))
    assert stuck_pods(pods + [stray], STS_UID, 'db', 'db-good') == []


def test_a_ready_pod_in_a_crash_back_off_is_stuck():
    p = sts_pod(1, 'db-bad', True, 'CrashLoopBackOff')
    assert pod_backing_off(p) == 'CrashLoopBackOff'
    assert names(stuck_pods([p], STS_UID, 'db', 'db-good')) == ['db-1']
    # ... unless it is on the revision put back: that one is the controller's to judge.
    assert stuck_pods([sts_pod(1, 'db-good', True, 'CrashLoopBackOff')], STS_UID, 'db', 'db-good') == []

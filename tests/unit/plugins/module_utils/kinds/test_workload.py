"""The Workload base class (kinds/workload.py): API paths, accessors, how a workload is named, and
the default of each verb and capability (a verb a kind lacks is NotSupported), which the kind
classes of workloads.py override."""

import copy

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import patches, status
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workload import (
    NotSupported,
    Refused,
    Workload,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workloads import (
    DaemonSet,
    Deployment,
    ReplicationController,
    StatefulSet,
)

from tests.support.manifests import DEPLOY_UID, controller_revision, deployment, statefulset, workload

pytestmark = pytest.mark.unit

CHANGE_CAUSE = 'kubernetes.io/change-cause'


class Widget(Workload):
    """A kind that overrides nothing: every answer below is the base class's."""

    kind = 'Widget'
    plural = 'widgets'
    group = 'example.com'
    api_prefix = '/apis/example.com/v1'
    history_plural = 'widgetrevisions'


class Client:
    """Answers every LIST with ``items`` and records (path, selectors)."""

    def __init__(self, items=()):
        self.items = list(items)
        self.calls = []

    def list(self, path, **selectors):
        self.calls.append((path, selectors))
        return {'items': copy.deepcopy(self.items)}


def widget(**spec):
    obj = workload('Deployment', 'w1', namespace='shop', **spec)
    obj['kind'] = 'Widget'
    obj['metadata']['uid'] = 'w-uid'
    return obj


def daemonset(**spec):
    obj = workload('DaemonSet', 'agent', namespace='default', **spec)
    obj['metadata']['uid'] = 'ds-uid'
    return obj


# ---- where a kind lives ---------------------------------------------------------------------------

@pytest.mark.parametrize('cls, collection, history, resource', [
    (Deployment, '/apis/apps/v1/namespaces/shop/deployments', '/apis/apps/v1/namespaces/shop/replicasets',
     'deployments.apps'),
    (StatefulSet, '/apis/apps/v1/namespaces/shop/statefulsets',
     '/apis/apps/v1/namespaces/shop/controllerrevisions', 'statefulsets.apps'),
    (DaemonSet, '/apis/apps/v1/namespaces/shop/daemonsets',
     '/apis/apps/v1/namespaces/shop/controllerrevisions', 'daemonsets.apps'),
    (ReplicationController, '/api/v1/namespaces/shop/replicationcontrollers',
     '/api/v1/namespaces/shop/None', 'replicationcontrollers'),
    (Widget, '/apis/example.com/v1/namespaces/shop/widgets',
     '/apis/example.com/v1/namespaces/shop/widgetrevisions', 'widgets.example.com'),
])
def test_api_paths_and_kubectls_resource_name(cls, collection, history, resource):
    assert cls.collection_path('shop') == collection
    assert cls.object_path('shop', 'web') == collection + '/web'
    assert cls.history_path('shop') == history
    assert cls.resource() == resource
    obj = cls({'kind': cls.kind, 'metadata': {'name': 'web', 'namespace': 'shop'}})
    assert obj.path == collection + '/web'
    assert obj.describe() == '%s "web"' % resource
    assert obj.label() == '%s shop/web' % cls.kind
    assert obj.identity() == {'kind': cls.kind, 'name': 'web', 'namespace': 'shop'}


def test_names_in_paths_are_quoted():
    assert Deployment.object_path('a b', 'x/y') == '/apis/apps/v1/namespaces/a%20b/deployments/x%2Fy'
    assert Widget.history_path('n?s') == '/apis/example.com/v1/namespaces/n%3Fs/widgetrevisions'


# ---- accessors ------------------------------------------------------------------------------------

def test_accessors_read_the_object_and_tolerate_missing_parts():
    d = Deployment(deployment(annotations={CHANGE_CAUSE: 'v2'}, paused=True))
    assert (d.name, d.namespace, d.uid, d.resource_version) == ('web', 'default', DEPLOY_UID, '100')
    assert d.annotations == {CHANGE_CAUSE: 'v2'}
    assert d.selector == 'app=web' and d.paused is True and d.replicas == 3
    assert d.template['spec']['containers'][0]['image'] == 'nginx:1.25'
    bare = Deployment({})
    assert (bare.name, bare.annotations, bare.spec, bare.template, bare.selector) == (None, {}, {}, {}, '')
    assert bare.paused is False and bare.replicas is None and bare.partition is None
    nulls = Widget({'metadata': None, 'spec': None})
    assert (nulls.metadata, nulls.spec, nulls.annotations, nulls.uid) == ({}, {}, {}, None)


def test_accessors_follow_the_object_they_wrap():
    obj = widget()
    w = Widget(obj)
    obj['metadata']['resourceVersion'] = '42'
    obj['spec']['paused'] = True
    assert w.resource_version == '42' and w.paused is True


def test_metadata_fields_are_read_only():
    w = Widget(widget())
    with pytest.raises(AttributeError):
        w.name = 'other'
    assert w.name == 'w1'


def test_only_a_rolling_update_statefulset_has_a_partition():
    assert StatefulSet(statefulset()).partition == 0
    sts = statefulset()
    sts['spec']['updateStrategy']['rollingUpdate']['partition'] = 2
    assert StatefulSet(sts).partition == 2
    sts['spec']['updateStrategy'] = {'type': 'OnDelete'}
    assert StatefulSet(sts).partition is None
    assert DaemonSet(daemonset()).partition is None and Deployment(deployment()).partition is None
    assert Widget(widget()).partition is None


def test_the_strategy_type_defaults_to_rolling_update():
    assert Widget(widget()).strategy_type() == 'RollingUpdate'
    assert Widget(widget(updateStrategy={'type': 'OnDelete'})).strategy_type() == 'OnDelete'
    assert Widget(widget(updateStrategy={})).strategy_type() == 'RollingUpdate'


# ---- verbs a kind lacks ---------------------------------------------------------------------------

def test_verbs_a_kind_lacks_are_not_supported_as_kubectl_says():
    w = Widget(widget())
    for call, words in ((lambda: w.undo_patch(None), 'no rollbacker'),
                        (lambda: w.undo_annotations(None), 'no rollbacker'),
                        (lambda: w.revisions([]), 'no history viewer'),
                        (w.rollout_status, 'no status viewer')):
        with pytest.raises(NotSupported, match='^%s has been implemented for Widget$' % words):
            call()
    with pytest.raises(NotSupported, match=r'^widgets.example.com "w1" pausing is not supported$'):
        w.pause_patch(True)
    with pytest.raises(NotSupported, match=r'^widgets.example.com "w1" resuming is not supported$'):
        w.pause_patch(False)
    with pytest.raises(NotSupported, match=r'^daemonsets.apps "agent" resuming is not supported$'):
        DaemonSet(daemonset()).pause_patch(False)
    rc = ReplicationController(workload('ReplicationController', 'web', namespace='shop'))
    with pytest.raises(NotSupported, match='^no history viewer has been implemented for '
                                           'ReplicationController$'):
        rc.history(Client())


def test_history_without_a_history_viewer_lists_nothing_first():
    client = Client()
    with pytest.raises(NotSupported):
        Widget(widget()).history(client)
    # the LIST is made, then the kind refuses to read it (no kind without a viewer calls history)
    assert client.calls == [('/apis/example.com/v1/namespaces/shop/widgetrevisions',
                             {'label_selector': 'app=w1'})]


def test_undo_without_a_previous_revision_and_the_default_checks():
    w = Widget(widget())
    refusal = w.no_previous_revision()
    assert isinstance(refusal, Refused) and str(refusal) == 'no last revision to roll back to'
    assert w.check_undoable() is None and w.check_restartable() is None
    assert w.preread_history is None


# ---- history --------------------------------------------------------------------------------------

def test_list_history_is_one_list_by_the_selector():
    client = Client([controller_revision(1, 'redis:6'), {'metadata': {'name': 'x'}}])
    items = StatefulSet(statefulset()).list_history(client)
    assert [i['metadata']['name'] for i in items] == ['db-r1', 'x']
    assert client.calls == [('/apis/apps/v1/namespaces/default/controllerrevisions',
                             {'label_selector': 'app=db'})]

    class Empty(Client):
        def list(self, path, **selectors):
            return {'items': None}

    assert StatefulSet(statefulset()).list_history(Empty()) == []


def test_revision_numbers_come_from_the_revisions_or_not_at_all():
    client = Client([controller_revision(1, 'redis:6'), controller_revision(2, 'redis:7')])
    s = StatefulSet(statefulset())  # its template is revision 2's
    assert s.revision_numbers(client, changes_template=False, read=False) == (None, None)
    assert client.calls == []
    assert s.revision_numbers(client, changes_template=False) == (2, 2)
    assert s.revision_numbers(client, changes_template=True) == (2, 3)
    assert len(client.calls) == 2


# ---- restart and image ----------------------------------------------------------------------------

def test_restart_patch_sets_restarted_at():
    body = {'spec': {'template': {'metadata': {'annotations': {
        'kubectl.kubernetes.io/restartedAt': '2026-01-02T03:04:05Z'}}}}}
    for obj in (Widget(widget()), StatefulSet(statefulset()), DaemonSet(daemonset())):
        assert obj.check_restartable() is None
        assert obj.restart_patch('2026-01-02T03:04:05Z') == (patches.STRATEGIC_MERGE, body)


def test_image_patch_merges_containers_by_name_and_none_when_nothing_changes():
    w = Widget(widget(image='nginx:1'))
    assert w.image_patch({'app': 'nginx:2'}, change_cause='v2') == (patches.STRATEGIC_MERGE, {
        'spec': {'template': {'spec': {'containers': [{'name': 'app', 'image': 'nginx:2'}]}}},
        'metadata': {'annotations': {CHANGE_CAUSE: 'v2'}}})
    assert w.image_patch({'app': 'nginx:1'}) is None
    # a change-cause alone is written; one the workload has already is not
    assert w.image_patch({'app': 'nginx:1'}, change_cause='v2')[1] == {
        'metadata': {'annotations': {CHANGE_CAUSE: 'v2'}}}
    w.obj['metadata']['annotations'] = {CHANGE_CAUSE: 'v2'}
    assert w.image_patch({'app': 'nginx:1'}, change_cause='v2') is None


def test_a_partition_is_refused_for_kinds_without_one():
    with pytest.raises(NotSupported, match=r'deployments.apps "web" has no update partition'):
        Deployment(deployment()).image_patch({'web': 'nginx:2'}, partition=1)
    with pytest.raises(NotSupported, match=r'daemonsets.apps "agent" has no update partition'):
        DaemonSet(daemonset()).image_patch({'app': 'nginx:2'}, partition=0)


# ---- waiting --------------------------------------------------------------------------------------

def test_a_strategy_kubectl_cannot_wait_for_is_refused_before_any_write():
    s = statefulset()
    s['spec']['updateStrategy'] = {'type': 'OnDelete'}
    with pytest.raises(Refused, match=r'^StatefulSet default/db: waiting is impossible: .* \(OnDelete\); '
                                      r'set wait: false'):
        StatefulSet(s).check_waitable()
    with pytest.raises(Refused, match=r'^DaemonSet default/agent: waiting is impossible'):
        DaemonSet(daemonset(updateStrategy={'type': 'OnDelete'})).check_can_progress()
    assert StatefulSet(statefulset()).check_waitable() is None
    assert DaemonSet(daemonset()).check_can_progress() is None


# ---- capabilities ---------------------------------------------------------------------------------

def test_release_refusal_of_a_paused_or_on_delete_workload():
    assert Widget(widget()).release_refusal() is None
    paused = Widget(widget(paused=True)).release_refusal()
    assert paused.startswith('Widget shop/w1 is paused') and 'state: resumed' in paused
    on_delete = Widget(widget(updateStrategy={'type': 'OnDelete'})).release_refusal()
    assert on_delete.startswith('Widget shop/w1 uses the OnDelete update strategy')
    # A kind that rolls OnDelete out itself (by deleting pods) is released.
    sts = StatefulSet(workload('StatefulSet', 'db', updateStrategy={'type': 'OnDelete'}))
    assert sts.release_refusal() is None


def test_the_default_capabilities():
    w = Widget(widget())
    assert w.rolled_out_by_deleting_pods(w.obj) is False
    assert w.replaces_stuck_pods() is False

    def judge(obj):
        return 'judged'

    assert w.terminating_wait(judge) is judge


# ---- a canary's hold ------------------------------------------------------------------------------

def test_a_kind_without_a_hold_cannot_have_a_canary():
    problem = Widget(widget()).canary_refusal()
    assert problem.startswith('Widget shop/w1: a canary needs a Deployment (paused')
    assert 'release it without canary' in problem
    assert 'a canary needs' in DaemonSet(daemonset()).canary_refusal()


def test_the_default_hold_is_the_image_write_and_nothing_else():
    w = Widget(widget(image='nginx:1'))
    assert w.canary_record() == {}
    content_type, ops = w.canary_write({'app': 'nginx:2'}, 'v2', 1, {'kubeops.rollout/canary': '{}'})
    assert content_type == 'application/json-patch+json' and w.canary_hold_ops(1) == []
    assert ops[0]['op'] == 'test' and [o['op'] for o in ops][-2:] == ['replace', 'add']  # guarded, no hold
    assert ops[-2]['value']['spec']['containers'][0]['image'] == 'nginx:2'
    assert ops[-1]['value']['kubernetes.io/change-cause'] == 'v2'
    assert 'kubeops.rollout/canary' in ops[-1]['value']
    assert w.canary_hold_patch() is None
    assert w.canary_release_patch({'template': {}}) is None


def test_the_default_canary_started_and_ready_are_the_rollout_status():
    d = Deployment(deployment())
    written = deployment(image='nginx:2')
    written['metadata']['generation'] = 5
    started = Workload.canary_started(d, d.obj, written)
    assert started == d.rollout_status  # no deadline left by an earlier rollout: the status itself
    assert started(written).reason == status.deployment_status(written).reason == 'SpecNotObserved'
    ready, own = Workload.canary_ready(d, written), d.rollout_status(written)
    assert (ready.done, ready.reason, ready.message) == (own.done, own.reason, own.message)


def test_the_default_restore_resumes_a_paused_workload_only():
    w = Widget(widget())
    assert w.canary_restore_ops({'spec': {'paused': True}}, {}) == [
        {'op': 'replace', 'path': '/spec/paused', 'value': False}]
    assert w.canary_restore_ops({'spec': {}}, {'partition': 3}) == []
    assert w.canary_restore_ops({}, {}) == []


# ---- the revision being rolled out ----------------------------------------------------------------

def test_a_kind_that_names_no_revision_has_no_pods_to_tell_apart():
    w = Widget(widget())
    assert w.rolled_out_revision([]) is None and w.desired_at({'hash': 'h'}) is None
    assert w.revision_pod_selector({'hash': 'h1'}) is None  # no revision label
    assert (Widget.history_kind, Widget.revision_label, Widget.revision_needs_history) == (None, None, False)


def test_the_revision_pod_selector_joins_the_selector_and_the_revision_label():
    d = DaemonSet(daemonset())
    assert d.revision_pod_selector({'hash': 'h7'}) == 'app=agent,controller-revision-hash=h7'
    assert d.revision_pod_selector({'hash': None}) is None and d.revision_pod_selector(None) is None
    unselected = DaemonSet({'metadata': {'name': 'x'}, 'spec': {}})
    assert unselected.revision_pod_selector({'hash': 'h7'}) == 'controller-revision-hash=h7'

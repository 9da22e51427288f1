"""The kind classes of workloads.py: the kind tables, kubectl's spellings, the patch of each verb and
its refusals, the revision being rolled out and its pods, each kind's capabilities. (What every kind
inherits is in test_workload.py, the pod helpers in test_pods.py.)"""

import copy

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import patches
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workload import NotSupported, Refused
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workloads import (
    KINDS,
    ROLLOUT_KINDS,
    DaemonSet,
    Deployment,
    ReplicationController,
    StatefulSet,
    UnknownKind,
    rollout_kind,
    rollout_kinds,
)

from tests.support.manifests import (
    STS_UID,
    controller_revision,
    deployment,
    pod,
    replica_set,
    statefulset,
    workload,
)

pytestmark = pytest.mark.unit

CHANGE_CAUSE = 'kubernetes.io/change-cause'


class Client:
    """Answers every LIST with ``items`` and records (path, selectors)."""

    def __init__(self, items=()):
        self.items = list(items)
        self.calls = []

    def list(self, path, **selectors):
        self.calls.append((path, selectors))
        return {'items': copy.deepcopy(self.items)}


def daemonset(**spec):
    obj = workload('DaemonSet', 'agent', namespace='default', **spec)
    obj['metadata']['uid'] = 'ds-uid'
    return obj


def rc(replicas=3):
    return workload('ReplicationController', 'web-next', replicas=replicas, namespace='shop',
                    pod_labels={'app': 'web', 'deployment': '4f1e2d3c'})


def names(pods):
    return [p['metadata']['name'] for p in pods]


def test_kind_tables():
    rollout = {'Deployment': Deployment, 'StatefulSet': StatefulSet, 'DaemonSet': DaemonSet}
    assert dict(rollout, ReplicationController=ReplicationController) == KINDS
    assert rollout == ROLLOUT_KINDS


# ---- kubectl's spellings --------------------------------------------------------------------------

@pytest.mark.parametrize('spelling,kind', [
    ('Deployment', Deployment), ('deployment', Deployment), ('DEPLOY', Deployment),
    ('deployments', Deployment), (' deploy ', Deployment),
    ('deployments.apps', Deployment), ('sts', StatefulSet), ('StatefulSets', StatefulSet),
    ('statefulset.v1.apps', StatefulSet), ('ds', DaemonSet), ('daemonset', DaemonSet)])
def test_kubectl_spellings_of_the_kinds(spelling, kind):
    assert rollout_kind(spelling) is kind


def test_unknown_kind_and_replication_controller_hint():
    with pytest.raises(UnknownKind, match=r'kind "Pod" is not a kind rollouts apply to; use one of'):
        rollout_kind('Pod')
    with pytest.raises(UnknownKind, match='use the rolling_update_rc module'):
        rollout_kind('rc')
    with pytest.raises(UnknownKind, match='use the rolling_update_rc module'):
        rollout_kind('ReplicationControllers')
    with pytest.raises(UnknownKind, match='kind "None" is not a kind'):
        rollout_kind(None)


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


# ---- pause / resume -------------------------------------------------------------------------------

def test_only_a_deployment_pauses():
    d = Deployment(deployment())
    assert d.pause_patch(True) == (patches.STRATEGIC_MERGE, {'spec': {'paused': True}})
    assert d.pause_patch(False) == (patches.STRATEGIC_MERGE, {'spec': {'paused': None}})
    with pytest.raises(NotSupported, match=r'^statefulsets.apps "db" pausing is not supported$'):
        StatefulSet(statefulset()).pause_patch(True)
    with pytest.raises(NotSupported, match=r'^daemonsets.apps "agent" resuming is not supported$'):
        DaemonSet(daemonset()).pause_patch(False)


# ---- restart --------------------------------------------------------------------------------------

def test_a_paused_deployment_is_refused_a_restart():
    assert Deployment(deployment()).check_restartable() is None
    with pytest.raises(Refused, match=r'deployments.apps "web" can\'t restart paused deployment'):
        Deployment(deployment(paused=True)).check_restartable()


# ---- image ----------------------------------------------------------------------------------------

def test_image_patch_merges_containers_by_name_and_none_when_nothing_changes():
    d = Deployment(deployment(annotations={}))
    assert d.image_patch({'web': 'nginx:1.27'}, change_cause='v27') == (patches.STRATEGIC_MERGE, {
        'spec': {'template': {'spec': {'containers': [{'name': 'web', 'image': 'nginx:1.27'}]}}},
        'metadata': {'annotations': {CHANGE_CAUSE: 'v27'}}})
    assert d.image_patch({'web': 'nginx:1.25'}) is None


def test_a_statefulset_sets_its_partition_with_the_images_unless_it_is_on_delete():
    s = StatefulSet(statefulset())
    assert s.image_patch({'web': 'redis:8'}, partition=1) == (patches.STRATEGIC_MERGE, {'spec': {
        'template': {'spec': {'containers': [{'name': 'web', 'image': 'redis:8'}]}},
        'updateStrategy': {'rollingUpdate': {'partition': 1}}}})
    assert s.image_patch({'web': 'redis:7'}, partition=0) is None  # the partition it has
    on_delete = statefulset()
    on_delete['spec']['updateStrategy'] = {'type': 'OnDelete'}
    with pytest.raises(Refused, match=r'statefulsets.apps "db" uses the OnDelete update strategy'):
        StatefulSet(on_delete).image_patch({'web': 'redis:8'}, partition=1)
    assert StatefulSet(on_delete).image_patch({'web': 'redis:8'})[1] == {
        'spec': {'template': {'spec': {'containers': [{'name': 'web', 'image': 'redis:8'}]}}}}


# ---- undo and history -----------------------------------------------------------------------------

def test_undo_refusals_per_kind():
    with pytest.raises(Refused, match='you cannot rollback a paused deployment'):
        Deployment(deployment(paused=True)).check_undoable()
    assert Deployment(deployment()).check_undoable() is None
    refusal = Deployment(deployment()).no_previous_revision()
    assert isinstance(refusal, Refused) and str(refusal) == 'no rollout history found for deployment "web"'
    assert str(StatefulSet(statefulset()).no_previous_revision()) == 'no last revision to roll back to'
    obj = ReplicationController(rc())
    for call, words in ((lambda: obj.undo_patch(None), 'no rollbacker'),
                        (lambda: obj.undo_annotations(None), 'no rollbacker'),
                        (lambda: obj.revisions([]), 'no history viewer'),
                        (obj.rollout_status, 'no status viewer')):
        with pytest.raises(NotSupported, match='^%s has been implemented for ReplicationController$' % words):
            call()


def test_deployment_undo_is_a_guarded_json_patch_from_the_replica_set():
    d = Deployment(deployment(image='nginx:2', annotations={'deployment.kubernetes.io/revision': '4',
                                                            CHANGE_CAUSE: 'v2'}))
    (revision,) = d.revisions([replica_set(3, 'nginx:1', annotations={CHANGE_CAUSE: 'v1'})])
    content_type, ops = d.undo_patch(revision)
    assert content_type == patches.JSON_PATCH
    assert {'op': 'test', 'path': '/metadata/generation', 'value': 4} in ops
    (template_op,) = [op for op in ops if op['path'] == '/spec/template']
    assert template_op['op'] == 'replace'
    assert template_op['value']['spec']['containers'][0]['image'] == 'nginx:1'
    assert 'pod-template-hash' not in template_op['value']['metadata']['labels']
    assert d.undo_annotations(revision)[CHANGE_CAUSE] == 'v1'


def test_statefulset_undo_restores_the_controller_revision_template_and_change_cause():
    s = StatefulSet(statefulset(image='redis:8'))
    cr = controller_revision(1, 'redis:7')
    cr['metadata']['annotations'] = {CHANGE_CAUSE: 'v7'}
    (revision,) = s.revisions([cr, controller_revision(2, 'redis:9', owner_uid='other')])
    content_type, ops = s.undo_patch(revision)
    assert content_type == patches.JSON_PATCH
    (template_op,) = [op for op in ops if op['path'] == '/spec/template']
    assert template_op['value']['spec']['containers'][0]['image'] == 'redis:7'
    assert s.undo_annotations(revision) == {CHANGE_CAUSE: 'v7'}


def test_history_is_one_list_by_the_selector_and_keeps_the_controlled_revisions():
    d = Deployment(deployment())
    client = Client([replica_set(2, 'nginx:1.24'), replica_set(4, 'nginx:1.25'),
                     replica_set(3, 'nginx:1.23', owner_uid='someone-else')])
    assert [r.number for r in d.history(client)] == [2, 4]
    assert client.calls == [('/apis/apps/v1/namespaces/default/replicasets', {'label_selector': 'app=web'})]


def test_a_deployment_that_observed_its_spec_numbers_revisions_without_a_list():
    client = Client([replica_set(7, 'nginx:1.25')])
    d = Deployment(deployment())  # revision 4 recorded, generation 4 observed
    assert d.revision_numbers(client, changes_template=True) == (4, 5)
    assert d.revision_numbers(client, changes_template=False, read=False) == (4, 4)
    assert client.calls == []
    unobserved = deployment()
    unobserved['status']['observedGeneration'] = 3
    assert Deployment(unobserved).revision_numbers(client, changes_template=True) == (7, 8)
    assert len(client.calls) == 1


def test_controller_revision_kinds_read_numbers_only_when_asked():
    client = Client([controller_revision(1, 'redis:6'), controller_revision(2, 'redis:7')])
    s = StatefulSet(statefulset())
    assert s.revision_numbers(client, changes_template=True, read=False) == (None, None)
    assert client.calls == []
    assert s.revision_numbers(client, changes_template=True) == (2, 3)
    assert client.calls == [('/apis/apps/v1/namespaces/default/controllerrevisions',
                             {'label_selector': 'app=db'})]


def test_statefulset_pods_are_those_it_controls():
    mine, other = pod('db-0', owner=('StatefulSet', STS_UID)), pod('db-1', owner=('StatefulSet', 'x'))
    client = Client([mine, other])
    s = StatefulSet(statefulset())
    assert names(s.pods(client)) == ['db-0']
    assert client.calls == [('/api/v1/namespaces/default/pods', {'label_selector': 'app=db'})]
    assert s.pod_path('db-0') == '/api/v1/namespaces/default/pods/db-0'


# ---- waiting --------------------------------------------------------------------------------------

def test_a_paused_deployment_cannot_progress():
    with pytest.raises(Refused, match=r'Deployment default/web is paused, so its rollout cannot finish'):
        Deployment(deployment(paused=True)).check_can_progress()
    assert Deployment(deployment()).check_can_progress() is None


# ---- the revision being rolled out and its pods ---------------------------------------------------

def test_a_deployments_revision_is_its_new_replica_set():
    d = Deployment(deployment(image='nginx:1.25'))
    old, new = replica_set(3, 'nginx:1.24'), replica_set(4, 'nginx:1.25', replicas=3)
    stranger = replica_set(5, 'nginx:1.25', owner_uid='other')
    revision = d.rolled_out_revision([old, stranger, new])
    assert {k: revision[k] for k in ('kind', 'name', 'hash', 'replica_sets')} == {
        'kind': 'ReplicaSet', 'name': 'web-h4', 'hash': 'h4', 'replica_sets': ['web-h3', 'web-h4']}
    assert revision['object'] is new
    assert d.revision_pod_selector(revision) == 'app=web,pod-template-hash=h4'
    assert d.desired_at(revision) == 3
    # No ReplicaSet for the current template yet: no revision, no pods to tell apart.
    assert d.rolled_out_revision([old]) is None and d.rolled_out_revision(None) is None
    assert d.revision_pod_selector(None) is None and d.desired_at(None) is None


def test_the_oldest_of_two_equal_replica_sets_is_the_new_one():
    d = Deployment(deployment())
    first, collision = replica_set(4, 'nginx:1.25'), replica_set(5, 'nginx:1.25', name='web-h4x')
    assert d.new_replica_set([collision, first]) is first


def test_a_statefulsets_revision_is_its_update_revision():
    s = statefulset()
    s['spec']['replicas'] = 5
    s['spec']['updateStrategy']['rollingUpdate']['partition'] = 2
    assert StatefulSet(s).rolled_out_revision() is None
    s['status']['updateRevision'] = 'db-7b8c9d6f5e'
    revision = StatefulSet(s).rolled_out_revision()
    assert revision == {'kind': 'ControllerRevision', 'name': 'db-7b8c9d6f5e', 'hash': 'db-7b8c9d6f5e',
                        'object': None}
    assert StatefulSet(s).revision_pod_selector(revision) == 'app=db,controller-revision-hash=db-7b8c9d6f5e'
    assert StatefulSet(s).desired_at(revision) == 3  # the ordinals above the partition
    s['spec']['updateStrategy']['rollingUpdate']['partition'] = 9
    assert StatefulSet(s).desired_at(revision) == 0


def test_a_daemonsets_revision_is_its_highest_controller_revision():
    ds = daemonset()
    ds['status'] = {'desiredNumberScheduled': 3}

    def cr(number, owner='ds-uid'):
        return {'metadata': {'name': 'agent-%d' % number,
                             'labels': {'controller-revision-hash': 'h%d' % number},
                             'ownerReferences': [{'uid': owner, 'controller': True}]},
                'revision': number}

    d = DaemonSet(ds)
    revision = d.rolled_out_revision([cr(2), cr(10), cr(3), cr(11, owner='other')])
    assert (revision['name'], revision['hash'], revision['object']['revision']) == ('agent-10', 'h10', 10)
    assert d.revision_pod_selector(revision) == 'app=agent,controller-revision-hash=h10'
    assert d.desired_at(revision) == 3
    assert d.rolled_out_revision([cr(1, owner='other')]) is None
    assert d.revision_pod_selector({'kind': 'ControllerRevision', 'name': 'agent-1', 'hash': None}) is None


def test_a_replication_controller_is_its_own_revision():
    obj = rc(replicas=2)
    r = ReplicationController(obj)
    revision = r.rolled_out_revision()
    assert revision == {'kind': 'ReplicationController', 'name': 'web-next', 'hash': None, 'object': obj}
    assert r.revision_pod_selector(revision) == 'app=web,deployment=4f1e2d3c'
    assert r.revision_pod_selector(None) == 'app=web,deployment=4f1e2d3c'
    assert r.desired_at(revision) == 2
    assert ReplicationController({'spec': {}}).revision_pod_selector(None) is None


def test_what_finding_the_revision_takes_per_kind():
    assert (Deployment.history_kind, Deployment.revision_needs_history) == ('ReplicaSet', True)
    assert (DaemonSet.history_kind, DaemonSet.revision_needs_history) == ('ControllerRevision', True)
    assert (StatefulSet.history_kind, StatefulSet.revision_needs_history) == ('ControllerRevision', False)
    assert (ReplicationController.history_kind, ReplicationController.revision_needs_history) == (None, False)


def test_only_an_on_delete_statefulset_is_rolled_out_by_deleting_its_pods():
    sts = StatefulSet(workload('StatefulSet', 'db', updateStrategy={'type': 'OnDelete'}))
    assert sts.rolled_out_by_deleting_pods(sts.obj)
    rolling = StatefulSet(workload('StatefulSet', 'db', updateStrategy={'type': 'RollingUpdate'}))
    assert not rolling.rolled_out_by_deleting_pods(rolling.obj)
    agent = DaemonSet(workload('DaemonSet', 'agent', updateStrategy={'type': 'OnDelete'}))
    assert not agent.rolled_out_by_deleting_pods(agent.obj)
    # A release refuses the DaemonSet (its pods would keep the old images) and rolls the StatefulSet.
    assert 'OnDelete' in agent.release_refusal() and sts.release_refusal() is None


def test_capabilities_are_methods_of_each_kind():
    web, db = Deployment(deployment()), StatefulSet(statefulset())
    assert db.replaces_stuck_pods() and not web.replaces_stuck_pods()
    judge = web.terminating_wait(web.rollout_status)
    done = dict(web.obj, status=dict(web.obj.get('status') or {}, observedGeneration=web.obj['metadata'].get(
        'generation'), replicas=web.replicas, updatedReplicas=web.replicas, availableReplicas=web.replicas,
        terminatingReplicas=1))
    assert web.rollout_status(done).done and not judge(done).done
    assert db.terminating_wait(db.rollout_status) == db.rollout_status
    assert web.canary_refusal() is None and db.canary_refusal() is None
    assert 'a canary needs' in DaemonSet(workload('DaemonSet', 'agent')).canary_refusal()

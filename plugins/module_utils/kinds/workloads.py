# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""One class per workload kind: where it lives in the API, where its revisions live, the patch
for each rollout verb and how to read its rollout status.

The verb x kind table (which verb each kind supports, and how) is in docs/module_utils.md;
a verb a kind lacks raises NotSupported from the Workload base class.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import patches, revisions, status
from ansible_collections.kubeops.rollout.plugins.module_utils.api.client import path_quote


class NotSupported(Exception):
    """The verb does not exist for the kind (kubectl's "... is not supported")."""


class Refused(Exception):
    """The verb is refused in the workload's current state (e.g. a paused Deployment)."""


def selector_string(selector):
    """A LabelSelector object ({matchLabels, matchExpressions}) or a plain map -> query string."""
    if not selector:
        return ''
    if 'matchLabels' not in selector and 'matchExpressions' not in selector:
        selector = {'matchLabels': selector}  # ReplicationController: a plain map
    parts = ['%s=%s' % (k, v) for k, v in sorted((selector.get('matchLabels') or {}).items())]
    for expr in selector.get('matchExpressions') or []:
        key, op, values = expr.get('key'), expr.get('operator'), sorted(expr.get('values') or [])
        if op == 'In':
            parts.append('%s in (%s)' % (key, ','.join(values)))
        elif op == 'NotIn':
            parts.append('%s notin (%s)' % (key, ','.join(values)))
        elif op == 'Exists':
            parts.append(key)
        elif op == 'DoesNotExist':
            parts.append('!' + key)
    return ','.join(parts)


# ---- pods (a StatefulSet's forced rollback) ----------------------------------------------------

# The label a StatefulSet (and DaemonSet) controller puts on each pod: the hash of the
# ControllerRevision the pod was created from (defined with the revisions).
POD_REVISION_LABEL = revisions.CONTROLLER_REVISION_HASH_LABEL
# The same for class bodies, where a method named ``revisions`` hides the module.
_REVISION_HASH_LABEL = revisions.CONTROLLER_REVISION_HASH_LABEL
_TEMPLATE_HASH_LABEL = revisions.POD_TEMPLATE_HASH_LABEL
# Container waiting reasons of a pod that will not start without being replaced.
BACK_OFF_REASONS = frozenset(['ImagePullBackOff', 'ErrImagePull', 'InvalidImageName', 'CrashLoopBackOff',
                              'CreateContainerConfigError', 'CreateContainerError', 'RunContainerError'])


def ready_condition(pod):
    """The pod's ``Ready`` condition (a dict), or None."""
    for cond in (pod.get('status') or {}).get('conditions') or []:
        if cond.get('type') == 'Ready':
            return cond
    return None


def pod_ready(pod):
    return (ready_condition(pod) or {}).get('status') == 'True'


def pod_backing_off(pod):
    """The waiting reason of the first container in a back-off (or a config error), else None."""
    status = pod.get('status') or {}
    for c in (status.get('initContainerStatuses') or []) + (status.get('containerStatuses') or []):
        reason = ((c.get('state') or {}).get('waiting') or {}).get('reason')
        if reason in BACK_OFF_REASONS:
            return reason
    return None


def pod_ordinal(pod, set_name):
    """The ordinal of a StatefulSet pod ``<set>-<ordinal>``, else None."""
    name = (pod.get('metadata') or {}).get('name') or ''
    prefix = set_name + '-'
    if name.startswith(prefix) and name[len(prefix):].isdigit():
        return int(name[len(prefix):])
    return None


def stuck_pods(pods, owner_uid, set_name, revision_name):
    """The pods a forced rollback replaces, lowest ordinal first (the order in which an OrderedReady
    StatefulSet creates pods, so each replacement can start): controlled by the set, not being
    deleted, from a revision other than ``revision_name``, and not Ready or in a back-off. A pod of
    ``revision_name`` is never one of them, Ready or not."""
    out = []
    for pod in pods:
        meta = pod.get('metadata') or {}
        if meta.get('deletionTimestamp') or not revisions.controlled_by(pod, owner_uid):
            continue
        if (meta.get('labels') or {}).get(POD_REVISION_LABEL) == revision_name:
            continue
        if pod_ready(pod) and not pod_backing_off(pod):
            continue
        ordinal = pod_ordinal(pod, set_name)
        if ordinal is not None:
            out.append((ordinal, pod))
    return [pod for _ordinal, pod in sorted(out, key=lambda item: item[0])]


def _metadata_field(key):
    """A read-only property: the workload's ``metadata.<key>`` (None when missing)."""
    return property(lambda self: self.metadata.get(key))


class Workload:
    """A workload object (raw JSON) and what its kind knows. Subclasses set the class attributes."""

    kind = None
    api_prefix = '/apis/apps/v1'
    plural = None
    group = 'apps'
    history_plural = None  # where revisions live, in the same API group/version

    def __init__(self, obj):
        self.obj = obj

    # -- API paths
    @classmethod
    def collection_path(cls, namespace):
        return '%s/namespaces/%s/%s' % (cls.api_prefix, path_quote(namespace), cls.plural)

    @classmethod
    def object_path(cls, namespace, name):
        return '%s/%s' % (cls.collection_path(namespace), path_quote(name))

    @classmethod
    def history_path(cls, namespace):
        return '%s/namespaces/%s/%s' % (cls.api_prefix, path_quote(namespace), cls.history_plural)

    @classmethod
    def resource(cls):
        """kubectl's ``<plural>.<group>`` spelling, used in messages."""
        return '%s.%s' % (cls.plural, cls.group) if cls.group else cls.plural

    @property
    def path(self):
        return self.object_path(self.namespace, self.name)

    # -- accessors
    @property
    def metadata(self):
        return self.obj.get('metadata') or {}

    name = _metadata_field('name')
    namespace = _metadata_field('namespace')
    uid = _metadata_field('uid')
    resource_version = _metadata_field('resourceVersion')

    @property
    def annotations(self):
        return self.metadata.get('annotations') or {}

    @property
    def spec(self):
        return self.obj.get('spec') or {}

    @property
    def template(self):
        return self.spec.get('template') or {}

    @property
    def selector(self):
        return selector_string(self.spec.get('selector'))

    @property
    def paused(self):
        return bool(self.spec.get('paused'))

    @property
    def replicas(self):
        """``spec.replicas`` (None for a DaemonSet)."""
        return self.spec.get('replicas')

    @property
    def partition(self):
        """The rolling update partition: a StatefulSet's; None for the other kinds."""
        return None

    def describe(self):
        """``resource "name"`` as kubectl prints it in errors."""
        return '%s "%s"' % (self.resource(), self.name)

    def label(self):
        """``Kind namespace/name``: how messages name a workload."""
        return '%s %s/%s' % (self.kind, self.namespace, self.name)

    def identity(self):
        return {'kind': self.kind, 'name': self.name, 'namespace': self.namespace}

    # -- history
    def list_history(self, client):
        """LIST this kind's revision objects with the workload's selector (one request)."""
        return client.list(self.history_path(self.namespace), label_selector=self.selector).get('items') or []

    def revisions(self, history_items):
        raise NotSupported('no history viewer has been implemented for %s' % self.kind)

    def history(self, client):
        """The revisions this workload controls, oldest first (one LIST)."""
        return self.revisions(self.list_history(client))

    def revision_numbers(self, client, changes_template, read=True):
        """(revision now, revision after a write that ``changes_template`` or not), from the
        revisions (one LIST); (None, None) without ``read``, for kinds that record no revision number
        on the workload (a StatefulSet's or DaemonSet's are only in its ControllerRevisions)."""
        if not read:
            return None, None
        return revisions.before_and_after(self.history(client), self.template, changes_template)

    # -- verbs: each returns (content_type, body) or raises NotSupported / Refused
    def pause_patch(self, paused):
        raise NotSupported('%s %s is not supported' % (self.describe(), 'pausing' if paused else 'resuming'))

    def check_restartable(self):
        return None

    def restart_patch(self, timestamp):
        """Call check_restartable first: a paused Deployment is refused."""
        return patches.STRATEGIC_MERGE, patches.restart_patch(timestamp)

    def check_undoable(self):
        return None

    def check_waitable(self):
        """Refused when a rollout status wait could never succeed, judged before any write."""
        result = self.rollout_status()
        if result.failed and result.reason == status.UNSUPPORTED_STRATEGY:
            raise Refused('%s: waiting is impossible: %s (%s); set wait=false, or wait with your own check'
                          % (self.label(), result.message, self.strategy_type()))

    def strategy_type(self):
        return (self.spec.get('updateStrategy') or {}).get('type', 'RollingUpdate')

    def check_can_progress(self):
        """Refused when a write then a wait could not finish: a paused Deployment, or a strategy
        kubectl's rollout status does not support."""
        self.check_waitable()

    # -- capabilities (kubectl's small contracts: each kind answers for itself)
    def release_refusal(self):
        """Why a release cannot roll this workload out (as read), or None."""
        if self.paused:
            return ('%s is paused: a paused Deployment does not roll out; resume it first '
                    '(rollout_pause with state=resumed)' % self.label())
        if self.strategy_type() == 'OnDelete' and not self.rolled_out_by_deleting_pods(self.obj):
            return ('%s uses the OnDelete update strategy: its pods would keep the old images; '
                    'switch it to RollingUpdate' % self.label())
        return None

    def rolled_out_by_deleting_pods(self, obj):
        """Whether ``obj`` (this kind, as read or written) is rolled out by deleting its pods
        (engine/ondelete.py) rather than by its controller."""
        return False

    def replaces_stuck_pods(self):
        """Whether pods stuck on another revision are deleted after its template is put back
        (engine/forced_rollback.py): they would hold an OrderedReady StatefulSet forever."""
        return False

    def terminating_wait(self, predicate):
        """``predicate``, not done while old pods are still terminating, where the kind reports them."""
        return predicate

    # -- a canary's hold (usecases/canary.py): what keeps the rollout at the canary while it is checked
    def canary_refusal(self):
        """Why this workload cannot have a canary, or None."""
        return ('%s: a canary needs a Deployment (paused while it is verified) or a StatefulSet '
                '(partitioned); release it without canary' % self.label())

    def canary_record(self):
        """What the canary record keeps of the hold besides the template and change-cause."""
        return {}

    def canary_write(self, images, change_cause, ordinals):
        """The start's write: (content type, body) of the new images with the hold, or None."""
        return self.image_patch(images, change_cause)

    def canary_started(self, before, written):
        """The predicate of the start's wait after ``written`` (the write's answer)."""
        return status.after_change(self.rollout_status, before, written)

    def canary_hold_patch(self):
        """The strategic merge patch that holds the rollout once the canary has begun, or None when
        the write held it already."""
        return None

    def canary_ready(self, obj):
        """The canary's status, held: done when its pods are Ready."""
        return self.rollout_status(obj)

    def canary_release_patch(self, record):
        """The promote's write (content type, body) that lets the rollout go on, or None."""
        return None

    def canary_restore_ops(self, current, record):
        """JSON patch operations that undo the hold of ``current`` (as just read), from ``record``."""
        if (current.get('spec') or {}).get('paused'):
            return [{'op': 'replace', 'path': '/spec/paused', 'value': False}]
        return []

    # Revisions already read by a check before the verb (verbs.check_undo), used by the verb once.
    preread_history = None

    def no_previous_revision(self):
        """The refusal of an undo without a revision to go back to (kubectl's message per kind)."""
        return Refused('no last revision to roll back to')

    def undo_patch(self, revision):
        """(content type, body) of the undo to ``revision``; see ``undo_annotations``."""
        raise NotSupported('no rollbacker has been implemented for %s' % self.kind)

    def undo_annotations(self, revision):
        """The workload's annotations after ``undo_patch(revision)`` (for check mode and diffs
        without a write)."""
        raise NotSupported('no rollbacker has been implemented for %s' % self.kind)

    def image_patch(self, images, change_cause=None, partition=None):
        if partition is not None:
            raise NotSupported('%s has no update partition (spec.updateStrategy.rollingUpdate.partition is a '
                               'StatefulSet setting); leave partition unset' % self.describe())
        body = patches.image_patch(self.template, images, self.annotations, change_cause)
        return (patches.STRATEGIC_MERGE, body) if body else None

    # -- status
    def rollout_status(self, obj=None):
        raise NotSupported('no status viewer has been implemented for %s' % self.kind)

    # -- the revision being rolled out, and its pods (diagnosis.py, health.py)
    history_kind = None  # what one revision is: ReplicaSet or ControllerRevision
    revision_label = None  # the label naming a pod's revision (its value: the revision's hash)
    revision_needs_history = False  # finding it takes the LIST of the history objects

    def rolled_out_revision(self, history_items=None):
        """``{"kind", "name", "hash", "object"}`` of the revision being rolled out, or None;
        ``history_items``: the workload's history objects, when ``revision_needs_history``."""
        return None

    def revision_pod_selector(self, revision):
        """The label selector of the pods of ``revision`` (None when they cannot be told apart)."""
        if revision is None or not revision.get('hash') or not self.revision_label:
            return None
        return ','.join(p for p in (self.selector, '%s=%s' % (self.revision_label, revision['hash'])) if p)

    def desired_at(self, revision):
        """Pods wanted at ``revision`` now (None when unknown)."""
        return None


class Deployment(Workload):
    kind = 'Deployment'
    plural = 'deployments'
    history_plural = 'replicasets'

    def revisions(self, history_items):
        return revisions.replica_set_revisions(history_items, self.uid)

    def revision_numbers(self, client, changes_template, read=True):
        """Once the controller has observed the current spec, the Deployment's revision annotation
        is the revision of the ReplicaSet that matches its template, the highest of all (a new or
        re-used ReplicaSet is numbered highest + 1): no LIST is needed. Before that, the revisions
        (whatever ``read`` says: a Deployment always reports its numbers)."""
        recorded = revisions.recorded_revision(self.obj)
        observed = (self.obj.get('status') or {}).get('observedGeneration')
        generation = self.metadata.get('generation')
        if None not in (recorded, observed, generation) and observed >= generation:
            return recorded, (recorded + 1 if changes_template else recorded)
        return Workload.revision_numbers(self, client, changes_template)

    def pause_patch(self, paused):
        return patches.STRATEGIC_MERGE, patches.pause_patch(paused)

    def check_can_progress(self):
        if self.paused:
            raise Refused("%s is paused, so its rollout cannot finish and wait=true would fail after the "
                          "change; resume it first (rollout_pause with state=resumed) or set wait=false"
                          % self.label())

    def check_restartable(self):
        if self.paused:
            raise Refused("%s can't restart paused deployment (run rollout resume first: "
                          "rollout_pause with state=resumed)" % self.describe())

    def no_previous_revision(self):
        return Refused('no rollout history found for deployment "%s"' % self.name)

    def check_undoable(self):
        if self.paused:
            raise Refused("you cannot rollback a paused deployment; resume it first with 'kubectl rollout "
                          "resume' (rollout_pause with state=resumed) and try again")

    def undo_patch(self, revision):
        """JSON patch: the ReplicaSet's template and annotations, guarded by the generation and the
        annotations as read."""
        return patches.JSON_PATCH, patches.deployment_undo_patch(self.obj, revision.source)

    def undo_annotations(self, revision):
        return patches.deployment_undo_annotations(self.annotations, revision.annotations)

    def rollout_status(self, obj=None):
        return status.deployment_status(obj or self.obj)

    def terminating_wait(self, predicate):
        return status.until_terminated(predicate)

    def canary_refusal(self):
        return None

    def canary_started(self, before, written):
        return status.deployment_canary_started(before, written)

    def canary_hold_patch(self):
        return patches.pause_patch(True)

    def canary_ready(self, obj):
        return status.deployment_canary_status(obj)

    def canary_release_patch(self, record):
        return (patches.STRATEGIC_MERGE, patches.pause_patch(False)) if self.paused else None

    history_kind = 'ReplicaSet'
    revision_label = _TEMPLATE_HASH_LABEL
    revision_needs_history = True

    def new_replica_set(self, replica_sets):
        """The ReplicaSet it controls whose template equals its own, or None (the oldest of equal
        ones: two only after a hash collision)."""
        matches = [rs for rs in replica_sets or [] if revisions.controlled_by(rs, self.uid)
                   and revisions.templates_equal((rs.get('spec') or {}).get('template'), self.template)]
        if not matches:
            return None
        return sorted(matches, key=lambda rs: (rs.get('metadata') or {}).get('creationTimestamp') or '')[0]

    def rolled_out_revision(self, history_items=None):
        rs = self.new_replica_set(history_items)
        if rs is None:
            return None
        meta = rs.get('metadata') or {}
        return {'kind': 'ReplicaSet', 'name': meta.get('name'),
                'hash': (meta.get('labels') or {}).get(self.revision_label), 'object': rs,
                # whose events count too
                'replica_sets': [(o.get('metadata') or {}).get('name') for o in history_items
                                 if revisions.controlled_by(o, self.uid)]}

    def desired_at(self, revision):
        if revision is None:
            return None
        return int(((revision.get('object') or {}).get('spec') or {}).get('replicas', 1))


class _ControllerRevisionWorkload(Workload):
    history_plural = 'controllerrevisions'
    history_kind = 'ControllerRevision'
    revision_label = _REVISION_HASH_LABEL

    def revisions(self, history_items):
        return revisions.controller_revisions(history_items, self.uid)

    def undo_patch(self, revision):
        """JSON patch: the ControllerRevision's template (replacing the whole template, as its data
        does) and the revision's change-cause (the controller copied the workload's annotations into
        it), guarded by the generation and the change-cause as read."""
        return patches.JSON_PATCH, patches.controller_revision_undo_patch(self.obj, revision.source)

    def undo_annotations(self, revision):
        return patches.controller_revision_undo_annotations(self.annotations, revision.source)


class StatefulSet(_ControllerRevisionWorkload):
    kind = 'StatefulSet'
    plural = 'statefulsets'

    def rolled_out_by_deleting_pods(self, obj):
        return ((obj.get('spec') or {}).get('updateStrategy') or {}).get('type') == 'OnDelete'

    def replaces_stuck_pods(self):
        return True

    def canary_refusal(self):
        if self.partition is None:
            return ('%s uses the OnDelete update strategy, which has no partition for a canary; '
                    'switch it to RollingUpdate or release it without canary' % self.label())
        return None

    def canary_record(self):
        return {'partition': self.partition}

    def canary_write(self, images, change_cause, ordinals):
        """Only the ``ordinals`` highest ordinals update: the partition below them."""
        replicas = self.replicas if self.replicas is not None else 1
        return self.image_patch(images, change_cause, partition=max(self.partition, replicas - ordinals))

    def canary_release_patch(self, record):
        wanted = record.get('partition') or 0
        if self.partition == wanted:
            return None
        return patches.STRATEGIC_MERGE, patches.partition_patch(wanted)

    def canary_restore_ops(self, current, record):
        ops = Workload.canary_restore_ops(self, current, record)
        if 'partition' not in record:
            return ops
        wanted = record.get('partition') or 0
        if patches.update_partition(current.get('spec')) != wanted:
            ops.append({'op': 'add', 'path': patches.json_pointer('spec', 'updateStrategy', 'rollingUpdate',
                                                                  'partition'), 'value': wanted})
        return ops

    def pods(self, client):
        """The pods this StatefulSet controls (one LIST by its selector)."""
        items = client.list('/api/v1/namespaces/%s/pods' % path_quote(self.namespace),
                            label_selector=self.selector).get('items') or []
        return [p for p in items if revisions.controlled_by(p, self.uid)]

    def pod_path(self, name):
        return '/api/v1/namespaces/%s/pods/%s' % (path_quote(self.namespace), path_quote(name))

    @property
    def partition(self):
        """``updateStrategy.rollingUpdate.partition`` (0 when unset); None with OnDelete."""
        return patches.update_partition(self.spec)

    def image_patch(self, images, change_cause=None, partition=None):
        """The images (and change-cause) and, when given, the partition, in one strategic merge patch."""
        current = self.partition
        if partition is not None and current is None:
            raise Refused('%s uses the OnDelete update strategy, which has no partition; leave partition '
                          'unset or switch it to RollingUpdate' % self.describe())
        body = patches.image_patch(self.template, images, self.annotations, change_cause,
                                   partition=partition, current_partition=current)
        return (patches.STRATEGIC_MERGE, body) if body else None

    def rollout_status(self, obj=None):
        return status.statefulset_status(obj or self.obj)

    def rolled_out_revision(self, history_items=None):
        """Named by its status (``updateRevision``): no history needed."""
        name = (self.obj.get('status') or {}).get('updateRevision')
        if not name:
            return None
        return {'kind': 'ControllerRevision', 'name': name, 'hash': name, 'object': None}

    def desired_at(self, revision):
        rolling = (self.spec.get('updateStrategy') or {}).get('rollingUpdate') or {}
        return max(0, int(self.spec.get('replicas', 1)) - int(rolling.get('partition') or 0))


class DaemonSet(_ControllerRevisionWorkload):
    kind = 'DaemonSet'
    plural = 'daemonsets'

    def rollout_status(self, obj=None):
        return status.daemonset_status(obj or self.obj)

    revision_needs_history = True

    def rolled_out_revision(self, history_items=None):
        """Its newest ControllerRevision (the highest ``.revision`` it controls)."""
        owned = [cr for cr in history_items or [] if revisions.controlled_by(cr, self.uid)]
        if not owned:
            return None
        cr = max(owned, key=lambda o: int(o.get('revision') or 0))
        meta = cr.get('metadata') or {}
        return {'kind': 'ControllerRevision', 'name': meta.get('name'),
                'hash': (meta.get('labels') or {}).get(self.revision_label), 'object': cr}

    def desired_at(self, revision):
        return (self.obj.get('status') or {}).get('desiredNumberScheduled')


class ReplicationController(Workload):
    """Not a rollout kind (no rollout history in the API): rolling_update_rc replaces it with a
    second controller, and uses this class for its API paths only."""

    kind = 'ReplicationController'
    api_prefix = '/api/v1'
    plural = 'replicationcontrollers'
    group = ''

    def rolled_out_revision(self, history_items=None):
        """The RC itself: its pods are its revision."""
        return {'kind': 'ReplicationController', 'name': self.name, 'hash': None, 'object': self.obj}

    def revision_pod_selector(self, revision):
        return self.selector or None

    def desired_at(self, revision):
        return int(self.spec.get('replicas', 1))


# Every kind a diagnosis knows, by kind.
KINDS = {cls.kind: cls for cls in (Deployment, StatefulSet, DaemonSet, ReplicationController)}


# The kinds the rollout modules accept (kubectl rollout's).
ROLLOUT_KINDS = {cls.kind: cls for cls in (Deployment, StatefulSet, DaemonSet)}

# kubectl's spellings of each kind, lower case: kind, plural, short name (with or without the group).
_KIND_SPELLINGS = {
    'deployment': Deployment, 'deployments': Deployment, 'deploy': Deployment,
    'statefulset': StatefulSet, 'statefulsets': StatefulSet, 'sts': StatefulSet,
    'daemonset': DaemonSet, 'daemonsets': DaemonSet, 'ds': DaemonSet,
}
_NOT_ROLLOUT_KINDS = dict.fromkeys(
    ('replicationcontroller', 'replicationcontrollers', 'rc'), 'rolling_update_rc')


class UnknownKind(Exception):
    """A kind the rollout modules do not act on."""


def rollout_kind(spelling):
    """The Workload class for ``spelling``, as kubectl reads it: any case, singular, plural or short
    name, optionally followed by ``.apps`` or ``.v1.apps``."""
    text = (spelling or '').strip().lower()
    for suffix in ('.v1.apps', '.apps'):
        if text.endswith(suffix):
            text = text[:-len(suffix)]
            break
    if text in _KIND_SPELLINGS:
        return _KIND_SPELLINGS[text]
    hint = ''
    if text in _NOT_ROLLOUT_KINDS:
        hint = ' (ReplicationControllers have no rollout: use the %s module)' % _NOT_ROLLOUT_KINDS[text]
    raise UnknownKind('kind "%s" is not a kind rollouts apply to%s; use one of Deployment (deploy), '
                      'StatefulSet (sts) or DaemonSet (ds), in any case' % (spelling, hint))


def rollout_kinds(spellings):
    """The Workload classes for a list of spellings, each as ``rollout_kind`` reads it; a spelling
    may itself list several, comma separated, as kubectl's ``deploy,sts``. In the order given, each
    kind once."""
    if isinstance(spellings, str):
        spellings = [spellings]
    out = []
    for spelling in spellings:
        for part in str(spelling).split(','):
            kind = rollout_kind(part)
            if kind not in out:
                out.append(kind)
    if not out:
        raise UnknownKind('kind is empty; use one or more of Deployment (deploy), StatefulSet (sts) or '
                          'DaemonSet (ds)')
    return out

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""One class per workload kind (on ``workload.Workload``): where it lives in the API, where its
revisions live, the patch for each rollout verb, how to read its rollout status, its capabilities
and its canary hold; and the kinds by name and by kubectl's spellings.

The verb x kind table (which verb each kind supports, and how) is in docs/module_utils.md;
a verb a kind lacks raises NotSupported from the Workload base class.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.kubeops.rollout.plugins.module_utils.common.vocabulary import setting
from ansible_collections.kubeops.rollout.plugins.module_utils.api.client import path_quote
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import patches, revisions, status
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workload import Refused, Workload

# The labels naming a pod's revision (their values: the revision's hash).
_REVISION_HASH_LABEL = revisions.CONTROLLER_REVISION_HASH_LABEL
_TEMPLATE_HASH_LABEL = revisions.POD_TEMPLATE_HASH_LABEL


class Deployment(Workload):
    kind = 'Deployment'
    plural = 'deployments'
    history_plural = 'replicasets'
    traffic_canary = True

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
            raise Refused("%s is paused, so its rollout cannot finish and %s would fail after the change; "
                          "resume it first (rollout_pause with %s) or set %s"
                          % (self.label(), setting('wait', True),
                             setting('state', 'resumed', module='rollout_pause'), setting('wait', False)))

    def check_restartable(self):
        if self.paused:
            raise Refused("%s can't restart paused deployment (run rollout resume first: "
                          "rollout_pause with %s)"
                          % (self.describe(), setting('state', 'resumed', module='rollout_pause')))

    def no_previous_revision(self):
        return Refused('no rollout history found for deployment "%s"' % self.name)

    def check_undoable(self):
        if self.paused:
            raise Refused("you cannot rollback a paused deployment; resume it first with 'kubectl rollout "
                          "resume' (rollout_pause with %s) and try again"
                          % setting('state', 'resumed', module='rollout_pause'))

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

    def canary_hold_ops(self, ordinals):
        """Only the ``ordinals`` highest ordinals update: the partition below them, in the write."""
        replicas = self.replicas if self.replicas is not None else 1
        strategy = dict(self.spec.get('updateStrategy') or {})
        strategy['rollingUpdate'] = dict(strategy.get('rollingUpdate') or {},
                                         partition=max(self.partition, replicas - ordinals))
        return [{'op': 'add', 'path': '/spec/updateStrategy', 'value': strategy}]

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

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The base of every workload kind: a workload object (raw JSON) and what its kind knows, each verb
and capability a method that a kind class overrides; a verb a kind lacks raises NotSupported."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.kubeops.rollout.plugins.module_utils.common.vocabulary import setting
from ansible_collections.kubeops.rollout.plugins.module_utils.api.client import path_quote
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import patches, revisions, status
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.pods import selector_string


class NotSupported(Exception):
    """The verb does not exist for the kind (kubectl's "... is not supported")."""


class Refused(Exception):
    """The verb is refused in the workload's current state (e.g. a paused Deployment); ``next_step``:
    the one step its message names, as data (usecases/release/targets.py), when it names one."""

    def __init__(self, message, next_step=None):
        super(Refused, self).__init__(message)
        self.next_step = next_step


def _metadata_field(key):
    """A read-only property: the workload's ``metadata.<key>`` (None when missing)."""
    return property(lambda self: self.metadata.get(key))


class ObjectFields:
    """What every API object (raw JSON in ``self.obj``) is read by: workloads, Services."""

    @property
    def metadata(self):
        return self.obj.get('metadata') or {}

    name = _metadata_field('name')
    namespace = _metadata_field('namespace')

    @property
    def annotations(self):
        return self.metadata.get('annotations') or {}

    @property
    def spec(self):
        return self.obj.get('spec') or {}


class Workload(ObjectFields):
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

    # -- accessors (metadata, name, namespace, annotations, spec: ObjectFields)
    uid = _metadata_field('uid')
    resource_version = _metadata_field('resourceVersion')

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
            raise Refused('%s: waiting is impossible: %s (%s); set %s, or wait with your own check'
                          % (self.label(), result.message, self.strategy_type(), setting('wait', False)))

    def strategy_type(self):
        return (self.spec.get('updateStrategy') or {}).get('type', 'RollingUpdate')

    def check_can_progress(self):
        """Refused when a write then a wait could not finish: a paused Deployment, or a strategy
        kubectl's rollout status does not support."""
        self.check_waitable()

    # -- capabilities (kubectl's small contracts: each kind answers for itself)
    # A traffic canary runs a second workload of this kind beside it, behind a Service of its own
    # track (usecases/traffic/): only a kind whose pods can be split by a label and scaled at will.
    traffic_canary = False

    def release_refusal(self):
        """Why a release cannot roll this workload out (as read), or None."""
        if self.paused:
            return ('%s is paused: a paused Deployment does not roll out; resume it first '
                    '(rollout_pause with %s)' % (self.label(),
                                                 setting('state', 'resumed', module='rollout_pause')))
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

    # -- a canary's hold (usecases/release/canary.py): what keeps the rollout at the canary while checked
    def canary_refusal(self):
        """Why this workload cannot have a canary, or None."""
        return ('%s: a canary needs a Deployment (paused while it is verified) or a StatefulSet '
                '(partitioned); release it without canary' % self.label())

    def canary_record(self):
        """What the canary record keeps of the hold besides the template and change-cause."""
        return {}

    def canary_write(self, images, change_cause, ordinals, annotations):
        """The start's write: a JSON patch of the new images, the ``annotations`` (the record) and the
        change-cause, with the hold the write carries (``canary_hold_ops``), guarded by the generation
        and annotations as read (template_write_patch): a change in between fails it."""
        wanted = dict(annotations)
        if change_cause:
            wanted[patches.CHANGE_CAUSE_ANNOTATION] = change_cause
        body = patches.template_write_patch(self.obj, patches.imaged_template(self.template, images), wanted)
        return patches.JSON_PATCH, body + self.canary_hold_ops(ordinals)

    def canary_hold_ops(self, ordinals):
        """JSON patch operations of the hold that the start's write carries (none: held later)."""
        return []

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

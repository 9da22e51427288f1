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

from ansible_collections.kubeops.rollout.plugins.module_utils import patches, revisions
from ansible_collections.kubeops.rollout.plugins.module_utils.client import path_quote


def _status():
    # Imported on first use: a module run that neither reads nor waits for a rollout status
    # (history, or a write without wait) does not compile it.
    from ansible_collections.kubeops.rollout.plugins.module_utils import status
    return status


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

    def no_previous_revision(self):
        """The refusal of an undo without a revision to go back to (kubectl's message per kind)."""
        return Refused('no last revision to roll back to')

    def undo_patch(self, revision):
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


class Deployment(Workload):
    kind = 'Deployment'
    plural = 'deployments'
    history_plural = 'replicasets'

    def revisions(self, history_items):
        return revisions.replica_set_revisions(history_items, self.uid)

    def pause_patch(self, paused):
        return patches.STRATEGIC_MERGE, patches.pause_patch(paused)

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
        """JSON patch: the ReplicaSet's template and annotations, guarded by resourceVersion."""
        return patches.JSON_PATCH, patches.deployment_undo_patch(self.obj, revision.source)

    def rollout_status(self, obj=None):
        return _status().deployment_status(obj or self.obj)


class _ControllerRevisionWorkload(Workload):
    history_plural = 'controllerrevisions'

    def revisions(self, history_items):
        return revisions.controller_revisions(history_items, self.uid)

    def undo_patch(self, revision):
        """Strategic merge patch: the ControllerRevision's data (the whole template, $patch: replace)."""
        return patches.STRATEGIC_MERGE, patches.controller_revision_undo_patch(revision.source)


class StatefulSet(_ControllerRevisionWorkload):
    kind = 'StatefulSet'
    plural = 'statefulsets'

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
        return _status().statefulset_status(obj or self.obj)


class DaemonSet(_ControllerRevisionWorkload):
    kind = 'DaemonSet'
    plural = 'daemonsets'

    def rollout_status(self, obj=None):
        return _status().daemonset_status(obj or self.obj)


class ReplicationController(Workload):
    """Not a rollout kind (no rollout history in the API): rolling_update_rc replaces it with a
    second controller, and uses this class for its API paths only."""

    kind = 'ReplicationController'
    api_prefix = '/api/v1'
    plural = 'replicationcontrollers'
    group = ''


# The kinds the rollout modules accept (kubectl rollout's).
ROLLOUT_KINDS = {cls.kind: cls for cls in (Deployment, StatefulSet, DaemonSet)}


# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The requests of a rolling update: reads, fenced writes and watch-based waits (``watch``) on the
RCs and pods of one namespace, and the record of what was written (for results and failure
messages). The lease that lets one run at a time drive an update is in ``lease``."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import time

from ansible_collections.kubeops.rollout.plugins.module_utils.api.client import path_quote, retry_on_conflict
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError, UpdateError
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.patches import (
    JSON_PATCH,
    MERGE_PATCH,
    json_pointer,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.objects import (
    UPDATE_ANNOTATIONS,
    annotations_of,
    name_of,
    pod_available,
    replicas_of,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.steps import Step
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.watch import ControllerWatch
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.pods import selector_string
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workloads import ReplicationController

# An RC's status is written by its controller while the update reads and writes its spec: a
# read-modify-write is decided again after a conflict, this many times in all.
RC_WRITE_ATTEMPTS = 10


class FenceFailed(ApiError):
    """A fenced write found fields it was decided from changed (JSON-patch ``test`` failed, or a
    stale resourceVersion): a conflict for ``retry_on_conflict``, which decides again."""

    def __init__(self, message):
        super(FenceFailed, self).__init__(409, 'Conflict', message)


def fence_tests(rc):
    """JSON-patch ``test`` operations of what a scale decision rests on: the RC's identity (uid),
    replicas, selector and kubectl's update annotations. Any of them changed means another run or
    a person changed the update: the write fails instead of acting on a stale view."""
    meta = rc.get('metadata') or {}
    spec = rc.get('spec') or {}
    ops = [{'op': 'test', 'path': '/metadata/uid', 'value': meta.get('uid')}]
    if spec.get('replicas') is not None:
        ops.append({'op': 'test', 'path': '/spec/replicas', 'value': spec['replicas']})
    ops.append({'op': 'test', 'path': '/spec/selector', 'value': spec.get('selector')})
    annotations = annotations_of(rc)
    for key in UPDATE_ANNOTATIONS:
        if key in annotations:
            pointer = json_pointer('metadata', 'annotations', key)
            ops.append({'op': 'test', 'path': pointer, 'value': annotations[key]})
    return ops


def fenced_fields(rc):
    """What ``fence_tests`` guards besides the replica count (a change there stops the run)."""
    meta = rc.get('metadata') or {}
    annotations = annotations_of(rc)
    return (meta.get('uid'), (rc.get('spec') or {}).get('selector'),
            {k: annotations.get(k) for k in UPDATE_ANNOTATIONS})


class ControllerRequests:
    """Requests on the ReplicationControllers and pods of ``opts.namespace``.

    ``api`` is an ApiClient (get/list/create/replace/patch/delete/watch on raw JSON). ``sleep`` and
    ``clock`` are injectable for tests. ``lease`` (a ``lease.UpdateLease``, or None in check mode) is checked
    before every write. Every write is recorded: ``changed``, ``done`` (what, for the failure
    message), ``in_progress`` (an update exists in the API) and the scale ``steps``.
    """

    def __init__(self, api, opts, sleep=time.sleep, clock=time.time):
        self.api = api
        self.opts = opts
        self.ns = opts.namespace
        self.sleep = sleep
        self.clock = clock
        self.lease = None
        self.watch = None
        self.steps = []
        self.changed = False
        self.done = []  # the changes made, for the failure message
        self.in_progress = False  # an update exists in the API (a failure can be resumed)
        self.on_step = None  # called with each scale Step as it is taken (live progress)

    def _rc_path(self, name=None):
        if name is None:
            return ReplicationController.collection_path(self.ns)
        return ReplicationController.object_path(self.ns, name)

    def _pods_path(self, name=None):
        path = '/api/v1/namespaces/%s/pods' % path_quote(self.ns)
        return path if name is None else '%s/%s' % (path, path_quote(name))

    def get_rc(self, name):
        try:
            rc = self.api.get(self._rc_path(name))
        except ApiError as e:
            if e.status == 404:
                return None
            raise
        if self.watch is not None:
            self.watch.offer(rc)
        return rc

    def must_get_rc(self, name):
        rc = self.get_rc(name)
        if rc is None:
            raise self.disappeared(name)
        return rc

    def disappeared(self, name):
        return UpdateError('ReplicationController "%s" disappeared from namespace "%s" during the update'
                           % (name, self.ns))

    def list_pods(self, selector):
        return self.api.list(self._pods_path(), label_selector=selector_string(selector)).get('items') or []

    def list_rcs(self):
        return self.api.list(self._rc_path()).get('items') or []

    # -- watching
    def watched(self):
        """The namespace's RCs as the watch shows them (started on first use: one LIST)."""
        if self.watch is None:
            self.watch = ControllerWatch(self.api, self._rc_path(), clock=self.clock).start()
        return self.watch

    def seen_rc(self, name):
        rc = self.watched().get(name)
        if rc is None:
            raise self.disappeared(name)
        return rc

    def wait_until(self, done, what):
        """Follow the watch until ``done()``; UpdateError after ``timeout`` seconds."""
        if not self.watched().wait(done, self.clock() + float(self.opts.timeout)):
            raise UpdateError('timed out after %ss waiting for %s' % (self.opts.timeout, what()))

    # -- writes
    def _fence(self):
        if self.lease is not None:
            self.lease.check()

    def _write(self, what):
        self.changed = True
        self.in_progress = True
        self.done.append(what)

    def _stored(self, rc):
        if self.watch is not None:
            self.watch.offer(rc)
        return rc

    def create_rc(self, body):
        """Create an RC. Repeated after a lost answer: the caller takes a 409 AlreadyExists as a
        create that may have been its own and decides from the stored object."""
        self._fence()
        return self._stored(self.api.create(self._rc_path(), body, retry=True))

    def update_rc(self, name, mutate, what, current=None):
        """Read-modify-write with the resourceVersion guard, again on conflict. ``mutate(obj)``
        changes obj in place; nothing is sent when it changes nothing. The first attempt starts
        from ``current`` when given (a fresh read or write answer), later ones from a new read.
        Returns the RC."""
        def body_of(rc):
            new = copy.deepcopy(rc)
            mutate(new)
            return None if new == rc else new

        return self._replace_retried(name, body_of, what, current, 'updating it (%s)' % what)

    def patch_rc(self, rc, ops, mutate, what):
        """JSON patch ``ops`` fenced by ``fence_tests(rc)``: one request, whatever status the RC's
        controller wrote meanwhile. When the fence fails, ``mutate`` is applied by a
        read-modify-write (``update_rc``) deciding again from a fresh read. Returns the RC."""
        name = name_of(rc)
        self._fence()
        try:
            # Fenced: a repeat after a lost answer fails the fence and is decided again below.
            stored = self.api.patch(self._rc_path(name), fence_tests(rc) + ops, content_type=JSON_PATCH,
                                    retry=True)
        except ApiError as e:
            if not (e.is_conflict or (e.status == 422 and e.reason == 'Invalid')):
                raise
            return self.update_rc(name, mutate, what)
        self._write(what)
        return self._stored(stored)

    def replace_rc(self, name, body_of, what, current=None):
        """Replace the RC with ``body_of(live RC)``, the live RC being ``current`` at first when given,
        read afresh after each conflict. Returns the RC."""
        return self._replace_retried(name, body_of, what, current, what)

    def _replace_retried(self, name, body_of, what, current, doing):
        """PUT ``body_of(live RC)`` (nothing when it is None: the live RC is returned) with the
        resourceVersion guard, the live RC being ``current`` at first when given, read afresh after
        each conflict; ``doing`` names the write when the RC keeps changing."""
        def attempt(conflicted):
            rc = current if current is not None and not conflicted else self.must_get_rc(name)
            body = body_of(rc)
            if body is None:
                return rc
            self._fence()
            stored = self._stored(self.api.replace(self._rc_path(name), body))
            self._write(what)
            return stored

        return retry_on_conflict(attempt, RC_WRITE_ATTEMPTS, lambda: UpdateError(
            'ReplicationController "%s" kept changing while %s' % (name, doing)))

    def scale(self, rc, replicas, action, other):
        """Set spec.replicas, fenced by ``fence_tests(rc)`` (what the decision was made from), then
        wait as kubectl's scaler did. ``other`` is the RC on the other side: a step records both
        counts, the replaced RC's as ``old_replicas``.

        A failed fence is read again: a changed identity, selector or update annotation means
        another run or a person took the update over, and this run stops (UpdateError); a changed
        replica count alone is a FenceFailed conflict, decided again from the fresh read."""
        name = name_of(rc)
        current = replicas_of(rc)
        op = 'replace' if (rc.get('spec') or {}).get('replicas') is not None else 'add'
        body = fence_tests(rc) + [{'op': op, 'path': '/spec/replicas', 'value': replicas}]
        self._fence()
        try:
            # Fenced by the replica count it changes: a repeat after a lost answer fails the fence.
            stored = self.api.patch(self._rc_path(name), body, content_type=JSON_PATCH, retry=True)
        except ApiError as e:
            if not (e.is_conflict or (e.status == 422 and e.reason == 'Invalid')):
                raise
            fresh = self.get_rc(name)
            if fresh is None:
                raise self.disappeared(name)
            if fenced_fields(fresh) == fenced_fields(rc) and replicas_of(fresh) == replicas:
                # The scale is in place: this write's (its answer lost) or an identical one.
                return self.scaled(name, current, replicas, action, other)
            if fenced_fields(fresh) != fenced_fields(rc):
                raise UpdateError('ReplicationController "%s" was changed by someone else while this run '
                                  'was deciding to scale it to %d (its uid, selector or update annotations '
                                  'are not what this run read): stopped without scaling it'
                                  % (name, replicas))
            if replicas_of(fresh) != current:
                raise FenceFailed('ReplicationController "%s" was scaled by someone else' % name)
            raise  # the fence held: a real rejection
        self._stored(stored)
        return self.scaled(name, current, replicas, action, other)

    def scaled(self, name, current, replicas, action, other):
        """Record the step that set ``name`` from ``current`` to ``replicas`` (a scale, or the create
        of the new RC at its first scale-up) and wait for it."""
        self._write('scaled %s to %d' % (name, replicas))
        if action == 'scale up':
            old_count, new_count = replicas_of(other), replicas
        else:
            old_count, new_count = replicas, replicas_of(other)
        step = Step(action, name, current, replicas, old_count, new_count)
        self.steps.append(step)
        if self.on_step:
            self.on_step(step)
        return self.wait_replicas(name)

    def wait_replicas(self, name, what=None):
        """Until status shows the spec's replica count (kubectl's ControllerHasDesiredReplicas)."""
        def done():
            rc = self.seen_rc(name)
            status = rc.get('status') or {}
            generation = (rc.get('metadata') or {}).get('generation') or 0
            return status.get('observedGeneration', 0) >= generation and \
                int(status.get('replicas') or 0) == replicas_of(rc)

        def describe():
            rc = self.seen_rc(name)
            return 'ReplicationController "%s" to have %d replicas%s (it has %s)' % (
                name, replicas_of(rc), what or '', (rc.get('status') or {}).get('replicas', 0))
        self.wait_until(done, describe)
        return self.seen_rc(name)

    def wait_observed(self, name, generation, what):
        """Until the RC's controller reports it has seen ``generation`` of ``name``."""
        def done():
            status = self.seen_rc(name).get('status') or {}
            return int(status.get('observedGeneration') or 0) >= int(generation or 0)

        self.wait_until(done, lambda: 'the controller of ReplicationController "%s" to observe generation '
                        '%s%s (it reports %s)' % (name, generation, what,
                                                  (self.seen_rc(name).get('status') or {})
                                                  .get('observedGeneration', 'none')))

    def available_pods(self, rc):
        """Available pods of ``rc``: its status (the RC controller counts them, minReadySeconds
        included), or, while ready pods still wait out minReadySeconds, its pods counted here."""
        status = rc.get('status') or {}
        available = int(status.get('availableReplicas') or 0)
        min_ready = int((rc.get('spec') or {}).get('minReadySeconds') or 0)
        if not min_ready or int(status.get('readyReplicas') or 0) <= available:
            return available
        now = self.clock()
        return sum(1 for pod in self.list_pods((rc.get('spec') or {}).get('selector'))
                   if pod_available(pod, min_ready, now))

    def label_pod(self, pod, key, value):
        name = pod['metadata']['name']
        self._fence()
        try:
            self.api.patch(self._pods_path(name), {'metadata': {'labels': {key: value}}},
                           content_type=MERGE_PATCH, retry=True)
        except ApiError as e:
            if e.status != 404:
                raise
        else:
            self._write('labelled pod %s' % name)

    def delete_rc(self, name, orphan=False, uid=None):
        """Delete an RC (precondition: ``uid``, the one the decision was made about)."""
        body = {'kind': 'DeleteOptions', 'apiVersion': 'v1',
                'propagationPolicy': 'Orphan' if orphan else 'Background'}
        if uid:
            body['preconditions'] = {'uid': uid}
        self._fence()
        try:
            self.api.delete(self._rc_path(name), body=body)
        except ApiError as e:
            if e.status == 409 and uid:
                raise UpdateError('ReplicationController "%s" was replaced by someone else (another uid) '
                                  'before this run deleted it: stopped' % name)
            if e.status != 404:
                raise
        else:
            self._write('deleted %s%s' % (name, ' (its pods orphaned)' if orphan else ''))
        self.wait_gone(name)

    def wait_gone(self, name):
        watch = self.watched()
        self.wait_until(lambda: watch.get(name) is None,
                        lambda: 'ReplicationController "%s" to be deleted' % name)

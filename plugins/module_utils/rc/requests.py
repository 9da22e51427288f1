# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The requests of a rolling update: reads, compare-and-set writes and waits on the RCs and pods
of one namespace, and the record of what was written (for results and failure messages)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import time

from ansible_collections.kubeops.rollout.plugins.module_utils.client import retry_on_conflict
from ansible_collections.kubeops.rollout.plugins.module_utils.errors import ApiError, UpdateError
from ansible_collections.kubeops.rollout.plugins.module_utils.patches import JSON_PATCH, MERGE_PATCH
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.objects import (
    name_of,
    pod_available,
    replicas_of,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.steps import Step
from ansible_collections.kubeops.rollout.plugins.module_utils.workloads import (
    ReplicationController,
    selector_string,
)

# An RC's status is written by its controller while the update reads and writes its spec: a
# read-modify-write is decided again after a conflict, this many times in all.
RC_WRITE_ATTEMPTS = 10


class StateChanged(Exception):
    """The observed state changed under us (a failed compare-and-set): observe again."""


class ControllerRequests:
    """Requests on the ReplicationControllers and pods of ``opts.namespace``.

    ``api`` is an ApiClient (get/list/create/replace/patch/delete on raw JSON). ``sleep`` and
    ``clock`` are injectable for tests. Every write is recorded: ``changed``, ``done`` (what, for
    the failure message), ``in_progress`` (an update exists in the API) and the scale ``steps``.
    """

    def __init__(self, api, opts, sleep=time.sleep, clock=time.time):
        self.api = api
        self.opts = opts
        self.ns = opts.namespace
        self.sleep = sleep
        self.clock = clock
        self.steps = []
        self.changed = False
        self.done = []  # the changes made, for the failure message
        self.in_progress = False  # an update exists in the API (a failure can be resumed)
        self.on_step = None  # called with each scale Step as it is taken (live progress)

    def _rc_path(self, name=None):
        if name is None:
            return ReplicationController.collection_path(self.ns)
        return ReplicationController.object_path(self.ns, name)

    def _pods_path(self):
        return '/api/v1/namespaces/%s/pods' % self.ns

    def get_rc(self, name):
        try:
            return self.api.get(self._rc_path(name))
        except ApiError as e:
            if e.status == 404:
                return None
            raise

    def must_get_rc(self, name):
        rc = self.get_rc(name)
        if rc is None:
            raise UpdateError('ReplicationController "%s" disappeared from namespace "%s" during the update'
                              % (name, self.ns))
        return rc

    def list_pods(self, selector):
        return self.api.list(self._pods_path(), label_selector=selector_string(selector)).get('items') or []

    def list_rcs(self):
        return self.api.list(self._rc_path()).get('items') or []

    def _write(self, what):
        self.changed = True
        self.in_progress = True
        self.done.append(what)

    def update_rc(self, name, mutate, what):
        """Read-modify-write with the resourceVersion guard, again on conflict. ``mutate(obj)``
        changes obj in place; nothing is sent when it changes nothing. Returns the RC."""
        def attempt(_conflicted):
            rc = self.must_get_rc(name)
            new = copy.deepcopy(rc)
            mutate(new)
            if new == rc:
                return rc
            stored = self.api.replace(self._rc_path(name), new)
            self._write(what)
            return stored

        return retry_on_conflict(attempt, RC_WRITE_ATTEMPTS, lambda: UpdateError(
            'ReplicationController "%s" kept changing while updating it (%s)' % (name, what)))

    def replace_rc(self, name, body_of, what):
        """Replace the RC with ``body_of(live RC)``, read afresh after each conflict. Returns the RC."""
        def attempt(_conflicted):
            stored = self.api.replace(self._rc_path(name), body_of(self.must_get_rc(name)))
            self._write(what)
            return stored

        return retry_on_conflict(attempt, RC_WRITE_ATTEMPTS, lambda: UpdateError(
            'ReplicationController "%s" kept changing while %s' % (name, what)))

    def scale(self, rc, replicas, action, other):
        """Compare-and-set spec.replicas (JSON patch test), then wait as kubectl's scaler did.
        ``other`` is the RC on the other side: a step records both counts, the replaced RC's as
        ``old_replicas``."""
        name = name_of(rc)
        current = replicas_of(rc)
        body = [{'op': 'test', 'path': '/spec/replicas', 'value': (rc.get('spec') or {}).get('replicas')},
                {'op': 'replace', 'path': '/spec/replicas', 'value': replicas}]
        if (rc.get('spec') or {}).get('replicas') is None:
            body = [{'op': 'add', 'path': '/spec/replicas', 'value': replicas}]
        try:
            self.api.patch(self._rc_path(name), body, content_type=JSON_PATCH)
        except ApiError as e:
            if e.is_conflict:
                raise StateChanged()
            raise
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
        deadline = self.clock() + float(self.opts.timeout)
        while True:
            rc = self.must_get_rc(name)
            status = rc.get('status') or {}
            generation = (rc.get('metadata') or {}).get('generation') or 0
            if status.get('observedGeneration', 0) >= generation and \
                    int(status.get('replicas') or 0) == replicas_of(rc):
                return rc
            if self.clock() > deadline:
                raise UpdateError('timed out after %ss waiting for ReplicationController "%s" to have %d '
                                  'replicas%s (it has %s)' % (self.opts.timeout, name, replicas_of(rc),
                                                              what or '', status.get('replicas', 0)))
            self.sleep(float(self.opts.poll_interval))

    def available_pods(self, rc):
        min_ready = int((rc.get('spec') or {}).get('minReadySeconds') or 0)
        now = self.clock()
        return sum(1 for pod in self.list_pods((rc.get('spec') or {}).get('selector'))
                   if pod_available(pod, min_ready, now))

    def label_pod(self, pod, key, value):
        name = pod['metadata']['name']
        try:
            self.api.patch('%s/%s' % (self._pods_path(), name), {'metadata': {'labels': {key: value}}},
                           content_type=MERGE_PATCH, retry=True)
        except ApiError as e:
            if e.status != 404:
                raise
        else:
            self._write('labelled pod %s' % name)

    def delete_pod(self, pod):
        name = pod['metadata']['name']
        try:
            self.api.delete('%s/%s' % (self._pods_path(), name))
        except ApiError as e:
            if e.status != 404:
                raise
        else:
            self._write('deleted stray pod %s' % name)

    def delete_rc(self, name, orphan=False):
        body = {'kind': 'DeleteOptions', 'apiVersion': 'v1',
                'propagationPolicy': 'Orphan' if orphan else 'Background'}
        try:
            self.api.delete(self._rc_path(name), body=body)
        except ApiError as e:
            if e.status != 404:
                raise
        else:
            self._write('deleted %s%s' % (name, ' (its pods orphaned)' if orphan else ''))
        self.wait_gone(name)

    def wait_gone(self, name):
        deadline = self.clock() + float(self.opts.timeout)
        while self.get_rc(name) is not None:
            if self.clock() > deadline:
                raise UpdateError('timed out waiting for ReplicationController "%s" to be deleted' % name)
            self.sleep(float(self.opts.poll_interval))

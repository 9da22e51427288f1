# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""``RollingUpdate``: runs (or, in check mode, plans) one rolling update or rollback. The decisions
come from ``state``, ``steps`` and ``objects``; the requests from ``requests``; check mode's plan
from ``plan`` and the rollback from ``rollback``."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import time

from ansible_collections.kubeops.rollout.plugins.module_utils.common.vocabulary import setting
from ansible_collections.kubeops.rollout.plugins.module_utils.api.client import retry_on_conflict
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.diagnosis import read_diagnosis
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workloads import ReplicationController
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import (
    ApiError,
    KubeError,
    UpdateError,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.lease import UpdateLease
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.objects import (
    DESIRED_REPLICAS_ANNOTATION,
    NEXT_CONTROLLER_ANNOTATION,
    ORIGINAL_REPLICAS_ANNOTATION,
    SOURCE_ID_ANNOTATION,
    annotations_of,
    controller_ref,
    desired_replicas,
    name_of,
    new_controller_body,
    orig_label_value,
    orphans_for,
    renamed_body,
    replicas_of,
    source_id,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.patches import json_pointer
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.plan import CheckModePlan
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.requests import (
    RC_WRITE_ATTEMPTS,
    ControllerRequests,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.rollback import Rollback
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.state import (
    ADOPT,
    CLEANUP_DELETE,
    CLEANUP_PRESERVE,
    CLEANUP_RENAME,
    FINISHED,
    SCALING,
    START,
    classify,
    finished_by_derived_name,
    rename_may_be_pending,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.steps import (
    limits,
    scale_down_target,
    scale_up_target,
    step_dict,
)


class RollingUpdate(CheckModePlan, Rollback, ControllerRequests):
    """Runs (or, in check mode, plans) one rolling update or rollback against the API.

    ``api`` is an ApiClient (get/list/create/replace/patch/delete on raw JSON). ``sleep`` and
    ``clock`` are injectable for tests.
    """

    def __init__(self, api, opts, check_mode=False, sleep=time.sleep, clock=time.time):
        super(RollingUpdate, self).__init__(api, opts, sleep=sleep, clock=clock)
        self.check_mode = check_mode
        self.new_name = None
        self.diff = None
        self.diagnosis = None  # set when the update gives up waiting for progress
        self.warnings = []

    # -- entry point
    def run(self):
        """One run at a time per RC: take its lease (waiting for a live holder or failing, as
        ``wait_for_lease`` says), work from what the API shows once it is held, release it."""
        if self.check_mode:
            self.note_lease_holder()
            return self.direction()
        lease = UpdateLease(self.api, self.ns, self.opts.name, self.opts.lease_duration, clock=self.clock,
                            sleep=self.sleep)
        previous = lease.acquire(bool(self.opts.wait_for_lease), float(self.opts.timeout))
        if previous:
            self.warnings.append('took over the update of ReplicationController "%s" from "%s", whose '
                                 'lease expired (that run died or lost its connection)'
                                 % (self.opts.name, previous))
        self.lease = lease
        lease.start_renewing()
        try:
            return self.direction()
        finally:
            self.lease = None
            lease.release()

    def direction(self):
        if self.opts.rollback:
            return self.rollback()
        return self.forward()

    # -- forward update
    def resolve_target(self, old):
        return self.opts.target(old, self.ns)

    def observe(self):
        """Read what the update needs and classify it (forward direction)."""
        opts = self.opts
        view = self.watched()  # one LIST shows both RCs, and the watch follows on from it
        old = view.get(opts.name)
        if old is None:
            return None
        if (old.get('metadata') or {}).get('deletionTimestamp'):
            raise UpdateError('ReplicationController "%s" is being deleted' % opts.name)
        target = self.resolve_target(old)
        ptr = annotations_of(old).get(NEXT_CONTROLLER_ANNOTATION)
        marker = annotations_of(old).get(SOURCE_ID_ANNOTATION)
        if marker is not None and marker.rsplit(':', 1)[0] != ptr:
            source = marker.rsplit(':', 1)[0]
            raise UpdateError('ReplicationController "%s" is the new controller of an update of "%s" that is '
                              'in progress: run the update with name: %s to finish it'
                              % (opts.name, source, source))
        ptr_rc = view.get(ptr) if ptr else None
        explicit = opts.explicit_new_name
        if explicit:
            new_name = explicit
        elif ptr_rc is not None:
            new_name = ptr
        else:
            new_name = '%s-%s' % (opts.name, target.selector[opts.deployment_label_key])
        if new_name == opts.name:
            raise UpdateError('the new controller cannot have the same name as the existing '
                              'ReplicationController "%s"' % opts.name)
        if ptr_rc is not None and ptr != new_name and \
                annotations_of(ptr_rc).get(SOURCE_ID_ANNOTATION) == source_id(old):
            raise UpdateError('an update of "%s" to "%s" is in progress: finish it first (%s and its image '
                              'or definition) or roll it back with %s'
                              % (opts.name, ptr, setting('new_name', ptr), setting('rollback', True)))
        new = ptr_rc if ptr == new_name else view.get(new_name)
        if new is not None and (new.get('metadata') or {}).get('deletionTimestamp'):
            self.wait_gone(new_name)
            return self.observe()
        orphans = None
        if new is None and ptr and ptr_rc is None and rename_may_be_pending(old):
            orphans = self.find_orphans(old, target)
        return classify(opts, old, new, new_name, target, orphans)

    def released_pods(self, old):
        """Pods of a deleted new RC, found by the deployment label (value, pods)."""
        key = self.opts.deployment_label_key
        selector = {k: v for k, v in ((old.get('spec') or {}).get('selector') or {}).items() if k != key}
        return orphans_for(self.list_pods(selector), old, key)

    def find_orphans(self, old, target):
        if self.opts.image_mode:
            return self.released_pods(old)
        pods = [p for p in self.list_pods(target.selector)
                if not controller_ref(p) and not (p.get('metadata') or {}).get('deletionTimestamp')]
        return (None, pods)

    def forward(self):
        state = self.observe()
        if state is None:
            return self.old_missing()
        self.new_name = state.new_name
        self.diff = {'before': (state.old.get('spec') or {}).get('template'), 'after': state.target.template}
        self.in_progress = state.phase != START
        if state.phase == FINISHED:
            self.new_name = self.opts.name
            self.diff = None
            return self.result(state.old, state.reason)
        if self.opts.rollback is False and SOURCE_ID_ANNOTATION in annotations_of(state.old):
            self.cancel_rollback(state.old)
        if self.check_mode:
            return self.plan(state)
        if state.phase == ADOPT:
            rc = self.adopt(state)
            return self.result(rc, 'finished renaming %s to %s' % (state.new_name, self.opts.name))
        if state.phase == START:
            self.start(state)
        elif state.phase == SCALING:
            self.prepare_old(state.old, state.new_name)
        if state.phase in (START, SCALING):
            self.scale_loop(self.opts.name, self.new_name)
        rc = self.cleanup(self.opts.name, self.new_name)
        return self.result(rc, self.summary())

    def cancel_rollback(self, old):
        """A rollback was in progress and the update is wanted again: drop the rollback markers."""
        if self.check_mode:
            return

        def mutate(rc):
            annotations = rc['metadata'].get('annotations') or {}
            annotations.pop(SOURCE_ID_ANNOTATION, None)
            annotations.pop(DESIRED_REPLICAS_ANNOTATION, None)
        self.update_rc(self.opts.name, mutate, 'dropped the rollback annotations of %s' % self.opts.name)

    def old_missing(self):
        """The old RC is gone: a finished update (delete policy) or one whose last step is left."""
        opts = self.opts
        name = opts.name
        candidates = []
        explicit = opts.explicit_new_name
        if explicit:
            rc = self.get_rc(explicit)
            if rc is not None:
                candidates.append(rc)
        else:
            rcs = self.list_rcs()
            candidates = [rc for rc in rcs
                          if (annotations_of(rc).get(SOURCE_ID_ANNOTATION) or '').startswith(name + ':')]
            if not candidates and opts.image_mode:
                candidates = finished_by_derived_name(opts, rcs)
        for rc in candidates:
            src = annotations_of(rc).get(SOURCE_ID_ANNOTATION)
            self.new_name = name_of(rc)
            if src is not None and src.startswith(name + ':'):
                if self.check_mode:
                    self.changed = True
                    return self.result(rc, 'would remove the update annotations of "%s" (the old controller '
                                       '"%s" is already deleted)' % (self.new_name, name))
                rc = self.strip_update_annotations(self.new_name)
                return self.result(rc, 'finished the update of "%s": "%s" replaced it'
                                   % (name, self.new_name))
            target = None if opts.image_mode else opts.target(None, self.ns)
            if src is None and opts.matches(rc, target):
                return self.result(rc, 'ReplicationController "%s" already replaced "%s" (which is deleted)'
                                   % (self.new_name, name))
        raise UpdateError('ReplicationController "%s" not found in namespace "%s"' % (name, self.ns))

    def start(self, state):
        """Point the old RC at the new one, label it apart (image mode), create the new RC.

        kubectl created it at 0 and then scaled it up: here it is created at that first scale-up
        (decided from the same view of the old RC, which the create cannot act on), one request
        less. A run killed right after the create finds what a run killed after that scale-up did."""
        opts = self.opts
        old = state.old
        opts.check_can_start(old, state.target)
        old = self.prepare_old(old, state.new_name)
        desired = state.target.replicas
        lim = limits(opts.max_surge, opts.max_unavailable, desired, replicas_of(old))
        first = scale_up_target(replicas_of(old), 0, lim) or 0
        body = new_controller_body(state.target, state.new_name, self.ns, old, desired, replicas=first)
        try:
            self.create_rc(body)
        except ApiError as e:
            if e.status != 409:
                raise
            # Created by this create (repeated after its answer was lost) or by a run that did not
            # see the answer: it is this update's if its source id says so.
            existing = self.must_get_rc(state.new_name)
            if annotations_of(existing).get(SOURCE_ID_ANNOTATION) != source_id(old):
                raise UpdateError('ReplicationController "%s" already exists and is not part of an update of '
                                  '"%s"' % (state.new_name, opts.name))
            if replicas_of(existing) != first:
                return  # changed since: the scale loop goes on from what it finds
        self._write('created %s' % state.new_name)
        if first:
            self.scaled(state.new_name, 0, first, 'scale up', old)
            self.sleep(float(opts.update_period))

    def prepare_old(self, old, new_name):
        """kubectl's UpdateExistingReplicationController: next-controller-id (and original-replicas),
        and in image mode the ``<key>=<hash>-orig`` label on template, pods, then selector."""
        opts = self.opts
        key = opts.deployment_label_key
        name = opts.name
        selector = (old.get('spec') or {}).get('selector') or {}
        needs_label = opts.image_mode and key not in selector
        value = orig_label_value(old, key)

        def annotate(rc):
            annotations = rc['metadata'].setdefault('annotations', {})
            annotations[NEXT_CONTROLLER_ANNOTATION] = new_name
            annotations.setdefault(ORIGINAL_REPLICAS_ANNOTATION, str(replicas_of(rc)))
            if needs_label:
                template_meta = rc['spec']['template'].setdefault('metadata', {})
                template_meta.setdefault('labels', {})[key] = value
        old = self.update_rc(name, annotate, 'annotated %s' % name, current=old)
        if not needs_label:
            return old
        # Label the running pods first so that the new selector keeps them. kubectl listed the
        # pods again after the selector change and deleted any without the label: one the RC
        # controller made from the unlabelled template it still had cached. Here the pods are
        # listed only once the controller reports (status.observedGeneration) that it works from
        # the labelled template. It creates a sync's pods before it writes that sync's status,
        # and its cache never goes back, so every pod made from the old template is in this LIST
        # and every later one carries the label: no second LIST, and no pod to delete.
        self.wait_observed(name, (old.get('metadata') or {}).get('generation'),
                           ' with the %s=%s label in its pod template' % (key, value))
        for pod in self.list_pods(selector):
            if (pod['metadata'].get('labels') or {}).get(key) != value:
                self.label_pod(pod, key, value)

        def select(rc):
            rc['spec'].setdefault('selector', dict(selector))[key] = value
        # A JSON patch fenced by the fields that matter: the status the RC controller writes while
        # the pods were labelled does not make it conflict, as a PUT with the resourceVersion would.
        add = {'op': 'add', 'path': json_pointer('spec', 'selector', key), 'value': value}
        return self.patch_rc(old, [add], select, 'added %s=%s to the selector of %s' % (key, value, name))

    def scale_loop(self, src_name, dst_name):
        """kubectl's loop: scale dst up within the surge, wait update_period, scale src down within
        availability; repeat until dst has its desired replicas and src none. Both RCs are followed
        by one watch; each step is decided from it and fenced, and decided again from a fresh read
        after a conflict. Any scale is progress; none for ``timeout`` seconds fails."""
        opts = self.opts
        watch = self.watched()
        # A resumed run may find a scale its crashed predecessor wrote but did not wait for: the
        # controllers have not yet created or removed those pods, so the counts a step is decided
        # from would not be the pods that exist. Wait first, as the step that wrote it would have.
        self.wait_replicas(src_name, ' before the next step')
        self.wait_replicas(dst_name, ' before the next step')
        deadline = self.clock() + float(opts.timeout)
        while True:
            src, dst = self.seen_rc(src_name), self.seen_rc(dst_name)
            if replicas_of(dst) == desired_replicas(dst) and replicas_of(src) == 0:
                return
            if retry_on_conflict(lambda _c: self.scale_step(src_name, dst_name), RC_WRITE_ATTEMPTS,
                                 lambda: UpdateError('ReplicationControllers "%s" and "%s" kept being scaled '
                                                     'by someone else' % (src_name, dst_name))):
                deadline = self.clock() + float(opts.timeout)
                continue
            versions = self.versions(src_name, dst_name)
            status = dst.get('status') or {}
            if int(status.get('readyReplicas') or 0) > int(status.get('availableReplicas') or 0) and \
                    (dst.get('spec') or {}).get('minReadySeconds'):
                # Ready pods waiting out minReadySeconds change nothing a watch would show.
                self.sleep(float(opts.poll_interval))
                changed = True
            else:
                changed = watch.wait(lambda seen=versions: self.versions(src_name, dst_name) != seen,
                                     deadline)
            if not changed or self.clock() > deadline:
                # why the new pods do not become ready
                self.diagnosis = read_diagnosis(self.api, ReplicationController(self.seen_rc(dst_name)))
                raise UpdateError('timed out waiting for any update progress to be made (no scaling possible '
                                  'for %ss: are the new pods becoming ready?)' % opts.timeout)

    def versions(self, *names):
        return tuple(self.seen_rc(name)['metadata'].get('resourceVersion') for name in names)

    def scale_step(self, src_name, dst_name):
        """One scale (up if the surge allows, else down if availability allows) decided from the
        watched RCs. Returns whether it scaled."""
        opts = self.opts
        src, dst = self.seen_rc(src_name), self.seen_rc(dst_name)
        lim = limits(opts.max_surge, opts.max_unavailable, desired_replicas(dst), replicas_of(src))
        up = scale_up_target(replicas_of(src), replicas_of(dst), lim)
        if up is not None:
            self.scale(dst, up, 'scale up', src)
            self.sleep(float(opts.update_period))
            return True
        down = scale_down_target(replicas_of(src), replicas_of(dst), self.available_pods(dst), lim)
        if down is not None:
            self.scale(src, down, 'scale down', dst)
            return True
        return False

    def strip_update_annotations(self, name):
        def mutate(rc):
            annotations = rc['metadata'].get('annotations') or {}
            annotations.pop(SOURCE_ID_ANNOTATION, None)
            annotations.pop(DESIRED_REPLICAS_ANNOTATION, None)
            if not annotations:
                rc['metadata'].pop('annotations', None)
        return self.update_rc(name, mutate, 'removed the update annotations of %s' % name)

    def cleanup(self, old_name, new_name):
        """After the loop: wait for the new RC's pods, then the cleanup policy. Every order here is
        chosen so that a killed run still finds the update from what is left."""
        policy = self.opts.policy
        new = self.wait_replicas(new_name)
        if policy == CLEANUP_PRESERVE:
            new = self.strip_update_annotations(new_name)
            return new
        if policy == CLEANUP_DELETE:
            self.delete_rc(old_name, uid=self.seen_rc(old_name)['metadata'].get('uid'))
            return self.strip_update_annotations(new_name)
        return self.rename(self.seen_rc(old_name), new)

    def rename(self, old, new):
        """Give the old RC the new one's pods: delete the new RC orphaning its pods, then update the
        old RC in place to the new selector/template/size; it adopts the released pods."""
        desired = replicas_of(new)
        self.delete_rc(name_of(new), orphan=True, uid=(new.get('metadata') or {}).get('uid'))
        return self.take_over(old, new, desired)

    def take_over(self, old, source, desired):
        """Update the old RC in place to ``source``'s labels, annotations and spec at ``desired``."""
        name = name_of(old)
        # Its scale-down to 0 must be carried out first: an old pod still there when the selector
        # changes is released, not deleted, and stays behind for good (a run killed right after
        # that scale-down never waited for it).
        live = self.wait_replicas(name, ' before adopting the pods of "%s"' % name_of(source))
        self.replace_rc(name, lambda live: renamed_body(live, source, desired),
                        'renamed %s to %s' % (name_of(source), name), current=live)
        return self.wait_replicas(name, ' after adopting the pods of "%s"' % name_of(source))

    def adoption_source(self, state):
        """The deleted new RC of an interrupted rename, rebuilt from the target (in image mode with
        the deployment label its released pods carry): (source object, desired replicas)."""
        old = state.old
        value, _pods = self.find_orphans(old, state.target)
        target = self.opts.target(old, self.ns, label_value=value) if self.opts.image_mode else state.target
        metadata = {'name': state.new_name, 'labels': target.labels, 'annotations': target.annotations}
        spec = dict(copy.deepcopy(old.get('spec') or {}), selector=target.selector, template=target.template)
        source = {'metadata': metadata, 'spec': spec}
        return source, target.replicas

    def adopt(self, state):
        """The rename was interrupted after the new RC was deleted: the old RC takes its pods over."""
        source, desired = self.adoption_source(state)
        return self.take_over(state.old, source, desired)

    # -- results
    def summary(self):
        if not self.changed:
            return '"%s" already replaced "%s" (cleanup policy %s: nothing left to do)' % (
                self.new_name, self.opts.name, self.opts.policy)
        how = {CLEANUP_RENAME: 'then renamed back to "%s"' % self.opts.name,
               CLEANUP_DELETE: 'and deleted "%s"' % self.opts.name,
               CLEANUP_PRESERVE: 'and kept "%s" at 0 replicas' % self.opts.name}[self.opts.policy]
        return 'rolling updated "%s" to "%s" in %d scale steps %s' % (
            self.opts.name, self.new_name, len(self.steps), how)

    def result(self, rc, msg, planned=False):
        # Not "rc": Ansible reads a result key rc as a return code and fails the task when it is not 0.
        out = {'changed': self.changed, 'msg': msg, 'steps': [step_dict(s) for s in self.steps],
               'replication_controller': rc, 'new_name': self.final_name(rc)}
        if planned:
            out['planned'] = True
        return out

    def final_name(self, rc):
        return self.new_name or (name_of(rc) if rc else None)

    def progress(self):
        """How far the update got, for a failure message."""
        parts = []
        try:
            for name in (self.opts.name, self.new_name):
                if not name:
                    continue
                rc = self.get_rc(name)
                if rc is None:
                    parts.append('"%s" does not exist' % name)
                else:
                    parts.append('"%s" has %d replicas' % (name, replicas_of(rc)))
        except KubeError:
            pass
        if self.done:
            parts.append('last change in this run: %s' % self.done[-1])
        return '; '.join(parts)

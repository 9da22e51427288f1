"""The StatefulSet controller (pkg/controller/statefulset in Kubernetes).

Pods are `<set>-<ordinal>`, ordinals `start .. start + replicas - 1` (`spec.ordinals.start`, 0 when
unset); the controller works on indexes `ordinal - start`, and the partition is such an index.
OrderedReady creates them one at a time in ordinal order, each waiting
for its predecessors to be Running and Ready, and removes surplus ones from the highest ordinal
down; Parallel does both at once. RollingUpdate replaces pods from the highest ordinal down to
`partition`, one at a time, waiting for each to be available again; OnDelete replaces a pod only
when someone deletes it. Revisions live in ControllerRevisions (see history.py).
"""

import re

from ..apiserver.recorders import CONTROLLER_MANAGER, recorder
from ..machinery.errors import ApiError
from ..machinery.selectors import selector_from_label_selector_object
from . import history, statefulset_claims as claims
from .common import (claim, controller_revision_hash, is_deleting, is_pod_ready, labels_of, name_of, ns_of,
                     pod_from_template, pod_phase, scaled_value, uid_of)
from .events import WARNING

POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name'
POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index'
_ORDINAL_RE = re.compile(r'^(.*)-([0-9]+)$')


def ordinal_of(pod):
    m = _ORDINAL_RE.match(name_of(pod))
    return int(m.group(2)) if m else -1


def start_ordinal(sts):
    """getStartOrdinal: `spec.ordinals.start` (GA, its gate locked on), else 0."""
    return int((sts['spec'].get('ordinals') or {}).get('start') or 0)


def parent_name(pod):
    m = _ORDINAL_RE.match(name_of(pod))
    return m.group(1) if m else ''


def is_created(pod):
    return bool(pod['metadata'].get('uid'))


def pod_revision(pod):
    return labels_of(pod).get(history.POD_REVISION_LABEL, '')


class StatefulSetController:
    resource = 'apps/statefulsets'

    def __init__(self, mgr):
        self.mgr = mgr
        self.store = mgr.store

    def sync_all(self, objects=None):
        """Sync ``objects`` (the ones that changed), or every StatefulSet."""
        for sts in self.mgr.index.list(self.resource) if objects is None else objects:
            self.mgr.guard('StatefulSet', sts, self.sync, sts)

    # ---- helpers --------------------------------------------------------------------------------
    def claimed_pods(self, sts):
        selector = selector_from_label_selector_object(sts['spec'].get('selector'))
        candidates = self.mgr.index.list('/pods', ns_of(sts), selector, uid_of(sts))
        return claim(self.store, '/pods', sts, 'apps/v1', 'StatefulSet', candidates, selector,
                     extra_match=lambda p: parent_name(p) == name_of(sts))

    def running_and_ready(self, pod):
        return is_created(pod) and pod_phase(pod) == 'Running' and is_pod_ready(pod) and not is_deleting(pod)

    def available(self, pod, min_ready):
        return self.running_and_ready(pod) and self.mgr.is_available(pod, min_ready)

    def new_pod(self, sts, template_set, ordinal, revision_name):
        name = f'{name_of(sts)}-{ordinal}'
        pod = pod_from_template(template_set['spec'].get('template') or {}, sts, 'apps/v1', 'StatefulSet',
                                name, generate_name=f'{name_of(sts)}-')
        labels = pod['metadata'].setdefault('labels', {})
        labels[POD_NAME_LABEL] = name
        labels[POD_INDEX_LABEL] = str(ordinal)
        labels[history.POD_REVISION_LABEL] = revision_name
        claims.mount_claims(sts, pod, ordinal)
        pod['spec']['hostname'] = name
        if sts['spec'].get('serviceName'):
            pod['spec']['subdomain'] = sts['spec']['serviceName']
        return pod

    def delete_pod(self, pod):
        try:
            self.store.delete('/pods', ns_of(pod), name_of(pod))
        except ApiError as err:
            if err.code != 404:
                raise

    # ---- revisions --------------------------------------------------------------------------------
    def get_revisions(self, sts, revisions):
        """getStatefulSetRevisions: (current, update, collisionCount); may create or bump one."""
        collision = (sts.get('status') or {}).get('collisionCount') or 0
        candidate = self.build_revision(sts, history.next_revision(revisions), collision)
        equal = [cr for cr in revisions if history.equal_revision(cr, candidate)]
        if equal and history.equal_revision(revisions[-1], equal[-1]):
            update = revisions[-1]
        elif equal:
            update = history.set_revision(self.store, equal[-1], candidate['revision'])
        else:
            update, collision = self.create_revision(sts, candidate, collision)
        current = next((cr for cr in revisions
                        if name_of(cr) == (sts.get('status') or {}).get('currentRevision')), None)
        return current or update, update, collision

    @staticmethod
    def build_revision(sts, revision, collision):
        labels = dict((sts['spec'].get('template', {}).get('metadata') or {}).get('labels') or {})
        cr = history.new_revision(sts, 'StatefulSet', '', labels, revision)
        rev_hash = controller_revision_hash(cr['data'], collision or 0)
        cr['metadata']['name'] = f'{name_of(sts)}-{rev_hash}'
        cr['metadata']['labels'][history.REVISION_HASH_LABEL] = rev_hash
        return cr

    def create_revision(self, sts, candidate, collision):
        while True:
            try:
                return self.store.create(history.RESOURCE, candidate,
                                         manager=recorder(history.RESOURCE, CONTROLLER_MANAGER)), collision
            except ApiError as err:
                if err.code != 409:
                    raise
                existing = self.store.get(history.RESOURCE, ns_of(sts), name_of(candidate))
                if existing is not None and history.equal_revision(existing, candidate):
                    return existing, collision
                collision += 1
                candidate = self.build_revision(sts, candidate['revision'], collision)

    # ---- the sync ------------------------------------------------------------------------------
    def sync(self, sts):
        revisions = history.owned_revisions(self.mgr, sts, 'StatefulSet')
        pods = self.claimed_pods(sts)
        claims.update_retention(self, sts, pods)
        current, update, collision = self.get_revisions(sts, revisions)
        try:
            if not is_deleting(sts):
                self.update_pods(sts, current, update, pods)
        finally:
            # As the Go controller: the status (updateRevision too) is written even when a pod
            # creation was refused.
            pods = self.claimed_pods(sts)
            self.write_status(sts, current, update, collision, pods)
        self.truncate_history(sts, pods, revisions, current, update)

    def update_pods(self, sts, current, update, pods):
        spec = sts['spec']
        min_ready = spec.get('minReadySeconds', 0)
        current_set = history.apply_revision(sts, current)
        update_set = history.apply_revision(sts, update)
        count = spec.get('replicas', 1)
        start = start_ordinal(sts)
        # replicas[i] is the pod of ordinal start + i; pods outside that range are condemned.
        replicas = [None] * count
        condemned = []
        for pod in pods:
            ordinal = ordinal_of(pod)
            if start <= ordinal < start + count:
                replicas[ordinal - start] = pod
            elif ordinal >= 0:
                condemned.append(pod)
        strategy = spec.get('updateStrategy') or {}
        rolling = strategy.get('rollingUpdate')
        # The partition is an index counted from start, as every index here.
        partition = (rolling or {}).get('partition', 0) or 0
        for index in range(count):
            if replicas[index] is None:
                # Below the partition a recreated pod keeps the current revision.
                if strategy.get('type', 'RollingUpdate') == 'RollingUpdate' and rolling is not None \
                        and index < partition:
                    replicas[index] = self.new_pod(sts, current_set, start + index, name_of(current))
                else:
                    replicas[index] = self.new_pod(sts, update_set, start + index, name_of(update))
        condemned.sort(key=ordinal_of, reverse=True)

        def unavailable(pod):
            return not self.available(pod, min_ready)

        first_unhealthy = next((p for p in replicas if unavailable(p)), None)
        if first_unhealthy is None:
            first_unhealthy = next((p for p in reversed(condemned) if unavailable(p)), None)

        monotonic = spec.get('podManagementPolicy', 'OrderedReady') != 'Parallel'
        for pod in replicas:
            if is_created(pod) and pod_phase(pod) in ('Failed', 'Succeeded'):
                self.delete_pod(pod)
                if monotonic:
                    return
                continue
            if not is_created(pod):
                try:
                    claims.create_claims(self, sts, pod)
                    self.store.create('/pods', pod, manager=recorder('/pods', CONTROLLER_MANAGER))
                except ApiError as err:
                    if err.code != 409:
                        self.mgr.events.record(sts, WARNING, 'FailedCreate',
                                               f'create Pod {name_of(pod)} in StatefulSet {name_of(sts)} '
                                               f'failed error: {err.message}', 'statefulset-controller')
                    raise
                if monotonic:
                    return
                continue
            if monotonic and (is_deleting(pod) or not self.running_and_ready(pod)
                              or not self.available(pod, min_ready)):
                return

        for pod in condemned:
            if is_deleting(pod):
                if monotonic:
                    return
                continue
            if monotonic and pod is not first_unhealthy and unavailable(pod):
                return
            claims.release_on_scale_down(self, sts, pod)
            self.delete_pod(pod)
            if monotonic:
                return

        if strategy.get('type', 'RollingUpdate') == 'OnDelete':
            return
        if rolling is not None and rolling.get('maxUnavailable') is not None:
            self.rolling_update_max_unavailable(replicas, update, partition, rolling['maxUnavailable'],
                                                min_ready)
            return
        for target in range(count - 1, partition - 1, -1):
            pod = replicas[target]
            if pod_revision(pod) != name_of(update) and not is_deleting(pod):
                self.delete_pod(pod)
                return
            if unavailable(pod):
                return

    def rolling_update_max_unavailable(self, replicas, update, partition, max_unavailable, min_ready):
        # As the controller does with the gate on: percentages round down, at least one.
        limit = max(scaled_value(max_unavailable, len(replicas), False), 1)
        down = sum(1 for p in replicas if not self.available(p, min_ready))
        if down > limit:
            return
        budget = limit - down
        for target in range(len(replicas) - 1, partition - 1, -1):
            if budget <= 0:
                break
            pod = replicas[target]
            if pod_revision(pod) != name_of(update) and not is_deleting(pod):
                self.delete_pod(pod)
                budget -= 1

    # ---- status and history --------------------------------------------------------------------
    def write_status(self, sts, current, update, collision, pods):
        min_ready = sts['spec'].get('minReadySeconds', 0)
        counts = {'replicas': 0, 'readyReplicas': 0, 'availableReplicas': 0, 'currentReplicas': 0,
                  'updatedReplicas': 0}
        for pod in pods:
            if is_created(pod):
                counts['replicas'] += 1
            if self.running_and_ready(pod):
                counts['readyReplicas'] += 1
                if self.available(pod, min_ready):
                    counts['availableReplicas'] += 1
            if is_created(pod) and not is_deleting(pod):
                if pod_revision(pod) == name_of(current):
                    counts['currentReplicas'] += 1
                if pod_revision(pod) == name_of(update):
                    counts['updatedReplicas'] += 1
        current_name = name_of(current)
        strategy = (sts['spec'].get('updateStrategy') or {}).get('type', 'RollingUpdate')
        if (strategy == 'RollingUpdate' and counts['updatedReplicas'] == counts['replicas']
                and counts['readyReplicas'] == counts['replicas']):
            counts['currentReplicas'] = counts['updatedReplicas']
            current_name = name_of(update)
        status = {'observedGeneration': sts['metadata'].get('generation', 1),
                  'replicas': counts['replicas'], 'availableReplicas': counts['availableReplicas']}
        for key in ('readyReplicas', 'currentReplicas', 'updatedReplicas'):
            if counts[key]:
                status[key] = counts[key]
        status['currentRevision'] = current_name
        status['updateRevision'] = name_of(update)
        status['collisionCount'] = collision
        old = sts.get('status') or {}
        if old.get('conditions'):
            status['conditions'] = old['conditions']
        if status != old:
            self.store.update(self.resource, {'metadata': {'name': name_of(sts), 'namespace': ns_of(sts)},
                                              'status': status}, subresource='status',
                              manager=recorder(self.resource, CONTROLLER_MANAGER, 'status'))

    def truncate_history(self, sts, pods, revisions, current, update):
        live = {name_of(current), name_of(update)} | {pod_revision(p) for p in pods}
        old = [cr for cr in revisions if name_of(cr) not in live]
        limit = sts['spec'].get('revisionHistoryLimit', 10)
        if limit is None or limit < 0 or len(old) <= limit:
            return
        for cr in old[:len(old) - limit]:
            history.delete_revision(self.store, cr)

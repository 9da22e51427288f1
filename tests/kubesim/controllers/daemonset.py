"""The DaemonSet controller (pkg/controller/daemon/{daemon_controller,update}.go in Kubernetes).

One pod per eligible Node (eligibility is the template's `nodeSelector` and `nodeName`). As in
Kubernetes, a pod is not bound by the controller: it carries a required node-affinity term
pinning it to its node (`matchFields` on `metadata.name`) and the DaemonSet tolerations, and the
scheduler binds it. Revisions are ControllerRevisions whose hash is also the pods'
`controller-revision-hash` label. RollingUpdate replaces pods node by node within `maxUnavailable`
(or surges up to `maxSurge` new pods first); OnDelete waits for someone to delete old pods.
"""

from ..apiserver.recorders import CONTROLLER_MANAGER, recorder
from ..machinery.errors import ApiError
from ..machinery.selectors import selector_from_label_selector_object
from . import history
from .common import (claim, compute_hash, create_with_random_name, creation_key, is_deleting,
                     is_pod_ready, labels_of, name_of, ns_of, omit_zero, pod_from_template, pod_phase,
                     scaled_value, semantic_equal, uid_of)
from .events import WARNING

TEMPLATE_GENERATION = 'deprecated.daemonset.template.generation'
# The tolerations every DaemonSet pod gets (AddOrUpdateDaemonPodTolerations), in its order; pods on
# the host network also tolerate an unavailable network.
DAEMON_TOLERATIONS = (('node.kubernetes.io/not-ready', 'NoExecute'),
                      ('node.kubernetes.io/unreachable', 'NoExecute'),
                      ('node.kubernetes.io/disk-pressure', 'NoSchedule'),
                      ('node.kubernetes.io/memory-pressure', 'NoSchedule'),
                      ('node.kubernetes.io/pid-pressure', 'NoSchedule'),
                      ('node.kubernetes.io/unschedulable', 'NoSchedule'))
NETWORK_UNAVAILABLE = ('node.kubernetes.io/network-unavailable', 'NoSchedule')


def add_daemon_tolerations(spec):
    wanted = list(DAEMON_TOLERATIONS) + ([NETWORK_UNAVAILABLE] if spec.get('hostNetwork') else [])
    tolerations = list(spec.get('tolerations') or [])
    for key, effect in wanted:
        toleration = {'key': key, 'operator': 'Exists', 'effect': effect}
        # Same key and effect: replaced in place, as v1helper.AddOrUpdateTolerationInPodSpec does.
        for i, existing in enumerate(tolerations):
            if existing.get('key') == key and existing.get('effect') == effect:
                tolerations[i] = toleration
                break
        else:
            tolerations.append(toleration)
    spec['tolerations'] = tolerations


def pin_to_node(spec, node_name):
    """Replace the required node-affinity terms with one matching only ``node_name``."""
    term = {'matchFields': [{'key': 'metadata.name', 'operator': 'In', 'values': [node_name]}]}
    affinity = spec.get('affinity') or {}
    node_affinity = affinity.get('nodeAffinity') or {}
    required = node_affinity.get('requiredDuringSchedulingIgnoredDuringExecution') or {}
    required['nodeSelectorTerms'] = [term]
    node_affinity['requiredDuringSchedulingIgnoredDuringExecution'] = required
    affinity['nodeAffinity'] = node_affinity
    spec['affinity'] = affinity


def target_node(pod):
    """The node a daemon pod is for: its nodeName once bound, else its node-affinity pin."""
    spec = pod.get('spec') or {}
    if spec.get('nodeName'):
        return spec['nodeName']
    required = ((spec.get('affinity') or {}).get('nodeAffinity') or {}).get(
        'requiredDuringSchedulingIgnoredDuringExecution') or {}
    for term in required.get('nodeSelectorTerms') or []:
        for field in term.get('matchFields') or []:
            if field.get('key') == 'metadata.name' and field.get('operator') == 'In' \
                    and len(field.get('values') or []) == 1:
                return field['values'][0]
    return ''
POD_TEMPLATE_GENERATION_LABEL = 'pod-template-generation'


class DaemonSetController:
    resource = 'apps/daemonsets'

    def __init__(self, mgr):
        self.mgr = mgr
        self.store = mgr.store

    def sync_all(self, objects=None):
        """Sync ``objects`` (the ones that changed), or every DaemonSet."""
        nodes = self.mgr.index.list('/nodes')
        for ds in self.mgr.index.list(self.resource) if objects is None else objects:
            self.mgr.guard('DaemonSet', ds, self.sync, ds, nodes)

    # ---- helpers --------------------------------------------------------------------------------
    @staticmethod
    def should_run(ds, node):
        spec = (ds['spec'].get('template') or {}).get('spec') or {}
        if spec.get('nodeName') and spec['nodeName'] != name_of(node):
            return False
        node_labels = labels_of(node)
        return all(node_labels.get(k) == v for k, v in (spec.get('nodeSelector') or {}).items())

    def pods_by_node(self, ds):
        selector = selector_from_label_selector_object(ds['spec'].get('selector'))
        candidates = self.mgr.index.list('/pods', ns_of(ds), selector, uid_of(ds))
        owned = claim(self.store, '/pods', ds, 'apps/v1', 'DaemonSet', candidates, selector)
        by_node = {}
        for pod in owned:
            if is_deleting(pod) and pod_phase(pod) in ('Succeeded', 'Failed'):
                continue  # finished and on its way out: nothing left to do with it
            by_node.setdefault(target_node(pod), []).append(pod)
        for pods in by_node.values():
            pods.sort(key=self.age_key)
        return by_node

    def age_key(self, pod):
        """Oldest first; the tracker's precise creation time breaks same-second ties."""
        ts, name = creation_key(pod)
        return (ts, self.mgr.pods.created_at(pod) or 0.0, name)

    def available(self, ds, pod):
        return is_pod_ready(pod) and self.mgr.is_available(pod, ds['spec'].get('minReadySeconds', 0))

    @staticmethod
    def is_updated(ds, pod, rev_hash):
        labels = labels_of(pod)
        generation = (ds['metadata'].get('annotations') or {}).get(TEMPLATE_GENERATION)
        return labels.get(history.POD_REVISION_LABEL) == rev_hash or (
            generation is not None and labels.get(POD_TEMPLATE_GENERATION_LABEL) == generation)

    @staticmethod
    def allows_surge(ds):
        strategy = ds['spec'].get('updateStrategy') or {}
        if strategy.get('type', 'RollingUpdate') != 'RollingUpdate':
            return False
        return scaled_value((strategy.get('rollingUpdate') or {}).get('maxSurge', 0), 1, True) > 0

    # ---- history --------------------------------------------------------------------------------
    def construct_history(self, ds):
        """(current revision, old revisions); creates the current one or bumps its number."""
        revisions = history.owned_revisions(self.mgr, ds, 'DaemonSet')
        patch = history.template_patch(ds)
        current, old = [], []
        for cr in revisions:
            if history.POD_REVISION_LABEL not in labels_of(cr):
                fresh = self.store.get(history.RESOURCE, ns_of(cr), name_of(cr))
                fresh['metadata'].setdefault('labels', {})[history.POD_REVISION_LABEL] = name_of(cr)
                cr = self.store.update(history.RESOURCE, fresh,
                                       manager=recorder(history.RESOURCE, CONTROLLER_MANAGER))
            (current if semantic_equal(cr.get('data'), patch) else old).append(cr)
        wanted = max([history.revision_number(cr) for cr in old] + [0]) + 1
        if not current:
            return self.snapshot(ds, wanted), old
        keep = max(current, key=history.revision_number)
        for dup in current:
            if dup is not keep:
                history.delete_revision(self.store, dup)
        if history.revision_number(keep) < wanted:
            keep = history.set_revision(self.store, keep, wanted)
        return keep, old

    def snapshot(self, ds, revision):
        collision = (ds.get('status') or {}).get('collisionCount')  # None until a collision
        rev_hash = compute_hash(ds['spec'].get('template') or {}, collision)
        labels = dict((ds['spec'].get('template', {}).get('metadata') or {}).get('labels') or {})
        labels[history.POD_REVISION_LABEL] = rev_hash
        cr = history.new_revision(ds, 'DaemonSet', f'{name_of(ds)}-{rev_hash}', labels, revision)
        try:
            return self.store.create(history.RESOURCE, cr,
                                     manager=recorder(history.RESOURCE, CONTROLLER_MANAGER))
        except ApiError as err:
            if err.code != 409:
                raise
        existing = self.store.get(history.RESOURCE, ns_of(ds), name_of(cr))
        if existing is not None and history.equal_revision(existing, cr):
            return existing
        status = dict(ds.get('status') or {})
        status['collisionCount'] = (collision or 0) + 1
        self._write_status(ds, status)
        return None

    def cleanup_history(self, ds, old, by_node):
        limit = ds['spec'].get('revisionHistoryLimit', 10)
        to_kill = len(old) - (limit if limit is not None else 10)
        if to_kill <= 0:
            return
        live = {labels_of(p).get(history.POD_REVISION_LABEL) for pods in by_node.values() for p in pods}
        for cr in history.sort_revisions(old):
            if to_kill <= 0:
                break
            if labels_of(cr).get(history.POD_REVISION_LABEL) in live:
                continue
            history.delete_revision(self.store, cr)
            to_kill -= 1

    # ---- the sync ------------------------------------------------------------------------------
    def sync(self, ds, nodes):
        current, old = self.construct_history(ds)
        if current is None:
            return  # hash collision recorded; retried on the next pass
        rev_hash = labels_of(current).get(history.POD_REVISION_LABEL)
        try:
            if not is_deleting(ds):
                self.manage(ds, nodes, self.pods_by_node(ds), rev_hash)
                strategy = (ds['spec'].get('updateStrategy') or {}).get('type', 'RollingUpdate')
                if strategy == 'RollingUpdate':
                    self.rolling_update(ds, nodes, self.pods_by_node(ds), rev_hash)
        except ApiError:
            # As the Go controller: the status is written even when a pod creation was refused.
            self.update_status(ds, nodes, self.pods_by_node(ds), rev_hash)
            raise
        by_node = self.pods_by_node(ds)
        self.cleanup_history(ds, old, by_node)
        self.update_status(ds, nodes, by_node, rev_hash)

    def manage(self, ds, nodes, by_node, rev_hash):
        to_create, to_delete = [], []
        surge = self.allows_surge(ds)
        node_names = set()
        for node in nodes:
            node_names.add(name_of(node))
            present = by_node.get(name_of(node), [])
            pods = [p for p in present if not is_deleting(p)]
            should_run = self.should_run(ds, node)
            if should_run and not present:
                # A pod still terminating on the node counts: the new one waits until it finished
                # (getNodesToDaemonPods leaves out only pods both finished and being deleted).
                to_create.append(name_of(node))
                continue
            if not should_run:
                to_delete.extend(pods)
                continue
            running = []
            for pod in pods:
                if pod_phase(pod) == 'Failed':
                    to_delete.append(pod)
                else:
                    running.append(pod)
            if not surge:
                to_delete.extend(running[1:])  # keep the oldest
                continue
            oldest_new = oldest_old = None
            for pod in running:
                if labels_of(pod).get(history.POD_REVISION_LABEL) == rev_hash:
                    if oldest_new is None:
                        oldest_new = pod
                        continue
                elif oldest_old is None:
                    oldest_old = pod
                    continue
                to_delete.append(pod)
            if oldest_new is not None and oldest_old is not None:
                if not is_pod_ready(oldest_old) or self.available(ds, oldest_new):
                    to_delete.append(oldest_old)
        # Pods bound to nodes that no longer exist.
        for node_name, pods in by_node.items():
            if node_name not in node_names:
                to_delete.extend(p for p in pods if not is_deleting(p))
        self.sync_nodes(ds, to_delete, to_create, rev_hash)

    def sync_nodes(self, ds, to_delete, node_names, rev_hash):
        template = ds['spec'].get('template') or {}
        generation = (ds['metadata'].get('annotations') or {}).get(TEMPLATE_GENERATION)
        for node_name in node_names:
            pod = pod_from_template(template, ds, 'apps/v1', 'DaemonSet', '', generate_name=f'{name_of(ds)}-')
            labels = pod['metadata'].setdefault('labels', {})
            labels[history.POD_REVISION_LABEL] = rev_hash
            if generation is not None:
                labels[POD_TEMPLATE_GENERATION_LABEL] = generation
            add_daemon_tolerations(pod['spec'])
            pin_to_node(pod['spec'], node_name)
            try:
                create_with_random_name(self.store, pod, f'{name_of(ds)}-')
            except ApiError as err:
                self.mgr.events.record(ds, WARNING, 'FailedCreate', f'Error creating: {err.message}',
                                       'daemonset-controller')
                raise
        for pod in to_delete:
            try:
                self.store.delete('/pods', ns_of(pod), name_of(pod))
            except ApiError as err:
                if err.code != 404:
                    raise

    def limits(self, ds, desired):
        rolling = ((ds['spec'].get('updateStrategy') or {}).get('rollingUpdate')) or {}
        unavailable = scaled_value(rolling.get('maxUnavailable', 1), desired, True)
        surge = scaled_value(rolling.get('maxSurge', 0), desired, True)
        if desired > 0 and unavailable == 0 and surge == 0:
            unavailable = 1
        return surge, unavailable

    def find_updated_pods(self, ds, pods, rev_hash):
        """(new pod, old pod, ok) on one node; not ok when there are two of a kind."""
        new = old = None
        for pod in pods:
            if is_deleting(pod):
                continue
            if self.is_updated(ds, pod, rev_hash):
                if new is not None:
                    return None, None, False
                new = pod
            else:
                if old is not None:
                    return None, None, False
                old = pod
        return new, old, True

    def rolling_update(self, ds, nodes, by_node, rev_hash):
        node_map = {name_of(n): n for n in nodes}
        desired = sum(1 for n in nodes if self.should_run(ds, n))
        max_surge, max_unavailable = self.limits(ds, desired)
        if max_surge == 0:
            unavailable = 0
            replacements, candidates = [], []
            for node_name in sorted(by_node):
                new, old, ok = self.find_updated_pods(ds, by_node[node_name], rev_hash)
                if not ok or (new is None and old is None) or (new is not None and old is not None):
                    unavailable += 1
                elif new is not None:
                    if not self.available(ds, new):
                        unavailable += 1
                elif not self.available(ds, old):
                    replacements.append(old)
                elif unavailable < max_unavailable:
                    candidates.append(old)
            remaining = max(0, max_unavailable - unavailable)
            self.sync_nodes(ds, replacements + candidates[:remaining], [], rev_hash)
            return
        to_delete, candidate_nodes, allowed_nodes = [], [], []
        surging = 0
        for node_name in sorted(by_node):
            new, old, ok = self.find_updated_pods(ds, by_node[node_name], rev_hash)
            if not ok:
                continue
            node = node_map.get(node_name)
            if node is None or not self.should_run(ds, node):
                continue
            if old is None:
                continue
            if new is None:
                if not self.available(ds, old):
                    allowed_nodes.append(node_name)
                elif surging < max_surge:
                    candidate_nodes.append(node_name)
                continue
            if not self.available(ds, new):
                surging += 1
                continue
            to_delete.append(old)
        remaining = max(0, max_surge - surging)
        self.sync_nodes(ds, to_delete, allowed_nodes + candidate_nodes[:remaining], rev_hash)

    # ---- status ----------------------------------------------------------------------------------
    def update_status(self, ds, nodes, by_node, rev_hash):
        desired = current = misscheduled = ready = available = updated = 0
        for node in nodes:
            pods = [p for p in by_node.get(name_of(node), []) if not is_deleting(p)]
            if self.should_run(ds, node):
                desired += 1
                if not pods:
                    continue
                current += 1
                pod = pods[0]
                if is_pod_ready(pod):
                    ready += 1
                    if self.available(ds, pod):
                        available += 1
                if self.is_updated(ds, pod, rev_hash):
                    updated += 1
            elif pods:
                misscheduled += 1
        status = {'currentNumberScheduled': current, 'numberMisscheduled': misscheduled,
                  'desiredNumberScheduled': desired, 'numberReady': ready}
        status.update(omit_zero({'observedGeneration': ds['metadata'].get('generation', 1),
                                 'updatedNumberScheduled': updated, 'numberAvailable': available,
                                 'numberUnavailable': desired - available}))
        old = ds.get('status') or {}
        for key in ('collisionCount', 'conditions'):
            if old.get(key) is not None:
                status[key] = old[key]
        self._write_status(ds, status)

    def _write_status(self, ds, status):
        if status != (ds.get('status') or {}):
            ref = {'name': name_of(ds), 'namespace': ns_of(ds)}
            updated = self.store.update(self.resource, {'metadata': ref, 'status': status},
                                        subresource='status',
                                        manager=recorder(self.resource, CONTROLLER_MANAGER, 'status'))
            ds['status'] = updated.get('status', {})

"""The Deployment controller (pkg/controller/deployment and its util package in Kubernetes).

One `sync` per Deployment per pass, in the same order as the Go controller: claim ReplicaSets,
paused conditions, then either `sync` (paused or a scaling event: scale only) or a rollout
(RollingUpdate or Recreate), each ending with a status write. Every write goes through the store,
so watchers see each step.
"""

import copy

from ..errors import ApiError
from ..selectors import selector_from_label_selector_object
from ..store import now_rfc3339
from .common import (claim, compute_hash, creation_key, is_deleting, is_controlled_by,
                     name_of, ns_of, omit_zero, scaled_value, semantic_equal, uid_of)

HASH_LABEL = 'pod-template-hash'
REVISION = 'deployment.kubernetes.io/revision'
REVISION_HISTORY = 'deployment.kubernetes.io/revision-history'
DESIRED_REPLICAS = 'deployment.kubernetes.io/desired-replicas'
MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas'
LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration'
ROLLBACK_TO = 'deprecated.deployment.rollback.to'
# Deployment annotations never copied onto its ReplicaSets (and kept on rollback).
ANNOTATIONS_TO_SKIP = frozenset({LAST_APPLIED, REVISION, REVISION_HISTORY, DESIRED_REPLICAS, MAX_REPLICAS,
                                 ROLLBACK_TO})
MAX_REV_HISTORY_LENGTH = 2000

PROGRESSING, AVAILABLE = 'Progressing', 'Available'
NEW_RS_CREATED = 'NewReplicaSetCreated'
FOUND_NEW_RS = 'FoundNewReplicaSet'
RS_UPDATED = 'ReplicaSetUpdated'
NEW_RS_AVAILABLE = 'NewReplicaSetAvailable'
TIMED_OUT = 'ProgressDeadlineExceeded'
PAUSED = 'DeploymentPaused'
RESUMED = 'DeploymentResumed'
MIN_AVAILABLE = 'MinimumReplicasAvailable'
MIN_UNAVAILABLE = 'MinimumReplicasUnavailable'
MAX_INT32 = 2**31 - 1


# ---- small accessors -------------------------------------------------------------------------
def replicas_of(obj):
    if obj is None:
        return 0
    value = (obj.get('spec') or {}).get('replicas')
    return 1 if value is None and obj.get('kind') == 'Deployment' else (value or 0)


def status_of(obj, field):
    return ((obj or {}).get('status') or {}).get(field, 0) or 0


def revision_of(rs):
    try:
        return int((rs['metadata'].get('annotations') or {}).get(REVISION, '0'))
    except ValueError:
        return 0


def is_rolling(d):
    return ((d.get('spec') or {}).get('strategy') or {}).get('type', 'RollingUpdate') == 'RollingUpdate'


def resolve_fenceposts(d):
    """(maxSurge, maxUnavailable) for a RollingUpdate Deployment; both zero becomes unavailable 1."""
    rolling = ((d['spec'].get('strategy') or {}).get('rollingUpdate')) or {}
    desired = replicas_of(d)
    surge = scaled_value(rolling.get('maxSurge', '25%'), desired, True)
    unavailable = scaled_value(rolling.get('maxUnavailable', '25%'), desired, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def max_surge(d):
    if not is_rolling(d):
        return 0
    return resolve_fenceposts(d)[0]


def max_unavailable(d):
    if not is_rolling(d) or replicas_of(d) == 0:
        return 0
    unavailable = resolve_fenceposts(d)[1]
    return min(unavailable, replicas_of(d))


def has_progress_deadline(d):
    value = d['spec'].get('progressDeadlineSeconds')
    return value is not None and value != MAX_INT32


def total_spec(rss):
    return sum(replicas_of(rs) for rs in rss if rs is not None)


def total_status(rss, field):
    return sum(status_of(rs, field) for rs in rss if rs is not None)


def active(rss):
    return [rs for rs in rss if rs is not None and replicas_of(rs) > 0]


def _without_hash(template):
    meta = template.get('metadata') or {}
    labels = meta.get('labels') or {}
    if HASH_LABEL not in labels:
        return template
    labels = {k: v for k, v in labels.items() if k != HASH_LABEL}
    return dict(template, metadata=dict(meta, labels=labels))


def equal_ignore_hash(t1, t2):
    """Template equality ignoring pod-template-hash (EqualIgnoreHash)."""
    a, b = _without_hash(t1), _without_hash(t2)
    return a == b or semantic_equal(a, b)


def get_condition(status, cond_type):
    for cond in (status or {}).get('conditions') or []:
        if cond.get('type') == cond_type:
            return cond
    return None


def new_condition(cond_type, status, reason, message):
    now = now_rfc3339()
    return {'type': cond_type, 'status': status, 'lastUpdateTime': now, 'lastTransitionTime': now,
            'reason': reason, 'message': message}


def set_condition(status, cond):
    """SetDeploymentCondition: no-op for the same status and reason; keeps the transition time."""
    current = get_condition(status, cond['type'])
    if current and current['status'] == cond['status'] and current.get('reason') == cond['reason']:
        return
    if current and current['status'] == cond['status']:
        cond['lastTransitionTime'] = current.get('lastTransitionTime', cond['lastTransitionTime'])
    remove_condition(status, cond['type'])
    status.setdefault('conditions', []).append(cond)


def remove_condition(status, cond_type):
    conds = [c for c in status.get('conditions') or [] if c.get('type') != cond_type]
    if conds:
        status['conditions'] = conds
    else:
        status.pop('conditions', None)


def set_replicas_annotations(rs, desired, max_replicas):
    ann = rs['metadata'].setdefault('annotations', {})
    changed = False
    for key, value in ((DESIRED_REPLICAS, str(desired)), (MAX_REPLICAS, str(max_replicas))):
        if ann.get(key) != value:
            ann[key] = value
            changed = True
    return changed


def set_new_rs_annotations(d, rs, new_revision, exists):
    """SetNewReplicaSetAnnotations: copy the Deployment's annotations and bump the revision."""
    ann = rs['metadata'].setdefault('annotations', {})
    changed = False
    for key, value in (d['metadata'].get('annotations') or {}).items():
        if key in ANNOTATIONS_TO_SKIP or ann.get(key) == value:
            continue
        ann[key] = value
        changed = True
    old_revision = ann.get(REVISION)
    try:
        old_int = int(old_revision) if old_revision else 0
    except ValueError:
        return False
    new_int = int(new_revision)
    if old_int < new_int:
        ann[REVISION] = new_revision
        changed = True
        if old_revision is not None:
            history = ann.get(REVISION_HISTORY, '')
            if not history:
                ann[REVISION_HISTORY] = old_revision
            else:
                parts = history.split(',')
                total = len(history) + len(old_revision) + 1
                start = 0
                while total > MAX_REV_HISTORY_LENGTH and start < len(parts):
                    total -= len(parts[start]) + 1
                    start += 1
                if total <= MAX_REV_HISTORY_LENGTH:
                    ann[REVISION_HISTORY] = ','.join(parts[start:] + [old_revision])
    if not exists and set_replicas_annotations(rs, replicas_of(d), replicas_of(d) + max_surge(d)):
        changed = True
    return changed


def deployment_complete(d, status):
    want = replicas_of(d)
    return (status.get('updatedReplicas', 0) == want and status.get('replicas', 0) == want
            and status.get('availableReplicas', 0) == want
            and status.get('observedGeneration', 0) >= d['metadata'].get('generation', 1))


def deployment_progressing(d, new_status):
    old = d.get('status') or {}
    old_old = old.get('replicas', 0) - old.get('updatedReplicas', 0)
    new_old = new_status.get('replicas', 0) - new_status.get('updatedReplicas', 0)
    return (new_status.get('updatedReplicas', 0) > old.get('updatedReplicas', 0) or new_old < old_old
            or new_status.get('readyReplicas', 0) > old.get('readyReplicas', 0)
            or new_status.get('availableReplicas', 0) > old.get('availableReplicas', 0))


def rs_fraction(rs, d):
    """getReplicaSetFraction: this RS's share of a proportional scale."""
    if replicas_of(d) == 0:
        return -replicas_of(rs)
    deployment_replicas = replicas_of(d) + max_surge(d)
    try:
        annotated = int(rs['metadata'].get('annotations', {}).get(MAX_REPLICAS))
    except (TypeError, ValueError):
        annotated = status_of(d, 'replicas')
    if annotated == 0:
        return 0
    new_size = replicas_of(rs) * deployment_replicas / annotated
    return int(new_size + 0.5) - replicas_of(rs)  # Go rounds halves away from zero


def proportion(rs, d, to_add, added):
    if rs is None or replicas_of(rs) == 0 or to_add == 0 or to_add == added:
        return 0
    fraction = rs_fraction(rs, d)
    allowed = to_add - added
    return min(fraction, allowed) if to_add > 0 else max(fraction, allowed)


class DeploymentController:
    resource = 'apps/deployments'

    def __init__(self, mgr):
        self.mgr = mgr
        self.store = mgr.store
        # uid -> (reason, lastUpdateTime, monotonic time) of the last Progressing condition we saw
        # change, so progress deadlines are measured on the (scaled) controller clock.
        self._progress_clock = {}

    def sync_all(self):
        seen = set()
        for d in self.mgr.index.list(self.resource):
            seen.add(uid_of(d))
            self.mgr.guard('Deployment', d, self.sync, d)
        for uid in list(self._progress_clock):
            if uid not in seen:
                del self._progress_clock[uid]

    # ---- sync entry point --------------------------------------------------------------------
    def sync(self, d):
        selector_obj = d['spec'].get('selector') or {}
        if not selector_obj.get('matchLabels') and not selector_obj.get('matchExpressions'):
            # An empty selector matches everything: the controller refuses to act on it.
            if status_of(d, 'observedGeneration') < d['metadata'].get('generation', 1):
                status = dict(d.get('status') or {})
                status['observedGeneration'] = d['metadata'].get('generation', 1)
                self._write_status(d, status)
            return
        rs_list = self.replicasets_for(d)
        if is_deleting(d):
            new_rs, old_rss = self.get_all_rss(d, rs_list, create=False)
            self.sync_deployment_status(old_rss + [new_rs], new_rs, d)
            return
        d = self.check_paused_conditions(d)
        if d['spec'].get('paused'):
            self.sync_scale(d, rs_list)
            return
        if self.is_scaling_event(d, rs_list):
            self.sync_scale(d, rs_list)
            return
        if is_rolling(d):
            self.rollout_rolling(d, rs_list)
        else:
            self.rollout_recreate(d, rs_list)

    def replicasets_for(self, d):
        selector = selector_from_label_selector_object(d['spec'].get('selector'))
        candidates = self.mgr.index.list('apps/replicasets', ns_of(d), selector, uid_of(d))
        return claim(self.store, 'apps/replicasets', d, 'apps/v1', 'Deployment', candidates, selector)

    def pods_by_rs(self, d, rs_list):
        return {uid_of(rs): self.mgr.index.list('/pods', ns_of(d), owner_uid=uid_of(rs)) for rs in rs_list}

    # ---- writes --------------------------------------------------------------------------------
    def _write_status(self, d, status):
        if status == (d.get('status') or {}):
            return d
        updated = self.store.update(self.resource, {'metadata': {'name': name_of(d), 'namespace': ns_of(d)},
                                                    'status': status}, subresource='status')
        d['status'] = updated.get('status', {})
        d['metadata']['resourceVersion'] = updated['metadata']['resourceVersion']
        return d

    def _write_revision(self, d, revision):
        """Record the Deployment's revision annotation (the Go controller sends it with the status)."""
        if (d['metadata'].get('annotations') or {}).get(REVISION) == revision:
            return d
        fresh = self.store.get(self.resource, ns_of(d), name_of(d))
        if fresh is None:
            return d
        ann = fresh['metadata'].setdefault('annotations', {})
        if ann.get(REVISION) == revision:
            return d
        ann[REVISION] = revision
        updated = self.store.update(self.resource, fresh)
        d['metadata'] = updated['metadata']
        return d

    def _scale_rs(self, rs, new_scale, d):
        """scaleReplicaSet: set replicas and the desired/max annotations. Returns (scaled, rs)."""
        size_changed = replicas_of(rs) != new_scale
        desired, maximum = replicas_of(d), replicas_of(d) + max_surge(d)
        ann = rs['metadata'].get('annotations') or {}
        ann_changed = ann.get(DESIRED_REPLICAS) != str(desired) or ann.get(MAX_REPLICAS) != str(maximum)
        if not size_changed and not ann_changed:
            return False, rs
        fresh = self.mgr.index.get('apps/replicasets', ns_of(rs), name_of(rs))
        if fresh is None:
            return False, rs
        fresh['spec']['replicas'] = new_scale
        set_replicas_annotations(fresh, desired, maximum)
        updated = self.store.update('apps/replicasets', fresh)
        return size_changed, updated

    # ---- revisions and the new ReplicaSet ------------------------------------------------------
    def find_new_rs(self, d, rs_list):
        for rs in sorted(rs_list, key=creation_key):
            if equal_ignore_hash(rs['spec'].get('template') or {}, d['spec'].get('template') or {}):
                return rs
        return None

    def get_all_rss(self, d, rs_list, create):
        """getAllReplicaSetsAndSyncRevision: (new RS or None, old RSs)."""
        existing_new = self.find_new_rs(d, rs_list)
        old_rss = [rs for rs in rs_list if existing_new is None or uid_of(rs) != uid_of(existing_new)]
        new_rs = self.get_new_rs(d, rs_list, old_rss, existing_new, create)
        return new_rs, old_rss

    def get_new_rs(self, d, rs_list, old_rss, existing, create):
        max_old = max([revision_of(rs) for rs in old_rss] + [0])
        new_revision = str(max_old + 1)
        if existing is not None:
            # Read it again: an earlier step of this sync may have written the ReplicaSet already.
            rs_copy = self.mgr.index.get('apps/replicasets', ns_of(existing), name_of(existing)) or existing
            changed = set_new_rs_annotations(d, rs_copy, new_revision, exists=True)
            min_ready = d['spec'].get('minReadySeconds', 0)
            if changed or rs_copy['spec'].get('minReadySeconds', 0) != min_ready:
                if min_ready:
                    rs_copy['spec']['minReadySeconds'] = min_ready
                else:
                    rs_copy['spec'].pop('minReadySeconds', None)
                return self.store.update('apps/replicasets', rs_copy)
            self._write_revision(d, rs_copy['metadata']['annotations'].get(REVISION, new_revision))
            if has_progress_deadline(d) and get_condition(d.get('status'), PROGRESSING) is None:
                status = copy.deepcopy(d.get('status') or {})
                set_condition(status, new_condition(PROGRESSING, 'True', FOUND_NEW_RS,
                                                    f'Found new replica set "{name_of(rs_copy)}"'))
                self._write_status(d, status)
                self._note_progress(d)
            return rs_copy
        if not create:
            return None
        return self._create_new_rs(d, old_rss, new_revision)

    def _create_new_rs(self, d, old_rss, new_revision):
        collision = status_of(d, 'collisionCount')
        template = copy.deepcopy(d['spec'].get('template') or {})
        pod_hash = compute_hash(template, collision)
        tmeta = template.setdefault('metadata', {})
        tmeta['labels'] = {**(tmeta.get('labels') or {}), HASH_LABEL: pod_hash}
        selector = copy.deepcopy(d['spec']['selector'])
        selector['matchLabels'] = {**(selector.get('matchLabels') or {}), HASH_LABEL: pod_hash}
        spec = {'replicas': 0, 'selector': selector, 'template': template}
        if d['spec'].get('minReadySeconds'):
            spec['minReadySeconds'] = d['spec']['minReadySeconds']
        rs = {'apiVersion': 'apps/v1', 'kind': 'ReplicaSet',
              'metadata': {'name': f'{name_of(d)}-{pod_hash}', 'namespace': ns_of(d),
                           'labels': dict(tmeta['labels']),
                           'ownerReferences': [{'apiVersion': 'apps/v1', 'kind': 'Deployment',
                                                'name': name_of(d), 'uid': uid_of(d), 'controller': True,
                                                'blockOwnerDeletion': True}]},
              'spec': spec}
        rs['spec']['replicas'] = self.new_rs_new_replicas(d, old_rss + [rs], rs)
        set_new_rs_annotations(d, rs, new_revision, exists=False)
        already_exists = False
        try:
            created = self.store.create('apps/replicasets', rs)
        except ApiError as err:
            if err.code != 409:
                raise
            existing = self.store.get('apps/replicasets', ns_of(d), rs['metadata']['name'])
            if (existing is not None and is_controlled_by(existing, d)
                    and equal_ignore_hash(existing['spec'].get('template') or {}, d['spec']['template'])):
                created, already_exists = existing, True
            else:
                # A different ReplicaSet holds the name: bump collisionCount, retry next pass.
                status = copy.deepcopy(d.get('status') or {})
                status['collisionCount'] = collision + 1
                self._write_status(d, status)
                return None
        self._write_revision(d, new_revision)
        if not already_exists and has_progress_deadline(d):
            status = copy.deepcopy(d.get('status') or {})
            set_condition(status, new_condition(PROGRESSING, 'True', NEW_RS_CREATED,
                                                f'Created new replica set "{name_of(created)}"'))
            self._write_status(d, status)
            self._note_progress(d)
        return created

    def new_rs_new_replicas(self, d, all_rss, new_rs):
        if not is_rolling(d):
            return replicas_of(d)
        current = total_spec(all_rss)
        max_total = replicas_of(d) + max_surge(d)
        if current >= max_total:
            return replicas_of(new_rs)
        scale_up = min(max_total - current, replicas_of(d) - replicas_of(new_rs))
        return replicas_of(new_rs) + scale_up

    # ---- paused / scaling ----------------------------------------------------------------------
    def check_paused_conditions(self, d):
        if not has_progress_deadline(d):
            return d
        cond = get_condition(d.get('status'), PROGRESSING)
        if cond is not None and cond.get('reason') == TIMED_OUT:
            return d
        paused_cond = cond is not None and cond.get('reason') == PAUSED
        paused = bool(d['spec'].get('paused'))
        if paused and not paused_cond:
            reason, message = PAUSED, 'Deployment is paused'
        elif not paused and paused_cond:
            reason, message = RESUMED, 'Deployment is resumed'
        else:
            return d
        status = copy.deepcopy(d.get('status') or {})
        set_condition(status, new_condition(PROGRESSING, 'Unknown', reason, message))
        self._write_status(d, status)
        self._note_progress(d)
        return d

    def is_scaling_event(self, d, rs_list):
        new_rs, old_rss = self.get_all_rss(d, rs_list, create=False)
        for rs in active(old_rss + [new_rs]):
            desired = (rs['metadata'].get('annotations') or {}).get(DESIRED_REPLICAS)
            if desired is None:
                continue
            try:
                if int(desired) != replicas_of(d):
                    return True
            except ValueError:
                continue
        return False

    def sync_scale(self, d, rs_list):
        """`sync`: scale for a paused Deployment or a replicas change, never roll out."""
        new_rs, old_rss = self.get_all_rss(d, rs_list, create=False)
        new_rs, old_rss = self.scale(d, new_rs, old_rss)
        if d['spec'].get('paused'):
            self.cleanup(d, old_rss)
        self.sync_deployment_status(old_rss + [new_rs], new_rs, d)

    def scale(self, d, new_rs, old_rss):
        """Returns the (new RS, old RSs) after scaling."""
        by_uid = {uid_of(rs): rs for rs in old_rss + [new_rs] if rs is not None}

        def result():
            new = by_uid.get(uid_of(new_rs)) if new_rs is not None else None
            return new, [by_uid[uid_of(rs)] for rs in old_rss]

        olds_newest_first = sorted(old_rss, key=creation_key, reverse=True)
        candidates = active(olds_newest_first + [new_rs])
        if len(candidates) <= 1:
            target = candidates[0] if candidates else (new_rs if new_rs is not None else
                                                       (olds_newest_first[0] if olds_newest_first else None))
            if target is not None and replicas_of(target) != replicas_of(d):
                _scaled, updated = self._scale_rs(target, replicas_of(d), d)
                by_uid[uid_of(updated)] = updated
            return result()
        if self.is_saturated(d, new_rs):
            for rs in active(old_rss):
                _scaled, updated = self._scale_rs(rs, 0, d)
                by_uid[uid_of(updated)] = updated
            return result()
        if is_rolling(d):
            all_rss = candidates
            allowed = replicas_of(d) + max_surge(d) if replicas_of(d) > 0 else 0
            to_add = allowed - total_spec(all_rss)
            if to_add > 0:
                all_rss.sort(key=lambda rs: (-replicas_of(rs), _neg_key(creation_key(rs))))
            elif to_add < 0:
                all_rss.sort(key=lambda rs: (-replicas_of(rs), creation_key(rs)))
            added = 0
            sizes = {}
            for rs in all_rss:
                if to_add != 0:
                    p = proportion(rs, d, to_add, added)
                    sizes[uid_of(rs)] = replicas_of(rs) + p
                    added += p
                else:
                    sizes[uid_of(rs)] = replicas_of(rs)
            if to_add != 0 and all_rss:
                first = uid_of(all_rss[0])
                sizes[first] = max(0, sizes[first] + to_add - added)
            for rs in all_rss:
                _scaled, updated = self._scale_rs(rs, sizes[uid_of(rs)], d)
                by_uid[uid_of(updated)] = updated
        return result()

    @staticmethod
    def is_saturated(d, rs):
        if rs is None:
            return False
        desired = (rs['metadata'].get('annotations') or {}).get(DESIRED_REPLICAS)
        return (desired == str(replicas_of(d)) and replicas_of(rs) == replicas_of(d)
                and status_of(rs, 'availableReplicas') == replicas_of(d))

    # ---- RollingUpdate -------------------------------------------------------------------------
    def rollout_rolling(self, d, rs_list):
        new_rs, old_rss = self.get_all_rss(d, rs_list, create=True)
        if new_rs is None:
            return  # name collision recorded; the next pass retries with a new hash
        all_rss = old_rss + [new_rs]
        scaled_up, new_rs = self.reconcile_new_rs(all_rss, new_rs, d)
        if scaled_up:
            self.sync_rollout_status(old_rss + [new_rs], new_rs, d)
            return
        scaled_down, old_rss = self.reconcile_old_rss(old_rss, new_rs, d)
        if scaled_down:
            self.sync_rollout_status(old_rss + [new_rs], new_rs, d)
            return
        if deployment_complete(d, d.get('status') or {}):
            self.cleanup(d, old_rss)
        self.sync_rollout_status(old_rss + [new_rs], new_rs, d)

    def reconcile_new_rs(self, all_rss, new_rs, d):
        want = replicas_of(d)
        if replicas_of(new_rs) == want:
            return False, new_rs
        if replicas_of(new_rs) > want:
            return self._scale_rs(new_rs, want, d)
        count = self.new_rs_new_replicas(d, all_rss, new_rs)
        return self._scale_rs(new_rs, count, d)

    def reconcile_old_rss(self, old_rss, new_rs, d):
        """Scale old ReplicaSets down as far as availability allows. Returns (scaled, old RSs)."""
        if total_spec(old_rss) == 0:
            return False, old_rss
        all_pods = total_spec(old_rss + [new_rs])
        min_available = replicas_of(d) - max_unavailable(d)
        new_unavailable = replicas_of(new_rs) - status_of(new_rs, 'availableReplicas')
        max_scaled_down = all_pods - min_available - new_unavailable
        if max_scaled_down <= 0:
            return False, old_rss
        old_rss, cleaned = self.cleanup_unhealthy(old_rss, d, max_scaled_down)
        scaled, old_rss = self.scale_down_old_for_rolling(old_rss + [new_rs], old_rss, d)
        return cleaned + scaled > 0, old_rss

    def cleanup_unhealthy(self, old_rss, d, max_cleanup):
        """Scale down old RSs' unavailable pods first: they cost no availability."""
        total = 0
        out = []
        for rs in sorted(old_rss, key=creation_key):
            if total >= max_cleanup or replicas_of(rs) == 0 or replicas_of(rs) == status_of(
                    rs, 'availableReplicas'):
                out.append(rs)
                continue
            count = min(max_cleanup - total, replicas_of(rs) - status_of(rs, 'availableReplicas'))
            _scaled, rs = self._scale_rs(rs, replicas_of(rs) - count, d)
            total += count
            out.append(rs)
        return out, total

    def scale_down_old_for_rolling(self, all_rss, old_rss, d):
        min_available = replicas_of(d) - max_unavailable(d)
        available = total_status(all_rss, 'availableReplicas')
        if available <= min_available:
            return 0, old_rss
        budget = available - min_available
        total = 0
        out = []
        for rs in sorted(old_rss, key=creation_key):
            if total >= budget or replicas_of(rs) == 0:
                out.append(rs)
                continue
            count = min(replicas_of(rs), budget - total)
            _scaled, rs = self._scale_rs(rs, replicas_of(rs) - count, d)
            total += count
            out.append(rs)
        return total, out

    # ---- Recreate ------------------------------------------------------------------------------
    def rollout_recreate(self, d, rs_list):
        new_rs, old_rss = self.get_all_rss(d, rs_list, create=False)
        scaled_down = False
        olds = []
        for rs in old_rss:
            if replicas_of(rs) > 0:
                scaled, rs = self._scale_rs(rs, 0, d)
                scaled_down = scaled_down or scaled
            olds.append(rs)
        old_rss = olds
        if scaled_down:
            self.sync_rollout_status(old_rss + [new_rs], new_rs, d)
            return
        if self.old_pods_running(new_rs, old_rss, self.pods_by_rs(d, rs_list)):
            self.sync_rollout_status(old_rss + [new_rs], new_rs, d)
            return
        if new_rs is None:
            new_rs, old_rss = self.get_all_rss(d, rs_list, create=True)
            if new_rs is None:
                return
        _scaled, new_rs = self._scale_rs(new_rs, replicas_of(d), d)
        if deployment_complete(d, d.get('status') or {}):
            self.cleanup(d, old_rss)
        self.sync_rollout_status(old_rss + [new_rs], new_rs, d)

    @staticmethod
    def old_pods_running(new_rs, old_rss, pods_by_rs):
        if total_status(old_rss, 'replicas') > 0:
            return True
        for uid, pods in pods_by_rs.items():
            if new_rs is not None and uid == uid_of(new_rs):
                continue
            for pod in pods:
                if (pod.get('status') or {}).get('phase') not in ('Failed', 'Succeeded'):
                    return True
        return False

    # ---- history cleanup -------------------------------------------------------------------------
    def cleanup(self, d, old_rss):
        limit = d['spec'].get('revisionHistoryLimit')
        if limit is None:
            return
        alive = [rs for rs in old_rss if not is_deleting(rs)]
        diff = len(alive) - limit
        if diff <= 0:
            return
        alive.sort(key=lambda rs: (revision_of(rs), creation_key(rs)))
        for rs in alive[:diff]:
            if (status_of(rs, 'replicas') != 0 or replicas_of(rs) != 0
                    or rs['metadata'].get('generation', 1) > status_of(rs, 'observedGeneration')):
                continue
            try:
                self.store.delete('apps/replicasets', ns_of(rs), name_of(rs))
            except ApiError as err:
                if err.code != 404:
                    raise

    # ---- status ----------------------------------------------------------------------------------
    def calculate_status(self, all_rss, new_rs, d):
        rss = [rs for rs in all_rss if rs is not None]
        available = total_status(rss, 'availableReplicas')
        unavailable = max(total_spec(rss) - available, 0)
        old = d.get('status') or {}
        status = {'observedGeneration': d['metadata'].get('generation', 1)}
        status.update(omit_zero({
            'replicas': total_status(rss, 'replicas'),
            'updatedReplicas': status_of(new_rs, 'replicas'),
            'readyReplicas': total_status(rss, 'readyReplicas'),
            'availableReplicas': available,
            'unavailableReplicas': unavailable,
        }))
        if old.get('conditions'):
            status['conditions'] = copy.deepcopy(old['conditions'])
        if old.get('collisionCount'):
            status['collisionCount'] = old['collisionCount']
        if available >= replicas_of(d) - max_unavailable(d):
            cond = new_condition(AVAILABLE, 'True', MIN_AVAILABLE, 'Deployment has minimum availability.')
        else:
            cond = new_condition(AVAILABLE, 'False', MIN_UNAVAILABLE,
                                 'Deployment does not have minimum availability.')
        set_condition(status, cond)
        return status

    def sync_deployment_status(self, all_rss, new_rs, d):
        self._write_status(d, self.calculate_status(all_rss, new_rs, d))

    def sync_rollout_status(self, all_rss, new_rs, d):
        new_status = self.calculate_status(all_rss, new_rs, d)
        if not has_progress_deadline(d):
            remove_condition(new_status, PROGRESSING)
        current = get_condition(d.get('status'), PROGRESSING)
        complete = (new_status.get('replicas', 0) == new_status.get('updatedReplicas', 0)
                    and current is not None and current.get('reason') == NEW_RS_AVAILABLE)
        progressed = False
        if has_progress_deadline(d) and not complete:
            what = f'ReplicaSet "{name_of(new_rs)}"' if new_rs is not None else f'Deployment "{name_of(d)}"'
            if deployment_complete(d, new_status):
                set_condition(new_status, new_condition(PROGRESSING, 'True', NEW_RS_AVAILABLE,
                                                        f'{what} has successfully progressed.'))
                progressed = True
            elif deployment_progressing(d, new_status):
                cond = new_condition(PROGRESSING, 'True', RS_UPDATED, f'{what} is progressing.')
                if current is not None:
                    if current['status'] == 'True':
                        cond['lastTransitionTime'] = current.get('lastTransitionTime',
                                                                 cond['lastTransitionTime'])
                    remove_condition(new_status, PROGRESSING)
                set_condition(new_status, cond)
                progressed = True
            elif self.timed_out(d, new_status):
                set_condition(new_status, new_condition(PROGRESSING, 'False', TIMED_OUT,
                                                        f'{what} has timed out progressing.'))
        self._write_status(d, new_status)
        if progressed:
            self._note_progress(d)

    # ---- progress deadline on the controller clock ------------------------------------------------
    def _note_progress(self, d):
        cond = get_condition(d.get('status'), PROGRESSING)
        if cond is not None:
            self._progress_clock[uid_of(d)] = (cond.get('reason'), cond.get('lastUpdateTime'),
                                               self.mgr.clock())

    def timed_out(self, d, new_status):
        cond = get_condition(new_status, PROGRESSING)
        if cond is None or cond.get('reason') == NEW_RS_AVAILABLE:
            return False
        if cond.get('reason') == TIMED_OUT:
            return True
        key = (cond.get('reason'), cond.get('lastUpdateTime'))
        seen = self._progress_clock.get(uid_of(d))
        if seen is None or seen[:2] != key:
            # A condition we did not write (or from before a restart): start counting now.
            self._progress_clock[uid_of(d)] = (*key, self.mgr.clock())
            seen = self._progress_clock[uid_of(d)]
        deadline = d['spec']['progressDeadlineSeconds']
        due = seen[2] + deadline / self.mgr.time_scale
        if self.mgr.clock() > due:
            return True
        self.mgr.wake_at(due + 0.001)
        return False


def _neg_key(key):
    ts, name = key
    return (tuple(-ord(c) for c in ts), tuple(-ord(c) for c in name))

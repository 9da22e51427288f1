"""Deployment sync (sync.go): the ReplicaSets of a Deployment and their revisions, creating the new
ReplicaSet, proportional scaling, paused conditions, history cleanup and the status write."""

import copy

from ...apiserver.recorders import CONTROLLER_MANAGER, recorder
from ...machinery.errors import ApiError
from ..common import (compute_hash, creation_key, is_controlled_by, is_deleting, name_of, ns_of, omit_zero,
                      uid_of)
from ..events import NORMAL
from .util import (AVAILABLE, DESIRED_REPLICAS, FOUND_NEW_RS, HASH_LABEL, MAX_REPLICAS, MIN_AVAILABLE,
                   MIN_UNAVAILABLE, NEW_RS_CREATED, PAUSED, PROGRESSING, RESUMED, REVISION, TIMED_OUT,
                   descending, active, equal_ignore_hash, get_condition, has_progress_deadline, is_rolling,
                   max_surge, max_unavailable, new_condition, proportion, replicas_of, revision_of,
                   set_condition, set_new_rs_annotations, set_replicas_annotations, status_of, total_spec,
                   total_status)


class SyncMixin:
    """DeploymentController methods of sync.go."""

    # ---- writes --------------------------------------------------------------------------------
    def _write_status(self, d, status):
        if status == (d.get('status') or {}):
            return d
        updated = self.store.update(self.resource, {'metadata': {'name': name_of(d), 'namespace': ns_of(d)},
                                                    'status': status}, subresource='status',
                                    manager=recorder(self.resource, CONTROLLER_MANAGER, 'status'))
        d['status'] = updated.get('status', {})
        d['metadata']['resourceVersion'] = updated['metadata']['resourceVersion']
        return d

    def _record_revision(self, d, revision, condition=None):
        """SetDeploymentRevision, then (when it or the Progressing ``condition`` changed anything) one
        UpdateStatus of the whole Deployment: the status strategy keeps the annotation it carries."""
        annotations = d['metadata'].get('annotations') or {}
        if annotations.get(REVISION) == revision and condition is None:
            return d
        fresh = self.store.get(self.resource, ns_of(d), name_of(d))
        if fresh is None:
            return d
        fresh['metadata'].setdefault('annotations', {})[REVISION] = revision
        if condition is not None:
            fresh['status'] = copy.deepcopy(d.get('status') or {})
            set_condition(fresh['status'], condition)
        updated = self.store.update(self.resource, fresh, subresource='status', whole_object=True,
                                    manager=recorder(self.resource, CONTROLLER_MANAGER, 'status'))
        d['metadata'] = updated['metadata']
        d['status'] = updated.get('status', {})
        if condition is not None:
            self._note_progress(d)
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
        old_scale = replicas_of(fresh)
        fresh['spec']['replicas'] = new_scale
        set_replicas_annotations(fresh, desired, maximum)
        updated = self.store.update('apps/replicasets', fresh,
                                    manager=recorder('apps/replicasets', CONTROLLER_MANAGER))
        if size_changed:
            self._scaling_event(d, updated, old_scale, new_scale)
        return size_changed, updated

    def _scaling_event(self, d, rs, old_scale, new_scale):
        direction = 'up' if old_scale < new_scale else 'down'
        message = f'Scaled {direction} replica set {name_of(rs)} from {old_scale} to {new_scale}'
        self.mgr.events.record(d, NORMAL, 'ScalingReplicaSet', message, 'deployment-controller')

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
                return self.store.update('apps/replicasets', rs_copy,
                                         manager=recorder('apps/replicasets', CONTROLLER_MANAGER))
            condition = None
            if has_progress_deadline(d) and get_condition(d.get('status'), PROGRESSING) is None:
                condition = new_condition(PROGRESSING, 'True', FOUND_NEW_RS,
                                          f'Found new replica set "{name_of(rs_copy)}"')
            revision = rs_copy['metadata']['annotations'].get(REVISION, new_revision)
            self._record_revision(d, revision, condition)
            return rs_copy
        if not create:
            return None
        return self._create_new_rs(d, old_rss, new_revision)

    def _create_new_rs(self, d, old_rss, new_revision):
        collision = (d.get('status') or {}).get('collisionCount')  # None until a collision
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
            created = self.store.create('apps/replicasets', rs,
                                        manager=recorder('apps/replicasets', CONTROLLER_MANAGER))
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
                status['collisionCount'] = (collision or 0) + 1
                self._write_status(d, status)
                return None
        if not already_exists and replicas_of(created) > 0:
            self._scaling_event(d, created, 0, replicas_of(created))
        condition = None
        if not already_exists and has_progress_deadline(d):
            condition = new_condition(PROGRESSING, 'True', NEW_RS_CREATED,
                                      f'Created new replica set "{name_of(created)}"')
        self._record_revision(d, new_revision, condition)
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
                all_rss.sort(key=lambda rs: (-replicas_of(rs), descending(creation_key(rs))))
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
        # GetTerminatingReplicaCountForReplicaSets: the ReplicaSets' sum, absent while one of them
        # has not reported it yet.
        if all('terminatingReplicas' in (rs.get('status') or {}) for rs in rss):
            status['terminatingReplicas'] = total_status(rss, 'terminatingReplicas')
        if old.get('conditions'):
            status['conditions'] = copy.deepcopy(old['conditions'])
        if old.get('collisionCount') is not None:  # a pointer in Go: 0 is kept
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

"""The RollingUpdate strategy (rolling.go): scale the new ReplicaSet up within maxSurge, clean up
unhealthy old replicas, scale old ReplicaSets down within maxUnavailable."""

from ..common import creation_key
from .util import deployment_complete, max_unavailable, replicas_of, status_of, total_spec, total_status


class RollingMixin:
    """DeploymentController methods of rolling.go."""

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

"""The Recreate strategy (recreate.go): scale every old ReplicaSet to zero, wait for their pods to
go, then scale the new ReplicaSet up."""

from ..common import uid_of
from .util import deployment_complete, replicas_of, total_status


class RecreateMixin:
    """DeploymentController methods of recreate.go."""

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

"""The Deployment controller (pkg/controller/deployment in Kubernetes), in the same files as the Go
controller: this one (deployment_controller.go: the sync entry point), sync.py, rolling.py,
recreate.py, progress.py and util.py (the deploymentutil helpers).

One `sync` per Deployment per pass, in the same order as the Go controller: claim ReplicaSets,
paused conditions, then either `sync_scale` (paused or a scaling event: scale only) or a rollout
(RollingUpdate or Recreate), each ending with a status write. Every write goes through the store,
so watchers see each step.
"""

from ...machinery.selectors import selector_from_label_selector_object
from ..common import claim, is_deleting, ns_of, uid_of
from .progress import ProgressMixin
from .recreate import RecreateMixin
from .rolling import RollingMixin
from .sync import SyncMixin
from .util import HASH_LABEL, REVISION, REVISION_HISTORY, is_rolling, status_of

__all__ = ['DeploymentController', 'HASH_LABEL', 'REVISION', 'REVISION_HISTORY']


class DeploymentController(SyncMixin, RollingMixin, RecreateMixin, ProgressMixin):
    resource = 'apps/deployments'

    def __init__(self, mgr):
        self.mgr = mgr
        self.store = mgr.store
        # uid -> (reason, lastUpdateTime, monotonic time) of the last Progressing condition we saw
        # change, so progress deadlines are measured on the (scaled) controller clock.
        self._progress_clock = {}

    def sync_all(self, objects=None):
        """Sync ``objects`` (the ones that changed), or every Deployment."""
        seen = set()
        for d in self.mgr.index.list(self.resource) if objects is None else objects:
            seen.add(uid_of(d))
            self.mgr.guard('Deployment', d, self.sync, d)
        if objects is None:
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

"""Rollout progress (progress.go): the Progressing and Available conditions and the progress
deadline, measured on the controller clock (see ControllerManager.time_scale)."""

from ..common import name_of, uid_of
from .util import (NEW_RS_AVAILABLE, PROGRESSING, RS_UPDATED, TIMED_OUT, deployment_complete,
                   deployment_progressing, get_condition, has_progress_deadline, new_condition,
                   remove_condition, set_condition)


class ProgressMixin:
    """DeploymentController methods of progress.go."""

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

"""The Job controller (pkg/controller/job/job_controller.go) and the TTL-after-finished controller
(pkg/controller/ttlafterfinished), for `completionMode: NonIndexed` Jobs.

A Job runs pods from its template until enough of them succeed: `parallelism` at a time, toward
`completions` (without `completions`, until one succeeds and the rest end). Its pods are named
`<job>-<5 random chars>`, owned by the Job. A pod that ends Failed, or is deleted before it
succeeded (`podReplacementPolicy: TerminatingOrFailed`, the default without a `podFailurePolicy`),
counts as a failure and is replaced after the controller's back-off (10 s doubling per failure,
at most 6 min, on the controller clock); more than `backoffLimit` failures fail the Job.

The status follows the controller: `startTime` at the first sync, `active`, `ready`,
`terminating`, `succeeded`, `failed`, `uncountedTerminatedPods: {}`; once the completions are
reached, `SuccessCriteriaMet` (reason CompletionsReached) then, with no pod left running,
`Complete` and `completionTime`; past the back-off limit (or `activeDeadlineSeconds`),
`FailureTarget` (BackoffLimitExceeded, DeadlineExceeded), the active pods deleted, then `Failed`
and a Warning event. `suspend: true` deletes the active pods and sets `Suspended`; resuming sets
it False and restarts the clock. A finished Job with `ttlSecondsAfterFinished` is deleted that
many seconds after it finished, its pods with it.

Not simulated: Indexed completion, `podFailurePolicy` rules, `successPolicy`,
`backoffLimitPerIndex`, and the `batch.kubernetes.io/job-tracking` finalizer on pods (the
controller remembers which pods it counted instead).
"""

import datetime

from ..apiserver.recorders import CONTROLLER_MANAGER, recorder
from ..machinery.clock import now_rfc3339
from ..machinery.errors import ApiError
from ..machinery.selectors import selector_from_label_selector_object
from .common import (claim, controller_of, create_with_random_name, is_deleting, is_pod_ready, name_of,
                     ns_of, pod_from_template, pod_phase, uid_of)
from .events import WARNING

BACKOFF_SECONDS = 10.0
MAX_BACKOFF_SECONDS = 360.0
COMPLETIONS_REACHED = ('CompletionsReached', 'Reached expected number of succeeded pods')
BACKOFF_EXCEEDED = ('BackoffLimitExceeded', 'Job has reached the specified backoff limit')
DEADLINE_EXCEEDED = ('DeadlineExceeded', 'Job was active longer than specified deadline')


def _condition(status, kind):
    return next((c for c in status.get('conditions') or [] if c.get('type') == kind), None)


def _true(status, kind):
    found = _condition(status, kind)
    return found is not None and found.get('status') == 'True'


def finished(job):
    status = job.get('status') or {}
    return _true(status, 'Complete') or _true(status, 'Failed')


def _set_condition(status, kind, value, reason, message, now):
    """Add or change a condition (newCondition: both times now); unchanged when it already says so."""
    conditions = status.setdefault('conditions', [])
    current = _condition(status, kind)
    if current is not None:
        if current.get('status') == value:
            return
        conditions.remove(current)
    conditions.append({'type': kind, 'status': value, 'lastProbeTime': now, 'lastTransitionTime': now,
                       'reason': reason, 'message': message})


def _seconds_since(stamp):
    then = datetime.datetime.strptime(stamp, '%Y-%m-%dT%H:%M:%SZ').replace(tzinfo=datetime.timezone.utc)
    return (datetime.datetime.now(datetime.timezone.utc) - then).total_seconds()


class JobController:
    resource = 'batch/jobs'
    component = 'job-controller'
    api_version = 'batch/v1'
    kind = 'Job'

    def __init__(self, mgr):
        self.mgr = mgr
        self.store = mgr.store
        self._counted = {}  # job uid -> {pod uid: 'Succeeded' | 'Failed'}
        self._failed_at = {}  # job uid -> controller-clock time of the last failure seen

    def sync_all(self, objects=None):
        for job in self.mgr.index.list(self.resource) if objects is None else objects:
            self.mgr.guard(self.kind, job, self.sync, job)

    def _pods(self, job, selector):
        listed = self.mgr.index.list('/pods', ns_of(job), selector, uid_of(job))
        live = [p for p in listed if not is_deleting(p)]
        owned = claim(self.store, '/pods', job, self.api_version, self.kind, live, selector)
        owned_uids = {uid_of(p) for p in owned}
        deleting = [p for p in listed
                    if is_deleting(p) and (controller_of(p) or {}).get('uid') == uid_of(job)]
        return owned + [p for p in deleting if uid_of(p) not in owned_uids]

    def sync(self, job):
        if is_deleting(job):
            return
        if finished(job):
            self._expire(job)
            return
        spec = job.get('spec') or {}
        selector = selector_from_label_selector_object(spec.get('selector'))
        pods = self._pods(job, selector)
        old = job.get('status') or {}
        status = dict(old)
        status['conditions'] = [dict(c) for c in old.get('conditions') or []]
        now = now_rfc3339()
        counted = self._counted.setdefault(uid_of(job), {})
        replace_terminating = spec.get('podReplacementPolicy', 'TerminatingOrFailed') == 'TerminatingOrFailed'
        new_failures = 0
        for pod in pods:
            if uid_of(pod) in counted:
                continue
            phase = pod_phase(pod)
            if phase == 'Succeeded':
                counted[uid_of(pod)] = 'Succeeded'
                status['succeeded'] = (status.get('succeeded') or 0) + 1
            elif phase == 'Failed' or (is_deleting(pod) and replace_terminating):
                counted[uid_of(pod)] = 'Failed'
                status['failed'] = (status.get('failed') or 0) + 1
                new_failures += 1
        if new_failures:
            self._failed_at[uid_of(job)] = self.mgr.clock()
        active = [p for p in pods if pod_phase(p) not in ('Succeeded', 'Failed') and not is_deleting(p)]
        terminating = [p for p in pods if is_deleting(p) and pod_phase(p) not in ('Succeeded', 'Failed')]
        succeeded, failed = status.get('succeeded') or 0, status.get('failed') or 0

        if spec.get('suspend'):
            active = self._delete(active)
            _set_condition(status, 'Suspended', 'True', 'JobSuspended', 'Job suspended', now)
            status.pop('startTime', None)
        else:
            if _true(status, 'Suspended'):
                _set_condition(status, 'Suspended', 'False', 'JobResumed', 'Job resumed', now)
            status.setdefault('startTime', now)
            failure = self._failure(job, status, failed)
            if failure is not None:
                _set_condition(status, 'FailureTarget', 'True', *failure, now)
            completions = spec.get('completions')
            done = succeeded >= completions if completions is not None else (succeeded > 0 and not active)
            if _true(status, 'FailureTarget'):
                active = self._delete(active)
                if not active and not terminating:
                    reason, message = _condition(status, 'FailureTarget')['reason'], \
                        _condition(status, 'FailureTarget')['message']
                    _set_condition(status, 'Failed', 'True', reason, message, now)
                    self.mgr.events.record(job, WARNING, reason, message, self.component)
            elif done:
                _set_condition(status, 'SuccessCriteriaMet', 'True', *COMPLETIONS_REACHED, now)
                active = self._delete(active) if completions is not None else active
                if not active and not terminating:
                    _set_condition(status, 'Complete', 'True', *COMPLETIONS_REACHED, now)
                    status['completionTime'] = now
            elif not _true(status, 'SuccessCriteriaMet'):
                active = self._manage(job, spec, active, succeeded, failed)
        status['active'] = len(active)
        status['ready'] = sum(1 for p in active if is_pod_ready(p))
        status['terminating'] = len(terminating)
        status['uncountedTerminatedPods'] = {}
        if not status['conditions']:
            del status['conditions']
        for key in ('active', 'succeeded', 'failed'):
            if not status.get(key):
                status.pop(key, None)
        if status != old:
            self.store.update(self.resource, {'metadata': {'name': name_of(job), 'namespace': ns_of(job)},
                                              'status': status}, subresource='status',
                              manager=recorder(self.resource, CONTROLLER_MANAGER, 'status'))

    def _failure(self, job, status, failed):
        """The (reason, message) of a Job past its limits, else None."""
        spec = job.get('spec') or {}
        if failed > spec.get('backoffLimit', 6):
            return BACKOFF_EXCEEDED
        deadline = spec.get('activeDeadlineSeconds')
        if deadline is not None and status.get('startTime'):
            elapsed = _seconds_since(status['startTime']) * self.mgr.time_scale
            if elapsed >= deadline:
                return DEADLINE_EXCEEDED
            self.mgr.wake_at(self.mgr.clock() + (deadline - elapsed) / self.mgr.time_scale)
        return None

    def _manage(self, job, spec, active, succeeded, failed):
        """Create pods toward `parallelism` (and the completions left), after the back-off."""
        parallelism = spec.get('parallelism', 1)
        completions = spec.get('completions')
        if completions is None:
            wanted = parallelism if succeeded == 0 else len(active)
        else:
            wanted = max(0, min(parallelism, completions - succeeded))
        if len(active) > wanted:
            doomed = sorted(active, key=lambda p: (is_pod_ready(p),
                                                   p['metadata'].get('creationTimestamp', '')))
            self._delete(doomed[:len(active) - wanted])
            return doomed[len(active) - wanted:]
        if len(active) == wanted:
            return active
        if failed:
            delay = min(MAX_BACKOFF_SECONDS, BACKOFF_SECONDS * 2 ** (failed - 1)) / self.mgr.time_scale
            due = self._failed_at.get(uid_of(job), 0.0) + delay
            if self.mgr.clock() < due:
                self.mgr.wake_at(due)
                return active
        prefix = f'{name_of(job)}-'
        template = spec.get('template') or {}
        for _ in range(wanted - len(active)):
            pod = pod_from_template(template, job, self.api_version, self.kind, '', prefix)
            try:
                active.append(create_with_random_name(self.store, pod, prefix))
            except ApiError as err:
                self.mgr.events.record(job, WARNING, 'FailedCreate', f'Error creating: {err.message}',
                                       self.component)
                break
        return active

    def _delete(self, pods):
        for pod in pods:
            try:
                self.store.delete('/pods', ns_of(pod), name_of(pod))
            except ApiError as err:
                if err.code != 404:
                    raise
        return []

    def _expire(self, job):
        """The TTL-after-finished controller: delete a finished Job `ttlSecondsAfterFinished` after it
        finished (its Complete or Failed condition's transition), in the background."""
        ttl = (job.get('spec') or {}).get('ttlSecondsAfterFinished')
        if ttl is None:
            return
        status = job.get('status') or {}
        ended = (_condition(status, 'Complete') or _condition(status, 'Failed') or {}).get(
            'lastTransitionTime')
        if not ended:
            return
        left = ttl - _seconds_since(ended) * self.mgr.time_scale
        if left > 0:
            self.mgr.wake_at(self.mgr.clock() + left / self.mgr.time_scale)
            return
        try:
            self.store.delete(self.resource, ns_of(job), name_of(job), propagation='Background')
        except ApiError as err:
            if err.code != 404:
                raise

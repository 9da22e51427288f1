"""The CronJob controller (pkg/controller/cronjob/cronjob_controllerv2.go and utils.go).

Each CronJob is synced when it or one of its Jobs changes, and again when its next schedule time
is due (plus 100 ms, as the controller requeues). A sync:

- reconciles `status.active` with the Jobs the CronJob controls: a finished Job leaves it
  (`SawCompletedJob`), a Job it does not list is an `UnexpectedJob` (Warning), a listed Job that is
  gone a `MissingJob`; a succeeded Job's `completionTime` moves `status.lastSuccessfulTime`;
- reads `spec.timeZone` (`UnknownTimeZone`) and, unless `suspend`, the schedule (`TZ=`/`CRON_TZ=`
  in it: `UnsupportedSchedule`; unparseable: `UnparseableSchedule`), with `spec.timeZone` as its
  zone (cronschedule.py);
- finds the most recent unmet schedule time after `status.lastScheduleTime` (else the creation
  time; with `startingDeadlineSeconds`, no earlier than now minus the deadline), as
  `mostRecentScheduleTime` counts them: a schedule that never fires (`59 23 31 2 *`) is an
  `InvalidSchedule` (`invalid schedule: <schedule> : time difference between two schedules is less
  than 1 second`), more than 100 missed times a `TooManyMissedTimes` warning (the most recent is
  still started); a time older than `startingDeadlineSeconds` is a `MissSchedule`;
- applies `concurrencyPolicy`: Forbid skips the time while a Job is active (`JobAlreadyActive`),
  Replace deletes the active Jobs first (`SuccessfulDelete`), Allow runs them side by side;
- creates the Job `<cronjob>-<scheduled time in minutes since the epoch>` from `jobTemplate`
  (its labels and annotations, plus `batch.kubernetes.io/cronjob-scheduled-timestamp`, the time
  in the CronJob's zone as RFC 3339), controlled by the CronJob (`SuccessfulCreate`), adds it to
  `status.active` and sets `status.lastScheduleTime`;
- deletes the oldest finished Jobs beyond `successfulJobsHistoryLimit` and
  `failedJobsHistoryLimit` (background propagation, `SuccessfulDelete`).

Time: the controller reads a simulated wall clock that runs `time_scale` times faster than real
time from the moment the controller manager was built (a CronJob's creation time is read on that
clock too), so `* * * * *` fires every 6 real seconds at `time_scale=10`. `lastScheduleTime` and
the Job names are on that clock; with the default `time_scale` of 1 it is the real clock.
"""

import datetime
import time

from ..apiserver.recorders import CONTROLLER_MANAGER, recorder
from ..apiserver.strategies.batch import schedule_error
from ..machinery.errors import ApiError
from .common import controller_ref, name_of, ns_of, uid_of
from .cronschedule import UTC, Schedule, time_zone
from .events import NORMAL, WARNING
from .index import json_copy

SCHEDULED_TIMESTAMP = 'batch.kubernetes.io/cronjob-scheduled-timestamp'
NEXT_SCHEDULE_DELTA = 0.1  # seconds past the schedule time the controller requeues at
TOO_MANY_MISSED = 100


def _parse(stamp):
    if not stamp:
        return None
    return datetime.datetime.strptime(stamp, '%Y-%m-%dT%H:%M:%SZ').replace(tzinfo=UTC)


def _format(moment):
    return moment.astimezone(UTC).strftime('%Y-%m-%dT%H:%M:%SZ')


def _finished(job):
    """'Complete' or 'Failed' when the Job has that condition True, else None."""
    for cond in (job.get('status') or {}).get('conditions') or []:
        if cond.get('type') in ('Complete', 'Failed') and cond.get('status') == 'True':
            return cond['type']
    return None


def most_recent_schedule_time(cj, now, schedule, earliest, with_deadline):
    """(earliest, most recent unmet time or None, number of missed times); ValueError for a
    schedule whose two next times are less than a second apart (it never fires)."""
    deadline = (cj.get('spec') or {}).get('startingDeadlineSeconds')
    if with_deadline and deadline is not None:
        earliest = max(earliest, now - datetime.timedelta(seconds=deadline))
    t1 = schedule.next_time(earliest)
    t2 = schedule.next_time(t1) if t1 is not None else None
    if t1 is not None and now < t1:
        return earliest, None, 0
    if t1 is not None and t2 is not None and now < t2:
        return earliest, t1, 1
    between = round((t2 - t1).total_seconds()) if t1 is not None and t2 is not None else 0
    if between < 1:
        raise ValueError('time difference between two schedules is less than 1 second')
    missed = int((now - t1).total_seconds()) // between + 1
    recent = None
    t = schedule.next_time(t1 + datetime.timedelta(seconds=(missed - 2) * between))
    while t is not None and t <= now:
        recent = t
        t = schedule.next_time(t)
    return earliest, recent, missed


class CronJobController:
    resource = 'batch/cronjobs'
    component = 'cronjob-controller'
    api_version = 'batch/v1'
    kind = 'CronJob'

    def __init__(self, mgr):
        self.mgr = mgr
        self.store = mgr.store
        self._wall0 = time.time()
        self._mono0 = mgr.clock()
        self._reported = set()  # events already recorded (see _event)
        self._slot = None  # the schedule time the current sync considers

    # ---- the simulated wall clock -----------------------------------------------------------------
    def now(self):
        seconds = self._wall0 + (self.mgr.clock() - self._mono0) * self.mgr.time_scale
        return datetime.datetime.fromtimestamp(seconds, UTC)

    def _on_sim_clock(self, moment):
        """A real time (an API server timestamp) on the simulated clock."""
        seconds = moment.timestamp()
        if seconds > self._wall0:
            seconds = self._wall0 + (seconds - self._wall0) * self.mgr.time_scale
        return datetime.datetime.fromtimestamp(seconds, UTC)

    def _wake(self, when):
        """Ask for a sync of the CronJob at simulated time ``when``."""
        delay = (when - self.now()).total_seconds() + NEXT_SCHEDULE_DELTA
        self.mgr.wake_at(self.mgr.clock() + max(0.0, delay) / self.mgr.time_scale)

    # ---- sync -------------------------------------------------------------------------------------
    def sync_all(self, objects=None):
        for cj in self.mgr.index.list(self.resource) if objects is None else objects:
            self.mgr.guard(self.kind, cj, self.sync, cj)

    def _event(self, cj, event_type, reason, message):
        """Record an event, once per CronJob generation and schedule time considered (the real
        controller requeues a CronJob at its next schedule time, not on every resync)."""
        key = (uid_of(cj), cj['metadata'].get('generation'), self._slot, reason, message)
        if key in self._reported:
            return
        self._reported.add(key)
        self.mgr.events.record(cj, event_type, reason, message, self.component)

    def sync(self, cj):
        self._slot = None
        old = cj.get('status') or {}
        status = json_copy(old)
        jobs = [j for j in self.mgr.index.list('batch/jobs', ns_of(cj))
                if any(r.get('controller') and r.get('uid') == uid_of(cj)
                       for r in j['metadata'].get('ownerReferences') or [])]
        self._reconcile_jobs(cj, status, jobs)
        if not cj['metadata'].get('deletionTimestamp'):
            self._schedule(cj, status)
            self._cleanup(cj, status, jobs)
        if not status.get('active'):
            status.pop('active', None)
        if status != old:
            self.store.update(self.resource, {'metadata': {'name': name_of(cj), 'namespace': ns_of(cj)},
                                              'status': status}, subresource='status',
                              manager=recorder(self.resource, CONTROLLER_MANAGER, 'status'))

    def _reconcile_jobs(self, cj, status, jobs):
        active = status.setdefault('active', [])
        for job in jobs:
            listed = any(ref.get('uid') == uid_of(job) for ref in active)
            finished = _finished(job)
            if not listed and not finished:
                if not any(ref.get('name') == name_of(job) for ref in active):
                    self._event(cj, WARNING, 'UnexpectedJob',
                                f'Saw a job that the controller did not create or forgot: {name_of(job)}')
            elif listed and finished:
                active[:] = [ref for ref in active if ref.get('uid') != uid_of(job)]
                self._event(cj, NORMAL, 'SawCompletedJob',
                            f'Saw completed job: {name_of(job)}, condition: {finished}')
            elif finished == 'Complete':
                done = (job.get('status') or {}).get('completionTime')
                last = status.get('lastSuccessfulTime')
                if done and (last is None or _parse(done) > _parse(last)):
                    status['lastSuccessfulTime'] = done
        uids = {uid_of(j) for j in jobs}
        for ref in list(active):
            if ref.get('uid') in uids:
                continue
            if self.store.get('batch/jobs', ns_of(cj), ref.get('name')) is None:
                self._event(cj, NORMAL, 'MissingJob', f'Active job went missing: {ref.get("name")}')
                active.remove(ref)

    def _schedule(self, cj, status):
        spec = cj.get('spec') or {}
        zone_name = spec.get('timeZone')
        if zone_name is not None:
            try:
                time_zone(zone_name)
            except Exception:  # zoneinfo's errors for a bad key vary
                self._event(cj, WARNING, 'UnknownTimeZone',
                            f'invalid timeZone: "{zone_name}": unknown time zone {zone_name}')
                return
        if spec.get('suspend'):
            return
        text = spec.get('schedule') or ''
        if 'TZ' in text:
            self._event(cj, WARNING, 'UnsupportedSchedule',
                        f'CRON_TZ or TZ used in schedule "{text}" is not officially supported, see https://'
                        'kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details')
        problem = schedule_error(text)
        if problem:
            self._event(cj, WARNING, 'UnparseableSchedule', f'unparseable schedule: "{text}" : {problem}')
            return
        schedule = Schedule(text, zone_name)
        now = self.now()
        last = _parse(status.get('lastScheduleTime'))
        earliest = last or self._on_sim_clock(_parse(cj['metadata'].get('creationTimestamp')) or now)
        try:
            _, scheduled, missed = most_recent_schedule_time(cj, now, schedule, earliest, True)
        except ValueError as err:
            self._event(cj, WARNING, 'InvalidSchedule', f'invalid schedule: {text} : {err}')
            return
        self._slot = scheduled
        if scheduled is not None and missed > TOO_MANY_MISSED:
            self._event(cj, WARNING, 'TooManyMissedTimes', 'too many missed start times. Set or decrease '
                        '.spec.startingDeadlineSeconds or check clock skew')
        if scheduled is not None:
            self._run(cj, spec, status, schedule, scheduled, now, zone_name)
        self._requeue(cj, status, schedule, now, earliest)

    def _requeue(self, cj, status, schedule, now, earliest):
        """nextScheduleTimeDuration: the next time after the most recent one (or the earliest)."""
        earliest = _parse(status.get('lastScheduleTime')) or earliest
        try:
            _, recent, _ = most_recent_schedule_time(cj, now, schedule, earliest, False)
        except ValueError:
            recent = now
        following = schedule.next_time(recent or earliest)
        if following is not None:
            self._wake(following)

    def _run(self, cj, spec, status, schedule, scheduled, now, zone_name):
        deadline = spec.get('startingDeadlineSeconds')
        if deadline is not None and scheduled + datetime.timedelta(seconds=deadline) < now:
            self._event(cj, WARNING, 'MissSchedule', 'Missed scheduled time to start a job: '
                        + scheduled.strftime('%a, %d %b %Y %H:%M:%S +0000'))
            return
        name = f'{name_of(cj)}-{int(scheduled.timestamp()) // 60}'
        active = status.setdefault('active', [])
        if any(ref.get('name') == name for ref in active) or \
                status.get('lastScheduleTime') == _format(scheduled):
            return
        policy = spec.get('concurrencyPolicy', 'Allow')
        if policy == 'Forbid' and active:
            self._event(cj, NORMAL, 'JobAlreadyActive', 'Not starting job because prior execution is '
                        'running and concurrency policy is Forbid')
            return
        if policy == 'Replace':
            for ref in list(active):
                self._delete_job(cj, status, ref.get('name'))
        job = self._job(cj, spec, name, scheduled, zone_name)
        try:
            created = self.store.create('batch/jobs', job, manager=recorder('batch/jobs', CONTROLLER_MANAGER))
            self._event(cj, NORMAL, 'SuccessfulCreate', f'Created job {name}')
        except ApiError as err:
            if err.code != 409:
                self._event(cj, WARNING, 'FailedCreate', f'Error creating job: {err.message}')
                return
            created = self.store.get('batch/jobs', ns_of(cj), name)
            refs = (created or {}).get('metadata', {}).get('ownerReferences') or []
            if not any(r.get('controller') and r.get('uid') == uid_of(cj) for r in refs):
                return
        meta = created['metadata']
        if not any(ref.get('uid') == meta.get('uid') for ref in active):
            active.append({'kind': 'Job', 'namespace': meta.get('namespace'), 'name': meta['name'],
                           'uid': meta.get('uid'), 'apiVersion': 'batch/v1',
                           'resourceVersion': meta.get('resourceVersion')})
        status['lastScheduleTime'] = _format(scheduled)

    def _job(self, cj, spec, name, scheduled, zone_name):
        """getJobFromTemplate2: the Job of one scheduled time."""
        template = json_copy(spec.get('jobTemplate') or {})
        tmeta = template.get('metadata') or {}
        zone = time_zone(zone_name) if zone_name else UTC
        local = scheduled.astimezone(zone) if zone is not None else scheduled.astimezone()
        stamp = local.strftime('%Y-%m-%dT%H:%M:%S') + (
            'Z' if local.utcoffset() == datetime.timedelta(0) else local.strftime('%z')[:3] + ':'
            + local.strftime('%z')[3:])
        meta = {'name': name, 'namespace': ns_of(cj),
                'annotations': {**(tmeta.get('annotations') or {}), SCHEDULED_TIMESTAMP: stamp},
                'ownerReferences': [controller_ref(cj, self.api_version, self.kind)]}
        if tmeta.get('labels'):
            meta['labels'] = dict(tmeta['labels'])
        return {'apiVersion': 'batch/v1', 'kind': 'Job', 'metadata': meta, 'spec': template.get('spec') or {}}

    def _delete_job(self, cj, status, name):
        try:
            self.store.delete('batch/jobs', ns_of(cj), name, propagation='Background')
        except ApiError as err:
            if err.code != 404:
                raise
        status['active'] = [ref for ref in status.get('active') or [] if ref.get('name') != name]
        self._event(cj, NORMAL, 'SuccessfulDelete', f'Deleted job {name}')

    def _cleanup(self, cj, status, jobs):
        """cleanupFinishedJobs: the oldest finished Jobs beyond the history limits go."""
        spec = cj.get('spec') or {}
        for condition, key in (('Complete', 'successfulJobsHistoryLimit'),
                               ('Failed', 'failedJobsHistoryLimit')):
            limit = spec.get(key)
            done = [j for j in jobs
                    if _finished(j) == condition and not j['metadata'].get('deletionTimestamp')]
            if limit is None or len(done) <= limit:
                continue
            done.sort(key=lambda j: ((j.get('status') or {}).get('startTime') is None,
                                     (j.get('status') or {}).get('startTime') or '', name_of(j)))
            for job in done[:len(done) - limit]:
                self._delete_job(cj, status, name_of(job))

"""The CronJob controller over the API: Jobs created on schedule, their names, owners and
annotations, the status, the concurrency policies, suspend, the history limits and the events.
At time_scale=60 a minute of the controller's clock takes a real second."""

import time

import pytest

from .conftest import wait_for

BASE = '/apis/batch/v1/namespaces/default'
EVENTS = '/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3D'
STAMP = 'batch.kubernetes.io/cronjob-scheduled-timestamp'
FAST = pytest.mark.kubesim_options(ready_delay=0.02, time_scale=60, nodes=1)


def cronjob(name, schedule, command=('true',), **spec):
    return {'apiVersion': 'batch/v1', 'kind': 'CronJob', 'metadata': {'name': name},
            'spec': {'schedule': schedule, **spec, 'jobTemplate': {
                'metadata': {'labels': {'team': 'ops'}, 'annotations': {'note': 'nightly'}},
                'spec': {'template': {'spec': {'restartPolicy': 'Never', 'containers': [
                    {'name': 'task', 'image': 'busybox:1.36', 'command': list(command)}]}}}}}}


def jobs_of(http, name):
    status, _, body = http.get(f'{BASE}/jobs')
    assert status == 200
    return sorted((j for j in body['items']
                   if any(r.get('uid') for r in j['metadata'].get('ownerReferences') or []
                          if r.get('kind') == 'CronJob' and r.get('name') == name)),
                  key=lambda j: j['metadata']['name'])


def events_of(http, name):
    status, _, body = http.get(EVENTS + name)
    assert status == 200
    return [(e['type'], e['reason'], e['message']) for e in body['items']]


def get(http, name):
    return http.get(f'{BASE}/cronjobs/{name}')[2]


@FAST
def test_jobs_are_created_on_schedule_and_the_history_is_kept_short(http):
    assert http.post(f'{BASE}/cronjobs', cronjob('tick', '* * * * *', successfulJobsHistoryLimit=1))[0] == 201
    cj = get(http, 'tick')
    first = wait_for(lambda: jobs_of(http, 'tick'), 'the first Job', timeout=5)[0]
    meta = first['metadata']
    minutes = int(meta['name'].rsplit('-', 1)[1])
    assert meta['name'] == f'tick-{minutes}'
    scheduled = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(minutes * 60))
    assert meta['annotations'] == {'note': 'nightly', STAMP: scheduled}
    assert meta['labels']['team'] == 'ops'
    assert meta['ownerReferences'] == [{'apiVersion': 'batch/v1', 'kind': 'CronJob', 'name': 'tick',
                                        'uid': cj['metadata']['uid'], 'controller': True,
                                        'blockOwnerDeletion': True}]
    # Jobs finish (`true`), leave status.active, and only the newest successful one is kept.
    status = wait_for(lambda: (s := get(http, 'tick').get('status') or {}).get('lastSuccessfulTime')
                      and int(s['lastScheduleTime'][14:16]) != minutes % 60 and s, 'a later schedule', 8)
    assert status['lastScheduleTime'].endswith(':00Z')
    wait_for(lambda: len(jobs_of(http, 'tick')) == 1
             and not (get(http, 'tick').get('status') or {}).get('active'), 'the history limit', 5)
    reasons = {reason for _, reason, _ in events_of(http, 'tick')}
    assert {'SuccessfulCreate', 'SawCompletedJob', 'SuccessfulDelete'} <= reasons


@FAST
def test_active_lists_the_running_job_and_forbid_skips_while_it_runs(http):
    http.post(f'{BASE}/cronjobs', cronjob('long', '* * * * *', ('sleep', '3600'), concurrencyPolicy='Forbid'))
    job = wait_for(lambda: jobs_of(http, 'long'), 'the Job', 5)[0]
    active = wait_for(lambda: (get(http, 'long').get('status') or {}).get('active'), 'status.active', 5)
    assert active == [{'kind': 'Job', 'namespace': 'default', 'name': job['metadata']['name'],
                       'uid': job['metadata']['uid'], 'apiVersion': 'batch/v1',
                       'resourceVersion': active[0]['resourceVersion']}]
    wait_for(lambda: any(r == 'JobAlreadyActive' for _, r, _ in events_of(http, 'long')), 'a skipped time', 5)
    assert [j['metadata']['name'] for j in jobs_of(http, 'long')] == [job['metadata']['name']]


@FAST
def test_replace_deletes_the_running_job_for_the_next(http):
    http.post(f'{BASE}/cronjobs', cronjob('swap', '* * * * *', ('sleep', '3600'),
                                          concurrencyPolicy='Replace'))
    first = wait_for(lambda: jobs_of(http, 'swap'), 'the first Job', 5)[0]['metadata']['name']
    wait_for(lambda: any(m == f'Deleted job {first}' for _, _, m in events_of(http, 'swap')),
             'the replacement', 5)
    active = wait_for(lambda: (get(http, 'swap').get('status') or {}).get('active'), 'status.active', 5)
    assert len(active) == 1 and active[0]['name'] != first


@FAST
def test_suspended_and_never_firing_cronjobs_create_nothing(http):
    http.post(f'{BASE}/cronjobs', cronjob('paused', '* * * * *', suspend=True))
    http.post(f'{BASE}/cronjobs', cronjob('feb31', '59 23 31 2 *'))
    wait_for(lambda: events_of(http, 'feb31'), 'the InvalidSchedule event', 5)
    assert events_of(http, 'feb31') == [('Warning', 'InvalidSchedule', 'invalid schedule: 59 23 31 2 * : '
                                         'time difference between two schedules is less than 1 second')]
    time.sleep(1.5)  # a minute and a half of controller time
    assert jobs_of(http, 'paused') == [] and jobs_of(http, 'feb31') == []
    assert get(http, 'paused').get('status') in (None, {}) and events_of(http, 'paused') == []


@FAST
def test_time_zone_names_the_scheduled_time_and_unknown_zones_are_refused(http):
    http.post(f'{BASE}/cronjobs', cronjob('tokyo', '* * * * *', timeZone='Asia/Tokyo'))
    job = wait_for(lambda: jobs_of(http, 'tokyo'), 'the Job', 5)[0]
    assert job['metadata']['annotations'][STAMP].endswith(':00+09:00')
    status, _, body = http.post(f'{BASE}/cronjobs', cronjob('nowhere', '* * * * *', timeZone='Mars/Olympus'))
    assert status == 422
    assert body['details']['causes'] == [{'reason': 'FieldValueInvalid', 'field': 'spec.timeZone',
                                          'message': 'Invalid value: "Mars/Olympus": unknown time zone '
                                                     'Mars/Olympus'}]

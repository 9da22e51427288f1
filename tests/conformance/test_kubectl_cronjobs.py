"""kubectl against scheduled work and graceful pod deletion: CronJobs that create Jobs on schedule
(and `kubectl create job --from=cronjob/...`), the InvalidSchedule event of a schedule that never
fires, and a pod whose PID 1 ignores SIGTERM staying Terminating for its whole grace period.
Meaningful against a real cluster too (slower there: a minute per schedule time)."""

import re
import time

import pytest

from .conftest import eventually, time_scale

pytestmark = pytest.mark.conformance


def test_a_cronjob_creates_jobs_on_schedule_and_create_job_from_it(kube, cluster):
    kube('create', 'cronjob', 'tick', '--image=busybox', '--schedule=* * * * *', '--', 'sh', '-c', 'echo hi')
    uid = kube.json('cronjob', 'tick')['metadata']['uid']
    minute = 60 / time_scale(cluster)
    eventually(lambda: kube.items('jobs'), 'the first scheduled Job', timeout=minute + 10)
    job = kube.items('jobs')[0]
    assert re.fullmatch(r'tick-[0-9]{8,}', job['metadata']['name'])
    assert job['metadata']['ownerReferences'] == [{
        'apiVersion': 'batch/v1', 'kind': 'CronJob', 'name': 'tick', 'uid': uid, 'controller': True,
        'blockOwnerDeletion': True}]
    scheduled = job['metadata']['annotations']['batch.kubernetes.io/cronjob-scheduled-timestamp']
    assert int(job['metadata']['name'].split('-')[1]) * 60 == int(
        time.mktime(time.strptime(scheduled, '%Y-%m-%dT%H:%M:%SZ')) - time.timezone)
    eventually(lambda: kube.json('cronjob', 'tick').get('status', {}).get('lastScheduleTime'),
               'status.lastScheduleTime')
    assert kube.json('cronjob', 'tick')['status']['lastScheduleTime'] >= scheduled
    reasons = kube('get', 'events', '--field-selector', 'involvedObject.name=tick').stdout
    assert 'SuccessfulCreate' in reasons and f'Created job {job["metadata"]["name"]}' in reasons

    kube('create', 'job', 'by-hand', '--from=cronjob/tick')
    manual = kube.json('job', 'by-hand')
    assert manual['metadata']['annotations']['cronjob.kubernetes.io/instantiate'] == 'manual'
    assert manual['metadata']['ownerReferences'][0]['uid'] == uid
    kube('wait', '--for=condition=complete', 'job/by-hand', '--timeout=60s')
    kube('delete', 'cronjob', 'tick')


def test_a_schedule_that_never_fires_is_an_invalid_schedule_event(kube):
    kube('create', 'cronjob', 'feb31', '--image=busybox', '--schedule=59 23 31 2 *', '--', 'true')

    def event():
        lines = kube('get', 'events', '--field-selector', 'involvedObject.name=feb31').stdout.splitlines()
        return [line for line in lines if 'InvalidSchedule' in line]

    eventually(event, 'the InvalidSchedule event')
    line = event()[0]
    assert line.split()[1:4] == ['Warning', 'InvalidSchedule', 'cronjob/feb31']
    assert line.endswith('invalid schedule: 59 23 31 2 * : time difference between two schedules is less '
                         'than 1 second')
    assert kube.items('jobs') == []


def test_a_pod_whose_pid_1_ignores_sigterm_stays_terminating_for_the_grace_period(kube, cluster):
    kube('run', 'sleeper', '--image=busybox', '--restart=Never', '--command', '--', 'sleep', '600')
    kube('wait', '--for=condition=Ready', 'pod/sleeper', '--timeout=60s')
    grace = 30 / time_scale(cluster)
    start = time.monotonic()
    kube('delete', 'pod', 'sleeper', '--wait=false')
    time.sleep(grace / 3)
    row = kube('get', 'pod', 'sleeper').stdout.splitlines()[1].split()
    assert row[:3] == ['sleeper', '1/1', 'Terminating']
    assert kube.json('pod', 'sleeper')['status']['phase'] == 'Running'
    kube('wait', '--for=delete', 'pod/sleeper', f'--timeout={int(grace * 3) + 10}s')
    assert time.monotonic() - start >= grace * 0.9

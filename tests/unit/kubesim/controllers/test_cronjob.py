"""The CronJob controller's schedule arithmetic (controllers/cronschedule.py, controllers/cronjob.py)."""

import datetime

import pytest

from tests.kubesim.controllers.cronjob import most_recent_schedule_time
from tests.kubesim.controllers.cronschedule import UTC, Schedule

# A Wednesday.
NOW = datetime.datetime(2026, 12, 2, 2, 25, 30, tzinfo=UTC)


def at(*args):
    return datetime.datetime(*args, tzinfo=UTC)


@pytest.mark.parametrize('text, zone, expected', [
    ('* * * * *', None, at(2026, 12, 2, 2, 26)),
    ('*/15 * * * *', None, at(2026, 12, 2, 2, 30)),
    ('5/20 * * * *', None, at(2026, 12, 2, 2, 45)),  # "N/step" runs from N to the maximum
    ('@hourly', None, at(2026, 12, 2, 3, 0)),
    ('@daily', None, at(2026, 12, 3, 0, 0)),
    ('@weekly', None, at(2026, 12, 6, 0, 0)),
    ('@monthly', None, at(2027, 1, 1, 0, 0)),
    ('@yearly', None, at(2027, 1, 1, 0, 0)),
    ('0 9 * * mon-fri', None, at(2026, 12, 2, 9, 0)),
    ('0 0 * * SUN', None, at(2026, 12, 6, 0, 0)),
    ('0 0 1,15 * 5', None, at(2026, 12, 4, 0, 0)),  # both day fields restricted: either matches
    ('0 0 */1 * 5', None, at(2026, 12, 4, 0, 0)),  # "*/1" counts as "*": both must match
    ('0 0 */2 * 5', None, at(2026, 12, 3, 0, 0)),  # "*/2" does not: either matches
    ('30 6-16/4 * * 1-5', None, at(2026, 12, 2, 6, 30)),
    ('0 0 29 2 *', None, at(2028, 2, 29, 0, 0)),
    ('0 9 * * *', 'America/New_York', at(2026, 12, 2, 14, 0)),
    ('CRON_TZ=Asia/Tokyo 0 9 * * *', None, at(2026, 12, 3, 0, 0)),
    ('TZ=UTC 0 9 * * *', 'Asia/Tokyo', at(2026, 12, 2, 9, 0)),  # the schedule's own zone wins
    ('@every 90s', None, at(2026, 12, 2, 2, 27, 0)),
])
def test_next_time_follows_the_cron_fields(text, zone, expected):
    assert Schedule(text, zone).next_time(NOW) == expected


def test_a_schedule_that_never_fires_has_no_next_time():
    assert Schedule('59 23 31 2 *').next_time(NOW) is None
    with pytest.raises(ValueError, match='less than 1 second'):
        most_recent_schedule_time({}, NOW, Schedule('59 23 31 2 *'), at(2026, 12, 1), True)


def test_the_most_recent_unmet_time_and_the_missed_count():
    hourly = Schedule('0 * * * *')
    assert most_recent_schedule_time({}, NOW, hourly, at(2026, 12, 2, 2, 0), True) == (
        at(2026, 12, 2, 2, 0), None, 0)
    assert most_recent_schedule_time({}, NOW, hourly, at(2026, 12, 2, 1, 30), True)[1:] == (
        at(2026, 12, 2, 2, 0), 1)
    _, recent, missed = most_recent_schedule_time({}, NOW, hourly, at(2026, 11, 30, 2, 30), True)
    assert recent == at(2026, 12, 2, 2, 0) and missed == 48
    # More than 100 missed times: the most recent is still found (TooManyMissedTimes is a warning).
    _, recent, missed = most_recent_schedule_time({}, NOW, Schedule('* * * * *'), at(2026, 12, 1), True)
    assert recent == at(2026, 12, 2, 2, 25) and missed > 100


def test_starting_deadline_seconds_moves_the_earliest_time():
    cj = {'spec': {'startingDeadlineSeconds': 600}}
    every_minute = Schedule('* * * * *')
    earliest, recent, missed = most_recent_schedule_time(cj, NOW, every_minute, at(2026, 11, 1), True)
    assert earliest == NOW - datetime.timedelta(seconds=600) and recent == at(2026, 12, 2, 2, 25)
    assert missed == 10
    # Without it (the requeue's computation) the creation time counts.
    assert most_recent_schedule_time(cj, NOW, every_minute, at(2026, 11, 1), False)[2] > 100

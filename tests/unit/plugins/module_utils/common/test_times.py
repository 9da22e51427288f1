"""RFC 3339 times, read and written in one place."""

import datetime

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.common import times


@pytest.mark.parametrize('text, expected', [
    ('2026-03-04T05:06:07Z', 1772600767.0),
    ('2026-03-04T05:06:07.250Z', 1772600767.25),
    ('2026-03-04T07:06:07+02:00', 1772600767.0),
    ('2026-03-04T05:06:07', None),
    ('2026-13-04T05:06:07Z', None),
    ('soon', None),
    (1772600767, None),
])
def test_parse(text, expected):
    assert times.parse(text) == expected


def test_parse_datetime_is_aware_utc():
    when = times.parse_datetime('2026-03-04T07:06:07+02:00')
    assert when == datetime.datetime(2026, 3, 4, 5, 6, 7, tzinfo=datetime.timezone.utc)
    assert times.parse_datetime('yesterday') is None


def test_micro_time_round_trips():
    assert abs(times.parse(times.micro_time(1700000000.25)) - 1700000000.25) < 1e-5
    assert times.parse('2026-01-02T03:04:05Z') == times.parse('2026-01-02T03:04:05.000000Z')


def test_rfc3339_like_go():
    utc = datetime.datetime(2026, 1, 2, 3, 4, 5, 123456, tzinfo=datetime.timezone.utc)
    assert times.rfc3339_now(utc) == '2026-01-02T03:04:05Z'
    plus8 = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.timezone(datetime.timedelta(hours=8)))
    assert times.rfc3339_now(plus8) == '2026-01-02T03:04:05+08:00'


def test_as_datetime_takes_a_datetime_a_string_or_nothing():
    when = datetime.datetime(2026, 3, 4, 5, 6, 7, tzinfo=datetime.timezone.utc)
    assert times.as_datetime(when) is when
    assert times.as_datetime('2026-03-04T07:06:07+02:00') == when
    assert times.as_datetime('not a time') is None
    before = datetime.datetime.now(datetime.timezone.utc)
    now = times.as_datetime(None)
    assert now.tzinfo is not None and before <= now <= datetime.datetime.now(datetime.timezone.utc)


def test_format_utc_as_the_api_writes_event_times():
    plus2 = datetime.timezone(datetime.timedelta(hours=2))
    when = datetime.datetime(2026, 3, 4, 7, 6, 7, 900000, tzinfo=plus2)
    assert times.format_utc(when) == '2026-03-04T05:06:07Z'
    assert times.format_utc(None) is None
    assert times.parse(times.format_utc(times.parse_datetime('2026-12-31T23:59:59Z'))) == \
        times.parse('2026-12-31T23:59:59Z')

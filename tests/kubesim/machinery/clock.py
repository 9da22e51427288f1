"""Times as the API server writes them: RFC 3339 in UTC, to the second for a `metav1.Time`
(`2006-01-02T15:04:05Z07:00`, apimachinery pkg/apis/meta/v1/time.go) and to the microsecond for
a `metav1.MicroTime` (micro_time.go). The one home of the control plane's "now"."""

import datetime

_SECONDS = '%Y-%m-%dT%H:%M:%SZ'
_MICROSECONDS = '%Y-%m-%dT%H:%M:%S.%fZ'


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc)


def rfc3339(moment, micro=False):
    """``moment`` (an aware datetime in UTC) as a Time, or as a MicroTime when ``micro``."""
    return moment.strftime(_MICROSECONDS if micro else _SECONDS)


def now_rfc3339():
    """The current time as a `metav1.Time` writes it."""
    return rfc3339(utc_now())


def parse_rfc3339(text):
    """A Time the API server wrote (`...Z`, whole seconds) back into an aware datetime."""
    return datetime.datetime.strptime(text, _SECONDS).replace(tzinfo=datetime.timezone.utc)

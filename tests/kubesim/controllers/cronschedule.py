"""Cron schedules as the CronJob controller reads them: robfig/cron (v3) `ParseStandard` and the
`Next` of its SpecSchedule (spec.go) and ConstantDelaySchedule (constantdelay.go).

A schedule is five fields (minute, hour, day of month, month, day of week: numbers, ranges,
steps, lists, `*`/`?`, month and day names) or a descriptor (`@yearly`, `@annually`, `@monthly`,
`@weekly`, `@daily`, `@midnight`, `@hourly`, `@every <duration>`), optionally led by `TZ=<zone>`
or `CRON_TZ=<zone>`. `Next(t)` is the first activation strictly after `t` (whole minutes), read
in the schedule's time zone; a day matches when both the day of month and the day of week do if
either field is a plain `*` (or `?`, `*/1`), else when either does. A schedule that matches no
time in the next five years (`59 23 31 2 *`) has no next time: `next_time` returns None (robfig's
zero time). The text is assumed to have passed `strategies.batch.schedule_error`.
"""

import datetime
import re

_DESCRIPTORS = {'@yearly': '0 0 1 1 *', '@annually': '0 0 1 1 *', '@monthly': '0 0 1 * *',
                '@weekly': '0 0 * * 0', '@daily': '0 0 * * *', '@midnight': '0 0 * * *',
                '@hourly': '0 * * * *'}
_MONTHS = ('jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec')
_DAYS = ('sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat')
_BOUNDS = ((0, 59, {}), (0, 23, {}), (1, 31, {}), (1, 12, {m: i + 1 for i, m in enumerate(_MONTHS)}),
           (0, 6, {d: i for i, d in enumerate(_DAYS)}))
_GO_UNITS = {'ns': 1e-9, 'us': 1e-6, 'µs': 1e-6, 'ms': 1e-3, 's': 1, 'm': 60, 'h': 3600}
_GO_PART = re.compile(r'([0-9]*\.?[0-9]+)(ns|us|µs|ms|s|m|h)')
UTC = datetime.timezone.utc


def _value(text, names):
    return names[text.lower()] if text.lower() in names else int(text)


def _field(expr, low, high, names):
    """(the set of values, whether it counts as `*`), as robfig's getField/getRange read it."""
    values, star = set(), False
    for part in expr.split(','):
        range_part, _, step_part = part.partition('/')
        bounds = range_part.split('-')
        if bounds[0] in ('*', '?'):
            start, end, is_star = low, high, True
        else:
            start = _value(bounds[0], names)
            end = _value(bounds[1], names) if len(bounds) == 2 else start
            is_star = False
        step = 1
        if step_part:
            step = int(step_part)
            if len(bounds) == 1 and not is_star:
                end = high  # "N/step" means "N-max/step"
            if step > 1:
                is_star = False
        values.update(range(start, end + 1, step))
        star = star or is_star
    return values, star


def time_zone(name):
    """The tzinfo of a time zone name (time.LoadLocation): UTC for '' and 'UTC', None for Local."""
    if name in ('', 'UTC'):
        return UTC
    if name == 'Local':
        return None  # the controller's local time
    import zoneinfo  # only a schedule with a time zone pays for it

    return zoneinfo.ZoneInfo(name)


class Schedule:
    """A parsed schedule; `next_time(t)` follows robfig/cron's Next."""

    def __init__(self, text, zone_name=None):
        text = text.strip()
        zone = zone_name
        if text.startswith(('TZ=', 'CRON_TZ=')):
            prefix, _, text = text.partition(' ')
            zone = prefix.partition('=')[2]
            text = text.strip()
        self.zone = time_zone(zone) if zone is not None else UTC
        self.every = None
        if text.startswith('@every '):
            seconds = sum(float(n) * _GO_UNITS[u] for n, u in _GO_PART.findall(text[len('@every '):]))
            self.every = max(1, int(seconds))  # at least a second, whole seconds
            return
        fields = _DESCRIPTORS.get(text, text).split()
        parsed = [_field(expr, low, high, names) for expr, (low, high, names) in zip(fields, _BOUNDS)]
        (self.minutes, _), (self.hours, _), (self.dom, self.dom_star), (self.months, _), \
            (self.dow, self.dow_star) = parsed

    def _day_matches(self, t):
        dom = t.day in self.dom
        dow = (t.isoweekday() % 7) in self.dow
        if self.dom_star or self.dow_star:
            return dom and dow
        return dom or dow

    def next_time(self, t):
        """The first activation after the aware datetime ``t`` (UTC), or None."""
        if self.every is not None:
            return t.replace(microsecond=0) + datetime.timedelta(seconds=self.every)
        local = t.astimezone(self.zone) if self.zone is not None else t.astimezone()
        zone = local.tzinfo
        now = local.replace(tzinfo=None, second=0, microsecond=0) + datetime.timedelta(minutes=1)
        limit = now.year + 5
        while now.year <= limit:
            if now.month not in self.months:
                now = (now.replace(day=1, hour=0, minute=0) + datetime.timedelta(days=32)).replace(day=1)
            elif not self._day_matches(now):
                now = now.replace(hour=0, minute=0) + datetime.timedelta(days=1)
            elif now.hour not in self.hours:
                now = now.replace(minute=0) + datetime.timedelta(hours=1)
            elif now.minute not in self.minutes:
                now += datetime.timedelta(minutes=1)
            else:
                found = now.replace(tzinfo=self.zone) if self.zone is not None else now.astimezone(zone)
                return found.astimezone(UTC)
        return None

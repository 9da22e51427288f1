"""The batch/v1 kinds' strategies: Job and CronJob (pkg/registry/batch/job/strategy.go,
pkg/registry/batch/cronjob/strategy.go, with pkg/apis/batch/v1/defaults.go and
pkg/apis/batch/validation/validation.go). Their pod templates are defaulted and validated as
podspec.py says; a CronJob's schedule is parsed as robfig/cron's ParseStandard does."""

import re

from .podspec import default_pod_spec, validate_pod_spec
from .apps import validate_selector
from .validation import validate_labels, validate_non_negative

CONTROLLER_UID = 'batch.kubernetes.io/controller-uid'
JOB_NAME = 'batch.kubernetes.io/job-name'
LEGACY_CONTROLLER_UID = 'controller-uid'
LEGACY_JOB_NAME = 'job-name'
INT32_MAX = 2 ** 31 - 1
# A CronJob's name leaves room for the 11 characters of the Jobs' `-<minutes since the epoch>`.
CRONJOB_NAME_MAX = 52


# ---- Job -----------------------------------------------------------------------------------------
def _default_job_spec(spec):
    """SetDefaults_Job's spec part."""
    if spec.get('completions') is None and spec.get('parallelism') is None:
        spec['completions'] = 1
        spec['parallelism'] = 1
    spec.setdefault('parallelism', 1)
    if spec.get('backoffLimit') is None:
        spec['backoffLimit'] = INT32_MAX if spec.get('backoffLimitPerIndex') is not None else 6
    spec.setdefault('completionMode', 'NonIndexed')
    spec.setdefault('suspend', False)
    policy = spec.get('podFailurePolicy')
    if isinstance(policy, dict):
        for rule in policy.get('rules') or []:
            for pattern in (rule or {}).get('onPodConditions') or []:
                if isinstance(pattern, dict) and not pattern.get('status'):
                    pattern['status'] = 'True'
    if spec.get('podReplacementPolicy') is None:
        spec['podReplacementPolicy'] = 'Failed' if policy is not None else 'TerminatingOrFailed'


def _template_labels(obj):
    template = (obj.get('spec') or {}).get('template')
    if not isinstance(template, dict):
        return {}
    return (template.get('metadata') or {}).get('labels') or {}


def _default_labels(obj):
    """SetDefaults_Job: a Job without labels takes its template's (on decode, and again when read
    back from storage, after the selector was generated)."""
    meta = obj.setdefault('metadata', {})
    labels = _template_labels(obj)
    if labels and not meta.get('labels'):
        meta['labels'] = dict(labels)


def _generate_selector(obj):
    """The job strategy's generateSelector (unless `manualSelector: true`): the template gets the
    `job-name` and `controller-uid` labels (prefixed and legacy) unless it has them, and the
    selector matches the `batch.kubernetes.io/controller-uid` label."""
    spec = obj['spec']
    if spec.get('manualSelector') is True:
        return
    meta = obj['metadata']
    template = spec.setdefault('template', {})
    if not isinstance(template, dict):
        return
    labels = template.setdefault('metadata', {}).setdefault('labels', {})
    for key in (LEGACY_JOB_NAME, JOB_NAME):
        labels.setdefault(key, meta.get('name', ''))
    for key in (LEGACY_CONTROLLER_UID, CONTROLLER_UID):
        labels.setdefault(key, meta.get('uid', ''))
    selector = spec.get('selector')
    if not isinstance(selector, dict):
        selector = spec['selector'] = {}
    selector.setdefault('matchLabels', {}).setdefault(CONTROLLER_UID, meta.get('uid', ''))


def default_job(obj, old=None):
    spec = obj.setdefault('spec', {})
    if not isinstance(spec, dict):
        return
    _default_job_spec(spec)
    template = spec.get('template')
    if isinstance(template, dict):
        default_pod_spec(template.setdefault('spec', {}))
    _default_labels(obj)
    if old is None:
        _generate_selector(obj)
        _default_labels(obj)


def _validate_job_spec(errs, spec, path, template_required=True):
    for key in ('parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit',
                'ttlSecondsAfterFinished', 'backoffLimitPerIndex', 'maxFailedIndexes'):
        validate_non_negative(errs, spec, key, f'{path}.{key}')
    mode = spec.get('completionMode')
    if mode is not None and mode not in ('NonIndexed', 'Indexed'):
        errs.unsupported(f'{path}.completionMode', mode, ['NonIndexed', 'Indexed'])
    if mode == 'Indexed' and spec.get('completions') is None:
        errs.required(f'{path}.completions', 'when completion mode is Indexed')
    replacement = spec.get('podReplacementPolicy')
    if replacement is not None and replacement not in ('Failed', 'TerminatingOrFailed'):
        errs.unsupported(f'{path}.podReplacementPolicy', replacement, ['Failed', 'TerminatingOrFailed'])
    elif replacement == 'TerminatingOrFailed' and spec.get('podFailurePolicy') is not None:
        errs.unsupported(f'{path}.podReplacementPolicy', replacement, ['Failed'])
    template = spec.get('template')
    if not isinstance(template, dict):
        if template_required:
            errs.required(f'{path}.template')
        return
    validate_labels(errs, (template.get('metadata') or {}).get('labels'), f'{path}.template.metadata.labels')
    pod_spec = template.get('spec')
    validate_pod_spec(errs, pod_spec, f'{path}.template.spec')
    restart = (pod_spec or {}).get('restartPolicy') if isinstance(pod_spec, dict) else None
    if restart in ('Always', '', None):
        # The pod defaults make an unset policy Always: both are refused alike.
        errs.required(f'{path}.template.spec.restartPolicy', 'valid values: "OnFailure", "Never"')


def validate_job(obj, old, errs):
    spec = obj.get('spec') or {}
    _validate_job_spec(errs, spec, 'spec')
    validate_selector(errs, obj, 'job')
    if old is None:
        return
    old_spec = old.get('spec') or {}
    if spec.get('selector') != old_spec.get('selector'):
        errs.invalid('spec.selector', spec.get('selector'), 'field is immutable')
    if spec.get('completions') != old_spec.get('completions'):
        errs.invalid('spec.completions', spec.get('completions'), 'field is immutable')
    if spec.get('completionMode') != old_spec.get('completionMode'):
        errs.invalid('spec.completionMode', spec.get('completionMode'), 'field is immutable')
    if spec.get('template') != old_spec.get('template') and not old_spec.get('suspend'):
        errs.invalid('spec.template', '', 'field is immutable')


# ---- CronJob -------------------------------------------------------------------------------------
def default_cronjob(obj, old=None):
    """SetDefaults_CronJob, and the pod defaults of the job template's pod template."""
    spec = obj.setdefault('spec', {})
    if not isinstance(spec, dict):
        return
    spec.setdefault('concurrencyPolicy', 'Allow')
    spec.setdefault('suspend', False)
    spec.setdefault('successfulJobsHistoryLimit', 3)
    spec.setdefault('failedJobsHistoryLimit', 1)
    job_spec = ((spec.get('jobTemplate') or {}).get('spec'))
    if isinstance(job_spec, dict) and isinstance(job_spec.get('template'), dict):
        default_pod_spec(job_spec['template'].setdefault('spec', {}))


def validate_cronjob(obj, old, errs):
    name = (obj.get('metadata') or {}).get('name') or ''
    if len(name) > CRONJOB_NAME_MAX:
        errs.invalid('metadata.name', name, f'must be no more than {CRONJOB_NAME_MAX} characters')
    spec = obj.get('spec') or {}
    schedule = spec.get('schedule')
    if not schedule:
        errs.required('spec.schedule')
    else:
        problem = schedule_error(schedule)
        if problem:
            errs.invalid('spec.schedule', schedule, problem)
        elif 'TZ' in schedule:
            errs.invalid('spec.schedule', schedule,
                         'cannot use TZ or CRON_TZ in schedule, use timeZone field instead')
    _validate_time_zone(errs, spec.get('timeZone'))
    policy = spec.get('concurrencyPolicy')
    if policy not in ('Allow', 'Forbid', 'Replace'):
        errs.unsupported('spec.concurrencyPolicy', policy, ['Allow', 'Forbid', 'Replace'])
    for key in ('startingDeadlineSeconds', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit'):
        validate_non_negative(errs, spec, key)
    job_template = spec.get('jobTemplate')
    if not isinstance(job_template, dict) or not isinstance(job_template.get('spec'), dict):
        errs.required('spec.jobTemplate.spec.template')
        return
    _validate_job_spec(errs, job_template['spec'], 'spec.jobTemplate.spec')


_TIME_ZONE_PART = re.compile(r'^[A-Za-z.\-_0-9+]{1,14}$')


def _validate_time_zone(errs, zone):
    """validateTimeZone: an IANA zone name the API server can load."""
    if zone is None:
        return
    if zone == '':
        errs.invalid('spec.timeZone', zone, 'timeZone must be nil or non-empty string')
        return
    if any(p in ('.', '..') or p.startswith('-') or not _TIME_ZONE_PART.match(p) for p in zone.split('/')):
        errs.invalid('spec.timeZone', zone, f'unknown time zone {zone}')
        return
    if zone.lower() == 'local':
        errs.invalid('spec.timeZone', zone,
                     'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones')
        return
    if zone != 'UTC':
        import zoneinfo  # only a CronJob with a time zone pays for it

        try:
            zoneinfo.ZoneInfo(zone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            errs.invalid('spec.timeZone', zone, f'unknown time zone {zone}')


# robfig/cron (v3) ParseStandard: five fields, or a descriptor.
_FIELDS = (('minute', 0, 59, {}), ('hour', 0, 23, {}), ('day of month', 1, 31, {}),
           ('month', 1, 12, {m: i + 1 for i, m in enumerate(
               ('jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'))}),
           ('day of week', 0, 6, {d: i for i, d in enumerate(
               ('sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'))}))
_DESCRIPTORS = ('@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly')
_GO_DURATION = re.compile(r'^([0-9]*\.?[0-9]+(ns|us|µs|ms|s|m|h))+$')


def _number(text, names):
    if text.lower() in names:
        return names[text.lower()]
    if not re.fullmatch(r'[+-]?[0-9]+', text):
        raise ValueError(f'failed to parse int from {text}: strconv.Atoi: parsing "{text}": invalid syntax')
    return int(text)


def _check_field(expr, low, high, names):
    for part in expr.split(','):
        range_and_step = part.split('/')
        if len(range_and_step) > 2:
            raise ValueError(f'too many slashes: {part}')
        low_high = range_and_step[0].split('-')
        if low_high[0] in ('*', '?'):
            start, end = low, high
        else:
            start = _number(low_high[0], names)
            end = _number(low_high[1], names) if len(low_high) == 2 else start
            if len(low_high) > 2:
                raise ValueError(f'too many hyphens: {part}')
        if len(range_and_step) == 2:
            step = _number(range_and_step[1], {})
            if step <= 0:
                raise ValueError(f'step of range should be a positive number: {part}')
        if start < low:
            raise ValueError(f'beginning of range ({start}) below minimum ({low}): {part}')
        if end > high:
            raise ValueError(f'end of range ({end}) above maximum ({high}): {part}')
        if start > end:
            raise ValueError(f'beginning of range ({start}) beyond end of range ({end}): {part}')


def schedule_error(schedule):
    """None when robfig/cron's ParseStandard takes ``schedule``, else its error text."""
    spec = schedule.strip()
    for prefix in ('TZ=', 'CRON_TZ='):
        if spec.startswith(prefix):
            spec = spec.partition(' ')[2].strip()
    if spec.startswith('@'):
        if spec.startswith('@every '):
            if not _GO_DURATION.match(spec[len('@every '):]):
                return f'failed to parse duration {spec}: time: invalid duration "{spec[len("@every "):]}"'
            return None
        if spec in _DESCRIPTORS:
            return None
        return f'unrecognized descriptor: {spec}'
    fields = spec.split()
    if len(fields) != 5:
        return f'expected exactly 5 fields, found {len(fields)}: [{" ".join(fields)}]'
    try:
        for expr, (_name, low, high, names) in zip(fields, _FIELDS):
            _check_field(expr, low, high, names)
    except ValueError as err:
        return str(err)
    return None

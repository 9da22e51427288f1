"""The apps/v1 kinds' strategies: Deployment, ReplicaSet, StatefulSet, DaemonSet and
ControllerRevision (pkg/registry/apps/<kind>/strategy.go, with pkg/apis/apps/v1/defaults.go and
pkg/apis/apps/validation): defaults, validation, and what the strategies keep on the object
(a Deployment's generation, a DaemonSet's template generation). Their pod templates are
defaulted and validated as podspec.py says."""

from ...machinery.selectors import matches_labels, selector_from_label_selector_object
from .podspec import default_template, validate_template
from .validation import (DNS1123_LABEL, LABEL_MSG, validate_int_or_percent, validate_labels,
                         validate_non_negative)

DS_TEMPLATE_GENERATION = 'deprecated.daemonset.template.generation'


# ---- selectors -----------------------------------------------------------------------------------
def validate_selector(errs, obj, kind):
    """apps/v1: a non-empty selector that matches the template's labels."""
    spec = obj.get('spec') or {}
    selector = spec.get('selector')
    if selector is None:
        errs.required('spec.selector')
        return
    if not isinstance(selector, dict) or not (selector.get('matchLabels')
                                              or selector.get('matchExpressions')):
        errs.invalid('spec.selector', selector, f'empty selector is invalid for {kind}')
        return
    validate_labels(errs, selector.get('matchLabels'), 'spec.selector.matchLabels')
    for i, expr in enumerate(selector.get('matchExpressions') or []):
        op = (expr or {}).get('operator')
        if op not in ('In', 'NotIn', 'Exists', 'DoesNotExist'):
            errs.unsupported(f'spec.selector.matchExpressions[{i}].operator', op,
                             ['In', 'NotIn', 'Exists', 'DoesNotExist'])
            return
        if op in ('In', 'NotIn') and not expr.get('values'):
            errs.required(f'spec.selector.matchExpressions[{i}].values')
            return
    labels = (((spec.get('template') or {}).get('metadata') or {}).get('labels')) or {}
    if not matches_labels(selector_from_label_selector_object(selector), labels):
        errs.invalid('spec.template.metadata.labels', labels, '`selector` does not match template `labels`')


def validate_selector_immutable(errs, obj, old):
    if old is None:
        return
    new_sel = (obj.get('spec') or {}).get('selector')
    old_sel = (old.get('spec') or {}).get('selector')
    if new_sel != old_sel:
        errs.invalid('spec.selector', new_sel, 'field is immutable')


# ---- Deployment ----------------------------------------------------------------------------------
def default_deployment(obj, old=None):
    spec = obj.setdefault('spec', {})
    spec.setdefault('replicas', 1)
    strategy = spec.setdefault('strategy', {})
    strategy.setdefault('type', 'RollingUpdate')
    if strategy['type'] == 'RollingUpdate':
        rolling = strategy.setdefault('rollingUpdate', {})
        if isinstance(rolling, dict):
            rolling.setdefault('maxUnavailable', '25%')
            rolling.setdefault('maxSurge', '25%')
    spec.setdefault('revisionHistoryLimit', 10)
    spec.setdefault('progressDeadlineSeconds', 600)
    default_template(obj)


def validate_deployment(obj, old, errs):
    spec = obj.get('spec') or {}
    validate_non_negative(errs, spec, 'replicas')
    validate_non_negative(errs, spec, 'minReadySeconds')
    validate_non_negative(errs, spec, 'revisionHistoryLimit')
    validate_selector(errs, obj, 'deployment')
    validate_template(errs, obj)
    strategy = spec.get('strategy') or {}
    stype = strategy.get('type')
    if stype not in ('Recreate', 'RollingUpdate'):
        errs.unsupported('spec.strategy.type', stype, ['Recreate', 'RollingUpdate'])
    elif stype == 'Recreate' and strategy.get('rollingUpdate') is not None:
        errs.forbidden('spec.strategy.rollingUpdate',
                       'may not be specified when strategy `type` is \'Recreate\'')
    elif stype == 'RollingUpdate':
        rolling = strategy.get('rollingUpdate') or {}
        path = 'spec.strategy.rollingUpdate'
        unavailable = validate_int_or_percent(errs, rolling.get('maxUnavailable'), f'{path}.maxUnavailable')
        # A Deployment may surge beyond 100%; only unavailability is capped.
        surge = validate_int_or_percent(errs, rolling.get('maxSurge'), f'{path}.maxSurge', at_most_100=False)
        if unavailable == 0 and surge == 0:
            errs.invalid(f'{path}.maxUnavailable', rolling.get('maxUnavailable'),
                         'may not be 0 when `maxSurge` is 0')
    deadline = spec.get('progressDeadlineSeconds')
    if deadline is not None:
        validate_non_negative(errs, spec, 'progressDeadlineSeconds')
        if isinstance(deadline, int) and deadline <= (spec.get('minReadySeconds') or 0):
            errs.invalid('spec.progressDeadlineSeconds', deadline, 'must be greater than minReadySeconds')
    validate_selector_immutable(errs, obj, old)


def bump_deployment_generation(obj, old):
    """Deployments also count annotation changes as a new generation (they reach ReplicaSets). The
    controller writes its revision annotation through /status, which never bumps the generation."""
    if old is None:
        return
    new_ann = (obj.get('metadata') or {}).get('annotations') or {}
    old_ann = (old.get('metadata') or {}).get('annotations') or {}
    if new_ann != old_ann:
        obj['metadata']['generation'] = old['metadata'].get('generation', 1) + 1


# ---- ReplicaSet ----------------------------------------------------------------------------------
def default_replicaset(obj, old=None):
    obj.setdefault('spec', {}).setdefault('replicas', 1)
    default_template(obj)


def validate_replicaset(obj, old, errs):
    spec = obj.get('spec') or {}
    validate_non_negative(errs, spec, 'replicas')
    validate_non_negative(errs, spec, 'minReadySeconds')
    validate_selector(errs, obj, 'replicaset')
    validate_template(errs, obj, required=bool(spec.get('replicas')))
    validate_selector_immutable(errs, obj, old)


# ---- StatefulSet ---------------------------------------------------------------------------------
def default_statefulset(obj, old=None):
    spec = obj.setdefault('spec', {})
    spec.setdefault('replicas', 1)
    spec.setdefault('podManagementPolicy', 'OrderedReady')
    strategy = spec.setdefault('updateStrategy', {})
    if not strategy.get('type'):
        # Only an empty type brings a rollingUpdate with it; `type: RollingUpdate` alone stays bare.
        strategy['type'] = 'RollingUpdate'
        if strategy.get('rollingUpdate') is None:
            strategy['rollingUpdate'] = {}
    rolling = strategy.get('rollingUpdate')
    if strategy['type'] == 'RollingUpdate' and isinstance(rolling, dict):
        if rolling.get('partition') is None:
            rolling['partition'] = 0
        # MaxUnavailableStatefulSet (beta, on by default at the presented version) defaults it to 1.
        if rolling.get('maxUnavailable') is None:
            rolling['maxUnavailable'] = 1
    spec.setdefault('revisionHistoryLimit', 10)
    retention = spec.setdefault('persistentVolumeClaimRetentionPolicy', {})
    if isinstance(retention, dict):
        retention.setdefault('whenDeleted', 'Retain')
        retention.setdefault('whenScaled', 'Retain')
    default_template(obj)


def validate_statefulset(obj, old, errs):
    # revisionHistoryLimit is not validated for StatefulSets (a negative one is accepted).
    spec = obj.get('spec') or {}
    if old is None:
        # A StatefulSet's name becomes its pods' hostnames: a DNS label, not a subdomain.
        name = (obj.get('metadata') or {}).get('name', '')
        if name and len(name) > 63:
            errs.invalid('metadata.name', name, 'must be no more than 63 characters')
        if name and not DNS1123_LABEL.match(name):
            errs.invalid('metadata.name', name, LABEL_MSG)
    validate_non_negative(errs, spec, 'replicas')
    validate_non_negative(errs, spec, 'minReadySeconds')
    if isinstance(spec.get('ordinals'), dict):
        validate_non_negative(errs, spec['ordinals'], 'start', 'spec.ordinals.start')
    validate_selector(errs, obj, 'statefulset')
    validate_template(errs, obj)
    policy = spec.get('podManagementPolicy')
    if policy not in ('OrderedReady', 'Parallel'):
        errs.unsupported('spec.podManagementPolicy', policy, ['OrderedReady', 'Parallel'])
    strategy = spec.get('updateStrategy') or {}
    stype = strategy.get('type')
    if stype not in ('RollingUpdate', 'OnDelete'):
        errs.unsupported('spec.updateStrategy.type', stype, ['OnDelete', 'RollingUpdate'])
    elif stype == 'OnDelete' and strategy.get('rollingUpdate') is not None:
        errs.invalid('spec.updateStrategy.rollingUpdate', strategy.get('rollingUpdate'),
                     'only allowed for updateStrategy \'RollingUpdate\'')
    elif stype == 'RollingUpdate':
        rolling = strategy.get('rollingUpdate') or {}
        validate_non_negative(errs, rolling, 'partition', 'spec.updateStrategy.rollingUpdate.partition')
        # MaxUnavailableStatefulSet is beta and on by default at the presented version: kept, validated.
        if rolling.get('maxUnavailable') is not None:
            value = validate_int_or_percent(errs, rolling['maxUnavailable'],
                                            'spec.updateStrategy.rollingUpdate.maxUnavailable')
            if value == 0:
                errs.invalid('spec.updateStrategy.rollingUpdate.maxUnavailable', rolling['maxUnavailable'],
                             'cannot be 0')
    if old is not None:
        mutable = ('replicas', 'ordinals', 'template', 'updateStrategy',
                   'persistentVolumeClaimRetentionPolicy', 'minReadySeconds', 'revisionHistoryLimit')
        rest_new = {k: v for k, v in spec.items() if k not in mutable}
        rest_old = {k: v for k, v in (old.get('spec') or {}).items() if k not in mutable}
        if rest_new != rest_old:
            errs.forbidden('spec', 'updates to statefulset spec for fields other than \'replicas\', '
                                   '\'ordinals\', \'template\', \'updateStrategy\', '
                                   '\'revisionHistoryLimit\', \'persistentVolumeClaimRetentionPolicy\' '
                                   'and \'minReadySeconds\' are forbidden')


# ---- DaemonSet -----------------------------------------------------------------------------------
def default_daemonset(obj, old=None):
    spec = obj.setdefault('spec', {})
    strategy = spec.setdefault('updateStrategy', {})
    strategy.setdefault('type', 'RollingUpdate')
    if strategy['type'] == 'RollingUpdate':
        rolling = strategy.setdefault('rollingUpdate', {})
        if isinstance(rolling, dict):
            rolling.setdefault('maxUnavailable', 1)
            rolling.setdefault('maxSurge', 0)
    spec.setdefault('revisionHistoryLimit', 10)
    default_template(obj)


def validate_daemonset(obj, old, errs):
    spec = obj.get('spec') or {}
    validate_non_negative(errs, spec, 'minReadySeconds')
    validate_non_negative(errs, spec, 'revisionHistoryLimit')
    validate_selector(errs, obj, 'daemonset')
    validate_template(errs, obj)
    strategy = spec.get('updateStrategy') or {}
    stype = strategy.get('type')
    if stype not in ('RollingUpdate', 'OnDelete'):
        errs.unsupported('spec.updateStrategy.type', stype, ['OnDelete', 'RollingUpdate'])
    elif stype == 'RollingUpdate':
        rolling = strategy.get('rollingUpdate') or {}
        path = 'spec.updateStrategy.rollingUpdate'
        unavailable = validate_int_or_percent(errs, rolling.get('maxUnavailable'), f'{path}.maxUnavailable')
        surge = validate_int_or_percent(errs, rolling.get('maxSurge'), f'{path}.maxSurge')
        # Exactly one of the two may be non-zero.
        if unavailable and surge:
            errs.invalid(f'{path}.maxSurge', rolling.get('maxSurge'),
                         'may not be set when maxUnavailable is non-zero')
        elif not unavailable and not surge:
            errs.required(f'{path}.maxUnavailable', 'cannot be 0 when maxSurge is 0')
    validate_selector_immutable(errs, obj, old)


def daemonset_template_generation(obj, old):
    """Keep `deprecated.daemonset.template.generation`: 1 at creation, +1 per template change."""
    meta = obj.setdefault('metadata', {})
    annotations = meta.setdefault('annotations', {})
    if old is None:
        annotations[DS_TEMPLATE_GENERATION] = '1'
        return
    old_gen = ((old.get('metadata') or {}).get('annotations') or {}).get(DS_TEMPLATE_GENERATION, '1')
    try:
        generation = int(old_gen)
    except ValueError:
        generation = 1
    if (obj.get('spec') or {}).get('template') != (old.get('spec') or {}).get('template'):
        generation += 1
    annotations[DS_TEMPLATE_GENERATION] = str(generation)


# ---- ControllerRevision --------------------------------------------------------------------------
def validate_controllerrevision(obj, old, errs):
    revision = obj.get('revision')
    if revision is not None and (not isinstance(revision, int) or revision < 0):
        errs.invalid('revision', revision, 'must be greater than or equal to 0')
    if old is not None and obj.get('data') != old.get('data'):
        errs.invalid('data', '', 'field is immutable')

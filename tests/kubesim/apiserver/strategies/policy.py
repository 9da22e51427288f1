"""The policy/v1 PodDisruptionBudget strategy (pkg/registry/policy/poddisruptionbudget/strategy.go)
and its validation (pkg/apis/policy/validation/validation.go, ValidatePodDisruptionBudgetSpec):
minAvailable and maxUnavailable are exclusive, each a non-negative integer or a percentage of at
most 100%, the selector a valid label selector. A new budget starts with an empty status; the
disruption controller (controllers/disruption.py) writes it."""

from .validation import validate_int_or_percent

BOTH_SET = 'minAvailable and maxUnavailable cannot be both set'


def _spec_text(spec):
    """The spec as Go's %#v prints a policy.PodDisruptionBudgetSpec (pointers shown as set or nil)."""
    def ptr(key, typ):
        return f'({typ})(nil)' if spec.get(key) is None else f'&{typ[1:]}{{...}}'
    return ('policy.PodDisruptionBudgetSpec{MinAvailable:' + ptr('minAvailable', '*intstr.IntOrString')
            + ', Selector:' + ptr('selector', '*v1.LabelSelector')
            + ', MaxUnavailable:' + ptr('maxUnavailable', '*intstr.IntOrString')
            + ', UnhealthyPodEvictionPolicy:'
            + ptr('unhealthyPodEvictionPolicy', '*policy.UnhealthyPodEvictionPolicyType')
            + '}')


POLICIES = ('AlwaysAllow', 'IfHealthyBudget')


def validate_pdb(obj, old, errs):
    spec = obj.get('spec') or {}
    if spec.get('minAvailable') is not None and spec.get('maxUnavailable') is not None:
        errs.causes.append(('spec', 'FieldValueInvalid', f'Invalid value: {_spec_text(spec)}: {BOTH_SET}'))
    for key in ('minAvailable', 'maxUnavailable'):
        validate_int_or_percent(errs, spec.get(key), f'spec.{key}')
    policy = spec.get('unhealthyPodEvictionPolicy')
    if policy is not None and policy not in POLICIES:
        errs.unsupported('spec.unhealthyPodEvictionPolicy', policy, POLICIES)
    for i, req in enumerate((spec.get('selector') or {}).get('matchExpressions') or []):
        op = (req or {}).get('operator')
        if op in ('In', 'NotIn') and not req.get('values'):
            errs.required(f'spec.selector.matchExpressions[{i}].values',
                          'must be specified when `operator` is \'In\' or \'NotIn\'')
        elif op in ('Exists', 'DoesNotExist') and req.get('values'):
            errs.forbidden(f'spec.selector.matchExpressions[{i}].values',
                           'may not be specified when `operator` is \'Exists\' or \'DoesNotExist\'')
        elif op not in ('In', 'NotIn', 'Exists', 'DoesNotExist'):
            errs.causes.append((f'spec.selector.matchExpressions[{i}].operator', 'FieldValueInvalid',
                                f'Invalid value: "{op}": not a valid selector operator'))


def initial_status(obj):
    """PrepareForCreate: the status is reset; the encoder prints its counts (no omitempty)."""
    return {}

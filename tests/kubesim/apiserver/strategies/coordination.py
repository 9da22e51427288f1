"""The coordination.k8s.io/v1 Lease strategy (pkg/apis/coordination/validation)."""


def validate_lease(obj, old, errs):
    spec = obj.get('spec') or {}
    duration = spec.get('leaseDurationSeconds')
    if duration is not None and (not isinstance(duration, int) or duration <= 0):
        errs.invalid('spec.leaseDurationSeconds', duration, 'must be greater than 0')
    transitions = spec.get('leaseTransitions')
    if transitions is not None and (not isinstance(transitions, int) or transitions < 0):
        errs.invalid('spec.leaseTransitions', transitions, 'must be greater than or equal to 0')

"""Deployment helpers (pkg/controller/deployment/util in Kubernetes): annotations, conditions,
surge and unavailability bounds, proportional-scaling fractions."""

from ...machinery.clock import now_rfc3339
from ..common import scaled_value, semantic_equal

HASH_LABEL = 'pod-template-hash'
REVISION = 'deployment.kubernetes.io/revision'
REVISION_HISTORY = 'deployment.kubernetes.io/revision-history'
DESIRED_REPLICAS = 'deployment.kubernetes.io/desired-replicas'
MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas'
LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration'
ROLLBACK_TO = 'deprecated.deployment.rollback.to'
# Deployment annotations never copied onto its ReplicaSets (and kept on rollback).
ANNOTATIONS_TO_SKIP = frozenset({LAST_APPLIED, REVISION, REVISION_HISTORY, DESIRED_REPLICAS, MAX_REPLICAS,
                                 ROLLBACK_TO})
MAX_REV_HISTORY_LENGTH = 2000

PROGRESSING, AVAILABLE = 'Progressing', 'Available'
NEW_RS_CREATED = 'NewReplicaSetCreated'
FOUND_NEW_RS = 'FoundNewReplicaSet'
RS_UPDATED = 'ReplicaSetUpdated'
NEW_RS_AVAILABLE = 'NewReplicaSetAvailable'
TIMED_OUT = 'ProgressDeadlineExceeded'
PAUSED = 'DeploymentPaused'
RESUMED = 'DeploymentResumed'
MIN_AVAILABLE = 'MinimumReplicasAvailable'
MIN_UNAVAILABLE = 'MinimumReplicasUnavailable'
MAX_INT32 = 2**31 - 1


# ---- small accessors -------------------------------------------------------------------------
def replicas_of(obj):
    if obj is None:
        return 0
    value = (obj.get('spec') or {}).get('replicas')
    return 1 if value is None and obj.get('kind') == 'Deployment' else (value or 0)


def status_of(obj, field):
    return ((obj or {}).get('status') or {}).get(field, 0) or 0


def revision_of(rs):
    try:
        return int((rs['metadata'].get('annotations') or {}).get(REVISION, '0'))
    except ValueError:
        return 0


def is_rolling(d):
    return ((d.get('spec') or {}).get('strategy') or {}).get('type', 'RollingUpdate') == 'RollingUpdate'


def resolve_fenceposts(d):
    """(maxSurge, maxUnavailable) for a RollingUpdate Deployment; both zero becomes unavailable 1."""
    rolling = ((d['spec'].get('strategy') or {}).get('rollingUpdate')) or {}
    desired = replicas_of(d)
    surge = scaled_value(rolling.get('maxSurge', '25%'), desired, True)
    unavailable = scaled_value(rolling.get('maxUnavailable', '25%'), desired, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def max_surge(d):
    if not is_rolling(d):
        return 0
    return resolve_fenceposts(d)[0]


def max_unavailable(d):
    if not is_rolling(d) or replicas_of(d) == 0:
        return 0
    unavailable = resolve_fenceposts(d)[1]
    return min(unavailable, replicas_of(d))


def has_progress_deadline(d):
    value = d['spec'].get('progressDeadlineSeconds')
    return value is not None and value != MAX_INT32


def total_spec(rss):
    return sum(replicas_of(rs) for rs in rss if rs is not None)


def total_status(rss, field):
    return sum(status_of(rs, field) for rs in rss if rs is not None)


def active(rss):
    return [rs for rs in rss if rs is not None and replicas_of(rs) > 0]


def _without_hash(template):
    meta = template.get('metadata') or {}
    labels = meta.get('labels') or {}
    if HASH_LABEL not in labels:
        return template
    labels = {k: v for k, v in labels.items() if k != HASH_LABEL}
    return dict(template, metadata=dict(meta, labels=labels))


def equal_ignore_hash(t1, t2):
    """Template equality ignoring pod-template-hash (EqualIgnoreHash)."""
    a, b = _without_hash(t1), _without_hash(t2)
    return a == b or semantic_equal(a, b)


def get_condition(status, cond_type):
    for cond in (status or {}).get('conditions') or []:
        if cond.get('type') == cond_type:
            return cond
    return None


def new_condition(cond_type, status, reason, message):
    now = now_rfc3339()
    return {'type': cond_type, 'status': status, 'lastUpdateTime': now, 'lastTransitionTime': now,
            'reason': reason, 'message': message}


def set_condition(status, cond):
    """SetDeploymentCondition: no-op for the same status and reason; keeps the transition time."""
    current = get_condition(status, cond['type'])
    if current and current['status'] == cond['status'] and current.get('reason') == cond['reason']:
        return
    if current and current['status'] == cond['status']:
        cond['lastTransitionTime'] = current.get('lastTransitionTime', cond['lastTransitionTime'])
    remove_condition(status, cond['type'])
    status.setdefault('conditions', []).append(cond)


def remove_condition(status, cond_type):
    conds = [c for c in status.get('conditions') or [] if c.get('type') != cond_type]
    if conds:
        status['conditions'] = conds
    else:
        status.pop('conditions', None)


def set_replicas_annotations(rs, desired, max_replicas):
    ann = rs['metadata'].setdefault('annotations', {})
    changed = False
    for key, value in ((DESIRED_REPLICAS, str(desired)), (MAX_REPLICAS, str(max_replicas))):
        if ann.get(key) != value:
            ann[key] = value
            changed = True
    return changed


def set_new_rs_annotations(d, rs, new_revision, exists):
    """SetNewReplicaSetAnnotations: copy the Deployment's annotations and bump the revision."""
    ann = rs['metadata'].setdefault('annotations', {})
    changed = False
    for key, value in (d['metadata'].get('annotations') or {}).items():
        if key in ANNOTATIONS_TO_SKIP or ann.get(key) == value:
            continue
        ann[key] = value
        changed = True
    old_revision = ann.get(REVISION)
    try:
        old_int = int(old_revision) if old_revision else 0
    except ValueError:
        return False
    new_int = int(new_revision)
    if old_int < new_int:
        ann[REVISION] = new_revision
        changed = True
        if old_revision is not None:
            history = ann.get(REVISION_HISTORY, '')
            if not history:
                ann[REVISION_HISTORY] = old_revision
            else:
                parts = history.split(',')
                total = len(history) + len(old_revision) + 1
                start = 0
                while total > MAX_REV_HISTORY_LENGTH and start < len(parts):
                    total -= len(parts[start]) + 1
                    start += 1
                if total <= MAX_REV_HISTORY_LENGTH:
                    ann[REVISION_HISTORY] = ','.join(parts[start:] + [old_revision])
    if not exists and set_replicas_annotations(rs, replicas_of(d), replicas_of(d) + max_surge(d)):
        changed = True
    return changed


def deployment_complete(d, status):
    want = replicas_of(d)
    return (status.get('updatedReplicas', 0) == want and status.get('replicas', 0) == want
            and status.get('availableReplicas', 0) == want
            and status.get('observedGeneration', 0) >= d['metadata'].get('generation', 1))


def deployment_progressing(d, new_status):
    old = d.get('status') or {}
    old_old = old.get('replicas', 0) - old.get('updatedReplicas', 0)
    new_old = new_status.get('replicas', 0) - new_status.get('updatedReplicas', 0)
    return (new_status.get('updatedReplicas', 0) > old.get('updatedReplicas', 0) or new_old < old_old
            or new_status.get('readyReplicas', 0) > old.get('readyReplicas', 0)
            or new_status.get('availableReplicas', 0) > old.get('availableReplicas', 0))


def rs_fraction(rs, d):
    """getReplicaSetFraction: this RS's share of a proportional scale."""
    if replicas_of(d) == 0:
        return -replicas_of(rs)
    deployment_replicas = replicas_of(d) + max_surge(d)
    try:
        annotated = int(rs['metadata'].get('annotations', {}).get(MAX_REPLICAS))
    except (TypeError, ValueError):
        annotated = status_of(d, 'replicas')
    if annotated == 0:
        return 0
    new_size = replicas_of(rs) * deployment_replicas / annotated
    return int(new_size + 0.5) - replicas_of(rs)  # Go rounds halves away from zero


def proportion(rs, d, to_add, added):
    if rs is None or replicas_of(rs) == 0 or to_add == 0 or to_add == added:
        return 0
    fraction = rs_fraction(rs, d)
    allowed = to_add - added
    return min(fraction, allowed) if to_add > 0 else max(fraction, allowed)


def descending(key):
    ts, name = key
    return (tuple(-ord(c) for c in ts), tuple(-ord(c) for c in name))

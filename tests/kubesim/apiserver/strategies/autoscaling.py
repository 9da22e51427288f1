"""HorizontalPodAutoscalers at the API server: stored as autoscaling/v2, served as v2 and v1 with the
conversion of pkg/apis/autoscaling/v1/conversion.go, defaulted and validated as
pkg/apis/autoscaling/v2/defaults.go and pkg/apis/autoscaling/validation/validation.go do. The
controller is controllers/hpa.py.

v1 has room for one metric, the CPU utilization target (`targetCPUUtilizationPercentage`; its
status `currentCPUUtilizationPercentage`); everything else v2 holds travels in v1 annotations, as
the API server keeps it: `autoscaling.alpha.kubernetes.io/metrics` (the other metrics, in v1's
MetricSpec form), `.../current-metrics`, `.../behavior` and `.../conditions`. Converting back
restores them, so a v1 client's update keeps what a v2 client set.
"""

import copy
import json

from .validation import Errors

METRICS = 'autoscaling.alpha.kubernetes.io/metrics'
CURRENT_METRICS = 'autoscaling.alpha.kubernetes.io/current-metrics'
BEHAVIOR = 'autoscaling.alpha.kubernetes.io/behavior'
CONDITIONS = 'autoscaling.alpha.kubernetes.io/conditions'
DEFAULT_CPU_UTILIZATION = 80


def _is_cpu_utilization(metric):
    resource = metric.get('resource') or {}
    return (metric.get('type') == 'Resource' and resource.get('name') == 'cpu'
            and (resource.get('target') or {}).get('averageUtilization') is not None)


# ---- metric specs and statuses between the two forms ------------------------------------------
def _v1_target(target):
    out = {}
    if target.get('averageUtilization') is not None:
        out['targetAverageUtilization'] = target['averageUtilization']
    if target.get('averageValue') is not None:
        out['targetAverageValue'] = target['averageValue']
    if target.get('value') is not None:
        out['targetValue'] = target['value']
    return out


def _v2_target(spec):
    if spec.get('targetAverageUtilization') is not None:
        return {'type': 'Utilization', 'averageUtilization': spec['targetAverageUtilization']}
    if spec.get('targetAverageValue') is not None:
        return {'type': 'AverageValue', 'averageValue': spec['targetAverageValue']}
    return {'type': 'Value', 'value': spec.get('targetValue')}


def metric_to_v1(metric):
    """A v2 MetricSpec in v1's annotation form (targets flattened into the source)."""
    kind = metric.get('type')
    out = {'type': kind}
    if kind == 'Resource':
        source = metric.get('resource') or {}
        out['resource'] = {'name': source.get('name'), **_v1_target(source.get('target') or {})}
    elif kind == 'ContainerResource':
        source = metric.get('containerResource') or {}
        out['containerResource'] = {'name': source.get('name'), 'container': source.get('container'),
                                    **_v1_target(source.get('target') or {})}
    elif kind in ('Pods', 'Object', 'External'):
        field = {'Pods': 'pods', 'Object': 'object', 'External': 'external'}[kind]
        source = metric.get(field) or {}
        converted = {k: v for k, v in source.items() if k not in ('target', 'metric')}
        metric_id = source.get('metric') or {}
        converted['metricName'] = metric_id.get('name')
        if metric_id.get('selector') is not None:
            converted['metricSelector' if kind == 'External' else 'selector'] = metric_id['selector']
        converted.update(_v1_target(source.get('target') or {}))
        if kind == 'Object' and 'describedObject' in converted:
            converted['target'] = converted.pop('describedObject')
        out[field] = converted
    return out


def metric_to_v2(metric):
    kind = metric.get('type')
    out = {'type': kind}
    if kind == 'Resource':
        source = metric.get('resource') or {}
        out['resource'] = {'name': source.get('name'), 'target': _v2_target(source)}
    elif kind == 'ContainerResource':
        source = metric.get('containerResource') or {}
        out['containerResource'] = {'name': source.get('name'), 'container': source.get('container'),
                                    'target': _v2_target(source)}
    elif kind in ('Pods', 'Object', 'External'):
        field = {'Pods': 'pods', 'Object': 'object', 'External': 'external'}[kind]
        source = metric.get(field) or {}
        metric_id = {'name': source.get('metricName')}
        selector = source.get('metricSelector' if kind == 'External' else 'selector')
        if selector is not None:
            metric_id['selector'] = selector
        converted = {'metric': metric_id, 'target': _v2_target(source)}
        if kind == 'Object' and source.get('target') is not None:
            converted['describedObject'] = source['target']
        out[field] = converted
    return out


def current_to_v1(metric):
    kind = metric.get('type')
    out = {'type': kind}
    if kind == 'Resource':
        source = metric.get('resource') or {}
        current = source.get('current') or {}
        converted = {'name': source.get('name'), 'currentAverageValue': current.get('averageValue', '0')}
        if current.get('averageUtilization') is not None:
            converted['currentAverageUtilization'] = current['averageUtilization']
        out['resource'] = converted
    return out


def current_to_v2(metric):
    kind = metric.get('type')
    out = {'type': kind}
    if kind == 'Resource':
        source = metric.get('resource') or {}
        current = {'averageValue': source.get('currentAverageValue', '0')}
        if source.get('currentAverageUtilization') is not None:
            current['averageUtilization'] = source['currentAverageUtilization']
        out['resource'] = {'name': source.get('name'), 'current': current}
    return out


# ---- whole objects ------------------------------------------------------------------------------
def to_v1(obj):
    """A stored (v2) HorizontalPodAutoscaler as autoscaling/v1 shows it."""
    obj = copy.deepcopy(obj)
    spec, status = obj.get('spec') or {}, obj.get('status') or {}
    annotations = dict(obj['metadata'].get('annotations') or {})
    out_spec = {k: spec[k] for k in ('scaleTargetRef', 'minReplicas', 'maxReplicas') if k in spec}
    others = []
    for metric in spec.get('metrics') or []:
        if _is_cpu_utilization(metric) and 'targetCPUUtilizationPercentage' not in out_spec:
            out_spec['targetCPUUtilizationPercentage'] = metric['resource']['target']['averageUtilization']
        else:
            others.append(metric_to_v1(metric))
    if others:
        annotations[METRICS] = json.dumps(others, separators=(',', ':'))
    if spec.get('behavior') is not None:
        annotations[BEHAVIOR] = json.dumps(spec['behavior'], separators=(',', ':'))
    out_status = {k: status[k] for k in ('observedGeneration', 'lastScaleTime', 'currentReplicas',
                                         'desiredReplicas') if k in status}
    current_others = []
    for metric in status.get('currentMetrics') or []:
        resource = metric.get('resource') or {}
        if metric.get('type') == 'Resource' and resource.get('name') == 'cpu':
            utilization = (resource.get('current') or {}).get('averageUtilization')
            if utilization is not None:
                out_status['currentCPUUtilizationPercentage'] = utilization
            continue
        current_others.append(current_to_v1(metric))
    if current_others:
        annotations[CURRENT_METRICS] = json.dumps(current_others, separators=(',', ':'))
    if status.get('conditions'):
        annotations[CONDITIONS] = json.dumps(status['conditions'], separators=(',', ':'))
    if annotations:
        obj['metadata']['annotations'] = annotations
    obj['apiVersion'] = 'autoscaling/v1'
    obj['spec'] = out_spec
    obj['status'] = out_status
    return obj


def _annotation(annotations, key):
    text = annotations.pop(key, None)
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def to_v2(obj):
    """An autoscaling/v1 HorizontalPodAutoscaler as it is stored (v2)."""
    obj = copy.deepcopy(obj)
    meta = obj.setdefault('metadata', {})
    annotations = dict(meta.get('annotations') or {})
    spec, status = obj.get('spec') or {}, obj.get('status') or {}
    out_spec = {k: spec[k] for k in ('scaleTargetRef', 'minReplicas', 'maxReplicas') if k in spec}
    metrics = []
    if spec.get('targetCPUUtilizationPercentage') is not None:
        metrics.append({'type': 'Resource', 'resource': {'name': 'cpu', 'target': {
            'type': 'Utilization', 'averageUtilization': spec['targetCPUUtilizationPercentage']}}})
    metrics += [metric_to_v2(m) for m in _annotation(annotations, METRICS) or []]
    if metrics:
        out_spec['metrics'] = metrics
    behavior = _annotation(annotations, BEHAVIOR)
    if behavior is not None:
        out_spec['behavior'] = behavior
    out_status = {k: status[k] for k in ('observedGeneration', 'lastScaleTime', 'currentReplicas',
                                         'desiredReplicas') if k in status}
    current = []
    if status.get('currentCPUUtilizationPercentage') is not None:
        current.append({'type': 'Resource', 'resource': {'name': 'cpu', 'current': {
            'averageUtilization': status['currentCPUUtilizationPercentage']}}})
    current += [current_to_v2(m) for m in _annotation(annotations, CURRENT_METRICS) or []]
    if current:
        out_status['currentMetrics'] = current
    conditions = _annotation(annotations, CONDITIONS)
    if conditions:
        out_status['conditions'] = conditions
    if annotations:
        meta['annotations'] = annotations
    else:
        meta.pop('annotations', None)
    obj['apiVersion'] = 'autoscaling/v2'
    obj['spec'] = out_spec
    obj['status'] = out_status
    return obj


# ---- defaulting and validation (v2, the stored form) -----------------------------------------------
def _default_rules(rules, up):
    """GenerateHPAScaleUpRules / GenerateHPAScaleDownRules: the missing parts of a rule set."""
    rules = dict(rules or {})
    if up:
        rules.setdefault('stabilizationWindowSeconds', 0)
        rules.setdefault('selectPolicy', 'Max')
        rules.setdefault('policies', [{'type': 'Pods', 'value': 4, 'periodSeconds': 15},
                                      {'type': 'Percent', 'value': 100, 'periodSeconds': 15}])
    else:
        rules.setdefault('selectPolicy', 'Max')
        rules.setdefault('policies', [{'type': 'Percent', 'value': 100, 'periodSeconds': 15}])
    return rules


def default(obj, old=None):
    """SetDefaults_HorizontalPodAutoscaler (autoscaling/v2): minReplicas 1, an 80% CPU
    utilization target when there are no metrics, a given behavior completed."""
    spec = obj.setdefault('spec', {})
    if spec.get('minReplicas') is None:
        spec['minReplicas'] = 1
    if not spec.get('metrics'):
        spec['metrics'] = [{'type': 'Resource', 'resource': {'name': 'cpu', 'target': {
            'type': 'Utilization', 'averageUtilization': DEFAULT_CPU_UTILIZATION}}}]
    behavior = spec.get('behavior')
    if isinstance(behavior, dict):
        behavior['scaleUp'] = _default_rules(behavior.get('scaleUp'), up=True)
        behavior['scaleDown'] = _default_rules(behavior.get('scaleDown'), up=False)


def validate(obj, old, errs: Errors):
    """The checks of ValidateHorizontalPodAutoscalerSpec that matter here."""
    spec = obj.get('spec') or {}
    ref = spec.get('scaleTargetRef') or {}
    if not ref.get('kind'):
        errs.required('spec.scaleTargetRef.kind')
    if not ref.get('name'):
        errs.required('spec.scaleTargetRef.name')
    minimum = spec.get('minReplicas')
    if isinstance(minimum, int) and minimum < 1:
        errs.invalid('spec.minReplicas', minimum, 'must be greater than or equal to 1')
    maximum = spec.get('maxReplicas', 0)
    if isinstance(maximum, int) and maximum < 1:
        errs.invalid('spec.maxReplicas', maximum, 'must be greater than 0')
    if isinstance(minimum, int) and isinstance(maximum, int) and minimum > maximum > 0:
        errs.invalid('spec.maxReplicas', maximum, 'must be greater than or equal to `minReplicas`')
    for i, metric in enumerate(spec.get('metrics') or []):
        kind = metric.get('type')
        if kind not in ('Object', 'Pods', 'Resource', 'ContainerResource', 'External'):
            errs.unsupported(f'spec.metrics[{i}].type', kind,
                             ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'])
            continue
        if kind == 'Resource':
            target = ((metric.get('resource') or {}).get('target')) or {}
            utilization = target.get('averageUtilization')
            if target.get('type') == 'Utilization' and isinstance(utilization, int) and utilization < 1:
                errs.invalid(f'spec.metrics[{i}].resource.target.averageUtilization', utilization,
                             'must be greater than 0')

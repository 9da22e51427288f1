"""The HorizontalPodAutoscaler controller (pkg/controller/podautoscaler/horizontal.go and
replica_calculator.go), on resource metrics the tests control.

kubesim serves no metrics API: a pod's usage of a resource is what its annotation
`kubesim/usage-<resource>` says (`kubesim/usage-cpu: 250m`, `kubesim/usage-memory: 64Mi`); a pod
without it has no metrics, as on a cluster whose metrics server has not scraped it. Every sync
period (15 s on the controller clock) each HPA reads its target's scale (a Deployment,
ReplicaSet, StatefulSet or ReplicationController), computes a replica count per metric and takes
the largest:

- `Resource` metrics with a `Utilization` target: the usage summed over the ready pods with
  metrics, as a percentage of their requests (a container without a request for the resource is
  `missing request for cpu in container app of Pod web-x`); `AverageValue`: the mean usage. Within
  the tolerance (0.1) of the target the count stays; else `ceil(ratio * pods)`.
- other metric types have no source here: ScalingActive False (`FailedGetPodsMetric`, ...).

The count is bounded by minReplicas/maxReplicas (ScalingLimited), by the scale-up policies (by
default at most max(4 pods, 100%) more per 15 s) and, going down, by the highest recommendation of
the stabilization window (300 s by default). A change is written to the target's spec.replicas with
a `SuccessfulRescale` event; the status carries currentReplicas, desiredReplicas, currentMetrics,
lastScaleTime and the conditions AbleToScale, ScalingActive and ScalingLimited.
"""

import math

from ..apiserver.recorders import CONTROLLER_MANAGER, recorder
from ..machinery.clock import now_rfc3339
from ..machinery.errors import ApiError
from ..machinery.quantity import format_quantity, parse_quantity
from ..machinery.selectors import matches_labels, selector_from_label_selector_object
from .common import is_deleting, is_pod_ready, name_of, ns_of, pod_phase, uid_of
from .events import NORMAL, WARNING

SYNC_PERIOD = 15
TOLERANCE = 0.1
DOWNSCALE_STABILIZATION = 300
USAGE_ANNOTATION = 'kubesim/usage-'
COMPONENT = 'horizontal-pod-autoscaler'
TARGETS = {('apps', 'Deployment'): 'apps/deployments', ('apps', 'ReplicaSet'): 'apps/replicasets',
           ('apps', 'StatefulSet'): 'apps/statefulsets',
           ('', 'ReplicationController'): '/replicationcontrollers'}


class MetricError(Exception):
    def __init__(self, reason, message):
        super().__init__(message)
        self.reason = reason
        self.message = message


def _group(api_version):
    return api_version.rpartition('/')[0] if '/' in (api_version or '') else ''


class HorizontalPodAutoscalerController:
    resource = 'autoscaling/horizontalpodautoscalers'

    def __init__(self, mgr):
        self.mgr = mgr
        self.store = mgr.store
        self._due = {}  # uid -> (monotonic time of the next sync, generation synced)
        self._recommendations = {}  # uid -> [(monotonic time, replicas)]

    def sync_all(self):
        seen = set()
        for hpa in self.mgr.index.list(self.resource):
            seen.add(uid_of(hpa))
            if is_deleting(hpa):
                continue
            due, generation = self._due.get(uid_of(hpa), (None, None))
            now = self.mgr.clock()
            if due is not None and now < due and generation == hpa['metadata'].get('generation'):
                self.mgr.wake_at(due)
                continue
            due = now + SYNC_PERIOD / self.mgr.time_scale
            self._due[uid_of(hpa)] = (due, hpa['metadata'].get('generation'))
            self.mgr.wake_at(self._due[uid_of(hpa)][0])
            self.mgr.guard('HorizontalPodAutoscaler', hpa, self.sync, hpa)
        for states in (self._due, self._recommendations):
            for uid in list(states):
                if uid not in seen:
                    del states[uid]

    # ---- one HPA ---------------------------------------------------------------------------------
    def sync(self, hpa):
        spec = hpa.get('spec') or {}
        ref = spec.get('scaleTargetRef') or {}
        key = TARGETS.get((_group(ref.get('apiVersion', '')), ref.get('kind')))
        target = self.store.get(key, ns_of(hpa), ref.get('name', '')) if key else None
        status = {'observedGeneration': hpa['metadata'].get('generation', 1)}
        old = hpa.get('status') or {}
        for field in ('lastScaleTime', 'currentMetrics'):
            if old.get(field) is not None:
                status[field] = old[field]
        conditions = list(old.get('conditions') or [])
        if target is None:
            group, _, plural = (key or '').partition('/')
            what = (f'{plural}.{group}' if group else plural) if key else ref.get('kind', '')
            message = (f'the HPA controller was unable to get the target\'s current scale: {what} '
                       f'"{ref.get("name", "")}" not found')
            _set(conditions, 'AbleToScale', 'False', 'FailedGetScale', message)
            self.mgr.events.record(hpa, WARNING, 'FailedGetScale',
                                   f'{what} "{ref.get("name", "")}" not found', COMPONENT)
            status.update(currentReplicas=0, desiredReplicas=0)
            self._write(hpa, status, conditions)
            return
        current = (target.get('spec') or {}).get('replicas', 1)
        minimum, maximum = spec.get('minReplicas', 1), spec.get('maxReplicas', 1)
        status['currentReplicas'] = current
        if current == 0 and minimum != 0:
            _set(conditions, 'ScalingActive', 'False', 'ScalingDisabled',
                 'scaling is disabled since the replica count of the target is zero')
            status['desiredReplicas'] = 0
            self._write(hpa, status, conditions)
            return
        try:
            proposed, metric_name, metrics = self.compute(hpa, key, target, current)
        except MetricError as err:
            _set(conditions, 'AbleToScale', 'True', 'SucceededGetScale',
                 'the HPA controller was able to get the target\'s current scale')
            _set(conditions, 'ScalingActive', 'False', err.reason,
                 f'the HPA was unable to compute the replica count: {err.message}')
            self.mgr.events.record(hpa, WARNING, err.reason, err.message, COMPONENT)
            status['desiredReplicas'] = current
            status.pop('currentMetrics', None)
            self._write(hpa, status, conditions)
            return
        status['currentMetrics'] = metrics
        _set(conditions, 'ScalingActive', 'True', 'ValidMetricFound',
             f'the HPA was able to successfully calculate a replica count from {metric_name}')
        desired, able_reason, able_message = self.normalize(hpa, current, proposed, minimum, maximum,
                                                            conditions)
        if desired != current:
            fresh = self.store.get(key, ns_of(target), name_of(target))
            fresh['spec']['replicas'] = desired
            try:
                self.store.update(key, fresh, manager=recorder(key, CONTROLLER_MANAGER, 'scale'))
            except ApiError as err:
                _set(conditions, 'AbleToScale', 'False', 'FailedUpdateScale',
                     f'the HPA controller was unable to update the target scale: {err.message}')
                self._write(hpa, {**status, 'desiredReplicas': current}, conditions)
                return
            direction = 'above' if desired > current else 'below'
            reason = f'{metric_name} {direction} target' if desired > current else 'All metrics below target'
            self.mgr.events.record(hpa, NORMAL, 'SuccessfulRescale', f'New size: {desired}; reason: {reason}',
                                   COMPONENT)
            status['lastScaleTime'] = now_rfc3339()
            able_reason = 'SucceededRescale'
            able_message = f'the HPA controller was able to update the target scale to {desired}'
        _set(conditions, 'AbleToScale', 'True', able_reason, able_message)
        status['desiredReplicas'] = desired
        self._write(hpa, status, conditions)

    def compute(self, hpa, key, target, current):
        """(replica count proposed, the metric that proposed it, currentMetrics)."""
        given = (target.get('spec') or {}).get('selector') or {}
        if key == '/replicationcontrollers':
            selector = [(k, '=', {v}) for k, v in sorted(given.items())]
        else:
            selector = selector_from_label_selector_object(given)
        pods = [p for p in self.mgr.index.peek('/pods', ns_of(hpa))
                if selector and matches_labels(selector, p['metadata'].get('labels') or {})
                and not is_deleting(p) and pod_phase(p) not in ('Failed', 'Succeeded')]
        best, best_name, statuses = None, '', []
        for metric in (hpa.get('spec') or {}).get('metrics') or []:
            kind = metric.get('type')
            if kind != 'Resource':
                field = {'Pods': 'pods', 'Object': 'object', 'External': 'external',
                         'ContainerResource': 'containerResource'}.get(kind, '')
                name = ((metric.get(field) or {}).get('metric') or {}).get('name') or \
                    (metric.get(field) or {}).get('name', '')
                raise MetricError(f'FailedGet{kind}Metric',
                                  f'unable to get metric {name}: no metrics API serves {kind} metrics here')
            replicas, name, current_metric = self._resource(metric['resource'], pods, current)
            statuses.append(current_metric)
            if best is None or replicas > best:
                best, best_name = replicas, name
        return (best if best is not None else current), best_name, statuses

    def _resource(self, source, pods, current):
        name = source.get('name')
        target = source.get('target') or {}
        usage, requests, counted = 0, 0, 0
        for pod in pods:
            if not is_pod_ready(pod):
                continue
            raw = (pod['metadata'].get('annotations') or {}).get(USAGE_ANNOTATION + name)
            if raw is None:
                continue
            try:
                usage += parse_quantity(raw).value
            except ValueError:
                continue
            counted += 1
            if target.get('type') == 'Utilization':
                for c in (pod.get('spec') or {}).get('containers') or []:
                    request = ((c.get('resources') or {}).get('requests') or {}).get(name)
                    if request is None:
                        raise MetricError('FailedGetResourceMetric',
                                          f'failed to get {name} utilization: missing request for {name} in '
                                          f'container {c.get("name")} of Pod {name_of(pod)}')
                    requests += parse_quantity(request).value
        if counted == 0:
            raise MetricError('FailedGetResourceMetric', f'failed to get {name} utilization: unable to get '
                              f'metrics for resource {name}: no metrics returned from resource metrics API')
        average = usage / counted
        current_value = {'averageValue': format_quantity(average)}
        if target.get('type') == 'Utilization':
            utilization = int(usage * 100 / requests) if requests else 0
            current_value['averageUtilization'] = utilization
            ratio = utilization / target.get('averageUtilization', 80)
            described = f'{name} resource utilization (percentage of request)'
        else:
            wanted = parse_quantity(target.get('averageValue') or target.get('value') or '0').value
            ratio = float(average / wanted) if wanted else 0.0
            described = f'{name} resource'
        if abs(ratio - 1.0) <= TOLERANCE:
            replicas = current
        else:
            replicas = math.ceil(ratio * counted)
        return replicas, described, {'type': 'Resource', 'resource': {'name': name, 'current': current_value}}

    def normalize(self, hpa, current, proposed, minimum, maximum, conditions):
        """The bounds, the scale-up policies and the scale-down stabilization
        (normalizeDesiredReplicasWithBehaviors). Returns (replicas, AbleToScale reason, message)."""
        now = self.mgr.clock()
        behavior = (hpa.get('spec') or {}).get('behavior') or {}
        down = behavior.get('scaleDown') or {}
        window = down.get('stabilizationWindowSeconds')
        window = DOWNSCALE_STABILIZATION if window is None else window
        history = [(t, r) for t, r in self._recommendations.get(uid_of(hpa), [])
                   if now - t <= window / self.mgr.time_scale]
        history.append((now, proposed))
        self._recommendations[uid_of(hpa)] = history
        reason, message = 'ReadyForNewScale', 'recommended size matches current size'
        desired = proposed
        if proposed < current:
            stabilized = max(r for _t, r in history)
            if stabilized > proposed:
                desired = min(stabilized, current)
                reason = 'ScaleDownStabilized'
                message = ('recent recommendations were higher than current one, applying the highest '
                           'recent recommendation')
        if desired > current:
            up = behavior.get('scaleUp') or {}
            policies = up.get('policies') or [{'type': 'Pods', 'value': 4}, {'type': 'Percent', 'value': 100}]
            limits = [current + p.get('value', 0) if p.get('type') == 'Pods'
                      else math.ceil(current * (1 + p.get('value', 0) / 100)) for p in policies]
            limit = min(limits) if up.get('selectPolicy') == 'Min' else max(limits)
            if desired > limit:
                desired = limit
                reason, message = 'ScaleUpLimit', 'the desired replica count is increasing faster than the ' \
                                                  'maximum scale rate'
        if desired > maximum:
            _set(conditions, 'ScalingLimited', 'True', 'TooManyReplicas',
                 'the desired replica count is more than the maximum replica count')
            desired = maximum
        elif desired < minimum:
            _set(conditions, 'ScalingLimited', 'True', 'TooFewReplicas',
                 'the desired replica count is less than the minimum replica count')
            desired = minimum
        else:
            _set(conditions, 'ScalingLimited', 'False', 'DesiredWithinRange',
                 'the desired count is within the acceptable range')
        return desired, reason, message

    def _write(self, hpa, status, conditions):
        order = {'AbleToScale': 0, 'ScalingActive': 1, 'ScalingLimited': 2}
        status['conditions'] = sorted(conditions, key=lambda c: order.get(c.get('type'), 3))
        if status == (hpa.get('status') or {}):
            return
        self.store.update(self.resource, {'metadata': {'name': name_of(hpa), 'namespace': ns_of(hpa)},
                                          'status': status}, subresource='status',
                          manager=recorder(self.resource, CONTROLLER_MANAGER, 'status'))


def _set(conditions, cond_type, status, reason, message):
    """Set a condition in place; its transition time changes only with its status."""
    for i, cond in enumerate(conditions):
        if cond.get('type') == cond_type:
            since = cond.get('lastTransitionTime') if cond.get('status') == status else now_rfc3339()
            conditions[i] = {'type': cond_type, 'status': status, 'lastTransitionTime': since,
                             'reason': reason, 'message': message}
            return
    conditions.append({'type': cond_type, 'status': status, 'lastTransitionTime': now_rfc3339(),
                       'reason': reason, 'message': message})


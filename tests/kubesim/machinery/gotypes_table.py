"""The Go types behind the API kubesim serves: one entry per Go struct, as facts read from the
struct tags of `k8s.io/api` (core/v1, apps/v1, autoscaling/v1 and v2, coordination/v1,
discovery/v1, batch/v1; rbac/v1 and authorization/v1) and `k8s.io/apimachinery` (pkg/apis/meta/v1)
at Kubernetes 1.37.

Each struct, named `<package>.<version>.<Type>`, maps to its fields in Go declaration order:
`(json name, type, protobuf field number, flags)`, with a fifth element when the field has a
strategic merge patch strategy: `strategy[@merge key]` (`merge@name`, `merge,retainKeys@name`).
Types are `string`, `int32`, `int64`, `uint32`, `uint64`, `bool`, `float64`, `bytes` ([]byte),
the special types `Time`, `MicroTime`, `Duration`, `Quantity`, `IntOrString`, `RawExtension`,
`FieldsV1`, another struct's name, or `*T`, `[]T`, `map[T]` (string keys) of those. Flags: `o`
omitempty, `z` omitzero, `i` an embedded struct whose fields are inlined in JSON (the embedded
`meta.v1.TypeMeta` carries no protobuf number: its fields travel in the protobuf envelope). `LIST_TYPES` and
`ATOMIC_STRUCTS` are the server-side apply markers of the same sources (`+listType=map|set`
with its `+listMapKey`s, `+mapType=atomic`, `+structType=atomic`; a list without a marker is
atomic). Read by gotypes.py, protobuf.py, apiserver/openapi_v2.py and apiserver/fieldmanager.py.
"""

TYPES = {
    'apps.v1.ControllerRevision': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('data', 'RawExtension', 2, ''), ('revision', 'int64', 3, ''),
    ),
    'apps.v1.ControllerRevisionList': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('items', '[]apps.v1.ControllerRevision', 2, ''),
    ),
    'apps.v1.DaemonSet': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('spec', 'apps.v1.DaemonSetSpec', 2, 'o'), ('status', 'apps.v1.DaemonSetStatus', 3, 'o'),
    ),
    'apps.v1.DaemonSetCondition': (
        ('type', 'string', 1, ''), ('status', 'string', 2, ''), ('lastTransitionTime', 'Time', 3, 'o'),
        ('reason', 'string', 4, 'o'), ('message', 'string', 5, 'o'),
    ),
    'apps.v1.DaemonSetList': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('items', '[]apps.v1.DaemonSet', 2, ''),
    ),
    'apps.v1.DaemonSetSpec': (
        ('selector', '*meta.v1.LabelSelector', 1, ''), ('template', 'core.v1.PodTemplateSpec', 2, ''),
        ('updateStrategy', 'apps.v1.DaemonSetUpdateStrategy', 3, 'o'), ('minReadySeconds', 'int32', 4, 'o'),
        ('revisionHistoryLimit', '*int32', 6, 'o'),
    ),
    'apps.v1.DaemonSetStatus': (
        ('currentNumberScheduled', 'int32', 1, ''), ('numberMisscheduled', 'int32', 2, ''),
        ('desiredNumberScheduled', 'int32', 3, ''), ('numberReady', 'int32', 4, ''),
        ('observedGeneration', 'int64', 5, 'o'), ('updatedNumberScheduled', 'int32', 6, 'o'),
        ('numberAvailable', 'int32', 7, 'o'), ('numberUnavailable', 'int32', 8, 'o'),
        ('collisionCount', '*int32', 9, 'o'),
        ('conditions', '[]apps.v1.DaemonSetCondition', 10, 'o', 'merge@type'),
    ),
    'apps.v1.DaemonSetUpdateStrategy': (
        ('type', 'string', 1, 'o'), ('rollingUpdate', '*apps.v1.RollingUpdateDaemonSet', 2, 'o'),
    ),
    'apps.v1.Deployment': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('spec', 'apps.v1.DeploymentSpec', 2, 'o'), ('status', 'apps.v1.DeploymentStatus', 3, 'o'),
    ),
    'apps.v1.DeploymentCondition': (
        ('type', 'string', 1, ''), ('status', 'string', 2, ''), ('lastUpdateTime', 'Time', 6, 'o'),
        ('lastTransitionTime', 'Time', 7, 'o'), ('reason', 'string', 4, 'o'), ('message', 'string', 5, 'o'),
    ),
    'apps.v1.DeploymentList': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('items', '[]apps.v1.Deployment', 2, ''),
    ),
    'apps.v1.DeploymentSpec': (
        ('replicas', '*int32', 1, 'o'), ('selector', '*meta.v1.LabelSelector', 2, ''),
        ('template', 'core.v1.PodTemplateSpec', 3, ''),
        ('strategy', 'apps.v1.DeploymentStrategy', 4, 'o', 'retainKeys'),
        ('minReadySeconds', 'int32', 5, 'o'), ('revisionHistoryLimit', '*int32', 6, 'o'),
        ('paused', 'bool', 7, 'o'), ('progressDeadlineSeconds', '*int32', 9, 'o'),
    ),
    'apps.v1.DeploymentStatus': (
        ('observedGeneration', 'int64', 1, 'o'), ('replicas', 'int32', 2, 'o'),
        ('updatedReplicas', 'int32', 3, 'o'), ('readyReplicas', 'int32', 7, 'o'),
        ('availableReplicas', 'int32', 4, 'o'), ('unavailableReplicas', 'int32', 5, 'o'),
        ('terminatingReplicas', '*int32', 9, 'o'),
        ('conditions', '[]apps.v1.DeploymentCondition', 6, 'o', 'merge@type'),
        ('collisionCount', '*int32', 8, 'o'),
    ),
    'apps.v1.DeploymentStrategy': (
        ('type', 'string', 1, 'o'), ('rollingUpdate', '*apps.v1.RollingUpdateDeployment', 2, 'o'),
    ),
    'apps.v1.ReplicaSet': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('spec', 'apps.v1.ReplicaSetSpec', 2, 'o'), ('status', 'apps.v1.ReplicaSetStatus', 3, 'o'),
    ),
    'apps.v1.ReplicaSetCondition': (
        ('type', 'string', 1, ''), ('status', 'string', 2, ''), ('lastTransitionTime', 'Time', 3, 'o'),
        ('reason', 'string', 4, 'o'), ('message', 'string', 5, 'o'),
    ),
    'apps.v1.ReplicaSetList': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('items', '[]apps.v1.ReplicaSet', 2, ''),
    ),
    'apps.v1.ReplicaSetSpec': (
        ('replicas', '*int32', 1, 'o'), ('minReadySeconds', 'int32', 4, 'o'),
        ('selector', '*meta.v1.LabelSelector', 2, ''), ('template', 'core.v1.PodTemplateSpec', 3, 'o'),
    ),
    'apps.v1.ReplicaSetStatus': (
        ('replicas', 'int32', 1, ''), ('fullyLabeledReplicas', 'int32', 2, 'o'),
        ('readyReplicas', 'int32', 4, 'o'), ('availableReplicas', 'int32', 5, 'o'),
        ('terminatingReplicas', '*int32', 7, 'o'), ('observedGeneration', 'int64', 3, 'o'),
        ('conditions', '[]apps.v1.ReplicaSetCondition', 6, 'o', 'merge@type'),
    ),
    'apps.v1.RollingUpdateDaemonSet': (
        ('maxUnavailable', '*IntOrString', 1, 'o'), ('maxSurge', '*IntOrString', 2, 'o'),
    ),
    'apps.v1.RollingUpdateDeployment': (
        ('maxUnavailable', '*IntOrString', 1, 'o'), ('maxSurge', '*IntOrString', 2, 'o'),
    ),
    'apps.v1.RollingUpdateStatefulSetStrategy': (
        ('partition', '*int32', 1, 'o'), ('maxUnavailable', '*IntOrString', 2, 'o'),
    ),
    'apps.v1.StatefulSet': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('spec', 'apps.v1.StatefulSetSpec', 2, 'o'), ('status', 'apps.v1.StatefulSetStatus', 3, 'o'),
    ),
    'apps.v1.StatefulSetCondition': (
        ('type', 'string', 1, ''), ('status', 'string', 2, ''), ('lastTransitionTime', 'Time', 3, 'o'),
        ('reason', 'string', 4, 'o'), ('message', 'string', 5, 'o'),
    ),
    'apps.v1.StatefulSetList': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('items', '[]apps.v1.StatefulSet', 2, ''),
    ),
    'apps.v1.StatefulSetOrdinals': (
        ('start', 'int32', 1, ''),
    ),
    'apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy': (
        ('whenDeleted', 'string', 1, 'o'), ('whenScaled', 'string', 2, 'o'),
    ),
    'apps.v1.StatefulSetSpec': (
        ('replicas', '*int32', 1, 'o'), ('selector', '*meta.v1.LabelSelector', 2, ''),
        ('template', 'core.v1.PodTemplateSpec', 3, ''),
        ('volumeClaimTemplates', '[]core.v1.PersistentVolumeClaim', 4, 'o'),
        ('serviceName', 'string', 5, ''), ('podManagementPolicy', 'string', 6, 'o'),
        ('updateStrategy', 'apps.v1.StatefulSetUpdateStrategy', 7, 'o'),
        ('revisionHistoryLimit', '*int32', 8, 'o'), ('minReadySeconds', 'int32', 9, 'o'),
        ('persistentVolumeClaimRetentionPolicy', '*apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy',
         10, 'o'), ('ordinals', '*apps.v1.StatefulSetOrdinals', 11, 'o'),
    ),
    'apps.v1.StatefulSetStatus': (
        ('observedGeneration', 'int64', 1, 'o'), ('replicas', 'int32', 2, ''),
        ('readyReplicas', 'int32', 3, 'o'), ('currentReplicas', 'int32', 4, 'o'),
        ('updatedReplicas', 'int32', 5, 'o'), ('currentRevision', 'string', 6, 'o'),
        ('updateRevision', 'string', 7, 'o'), ('collisionCount', '*int32', 9, 'o'),
        ('conditions', '[]apps.v1.StatefulSetCondition', 10, 'o', 'merge@type'),
        ('availableReplicas', 'int32', 11, ''),
    ),
    'apps.v1.StatefulSetUpdateStrategy': (
        ('type', 'string', 1, 'o'), ('rollingUpdate', '*apps.v1.RollingUpdateStatefulSetStrategy', 2, 'o'),
    ),
    'authorization.v1.FieldSelectorAttributes': (
        ('rawSelector', 'string', 1, 'o'), ('requirements', '[]meta.v1.FieldSelectorRequirement', 2, 'o'),
    ),
    'authorization.v1.LabelSelectorAttributes': (
        ('rawSelector', 'string', 1, 'o'), ('requirements', '[]meta.v1.LabelSelectorRequirement', 2, 'o'),
    ),
    'authorization.v1.LocalSubjectAccessReview': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('spec', 'authorization.v1.SubjectAccessReviewSpec', 2, ''),
        ('status', 'authorization.v1.SubjectAccessReviewStatus', 3, 'o'),
    ),
    'authorization.v1.NonResourceAttributes': (
        ('path', 'string', 1, 'o'), ('verb', 'string', 2, 'o'),
    ),
    'authorization.v1.NonResourceRule': (
        ('verbs', '[]string', 1, ''), ('nonResourceURLs', '[]string', 2, 'o'),
    ),
    'authorization.v1.ResourceAttributes': (
        ('namespace', 'string', 1, 'o'), ('verb', 'string', 2, 'o'), ('group', 'string', 3, 'o'),
        ('version', 'string', 4, 'o'), ('resource', 'string', 5, 'o'), ('subresource', 'string', 6, 'o'),
        ('name', 'string', 7, 'o'), ('fieldSelector', '*authorization.v1.FieldSelectorAttributes', 8, 'o'),
        ('labelSelector', '*authorization.v1.LabelSelectorAttributes', 9, 'o'),
    ),
    'authorization.v1.ResourceRule': (
        ('verbs', '[]string', 1, ''), ('apiGroups', '[]string', 2, 'o'), ('resources', '[]string', 3, 'o'),
        ('resourceNames', '[]string', 4, 'o'),
    ),
    'authorization.v1.SelfSubjectAccessReview': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('spec', 'authorization.v1.SelfSubjectAccessReviewSpec', 2, ''),
        ('status', 'authorization.v1.SubjectAccessReviewStatus', 3, 'o'),
    ),
    'authorization.v1.SelfSubjectAccessReviewSpec': (
        ('resourceAttributes', '*authorization.v1.ResourceAttributes', 1, 'o'),
        ('nonResourceAttributes', '*authorization.v1.NonResourceAttributes', 2, 'o'),
    ),
    'authorization.v1.SelfSubjectRulesReview': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('spec', 'authorization.v1.SelfSubjectRulesReviewSpec', 2, ''),
        ('status', 'authorization.v1.SubjectRulesReviewStatus', 3, 'o'),
    ),
    'authorization.v1.SelfSubjectRulesReviewSpec': (
        ('namespace', 'string', 1, 'o'),
    ),
    'authorization.v1.SubjectAccessReview': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('spec', 'authorization.v1.SubjectAccessReviewSpec', 2, ''),
        ('status', 'authorization.v1.SubjectAccessReviewStatus', 3, 'o'),
    ),
    'authorization.v1.SubjectAccessReviewSpec': (
        ('resourceAttributes', '*authorization.v1.ResourceAttributes', 1, 'o'),
        ('nonResourceAttributes', '*authorization.v1.NonResourceAttributes', 2, 'o'),
        ('user', 'string', 3, 'o'), ('groups', '[]string', 4, 'o'), ('extra', 'map[[]string]', 5, 'o'),
        ('uid', 'string', 6, 'o'),
    ),
    'authorization.v1.SubjectAccessReviewStatus': (
        ('allowed', 'bool', 1, ''), ('denied', 'bool', 4, 'o'), ('reason', 'string', 2, 'o'),
        ('evaluationError', 'string', 3, 'o'),
    ),
    'authorization.v1.SubjectRulesReviewStatus': (
        ('resourceRules', '[]authorization.v1.ResourceRule', 1, ''),
        ('nonResourceRules', '[]authorization.v1.NonResourceRule', 2, ''), ('incomplete', 'bool', 3, ''),
        ('evaluationError', 'string', 4, 'o'),
    ),
    'autoscaling.v1.CrossVersionObjectReference': (
        ('kind', 'string', 1, ''), ('name', 'string', 2, ''), ('apiVersion', 'string', 3, 'o'),
    ),
    'autoscaling.v1.HorizontalPodAutoscaler': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('spec', 'autoscaling.v1.HorizontalPodAutoscalerSpec', 2, 'o'),
        ('status', 'autoscaling.v1.HorizontalPodAutoscalerStatus', 3, 'o'),
    ),
    'autoscaling.v1.HorizontalPodAutoscalerList': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('items', '[]autoscaling.v1.HorizontalPodAutoscaler', 2, ''),
    ),
    'autoscaling.v1.HorizontalPodAutoscalerSpec': (
        ('scaleTargetRef', 'autoscaling.v1.CrossVersionObjectReference', 1, ''),
        ('minReplicas', '*int32', 2, 'o'), ('maxReplicas', 'int32', 3, ''),
        ('targetCPUUtilizationPercentage', '*int32', 4, 'o'),
    ),
    'autoscaling.v1.HorizontalPodAutoscalerStatus': (
        ('observedGeneration', '*int64', 1, 'o'), ('lastScaleTime', '*Time', 2, 'o'),
        ('currentReplicas', 'int32', 3, ''), ('desiredReplicas', 'int32', 4, ''),
        ('currentCPUUtilizationPercentage', '*int32', 5, 'o'),
    ),
    'autoscaling.v1.Scale': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('spec', 'autoscaling.v1.ScaleSpec', 2, 'o'), ('status', 'autoscaling.v1.ScaleStatus', 3, 'o'),
    ),
    'autoscaling.v1.ScaleSpec': (
        ('replicas', 'int32', 1, 'o'),
    ),
    'autoscaling.v1.ScaleStatus': (
        ('replicas', 'int32', 1, ''), ('selector', 'string', 2, 'o'),
    ),
    'autoscaling.v2.ContainerResourceMetricSource': (
        ('name', 'string', 1, ''), ('target', 'autoscaling.v2.MetricTarget', 2, ''),
        ('container', 'string', 3, ''),
    ),
    'autoscaling.v2.ContainerResourceMetricStatus': (
        ('name', 'string', 1, ''), ('current', 'autoscaling.v2.MetricValueStatus', 2, ''),
        ('container', 'string', 3, ''),
    ),
    'autoscaling.v2.CrossVersionObjectReference': (
        ('kind', 'string', 1, ''), ('name', 'string', 2, ''), ('apiVersion', 'string', 3, 'o'),
    ),
    'autoscaling.v2.ExternalMetricSource': (
        ('metric', 'autoscaling.v2.MetricIdentifier', 1, ''),
        ('target', 'autoscaling.v2.MetricTarget', 2, ''),
    ),
    'autoscaling.v2.ExternalMetricStatus': (
        ('metric', 'autoscaling.v2.MetricIdentifier', 1, ''),
        ('current', 'autoscaling.v2.MetricValueStatus', 2, ''),
    ),
    'autoscaling.v2.HPAScalingPolicy': (
        ('type', 'string', 1, ''), ('value', 'int32', 2, ''), ('periodSeconds', 'int32', 3, ''),
    ),
    'autoscaling.v2.HPAScalingRules': (
        ('stabilizationWindowSeconds', '*int32', 3, 'o'), ('selectPolicy', '*string', 1, 'o'),
        ('policies', '[]autoscaling.v2.HPAScalingPolicy', 2, 'o'), ('tolerance', '*Quantity', 4, 'o'),
    ),
    'autoscaling.v2.HorizontalPodAutoscaler': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('spec', 'autoscaling.v2.HorizontalPodAutoscalerSpec', 2, 'o'),
        ('status', 'autoscaling.v2.HorizontalPodAutoscalerStatus', 3, 'o'),
    ),
    'autoscaling.v2.HorizontalPodAutoscalerBehavior': (
        ('scaleUp', '*autoscaling.v2.HPAScalingRules', 1, 'o'),
        ('scaleDown', '*autoscaling.v2.HPAScalingRules', 2, 'o'),
    ),
    'autoscaling.v2.HorizontalPodAutoscalerCondition': (
        ('type', 'string', 1, ''), ('status', 'string', 2, ''), ('lastTransitionTime', 'Time', 3, 'o'),
        ('reason', 'string', 4, 'o'), ('message', 'string', 5, 'o'),
        ('observedGeneration', '*int64', 6, 'o'),
    ),
    'autoscaling.v2.HorizontalPodAutoscalerList': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('items', '[]autoscaling.v2.HorizontalPodAutoscaler', 2, ''),
    ),
    'autoscaling.v2.HorizontalPodAutoscalerSpec': (
        ('scaleTargetRef', 'autoscaling.v2.CrossVersionObjectReference', 1, ''),
        ('minReplicas', '*int32', 2, 'o'), ('maxReplicas', 'int32', 3, ''),
        ('metrics', '[]autoscaling.v2.MetricSpec', 4, 'o'),
        ('behavior', '*autoscaling.v2.HorizontalPodAutoscalerBehavior', 5, 'o'),
    ),
    'autoscaling.v2.HorizontalPodAutoscalerStatus': (
        ('observedGeneration', '*int64', 1, 'o'), ('lastScaleTime', '*Time', 2, 'o'),
        ('currentReplicas', 'int32', 3, 'o'), ('desiredReplicas', 'int32', 4, ''),
        ('currentMetrics', '[]autoscaling.v2.MetricStatus', 5, ''),
        ('conditions', '[]autoscaling.v2.HorizontalPodAutoscalerCondition', 6, 'o', 'merge@type'),
    ),
    'autoscaling.v2.MetricIdentifier': (
        ('name', 'string', 1, ''), ('selector', '*meta.v1.LabelSelector', 2, 'o'),
    ),
    'autoscaling.v2.MetricSpec': (
        ('type', 'string', 1, ''), ('object', '*autoscaling.v2.ObjectMetricSource', 2, 'o'),
        ('pods', '*autoscaling.v2.PodsMetricSource', 3, 'o'),
        ('resource', '*autoscaling.v2.ResourceMetricSource', 4, 'o'),
        ('containerResource', '*autoscaling.v2.ContainerResourceMetricSource', 7, 'o'),
        ('external', '*autoscaling.v2.ExternalMetricSource', 5, 'o'),
    ),
    'autoscaling.v2.MetricStatus': (
        ('type', 'string', 1, ''), ('object', '*autoscaling.v2.ObjectMetricStatus', 2, 'o'),
        ('pods', '*autoscaling.v2.PodsMetricStatus', 3, 'o'),
        ('resource', '*autoscaling.v2.ResourceMetricStatus', 4, 'o'),
        ('containerResource', '*autoscaling.v2.ContainerResourceMetricStatus', 7, 'o'),
        ('external', '*autoscaling.v2.ExternalMetricStatus', 5, 'o'),
    ),
    'autoscaling.v2.MetricTarget': (
        ('type', 'string', 1, ''), ('value', '*Quantity', 2, 'o'), ('averageValue', '*Quantity', 3, 'o'),
        ('averageUtilization', '*int32', 4, 'o'),
    ),
    'autoscaling.v2.MetricValueStatus': (
        ('value', '*Quantity', 1, 'o'), ('averageValue', '*Quantity', 2, 'o'),
        ('averageUtilization', '*int32', 3, 'o'),
    ),
    'autoscaling.v2.ObjectMetricSource': (
        ('describedObject', 'autoscaling.v2.CrossVersionObjectReference', 1, ''),
        ('target', 'autoscaling.v2.MetricTarget', 2, ''),
        ('metric', 'autoscaling.v2.MetricIdentifier', 3, ''),
    ),
    'autoscaling.v2.ObjectMetricStatus': (
        ('metric', 'autoscaling.v2.MetricIdentifier', 1, ''),
        ('current', 'autoscaling.v2.MetricValueStatus', 2, ''),
        ('describedObject', 'autoscaling.v2.CrossVersionObjectReference', 3, ''),
    ),
    'autoscaling.v2.PodsMetricSource': (
        ('metric', 'autoscaling.v2.MetricIdentifier', 1, ''),
        ('target', 'autoscaling.v2.MetricTarget', 2, ''),
    ),
    'autoscaling.v2.PodsMetricStatus': (
        ('metric', 'autoscaling.v2.MetricIdentifier', 1, ''),
        ('current', 'autoscaling.v2.MetricValueStatus', 2, ''),
    ),
    'autoscaling.v2.ResourceMetricSource': (
        ('name', 'string', 1, ''), ('target', 'autoscaling.v2.MetricTarget', 2, ''),
    ),
    'autoscaling.v2.ResourceMetricStatus': (
        ('name', 'string', 1, ''), ('current', 'autoscaling.v2.MetricValueStatus', 2, ''),
    ),
    'coordination.v1.Lease': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('spec', 'coordination.v1.LeaseSpec', 2, 'o'),
    ),
    'coordination.v1.LeaseList': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('items', '[]coordination.v1.Lease', 2, ''),
    ),
    'coordination.v1.LeaseSpec': (
        ('holderIdentity', '*string', 1, 'o'), ('leaseDurationSeconds', '*int32', 2, 'o'),
        ('acquireTime', '*MicroTime', 3, 'o'), ('renewTime', '*MicroTime', 4, 'o'),
        ('leaseTransitions', '*int32', 5, 'o'), ('strategy', '*string', 6, 'o'),
        ('preferredHolder', '*string', 7, 'o'),
    ),
    'core.v1.AWSElasticBlockStoreVolumeSource': (
        ('volumeID', 'string', 1, ''), ('fsType', 'string', 2, 'o'), ('partition', 'int32', 3, 'o'),
        ('readOnly', 'bool', 4, 'o'),
    ),
    'core.v1.Affinity': (
        ('nodeAffinity', '*core.v1.NodeAffinity', 1, 'o'), ('podAffinity', '*core.v1.PodAffinity', 2, 'o'),
        ('podAntiAffinity', '*core.v1.PodAntiAffinity', 3, 'o'),
    ),
    'core.v1.AppArmorProfile': (
        ('type', 'string', 1, ''), ('localhostProfile', '*string', 2, 'o'),
    ),
    'core.v1.AttachedVolume': (
        ('name', 'string', 1, ''), ('devicePath', 'string', 2, ''),
    ),
    'core.v1.AzureDiskVolumeSource': (
        ('diskName', 'string', 1, ''), ('diskURI', 'string', 2, ''), ('cachingMode', '*string', 3, 'o'),
        ('fsType', '*string', 4, 'o'), ('readOnly', '*bool', 5, 'o'), ('kind', '*string', 6, 'o'),
    ),
    'core.v1.AzureFileVolumeSource': (
        ('secretName', 'string', 1, ''), ('shareName', 'string', 2, ''), ('readOnly', 'bool', 3, 'o'),
    ),
    'core.v1.CSIVolumeSource': (
        ('driver', 'string', 1, ''), ('readOnly', '*bool', 2, 'o'), ('fsType', '*string', 3, 'o'),
        ('volumeAttributes', 'map[string]', 4, 'o'),
        ('nodePublishSecretRef', '*core.v1.LocalObjectReference', 5, 'o'),
    ),
    'core.v1.Capabilities': (
        ('add', '[]string', 1, 'o'), ('drop', '[]string', 2, 'o'),
    ),
    'core.v1.CephFSVolumeSource': (
        ('monitors', '[]string', 1, ''), ('path', 'string', 2, 'o'), ('user', 'string', 3, 'o'),
        ('secretFile', 'string', 4, 'o'), ('secretRef', '*core.v1.LocalObjectReference', 5, 'o'),
        ('readOnly', 'bool', 6, 'o'),
    ),
    'core.v1.CinderVolumeSource': (
        ('volumeID', 'string', 1, ''), ('fsType', 'string', 2, 'o'), ('readOnly', 'bool', 3, 'o'),
        ('secretRef', '*core.v1.LocalObjectReference', 4, 'o'),
    ),
    'core.v1.ClientIPConfig': (
        ('timeoutSeconds', '*int32', 1, 'o'),
    ),
    'core.v1.ClusterTrustBundleProjection': (
        ('name', '*string', 1, 'o'), ('signerName', '*string', 2, 'o'),
        ('labelSelector', '*meta.v1.LabelSelector', 3, 'o'), ('optional', '*bool', 5, 'o'),
        ('path', 'string', 4, ''), ('user', '*int64', 6, 'o'),
    ),
    'core.v1.ConfigMap': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('immutable', '*bool', 4, 'o'), ('data', 'map[string]', 2, 'o'),
        ('binaryData', 'map[bytes]', 3, 'o'),
    ),
    'core.v1.ConfigMapEnvSource': (
        ('', 'core.v1.LocalObjectReference', 1, 'i'), ('optional', '*bool', 2, 'o'),
    ),
    'core.v1.ConfigMapKeySelector': (
        ('', 'core.v1.LocalObjectReference', 1, 'i'), ('key', 'string', 2, ''),
        ('optional', '*bool', 3, 'o'),
    ),
    'core.v1.ConfigMapList': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('items', '[]core.v1.ConfigMap', 2, ''),
    ),
    'core.v1.ConfigMapNodeConfigSource': (
        ('namespace', 'string', 1, ''), ('name', 'string', 2, ''), ('uid', 'string', 3, 'o'),
        ('resourceVersion', 'string', 4, 'o'), ('kubeletConfigKey', 'string', 5, ''),
    ),
    'core.v1.ConfigMapProjection': (
        ('', 'core.v1.LocalObjectReference', 1, 'i'), ('items', '[]core.v1.KeyToPath', 2, 'o'),
        ('optional', '*bool', 4, 'o'),
    ),
    'core.v1.ConfigMapVolumeSource': (
        ('', 'core.v1.LocalObjectReference', 1, 'i'), ('items', '[]core.v1.KeyToPath', 2, 'o'),
        ('defaultMode', '*int32', 3, 'o'), ('optional', '*bool', 4, 'o'), ('defaultUser', '*int64', 5, 'o'),
    ),
    'core.v1.Container': (
        ('name', 'string', 1, ''), ('image', 'string', 2, 'o'), ('command', '[]string', 3, 'o'),
        ('args', '[]string', 4, 'o'), ('workingDir', 'string', 5, 'o'),
        ('ports', '[]core.v1.ContainerPort', 6, 'o', 'merge@containerPort'),
        ('envFrom', '[]core.v1.EnvFromSource', 19, 'o'), ('env', '[]core.v1.EnvVar', 7, 'o', 'merge@name'),
        ('resources', 'core.v1.ResourceRequirements', 8, 'o'),
        ('resizePolicy', '[]core.v1.ContainerResizePolicy', 23, 'o'), ('restartPolicy', '*string', 24, 'o'),
        ('restartPolicyRules', '[]core.v1.ContainerRestartRule', 25, 'o'),
        ('volumeMounts', '[]core.v1.VolumeMount', 9, 'o', 'merge@mountPath'),
        ('volumeDevices', '[]core.v1.VolumeDevice', 21, 'o', 'merge@devicePath'),
        ('livenessProbe', '*core.v1.Probe', 10, 'o'), ('readinessProbe', '*core.v1.Probe', 11, 'o'),
        ('startupProbe', '*core.v1.Probe', 22, 'o'), ('lifecycle', '*core.v1.Lifecycle', 12, 'o'),
        ('terminationMessagePath', 'string', 13, 'o'), ('terminationMessagePolicy', 'string', 20, 'o'),
        ('imagePullPolicy', 'string', 14, 'o'), ('securityContext', '*core.v1.SecurityContext', 15, 'o'),
        ('stdin', 'bool', 16, 'o'), ('stdinOnce', 'bool', 17, 'o'), ('tty', 'bool', 18, 'o'),
    ),
    'core.v1.ContainerExtendedResourceRequest': (
        ('containerName', 'string', 1, ''), ('resourceName', 'string', 2, ''),
        ('requestName', 'string', 3, ''),
    ),
    'core.v1.ContainerImage': (
        ('names', '[]string', 1, ''), ('sizeBytes', 'int64', 2, 'o'),
    ),
    'core.v1.ContainerPort': (
        ('name', 'string', 1, 'o'), ('hostPort', 'int32', 2, 'o'), ('containerPort', 'int32', 3, ''),
        ('protocol', 'string', 4, 'o'), ('hostIP', 'string', 5, 'o'),
    ),
    'core.v1.ContainerResizePolicy': (
        ('resourceName', 'string', 1, ''), ('restartPolicy', 'string', 2, ''),
    ),
    'core.v1.ContainerRestartRule': (
        ('action', 'string', 1, 'o'), ('exitCodes', '*core.v1.ContainerRestartRuleOnExitCodes', 2, 'o'),
    ),
    'core.v1.ContainerRestartRuleOnExitCodes': (
        ('operator', 'string', 1, 'o'), ('values', '[]int32', 2, 'o'),
    ),
    'core.v1.ContainerState': (
        ('waiting', '*core.v1.ContainerStateWaiting', 1, 'o'),
        ('running', '*core.v1.ContainerStateRunning', 2, 'o'),
        ('terminated', '*core.v1.ContainerStateTerminated', 3, 'o'),
    ),
    'core.v1.ContainerStateRunning': (
        ('startedAt', 'Time', 1, 'o'),
    ),
    'core.v1.ContainerStateTerminated': (
        ('exitCode', 'int32', 1, ''), ('signal', 'int32', 2, 'o'), ('reason', 'string', 3, 'o'),
        ('message', 'string', 4, 'o'), ('startedAt', 'Time', 5, 'o'), ('finishedAt', 'Time', 6, 'o'),
        ('containerID', 'string', 7, 'o'),
    ),
    'core.v1.ContainerStateWaiting': (
        ('reason', 'string', 1, 'o'), ('message', 'string', 2, 'o'),
    ),
    'core.v1.ContainerStatus': (
        ('name', 'string', 1, ''), ('state', 'core.v1.ContainerState', 2, 'o'),
        ('lastState', 'core.v1.ContainerState', 3, 'o'), ('ready', 'bool', 4, ''),
        ('restartCount', 'int32', 5, ''), ('image', 'string', 6, ''), ('imageID', 'string', 7, ''),
        ('containerID', 'string', 8, 'o'), ('started', '*bool', 9, 'o'),
        ('allocatedResources', 'map[Quantity]', 10, 'o'),
        ('resources', '*core.v1.ResourceRequirements', 11, 'o'),
        ('volumeMounts', '[]core.v1.VolumeMountStatus', 12, 'o', 'merge@mountPath'),
        ('user', '*core.v1.ContainerUser', 13, 'o'),
        ('allocatedResourcesStatus', '[]core.v1.ResourceStatus', 14, 'o', 'merge@name'),
        ('stopSignal', '*string', 15, 'o'),
    ),
    'core.v1.ContainerUser': (
        ('linux', '*core.v1.LinuxContainerUser', 1, 'o'),
    ),
    'core.v1.DaemonEndpoint': (
        ('Port', 'int32', 1, ''),
    ),
    'core.v1.DownwardAPIProjection': (
        ('items', '[]core.v1.DownwardAPIVolumeFile', 1, 'o'),
    ),
    'core.v1.DownwardAPIVolumeFile': (
        ('path', 'string', 1, ''), ('fieldRef', '*core.v1.ObjectFieldSelector', 2, 'o'),
        ('resourceFieldRef', '*core.v1.ResourceFieldSelector', 3, 'o'), ('mode', '*int32', 4, 'o'),
        ('user', '*int64', 5, 'o'),
    ),
    'core.v1.DownwardAPIVolumeSource': (
        ('items', '[]core.v1.DownwardAPIVolumeFile', 1, 'o'), ('defaultMode', '*int32', 2, 'o'),
        ('defaultUser', '*int64', 3, 'o'),
    ),
    'core.v1.EmptyDirVolumeSource': (
        ('medium', 'string', 1, 'o'), ('sizeLimit', '*Quantity', 2, 'o'), ('mode', '*int32', 3, 'o'),
    ),
    'core.v1.EndpointAddress': (
        ('ip', 'string', 1, ''), ('hostname', 'string', 3, 'o'), ('nodeName', '*string', 4, 'o'),
        ('targetRef', '*core.v1.ObjectReference', 2, 'o'),
    ),
    'core.v1.EndpointPort': (
        ('name', 'string', 1, 'o'), ('port', 'int32', 2, ''), ('protocol', 'string', 3, 'o'),
        ('appProtocol', '*string', 4, 'o'),
    ),
    'core.v1.EndpointSubset': (
        ('addresses', '[]core.v1.EndpointAddress', 1, 'o'),
        ('notReadyAddresses', '[]core.v1.EndpointAddress', 2, 'o'),
        ('ports', '[]core.v1.EndpointPort', 3, 'o'),
    ),
    'core.v1.Endpoints': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('subsets', '[]core.v1.EndpointSubset', 2, 'o'),
    ),
    'core.v1.EndpointsList': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('items', '[]core.v1.Endpoints', 2, ''),
    ),
    'core.v1.EnvFromSource': (
        ('prefix', 'string', 1, 'o'), ('configMapRef', '*core.v1.ConfigMapEnvSource', 2, 'o'),
        ('secretRef', '*core.v1.SecretEnvSource', 3, 'o'),
    ),
    'core.v1.EnvVar': (
        ('name', 'string', 1, ''), ('value', 'string', 2, 'o'),
        ('valueFrom', '*core.v1.EnvVarSource', 3, 'o'),
    ),
    'core.v1.EnvVarSource': (
        ('fieldRef', '*core.v1.ObjectFieldSelector', 1, 'o'),
        ('resourceFieldRef', '*core.v1.ResourceFieldSelector', 2, 'o'),
        ('configMapKeyRef', '*core.v1.ConfigMapKeySelector', 3, 'o'),
        ('secretKeyRef', '*core.v1.SecretKeySelector', 4, 'o'),
        ('fileKeyRef', '*core.v1.FileKeySelector', 5, 'o'),
    ),
    'core.v1.EphemeralContainer': (
        ('', 'core.v1.EphemeralContainerCommon', 1, 'i'), ('targetContainerName', 'string', 2, 'o'),
    ),
    'core.v1.EphemeralContainerCommon': (
        ('name', 'string', 1, ''), ('image', 'string', 2, 'o'), ('command', '[]string', 3, 'o'),
        ('args', '[]string', 4, 'o'), ('workingDir', 'string', 5, 'o'),
        ('ports', '[]core.v1.ContainerPort', 6, 'o', 'merge@containerPort'),
        ('envFrom', '[]core.v1.EnvFromSource', 19, 'o'), ('env', '[]core.v1.EnvVar', 7, 'o', 'merge@name'),
        ('resources', 'core.v1.ResourceRequirements', 8, 'o'),
        ('resizePolicy', '[]core.v1.ContainerResizePolicy', 23, 'o'), ('restartPolicy', '*string', 24, 'o'),
        ('restartPolicyRules', '[]core.v1.ContainerRestartRule', 25, 'o'),
        ('volumeMounts', '[]core.v1.VolumeMount', 9, 'o', 'merge@mountPath'),
        ('volumeDevices', '[]core.v1.VolumeDevice', 21, 'o', 'merge@devicePath'),
        ('livenessProbe', '*core.v1.Probe', 10, 'o'), ('readinessProbe', '*core.v1.Probe', 11, 'o'),
        ('startupProbe', '*core.v1.Probe', 22, 'o'), ('lifecycle', '*core.v1.Lifecycle', 12, 'o'),
        ('terminationMessagePath', 'string', 13, 'o'), ('terminationMessagePolicy', 'string', 20, 'o'),
        ('imagePullPolicy', 'string', 14, 'o'), ('securityContext', '*core.v1.SecurityContext', 15, 'o'),
        ('stdin', 'bool', 16, 'o'), ('stdinOnce', 'bool', 17, 'o'), ('tty', 'bool', 18, 'o'),
    ),
    'core.v1.EphemeralVolumeSource': (
        ('volumeClaimTemplate', '*core.v1.PersistentVolumeClaimTemplate', 1, 'o'),
    ),
    'core.v1.Event': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, ''),
        ('involvedObject', 'core.v1.ObjectReference', 2, ''), ('reason', 'string', 3, 'o'),
        ('message', 'string', 4, 'o'), ('source', 'core.v1.EventSource', 5, 'o'),
        ('firstTimestamp', 'Time', 6, 'o'), ('lastTimestamp', 'Time', 7, 'o'), ('count', 'int32', 8, 'o'),
        ('type', 'string', 9, 'o'), ('eventTime', 'MicroTime', 10, 'o'),
        ('series', '*core.v1.EventSeries', 11, 'o'), ('action', 'string', 12, 'o'),
        ('related', '*core.v1.ObjectReference', 13, 'o'), ('reportingComponent', 'string', 14, ''),
        ('reportingInstance', 'string', 15, ''),
    ),
    'core.v1.EventList': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('items', '[]core.v1.Event', 2, ''),
    ),
    'core.v1.EventSeries': (
        ('count', 'int32', 1, 'o'), ('lastObservedTime', 'MicroTime', 2, 'o'),
    ),
    'core.v1.EventSource': (
        ('component', 'string', 1, 'o'), ('host', 'string', 2, 'o'),
    ),
    'core.v1.EvictionResponder': (
        ('name', 'string', 1, ''), ('priority', '*int32', 2, ''),
    ),
    'core.v1.ExecAction': (
        ('command', '[]string', 1, 'o'),
    ),
    'core.v1.FCVolumeSource': (
        ('targetWWNs', '[]string', 1, 'o'), ('lun', '*int32', 2, 'o'), ('fsType', 'string', 3, 'o'),
        ('readOnly', 'bool', 4, 'o'), ('wwids', '[]string', 5, 'o'),
    ),
    'core.v1.FileKeySelector': (
        ('volumeName', 'string', 1, ''), ('path', 'string', 2, ''), ('key', 'string', 3, ''),
        ('optional', '*bool', 4, 'o'),
    ),
    'core.v1.FlexVolumeSource': (
        ('driver', 'string', 1, ''), ('fsType', 'string', 2, 'o'),
        ('secretRef', '*core.v1.LocalObjectReference', 3, 'o'), ('readOnly', 'bool', 4, 'o'),
        ('options', 'map[string]', 5, 'o'),
    ),
    'core.v1.FlockerVolumeSource': (
        ('datasetName', 'string', 1, 'o'), ('datasetUUID', 'string', 2, 'o'),
    ),
    'core.v1.GCEPersistentDiskVolumeSource': (
        ('pdName', 'string', 1, ''), ('fsType', 'string', 2, 'o'), ('partition', 'int32', 3, 'o'),
        ('readOnly', 'bool', 4, 'o'),
    ),
    'core.v1.GRPCAction': (
        ('port', 'int32', 1, ''), ('service', '*string', 2, ''), ('mode', '*string', 3, 'o'),
    ),
    'core.v1.GitRepoVolumeSource': (
        ('repository', 'string', 1, ''), ('revision', 'string', 2, 'o'), ('directory', 'string', 3, 'o'),
    ),
    'core.v1.GlusterfsVolumeSource': (
        ('endpoints', 'string', 1, ''), ('path', 'string', 2, ''), ('readOnly', 'bool', 3, 'o'),
    ),
    'core.v1.HTTPGetAction': (
        ('path', 'string', 1, 'o'), ('port', 'IntOrString', 2, ''), ('host', 'string', 3, 'o'),
        ('scheme', 'string', 4, 'o'), ('httpHeaders', '[]core.v1.HTTPHeader', 5, 'o'),
        ('protocol', '*string', 6, 'o'),
    ),
    'core.v1.HTTPHeader': (
        ('name', 'string', 1, ''), ('value', 'string', 2, ''),
    ),
    'core.v1.HostAlias': (
        ('ip', 'string', 1, ''), ('hostnames', '[]string', 2, 'o'),
    ),
    'core.v1.HostIP': (
        ('ip', 'string', 1, ''),
    ),
    'core.v1.HostPathVolumeSource': (
        ('path', 'string', 1, ''), ('type', '*string', 2, 'o'),
    ),
    'core.v1.ISCSIVolumeSource': (
        ('targetPortal', 'string', 1, ''), ('iqn', 'string', 2, ''), ('lun', 'int32', 3, ''),
        ('iscsiInterface', 'string', 4, 'o'), ('fsType', 'string', 5, 'o'), ('readOnly', 'bool', 6, 'o'),
        ('portals', '[]string', 7, 'o'), ('chapAuthDiscovery', 'bool', 8, 'o'),
        ('chapAuthSession', 'bool', 11, 'o'), ('secretRef', '*core.v1.LocalObjectReference', 10, 'o'),
        ('initiatorName', '*string', 12, 'o'),
    ),
    'core.v1.ImageVolumeSource': (
        ('reference', 'string', 1, 'o'), ('pullPolicy', 'string', 2, 'o'),
    ),
    'core.v1.ImageVolumeStatus': (
        ('imageRef', 'string', 1, 'o'),
    ),
    'core.v1.KeyToPath': (
        ('key', 'string', 1, ''), ('path', 'string', 2, ''), ('mode', '*int32', 3, 'o'),
        ('user', '*int64', 4, 'o'),
    ),
    'core.v1.Lifecycle': (
        ('postStart', '*core.v1.LifecycleHandler', 1, 'o'),
        ('preStop', '*core.v1.LifecycleHandler', 2, 'o'), ('stopSignal', '*string', 3, 'o'),
    ),
    'core.v1.LifecycleHandler': (
        ('exec', '*core.v1.ExecAction', 1, 'o'), ('httpGet', '*core.v1.HTTPGetAction', 2, 'o'),
        ('tcpSocket', '*core.v1.TCPSocketAction', 3, 'o'), ('sleep', '*core.v1.SleepAction', 4, 'o'),
    ),
    'core.v1.LinuxContainerUser': (
        ('uid', 'int64', 1, ''), ('gid', 'int64', 2, ''), ('supplementalGroups', '[]int64', 3, 'o'),
    ),
    'core.v1.LoadBalancerIngress': (
        ('ip', 'string', 1, 'o'), ('hostname', 'string', 2, 'o'), ('ipMode', '*string', 3, 'o'),
        ('ports', '[]core.v1.PortStatus', 4, 'o'),
    ),
    'core.v1.LoadBalancerStatus': (
        ('ingress', '[]core.v1.LoadBalancerIngress', 1, 'o'),
    ),
    'core.v1.LocalObjectReference': (
        ('name', 'string', 1, 'o'),
    ),
    'core.v1.ModifyVolumeStatus': (
        ('targetVolumeAttributesClassName', 'string', 1, 'o'), ('status', 'string', 2, ''),
    ),
    'core.v1.NFSVolumeSource': (
        ('server', 'string', 1, ''), ('path', 'string', 2, ''), ('readOnly', 'bool', 3, 'o'),
    ),
    'core.v1.Namespace': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('spec', 'core.v1.NamespaceSpec', 2, 'o'), ('status', 'core.v1.NamespaceStatus', 3, 'o'),
    ),
    'core.v1.NamespaceCondition': (
        ('type', 'string', 1, ''), ('status', 'string', 2, ''), ('lastTransitionTime', 'Time', 4, 'o'),
        ('reason', 'string', 5, 'o'), ('message', 'string', 6, 'o'),
    ),
    'core.v1.NamespaceList': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('items', '[]core.v1.Namespace', 2, ''),
    ),
    'core.v1.NamespaceSpec': (
        ('finalizers', '[]string', 1, 'o'),
    ),
    'core.v1.NamespaceStatus': (
        ('phase', 'string', 1, 'o'), ('conditions', '[]core.v1.NamespaceCondition', 2, 'o', 'merge@type'),
    ),
    'core.v1.Node': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('spec', 'core.v1.NodeSpec', 2, 'o'), ('status', 'core.v1.NodeStatus', 3, 'o'),
    ),
    'core.v1.NodeAddress': (
        ('type', 'string', 1, ''), ('address', 'string', 2, ''),
    ),
    'core.v1.NodeAffinity': (
        ('requiredDuringSchedulingIgnoredDuringExecution', '*core.v1.NodeSelector', 1, 'o'),
        ('preferredDuringSchedulingIgnoredDuringExecution', '[]core.v1.PreferredSchedulingTerm', 2, 'o'),
    ),
    'core.v1.NodeAllocatableMappedResources': (
        ('name', 'string', 1, ''), ('quantity', '*Quantity', 2, ''),
    ),
    'core.v1.NodeAllocatableOverheadResources': (
        ('name', 'string', 1, ''), ('perPod', '*Quantity', 2, 'o'), ('perContainer', '*Quantity', 3, 'o'),
    ),
    'core.v1.NodeAllocatableResourceClaimStatus': (
        ('resourceClaimName', 'string', 1, ''), ('containers', '[]string', 2, 'o'),
        ('mapping', '[]core.v1.NodeAllocatableMappedResources', 4, 'o', 'merge@name'),
        ('overhead', '[]core.v1.NodeAllocatableOverheadResources', 5, 'o', 'merge@name'),
    ),
    'core.v1.NodeCondition': (
        ('type', 'string', 1, ''), ('status', 'string', 2, ''), ('lastHeartbeatTime', 'Time', 3, 'o'),
        ('lastTransitionTime', 'Time', 4, 'o'), ('reason', 'string', 5, 'o'), ('message', 'string', 6, 'o'),
    ),
    'core.v1.NodeConfigSource': (
        ('configMap', '*core.v1.ConfigMapNodeConfigSource', 2, 'o'),
    ),
    'core.v1.NodeConfigStatus': (
        ('assigned', '*core.v1.NodeConfigSource', 1, 'o'), ('active', '*core.v1.NodeConfigSource', 2, 'o'),
        ('lastKnownGood', '*core.v1.NodeConfigSource', 3, 'o'), ('error', 'string', 4, 'o'),
    ),
    'core.v1.NodeDaemonEndpoints': (
        ('kubeletEndpoint', 'core.v1.DaemonEndpoint', 1, 'o'),
    ),
    'core.v1.NodeFeatures': (
        ('supplementalGroupsPolicy', '*bool', 1, 'o'),
    ),
    'core.v1.NodeList': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('items', '[]core.v1.Node', 2, ''),
    ),
    'core.v1.NodePodPreemptionPolicy': (
        ('disableResizePreemption', '[]string', 1, 'o'),
    ),
    'core.v1.NodeRuntimeHandler': (
        ('name', 'string', 1, ''), ('features', '*core.v1.NodeRuntimeHandlerFeatures', 2, 'o'),
    ),
    'core.v1.NodeRuntimeHandlerFeatures': (
        ('recursiveReadOnlyMounts', '*bool', 1, 'o'), ('userNamespaces', '*bool', 2, 'o'),
    ),
    'core.v1.NodeSelector': (
        ('nodeSelectorTerms', '[]core.v1.NodeSelectorTerm', 1, ''),
    ),
    'core.v1.NodeSelectorRequirement': (
        ('key', 'string', 1, ''), ('operator', 'string', 2, ''), ('values', '[]string', 3, 'o'),
    ),
    'core.v1.NodeSelectorTerm': (
        ('matchExpressions', '[]core.v1.NodeSelectorRequirement', 1, 'o'),
        ('matchFields', '[]core.v1.NodeSelectorRequirement', 2, 'o'),
    ),
    'core.v1.NodeSpec': (
        ('podCIDR', 'string', 1, 'o'), ('podCIDRs', '[]string', 7, 'o', 'merge'),
        ('providerID', 'string', 3, 'o'), ('unschedulable', 'bool', 4, 'o'),
        ('taints', '[]core.v1.Taint', 5, 'o'), ('configSource', '*core.v1.NodeConfigSource', 6, 'o'),
        ('externalID', 'string', 2, 'o'),
        ('podPreemptionPolicy', '*core.v1.NodePodPreemptionPolicy', 8, 'o'),
    ),
    'core.v1.NodeStatus': (
        ('capacity', 'map[Quantity]', 1, 'o'), ('allocatable', 'map[Quantity]', 2, 'o'),
        ('phase', 'string', 3, 'o'), ('conditions', '[]core.v1.NodeCondition', 4, 'o', 'merge@type'),
        ('addresses', '[]core.v1.NodeAddress', 5, 'o', 'merge@type'),
        ('daemonEndpoints', 'core.v1.NodeDaemonEndpoints', 6, 'o'),
        ('nodeInfo', 'core.v1.NodeSystemInfo', 7, 'o'), ('images', '[]core.v1.ContainerImage', 8, 'o'),
        ('volumesInUse', '[]string', 9, 'o'), ('volumesAttached', '[]core.v1.AttachedVolume', 10, 'o'),
        ('config', '*core.v1.NodeConfigStatus', 11, 'o'),
        ('runtimeHandlers', '[]core.v1.NodeRuntimeHandler', 12, 'o'),
        ('features', '*core.v1.NodeFeatures', 13, 'o'), ('declaredFeatures', '[]string', 14, 'o'),
    ),
    'core.v1.NodeSwapStatus': (
        ('capacity', '*int64', 1, 'o'),
    ),
    'core.v1.NodeSystemInfo': (
        ('machineID', 'string', 1, ''), ('systemUUID', 'string', 2, ''), ('bootID', 'string', 3, ''),
        ('kernelVersion', 'string', 4, ''), ('osImage', 'string', 5, ''),
        ('containerRuntimeVersion', 'string', 6, ''), ('kubeletVersion', 'string', 7, ''),
        ('kubeProxyVersion', 'string', 8, ''), ('operatingSystem', 'string', 9, ''),
        ('architecture', 'string', 10, ''), ('swap', '*core.v1.NodeSwapStatus', 11, 'o'),
    ),
    'core.v1.ObjectFieldSelector': (
        ('apiVersion', 'string', 1, 'o'), ('fieldPath', 'string', 2, ''),
    ),
    'core.v1.ObjectReference': (
        ('kind', 'string', 1, 'o'), ('namespace', 'string', 2, 'o'), ('name', 'string', 3, 'o'),
        ('uid', 'string', 4, 'o'), ('apiVersion', 'string', 5, 'o'), ('resourceVersion', 'string', 6, 'o'),
        ('fieldPath', 'string', 7, 'o'),
    ),
    'core.v1.PersistentVolumeClaim': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('spec', 'core.v1.PersistentVolumeClaimSpec', 2, 'o'),
        ('status', 'core.v1.PersistentVolumeClaimStatus', 3, 'o'),
    ),
    'core.v1.PersistentVolumeClaimCondition': (
        ('type', 'string', 1, ''), ('status', 'string', 2, ''), ('lastProbeTime', 'Time', 3, 'o'),
        ('lastTransitionTime', 'Time', 4, 'o'), ('reason', 'string', 5, 'o'), ('message', 'string', 6, 'o'),
    ),
    'core.v1.PersistentVolumeClaimSpec': (
        ('accessModes', '[]string', 1, 'o'), ('selector', '*meta.v1.LabelSelector', 4, 'o'),
        ('resources', 'core.v1.VolumeResourceRequirements', 2, 'o'), ('volumeName', 'string', 3, 'o'),
        ('storageClassName', '*string', 5, 'o'), ('volumeMode', '*string', 6, 'o'),
        ('dataSource', '*core.v1.TypedLocalObjectReference', 7, 'o'),
        ('dataSourceRef', '*core.v1.TypedObjectReference', 8, 'o'),
        ('volumeAttributesClassName', '*string', 9, 'o'),
    ),
    'core.v1.PersistentVolumeClaimStatus': (
        ('phase', 'string', 1, 'o'), ('accessModes', '[]string', 2, 'o'),
        ('capacity', 'map[Quantity]', 3, 'o'),
        ('conditions', '[]core.v1.PersistentVolumeClaimCondition', 4, 'o', 'merge@type'),
        ('allocatedResources', 'map[Quantity]', 5, 'o'),
        ('allocatedResourceStatuses', 'map[string]', 7, 'o'),
        ('currentVolumeAttributesClassName', '*string', 8, 'o'),
        ('modifyVolumeStatus', '*core.v1.ModifyVolumeStatus', 9, 'o'),
        ('healthStatus', '*core.v1.VolumeHealthStatus', 10, 'o'),
    ),
    'core.v1.PersistentVolumeClaimTemplate': (
        ('metadata', 'meta.v1.ObjectMeta', 1, 'o'), ('spec', 'core.v1.PersistentVolumeClaimSpec', 2, ''),
    ),
    'core.v1.PersistentVolumeClaimVolumeSource': (
        ('claimName', 'string', 1, ''), ('readOnly', 'bool', 2, 'o'),
    ),
    'core.v1.PhotonPersistentDiskVolumeSource': (
        ('pdID', 'string', 1, ''), ('fsType', 'string', 2, 'o'),
    ),
    'core.v1.Pod': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('spec', 'core.v1.PodSpec', 2, 'o'), ('status', 'core.v1.PodStatus', 3, 'o'),
    ),
    'core.v1.PodAffinity': (
        ('requiredDuringSchedulingIgnoredDuringExecution', '[]core.v1.PodAffinityTerm', 1, 'o'),
        ('preferredDuringSchedulingIgnoredDuringExecution', '[]core.v1.WeightedPodAffinityTerm', 2, 'o'),
    ),
    'core.v1.PodAffinityTerm': (
        ('labelSelector', '*meta.v1.LabelSelector', 1, 'o'), ('namespaces', '[]string', 2, 'o'),
        ('topologyKey', 'string', 3, ''), ('namespaceSelector', '*meta.v1.LabelSelector', 4, 'o'),
        ('matchLabelKeys', '[]string', 5, 'o'), ('mismatchLabelKeys', '[]string', 6, 'o'),
    ),
    'core.v1.PodAntiAffinity': (
        ('requiredDuringSchedulingIgnoredDuringExecution', '[]core.v1.PodAffinityTerm', 1, 'o'),
        ('preferredDuringSchedulingIgnoredDuringExecution', '[]core.v1.WeightedPodAffinityTerm', 2, 'o'),
    ),
    'core.v1.PodCertificateProjection': (
        ('signerName', 'string', 1, 'o'), ('keyType', 'string', 2, 'o'),
        ('maxExpirationSeconds', '*int32', 3, 'o'), ('credentialBundlePath', 'string', 4, 'o'),
        ('keyPath', 'string', 5, 'o'), ('certificateChainPath', 'string', 6, 'o'),
        ('userAnnotations', 'map[string]', 7, 'o'), ('user', '*int64', 8, 'o'),
    ),
    'core.v1.PodCondition': (
        ('type', 'string', 1, ''), ('observedGeneration', 'int64', 7, 'o'), ('status', 'string', 2, ''),
        ('lastProbeTime', 'Time', 3, 'o'), ('lastTransitionTime', 'Time', 4, 'o'),
        ('reason', 'string', 5, 'o'), ('message', 'string', 6, 'o'),
    ),
    'core.v1.PodDNSConfig': (
        ('nameservers', '[]string', 1, 'o'), ('searches', '[]string', 2, 'o'),
        ('options', '[]core.v1.PodDNSConfigOption', 3, 'o'),
    ),
    'core.v1.PodDNSConfigOption': (
        ('name', 'string', 1, 'o'), ('value', '*string', 2, 'o'),
    ),
    'core.v1.PodExtendedResourceClaimStatus': (
        ('requestMappings', '[]core.v1.ContainerExtendedResourceRequest', 1, ''),
        ('resourceClaimName', 'string', 2, ''),
    ),
    'core.v1.PodIP': (
        ('ip', 'string', 1, ''),
    ),
    'core.v1.PodList': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('items', '[]core.v1.Pod', 2, ''),
    ),
    'core.v1.PodOS': (
        ('name', 'string', 1, ''),
    ),
    'core.v1.PodReadinessGate': (
        ('conditionType', 'string', 1, ''),
    ),
    'core.v1.PodResourceClaim': (
        ('name', 'string', 1, ''), ('resourceClaimName', '*string', 3, 'o'),
        ('resourceClaimTemplateName', '*string', 4, 'o'),
    ),
    'core.v1.PodResourceClaimStatus': (
        ('name', 'string', 1, ''), ('resourceClaimName', '*string', 2, 'o'),
    ),
    'core.v1.PodSchedulingGate': (
        ('name', 'string', 1, ''),
    ),
    'core.v1.PodSchedulingGroup': (
        ('podGroupName', '*string', 1, 'o'),
    ),
    'core.v1.PodSecurityContext': (
        ('seLinuxOptions', '*core.v1.SELinuxOptions', 1, 'o'),
        ('windowsOptions', '*core.v1.WindowsSecurityContextOptions', 8, 'o'),
        ('runAsUser', '*int64', 2, 'o'), ('runAsGroup', '*int64', 6, 'o'),
        ('runAsNonRoot', '*bool', 3, 'o'), ('supplementalGroups', '[]int64', 4, 'o'),
        ('supplementalGroupsPolicy', '*string', 12, 'o'), ('fsGroup', '*int64', 5, 'o'),
        ('sysctls', '[]core.v1.Sysctl', 7, 'o'), ('fsGroupChangePolicy', '*string', 9, 'o'),
        ('seccompProfile', '*core.v1.SeccompProfile', 10, 'o'),
        ('appArmorProfile', '*core.v1.AppArmorProfile', 11, 'o'),
        ('seLinuxChangePolicy', '*string', 13, 'o'),
    ),
    'core.v1.PodSpec': (
        ('volumes', '[]core.v1.Volume', 1, 'o', 'merge,retainKeys@name'),
        ('initContainers', '[]core.v1.Container', 20, 'o', 'merge@name'),
        ('containers', '[]core.v1.Container', 2, '', 'merge@name'),
        ('ephemeralContainers', '[]core.v1.EphemeralContainer', 34, 'o', 'merge@name'),
        ('restartPolicy', 'string', 3, 'o'), ('terminationGracePeriodSeconds', '*int64', 4, 'o'),
        ('activeDeadlineSeconds', '*int64', 5, 'o'), ('dnsPolicy', 'string', 6, 'o'),
        ('nodeSelector', 'map[string]', 7, 'o'), ('serviceAccountName', 'string', 8, 'o'),
        ('serviceAccount', 'string', 9, 'o'), ('automountServiceAccountToken', '*bool', 21, 'o'),
        ('nodeName', 'string', 10, 'o'), ('hostNetwork', 'bool', 11, 'o'), ('hostPID', 'bool', 12, 'o'),
        ('hostIPC', 'bool', 13, 'o'), ('shareProcessNamespace', '*bool', 27, 'o'),
        ('securityContext', '*core.v1.PodSecurityContext', 14, 'o'),
        ('imagePullSecrets', '[]core.v1.LocalObjectReference', 15, 'o', 'merge@name'),
        ('hostname', 'string', 16, 'o'), ('subdomain', 'string', 17, 'o'),
        ('affinity', '*core.v1.Affinity', 18, 'o'), ('schedulerName', 'string', 19, 'o'),
        ('tolerations', '[]core.v1.Toleration', 22, 'o'),
        ('hostAliases', '[]core.v1.HostAlias', 23, 'o', 'merge@ip'),
        ('priorityClassName', 'string', 24, 'o'), ('priority', '*int32', 25, 'o'),
        ('dnsConfig', '*core.v1.PodDNSConfig', 26, 'o'),
        ('readinessGates', '[]core.v1.PodReadinessGate', 28, 'o'), ('runtimeClassName', '*string', 29, 'o'),
        ('enableServiceLinks', '*bool', 30, 'o'), ('preemptionPolicy', '*string', 31, 'o'),
        ('overhead', 'map[Quantity]', 32, 'o'),
        ('topologySpreadConstraints', '[]core.v1.TopologySpreadConstraint', 33, 'o', 'merge@topologyKey'),
        ('setHostnameAsFQDN', '*bool', 35, 'o'), ('os', '*core.v1.PodOS', 36, 'o'),
        ('hostUsers', '*bool', 37, 'o'),
        ('schedulingGates', '[]core.v1.PodSchedulingGate', 38, 'o', 'merge@name'),
        ('resourceClaims', '[]core.v1.PodResourceClaim', 39, 'o', 'merge,retainKeys@name'),
        ('resources', '*core.v1.ResourceRequirements', 40, 'o'), ('hostnameOverride', '*string', 41, 'o'),
        ('schedulingGroup', '*core.v1.PodSchedulingGroup', 43, 'o'),
        ('evictionResponders', '[]core.v1.EvictionResponder', 44, 'o', 'merge@name'),
    ),
    'core.v1.PodStatus': (
        ('observedGeneration', 'int64', 17, 'o'), ('phase', 'string', 1, 'o'),
        ('conditions', '[]core.v1.PodCondition', 2, 'o', 'merge@type'), ('message', 'string', 3, 'o'),
        ('reason', 'string', 4, 'o'), ('nominatedNodeName', 'string', 11, 'o'),
        ('hostIP', 'string', 5, 'o'), ('hostIPs', '[]core.v1.HostIP', 16, 'o', 'merge@ip'),
        ('podIP', 'string', 6, 'o'), ('podIPs', '[]core.v1.PodIP', 12, 'o', 'merge@ip'),
        ('startTime', '*Time', 7, 'o'), ('initContainerStatuses', '[]core.v1.ContainerStatus', 10, 'o'),
        ('containerStatuses', '[]core.v1.ContainerStatus', 8, 'o'), ('qosClass', 'string', 9, 'o'),
        ('ephemeralContainerStatuses', '[]core.v1.ContainerStatus', 13, 'o'), ('resize', 'string', 14, 'o'),
        ('resourceClaimStatuses', '[]core.v1.PodResourceClaimStatus', 15, 'o', 'merge,retainKeys@name'),
        ('extendedResourceClaimStatus', '*core.v1.PodExtendedResourceClaimStatus', 18, 'o'),
        ('allocatedResources', 'map[Quantity]', 19, 'o'),
        ('resources', '*core.v1.ResourceRequirements', 20, 'o'),
        ('nodeAllocatableResourceClaimStatuses', '[]core.v1.NodeAllocatableResourceClaimStatus',
         21, 'o', 'merge@resourceClaimName'), ('volumeHealth', '[]core.v1.PodVolumeHealth', 22, 'o'),
    ),
    'core.v1.PodTemplateSpec': (
        ('metadata', 'meta.v1.ObjectMeta', 1, 'o'), ('spec', 'core.v1.PodSpec', 2, 'o'),
    ),
    'core.v1.PodVolumeHealth': (
        ('name', 'string', 1, ''),
        ('healthConditions', '[]core.v1.VolumeHealthCondition', 2, 'o', 'merge@status'),
        ('lastTransitionTime', 'Time', 3, 'o'),
    ),
    'core.v1.PortStatus': (
        ('port', 'int32', 1, ''), ('protocol', 'string', 2, ''), ('error', '*string', 3, 'o'),
    ),
    'core.v1.PortworxVolumeSource': (
        ('volumeID', 'string', 1, ''), ('fsType', 'string', 2, 'o'), ('readOnly', 'bool', 3, 'o'),
    ),
    'core.v1.PreferredSchedulingTerm': (
        ('weight', 'int32', 1, ''), ('preference', 'core.v1.NodeSelectorTerm', 2, ''),
    ),
    'core.v1.Probe': (
        ('', 'core.v1.ProbeHandler', 1, 'i'), ('initialDelaySeconds', 'int32', 2, 'o'),
        ('timeoutSeconds', 'int32', 3, 'o'), ('periodSeconds', 'int32', 4, 'o'),
        ('successThreshold', 'int32', 5, 'o'), ('failureThreshold', 'int32', 6, 'o'),
        ('terminationGracePeriodSeconds', '*int64', 7, 'o'),
    ),
    'core.v1.ProbeHandler': (
        ('exec', '*core.v1.ExecAction', 1, 'o'), ('httpGet', '*core.v1.HTTPGetAction', 2, 'o'),
        ('tcpSocket', '*core.v1.TCPSocketAction', 3, 'o'), ('grpc', '*core.v1.GRPCAction', 4, 'o'),
    ),
    'core.v1.ProjectedVolumeSource': (
        ('sources', '[]core.v1.VolumeProjection', 1, ''), ('defaultMode', '*int32', 2, 'o'),
        ('defaultUser', '*int64', 3, 'o'),
    ),
    'core.v1.QuobyteVolumeSource': (
        ('registry', 'string', 1, ''), ('volume', 'string', 2, ''), ('readOnly', 'bool', 3, 'o'),
        ('user', 'string', 4, 'o'), ('group', 'string', 5, 'o'), ('tenant', 'string', 6, 'o'),
    ),
    'core.v1.RBDVolumeSource': (
        ('monitors', '[]string', 1, ''), ('image', 'string', 2, ''), ('fsType', 'string', 3, 'o'),
        ('pool', 'string', 4, 'o'), ('user', 'string', 5, 'o'), ('keyring', 'string', 6, 'o'),
        ('secretRef', '*core.v1.LocalObjectReference', 7, 'o'), ('readOnly', 'bool', 8, 'o'),
    ),
    'core.v1.ReplicationController': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('spec', 'core.v1.ReplicationControllerSpec', 2, 'o'),
        ('status', 'core.v1.ReplicationControllerStatus', 3, 'o'),
    ),
    'core.v1.ReplicationControllerCondition': (
        ('type', 'string', 1, ''), ('status', 'string', 2, ''), ('lastTransitionTime', 'Time', 3, 'o'),
        ('reason', 'string', 4, 'o'), ('message', 'string', 5, 'o'),
    ),
    'core.v1.ReplicationControllerList': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('items', '[]core.v1.ReplicationController', 2, ''),
    ),
    'core.v1.ReplicationControllerSpec': (
        ('replicas', '*int32', 1, 'o'), ('minReadySeconds', 'int32', 4, 'o'),
        ('selector', 'map[string]', 2, 'o'), ('template', '*core.v1.PodTemplateSpec', 3, 'o'),
    ),
    'core.v1.ReplicationControllerStatus': (
        ('replicas', 'int32', 1, ''), ('fullyLabeledReplicas', 'int32', 2, 'o'),
        ('readyReplicas', 'int32', 4, 'o'), ('availableReplicas', 'int32', 5, 'o'),
        ('observedGeneration', 'int64', 3, 'o'),
        ('conditions', '[]core.v1.ReplicationControllerCondition', 6, 'o', 'merge@type'),
    ),
    'core.v1.ResourceClaim': (
        ('name', 'string', 1, ''), ('request', 'string', 2, 'o'),
    ),
    'core.v1.ResourceFieldSelector': (
        ('containerName', 'string', 1, 'o'), ('resource', 'string', 2, ''), ('divisor', 'Quantity', 3, 'o'),
    ),
    'core.v1.ResourceHealth': (
        ('resourceID', 'string', 1, ''), ('health', 'string', 2, 'o'), ('message', '*string', 6, 'o'),
    ),
    'core.v1.ResourceQuota': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('spec', 'core.v1.ResourceQuotaSpec', 2, 'o'), ('status', 'core.v1.ResourceQuotaStatus', 3, 'o'),
    ),
    'core.v1.ResourceQuotaList': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('items', '[]core.v1.ResourceQuota', 2, ''),
    ),
    'core.v1.ResourceQuotaSpec': (
        ('hard', 'map[Quantity]', 1, 'o'), ('scopes', '[]string', 2, 'o'),
        ('scopeSelector', '*core.v1.ScopeSelector', 3, 'o'),
    ),
    'core.v1.ResourceQuotaStatus': (
        ('hard', 'map[Quantity]', 1, 'o'), ('used', 'map[Quantity]', 2, 'o'),
    ),
    'core.v1.ResourceRequirements': (
        ('limits', 'map[Quantity]', 1, 'o'), ('requests', 'map[Quantity]', 2, 'o'),
        ('claims', '[]core.v1.ResourceClaim', 3, 'o'),
    ),
    'core.v1.ResourceStatus': (
        ('name', 'string', 1, ''), ('resources', '[]core.v1.ResourceHealth', 2, 'o'),
    ),
    'core.v1.SELinuxOptions': (
        ('user', 'string', 1, 'o'), ('role', 'string', 2, 'o'), ('type', 'string', 3, 'o'),
        ('level', 'string', 4, 'o'),
    ),
    'core.v1.ScaleIOVolumeSource': (
        ('gateway', 'string', 1, ''), ('system', 'string', 2, ''),
        ('secretRef', '*core.v1.LocalObjectReference', 3, ''), ('sslEnabled', 'bool', 4, 'o'),
        ('protectionDomain', 'string', 5, 'o'), ('storagePool', 'string', 6, 'o'),
        ('storageMode', 'string', 7, 'o'), ('volumeName', 'string', 8, 'o'), ('fsType', 'string', 9, 'o'),
        ('readOnly', 'bool', 10, 'o'),
    ),
    'core.v1.ScopeSelector': (
        ('matchExpressions', '[]core.v1.ScopedResourceSelectorRequirement', 1, 'o'),
    ),
    'core.v1.ScopedResourceSelectorRequirement': (
        ('scopeName', 'string', 1, ''), ('operator', 'string', 2, ''), ('values', '[]string', 3, 'o'),
    ),
    'core.v1.SeccompProfile': (
        ('type', 'string', 1, ''), ('localhostProfile', '*string', 2, 'o'),
    ),
    'core.v1.Secret': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('immutable', '*bool', 5, 'o'), ('data', 'map[bytes]', 2, 'o'),
        ('stringData', 'map[string]', 4, 'o'), ('type', 'string', 3, 'o'),
    ),
    'core.v1.SecretEnvSource': (
        ('', 'core.v1.LocalObjectReference', 1, 'i'), ('optional', '*bool', 2, 'o'),
    ),
    'core.v1.SecretKeySelector': (
        ('', 'core.v1.LocalObjectReference', 1, 'i'), ('key', 'string', 2, ''),
        ('optional', '*bool', 3, 'o'),
    ),
    'core.v1.SecretList': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('items', '[]core.v1.Secret', 2, ''),
    ),
    'core.v1.SecretProjection': (
        ('', 'core.v1.LocalObjectReference', 1, 'i'), ('items', '[]core.v1.KeyToPath', 2, 'o'),
        ('optional', '*bool', 4, 'o'),
    ),
    'core.v1.SecretVolumeSource': (
        ('secretName', 'string', 1, 'o'), ('items', '[]core.v1.KeyToPath', 2, 'o'),
        ('defaultMode', '*int32', 3, 'o'), ('optional', '*bool', 4, 'o'), ('defaultUser', '*int64', 5, 'o'),
    ),
    'core.v1.SecurityContext': (
        ('capabilities', '*core.v1.Capabilities', 1, 'o'), ('privileged', '*bool', 2, 'o'),
        ('seLinuxOptions', '*core.v1.SELinuxOptions', 3, 'o'),
        ('windowsOptions', '*core.v1.WindowsSecurityContextOptions', 10, 'o'),
        ('runAsUser', '*int64', 4, 'o'), ('runAsGroup', '*int64', 8, 'o'),
        ('runAsNonRoot', '*bool', 5, 'o'), ('readOnlyRootFilesystem', '*bool', 6, 'o'),
        ('allowPrivilegeEscalation', '*bool', 7, 'o'), ('procMount', '*string', 9, 'o'),
        ('seccompProfile', '*core.v1.SeccompProfile', 11, 'o'),
        ('appArmorProfile', '*core.v1.AppArmorProfile', 12, 'o'),
    ),
    'core.v1.Service': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('spec', 'core.v1.ServiceSpec', 2, 'o'), ('status', 'core.v1.ServiceStatus', 3, 'o'),
    ),
    'core.v1.ServiceAccount': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('secrets', '[]core.v1.ObjectReference', 2, 'o', 'merge@name'),
        ('imagePullSecrets', '[]core.v1.LocalObjectReference', 3, 'o'),
        ('automountServiceAccountToken', '*bool', 4, 'o'),
    ),
    'core.v1.ServiceAccountList': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('items', '[]core.v1.ServiceAccount', 2, ''),
    ),
    'core.v1.ServiceAccountTokenProjection': (
        ('audience', 'string', 1, 'o'), ('expirationSeconds', '*int64', 2, 'o'), ('path', 'string', 3, ''),
        ('user', '*int64', 4, 'o'),
    ),
    'core.v1.ServiceList': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('items', '[]core.v1.Service', 2, ''),
    ),
    'core.v1.ServicePort': (
        ('name', 'string', 1, 'o'), ('protocol', 'string', 2, 'o'), ('appProtocol', '*string', 6, 'o'),
        ('port', 'int32', 3, ''), ('targetPort', 'IntOrString', 4, 'o'), ('nodePort', 'int32', 5, 'o'),
    ),
    'core.v1.ServiceSpec': (
        ('ports', '[]core.v1.ServicePort', 1, 'o', 'merge@port'), ('selector', 'map[string]', 2, 'o'),
        ('clusterIP', 'string', 3, 'o'), ('clusterIPs', '[]string', 18, 'o'), ('type', 'string', 4, 'o'),
        ('externalIPs', '[]string', 5, 'o'), ('sessionAffinity', 'string', 7, 'o'),
        ('loadBalancerIP', 'string', 8, 'o'), ('loadBalancerSourceRanges', '[]string', 9, 'o'),
        ('externalName', 'string', 10, 'o'), ('externalTrafficPolicy', 'string', 11, 'o'),
        ('healthCheckNodePort', 'int32', 12, 'o'), ('publishNotReadyAddresses', 'bool', 13, 'o'),
        ('sessionAffinityConfig', '*core.v1.SessionAffinityConfig', 14, 'o'),
        ('ipFamilies', '[]string', 19, 'o'), ('ipFamilyPolicy', '*string', 17, 'o'),
        ('allocateLoadBalancerNodePorts', '*bool', 20, 'o'), ('loadBalancerClass', '*string', 21, 'o'),
        ('internalTrafficPolicy', '*string', 22, 'o'), ('trafficDistribution', '*string', 23, 'o'),
    ),
    'core.v1.ServiceStatus': (
        ('loadBalancer', 'core.v1.LoadBalancerStatus', 1, 'o'),
        ('conditions', '[]meta.v1.Condition', 2, 'o', 'merge@type'),
    ),
    'core.v1.SessionAffinityConfig': (
        ('clientIP', '*core.v1.ClientIPConfig', 1, 'o'),
    ),
    'core.v1.SleepAction': (
        ('seconds', 'int64', 1, ''),
    ),
    'core.v1.StorageOSVolumeSource': (
        ('volumeName', 'string', 1, 'o'), ('volumeNamespace', 'string', 2, 'o'),
        ('fsType', 'string', 3, 'o'), ('readOnly', 'bool', 4, 'o'),
        ('secretRef', '*core.v1.LocalObjectReference', 5, 'o'),
    ),
    'core.v1.Sysctl': (
        ('name', 'string', 1, ''), ('value', 'string', 2, ''),
    ),
    'core.v1.TCPSocketAction': (
        ('port', 'IntOrString', 1, ''), ('host', 'string', 2, 'o'),
    ),
    'core.v1.Taint': (
        ('key', 'string', 1, ''), ('value', 'string', 2, 'o'), ('effect', 'string', 3, ''),
        ('timeAdded', '*Time', 4, 'o'),
    ),
    'core.v1.Toleration': (
        ('key', 'string', 1, 'o'), ('operator', 'string', 2, 'o'), ('value', 'string', 3, 'o'),
        ('effect', 'string', 4, 'o'), ('tolerationSeconds', '*int64', 5, 'o'),
    ),
    'core.v1.TopologySpreadConstraint': (
        ('maxSkew', 'int32', 1, ''), ('topologyKey', 'string', 2, ''),
        ('whenUnsatisfiable', 'string', 3, ''), ('labelSelector', '*meta.v1.LabelSelector', 4, 'o'),
        ('minDomains', '*int32', 5, 'o'), ('nodeAffinityPolicy', '*string', 6, 'o'),
        ('nodeTaintsPolicy', '*string', 7, 'o'), ('matchLabelKeys', '[]string', 8, 'o'),
    ),
    'core.v1.TypedLocalObjectReference': (
        ('apiGroup', '*string', 1, ''), ('kind', 'string', 2, ''), ('name', 'string', 3, ''),
    ),
    'core.v1.TypedObjectReference': (
        ('apiGroup', '*string', 1, ''), ('kind', 'string', 2, ''), ('name', 'string', 3, ''),
        ('namespace', '*string', 4, 'o'),
    ),
    'core.v1.Volume': (
        ('name', 'string', 1, ''), ('', 'core.v1.VolumeSource', 2, 'i'),
    ),
    'core.v1.VolumeDevice': (
        ('name', 'string', 1, ''), ('devicePath', 'string', 2, ''),
    ),
    'core.v1.VolumeHealthCondition': (
        ('status', 'string', 1, ''), ('reason', 'string', 2, ''), ('message', 'string', 3, 'o'),
    ),
    'core.v1.VolumeHealthStatus': (
        ('healthConditions', '[]core.v1.VolumeHealthCondition', 1, 'o', 'merge@status'),
        ('lastTransitionTime', 'Time', 2, 'o'),
    ),
    'core.v1.VolumeMount': (
        ('name', 'string', 1, ''), ('readOnly', 'bool', 2, 'o'), ('recursiveReadOnly', '*string', 7, 'o'),
        ('mountPath', 'string', 3, ''), ('subPath', 'string', 4, 'o'),
        ('mountPropagation', '*string', 5, 'o'), ('subPathExpr', 'string', 6, 'o'),
        ('bindMountOptions', '[]string', 8, 'o'),
    ),
    'core.v1.VolumeMountStatus': (
        ('name', 'string', 1, ''), ('mountPath', 'string', 2, ''), ('readOnly', 'bool', 3, 'o'),
        ('recursiveReadOnly', '*string', 4, 'o'), ('volumeStatus', '*core.v1.VolumeStatus', 5, 'o'),
    ),
    'core.v1.VolumeProjection': (
        ('secret', '*core.v1.SecretProjection', 1, 'o'),
        ('downwardAPI', '*core.v1.DownwardAPIProjection', 2, 'o'),
        ('configMap', '*core.v1.ConfigMapProjection', 3, 'o'),
        ('serviceAccountToken', '*core.v1.ServiceAccountTokenProjection', 4, 'o'),
        ('clusterTrustBundle', '*core.v1.ClusterTrustBundleProjection', 5, 'o'),
        ('podCertificate', '*core.v1.PodCertificateProjection', 6, 'o'),
    ),
    'core.v1.VolumeResourceRequirements': (
        ('limits', 'map[Quantity]', 1, 'o'), ('requests', 'map[Quantity]', 2, 'o'),
    ),
    'core.v1.VolumeSource': (
        ('hostPath', '*core.v1.HostPathVolumeSource', 1, 'o'),
        ('emptyDir', '*core.v1.EmptyDirVolumeSource', 2, 'o'),
        ('gcePersistentDisk', '*core.v1.GCEPersistentDiskVolumeSource', 3, 'o'),
        ('awsElasticBlockStore', '*core.v1.AWSElasticBlockStoreVolumeSource', 4, 'o'),
        ('gitRepo', '*core.v1.GitRepoVolumeSource', 5, 'o'),
        ('secret', '*core.v1.SecretVolumeSource', 6, 'o'), ('nfs', '*core.v1.NFSVolumeSource', 7, 'o'),
        ('iscsi', '*core.v1.ISCSIVolumeSource', 8, 'o'),
        ('glusterfs', '*core.v1.GlusterfsVolumeSource', 9, 'o'),
        ('persistentVolumeClaim', '*core.v1.PersistentVolumeClaimVolumeSource', 10, 'o'),
        ('rbd', '*core.v1.RBDVolumeSource', 11, 'o'), ('flexVolume', '*core.v1.FlexVolumeSource', 12, 'o'),
        ('cinder', '*core.v1.CinderVolumeSource', 13, 'o'),
        ('cephfs', '*core.v1.CephFSVolumeSource', 14, 'o'),
        ('flocker', '*core.v1.FlockerVolumeSource', 15, 'o'),
        ('downwardAPI', '*core.v1.DownwardAPIVolumeSource', 16, 'o'),
        ('fc', '*core.v1.FCVolumeSource', 17, 'o'),
        ('azureFile', '*core.v1.AzureFileVolumeSource', 18, 'o'),
        ('configMap', '*core.v1.ConfigMapVolumeSource', 19, 'o'),
        ('vsphereVolume', '*core.v1.VsphereVirtualDiskVolumeSource', 20, 'o'),
        ('quobyte', '*core.v1.QuobyteVolumeSource', 21, 'o'),
        ('azureDisk', '*core.v1.AzureDiskVolumeSource', 22, 'o'),
        ('photonPersistentDisk', '*core.v1.PhotonPersistentDiskVolumeSource', 23, 'o'),
        ('projected', '*core.v1.ProjectedVolumeSource', 26, 'o'),
        ('portworxVolume', '*core.v1.PortworxVolumeSource', 24, 'o'),
        ('scaleIO', '*core.v1.ScaleIOVolumeSource', 25, 'o'),
        ('storageos', '*core.v1.StorageOSVolumeSource', 27, 'o'),
        ('csi', '*core.v1.CSIVolumeSource', 28, 'o'),
        ('ephemeral', '*core.v1.EphemeralVolumeSource', 29, 'o'),
        ('image', '*core.v1.ImageVolumeSource', 30, 'o'),
    ),
    'core.v1.VolumeStatus': (
        ('image', '*core.v1.ImageVolumeStatus', 1, 'o'),
    ),
    'core.v1.VsphereVirtualDiskVolumeSource': (
        ('volumePath', 'string', 1, ''), ('fsType', 'string', 2, 'o'),
        ('storagePolicyName', 'string', 3, 'o'), ('storagePolicyID', 'string', 4, 'o'),
    ),
    'core.v1.WeightedPodAffinityTerm': (
        ('weight', 'int32', 1, ''), ('podAffinityTerm', 'core.v1.PodAffinityTerm', 2, ''),
    ),
    'core.v1.WindowsSecurityContextOptions': (
        ('gmsaCredentialSpecName', '*string', 1, 'o'), ('gmsaCredentialSpec', '*string', 2, 'o'),
        ('runAsUserName', '*string', 3, 'o'), ('hostProcess', '*bool', 4, 'o'),
    ),
    'discovery.v1.Endpoint': (
        ('addresses', '[]string', 1, ''), ('conditions', 'discovery.v1.EndpointConditions', 2, 'o'),
        ('hostname', '*string', 3, 'o'), ('targetRef', '*core.v1.ObjectReference', 4, 'o'),
        ('deprecatedTopology', 'map[string]', 5, 'o'), ('nodeName', '*string', 6, 'o'),
        ('zone', '*string', 7, 'o'), ('hints', '*discovery.v1.EndpointHints', 8, 'o'),
    ),
    'discovery.v1.EndpointConditions': (
        ('ready', '*bool', 1, 'o'), ('serving', '*bool', 2, 'o'), ('terminating', '*bool', 3, 'o'),
    ),
    'discovery.v1.EndpointHints': (
        ('forZones', '[]discovery.v1.ForZone', 1, 'o'), ('forNodes', '[]discovery.v1.ForNode', 2, 'o'),
    ),
    'discovery.v1.EndpointPort': (
        ('name', '*string', 1, 'o'), ('protocol', '*string', 2, 'o'), ('port', '*int32', 3, 'o'),
        ('appProtocol', '*string', 4, 'o'),
    ),
    'discovery.v1.EndpointSlice': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('addressType', 'string', 4, ''), ('endpoints', '[]discovery.v1.Endpoint', 2, ''),
        ('ports', '[]discovery.v1.EndpointPort', 3, ''),
    ),
    'discovery.v1.EndpointSliceList': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('items', '[]discovery.v1.EndpointSlice', 2, ''),
    ),
    'discovery.v1.ForNode': (
        ('name', 'string', 1, ''),
    ),
    'discovery.v1.ForZone': (
        ('name', 'string', 1, ''),
    ),
    'meta.v1.Condition': (
        ('type', 'string', 1, ''), ('status', 'string', 2, ''), ('observedGeneration', 'int64', 3, 'o'),
        ('lastTransitionTime', 'Time', 4, ''), ('reason', 'string', 5, ''), ('message', 'string', 6, ''),
    ),
    'meta.v1.DeleteOptions': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('gracePeriodSeconds', '*int64', 1, 'o'),
        ('preconditions', '*meta.v1.Preconditions', 2, 'o'), ('orphanDependents', '*bool', 3, 'o'),
        ('propagationPolicy', '*string', 4, 'o'), ('dryRun', '[]string', 5, 'o'),
        ('ignoreStoreReadErrorWithClusterBreakingPotential', '*bool', 6, 'o'),
    ),
    'meta.v1.FieldSelectorRequirement': (
        ('key', 'string', 1, ''), ('operator', 'string', 2, ''), ('values', '[]string', 3, 'o'),
    ),
    'meta.v1.LabelSelector': (
        ('matchLabels', 'map[string]', 1, 'o'),
        ('matchExpressions', '[]meta.v1.LabelSelectorRequirement', 2, 'o'),
    ),
    'meta.v1.LabelSelectorRequirement': (
        ('key', 'string', 1, ''), ('operator', 'string', 2, ''), ('values', '[]string', 3, 'o'),
    ),
    'meta.v1.List': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('items', '[]RawExtension', 2, ''),
    ),
    'meta.v1.ListMeta': (
        ('selfLink', 'string', 1, 'o'), ('resourceVersion', 'string', 2, 'o'),
        ('continue', 'string', 3, 'o'), ('remainingItemCount', '*int64', 4, 'o'),
        ('shardInfo', '*meta.v1.ShardInfo', 5, 'o'),
    ),
    'meta.v1.ManagedFieldsEntry': (
        ('manager', 'string', 1, 'o'), ('operation', 'string', 2, 'o'), ('apiVersion', 'string', 3, 'o'),
        ('time', '*Time', 4, 'o'), ('fieldsType', 'string', 6, 'o'), ('fieldsV1', '*FieldsV1', 7, 'o'),
        ('subresource', 'string', 8, 'o'),
    ),
    'meta.v1.ObjectMeta': (
        ('name', 'string', 1, 'o'), ('generateName', 'string', 2, 'o'), ('namespace', 'string', 3, 'o'),
        ('selfLink', 'string', 4, 'o'), ('uid', 'string', 5, 'o'), ('resourceVersion', 'string', 6, 'o'),
        ('generation', 'int64', 7, 'o'), ('creationTimestamp', 'Time', 8, 'oz'),
        ('deletionTimestamp', '*Time', 9, 'o'), ('deletionGracePeriodSeconds', '*int64', 10, 'o'),
        ('labels', 'map[string]', 11, 'o'), ('annotations', 'map[string]', 12, 'o'),
        ('ownerReferences', '[]meta.v1.OwnerReference', 13, 'o', 'merge@uid'),
        ('finalizers', '[]string', 14, 'o', 'merge'),
        ('managedFields', '[]meta.v1.ManagedFieldsEntry', 17, 'o'),
    ),
    'meta.v1.OwnerReference': (
        ('apiVersion', 'string', 5, ''), ('kind', 'string', 1, ''), ('name', 'string', 3, ''),
        ('uid', 'string', 4, ''), ('controller', '*bool', 6, 'o'), ('blockOwnerDeletion', '*bool', 7, 'o'),
    ),
    'meta.v1.Preconditions': (
        ('uid', '*string', 1, 'o'), ('resourceVersion', '*string', 2, 'o'),
    ),
    'meta.v1.ShardInfo': (
        ('selector', 'string', 1, ''),
    ),
    'meta.v1.Status': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('status', 'string', 2, 'o'), ('message', 'string', 3, 'o'), ('reason', 'string', 4, 'o'),
        ('details', '*meta.v1.StatusDetails', 5, 'o'), ('code', 'int32', 6, 'o'),
    ),
    'meta.v1.StatusCause': (
        ('reason', 'string', 1, 'o'), ('message', 'string', 2, 'o'), ('field', 'string', 3, 'o'),
    ),
    'meta.v1.StatusDetails': (
        ('name', 'string', 1, 'o'), ('group', 'string', 2, 'o'), ('kind', 'string', 3, 'o'),
        ('uid', 'string', 6, 'o'), ('causes', '[]meta.v1.StatusCause', 4, 'o'),
        ('retryAfterSeconds', 'int32', 5, 'o'),
    ),
    'meta.v1.WatchEvent': (
        ('type', 'string', 1, ''), ('object', 'RawExtension', 2, ''),
    ),
    'rbac.v1.AggregationRule': (
        ('clusterRoleSelectors', '[]meta.v1.LabelSelector', 1, 'o'),
    ),
    'rbac.v1.ClusterRole': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('rules', '[]rbac.v1.PolicyRule', 2, ''), ('aggregationRule', '*rbac.v1.AggregationRule', 3, 'o'),
    ),
    'rbac.v1.ClusterRoleBinding': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('subjects', '[]rbac.v1.Subject', 2, 'o'), ('roleRef', 'rbac.v1.RoleRef', 3, ''),
    ),
    'rbac.v1.ClusterRoleBindingList': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('items', '[]rbac.v1.ClusterRoleBinding', 2, ''),
    ),
    'rbac.v1.ClusterRoleList': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('items', '[]rbac.v1.ClusterRole', 2, ''),
    ),
    'rbac.v1.PolicyRule': (
        ('verbs', '[]string', 1, ''), ('apiGroups', '[]string', 2, 'o'), ('resources', '[]string', 3, 'o'),
        ('resourceNames', '[]string', 4, 'o'), ('nonResourceURLs', '[]string', 5, 'o'),
    ),
    'rbac.v1.Role': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('rules', '[]rbac.v1.PolicyRule', 2, ''),
    ),
    'rbac.v1.RoleBinding': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('subjects', '[]rbac.v1.Subject', 2, 'o'), ('roleRef', 'rbac.v1.RoleRef', 3, ''),
    ),
    'rbac.v1.RoleBindingList': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('items', '[]rbac.v1.RoleBinding', 2, ''),
    ),
    'rbac.v1.RoleList': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('items', '[]rbac.v1.Role', 2, ''),
    ),
    'rbac.v1.RoleRef': (
        ('apiGroup', 'string', 1, ''), ('kind', 'string', 2, ''), ('name', 'string', 3, ''),
    ),
    'rbac.v1.Subject': (
        ('kind', 'string', 1, ''), ('apiGroup', 'string', 2, 'o'), ('name', 'string', 3, ''),
        ('namespace', 'string', 4, 'o'),
    ),
}


# `<struct>.<json field>` -> (list type, list map keys) for the lists that are not atomic, and the
# maps that are atomic (`('atomic', ())`).
LIST_TYPES = {
    'apps.v1.DaemonSetStatus.conditions': ('map', ('type',)),
    'apps.v1.DeploymentStatus.conditions': ('map', ('type',)),
    'apps.v1.ReplicaSetStatus.conditions': ('map', ('type',)),
    'apps.v1.StatefulSetStatus.conditions': ('map', ('type',)),
    'autoscaling.v2.HorizontalPodAutoscalerStatus.conditions': ('map', ('type',)),
    'core.v1.Container.env': ('map', ('name',)),
    'core.v1.Container.ports': ('map', ('containerPort', 'protocol')),
    'core.v1.Container.volumeDevices': ('map', ('devicePath',)),
    'core.v1.Container.volumeMounts': ('map', ('mountPath',)),
    'core.v1.ContainerRestartRuleOnExitCodes.values': ('set', ()),
    'core.v1.ContainerStatus.allocatedResourcesStatus': ('map', ('name',)),
    'core.v1.ContainerStatus.volumeMounts': ('map', ('mountPath',)),
    'core.v1.EphemeralContainerCommon.env': ('map', ('name',)),
    'core.v1.EphemeralContainerCommon.ports': ('map', ('containerPort', 'protocol')),
    'core.v1.EphemeralContainerCommon.volumeDevices': ('map', ('devicePath',)),
    'core.v1.EphemeralContainerCommon.volumeMounts': ('map', ('mountPath',)),
    'core.v1.NamespaceStatus.conditions': ('map', ('type',)),
    'core.v1.NodeAllocatableResourceClaimStatus.containers': ('set', ()),
    'core.v1.NodeAllocatableResourceClaimStatus.mapping': ('map', ('name',)),
    'core.v1.NodeAllocatableResourceClaimStatus.overhead': ('map', ('name',)),
    'core.v1.NodePodPreemptionPolicy.disableResizePreemption': ('set', ()),
    'core.v1.NodeSpec.podCIDRs': ('set', ()),
    'core.v1.NodeStatus.addresses': ('map', ('type',)),
    'core.v1.NodeStatus.conditions': ('map', ('type',)),
    'core.v1.PersistentVolumeClaimStatus.conditions': ('map', ('type',)),
    'core.v1.PodSpec.containers': ('map', ('name',)),
    'core.v1.PodSpec.ephemeralContainers': ('map', ('name',)),
    'core.v1.PodSpec.evictionResponders': ('map', ('name',)),
    'core.v1.PodSpec.hostAliases': ('map', ('ip',)),
    'core.v1.PodSpec.imagePullSecrets': ('map', ('name',)),
    'core.v1.PodSpec.initContainers': ('map', ('name',)),
    'core.v1.PodSpec.nodeSelector': ('atomic', ()),
    'core.v1.PodSpec.resourceClaims': ('map', ('name',)),
    'core.v1.PodSpec.schedulingGates': ('map', ('name',)),
    'core.v1.PodSpec.topologySpreadConstraints': ('map', ('topologyKey', 'whenUnsatisfiable')),
    'core.v1.PodSpec.volumes': ('map', ('name',)),
    'core.v1.PodStatus.conditions': ('map', ('type',)),
    'core.v1.PodStatus.nodeAllocatableResourceClaimStatuses': ('map', ('resourceClaimName',)),
    'core.v1.PodStatus.podIPs': ('map', ('ip',)),
    'core.v1.PodStatus.resourceClaimStatuses': ('map', ('name',)),
    'core.v1.PodStatus.volumeHealth': ('map', ('name',)),
    'core.v1.PodVolumeHealth.healthConditions': ('map', ('status', 'reason')),
    'core.v1.ReplicationControllerSpec.selector': ('atomic', ()),
    'core.v1.ReplicationControllerStatus.conditions': ('map', ('type',)),
    'core.v1.ResourceRequirements.claims': ('map', ('name',)),
    'core.v1.ResourceStatus.resources': ('map', ('resourceID',)),
    'core.v1.ServiceAccount.secrets': ('map', ('name',)),
    'core.v1.ServiceSpec.ports': ('map', ('port', 'protocol')),
    'core.v1.ServiceSpec.selector': ('atomic', ()),
    'core.v1.ServiceStatus.conditions': ('map', ('type',)),
    'core.v1.VolumeHealthStatus.healthConditions': ('map', ('status', 'reason')),
    'core.v1.VolumeMount.bindMountOptions': ('set', ()),
    'discovery.v1.Endpoint.addresses': ('set', ()),
    'meta.v1.ObjectMeta.finalizers': ('set', ()),
    'meta.v1.ObjectMeta.ownerReferences': ('map', ('uid',)),
}

# Structs server-side apply treats as one value.
ATOMIC_STRUCTS = frozenset({
    'autoscaling.v1.CrossVersionObjectReference',
    'core.v1.ConfigMapKeySelector',
    'core.v1.EndpointAddress',
    'core.v1.EndpointPort',
    'core.v1.EvictionResponder',
    'core.v1.FileKeySelector',
    'core.v1.LocalObjectReference',
    'core.v1.NodeSelector',
    'core.v1.NodeSelectorTerm',
    'core.v1.ObjectFieldSelector',
    'core.v1.ObjectReference',
    'core.v1.ResourceFieldSelector',
    'core.v1.ScopeSelector',
    'core.v1.SecretKeySelector',
    'core.v1.TypedLocalObjectReference',
    'discovery.v1.EndpointPort',
    'meta.v1.LabelSelector',
    'meta.v1.OwnerReference',
})


# batch/v1 (k8s.io/api batch/v1/types.go at 1.37). JobSpec's alpha `scheduling` (WorkloadWithJob,
# off by default) is not declared: a body carrying it has it dropped as an unknown field.
TYPES.update({
    'batch.v1.CronJob': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('spec', 'batch.v1.CronJobSpec', 2, 'o'), ('status', 'batch.v1.CronJobStatus', 3, 'o'),
    ),
    'batch.v1.CronJobList': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('items', '[]batch.v1.CronJob', 2, ''),
    ),
    'batch.v1.CronJobSpec': (
        ('schedule', 'string', 1, ''), ('timeZone', '*string', 8, 'o'),
        ('startingDeadlineSeconds', '*int64', 2, 'o'), ('concurrencyPolicy', 'string', 3, 'o'),
        ('suspend', '*bool', 4, 'o'), ('jobTemplate', 'batch.v1.JobTemplateSpec', 5, ''),
        ('successfulJobsHistoryLimit', '*int32', 6, 'o'), ('failedJobsHistoryLimit', '*int32', 7, 'o'),
    ),
    'batch.v1.CronJobStatus': (
        ('active', '[]core.v1.ObjectReference', 1, 'o'), ('lastScheduleTime', '*Time', 4, 'o'),
        ('lastSuccessfulTime', '*Time', 5, 'o'),
    ),
    'batch.v1.Job': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('spec', 'batch.v1.JobSpec', 2, 'o'), ('status', 'batch.v1.JobStatus', 3, 'o'),
    ),
    'batch.v1.JobCondition': (
        ('type', 'string', 1, ''), ('status', 'string', 2, ''), ('lastProbeTime', 'Time', 3, 'o'),
        ('lastTransitionTime', 'Time', 4, 'o'), ('reason', 'string', 5, 'o'), ('message', 'string', 6, 'o'),
    ),
    'batch.v1.JobList': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('items', '[]batch.v1.Job', 2, ''),
    ),
    'batch.v1.JobSpec': (
        ('parallelism', '*int32', 1, 'o'), ('completions', '*int32', 2, 'o'),
        ('activeDeadlineSeconds', '*int64', 3, 'o'),
        ('podFailurePolicy', '*batch.v1.PodFailurePolicy', 11, 'o'),
        ('successPolicy', '*batch.v1.SuccessPolicy', 16, 'o'), ('backoffLimit', '*int32', 7, 'o'),
        ('backoffLimitPerIndex', '*int32', 12, 'o'), ('maxFailedIndexes', '*int32', 13, 'o'),
        ('selector', '*meta.v1.LabelSelector', 4, 'o'), ('manualSelector', '*bool', 5, 'o'),
        ('template', 'core.v1.PodTemplateSpec', 6, ''), ('ttlSecondsAfterFinished', '*int32', 8, 'o'),
        ('completionMode', '*string', 9, 'o'), ('suspend', '*bool', 10, 'o'),
        ('podReplacementPolicy', '*string', 14, 'o'), ('managedBy', '*string', 15, 'o'),
    ),
    'batch.v1.JobStatus': (
        ('conditions', '[]batch.v1.JobCondition', 1, 'o', 'merge@type'), ('startTime', '*Time', 2, 'o'),
        ('completionTime', '*Time', 3, 'o'), ('active', 'int32', 4, 'o'), ('succeeded', 'int32', 5, 'o'),
        ('failed', 'int32', 6, 'o'), ('terminating', '*int32', 11, 'o'),
        ('completedIndexes', 'string', 7, 'o'),
        ('failedIndexes', '*string', 10, 'o'),
        ('uncountedTerminatedPods', '*batch.v1.UncountedTerminatedPods', 8, 'o'), ('ready', '*int32', 9, 'o'),
    ),
    'batch.v1.JobTemplateSpec': (
        ('metadata', 'meta.v1.ObjectMeta', 1, 'o'), ('spec', 'batch.v1.JobSpec', 2, 'o'),
    ),
    'batch.v1.PodFailurePolicy': (
        ('rules', '[]batch.v1.PodFailurePolicyRule', 1, ''),
    ),
    'batch.v1.PodFailurePolicyOnExitCodesRequirement': (
        ('containerName', '*string', 1, 'o'), ('operator', 'string', 2, ''), ('values', '[]int32', 3, ''),
    ),
    'batch.v1.PodFailurePolicyOnPodConditionsPattern': (
        ('type', 'string', 1, ''), ('status', 'string', 2, ''),
    ),
    'batch.v1.PodFailurePolicyRule': (
        ('action', 'string', 1, ''),
        ('onExitCodes', '*batch.v1.PodFailurePolicyOnExitCodesRequirement', 2, 'o'),
        ('onPodConditions', '[]batch.v1.PodFailurePolicyOnPodConditionsPattern', 3, 'o'),
    ),
    'batch.v1.SuccessPolicy': (
        ('rules', '[]batch.v1.SuccessPolicyRule', 1, ''),
    ),
    'batch.v1.SuccessPolicyRule': (
        ('succeededIndexes', '*string', 1, 'o'), ('succeededCount', '*int32', 2, 'o'),
    ),
    'batch.v1.UncountedTerminatedPods': (
        ('succeeded', '[]string', 1, 'o'), ('failed', '[]string', 2, 'o'),
    ),
})
LIST_TYPES.update({
    'batch.v1.PodFailurePolicyOnExitCodesRequirement.values': ('set', ()),
    'batch.v1.UncountedTerminatedPods.failed': ('set', ()),
    'batch.v1.UncountedTerminatedPods.succeeded': ('set', ()),
})


# Volumes and APIServices (k8s.io/api core/v1 and storage/v1, k8s.io/kube-aggregator apiregistration/v1
# at 1.37): PersistentVolumes with their inline PersistentVolumeSource, StorageClasses, APIServices.
TYPES.update({
    'core.v1.PersistentVolume': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('spec', 'core.v1.PersistentVolumeSpec', 2, 'o'),
        ('status', 'core.v1.PersistentVolumeStatus', 3, 'o'),
    ),
    'core.v1.PersistentVolumeList': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('items', '[]core.v1.PersistentVolume', 2, ''),
    ),
    'core.v1.PersistentVolumeClaimList': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('items', '[]core.v1.PersistentVolumeClaim', 2, ''),
    ),
    'core.v1.PersistentVolumeSpec': (
        ('capacity', 'map[Quantity]', 1, 'o'), ('', 'core.v1.PersistentVolumeSource', 2, 'i'),
        ('accessModes', '[]string', 3, 'o'), ('claimRef', '*core.v1.ObjectReference', 4, 'o'),
        ('persistentVolumeReclaimPolicy', 'string', 5, 'o'), ('storageClassName', 'string', 6, 'o'),
        ('mountOptions', '[]string', 7, 'o'), ('volumeMode', '*string', 8, 'o'),
        ('nodeAffinity', '*core.v1.VolumeNodeAffinity', 9, 'o'),
        ('volumeAttributesClassName', '*string', 10, 'o'),
    ),
    'core.v1.PersistentVolumeSource': (
        ('gcePersistentDisk', '*core.v1.GCEPersistentDiskVolumeSource', 1, 'o'),
        ('awsElasticBlockStore', '*core.v1.AWSElasticBlockStoreVolumeSource', 2, 'o'),
        ('hostPath', '*core.v1.HostPathVolumeSource', 3, 'o'),
        ('glusterfs', '*core.v1.GlusterfsPersistentVolumeSource', 4, 'o'),
        ('nfs', '*core.v1.NFSVolumeSource', 5, 'o'), ('rbd', '*core.v1.RBDPersistentVolumeSource', 6, 'o'),
        ('iscsi', '*core.v1.ISCSIPersistentVolumeSource', 7, 'o'),
        ('cinder', '*core.v1.CinderPersistentVolumeSource', 8, 'o'),
        ('cephfs', '*core.v1.CephFSPersistentVolumeSource', 9, 'o'),
        ('fc', '*core.v1.FCVolumeSource', 10, 'o'), ('flocker', '*core.v1.FlockerVolumeSource', 11, 'o'),
        ('flexVolume', '*core.v1.FlexPersistentVolumeSource', 12, 'o'),
        ('azureFile', '*core.v1.AzureFilePersistentVolumeSource', 13, 'o'),
        ('vsphereVolume', '*core.v1.VsphereVirtualDiskVolumeSource', 14, 'o'),
        ('quobyte', '*core.v1.QuobyteVolumeSource', 15, 'o'),
        ('azureDisk', '*core.v1.AzureDiskVolumeSource', 16, 'o'),
        ('photonPersistentDisk', '*core.v1.PhotonPersistentDiskVolumeSource', 17, 'o'),
        ('portworxVolume', '*core.v1.PortworxVolumeSource', 18, 'o'),
        ('scaleIO', '*core.v1.ScaleIOPersistentVolumeSource', 19, 'o'),
        ('local', '*core.v1.LocalVolumeSource', 20, 'o'),
        ('storageos', '*core.v1.StorageOSPersistentVolumeSource', 21, 'o'),
        ('csi', '*core.v1.CSIPersistentVolumeSource', 22, 'o'),
    ),
    'core.v1.PersistentVolumeStatus': (
        ('phase', 'string', 1, 'o'), ('message', 'string', 2, 'o'), ('reason', 'string', 3, 'o'),
        ('lastPhaseTransitionTime', '*Time', 4, 'o'),
    ),
    'core.v1.VolumeNodeAffinity': (
        ('required', '*core.v1.NodeSelector', 1, 'o'),
    ),
    'core.v1.GlusterfsPersistentVolumeSource': (
        ('endpoints', 'string', 1, ''), ('path', 'string', 2, ''), ('readOnly', 'bool', 3, 'o'),
        ('endpointsNamespace', '*string', 4, 'o'),
    ),
    'core.v1.RBDPersistentVolumeSource': (
        ('monitors', '[]string', 1, ''), ('image', 'string', 2, ''), ('fsType', 'string', 3, 'o'),
        ('pool', 'string', 4, 'o'), ('user', 'string', 5, 'o'), ('keyring', 'string', 6, 'o'),
        ('secretRef', '*core.v1.SecretReference', 7, 'o'), ('readOnly', 'bool', 8, 'o'),
    ),
    'core.v1.ISCSIPersistentVolumeSource': (
        ('targetPortal', 'string', 1, ''), ('iqn', 'string', 2, ''), ('lun', 'int32', 3, ''),
        ('iscsiInterface', 'string', 4, 'o'), ('fsType', 'string', 5, 'o'), ('readOnly', 'bool', 6, 'o'),
        ('portals', '[]string', 7, 'o'), ('chapAuthDiscovery', 'bool', 8, 'o'),
        ('chapAuthSession', 'bool', 11, 'o'), ('secretRef', '*core.v1.SecretReference', 10, 'o'),
        ('initiatorName', '*string', 12, 'o'),
    ),
    'core.v1.CinderPersistentVolumeSource': (
        ('volumeID', 'string', 1, ''), ('fsType', 'string', 2, 'o'), ('readOnly', 'bool', 3, 'o'),
        ('secretRef', '*core.v1.SecretReference', 4, 'o'),
    ),
    'core.v1.CephFSPersistentVolumeSource': (
        ('monitors', '[]string', 1, ''), ('path', 'string', 2, 'o'), ('user', 'string', 3, 'o'),
        ('secretFile', 'string', 4, 'o'), ('secretRef', '*core.v1.SecretReference', 5, 'o'),
        ('readOnly', 'bool', 6, 'o'),
    ),
    'core.v1.FlexPersistentVolumeSource': (
        ('driver', 'string', 1, ''), ('fsType', 'string', 2, 'o'),
        ('secretRef', '*core.v1.SecretReference', 3, 'o'), ('readOnly', 'bool', 4, 'o'),
        ('options', 'map[string]', 5, 'o'),
    ),
    'core.v1.AzureFilePersistentVolumeSource': (
        ('secretName', 'string', 1, ''), ('shareName', 'string', 2, ''), ('readOnly', 'bool', 3, 'o'),
        ('secretNamespace', '*string', 4, ''),
    ),
    'core.v1.ScaleIOPersistentVolumeSource': (
        ('gateway', 'string', 1, ''), ('system', 'string', 2, ''),
        ('secretRef', '*core.v1.SecretReference', 3, ''), ('sslEnabled', 'bool', 4, 'o'),
        ('protectionDomain', 'string', 5, 'o'), ('storagePool', 'string', 6, 'o'),
        ('storageMode', 'string', 7, 'o'), ('volumeName', 'string', 8, 'o'), ('fsType', 'string', 9, 'o'),
        ('readOnly', 'bool', 10, 'o'),
    ),
    'core.v1.LocalVolumeSource': (
        ('path', 'string', 1, ''), ('fsType', '*string', 2, 'o'),
    ),
    'core.v1.StorageOSPersistentVolumeSource': (
        ('volumeName', 'string', 1, 'o'), ('volumeNamespace', 'string', 2, 'o'), ('fsType', 'string', 3, 'o'),
        ('readOnly', 'bool', 4, 'o'), ('secretRef', '*core.v1.ObjectReference', 5, 'o'),
    ),
    'core.v1.CSIPersistentVolumeSource': (
        ('driver', 'string', 1, ''), ('volumeHandle', 'string', 2, ''), ('readOnly', 'bool', 3, 'o'),
        ('fsType', 'string', 4, 'o'), ('volumeAttributes', 'map[string]', 5, 'o'),
        ('controllerPublishSecretRef', '*core.v1.SecretReference', 6, 'o'),
        ('nodeStageSecretRef', '*core.v1.SecretReference', 7, 'o'),
        ('nodePublishSecretRef', '*core.v1.SecretReference', 8, 'o'),
        ('controllerExpandSecretRef', '*core.v1.SecretReference', 9, 'o'),
        ('nodeExpandSecretRef', '*core.v1.SecretReference', 10, 'o'),
    ),
    'core.v1.SecretReference': (
        ('name', 'string', 1, 'o'), ('namespace', 'string', 2, 'o'),
    ),
    'core.v1.TopologySelectorTerm': (
        ('matchLabelExpressions', '[]core.v1.TopologySelectorLabelRequirement', 1, 'o'),
    ),
    'core.v1.TopologySelectorLabelRequirement': (
        ('key', 'string', 1, ''), ('values', '[]string', 2, ''),
    ),
    'storage.v1.StorageClass': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('provisioner', 'string', 2, ''), ('parameters', 'map[string]', 3, 'o'),
        ('reclaimPolicy', '*string', 4, 'o'),
        ('mountOptions', '[]string', 5, 'o'), ('allowVolumeExpansion', '*bool', 6, 'o'),
        ('volumeBindingMode', '*string', 7, 'o'),
        ('allowedTopologies', '[]core.v1.TopologySelectorTerm', 8, 'o'),
    ),
    'storage.v1.StorageClassList': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('items', '[]storage.v1.StorageClass', 2, ''),
    ),
    'apiregistration.v1.APIService': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'),
        ('spec', 'apiregistration.v1.APIServiceSpec', 2, 'o'),
        ('status', 'apiregistration.v1.APIServiceStatus', 3, 'o'),
    ),
    'apiregistration.v1.APIServiceList': (
        ('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'),
        ('items', '[]apiregistration.v1.APIService', 2, ''),
    ),
    'apiregistration.v1.APIServiceSpec': (
        ('service', '*apiregistration.v1.ServiceReference', 1, 'o'), ('group', 'string', 2, 'o'),
        ('version', 'string', 3, 'o'), ('insecureSkipTLSVerify', 'bool', 4, 'o'),
        ('caBundle', 'bytes', 5, 'o'), ('groupPriorityMinimum', 'int32', 7, ''),
        ('versionPriority', 'int32', 8, ''),
    ),
    'apiregistration.v1.ServiceReference': (
        ('namespace', 'string', 1, 'o'), ('name', 'string', 2, 'o'), ('port', '*int32', 3, 'o'),
    ),
    'apiregistration.v1.APIServiceStatus': (
        ('conditions', '[]apiregistration.v1.APIServiceCondition', 1, 'o', 'merge@type'),
    ),
    'apiregistration.v1.APIServiceCondition': (
        ('type', 'string', 1, ''), ('status', 'string', 2, ''), ('lastTransitionTime', 'Time', 3, 'o'),
        ('reason', 'string', 4, 'o'), ('message', 'string', 5, 'o'),
    ),
})
LIST_TYPES.update({
    'apiregistration.v1.APIServiceStatus.conditions': ('map', ('type',)),
})
ATOMIC_STRUCTS |= {'core.v1.SecretReference', 'core.v1.VolumeNodeAffinity'}

# Policy, networking, certificates, LimitRange and metrics types (gotypes_table_more.py).
from . import gotypes_table_more as _more  # noqa: E402

TYPES.update(_more.TYPES)
LIST_TYPES.update(_more.LIST_TYPES)
ATOMIC_STRUCTS |= _more.ATOMIC_STRUCTS

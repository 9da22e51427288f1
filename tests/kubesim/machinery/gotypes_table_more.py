"""More Go types behind the API kubesim serves, in the format of gotypes_table.py (which merges
them): k8s.io/api policy/v1 (PodDisruptionBudget), networking/v1 (Ingress, IngressClass,
NetworkPolicy), certificates/v1 (CertificateSigningRequest), core/v1 LimitRange and
k8s.io/metrics pkg/apis/metrics/v1beta1 (PodMetrics, NodeMetrics), at Kubernetes 1.37."""

_OBJECT = (('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ObjectMeta', 1, 'o'))
_LIST = (('', 'meta.v1.TypeMeta', None, 'i'), ('metadata', 'meta.v1.ListMeta', 1, 'o'))


def _list(item):
    return _LIST + (('items', f'[]{item}', 2, ''),)


TYPES = {
    # policy/v1
    'policy.v1.PodDisruptionBudget': _OBJECT + (
        ('spec', 'policy.v1.PodDisruptionBudgetSpec', 2, 'o'),
        ('status', 'policy.v1.PodDisruptionBudgetStatus', 3, 'o'),
    ),
    'policy.v1.PodDisruptionBudgetList': _list('policy.v1.PodDisruptionBudget'),
    'policy.v1.PodDisruptionBudgetSpec': (
        ('minAvailable', '*IntOrString', 1, 'o'), ('selector', '*meta.v1.LabelSelector', 2, 'o', 'replace'),
        ('maxUnavailable', '*IntOrString', 3, 'o'), ('unhealthyPodEvictionPolicy', '*string', 4, 'o'),
    ),
    'policy.v1.PodDisruptionBudgetStatus': (
        ('observedGeneration', 'int64', 1, 'o'), ('disruptedPods', 'map[Time]', 2, 'o'),
        ('disruptionsAllowed', 'int32', 3, ''), ('currentHealthy', 'int32', 4, ''),
        ('desiredHealthy', 'int32', 5, ''), ('expectedPods', 'int32', 6, ''),
        ('conditions', '[]meta.v1.Condition', 7, 'o', 'merge@type'),
    ),
    # networking.k8s.io/v1
    'networking.v1.NetworkPolicy': _OBJECT + (('spec', 'networking.v1.NetworkPolicySpec', 2, 'o'),),
    'networking.v1.NetworkPolicyList': _list('networking.v1.NetworkPolicy'),
    'networking.v1.NetworkPolicySpec': (
        ('podSelector', 'meta.v1.LabelSelector', 1, ''),
        ('ingress', '[]networking.v1.NetworkPolicyIngressRule', 2, 'o'),
        ('egress', '[]networking.v1.NetworkPolicyEgressRule', 3, 'o'), ('policyTypes', '[]string', 4, 'o'),
    ),
    'networking.v1.NetworkPolicyIngressRule': (
        ('ports', '[]networking.v1.NetworkPolicyPort', 1, 'o'),
        ('from', '[]networking.v1.NetworkPolicyPeer', 2, 'o'),
    ),
    'networking.v1.NetworkPolicyEgressRule': (
        ('ports', '[]networking.v1.NetworkPolicyPort', 1, 'o'),
        ('to', '[]networking.v1.NetworkPolicyPeer', 2, 'o'),
    ),
    'networking.v1.NetworkPolicyPort': (
        ('protocol', '*string', 1, 'o'), ('port', '*IntOrString', 2, 'o'), ('endPort', '*int32', 3, 'o'),
    ),
    'networking.v1.IPBlock': (('cidr', 'string', 1, ''), ('except', '[]string', 2, 'o')),
    'networking.v1.NetworkPolicyPeer': (
        ('podSelector', '*meta.v1.LabelSelector', 1, 'o'),
        ('namespaceSelector', '*meta.v1.LabelSelector', 2, 'o'),
        ('ipBlock', '*networking.v1.IPBlock', 3, 'o'),
    ),
    'networking.v1.Ingress': _OBJECT + (
        ('spec', 'networking.v1.IngressSpec', 2, 'o'), ('status', 'networking.v1.IngressStatus', 3, 'o'),
    ),
    'networking.v1.IngressList': _list('networking.v1.Ingress'),
    'networking.v1.IngressSpec': (
        ('ingressClassName', '*string', 4, 'o'), ('defaultBackend', '*networking.v1.IngressBackend', 1, 'o'),
        ('tls', '[]networking.v1.IngressTLS', 2, 'o'), ('rules', '[]networking.v1.IngressRule', 3, 'o'),
    ),
    'networking.v1.IngressTLS': (('hosts', '[]string', 1, 'o'), ('secretName', 'string', 2, 'o')),
    'networking.v1.IngressStatus': (('loadBalancer', 'networking.v1.IngressLoadBalancerStatus', 1, 'o'),),
    'networking.v1.IngressLoadBalancerStatus': (
        ('ingress', '[]networking.v1.IngressLoadBalancerIngress', 1, 'o'),
    ),
    'networking.v1.IngressLoadBalancerIngress': (
        ('ip', 'string', 1, 'o'), ('hostname', 'string', 2, 'o'),
        ('ports', '[]networking.v1.IngressPortStatus', 4, 'o'),
    ),
    'networking.v1.IngressPortStatus': (
        ('port', 'int32', 1, ''), ('protocol', 'string', 2, ''), ('error', '*string', 3, 'o'),
    ),
    'networking.v1.IngressRule': (
        ('host', 'string', 1, 'o'), ('', 'networking.v1.IngressRuleValue', 2, 'i'),
    ),
    'networking.v1.IngressRuleValue': (('http', '*networking.v1.HTTPIngressRuleValue', 1, 'o'),),
    'networking.v1.HTTPIngressRuleValue': (('paths', '[]networking.v1.HTTPIngressPath', 1, ''),),
    'networking.v1.HTTPIngressPath': (
        ('path', 'string', 1, 'o'), ('pathType', '*string', 3, ''),
        ('backend', 'networking.v1.IngressBackend', 2, ''),
    ),
    'networking.v1.IngressBackend': (
        ('service', '*networking.v1.IngressServiceBackend', 4, 'o'),
        ('resource', '*core.v1.TypedLocalObjectReference', 3, 'o'),
    ),
    'networking.v1.IngressServiceBackend': (
        ('name', 'string', 1, ''), ('port', 'networking.v1.ServiceBackendPort', 2, 'o'),
    ),
    'networking.v1.ServiceBackendPort': (('name', 'string', 1, 'o'), ('number', 'int32', 2, 'o')),
    'networking.v1.IngressClass': _OBJECT + (('spec', 'networking.v1.IngressClassSpec', 2, 'o'),),
    'networking.v1.IngressClassList': _list('networking.v1.IngressClass'),
    'networking.v1.IngressClassSpec': (
        ('controller', 'string', 1, 'o'),
        ('parameters', '*networking.v1.IngressClassParametersReference', 2, 'o'),
    ),
    'networking.v1.IngressClassParametersReference': (
        ('apiGroup', '*string', 1, 'o'), ('kind', 'string', 2, ''), ('name', 'string', 3, ''),
        ('scope', '*string', 4, ''), ('namespace', '*string', 5, 'o'),
    ),
    # certificates.k8s.io/v1
    'certificates.v1.CertificateSigningRequest': _OBJECT + (
        ('spec', 'certificates.v1.CertificateSigningRequestSpec', 2, ''),
        ('status', 'certificates.v1.CertificateSigningRequestStatus', 3, 'o'),
    ),
    'certificates.v1.CertificateSigningRequestList': _list('certificates.v1.CertificateSigningRequest'),
    'certificates.v1.CertificateSigningRequestSpec': (
        ('request', 'bytes', 1, ''), ('signerName', 'string', 7, ''), ('expirationSeconds', '*int32', 8, 'o'),
        ('usages', '[]string', 5, 'o'), ('username', 'string', 2, 'o'), ('uid', 'string', 3, 'o'),
        ('groups', '[]string', 4, 'o'), ('extra', 'map[[]string]', 6, 'o'),
    ),
    'certificates.v1.CertificateSigningRequestStatus': (
        ('conditions', '[]certificates.v1.CertificateSigningRequestCondition', 1, 'o'),
        ('certificate', 'bytes', 2, 'o'),
    ),
    'certificates.v1.CertificateSigningRequestCondition': (
        ('type', 'string', 1, ''), ('status', 'string', 6, ''), ('reason', 'string', 2, 'o'),
        ('message', 'string', 3, 'o'), ('lastUpdateTime', 'Time', 4, 'o'),
        ('lastTransitionTime', 'Time', 5, 'o'),
    ),
    # core/v1 LimitRange
    'core.v1.LimitRange': _OBJECT + (('spec', 'core.v1.LimitRangeSpec', 2, 'o'),),
    'core.v1.LimitRangeList': _list('core.v1.LimitRange'),
    'core.v1.LimitRangeSpec': (('limits', '[]core.v1.LimitRangeItem', 1, ''),),
    'core.v1.LimitRangeItem': (
        ('type', 'string', 1, ''), ('max', 'map[Quantity]', 2, 'o'), ('min', 'map[Quantity]', 3, 'o'),
        ('default', 'map[Quantity]', 4, 'o'), ('defaultRequest', 'map[Quantity]', 5, 'o'),
        ('maxLimitRequestRatio', 'map[Quantity]', 6, 'o'),
    ),
    # metrics.k8s.io/v1beta1
    'metrics.v1beta1.NodeMetrics': _OBJECT + (
        ('timestamp', 'Time', 2, ''), ('window', 'Duration', 3, ''), ('usage', 'map[Quantity]', 4, ''),
    ),
    'metrics.v1beta1.NodeMetricsList': _list('metrics.v1beta1.NodeMetrics'),
    'metrics.v1beta1.PodMetrics': _OBJECT + (
        ('timestamp', 'Time', 2, ''), ('window', 'Duration', 3, ''),
        ('containers', '[]metrics.v1beta1.ContainerMetrics', 4, ''),
    ),
    'metrics.v1beta1.PodMetricsList': _list('metrics.v1beta1.PodMetrics'),
    'metrics.v1beta1.ContainerMetrics': (('name', 'string', 1, ''), ('usage', 'map[Quantity]', 2, '')),
}

LIST_TYPES = {
    'policy.v1.PodDisruptionBudgetStatus.conditions': ('map', ('type',)),
    'certificates.v1.CertificateSigningRequestStatus.conditions': ('map', ('type',)),
}
ATOMIC_STRUCTS = frozenset({'networking.v1.ServiceBackendPort'})

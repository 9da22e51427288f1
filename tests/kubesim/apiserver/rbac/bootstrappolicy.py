"""The ClusterRoles and ClusterRoleBindings an API server with RBAC creates at start
(plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go), those kubesim's served resources
and its users need: `cluster-admin` (bound to the group `system:masters`), `system:discovery`
and `system:basic-user` (bound to `system:authenticated`), `system:public-info-viewer` (bound to
`system:authenticated` and `system:unauthenticated`), the user-facing `admin`, `edit` and `view`
(empty, with `aggregationRule`s the aggregation controller fills) and the
`system:aggregate-to-admin`, `-edit`, `-view` roles whose labels feed them.

Each carries the label `kubernetes.io/bootstrapping: rbac-defaults` and the annotation
`rbac.authorization.kubernetes.io/autoupdate: "true"`; every rule's lists are sorted, as
`PolicyRuleBuilder.Rule` sorts them. kubesim adds one role of its own, `kubesim:read-only` (get,
list and watch on everything), bound to the read-only token's user.
"""

GROUP = 'rbac.authorization.k8s.io'
READ = ('get', 'list', 'watch')
WRITE = ('create', 'update', 'patch', 'delete', 'deletecollection')
READ_WRITE = READ + WRITE
AGGREGATE_TO = 'rbac.authorization.k8s.io/aggregate-to-'
LABELS = {'kubernetes.io/bootstrapping': 'rbac-defaults'}
ANNOTATIONS = {'rbac.authorization.kubernetes.io/autoupdate': 'true'}
READ_ONLY_ROLE = 'kubesim:read-only'


def rule(verbs, groups=(), resources=(), urls=()):
    out = {'verbs': sorted(verbs)}
    if urls:
        out['nonResourceURLs'] = sorted(urls)
    else:
        out['apiGroups'] = sorted(groups)
        out['resources'] = sorted(resources)
    return out


def _role(name, rules=None, labels=None, aggregate=None):
    meta = {'name': name, 'labels': {**(labels or {}), **LABELS}, 'annotations': dict(ANNOTATIONS)}
    role = {'apiVersion': f'{GROUP}/v1', 'kind': 'ClusterRole', 'metadata': meta}
    if rules is not None:
        role['rules'] = rules
    if aggregate:
        selector = {'matchLabels': {AGGREGATE_TO + aggregate: 'true'}}
        role['aggregationRule'] = {'clusterRoleSelectors': [selector]}
    return role


def _binding(role, *subjects):
    return {'apiVersion': f'{GROUP}/v1', 'kind': 'ClusterRoleBinding',
            'metadata': {'name': role, 'labels': dict(LABELS), 'annotations': dict(ANNOTATIONS)},
            'roleRef': {'apiGroup': GROUP, 'kind': 'ClusterRole', 'name': role},
            'subjects': [{'kind': kind, 'apiGroup': GROUP, 'name': name} for kind, name in subjects]}


def _words(text):
    return text.split()


PUBLIC_INFO = _words('/livez /readyz /healthz /version /version/')
DISCOVERY = PUBLIC_INFO + _words('/openapi /openapi/* /api /api/* /apis /apis/*')


def cluster_roles():
    core, w = [''], _words
    return [
        _role('cluster-admin', [rule(['*'], ['*'], ['*']), rule(['*'], urls=['*'])]),
        _role('system:discovery', [rule(['get'], urls=DISCOVERY)]),
        _role('system:basic-user', [rule(['create'], ['authorization.k8s.io'],
                                         ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
                                    rule(['create'], ['authentication.k8s.io'], ['selfsubjectreviews'])]),
        _role('system:public-info-viewer', [rule(['get'], urls=PUBLIC_INFO)]),
        _role('admin', aggregate='admin'),
        _role('edit', labels={AGGREGATE_TO + 'admin': 'true'}, aggregate='edit'),
        _role('view', labels={AGGREGATE_TO + 'edit': 'true'}, aggregate='view'),
        _role('system:aggregate-to-admin', [
            rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']),
            rule(READ_WRITE, [GROUP], ['roles', 'rolebindings']),
        ], labels={AGGREGATE_TO + 'admin': 'true'}),
        _role('system:aggregate-to-edit', [
            rule(READ, core, w('pods/attach pods/proxy pods/exec pods/portforward secrets '
                               'services/proxy')),
            rule(['impersonate'], core, ['serviceaccounts']),
            rule(WRITE, core, w('pods pods/attach pods/proxy pods/exec pods/portforward')),
            rule(WRITE, core, w('replicationcontrollers replicationcontrollers/scale serviceaccounts '
                                'services services/proxy persistentvolumeclaims configmaps secrets '
                                'events')),
            rule(WRITE, ['apps'], w('statefulsets statefulsets/scale daemonsets deployments '
                                    'deployments/scale deployments/rollback replicasets '
                                    'replicasets/scale')),
            rule(WRITE, ['autoscaling'], ['horizontalpodautoscalers']),
            rule(WRITE, ['batch'], ['jobs', 'cronjobs']),
            rule(WRITE, ['extensions'], w('daemonsets deployments deployments/scale '
                                          'deployments/rollback ingresses replicasets '
                                          'replicasets/scale replicationcontrollers/scale '
                                          'networkpolicies')),
            rule(WRITE, ['policy'], ['poddisruptionbudgets']),
            rule(WRITE, ['networking.k8s.io'], ['networkpolicies', 'ingresses']),
        ], labels={AGGREGATE_TO + 'edit': 'true'}),
        _role('system:aggregate-to-view', [
            rule(READ, core, w('pods replicationcontrollers replicationcontrollers/scale '
                               'serviceaccounts services services/status endpoints '
                               'persistentvolumeclaims persistentvolumeclaims/status configmaps')),
            rule(READ, core, w('limitranges resourcequotas bindings events pods/status '
                               'resourcequotas/status namespaces/status replicationcontrollers/status '
                               'pods/log')),
            rule(READ, core, ['namespaces']),
            rule(READ, ['discovery.k8s.io'], ['endpointslices']),
            rule(READ, ['apps'], w('controllerrevisions statefulsets statefulsets/status '
                                   'statefulsets/scale daemonsets daemonsets/status deployments '
                                   'deployments/status deployments/scale replicasets '
                                   'replicasets/status replicasets/scale')),
            rule(READ, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
            rule(READ, ['batch'], ['jobs', 'cronjobs', 'cronjobs/status', 'jobs/status']),
            rule(READ, ['extensions'], w('daemonsets daemonsets/status deployments deployments/scale '
                                         'deployments/status ingresses ingresses/status replicasets '
                                         'replicasets/scale replicasets/status '
                                         'replicationcontrollers/scale networkpolicies')),
            rule(READ, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
            rule(READ, ['networking.k8s.io'], ['networkpolicies', 'ingresses', 'ingresses/status']),
        ], labels={AGGREGATE_TO + 'view': 'true'}),
        _role(READ_ONLY_ROLE, [rule(READ, ['*'], ['*']), rule(['get'], urls=['*'])]),
    ]


def cluster_role_bindings(readonly_user):
    return [
        _binding('cluster-admin', ('Group', 'system:masters')),
        _binding('system:discovery', ('Group', 'system:authenticated')),
        _binding('system:basic-user', ('Group', 'system:authenticated')),
        _binding('system:public-info-viewer', ('Group', 'system:authenticated'),
                 ('Group', 'system:unauthenticated')),
        _binding(READ_ONLY_ROLE, ('User', readonly_user)),
    ]

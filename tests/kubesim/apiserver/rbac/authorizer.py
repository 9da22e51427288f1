"""The RBAC authorizer (plugin/pkg/auth/authorizer/rbac/rbac.go) and its rule resolver
(pkg/registry/rbac/validation/rule.go, `DefaultRuleResolver`): the rules a user holds are those of
every ClusterRoleBinding, then every RoleBinding of the request's namespace, whose subjects include
the user (by name), one of its groups, or its ServiceAccount (`system:serviceaccount:NS:NAME`; a
RoleBinding's ServiceAccount subject without a namespace is one of the binding's namespace).

The authorizer keeps its own index of Roles, ClusterRoles and their bindings, kept current by a
store listener (as the API server's informers do), so a request costs time in the bindings that
apply, not in the store's size.
"""

from ...machinery.errors import ApiError
from . import rules as rbac_rules

GROUP = 'rbac.authorization.k8s.io'
ROLES, CLUSTER_ROLES = f'{GROUP}/roles', f'{GROUP}/clusterroles'
ROLE_BINDINGS, CLUSTER_ROLE_BINDINGS = f'{GROUP}/rolebindings', f'{GROUP}/clusterrolebindings'
SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:'


def applies_to_user(user, subject, namespace):
    """appliesToUser: whether a binding's subject is this user."""
    kind, name = subject.get('kind'), subject.get('name')
    if kind == 'User':
        return user.name == name
    if kind == 'Group':
        return name in user.groups
    if kind == 'ServiceAccount':
        sa_namespace = subject.get('namespace') or namespace
        if not sa_namespace:
            return False
        return user.name == f'{SERVICE_ACCOUNT_PREFIX}{sa_namespace}:{name}'
    return False


def describe_subject(subject, binding_namespace):
    """describeSubject: `User "alice"`, `ServiceAccount "deployer/shop"`."""
    if subject.get('kind') == 'ServiceAccount':
        return f'ServiceAccount "{subject.get("name")}/{subject.get("namespace") or binding_namespace}"'
    return f'{subject.get("kind")} "{subject.get("name")}"'


def _describe(binding, subject):
    ref, meta = binding.get('roleRef') or {}, binding['metadata']
    if meta.get('namespace'):
        return (f'RoleBinding "{meta["name"]}/{meta["namespace"]}" of {ref.get("kind")} "{ref.get("name")}" '
                f'to {describe_subject(subject, meta["namespace"])}')
    return (f'ClusterRoleBinding "{meta["name"]}" of {ref.get("kind")} "{ref.get("name")}" '
            f'to {describe_subject(subject, "")}')


class RuleResolver:
    """The index of RBAC objects and the questions asked of it."""

    def __init__(self, store):
        self.store = store
        self.cluster_roles = {}
        self.roles = {}  # (namespace, name) -> Role
        self.cluster_role_bindings = {}
        self.role_bindings = {}  # namespace -> {name: RoleBinding}

    def attach(self):
        self.store.listeners.append(self.observe)
        for key, obj in list(self.store.objects.items()):
            self.observe('ADDED', key[0], obj)
        return self

    def observe(self, event_type, resource, obj):
        meta = obj['metadata']
        name, namespace = meta['name'], meta.get('namespace', '')
        if resource == CLUSTER_ROLES:
            table, key = self.cluster_roles, name
        elif resource == CLUSTER_ROLE_BINDINGS:
            table, key = self.cluster_role_bindings, name
        elif resource == ROLES:
            table, key = self.roles, (namespace, name)
        elif resource == ROLE_BINDINGS:
            table, key = self.role_bindings.setdefault(namespace, {}), name
        else:
            return
        if event_type == 'DELETED':
            table.pop(key, None)
        else:
            table[key] = obj

    # ---- GetRoleReferenceRules -------------------------------------------------------------
    def role_reference_rules(self, role_ref, namespace, registry=False):
        """The rules a binding's roleRef names; ApiError 404 when the role does not exist (as the
        informer lister names it, `role.rbac.authorization.k8s.io`, or the registry, `roles...`
        when ``registry``)."""
        kind, name = role_ref.get('kind'), role_ref.get('name', '')
        if kind == 'Role':
            role = self.roles.get((namespace, name))
            plural = 'roles' if registry else 'role'
        elif kind == 'ClusterRole':
            role = self.cluster_roles.get(name)
            plural = 'clusterroles' if registry else 'clusterrole'
        else:
            raise ApiError(500, 'InternalError', f'unsupported role reference kind: "{kind}"')
        if role is None:
            raise ApiError.not_found(f'{GROUP}/{plural}', name)
        return role.get('rules') or []

    # ---- VisitRulesFor ---------------------------------------------------------------------
    def visit_rules_for(self, user, namespace, visitor):
        """Calls ``visitor(source, rule, error)`` for every rule the user holds (ClusterRoleBindings
        first, then the namespace's RoleBindings, each in name order); stops when it returns False."""
        for name in sorted(self.cluster_role_bindings):
            binding = self.cluster_role_bindings[name]
            subject = next((s for s in binding.get('subjects') or [] if applies_to_user(user, s, '')), None)
            if subject is None:
                continue
            try:
                found = self.role_reference_rules(binding.get('roleRef') or {}, '')
            except ApiError as err:
                if not visitor(None, None, err.message):
                    return
                continue
            for rule in found:
                if not visitor(lambda b=binding, s=subject: _describe(b, s), rule, None):
                    return
        if not namespace:
            return
        bindings = self.role_bindings.get(namespace) or {}
        for name in sorted(bindings):
            binding = bindings[name]
            subject = next((s for s in binding.get('subjects') or [] if applies_to_user(user, s, namespace)),
                           None)
            if subject is None:
                continue
            try:
                found = self.role_reference_rules(binding.get('roleRef') or {}, namespace)
            except ApiError as err:
                if not visitor(None, None, err.message):
                    return
                continue
            for rule in found:
                if not visitor(lambda b=binding, s=subject: _describe(b, s), rule, None):
                    return

    def rules_for(self, user, namespace):
        """RulesFor: (every rule the user holds in ``namespace``, the resolution errors)."""
        held, errors = [], []

        def collect(_source, rule, error):
            if rule is not None:
                held.append(rule)
            if error:
                errors.append(error)
            return True

        self.visit_rules_for(user, namespace, collect)
        return held, errors


def aggregate(errors):
    """utilerrors.NewAggregate(errs).Error(): one error as is, several as `[a, b]`."""
    if len(errors) == 1:
        return errors[0]
    return '[' + ', '.join(errors) + ']'


class RBACAuthorizer:
    """Authorize(attributes) -> (allowed, reason). The privileged group `system:masters` is allowed
    before RBAC is asked (the superuser authorizer kube-apiserver puts first,
    pkg/kubeapiserver/authorizer/config.go)."""

    PRIVILEGED_GROUP = 'system:masters'

    def __init__(self, resolver):
        self.resolver = resolver

    def authorize(self, attrs):
        user = attrs['user']
        if self.PRIVILEGED_GROUP in user.groups:
            return True, ''
        outcome = {'allowed': False, 'reason': '', 'errors': []}

        def visit(source, rule, error):
            if rule is not None and rbac_rules.rule_allows(attrs, rule):
                outcome['allowed'] = True
                outcome['reason'] = f'RBAC: allowed by {source()}'
                return False
            if error:
                outcome['errors'].append(error)
            return True

        self.resolver.visit_rules_for(user, attrs.get('namespace') or '', visit)
        if outcome['allowed']:
            return True, outcome['reason']
        if outcome['errors']:
            return False, f'RBAC: {aggregate(outcome["errors"])}'
        return False, ''

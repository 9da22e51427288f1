"""Privilege escalation prevention (pkg/registry/rbac/escalation_check.go, the policybased storages
of pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}, and `ConfirmNoEscalation`
in pkg/registry/rbac/validation/rule.go).

Creating or updating a Role or ClusterRole needs the `escalate` verb on it, or every permission
it grants held by the requester in the role's namespace (a ClusterRole: cluster-wide); an
`aggregationRule` needs cluster-admin's (`*` on everything). Creating or updating a binding needs
the `bind` verb on the role it names, or every permission of that role. Members of
`system:masters` skip the checks. The answer is the storage's 403:

    roles.rbac.authorization.k8s.io "r" is forbidden: user "alice" (groups=["dev"
    "system:authenticated"]) is attempting to grant RBAC permissions not currently held:
    {APIGroups:["apps"], Resources:["deployments"], Verbs:["patch"]}

The requester is the request being served (`REQUEST`, a context variable the API server sets when
RBAC is on); writes with none (controllers, kubesim's own set-up) are not checked.
"""

import contextvars

from ...machinery.errors import ApiError
from . import rules as rbac_rules
from .authorizer import GROUP, RBACAuthorizer, aggregate

# (user, authorizer) of the request being served, when RBAC is on.
REQUEST = contextvars.ContextVar('kubesim_rbac_request', default=None)
FULL_AUTHORITY = [{'verbs': ['*'], 'apiGroups': ['*'], 'resources': ['*']},
                  {'verbs': ['*'], 'nonResourceURLs': ['*']}]


def _masters(user):
    return RBACAuthorizer.PRIVILEGED_GROUP in user.groups


def confirm_no_escalation(user, resolver, namespace, wanted):
    """ConfirmNoEscalation: None when the user holds every rule of ``wanted`` in ``namespace``,
    else the message naming what it misses."""
    held, errors = resolver.rules_for(user, namespace)
    ok, missing = rbac_rules.covers(held, wanted)
    if ok:
        return None
    described = sorted({rbac_rules.compact_string(r) for r in rbac_rules.compact_rules(missing)})
    message = (f'user "{user.name}" (groups={rbac_rules.go_quote_list(user.groups)}) is attempting to grant '
               'RBAC permissions not currently held:\n' + '\n'.join(described))
    if errors:
        message += f'; resolution errors: [{aggregate(errors)}]'
    return message


def check_role(plural, obj, old):
    """The Role / ClusterRole storages' Create and Update."""
    current = REQUEST.get()
    if current is None:
        return
    user, authorizer = current
    if _masters(user):
        return
    meta = obj.get('metadata') or {}
    name, namespace = meta.get('name', ''), meta.get('namespace', '')
    allowed, _ = authorizer.authorize({'user': user, 'verb': 'escalate', 'api_group': GROUP,
                                       'api_version': 'v1', 'resource': plural, 'subresource': '',
                                       'name': name, 'namespace': namespace, 'resource_request': True,
                                       'path': ''})
    if allowed:
        return
    key = f'{GROUP}/{plural}'
    problem = confirm_no_escalation(user, authorizer.resolver, namespace, obj.get('rules') or [])
    if problem:
        raise ApiError.forbidden_because(key, name, problem)
    if plural == 'clusterroles' and obj.get('aggregationRule') is not None \
            and confirm_no_escalation(user, authorizer.resolver, '', FULL_AUTHORITY):
        raise ApiError.forbidden_because(key, name,
                                         'must have cluster-admin privileges to use the aggregationRule')


def check_binding(plural, obj, old):
    """The RoleBinding / ClusterRoleBinding storages' Create and Update."""
    current = REQUEST.get()
    if current is None:
        return
    user, authorizer = current
    if _masters(user):
        return
    meta = obj.get('metadata') or {}
    name, namespace = meta.get('name', ''), meta.get('namespace', '')
    ref = obj.get('roleRef') or {}
    target = {'Role': 'roles', 'ClusterRole': 'clusterroles'}.get(ref.get('kind'))
    if target is not None:
        allowed, _ = authorizer.authorize({'user': user, 'verb': 'bind', 'api_group': ref.get('apiGroup', ''),
                                           'api_version': '', 'resource': target, 'subresource': '',
                                           'name': ref.get('name', ''), 'namespace': namespace,
                                           'resource_request': True, 'path': ''})
        if allowed:
            return
    granted = authorizer.resolver.role_reference_rules(ref, namespace, registry=True)
    problem = confirm_no_escalation(user, authorizer.resolver, namespace, granted)
    if problem:
        raise ApiError.forbidden_because(f'{GROUP}/{plural}', name, problem)

"""Authorization, as kube-apiserver's handler chain does it with `--authorization-mode RBAC`:

- what a request asks to do, from its method and path (`request_attributes`: the verb, API group,
  resource, subresource, name and namespace of apiserver pkg/endpoints/request/requestinfo.go, or
  a non-resource path and the method as verb);
- the authorization filter (apiserver pkg/endpoints/filters/authorization.go) asking the
  authorizer, and its 403 (`forbidden`, as responsewriters/errors.go `forbiddenMessage` and
  apimachinery's `NewForbidden` write it);
- the impersonation filter's checks (filters/impersonation.go): the `impersonate` verb on
  `users`, `groups`, `serviceaccounts` (core group), `uids` and `userextras/<key>`
  (authentication.k8s.io);
- the access reviews of authorization.k8s.io/v1 (pkg/registry/authorization):
  SelfSubjectAccessReview, SelfSubjectRulesReview and SubjectAccessReview, answered, never stored.

Without an authorization mode every request is allowed (AlwaysAllow), reviews included.
"""

import json

from ..machinery.errors import ApiError
from . import typed
from .authentication import USER_INFO, UserInfo, split_service_account
from .handlers.responsewriters import _json_response
from .rbac import escalation
from .rbac.authorizer import RBACAuthorizer, RuleResolver, aggregate

AUTHORIZATION_GROUP = 'authorization.k8s.io'
AUTHORIZATION_MODES = ('AlwaysAllow', 'RBAC')
_VERBS = {'POST': 'create', 'GET': 'get', 'HEAD': 'get', 'PUT': 'update', 'PATCH': 'patch',
          'DELETE': 'delete'}


def _exact_name(field_selector):
    """fields.Selector.RequiresExactMatch("metadata.name") of a fieldSelector, if a valid name."""
    for term in (field_selector or '').split(','):
        for op in ('==', '='):
            key, sep, value = term.partition(op)
            if sep and key.strip() == 'metadata.name' and not key.endswith('!'):
                value = value.strip()
                if value and value not in ('.', '..') and '/' not in value and '%' not in value:
                    return value
                return None
    return None


def request_attributes(method, path, query, user):
    """The authorizer's attributes of a request (RequestInfoFactory.NewRequestInfo)."""
    attrs = {'user': user, 'verb': method.lower(), 'api_group': '', 'api_version': '', 'resource': '',
             'subresource': '', 'name': '', 'namespace': '', 'resource_request': False, 'path': path}
    parts = [p for p in path.strip('/').split('/') if p]
    if len(parts) < 3 or parts[0] not in ('api', 'apis'):
        return attrs
    prefix, parts = parts[0], parts[1:]
    if prefix == 'apis':
        if len(parts) < 3:
            return attrs
        attrs['api_group'], parts = parts[0], parts[1:]
    attrs['api_version'], parts = parts[0], parts[1:]
    attrs['resource_request'] = True
    if parts[0] in ('watch', 'proxy'):
        attrs['verb'], parts = parts[0], parts[1:]
        if not parts:
            return attrs
    else:
        attrs['verb'] = _VERBS.get(method, '')
    if parts[0] == 'namespaces':
        if len(parts) > 1:
            attrs['namespace'] = parts[1]
            if len(parts) > 2 and parts[2] not in ('status', 'finalize'):
                parts = parts[2:]
    if len(parts) >= 3 and attrs['verb'] != 'proxy':
        attrs['subresource'] = parts[2]
    if len(parts) >= 2:
        attrs['name'] = parts[1]
    attrs['resource'] = parts[0]
    if not attrs['name'] and attrs['verb'] == 'get':
        attrs['verb'] = 'watch' if query.get('watch') in ('1', 'true', 'True') else 'list'
        attrs['name'] = _exact_name(query.get('fieldSelector')) or ''
    if not attrs['name'] and attrs['verb'] == 'delete':
        attrs['verb'] = 'deletecollection'
    return attrs


def forbidden(attrs, reason=''):
    """responsewriters.Forbidden: `deployments.apps "web" is forbidden: User "alice" cannot patch
    resource "deployments" in API group "apps" in the namespace "shop"` (`: <reason>` after it when
    the authorizer gave one); details name the group, resource and name."""
    user = attrs['user'].name
    if not attrs['resource_request']:
        text = f'User "{user}" cannot {attrs["verb"]} path "{attrs["path"]}"'
    else:
        resource = attrs['resource'] + (f'/{attrs["subresource"]}' if attrs['subresource'] else '')
        scope = (f'in the namespace "{attrs["namespace"]}"' if attrs['namespace'] else 'at the cluster scope')
        text = (f'User "{user}" cannot {attrs["verb"]} resource "{resource}" in API group '
                f'"{attrs["api_group"]}" {scope}')
    if reason:
        text = f'{text}: {reason}'
    group, resource, name = attrs['api_group'], attrs['resource'], attrs['name']
    if not group and not resource:
        message = f'forbidden: {text}'
    else:
        qualified = f'{resource}.{group}' if group else resource
        named = f'{qualified} "{name}"' if name else qualified
        message = f'{named} is forbidden: {text}'
    details = {}
    if name:
        details['name'] = name
    if group:
        details['group'] = group
    if resource:
        details['kind'] = resource
    return ApiError(403, 'Forbidden', message, details)


def _resource_attributes(user, spec):
    ra = spec.get('resourceAttributes')
    if ra is not None:
        return {'user': user, 'verb': ra.get('verb', ''), 'api_group': ra.get('group', ''),
                'api_version': ra.get('version', ''), 'resource': ra.get('resource', ''),
                'subresource': ra.get('subresource', ''), 'name': ra.get('name', ''),
                'namespace': ra.get('namespace', ''), 'resource_request': True, 'path': ''}
    nra = spec.get('nonResourceAttributes') or {}
    return {'user': user, 'verb': nra.get('verb', ''), 'api_group': '', 'api_version': '', 'resource': '',
            'subresource': '', 'name': '', 'namespace': '', 'resource_request': False,
            'path': nra.get('path', '')}


def _go_struct(type_name, fields, value):
    inner = ', '.join(f'{go}:{json.dumps(value.get(key, ""))}' for go, key in fields)
    return f'authorization.{type_name}{{{inner}}}'


def _validate_review_spec(errs, spec):
    """ValidateSelfSubjectAccessReviewSpec (SubjectAccessReviewSpec's first checks)."""
    ra, nra = spec.get('resourceAttributes'), spec.get('nonResourceAttributes')
    if ra is not None and nra is not None:
        shown = _go_struct('NonResourceAttributes', (('Path', 'path'), ('Verb', 'verb')), nra)
        errs.append(('spec.nonResourceAttributes', 'FieldValueInvalid',
                     f'Invalid value: {shown}: cannot be specified in combination with resourceAttributes'))
    if ra is None and nra is None:
        errs.append(('spec.resourceAttributes', 'FieldValueInvalid',
                     'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must '
                     'be specified'))


class Authorization:
    """The ApiServer's authorization: `authorizer` is the RBACAuthorizer with
    `--authorization-mode RBAC`, None for AlwaysAllow."""

    authorizer = None

    def _setup_authorization(self, mode):
        if mode in (None, '', 'AlwaysAllow'):
            return
        if mode != 'RBAC':
            raise ValueError(f'unknown authorization mode {mode!r}: expected one of '
                             f'{", ".join(AUTHORIZATION_MODES)}')
        self.authorizer = RBACAuthorizer(RuleResolver(self.store).attach())

    def _authorize_request(self, request):
        """The authorization filter: 403 unless the authorizer allows the request. With RBAC on,
        the request's user stays known to the RBAC storages' escalation checks."""
        if self.authorizer is None:
            return
        user = request[USER_INFO]
        escalation.REQUEST.set((user, self.authorizer))
        attrs = request_attributes(request.method, request.path, request.query, user)
        allowed, reason = self.authorizer.authorize(attrs)
        if not allowed:
            raise forbidden(attrs, reason)

    def _authorize_impersonation(self, request, requestor, impersonate):
        if self.authorizer is None:
            return
        checks = []
        name = impersonate['user']
        account = split_service_account(name)
        if account:
            checks.append(('', 'serviceaccounts', '', account[0], account[1]))
        else:
            checks.append(('', 'users', '', '', name))
        checks += [('', 'groups', '', '', group) for group in impersonate.get('groups') or []]
        for key, values in (impersonate.get('extra') or {}).items():
            checks += [('authentication.k8s.io', 'userextras', key, '', value) for value in values]
        if impersonate.get('uid'):
            checks.append(('authentication.k8s.io', 'uids', '', '', impersonate['uid']))
        for group, resource, subresource, namespace, value in checks:
            attrs = {'user': requestor, 'verb': 'impersonate', 'api_group': group, 'api_version': 'v1',
                     'resource': resource, 'subresource': subresource, 'name': value, 'namespace': namespace,
                     'resource_request': True, 'path': request.path}
            allowed, reason = self.authorizer.authorize(attrs)
            if not allowed:
                raise forbidden(attrs, reason)

    # ---- authorization.k8s.io/v1 ------------------------------------------------------------
    def _decide(self, attrs):
        if self.authorizer is None:
            return True, ''
        return self.authorizer.authorize(attrs)

    def _rules_for(self, user, namespace):
        if self.authorizer is None:
            return ([{'verbs': ['*'], 'apiGroups': ['*'], 'resources': ['*']}],
                    [{'verbs': ['*'], 'nonResourceURLs': ['*']}], '')
        held, errors = self.authorizer.resolver.rules_for(user, namespace)
        keys = ('verbs', 'apiGroups', 'resources', 'resourceNames')
        resource_rules = [{k: list(r[k]) for k in keys if r.get(k)} for r in held if r.get('resources')]
        for rule in resource_rules:
            rule.setdefault('verbs', [])
        non_resource = [{'verbs': list(r.get('verbs') or []), 'nonResourceURLs': list(r['nonResourceURLs'])}
                        for r in held if r.get('nonResourceURLs')]
        return resource_rules, non_resource, aggregate(errors) if errors else ''

    async def _review(self, request, route):
        """POST of a review: validated, answered with its status (201), not stored."""
        if request.method != 'POST' or route.name is not None:
            raise ApiError.method_not_allowed()
        res = route.resource
        obj = self._check_body(route, await self._body(request, route), name_required=False)
        obj, warnings = self._typed(request, route, obj)
        spec = obj.get('spec') or {}
        user = request[USER_INFO]
        causes = []
        if res.kind == 'SelfSubjectRulesReview':
            if not spec.get('namespace'):
                raise ApiError.bad_request('no namespace on request')
            resource_rules, non_resource_rules, error = self._rules_for(user, spec['namespace'])
            obj['status'] = {'resourceRules': resource_rules, 'nonResourceRules': non_resource_rules,
                             'incomplete': False}
            if error:
                obj['status']['evaluationError'] = error
        else:
            _validate_review_spec(causes, spec)
            if res.kind == 'LocalSubjectAccessReview':
                ra = spec.get('resourceAttributes')
                if ra is not None and ra.get('namespace', '') != route.namespace:
                    causes.append(('spec.resourceAttributes.namespace', 'FieldValueInvalid',
                                   f'Invalid value: {json.dumps(ra.get("namespace", ""))}: must match '
                                   'metadata.namespace'))
                if spec.get('nonResourceAttributes') is not None:
                    shown = _go_struct('NonResourceAttributes', (('Path', 'path'), ('Verb', 'verb')),
                                       spec['nonResourceAttributes'])
                    causes.append(('spec.nonResourceAttributes', 'FieldValueInvalid',
                                   f'Invalid value: {shown}: disallowed on this kind of request'))
            if res.kind in ('SubjectAccessReview', 'LocalSubjectAccessReview'):
                if not spec.get('user') and not spec.get('groups'):
                    causes.append(('spec.user', 'FieldValueInvalid',
                                   f'Invalid value: {json.dumps(spec.get("user", ""))}: at least one of '
                                   'user or group must be specified'))
                user = UserInfo(spec.get('user', ''), tuple(spec.get('groups') or ()), spec.get('uid', ''))
            if causes:
                raise ApiError.invalid(res.key, '', causes, kind=f'{res.kind}.{AUTHORIZATION_GROUP}')
            allowed, reason = self._decide(_resource_attributes(user, spec))
            obj['status'] = {'allowed': allowed}
            if reason:
                obj['status']['reason'] = reason
        answer = typed.encode(res.group, res.version, res.kind, obj)
        return self._warned(_json_response(answer, status=201), warnings)


def is_review(route):
    return (route.kind == 'resource' and route.resource is not None
            and route.resource.group == AUTHORIZATION_GROUP)


"""Kubernetes `Status` errors, raised anywhere in kubesim and rendered by the HTTP layer."""


def _kind_name(resource):
    """'apps/deployments' -> ('apps', 'deployments')."""
    group, _, plural = resource.rpartition('/')
    return group, plural


# Store key -> the kind with its group (`Deployment.apps`) of the built-in resources: filled by the
# resource registry as it loads (apiserver/registry/resources.py), read by `invalid`.
QUALIFIED_KINDS = {}

DETAILS_ORDER = ('name', 'group', 'kind', 'uid', 'causes', 'retryAfterSeconds')


class ApiError(Exception):
    def __init__(self, code, reason, message, details=None, headers=None):
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details
        self.headers = headers or {}

    def status(self):
        """The Status as the API server writes it: metav1.Status's fields in Go order (kind,
        apiVersion, metadata, status, message, reason, details, code), empty ones omitted, and
        `details` in StatusDetails order (name, group, kind, uid, causes, retryAfterSeconds);
        ``details={}`` is printed as `{}`, as for a StatusDetails with nothing set."""
        body = {'kind': 'Status', 'apiVersion': 'v1', 'metadata': {}, 'status': 'Failure',
                'message': self.message}
        if self.reason:  # the API server omits an unknown reason
            body['reason'] = self.reason
        if self.details is not None:
            body['details'] = {key: self.details[key] for key in DETAILS_ORDER if self.details.get(key)}
        body['code'] = self.code
        return body

    @classmethod
    def _about(cls, code, reason, resource, name, message, **extra):
        group, plural = _kind_name(resource)
        details = {'name': name, 'kind': plural}
        if group:
            details['group'] = group
        details.update(extra)
        return cls(code, reason, message, details)

    @classmethod
    def not_found(cls, resource, name):
        group, plural = _kind_name(resource)
        what = f'{plural}.{group}' if group else plural
        return cls._about(404, 'NotFound', resource, name, f'{what} "{name}" not found')

    @classmethod
    def already_exists(cls, resource, name):
        group, plural = _kind_name(resource)
        what = f'{plural}.{group}' if group else plural
        return cls._about(409, 'AlreadyExists', resource, name, f'{what} "{name}" already exists')

    @classmethod
    def conflict(cls, resource, name, message=None):
        group, plural = _kind_name(resource)
        what = f'{plural}.{group}' if group else plural
        msg = (f'Operation cannot be fulfilled on {what} "{name}": '
               + (message or 'the object has been modified; please apply your changes to the '
                  'latest version and try again'))
        return cls._about(409, 'Conflict', resource, name, msg)

    @classmethod
    def invalid(cls, resource, name, causes, kind=None):
        """causes: [(field, reason_type, message)], e.g. ('spec.template.spec.containers[0].name',
        'FieldValueRequired', 'Required value')."""
        if kind is None:
            kind = QUALIFIED_KINDS.get(resource) or _kind_name(resource)[1]
        # errs.ToAggregate(): one message as it is, several (duplicates once) in brackets.
        messages = list(dict.fromkeys(f'{field}: {msg}' for field, _t, msg in causes))
        text = messages[0] if len(messages) == 1 else '[' + ', '.join(messages) + ']' if messages else ''
        # As errors.NewInvalid: details name the kind and its group (not the resource).
        bare, _, group = kind.partition('.')
        details = {**({'name': name} if name else {}), **({'group': group} if group else {}),
                   **({'kind': bare} if bare else {}),
                   'causes': [{'reason': t, 'message': m, 'field': f} for f, t, m in causes]}
        message = f'{kind} "{name}" is invalid: {text}' if text else f'{kind} "{name}" is invalid'
        return cls(422, 'Invalid', message, details)

    @classmethod
    def bad_request(cls, message):
        return cls(400, 'BadRequest', message)

    @classmethod
    def unauthorized(cls):
        return cls(401, 'Unauthorized', 'Unauthorized')

    @classmethod
    def forbidden(cls, user, verb, resource, namespace=None):
        group, plural = _kind_name(resource)
        scope = f' in the namespace "{namespace}"' if namespace else ' at the cluster scope'
        return cls(403, 'Forbidden',
                   f'{plural}{"." + group if group else ""} is forbidden: User "{user}" cannot '
                   f'{verb} resource "{plural}" in API group "{group}"{scope}',
                   {'kind': plural, **({'group': group} if group else {})})

    @classmethod
    def forbidden_because(cls, resource, name, reason):
        """admission.NewForbidden: `pods "web" is forbidden: <reason>`."""
        group, plural = _kind_name(resource)
        what = f'{plural}.{group}' if group else plural
        return cls._about(403, 'Forbidden', resource, name, f'{what} "{name}" is forbidden: {reason}')

    @classmethod
    def namespace_terminating(cls, resource, name, namespace):
        """The NamespaceLifecycle admission plugin's refusal of new content."""
        err = cls.forbidden_because(resource, name, f'unable to create new content in namespace {namespace} '
                                    'because it is being terminated')
        err.details['causes'] = [{'reason': 'NamespaceTerminating',
                                  'message': f'namespace {namespace} is being terminated',
                                  'field': 'metadata.namespace'}]
        return err

    @classmethod
    def too_many_requests(cls, retry_after=1):
        return cls(429, 'TooManyRequests', 'Too many requests, please try again later.',
                   {'retryAfterSeconds': retry_after}, {'Retry-After': str(retry_after)})

    @classmethod
    def internal(cls, reason='simulated fault'):
        """errors.NewInternalError: the reason as the only cause."""
        return cls(500, 'InternalError', f'Internal error occurred: {reason}',
                   {'causes': [{'message': reason}]})

    @classmethod
    def unavailable(cls, message='the server is currently unable to handle the request'):
        return cls(503, 'ServiceUnavailable', message)

    @classmethod
    def gone(cls, message='too old resource version'):
        return cls(410, 'Expired', message)

    @classmethod
    def method_not_allowed(cls, message='the server does not allow this method on the requested '
                           'resource'):
        """What go-restful's 405 becomes (apiserver's serviceErrorHandler): empty details."""
        return cls(405, 'MethodNotAllowed', message, {})

    @classmethod
    def unsupported_media_type(cls, accepted=('application/json-patch+json', 'application/merge-patch+json',
                                              'application/strategic-merge-patch+json')):
        """The API server's answer to a body in a media type it has no decoder for (its message lists
        what it accepts and does not echo what was sent)."""
        return cls(415, 'UnsupportedMediaType',
                   f'the body of the request was in an unknown format - accepted media types '
                   f'include: {", ".join(accepted)}')

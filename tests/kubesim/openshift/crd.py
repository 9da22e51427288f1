"""The OpenShift Route (`route.openshift.io/v1`, namespaced, status subresource) as kubesim serves
it: one CustomResourceDefinition whose schema is written here from openshift/api
`route/v1/types.go` (Route, RouteSpec, RouteTargetReference, RoutePort, TLSConfig, RouteStatus,
RouteIngress, RouteIngressCondition): their fields, types and `+kubebuilder:default` values, and the
printer columns of its `+kubebuilder:printcolumn` markers.

On OpenShift the Route is served by openshift-apiserver, not by a CRD: its validation is Go code
(library-go `pkg/route/validation`), which `validation.py` follows with the same messages. So the
schema here carries types and defaults only; the bounds (weights 0-256, at most 3 alternate
backends, kind Service) are the validation's, answered 422 with openshift-apiserver's words.
"""

GROUP = 'route.openshift.io'
VERSION = 'v1'
PLURAL = 'routes'
KIND = 'Route'


def _string(**extra):
    return {'type': 'string', **extra}


def _object(properties, required=(), **extra):
    out = {'type': 'object', 'properties': properties}
    if required:
        out['required'] = list(required)
    out.update(extra)
    return out


def target_reference():
    """RouteTargetReference: kind (default Service), name, weight (default 100)."""
    return _object(
        {
            'kind': _string(default='Service'),
            'name': _string(),
            'weight': {'type': 'integer', 'format': 'int32', 'default': 100},
        },
        required=('kind', 'name'),
    )


def tls_config():
    return _object(
        {
            'termination': _string(),
            'certificate': _string(),
            'key': _string(),
            'caCertificate': _string(),
            'destinationCACertificate': _string(),
            'insecureEdgeTerminationPolicy': _string(),
            'externalCertificate': _object({'name': _string()}, **{'x-kubernetes-map-type': 'atomic'}),
        },
        required=('termination',),
    )


def header_actions():
    header = _object(
        {
            'name': _string(),
            'action': _object(
                {'type': _string(), 'set': _object({'value': _string()}, required=('value',))},
                required=('type',),
            ),
        },
        required=('name', 'action'),
    )
    listed = {
        'type': 'array',
        'items': header,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
    }
    return _object({'actions': _object({'request': listed, 'response': listed})})


def spec():
    return _object(
        {
            'host': _string(),
            'subdomain': _string(),
            'path': _string(),
            'to': target_reference(),
            'alternateBackends': {
                'type': 'array',
                'items': target_reference(),
                'x-kubernetes-list-type': 'map',
                'x-kubernetes-list-map-keys': ['name', 'kind'],
            },
            'port': _object(
                {'targetPort': {'anyOf': [{'type': 'integer'}, {'type': 'string'}],
                                'x-kubernetes-int-or-string': True}},
                required=('targetPort',),
            ),
            'tls': tls_config(),
            'wildcardPolicy': _string(default='None'),
            'httpHeaders': header_actions(),
        },
        required=('to',),
    )


def status():
    condition = _object(
        {
            'type': _string(),
            'status': _string(),
            'reason': _string(),
            'message': _string(),
            'lastTransitionTime': _string(format='date-time'),
        },
        required=('type', 'status'),
    )
    ingress = _object(
        {
            'host': _string(),
            'routerName': _string(),
            'conditions': {
                'type': 'array',
                'items': condition,
                'x-kubernetes-list-type': 'map',
                'x-kubernetes-list-map-keys': ['type'],
            },
            'wildcardPolicy': _string(),
            'routerCanonicalHostname': _string(),
        }
    )
    return _object({'ingress': {'type': 'array', 'items': ingress, 'x-kubernetes-list-type': 'atomic'}})


def schema():
    return _object(
        {
            'apiVersion': _string(),
            'kind': _string(),
            'metadata': {'type': 'object'},
            'spec': spec(),
            'status': status(),
        },
        required=('spec',),
    )


def _column(name, path):
    return {'jsonPath': path, 'name': name, 'type': 'string'}


def crd():
    """The Route CRD object (as `kubectl apply` of its manifest would create it)."""
    columns = [
        _column('Host', '.status.ingress[0].host'),
        _column('Admitted', '.status.ingress[0].conditions[?(@.type=="Admitted")].status'),
        _column('Service', '.spec.to.name'),
        _column('TLS', '.spec.tls.type'),
    ]
    return {
        'apiVersion': 'apiextensions.k8s.io/v1',
        'kind': 'CustomResourceDefinition',
        'metadata': {'name': f'{PLURAL}.{GROUP}'},
        'spec': {
            'group': GROUP,
            'names': {'kind': KIND, 'listKind': f'{KIND}List', 'plural': PLURAL, 'singular': 'route'},
            'scope': 'Namespaced',
            'versions': [
                {
                    'name': VERSION,
                    'served': True,
                    'storage': True,
                    'schema': {'openAPIV3Schema': schema()},
                    'subresources': {'status': {}},
                    'additionalPrinterColumns': columns,
                }
            ],
        },
    }

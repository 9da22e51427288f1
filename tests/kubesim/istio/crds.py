"""The CustomResourceDefinitions of Istio's `networking.istio.io` kubesim installs: VirtualService and
DestinationRule, served as `v1` (stored), `v1beta1` and `v1alpha3`, each with the `status`
subresource, the categories `istio-io` and `networking-istio-io`, the short names `vs` and `dr` and
the printer columns of Istio's published CRDs (istio/istio `manifests/charts/base/files/
crd-all.gen.yaml`, generated from istio/api `networking/v1alpha3/virtual_service.proto` and
`destination_rule.proto`).

The schemas are structural and written here for the fields kubesim's data plane reads, with the
types Istio's generated schema gives them: `hosts`, `gateways`, `exportTo`, `http[]` (`name`,
`match[]` with its string matches {exact, prefix, regex} and one-of rule, `route[]` {destination
{host, subset, port {number}}, weight, headers}, `headers`); the other parts of an http route
(`redirect`, `rewrite`, `retries`, `fault`, `mirror`, `corsPolicy`, ...) and `tcp[]`/`tls[]` keep
whatever they hold (`x-kubernetes-preserve-unknown-fields`), as their fields are not read here. A
DestinationRule's `host`, `subsets[]` {name, labels, trafficPolicy}, `trafficPolicy`, `exportTo`,
`workloadSelector`. `status` keeps everything (Istio's status is loose: `x-kubernetes-preserve-
unknown-fields` with `conditions`, `observedGeneration` and `validationMessages`).
"""

import copy

GROUP = 'networking.istio.io'
SERVED_VERSIONS = ('v1', 'v1beta1', 'v1alpha3')  # v1 is the storage version
CATEGORIES = ('istio-io', 'networking-istio-io')


def string():
    return {'type': 'string'}


def strings():
    return {'type': 'array', 'items': string()}


def string_map():
    return {'type': 'object', 'additionalProperties': string()}


def loose(type_='object'):
    """A part kubesim does not read: kept as written."""
    return {'type': type_, 'x-kubernetes-preserve-unknown-fields': True}


def obj(properties, required=()):
    out = {'type': 'object', 'properties': properties}
    if required:
        out['required'] = list(required)
    return out


def port_number():
    return {'type': 'integer', 'minimum': 0, 'maximum': 4294967295}


def string_match():
    """StringMatch: one of exact, prefix, regex (or none)."""
    kinds = ('exact', 'prefix', 'regex')
    out = obj({k: string() for k in kinds})
    out['oneOf'] = [{'not': {'anyOf': [{'required': [k]} for k in kinds]}}] + [
        {'required': [k]} for k in kinds
    ]
    return out


def header_operations():
    return obj(
        {
            side: obj({'add': string_map(), 'remove': strings(), 'set': string_map()})
            for side in ('request', 'response')
        }
    )


def http_match():
    return obj(
        {
            'authority': string_match(),
            'gateways': strings(),
            'headers': {'type': 'object', 'additionalProperties': string_match()},
            'ignoreUriCase': {'type': 'boolean'},
            'method': string_match(),
            'name': string(),
            'port': port_number(),
            'queryParams': {'type': 'object', 'additionalProperties': string_match()},
            'scheme': string_match(),
            'sourceLabels': string_map(),
            'sourceNamespace': string(),
            'statPrefix': string(),
            'uri': string_match(),
            'withoutHeaders': {'type': 'object', 'additionalProperties': string_match()},
        }
    )


def destination():
    return obj(
        {'host': string(), 'port': obj({'number': port_number()}), 'subset': string()}, required=('host',)
    )


def http_route():
    route_destination = obj(
        {
            'destination': destination(),
            'headers': header_operations(),
            'weight': {'type': 'integer', 'format': 'int32'},
        },
        required=('destination',),
    )
    properties = {
        'headers': header_operations(),
        'match': {'type': 'array', 'items': http_match()},
        'name': string(),
        'route': {'type': 'array', 'items': route_destination},
        'timeout': string(),
        'mirrorPercent': {'type': 'integer', 'minimum': 0, 'maximum': 4294967295, 'nullable': True},
        'mirror_percent': {'type': 'integer', 'minimum': 0, 'maximum': 4294967295, 'nullable': True},
    }
    for name in (
        'corsPolicy',
        'delegate',
        'directResponse',
        'fault',
        'mirror',
        'mirrorPercentage',
        'redirect',
        'retries',
        'rewrite',
    ):
        properties[name] = loose()
    properties['mirrors'] = {'type': 'array', 'items': loose()}
    return obj(properties)


def status():
    condition = obj(
        {
            'lastProbeTime': {'type': 'string', 'format': 'date-time'},
            'lastTransitionTime': {'type': 'string', 'format': 'date-time'},
            'message': string(),
            'observedGeneration': {
                'anyOf': [{'type': 'integer'}, {'type': 'string'}],
                'x-kubernetes-int-or-string': True,
            },
            'reason': string(),
            'status': string(),
            'type': string(),
        }
    )
    out = obj(
        {
            'conditions': {'type': 'array', 'items': condition},
            'observedGeneration': {
                'anyOf': [{'type': 'integer'}, {'type': 'string'}],
                'x-kubernetes-int-or-string': True,
            },
            'validationMessages': {'type': 'array', 'items': loose()},
        }
    )
    out['x-kubernetes-preserve-unknown-fields'] = True
    return out


def virtualservice_schema():
    spec = obj(
        {
            'exportTo': strings(),
            'gateways': strings(),
            'hosts': strings(),
            'http': {'type': 'array', 'items': http_route()},
            'tcp': {'type': 'array', 'items': loose()},
            'tls': {'type': 'array', 'items': loose()},
        }
    )
    return obj({'spec': spec, 'status': status()})


def destinationrule_schema():
    subset = obj({'labels': string_map(), 'name': string(), 'trafficPolicy': loose()}, required=('name',))
    spec = obj(
        {
            'exportTo': strings(),
            'host': string(),
            'subsets': {'type': 'array', 'items': subset},
            'trafficPolicy': loose(),
            'workloadSelector': obj({'matchLabels': string_map()}),
        },
        required=('host',),
    )
    return obj({'spec': spec, 'status': status()})


def _crd(kind, plural, short_name, schema, columns):
    versions = [
        {
            'additionalPrinterColumns': copy.deepcopy(columns),
            'name': version,
            'schema': {'openAPIV3Schema': copy.deepcopy(schema)},
            'served': True,
            'storage': version == 'v1',
            'subresources': {'status': {}},
        }
        for version in SERVED_VERSIONS
    ]
    return {
        'apiVersion': 'apiextensions.k8s.io/v1',
        'kind': 'CustomResourceDefinition',
        'metadata': {
            'name': f'{plural}.{GROUP}',
            'labels': {'app': 'istio-pilot', 'chart': 'istio', 'heritage': 'Tiller', 'release': 'istio'},
            'annotations': {'helm.sh/resource-policy': 'keep'},
        },
        'spec': {
            'group': GROUP,
            'names': {
                'categories': list(CATEGORIES),
                'kind': kind,
                'listKind': kind + 'List',
                'plural': plural,
                'shortNames': [short_name],
                'singular': kind.lower(),
            },
            'scope': 'Namespaced',
            'versions': versions,
        },
    }


AGE = {'jsonPath': '.metadata.creationTimestamp', 'name': 'Age', 'type': 'date'}


def crds():
    """DestinationRule and VirtualService, in the order Istio's manifest lists them."""
    return [
        _crd(
            'DestinationRule',
            'destinationrules',
            'dr',
            destinationrule_schema(),
            [
                {
                    'jsonPath': '.spec.host',
                    'name': 'Host',
                    'type': 'string',
                    'description': 'The name of a service from the service registry',
                },
                AGE,
            ],
        ),
        _crd(
            'VirtualService',
            'virtualservices',
            'vs',
            virtualservice_schema(),
            [
                {
                    'jsonPath': '.spec.gateways',
                    'name': 'Gateways',
                    'type': 'string',
                    'description': 'The names of gateways and sidecars that should apply these routes',
                },
                {
                    'jsonPath': '.spec.hosts',
                    'name': 'Hosts',
                    'type': 'string',
                    'description': 'The destination hosts to which traffic is being sent',
                },
                AGE,
            ],
        ),
    ]

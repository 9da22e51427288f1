"""The Gateway API's standard-channel CustomResourceDefinitions kubesim installs: GatewayClass,
Gateway, HTTPRoute (`gateway.networking.k8s.io`, `v1` stored, `v1beta1` served too) and GRPCRoute
(`v1` only, as the published standard channel serves it).

The schemas are written here from the published API's Go types (kubernetes-sigs/gateway-api
`apis/v1/shared_types.go`, `object_reference_types.go`, `httproute_types.go`, `grpcroute_types.go`,
`gateway_types.go`, `gatewayclass_types.go`): their fields, `+kubebuilder:default` values and
validation bounds. What they leave out of the published CRDs: the CEL `x-kubernetes-validations`
rules (kubesim does not evaluate CEL) and the field descriptions. The filter kinds are complete in
their fields; the experimental-channel fields are not served (a real cluster with the standard
channel prunes them too).

`crds()` gives the four CRD objects; `manifest()` the multi-document YAML that
`gateway-api.yaml` beside this file holds (a test keeps the two equal), for `kubectl apply -f`.
"""

import copy

import yaml

GROUP = 'gateway.networking.k8s.io'
BUNDLE_VERSION = 'v1.4.0'
SERVED_VERSIONS = ('v1', 'v1beta1')  # v1 is the storage version

DNS_SUBDOMAIN = r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'
HEADER_NAME = r"^[A-Za-z0-9!#$%&'*+\-.^_\x60|~]+$"
PATH_CHARS = r"^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$"


# ---- schema pieces ----------------------------------------------------------------------------


def string(min_length=None, max_length=None, pattern=None, enum=None, default=None):
    out = {'type': 'string'}
    for key, value in (
        ('minLength', min_length),
        ('maxLength', max_length),
        ('pattern', pattern),
        ('enum', enum),
        ('default', default),
    ):
        if value is not None:
            out[key] = list(value) if key == 'enum' else value
    return out


def integer(minimum=None, maximum=None, fmt='int32', default=None, enum=None):
    out = {'type': 'integer'}
    if fmt:
        out['format'] = fmt
    for key, value in (('minimum', minimum), ('maximum', maximum), ('default', default), ('enum', enum)):
        if value is not None:
            out[key] = list(value) if key == 'enum' else value
    return out


def obj(properties, required=(), default=None, **extra):
    out = {'type': 'object', 'properties': properties}
    if required:
        out['required'] = list(required)
    if default is not None:
        out['default'] = default
    out.update(extra)
    return out


def array(items, max_items=None, min_items=None, list_type='atomic', keys=None, default=None):
    out = {'type': 'array', 'items': items}
    if max_items is not None:
        out['maxItems'] = max_items
    if min_items is not None:
        out['minItems'] = min_items
    out['x-kubernetes-list-type'] = list_type
    if keys:
        out['x-kubernetes-list-map-keys'] = list(keys)
    if default is not None:
        out['default'] = default
    return out


def group(default=None):
    return string(max_length=253, pattern=r'^$|' + DNS_SUBDOMAIN, default=default)


def kind(default=None):
    return string(
        min_length=1, max_length=63, pattern=r'^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$', default=default
    )


def object_name():
    return string(min_length=1, max_length=253)


def namespace():
    return string(min_length=1, max_length=63, pattern=r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')


def section_name():
    return string(min_length=1, max_length=253, pattern=DNS_SUBDOMAIN)


def port_number():
    return integer(minimum=1, maximum=65535)


def hostname():
    return string(
        min_length=1,
        max_length=253,
        pattern=r'^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
    )


def precise_hostname():
    return string(min_length=1, max_length=253, pattern=DNS_SUBDOMAIN)


def header_name():
    return string(min_length=1, max_length=256, pattern=HEADER_NAME)


def duration():
    return string(pattern=r'^([0-9]{1,5}(h|m|s|ms)){1,4}$')


def controller_name():
    return string(
        min_length=1,
        max_length=253,
        pattern=r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/'
        r"[A-Za-z0-9\/\-._~%!$&'()*+,;=:]+$",
    )


def condition():
    """metav1.Condition as its Go type's markers bound it."""
    return obj(
        {
            'lastTransitionTime': {'type': 'string', 'format': 'date-time'},
            'message': string(max_length=32768),
            'observedGeneration': integer(minimum=0, fmt='int64'),
            'reason': string(
                min_length=1, max_length=1024, pattern=r'^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$'
            ),
            'status': string(enum=('True', 'False', 'Unknown')),
            'type': string(
                max_length=316,
                pattern=r'^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?'
                r'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
            ),
        },
        required=('lastTransitionTime', 'message', 'reason', 'status', 'type'),
    )


def conditions(max_items=8, default=None):
    return array(condition(), max_items=max_items, list_type='map', keys=('type',), default=default)


def label_selector():
    requirement = obj(
        {'key': {'type': 'string'}, 'operator': {'type': 'string'}, 'values': array({'type': 'string'})},
        required=('key', 'operator'),
    )
    return obj(
        {
            'matchExpressions': array(requirement),
            'matchLabels': {'type': 'object', 'additionalProperties': {'type': 'string'}},
        },
        **{'x-kubernetes-map-type': 'atomic'},
    )


def parent_reference():
    return obj(
        {
            'group': group(default=GROUP),
            'kind': kind(default='Gateway'),
            'name': object_name(),
            'namespace': namespace(),
            'port': port_number(),
            'sectionName': section_name(),
        },
        required=('name',),
    )


def backend_object_reference():
    return {
        'group': group(default=''),
        'kind': kind(default='Service'),
        'name': object_name(),
        'namespace': namespace(),
        'port': port_number(),
    }


def local_object_reference():
    return obj({'group': group(), 'kind': kind(), 'name': object_name()}, required=('group', 'kind', 'name'))


def header_filter():
    header = obj(
        {'name': header_name(), 'value': string(min_length=1, max_length=4096)}, required=('name', 'value')
    )
    return obj(
        {
            'add': array(header, max_items=16, list_type='map', keys=('name',)),
            'remove': array({'type': 'string'}, max_items=16, list_type='set'),
            'set': array(header, max_items=16, list_type='map', keys=('name',)),
        }
    )


def path_modifier():
    return obj(
        {
            'replaceFullPath': string(max_length=1024),
            'replacePrefixMatch': string(max_length=1024),
            'type': string(enum=('ReplaceFullPath', 'ReplacePrefixMatch')),
        },
        required=('type',),
    )


def request_mirror():
    return obj(
        {
            'backendRef': obj(backend_object_reference(), required=('name',)),
            'fraction': obj(
                {'denominator': integer(minimum=1, default=100), 'numerator': integer(minimum=0)},
                required=('numerator',),
            ),
            'percent': integer(minimum=0, maximum=100),
        },
        required=('backendRef',),
    )


def http_filter():
    methods = ('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH', '*')
    return obj(
        {
            'cors': obj(
                {
                    'allowCredentials': {'type': 'boolean'},
                    'allowHeaders': array(header_name(), max_items=64, list_type='set'),
                    'allowMethods': array(string(enum=methods), max_items=9, list_type='set'),
                    'allowOrigins': array(
                        string(min_length=1, max_length=253), max_items=64, list_type='set'
                    ),
                    'exposeHeaders': array(header_name(), max_items=64, list_type='set'),
                    'maxAge': integer(minimum=1, default=5),
                }
            ),
            'extensionRef': local_object_reference(),
            'requestHeaderModifier': header_filter(),
            'requestMirror': request_mirror(),
            'requestRedirect': obj(
                {
                    'hostname': precise_hostname(),
                    'path': path_modifier(),
                    'port': port_number(),
                    'scheme': string(enum=('http', 'https')),
                    'statusCode': integer(default=302, enum=(301, 302, 303, 307, 308), fmt=None),
                }
            ),
            'responseHeaderModifier': header_filter(),
            'type': string(
                enum=(
                    'RequestHeaderModifier',
                    'ResponseHeaderModifier',
                    'RequestMirror',
                    'RequestRedirect',
                    'URLRewrite',
                    'ExtensionRef',
                    'CORS',
                )
            ),
            'urlRewrite': obj({'hostname': precise_hostname(), 'path': path_modifier()}),
        },
        required=('type',),
    )


def http_match():
    path_default = {'type': 'PathPrefix', 'value': '/'}
    value_match = ('Exact', 'RegularExpression')
    return obj(
        {
            'headers': array(
                obj(
                    {
                        'name': header_name(),
                        'type': string(enum=value_match, default='Exact'),
                        'value': string(min_length=1, max_length=4096),
                    },
                    required=('name', 'value'),
                ),
                max_items=16,
                list_type='map',
                keys=('name',),
            ),
            'method': string(
                enum=('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH')
            ),
            'path': obj(
                {
                    'type': string(enum=('Exact', 'PathPrefix', 'RegularExpression'), default='PathPrefix'),
                    'value': string(max_length=1024, default='/'),
                },
                default=path_default,
            ),
            'queryParams': array(
                obj(
                    {
                        'name': header_name(),
                        'type': string(enum=value_match, default='Exact'),
                        'value': string(min_length=1, max_length=1024),
                    },
                    required=('name', 'value'),
                ),
                max_items=16,
                list_type='map',
                keys=('name',),
            ),
        }
    )


def http_rule():
    backend = obj(
        dict(
            backend_object_reference(),
            filters=array(http_filter(), max_items=16),
            weight=integer(minimum=0, maximum=1000000, default=1),
        ),
        required=('name',),
    )
    return obj(
        {
            'backendRefs': array(backend, max_items=16),
            'filters': array(http_filter(), max_items=16),
            'matches': array(
                http_match(), max_items=64, default=[{'path': {'type': 'PathPrefix', 'value': '/'}}]
            ),
            'name': section_name(),
            'retry': obj(
                {
                    'attempts': integer(minimum=1, fmt=None),
                    'backoff': duration(),
                    'codes': array(integer(minimum=400, maximum=599, fmt=None), list_type='set'),
                }
            ),
            'sessionPersistence': obj(
                {
                    'absoluteTimeout': duration(),
                    'cookie': obj({'lifetimeType': string(enum=('Permanent', 'Session'))}),
                    'idleTimeout': duration(),
                    'sessionName': string(max_length=128),
                    'type': string(enum=('Cookie', 'Header'), default='Cookie'),
                }
            ),
            'timeouts': obj({'backendRequest': duration(), 'request': duration()}),
        }
    )


def route_status():
    parent = obj(
        {'conditions': conditions(), 'controllerName': controller_name(), 'parentRef': parent_reference()},
        required=('controllerName', 'parentRef'),
    )
    return obj({'parents': array(parent, max_items=32)}, required=('parents',))


def pending(types):
    return [
        {
            'type': t,
            'status': 'Unknown',
            'reason': 'Pending',
            'message': 'Waiting for controller',
            'lastTransitionTime': '1970-01-01T00:00:00Z',
        }
        for t in types
    ]


# ---- the three kinds ----------------------------------------------------------------------------


def httproute_schema():
    spec = obj(
        {
            'hostnames': array(hostname(), max_items=16),
            'parentRefs': array(parent_reference(), max_items=32),
            'rules': array(
                http_rule(),
                max_items=16,
                min_items=1,
                default=[{'matches': [{'path': {'type': 'PathPrefix', 'value': '/'}}]}],
            ),
        }
    )
    return obj(
        {
            'apiVersion': {'type': 'string'},
            'kind': {'type': 'string'},
            'metadata': {'type': 'object'},
            'spec': spec,
            'status': route_status(),
        },
        required=('spec',),
    )


# ---- GRPCRoute (apis/v1/grpcroute_types.go) ------------------------------------------------------


def grpc_filter():
    """GRPCRouteFilter: the standard channel's four filter types."""
    return obj(
        {
            'extensionRef': local_object_reference(),
            'requestHeaderModifier': header_filter(),
            'requestMirror': request_mirror(),
            'responseHeaderModifier': header_filter(),
            'type': string(
                enum=('ResponseHeaderModifier', 'RequestHeaderModifier', 'RequestMirror', 'ExtensionRef')
            ),
        },
        required=('type',),
    )


def grpc_match():
    """GRPCRouteMatch: a method match (service and/or method) and header matches; no path."""
    value_match = ('Exact', 'RegularExpression')
    return obj(
        {
            'headers': array(
                obj(
                    {
                        'name': header_name(),
                        'type': string(enum=value_match, default='Exact'),
                        'value': string(min_length=1, max_length=4096),
                    },
                    required=('name', 'value'),
                ),
                max_items=16,
                list_type='map',
                keys=('name',),
            ),
            'method': obj(
                {
                    'method': string(max_length=1024),
                    'service': string(max_length=1024),
                    'type': string(enum=value_match, default='Exact'),
                }
            ),
        }
    )


def grpc_rule():
    backend = obj(
        dict(
            backend_object_reference(),
            filters=array(grpc_filter(), max_items=16),
            weight=integer(minimum=0, maximum=1000000, default=1),
        ),
        required=('name',),
    )
    return obj(
        {
            'backendRefs': array(backend, max_items=16),
            'filters': array(grpc_filter(), max_items=16),
            'matches': array(grpc_match(), max_items=64),
            'name': section_name(),
        }
    )


def grpcroute_schema():
    spec = obj(
        {
            'hostnames': array(hostname(), max_items=16),
            'parentRefs': array(parent_reference(), max_items=32),
            'rules': array(grpc_rule(), max_items=16),
        }
    )
    return obj(
        {
            'apiVersion': {'type': 'string'},
            'kind': {'type': 'string'},
            'metadata': {'type': 'object'},
            'spec': spec,
            'status': route_status(),
        },
        required=('spec',),
    )


def gateway_schema():
    listener = obj(
        {
            'allowedRoutes': obj(
                {
                    'kinds': array(obj({'group': group(), 'kind': kind()}, required=('kind',)), max_items=8),
                    'namespaces': obj(
                        {
                            'from': string(enum=('All', 'Selector', 'Same'), default='Same'),
                            'selector': label_selector(),
                        },
                        default={'from': 'Same'},
                    ),
                },
                default={'namespaces': {'from': 'Same'}},
            ),
            'hostname': hostname(),
            'name': section_name(),
            'port': port_number(),
            'protocol': string(
                min_length=1,
                max_length=255,
                pattern=r'^[a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?$|[a-z0-9]([-a-z0-9]*[a-z0-9])?'
                r'(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/[A-Za-z0-9]+$',
            ),
            'tls': obj(
                {
                    'certificateRefs': array(
                        obj(
                            {
                                'group': group(default=''),
                                'kind': kind(default='Secret'),
                                'name': object_name(),
                                'namespace': namespace(),
                            },
                            required=('name',),
                        ),
                        max_items=64,
                    ),
                    'mode': string(enum=('Terminate', 'Passthrough'), default='Terminate'),
                    'options': {
                        'type': 'object',
                        'maxProperties': 16,
                        'additionalProperties': string(max_length=4096),
                    },
                }
            ),
        },
        required=('name', 'port', 'protocol'),
    )
    address = obj(
        {'type': string(min_length=1, max_length=253, default='IPAddress'), 'value': string(max_length=253)}
    )
    spec = obj(
        {
            'addresses': array(address, max_items=16),
            'gatewayClassName': object_name(),
            'infrastructure': obj(
                {
                    'annotations': {
                        'type': 'object',
                        'maxProperties': 8,
                        'additionalProperties': string(max_length=4096),
                    },
                    'labels': {
                        'type': 'object',
                        'maxProperties': 8,
                        'additionalProperties': string(max_length=63),
                    },
                    'parametersRef': local_object_reference(),
                }
            ),
            'listeners': array(listener, max_items=64, min_items=1, list_type='map', keys=('name',)),
        },
        required=('gatewayClassName', 'listeners'),
    )
    listener_status = obj(
        {
            'attachedRoutes': integer(fmt='int32'),
            'conditions': conditions(),
            'name': section_name(),
            'supportedKinds': array(obj({'group': group(), 'kind': kind()}, required=('kind',)), max_items=8),
        },
        required=('attachedRoutes', 'conditions', 'name'),
    )
    status = obj(
        {
            'addresses': array(address, max_items=16),
            'conditions': conditions(default=pending(('Accepted', 'Programmed'))),
            'listeners': array(listener_status, max_items=64, list_type='map', keys=('name',)),
        },
        default={'conditions': pending(('Accepted', 'Programmed'))},
    )
    return obj(
        {
            'apiVersion': {'type': 'string'},
            'kind': {'type': 'string'},
            'metadata': {'type': 'object'},
            'spec': spec,
            'status': status,
        },
        required=('spec',),
    )


def gatewayclass_schema():
    spec = obj(
        {
            'controllerName': controller_name(),
            'description': string(max_length=64),
            'parametersRef': obj(
                {
                    'group': group(),
                    'kind': kind(),
                    'name': string(min_length=1, max_length=253),
                    'namespace': namespace(),
                },
                required=('group', 'kind', 'name'),
            ),
        },
        required=('controllerName',),
    )
    status = obj(
        {
            'conditions': conditions(default=pending(('Accepted',))),
            'supportedFeatures': array(
                obj({'name': {'type': 'string'}}, required=('name',)),
                max_items=64,
                list_type='map',
                keys=('name',),
            ),
        },
        default={'conditions': pending(('Accepted',))},
    )
    return obj(
        {
            'apiVersion': {'type': 'string'},
            'kind': {'type': 'string'},
            'metadata': {'type': 'object'},
            'spec': spec,
            'status': status,
        },
        required=('spec',),
    )


def _crd(kind_name, plural, scope, schema, columns, short_names=(), served=SERVED_VERSIONS):
    names = {
        'categories': ['gateway-api'],
        'kind': kind_name,
        'listKind': kind_name + 'List',
        'plural': plural,
        'singular': kind_name.lower(),
    }
    if short_names:
        names['shortNames'] = list(short_names)
    versions = []
    for version in served:
        versions.append(
            {
                'additionalPrinterColumns': copy.deepcopy(columns),
                'name': version,
                'schema': {'openAPIV3Schema': copy.deepcopy(schema)},
                'served': True,
                'storage': version == 'v1',
                'subresources': {'status': {}},
            }
        )
    return {
        'apiVersion': 'apiextensions.k8s.io/v1',
        'kind': 'CustomResourceDefinition',
        'metadata': {
            'annotations': {
                'gateway.networking.k8s.io/bundle-version': BUNDLE_VERSION,
                'gateway.networking.k8s.io/channel': 'standard',
            },
            'name': f'{plural}.{GROUP}',
        },
        'spec': {'group': GROUP, 'names': names, 'scope': scope, 'versions': versions},
    }


def _column(name, json_path, type_='string', priority=None):
    out = {'jsonPath': json_path, 'name': name, 'type': type_}
    if priority:
        out['priority'] = priority
    return out


AGE = _column('Age', '.metadata.creationTimestamp', 'date')


def crds():
    """The four CRDs, GatewayClass first (as `kubectl apply` of the manifest creates them)."""
    return [
        _crd(
            'GatewayClass',
            'gatewayclasses',
            'Cluster',
            gatewayclass_schema(),
            [
                _column('Controller', '.spec.controllerName'),
                _column('Accepted', '.status.conditions[?(@.type=="Accepted")].status'),
                AGE,
                _column('Description', '.spec.description', priority=1),
            ],
            short_names=('gc',),
        ),
        _crd(
            'Gateway',
            'gateways',
            'Namespaced',
            gateway_schema(),
            [
                _column('Class', '.spec.gatewayClassName'),
                _column('Address', '.status.addresses[*].value'),
                _column('Programmed', '.status.conditions[?(@.type=="Programmed")].status'),
                AGE,
            ],
            short_names=('gtw',),
        ),
        _crd(
            'HTTPRoute',
            'httproutes',
            'Namespaced',
            httproute_schema(),
            [_column('Hostnames', '.spec.hostnames'), AGE],
        ),
        _crd(
            'GRPCRoute',
            'grpcroutes',
            'Namespaced',
            grpcroute_schema(),
            [_column('Hostnames', '.spec.hostnames'), AGE],
            served=('v1',),
        ),
    ]


class _Dumper(yaml.SafeDumper):
    """Lists indented under their key, as yamllint's default style wants them."""

    def increase_indent(self, flow=False, indentless=False):
        return super().increase_indent(flow, False)


def manifest():
    """The CRDs as one multi-document YAML text."""
    return yaml.dump_all(crds(), Dumper=_Dumper, sort_keys=True, default_flow_style=False, width=120,
                         explicit_start=True)

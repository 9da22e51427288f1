"""The core (v1) kinds' strategies: Pod, Namespace, ReplicationController, ResourceQuota and
Secret (pkg/registry/core/<kind>/strategy.go, with pkg/apis/core/v1/defaults.go and
pkg/apis/core/validation). The pod spec they share with the apps kinds is podspec.py."""

import base64
import binascii
import copy
import json
import re

from ...machinery.errors import ApiError
from ...machinery.gotypes import go_base64_error
from ...machinery.quantity import parse_quantity
from .podspec import default_pod_spec, default_template, validate_pod_spec, validate_template
from .validation import validate_labels, validate_non_negative


# ---- Pod -----------------------------------------------------------------------------------------
def default_pod(obj, old=None):
    """SetDefaults_Pod on top of the pod spec defaults: a container's limits stand in for the
    requests it leaves unset (for pods only, not templates), service links on."""
    spec = obj.setdefault('spec', {})
    default_pod_spec(spec)
    spec.setdefault('enableServiceLinks', True)
    for key in ('initContainers', 'containers'):
        for container in spec.get(key) or []:
            resources = container.get('resources') if isinstance(container, dict) else None
            if isinstance(resources, dict) and isinstance(resources.get('limits'), dict):
                requests = resources.setdefault('requests', {})
                for name, value in resources['limits'].items():
                    requests.setdefault(name, value)


QOS_RESOURCES = ('cpu', 'memory')


def pod_qos_class(spec):
    """qos.ComputePodQOS (pkg/apis/core/helper/qos/qos.go): BestEffort without any cpu or memory
    request or limit; Guaranteed when every container limits both and the requests equal the
    limits; Burstable otherwise. Zero quantities do not count."""
    requests, limits, guaranteed = {}, {}, True

    def amounts(mapping):
        for name, raw in (mapping or {}).items():
            if name not in QOS_RESOURCES:
                continue
            try:
                value = parse_quantity(raw).value
            except ValueError:
                continue
            if value > 0:
                yield name, value

    pod_level = spec.get('resources') or {}
    if pod_level.get('requests') or pod_level.get('limits'):
        containers = [{'resources': pod_level}]
    else:
        containers = (spec.get('initContainers') or []) + (spec.get('containers') or [])
    for container in containers:
        resources = (container or {}).get('resources') or {}
        for name, value in amounts(resources.get('requests')):
            requests[name] = requests.get(name, 0) + value
        found = set()
        for name, value in amounts(resources.get('limits')):
            found.add(name)
            limits[name] = limits.get(name, 0) + value
        if not set(QOS_RESOURCES) <= found:
            guaranteed = False
    if not requests and not limits:
        return 'BestEffort'
    if guaranteed and all(limits.get(name) == value for name, value in requests.items()) \
            and len(requests) == len(limits):
        return 'Guaranteed'
    return 'Burstable'


def pod_initial_status(obj):
    """podStrategy.PrepareForCreate (pkg/registry/core/pod/strategy.go): Pending, the QoS class,
    and a PodScheduled=False SchedulingGated condition while `schedulingGates` are set."""
    spec = obj.get('spec') or {}
    status = {'phase': 'Pending', 'qosClass': pod_qos_class(spec)}
    if spec.get('schedulingGates'):
        status['conditions'] = [{'type': 'PodScheduled', 'status': 'False', 'reason': 'SchedulingGated',
                                 'message': 'Scheduling is blocked due to non-empty scheduling gates'}]
    return status


def validate_pod_object(obj, old, errs):
    validate_pod_spec(errs, obj.get('spec'), 'spec')


# ---- pods/resize ---------------------------------------------------------------------------------
RESIZABLE = ('cpu', 'memory')


def _without_resizable(resources):
    """A container's resources less the cpu and memory requests and limits."""
    out = copy.deepcopy(resources or {})
    for key in ('requests', 'limits'):
        rest = {k: v for k, v in (out.get(key) or {}).items() if k not in RESIZABLE}
        if rest:
            out[key] = rest
        else:
            out.pop(key, None)
    return out


def resize_pod(old, new):
    """A write through `pods/{name}/resize` (Kubernetes 1.33+, the ResizeStrategy): the live pod
    with only its containers' `resources` and `resizePolicy` taken from ``new`` (matched by name;
    every other change is dropped), validated as ValidatePodResize does: only the cpu and memory
    requests and limits may change."""
    out = copy.deepcopy(old)
    wanted = {c.get('name'): c for c in ((new or {}).get('spec') or {}).get('containers') or []
              if isinstance(c, dict)}
    causes = []
    for container in (out.get('spec') or {}).get('containers') or []:
        given = wanted.get(container.get('name'))
        if given is None:
            continue
        resources = copy.deepcopy(given.get('resources') or {})
        if _without_resizable(resources) != _without_resizable(container.get('resources')):
            causes.append(('spec', 'FieldValueForbidden',
                           'Forbidden: only cpu and memory resources are mutable'))
            break
        container['resources'] = resources
        if given.get('resizePolicy') is not None:
            container['resizePolicy'] = copy.deepcopy(given['resizePolicy'])
    if causes:
        raise ApiError.invalid('/pods', old['metadata']['name'], causes)
    # A resourceVersion the client sent still guards the write.
    given_rv = ((new or {}).get('metadata') or {}).get('resourceVersion')
    if given_rv:
        out['metadata']['resourceVersion'] = given_rv
    return out


# ---- Namespace -----------------------------------------------------------------------------------
def default_namespace(obj, old=None):
    """SetDefaults_Namespace: the `kubernetes.io/metadata.name` label carries the name."""
    name = (obj.get('metadata') or {}).get('name')
    if name:
        obj['metadata'].setdefault('labels', {})['kubernetes.io/metadata.name'] = name


def namespace_initial_status(obj):
    """namespaceStrategy.PrepareForCreate (pkg/registry/core/namespace/strategy.go): Active, and
    the `kubernetes` finalizer in spec."""
    finalizers = obj.setdefault('spec', {}).setdefault('finalizers', [])
    if 'kubernetes' not in finalizers:
        finalizers.append('kubernetes')
    return {'phase': 'Active'}


# ---- ReplicationController -----------------------------------------------------------------------
def default_rc(obj, old=None):
    spec = obj.setdefault('spec', {})
    spec.setdefault('replicas', 1)
    template_labels = ((spec.get('template') or {}).get('metadata') or {}).get('labels') or {}
    if template_labels:
        if not spec.get('selector'):
            spec['selector'] = dict(template_labels)
        meta = obj.setdefault('metadata', {})
        if not meta.get('labels'):
            meta['labels'] = dict(template_labels)
    default_template(obj)


def validate_rc(obj, old, errs):
    spec = obj.get('spec') or {}
    validate_non_negative(errs, spec, 'replicas')
    validate_non_negative(errs, spec, 'minReadySeconds')
    selector = spec.get('selector')
    if not selector:
        errs.required('spec.selector')
    else:
        validate_labels(errs, selector, 'spec.selector')
    template = validate_template(errs, obj, required=bool(spec.get('replicas')))
    if template is not None and selector:
        labels = (template.get('metadata') or {}).get('labels') or {}
        if not all(labels.get(k) == v for k, v in selector.items()):
            errs.invalid('spec.template.metadata.labels', labels,
                         '`selector` does not match template `labels`')


# ---- ResourceQuota -------------------------------------------------------------------------------
def validate_resourcequota(obj, old, errs):
    for name, value in sorted(((obj.get('spec') or {}).get('hard') or {}).items()):
        try:
            quantity = parse_quantity(value)
        except ValueError as err:
            errs.invalid(f'spec.hard[{name}]', value, str(err))
            continue
        if quantity.value < 0:
            errs.invalid(f'spec.hard[{name}]', value, 'must be greater than or equal to 0')


# ---- Secret --------------------------------------------------------------------------------------
_CONFIG_KEY = re.compile(r'^[-._a-zA-Z0-9]+$')
# core.MaxSecretSize: the sum of a Secret's data values, in bytes.
MAX_SECRET_SIZE = 1024 * 1024
CONFIG_KEY_MSG = ("a valid config key must consist of alphanumeric characters, '-', '_' or '.' "
                  "(e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
                  "'[-._a-zA-Z0-9]+')")


def convert_secret(obj, old=None):
    """What decoding a v1 Secret does (Convert_v1_Secret_To_core_Secret, pkg/apis/core/v1/conversion.go):
    `data` values are base64 ([]byte; an illegal one is a 400), `stringData` overwrites `data` keys
    with its plain values and is gone, as the internal type has no such field; then
    SetDefaults_Secret: `type` Opaque when empty."""
    data = obj.get('data')
    if data is not None and not isinstance(data, dict):
        raise ApiError.bad_request('Secret in version "v1" cannot be handled as a Secret: json: cannot '
                                   'unmarshal into Go struct field Secret.data of type map[string][]uint8')
    out = {}
    for key, value in (data or {}).items():
        if not isinstance(value, str):
            raise ApiError.bad_request('Secret in version "v1" cannot be handled as a Secret: json: cannot '
                                       'unmarshal into Go struct field Secret.data of type []uint8')
        bad = go_base64_error(value)
        if bad is not None:
            raise ApiError.bad_request('Secret in version "v1" cannot be handled as a Secret: illegal base64 '
                                       f'data at input byte {bad}')
        out[key] = base64.b64encode(base64.b64decode(value.replace('\r', '').replace('\n', ''))).decode()
    string_data = obj.pop('stringData', None)
    if isinstance(string_data, dict):
        for key, value in string_data.items():
            out[key] = base64.b64encode(str(value).encode()).decode()
    if out:
        obj['data'] = out
    else:
        obj.pop('data', None)
    if not obj.get('type'):
        obj['type'] = 'Opaque'


def _data_size(obj):
    return sum(len(binascii.a2b_base64(v)) for v in (obj.get('data') or {}).values())


def validate_config_keys(errs, data, path):
    """validation.IsConfigMapKey for every key of ``data``."""
    for key in sorted(data or {}):
        if len(key) > 253:
            errs.invalid(f'{path}[{key}]', key, 'must be no more than 253 characters')
        if not _CONFIG_KEY.match(key):
            errs.invalid(f'{path}[{key}]', key, CONFIG_KEY_MSG)
        if key == '.':
            errs.invalid(f'{path}[{key}]', key, "must not be '.'")
        elif key == '..':
            errs.invalid(f'{path}[{key}]', key, "must not be '..'")
        elif key.startswith('..'):
            errs.invalid(f'{path}[{key}]', key, "must not start with '..'")


def validate_secret(obj, old, errs):
    """ValidateSecret and ValidateSecretUpdate (pkg/apis/core/validation/validation.go)."""
    data = obj.get('data') or {}
    validate_config_keys(errs, data, 'data')
    if _data_size(obj) > MAX_SECRET_SIZE:
        errs.causes.append(('data', 'FieldValueTooLong',
                            f'Too long: may not be more than {MAX_SECRET_SIZE} bytes'))
    stype = obj.get('type')
    if stype == 'kubernetes.io/service-account-token':
        if not ((obj['metadata'].get('annotations') or {}).get('kubernetes.io/service-account.name')):
            errs.required('metadata.annotations[kubernetes.io/service-account.name]')
    elif stype in ('kubernetes.io/dockercfg', 'kubernetes.io/dockerconfigjson'):
        key = '.dockercfg' if stype == 'kubernetes.io/dockercfg' else '.dockerconfigjson'
        if key not in data:
            errs.required(f'data[{key}]')
        else:
            try:
                parsed = json.loads(base64.b64decode(data[key]))
                if not isinstance(parsed, dict):
                    raise ValueError('json: cannot unmarshal into Go value of type map[string]interface {}')
            except ValueError as err:
                errs.causes.append((f'data[{key}]', 'FieldValueInvalid',
                                    f'Invalid value: "<secret contents redacted>": {err}'))
    elif stype == 'kubernetes.io/basic-auth':
        if 'username' not in data and 'password' not in data:
            # The API server builds these paths from the literal "data[%s]".
            errs.required('data[%s][username]')
            errs.required('data[%s][password]')
    elif stype == 'kubernetes.io/ssh-auth':
        if not data.get('ssh-privatekey'):
            errs.required('data[%s][ssh-privatekey]')
    elif stype == 'kubernetes.io/tls':
        for key in ('tls.crt', 'tls.key'):
            if key not in data:
                errs.required(f'data[{key}]')
    if old is not None:
        if stype != old.get('type'):
            errs.invalid('type', stype, 'field is immutable')
        if old.get('immutable'):
            if not obj.get('immutable'):
                errs.forbidden('immutable', 'field is immutable when `immutable` is set')
            if (obj.get('data') or {}) != (old.get('data') or {}):
                errs.forbidden('data', 'field is immutable when `immutable` is set')

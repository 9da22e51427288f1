"""Admission: the defaulting and validation the API server applies to the kinds kubesim simulates.

Each kind's hooks (a defaulter, a validator, and what runs after validation) are named in its row
of `resources.RESOURCES`; `admit(strategy, obj, old)` runs them: it fills in the defaults apps/v1
and core/v1 give (SetDefaults_* in Kubernetes) in place and raises `ApiError.invalid` (422 with
causes) for objects Kubernetes would reject. Defaulting is idempotent and applies to pod templates
too, so templates compare the way the controllers compare them (Deployment template vs. ReplicaSet
template, StatefulSet/DaemonSet template vs. ControllerRevision data).
"""

import base64
import binascii
import copy
import json
import re

from .machinery.errors import ApiError
from .machinery.quantity import parse_quantity
from .machinery.selectors import (LABEL_VALUE_MSG, QUALIFIED_NAME_MSG, SUBDOMAIN_MSG, matches_labels,
                                  selector_from_label_selector_object)

DS_TEMPLATE_GENERATION = 'deprecated.daemonset.template.generation'

_DNS1123_LABEL = re.compile(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')
_DNS1123_SUBDOMAIN = re.compile(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')
_QUALIFIED_NAME = re.compile(r'^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$')
_LABEL_VALUE = re.compile(r'^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$')
_PERCENT = re.compile(r'^[0-9]+%$')
_CONFIG_KEY = re.compile(r'^[-._a-zA-Z0-9]+$')
_BASE64 = re.compile(r'[A-Za-z0-9+/]')
# core.MaxSecretSize: the sum of a Secret's data values, in bytes.
MAX_SECRET_SIZE = 1024 * 1024
CONFIG_KEY_MSG = ("a valid config key must consist of alphanumeric characters, '-', '_' or '.' "
                  "(e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
                  "'[-._a-zA-Z0-9]+')")

LABEL_MSG = ('a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', '
             'and must start and end with an alphanumeric character (e.g. \'my-name\',  or '
             '\'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')')

class Errors:
    """Collects field errors, then raises one 422 with all of them (as the API server reports)."""

    def __init__(self):
        self.causes = []

    def required(self, field, detail=''):
        message = f'Required value: {detail}' if detail else 'Required value'
        self.causes.append((field, 'FieldValueRequired', message))

    def invalid(self, field, value, detail):
        self.causes.append((field, 'FieldValueInvalid', f'Invalid value: {go_repr(value)}: {detail}'))

    def unsupported(self, field, value, supported):
        choices = ', '.join(f'"{s}"' for s in supported)
        self.causes.append((field, 'FieldValueNotSupported',
                            f'Unsupported value: {go_repr(value)}: supported values: {choices}'))

    def forbidden(self, field, detail):
        self.causes.append((field, 'FieldValueForbidden', f'Forbidden: {detail}'))

    def duplicate(self, field, value):
        self.causes.append((field, 'FieldValueDuplicate', f'Duplicate value: {go_repr(value)}'))

    def raise_if_any(self, strategy, obj):
        if self.causes:
            name = (obj.get('metadata') or {}).get('name', '')
            raise ApiError.invalid(strategy.key, name, self.causes, kind=strategy.qualified_kind)


def go_repr(value):
    """Render a value roughly the way Go's %#v does in Kubernetes' validation messages."""
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, str):
        return '"' + value.replace('\\', '\\\\').replace('"', '\\"') + '"'
    if isinstance(value, dict) and all(isinstance(v, str) for v in value.values()):
        inner = ', '.join(f'"{k}":"{v}"' for k, v in sorted(value.items()))
        return 'map[string]string{' + inner + '}'
    if value is None:
        return 'null'
    return str(value)


# ---- defaulting ------------------------------------------------------------------------------
def image_pull_policy(image):
    """Always for `:latest` or untagged images, IfNotPresent otherwise (digests included)."""
    if '@' in image:
        return 'IfNotPresent'
    last = image.rsplit('/', 1)[-1]
    if ':' not in last:
        return 'Always'
    return 'Always' if last.rsplit(':', 1)[1] == 'latest' else 'IfNotPresent'


def _default_probe(probe):
    if not isinstance(probe, dict):
        return
    probe.setdefault('timeoutSeconds', 1)
    probe.setdefault('periodSeconds', 10)
    probe.setdefault('successThreshold', 1)
    probe.setdefault('failureThreshold', 3)
    _default_http_get(probe.get('httpGet'))


def _default_http_get(action):
    if isinstance(action, dict):
        action.setdefault('path', '/')
        action.setdefault('scheme', 'HTTP')


def _default_field_ref(holder):
    field_ref = holder.get('fieldRef') if isinstance(holder, dict) else None
    if isinstance(field_ref, dict):
        field_ref.setdefault('apiVersion', 'v1')


def _default_downward_api(source):
    items = source.get('items') if isinstance(source, dict) else None
    for item in items if isinstance(items, list) else []:
        _default_field_ref(item)


def default_container(container):
    if not isinstance(container, dict):
        return
    container.setdefault('terminationMessagePath', '/dev/termination-log')
    container.setdefault('terminationMessagePolicy', 'File')
    if 'imagePullPolicy' not in container and isinstance(container.get('image'), str):
        container['imagePullPolicy'] = image_pull_policy(container['image'])
    container.setdefault('resources', {})
    for port in container.get('ports') or []:
        if isinstance(port, dict):
            port.setdefault('protocol', 'TCP')
    for env in container.get('env') or []:
        if isinstance(env, dict):
            _default_field_ref(env.get('valueFrom'))
    for key in ('livenessProbe', 'readinessProbe', 'startupProbe'):
        _default_probe(container.get(key))
    lifecycle = container.get('lifecycle')
    for key in ('postStart', 'preStop'):
        handler = lifecycle.get(key) if isinstance(lifecycle, dict) else None
        if isinstance(handler, dict):
            _default_http_get(handler.get('httpGet'))


def default_pod_spec(spec):
    if not isinstance(spec, dict):
        return
    spec.setdefault('restartPolicy', 'Always')
    spec.setdefault('terminationGracePeriodSeconds', 30)
    spec.setdefault('dnsPolicy', 'ClusterFirst')
    spec.setdefault('securityContext', {})
    spec.setdefault('schedulerName', 'default-scheduler')
    if spec.get('serviceAccountName') and not spec.get('serviceAccount'):
        spec['serviceAccount'] = spec['serviceAccountName']
    for key in ('initContainers', 'containers', 'ephemeralContainers'):
        for container in spec.get(key) or []:
            default_container(container)
    for volume in spec.get('volumes') or []:
        if isinstance(volume, dict):
            default_volume(volume)


# Volume sources the API server fills in (pkg/apis/core/v1/defaults.go: SetDefaults_Volume and the
# SetDefaults_<Source> functions): field -> value, set when absent.
_VOLUME_SOURCE_DEFAULTS = {
    'configMap': {'defaultMode': 420}, 'secret': {'defaultMode': 420}, 'downwardAPI': {'defaultMode': 420},
    'projected': {'defaultMode': 420}, 'hostPath': {'type': ''}, 'iscsi': {'iscsiInterface': 'default'},
    'azureDisk': {'cachingMode': 'ReadWrite', 'kind': 'Shared', 'fsType': 'ext4', 'readOnly': False},
    'scaleIO': {'storageMode': 'ThinProvisioned', 'fsType': 'xfs'},
}


def default_volume(volume):
    """A pod volume as the API server stores it: no source at all means an emptyDir; each source's
    defaults; the field references of downward API items; projected tokens valid for an hour; an
    ephemeral volume's claim template a Filesystem volume."""
    if not any(value is not None for key, value in volume.items() if key != 'name'):
        volume['emptyDir'] = {}
    for source, defaults in _VOLUME_SOURCE_DEFAULTS.items():
        if isinstance(volume.get(source), dict):
            for key, value in defaults.items():
                volume[source].setdefault(key, value)
    _default_downward_api(volume.get('downwardAPI'))
    projected = volume.get('projected')
    for item in (projected.get('sources') or []) if isinstance(projected, dict) else []:
        if not isinstance(item, dict):
            continue
        _default_downward_api(item.get('downwardAPI'))
        if isinstance(item.get('serviceAccountToken'), dict):
            item['serviceAccountToken'].setdefault('expirationSeconds', 3600)
    ephemeral = volume.get('ephemeral')
    claim = ephemeral.get('volumeClaimTemplate') if isinstance(ephemeral, dict) else None
    if isinstance(claim, dict) and isinstance(claim.get('spec'), dict):
        claim['spec'].setdefault('volumeMode', 'Filesystem')


def default_template(obj):
    template = obj.get('spec', {}).get('template')
    if isinstance(template, dict):
        default_pod_spec(template.setdefault('spec', {}))


def default_deployment(obj, old=None):
    spec = obj.setdefault('spec', {})
    spec.setdefault('replicas', 1)
    strategy = spec.setdefault('strategy', {})
    strategy.setdefault('type', 'RollingUpdate')
    if strategy['type'] == 'RollingUpdate':
        rolling = strategy.setdefault('rollingUpdate', {})
        if isinstance(rolling, dict):
            rolling.setdefault('maxUnavailable', '25%')
            rolling.setdefault('maxSurge', '25%')
    spec.setdefault('revisionHistoryLimit', 10)
    spec.setdefault('progressDeadlineSeconds', 600)
    default_template(obj)


def default_replicaset(obj, old=None):
    obj.setdefault('spec', {}).setdefault('replicas', 1)
    default_template(obj)


def default_statefulset(obj, old=None):
    spec = obj.setdefault('spec', {})
    spec.setdefault('replicas', 1)
    spec.setdefault('podManagementPolicy', 'OrderedReady')
    strategy = spec.setdefault('updateStrategy', {})
    if not strategy.get('type'):
        # Only an empty type brings a rollingUpdate with it; `type: RollingUpdate` alone stays bare.
        strategy['type'] = 'RollingUpdate'
        if strategy.get('rollingUpdate') is None:
            strategy['rollingUpdate'] = {}
    rolling = strategy.get('rollingUpdate')
    if strategy['type'] == 'RollingUpdate' and isinstance(rolling, dict):
        if rolling.get('partition') is None:
            rolling['partition'] = 0
        # MaxUnavailableStatefulSet (beta, on by default at the presented version) defaults it to 1.
        if rolling.get('maxUnavailable') is None:
            rolling['maxUnavailable'] = 1
    spec.setdefault('revisionHistoryLimit', 10)
    retention = spec.setdefault('persistentVolumeClaimRetentionPolicy', {})
    if isinstance(retention, dict):
        retention.setdefault('whenDeleted', 'Retain')
        retention.setdefault('whenScaled', 'Retain')
    default_template(obj)


def default_daemonset(obj, old=None):
    spec = obj.setdefault('spec', {})
    strategy = spec.setdefault('updateStrategy', {})
    strategy.setdefault('type', 'RollingUpdate')
    if strategy['type'] == 'RollingUpdate':
        rolling = strategy.setdefault('rollingUpdate', {})
        if isinstance(rolling, dict):
            rolling.setdefault('maxUnavailable', 1)
            rolling.setdefault('maxSurge', 0)
    spec.setdefault('revisionHistoryLimit', 10)
    default_template(obj)


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


def default_namespace(obj, old=None):
    """SetDefaults_Namespace: the `kubernetes.io/metadata.name` label carries the name."""
    name = (obj.get('metadata') or {}).get('name')
    if name:
        obj['metadata'].setdefault('labels', {})['kubernetes.io/metadata.name'] = name


# ---- PrepareForCreate: what the API server sets on a new object ------------------------------------
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


def namespace_initial_status(obj):
    """namespaceStrategy.PrepareForCreate (pkg/registry/core/namespace/strategy.go): Active, and
    the `kubernetes` finalizer in spec."""
    finalizers = obj.setdefault('spec', {}).setdefault('finalizers', [])
    if 'kubernetes' not in finalizers:
        finalizers.append('kubernetes')
    return {'phase': 'Active'}


def empty_status(obj):
    """The zero status the workload strategies (Deployment, ReplicaSet, StatefulSet, DaemonSet,
    ReplicationController), Services and ResourceQuotas start from: the encoder prints its
    fields without omitempty (`replicas: 0` ...)."""
    return {}


def go_base64_error(text):
    """None when ``text`` is base64 as Go's `base64.StdEncoding` decodes it (padded; CR and LF
    skipped), else the offset its `illegal base64 data at input byte N` names: an illegal
    character's, a misplaced `=`'s, trailing input after the padding, or the start of an incomplete
    last quantum (the length when a second `=` is missing)."""
    i, n = 0, len(text)
    while True:
        for j in range(4):
            while i < n and text[i] in '\r\n':
                i += 1
            if i == n:
                if j == 0:
                    return None
                return i - j
            c = text[i]
            i += 1
            if c == '=':
                if j < 2:
                    return i - 1
                if j == 2:
                    while i < n and text[i] in '\r\n':
                        i += 1
                    if i == n:
                        return n
                    if text[i] != '=':
                        return i - 1
                    i += 1
                while i < n and text[i] in '\r\n':
                    i += 1
                return i if i < n else None
            if not _BASE64.match(c):
                return i - 1


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


# ---- validation ------------------------------------------------------------------------------
def validate_name(errs, obj, field='metadata.name'):
    name = (obj.get('metadata') or {}).get('name', '')
    if name and (len(name) > 253 or not _DNS1123_SUBDOMAIN.match(name)):
        errs.invalid(field, name, SUBDOMAIN_MSG)


def validate_labels(errs, labels, field):
    if labels is None:
        return
    if not isinstance(labels, dict):
        errs.invalid(field, labels, 'must be a map of strings')
        return
    for key, value in labels.items():
        prefix, _, name = key.rpartition('/')
        if (not name or len(name) > 63 or not _QUALIFIED_NAME.match(name)
                or (prefix and (len(prefix) > 253 or not _DNS1123_SUBDOMAIN.match(prefix)))):
            errs.invalid(field, key, QUALIFIED_NAME_MSG)
        if not isinstance(value, str) or len(value) > 63 or not _LABEL_VALUE.match(value):
            errs.invalid(field, value, LABEL_VALUE_MSG)


# ValidateAnnotationsSize (apimachinery's objectmeta validation): keys and values together.
TOTAL_ANNOTATION_SIZE = 256 * 1024


def validate_annotations_size(errs, annotations):
    if not isinstance(annotations, dict):
        return
    total = sum(len(str(k).encode()) + len(str(v).encode()) for k, v in annotations.items())
    if total > TOTAL_ANNOTATION_SIZE:
        errs.causes.append(('metadata.annotations', 'FieldValueTooLong',
                            f'Too long: may not be more than {TOTAL_ANNOTATION_SIZE} bytes'))


def validate_pod_spec(errs, spec, path):
    if not isinstance(spec, dict):
        errs.required(path)
        return
    containers = spec.get('containers')
    if not containers:
        errs.required(f'{path}.containers')
    seen = set()
    for key in ('initContainers', 'containers'):
        for i, container in enumerate(spec.get(key) or []):
            field = f'{path}.{key}[{i}]'
            if not isinstance(container, dict):
                errs.invalid(field, container, 'must be an object')
                continue
            name = container.get('name')
            if not name:
                errs.required(f'{field}.name')
            elif len(name) > 63 or not _DNS1123_LABEL.match(name):
                errs.invalid(f'{field}.name', name, LABEL_MSG)
            elif name in seen:
                errs.duplicate(f'{field}.name', name)
            else:
                seen.add(name)
            image = container.get('image')
            if not image:
                errs.required(f'{field}.image')
            elif isinstance(image, str) and image != image.strip():
                # validation.go (validateContainerCommon): the image reference as given is pulled.
                errs.invalid(f'{field}.image', image, 'must not have leading or trailing whitespace')
            policy = container.get('imagePullPolicy')
            if policy is not None and policy not in ('Always', 'IfNotPresent', 'Never'):
                errs.unsupported(f'{field}.imagePullPolicy', policy, ['Always', 'IfNotPresent', 'Never'])
    restart = spec.get('restartPolicy')
    if restart not in ('Always', 'OnFailure', 'Never'):
        errs.unsupported(f'{path}.restartPolicy', restart, ['Always', 'OnFailure', 'Never'])
    grace = spec.get('terminationGracePeriodSeconds')
    if isinstance(grace, int) and grace < 0:
        errs.invalid(f'{path}.terminationGracePeriodSeconds', grace, 'must be greater than or equal to 0')


def validate_template(errs, obj, restart_always=True, required=True):
    template = (obj.get('spec') or {}).get('template')
    if template is None:
        if required:
            errs.required('spec.template')
        return None
    labels = (template.get('metadata') or {}).get('labels')
    validate_labels(errs, labels, 'spec.template.metadata.labels')
    validate_pod_spec(errs, template.get('spec'), 'spec.template.spec')
    restart = (template.get('spec') or {}).get('restartPolicy')
    if restart_always and restart in ('OnFailure', 'Never'):
        errs.unsupported('spec.template.spec.restartPolicy', restart, ['Always'])
    return template


def validate_non_negative(errs, spec, key, path=None):
    value = spec.get(key)
    if value is None:
        return
    if not isinstance(value, int) or isinstance(value, bool):
        errs.invalid(path or f'spec.{key}', value, 'must be an integer')
    elif value < 0:
        errs.invalid(path or f'spec.{key}', value, 'must be greater than or equal to 0')


def validate_selector(errs, obj, kind):
    """apps/v1: a non-empty selector that matches the template's labels."""
    spec = obj.get('spec') or {}
    selector = spec.get('selector')
    if selector is None:
        errs.required('spec.selector')
        return
    if not isinstance(selector, dict) or not (selector.get('matchLabels')
                                              or selector.get('matchExpressions')):
        errs.invalid('spec.selector', selector, f'empty selector is invalid for {kind}')
        return
    validate_labels(errs, selector.get('matchLabels'), 'spec.selector.matchLabels')
    for i, expr in enumerate(selector.get('matchExpressions') or []):
        op = (expr or {}).get('operator')
        if op not in ('In', 'NotIn', 'Exists', 'DoesNotExist'):
            errs.unsupported(f'spec.selector.matchExpressions[{i}].operator', op,
                             ['In', 'NotIn', 'Exists', 'DoesNotExist'])
            return
        if op in ('In', 'NotIn') and not expr.get('values'):
            errs.required(f'spec.selector.matchExpressions[{i}].values')
            return
    labels = (((spec.get('template') or {}).get('metadata') or {}).get('labels')) or {}
    if not matches_labels(selector_from_label_selector_object(selector), labels):
        errs.invalid('spec.template.metadata.labels', labels, '`selector` does not match template `labels`')


def validate_int_or_percent(errs, value, field, at_most_100=True):
    if value is None:
        return None
    if isinstance(value, bool):
        errs.invalid(field, value, 'must be an integer or percentage (e.g \'5%\')')
        return None
    if isinstance(value, int):
        if value < 0:
            errs.invalid(field, value, 'must be greater than or equal to 0')
        return value
    if isinstance(value, str) and _PERCENT.match(value):
        percent = int(value[:-1])
        if at_most_100 and percent > 100:
            errs.invalid(field, value, 'must not be greater than 100%')
        return percent
    errs.invalid(field, value, 'a valid percent string must be a numeric string followed by an ending '
                               '\'%\' (e.g. \'1%\',  or \'93%\', regex used for validation is \'[0-9]+%\')')
    return None


def validate_selector_immutable(errs, obj, old):
    if old is None:
        return
    new_sel = (obj.get('spec') or {}).get('selector')
    old_sel = (old.get('spec') or {}).get('selector')
    if new_sel != old_sel:
        errs.invalid('spec.selector', new_sel, 'field is immutable')


def validate_deployment(obj, old, errs):
    spec = obj.get('spec') or {}
    validate_non_negative(errs, spec, 'replicas')
    validate_non_negative(errs, spec, 'minReadySeconds')
    validate_non_negative(errs, spec, 'revisionHistoryLimit')
    validate_selector(errs, obj, 'deployment')
    validate_template(errs, obj)
    strategy = spec.get('strategy') or {}
    stype = strategy.get('type')
    if stype not in ('Recreate', 'RollingUpdate'):
        errs.unsupported('spec.strategy.type', stype, ['Recreate', 'RollingUpdate'])
    elif stype == 'Recreate' and strategy.get('rollingUpdate') is not None:
        errs.forbidden('spec.strategy.rollingUpdate',
                       'may not be specified when strategy `type` is \'Recreate\'')
    elif stype == 'RollingUpdate':
        rolling = strategy.get('rollingUpdate') or {}
        path = 'spec.strategy.rollingUpdate'
        unavailable = validate_int_or_percent(errs, rolling.get('maxUnavailable'), f'{path}.maxUnavailable')
        # A Deployment may surge beyond 100%; only unavailability is capped.
        surge = validate_int_or_percent(errs, rolling.get('maxSurge'), f'{path}.maxSurge', at_most_100=False)
        if unavailable == 0 and surge == 0:
            errs.invalid(f'{path}.maxUnavailable', rolling.get('maxUnavailable'),
                         'may not be 0 when `maxSurge` is 0')
    deadline = spec.get('progressDeadlineSeconds')
    if deadline is not None:
        validate_non_negative(errs, spec, 'progressDeadlineSeconds')
        if isinstance(deadline, int) and deadline <= (spec.get('minReadySeconds') or 0):
            errs.invalid('spec.progressDeadlineSeconds', deadline, 'must be greater than minReadySeconds')
    validate_selector_immutable(errs, obj, old)


def validate_replicaset(obj, old, errs):
    spec = obj.get('spec') or {}
    validate_non_negative(errs, spec, 'replicas')
    validate_non_negative(errs, spec, 'minReadySeconds')
    validate_selector(errs, obj, 'replicaset')
    validate_template(errs, obj, required=bool(spec.get('replicas')))
    validate_selector_immutable(errs, obj, old)


def validate_statefulset(obj, old, errs):
    # revisionHistoryLimit is not validated for StatefulSets (a negative one is accepted).
    spec = obj.get('spec') or {}
    if old is None:
        # A StatefulSet's name becomes its pods' hostnames: a DNS label, not a subdomain.
        name = (obj.get('metadata') or {}).get('name', '')
        if name and len(name) > 63:
            errs.invalid('metadata.name', name, 'must be no more than 63 characters')
        if name and not _DNS1123_LABEL.match(name):
            errs.invalid('metadata.name', name, LABEL_MSG)
    validate_non_negative(errs, spec, 'replicas')
    validate_non_negative(errs, spec, 'minReadySeconds')
    if isinstance(spec.get('ordinals'), dict):
        validate_non_negative(errs, spec['ordinals'], 'start', 'spec.ordinals.start')
    validate_selector(errs, obj, 'statefulset')
    validate_template(errs, obj)
    policy = spec.get('podManagementPolicy')
    if policy not in ('OrderedReady', 'Parallel'):
        errs.unsupported('spec.podManagementPolicy', policy, ['OrderedReady', 'Parallel'])
    strategy = spec.get('updateStrategy') or {}
    stype = strategy.get('type')
    if stype not in ('RollingUpdate', 'OnDelete'):
        errs.unsupported('spec.updateStrategy.type', stype, ['OnDelete', 'RollingUpdate'])
    elif stype == 'OnDelete' and strategy.get('rollingUpdate') is not None:
        errs.invalid('spec.updateStrategy.rollingUpdate', strategy.get('rollingUpdate'),
                     'only allowed for updateStrategy \'RollingUpdate\'')
    elif stype == 'RollingUpdate':
        rolling = strategy.get('rollingUpdate') or {}
        validate_non_negative(errs, rolling, 'partition', 'spec.updateStrategy.rollingUpdate.partition')
        # MaxUnavailableStatefulSet is beta and on by default at the presented version: kept, validated.
        if rolling.get('maxUnavailable') is not None:
            value = validate_int_or_percent(errs, rolling['maxUnavailable'],
                                            'spec.updateStrategy.rollingUpdate.maxUnavailable')
            if value == 0:
                errs.invalid('spec.updateStrategy.rollingUpdate.maxUnavailable', rolling['maxUnavailable'],
                             'cannot be 0')
    if old is not None:
        mutable = ('replicas', 'ordinals', 'template', 'updateStrategy',
                   'persistentVolumeClaimRetentionPolicy', 'minReadySeconds', 'revisionHistoryLimit')
        rest_new = {k: v for k, v in spec.items() if k not in mutable}
        rest_old = {k: v for k, v in (old.get('spec') or {}).items() if k not in mutable}
        if rest_new != rest_old:
            errs.forbidden('spec', 'updates to statefulset spec for fields other than \'replicas\', '
                                   '\'ordinals\', \'template\', \'updateStrategy\', '
                                   '\'revisionHistoryLimit\', \'persistentVolumeClaimRetentionPolicy\' '
                                   'and \'minReadySeconds\' are forbidden')


def validate_daemonset(obj, old, errs):
    spec = obj.get('spec') or {}
    validate_non_negative(errs, spec, 'minReadySeconds')
    validate_non_negative(errs, spec, 'revisionHistoryLimit')
    validate_selector(errs, obj, 'daemonset')
    validate_template(errs, obj)
    strategy = spec.get('updateStrategy') or {}
    stype = strategy.get('type')
    if stype not in ('RollingUpdate', 'OnDelete'):
        errs.unsupported('spec.updateStrategy.type', stype, ['OnDelete', 'RollingUpdate'])
    elif stype == 'RollingUpdate':
        rolling = strategy.get('rollingUpdate') or {}
        path = 'spec.updateStrategy.rollingUpdate'
        unavailable = validate_int_or_percent(errs, rolling.get('maxUnavailable'), f'{path}.maxUnavailable')
        surge = validate_int_or_percent(errs, rolling.get('maxSurge'), f'{path}.maxSurge')
        # Exactly one of the two may be non-zero.
        if unavailable and surge:
            errs.invalid(f'{path}.maxSurge', rolling.get('maxSurge'),
                         'may not be set when maxUnavailable is non-zero')
        elif not unavailable and not surge:
            errs.required(f'{path}.maxUnavailable', 'cannot be 0 when maxSurge is 0')
    validate_selector_immutable(errs, obj, old)


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


def validate_pod_object(obj, old, errs):
    validate_pod_spec(errs, obj.get('spec'), 'spec')


def validate_controllerrevision(obj, old, errs):
    revision = obj.get('revision')
    if revision is not None and (not isinstance(revision, int) or revision < 0):
        errs.invalid('revision', revision, 'must be greater than or equal to 0')
    if old is not None and obj.get('data') != old.get('data'):
        errs.invalid('data', '', 'field is immutable')


# ---- server-side bookkeeping -----------------------------------------------------------------
def bump_deployment_generation(obj, old):
    """Deployments also count annotation changes as a new generation (they reach ReplicaSets). The
    controller writes its revision annotation through /status, which never bumps the generation."""
    if old is None:
        return
    new_ann = (obj.get('metadata') or {}).get('annotations') or {}
    old_ann = (old.get('metadata') or {}).get('annotations') or {}
    if new_ann != old_ann:
        obj['metadata']['generation'] = old['metadata'].get('generation', 1) + 1


def daemonset_template_generation(obj, old):
    """Keep `deprecated.daemonset.template.generation`: 1 at creation, +1 per template change."""
    meta = obj.setdefault('metadata', {})
    annotations = meta.setdefault('annotations', {})
    if old is None:
        annotations[DS_TEMPLATE_GENERATION] = '1'
        return
    old_gen = ((old.get('metadata') or {}).get('annotations') or {}).get(DS_TEMPLATE_GENERATION, '1')
    try:
        generation = int(old_gen)
    except ValueError:
        generation = 1
    if (obj.get('spec') or {}).get('template') != (old.get('spec') or {}).get('template'):
        generation += 1
    annotations[DS_TEMPLATE_GENERATION] = str(generation)


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


def validate_lease(obj, old, errs):
    spec = obj.get('spec') or {}
    duration = spec.get('leaseDurationSeconds')
    if duration is not None and (not isinstance(duration, int) or duration <= 0):
        errs.invalid('spec.leaseDurationSeconds', duration, 'must be greater than 0')
    transitions = spec.get('leaseTransitions')
    if transitions is not None and (not isinstance(transitions, int) or transitions < 0):
        errs.invalid('spec.leaseTransitions', transitions, 'must be greater than or equal to 0')


def validate_resourcequota(obj, old, errs):
    for name, value in sorted(((obj.get('spec') or {}).get('hard') or {}).items()):
        try:
            quantity = parse_quantity(value)
        except ValueError as err:
            errs.invalid(f'spec.hard[{name}]', value, str(err))
            continue
        if quantity.value < 0:
            errs.invalid(f'spec.hard[{name}]', value, 'must be greater than or equal to 0')


# ---- the hook ----------------------------------------------------------------------------------
def admit(strategy, obj, old):
    """Default ``obj`` in place and validate it with ``strategy``'s hooks (a `resources.Resource`);
    ``old`` is the stored object on updates. Raises a 422 listing every invalid field."""
    if strategy.defaulter is None and strategy.validator is None and strategy.initial_status is None:
        return
    if strategy.validator is not None and not isinstance(obj.get('spec', {}), dict):
        raise ApiError.invalid(strategy.key, (obj.get('metadata') or {}).get('name', ''),
                               [('spec', 'FieldValueInvalid', 'Invalid value: must be an object')],
                               kind=strategy.qualified_kind)
    if strategy.defaulter is not None:
        strategy.defaulter(obj, old)
    if old is None and strategy.initial_status is not None:
        obj['status'] = strategy.initial_status(obj)
    if strategy.validator is None:
        return
    errs = Errors()
    if old is None:
        validate_name(errs, obj)
    validate_labels(errs, (obj.get('metadata') or {}).get('labels'), 'metadata.labels')
    validate_annotations_size(errs, (obj.get('metadata') or {}).get('annotations'))
    strategy.validator(obj, old, errs)
    errs.raise_if_any(strategy, obj)
    if strategy.after_admit is not None:
        strategy.after_admit(obj, old)


# ---- pods/resize -------------------------------------------------------------------------------
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

"""The pod spec every pod-making kind carries (pods, ReplicationControllers and the apps kinds'
templates): its defaults (pkg/apis/core/v1/defaults.go: SetDefaults_PodSpec, _Container, _Volume
and the rest) and its validation (pkg/apis/core/validation: ValidatePodSpec,
ValidatePodTemplateSpec). Defaulting is idempotent and applies to templates too, so templates
compare the way the controllers compare them (Deployment template vs. ReplicaSet template,
StatefulSet/DaemonSet template vs. ControllerRevision data)."""

from .validation import DNS1123_LABEL, LABEL_MSG, validate_labels


# ---- defaulting ----------------------------------------------------------------------------------
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
    # Convert_v1_PodSpec_To_core_PodSpec and back: serviceAccountName, else the deprecated
    # serviceAccount, is the account; both print it.
    account = spec.get('serviceAccountName') or spec.get('serviceAccount')
    if account:
        spec['serviceAccountName'] = spec['serviceAccount'] = account
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


# ---- validation ----------------------------------------------------------------------------------
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
            elif len(name) > 63 or not DNS1123_LABEL.match(name):
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

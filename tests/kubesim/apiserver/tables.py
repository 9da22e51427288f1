"""Server-side printing: the `meta.k8s.io/v1` Table `kubectl get` asks for.

Columns and cells follow the API server's printers for each kind (NAME, READY, UP-TO-DATE, ... and
the extra `-o wide` columns at priority 1); kinds without a printer get NAME and AGE. Each
resource names its column list in `resources.RESOURCES`. Rows carry the
object's metadata as a PartialObjectMetadata, as with the server's default `includeObject=Metadata`.
"""

import datetime

TABLE_MEDIA = 'as=Table'

_DESCRIPTIONS = {
    'Name': 'Name must be unique within a namespace.',
    'Age': 'CreationTimestamp is a timestamp representing the server time when this object was created.',
}


def wants_table(accept):
    """True when the Accept header asks for a Table (kubectl get does, before plain JSON)."""
    first = (accept or '').split(',')[0]
    return TABLE_MEDIA in first.replace(' ', '') and 'g=meta.k8s.io' in first


def human_duration(seconds):
    """Kubernetes' duration.HumanDuration, as printed in AGE columns."""
    s = int(seconds)
    if s < -1:
        return '<invalid>'
    if s < 0:
        return '0s'
    if s < 120:
        return f'{s}s'
    minutes = s // 60
    if minutes < 10:
        return f'{minutes}m{s % 60}s' if s % 60 else f'{minutes}m'
    if minutes < 180:
        return f'{minutes}m'
    hours = s // 3600
    if hours < 8:
        return f'{hours}h{minutes % 60}m' if minutes % 60 else f'{hours}h'
    if hours < 48:
        return f'{hours}h'
    if hours < 24 * 8:
        return f'{hours // 24}d{hours % 24}h' if hours % 24 else f'{hours // 24}d'
    if hours < 24 * 365 * 2:
        return f'{hours // 24}d'
    if hours < 24 * 365 * 8:
        years, days = hours // 24 // 365, (hours // 24) % 365
        return f'{years}y{days}d' if days else f'{years}y'
    return f'{hours // 24 // 365}y'


def _age(obj, now=None):
    stamp = (obj.get('metadata') or {}).get('creationTimestamp')
    if not stamp:
        return '<unknown>'
    created = datetime.datetime.strptime(stamp, '%Y-%m-%dT%H:%M:%SZ').replace(tzinfo=datetime.timezone.utc)
    now = now or datetime.datetime.now(datetime.timezone.utc)
    return human_duration((now - created).total_seconds())


def _spec(obj):
    return obj.get('spec') or {}


def _status(obj):
    return obj.get('status') or {}


def _pod_spec(obj):
    return ((_spec(obj).get('template') or {}).get('spec')) or {}


def _containers(obj):
    return ','.join(c.get('name', '') for c in _pod_spec(obj).get('containers') or [])


def _images(obj):
    return ','.join(c.get('image', '') for c in _pod_spec(obj).get('containers') or [])


def _selector(obj):
    sel = _spec(obj).get('selector') or {}
    if 'matchLabels' in sel or 'matchExpressions' in sel:
        parts = [f'{k}={v}' for k, v in sorted((sel.get('matchLabels') or {}).items())]
        for e in sel.get('matchExpressions') or []:
            op, key, values = e.get('operator'), e.get('key'), ','.join(sorted(e.get('values') or []))
            parts.append({'In': f'{key} in ({values})', 'NotIn': f'{key} notin ({values})',
                          'Exists': key, 'DoesNotExist': f'!{key}'}.get(op, key))
        return ','.join(parts) or '<none>'
    return ','.join(f'{k}={v}' for k, v in sorted(sel.items())) or '<none>'


def _pod_status(pod):
    status = _status(pod)
    reason = status.get('reason') or status.get('phase') or 'Unknown'
    for cs in status.get('containerStatuses') or []:
        state = cs.get('state') or {}
        if (state.get('waiting') or {}).get('reason'):
            reason = state['waiting']['reason']
        elif (state.get('terminated') or {}).get('reason'):
            reason = state['terminated']['reason']
    deleting = (pod.get('metadata') or {}).get('deletionTimestamp')
    if deleting and status.get('phase') not in ('Succeeded', 'Failed'):
        return 'Terminating'  # a finished pod being deleted shows how it finished
    return reason


def _pod_ready(pod):
    statuses = _status(pod).get('containerStatuses') or []
    total = len(_spec(pod).get('containers') or [])
    return f'{sum(1 for c in statuses if c.get("ready"))}/{total}'


def _node_status(node):
    ready = next((c for c in _status(node).get('conditions') or [] if c.get('type') == 'Ready'), None)
    text = 'Ready' if ready and ready.get('status') == 'True' else 'NotReady' if ready else 'Unknown'
    if _spec(node).get('unschedulable'):
        text += ',SchedulingDisabled'
    return text


def _node_roles(node):
    prefix = 'node-role.kubernetes.io/'
    roles = sorted(k[len(prefix):] for k in (node['metadata'].get('labels') or {}) if k.startswith(prefix))
    return ','.join(roles) or '<none>'


def _owner(obj):
    ref = next((r for r in obj['metadata'].get('ownerReferences') or [] if r.get('controller')), None)
    if not ref:
        return '<none>'
    group = ref.get('apiVersion', '').rpartition('/')[0]
    return f'{ref.get("kind", "").lower()}{"." + group if group else ""}/{ref.get("name")}'


def _event_object(ev):
    ref = ev.get('involvedObject') or {}
    return f'{(ref.get("kind") or "").lower()}/{ref.get("name")}'


def _event_last_seen(ev, now=None):
    stamp = (ev.get('lastTimestamp') or ev.get('eventTime')
             or (ev.get('metadata') or {}).get('creationTimestamp'))
    if not stamp:
        return '<unknown>'
    return _age({'metadata': {'creationTimestamp': stamp[:19] + 'Z'}}, now)


# (column name, type, priority, cell function)
_NAME = ('Name', 'string', 0, lambda o: o['metadata']['name'])
_AGE = ('Age', 'string', 0, _age)
_CONTAINERS = ('Containers', 'string', 1, _containers)
_IMAGES = ('Images', 'string', 1, _images)
_SELECTOR = ('Selector', 'string', 1, _selector)


def _ready_of_desired(obj):
    return f'{_status(obj).get("readyReplicas", 0)}/{_spec(obj).get("replicas", 0)}'


def _int(path):
    def get(obj):
        value = obj
        for part in path.split('.'):
            value = (value or {}).get(part)
        return int(value or 0)

    return get


REPLICA_SET = [_NAME, ('Desired', 'integer', 0, _int('spec.replicas')),
               ('Current', 'integer', 0, _int('status.replicas')),
               ('Ready', 'integer', 0, _int('status.readyReplicas')), _AGE, _CONTAINERS, _IMAGES, _SELECTOR]

DEPLOYMENT = [
    _NAME,
    ('Ready', 'string', 0, _ready_of_desired),
    ('Up-to-date', 'integer', 0, _int('status.updatedReplicas')),
    ('Available', 'integer', 0, _int('status.availableReplicas')),
    _AGE, _CONTAINERS, _IMAGES, _SELECTOR]
STATEFUL_SET = [_NAME, ('Ready', 'string', 0, _ready_of_desired), _AGE, _CONTAINERS, _IMAGES]
DAEMON_SET = [
    _NAME, ('Desired', 'integer', 0, _int('status.desiredNumberScheduled')),
    ('Current', 'integer', 0, _int('status.currentNumberScheduled')),
    ('Ready', 'integer', 0, _int('status.numberReady')),
    ('Up-to-date', 'integer', 0, _int('status.updatedNumberScheduled')),
    ('Available', 'integer', 0, _int('status.numberAvailable')),
    ('Node Selector', 'string', 0, lambda o: ','.join(
        f'{k}={v}' for k, v in sorted((_pod_spec(o).get('nodeSelector') or {}).items())) or '<none>'),
    _AGE, _CONTAINERS, _IMAGES, _SELECTOR]
CONTROLLER_REVISION = [
    _NAME, ('Controller', 'string', 0, _owner),
    ('Revision', 'integer', 0, lambda o: int(o.get('revision', 0))), _AGE]
POD = [
    _NAME, ('Ready', 'string', 0, _pod_ready), ('Status', 'string', 0, _pod_status),
    ('Restarts', 'string', 0, lambda o: str(sum(c.get('restartCount', 0)
                                                for c in _status(o).get('containerStatuses') or []))),
    _AGE, ('IP', 'string', 1, lambda o: _status(o).get('podIP') or '<none>'),
    ('Node', 'string', 1, lambda o: _spec(o).get('nodeName') or '<none>'),
    ('Nominated Node', 'string', 1, lambda o: _status(o).get('nominatedNodeName') or '<none>'),
    ('Readiness Gates', 'string', 1, lambda o: '<none>')]
NAMESPACE = [_NAME, ('Status', 'string', 0, lambda o: _status(o).get('phase', '')), _AGE]
NODE = [
    _NAME, ('Status', 'string', 0, _node_status), ('Roles', 'string', 0, _node_roles), _AGE,
    ('Version', 'string', 0, lambda o: (_status(o).get('nodeInfo') or {}).get('kubeletVersion', '')),
    ('Internal-IP', 'string', 1, lambda o: next((a['address'] for a in _status(o).get('addresses') or []
                                                 if a.get('type') == 'InternalIP'), '<none>'))]
CONFIG_MAP = [_NAME, ('Data', 'integer', 0,
                      lambda o: len(o.get('data') or {}) + len(o.get('binaryData') or {})), _AGE]
SECRET = [_NAME, ('Type', 'string', 0, lambda o: o.get('type', '')),
          ('Data', 'integer', 0, lambda o: len(o.get('data') or {})), _AGE]
EVENT = [
    ('Last Seen', 'string', 0, _event_last_seen), ('Type', 'string', 0, lambda o: o.get('type', '')),
    ('Reason', 'string', 0, lambda o: o.get('reason', '')), ('Object', 'string', 0, _event_object),
    ('Message', 'string', 0, lambda o: (o.get('message') or '').strip())]
LEASE = [_NAME, ('Holder', 'string', 0, lambda o: _spec(o).get('holderIdentity') or ''), _AGE]


def _quota_usage(quota, limits):
    hard, used = _status(quota).get('hard') or {}, _status(quota).get('used') or {}
    return ', '.join(f'{name}: {used.get(name, "0")}/{value}' for name, value in sorted(hard.items())
                     if name.startswith('limits') == limits)


RESOURCE_QUOTA = [_NAME, _AGE, ('Request', 'string', 0, lambda o: _quota_usage(o, False)),
                  ('Limit', 'string', 0, lambda o: _quota_usage(o, True))]
def _hpa_targets(hpa):
    """formatHPAMetrics: `name: current/target` per metric (the first two, then `+ N more...`),
    `<unknown>` before the controller has a value."""
    current = {}
    for metric in _status(hpa).get('currentMetrics') or []:
        resource = metric.get('resource') or {}
        if metric.get('type') == 'Resource':
            current[resource.get('name')] = resource.get('current') or {}
    parts = []
    specs = _spec(hpa).get('metrics') or []
    for metric in specs[:2]:
        if metric.get('type') != 'Resource':
            parts.append(f'<unknown>/{metric.get("type", "")}')
            continue
        resource = metric.get('resource') or {}
        name, target = resource.get('name'), resource.get('target') or {}
        now = current.get(name) or {}
        if target.get('type') == 'Utilization':
            value = now.get('averageUtilization')
            shown = f'{value}%' if value is not None else '<unknown>'
            parts.append(f'{name}: {shown}/{target.get("averageUtilization")}%')
        else:
            shown = now.get('averageValue', '<unknown>')
            parts.append(f'{name}: {shown}/{target.get("averageValue") or target.get("value")}')
    text = ', '.join(parts) or '<none>'
    if len(specs) > 2:
        text += f' + {len(specs) - 2} more...'
    return text


def _hpa_reference(hpa):
    ref = _spec(hpa).get('scaleTargetRef') or {}
    return f'{ref.get("kind", "")}/{ref.get("name", "")}'


HORIZONTAL_POD_AUTOSCALER = [
    _NAME, ('Reference', 'string', 0, _hpa_reference), ('Targets', 'string', 0, _hpa_targets),
    ('MinPods', 'string', 0, lambda o: str(_spec(o).get('minReplicas', 1))),
    ('MaxPods', 'integer', 0, _int('spec.maxReplicas')),
    ('Replicas', 'integer', 0, _int('status.currentReplicas')), _AGE]

# Kinds without a printer of their own.
DEFAULT = [_NAME, _AGE]


def _definitions(columns):
    """Column definitions; a column's optional fifth element overrides its `format` and
    `description` (the printer columns of custom resources and CRDs)."""
    out = []
    for name, typ, priority, _fn, *extra in columns:
        definition = {'name': name, 'type': typ, 'format': 'name' if name == 'Name' else '',
                      'description': _DESCRIPTIONS.get(name, name), 'priority': priority}
        if extra:
            definition.update(extra[0])
        out.append(definition)
    return out


def _row(columns, obj, include):
    meta = {'kind': 'PartialObjectMetadata', 'apiVersion': 'meta.k8s.io/v1', 'metadata': obj.get('metadata')}
    return {'cells': [c[3](obj) for c in columns], 'object': {'Object': obj, 'None': None}.get(include, meta)}


def table(columns, objects, metadata, include='Metadata'):
    """A Table of ``objects`` with ``columns`` (a resource's `columns`; list metadata: resourceVersion,
    continue, ...); rows carry the object, its metadata or null as `include` (`includeObject`) says."""
    return {'kind': 'Table', 'apiVersion': 'meta.k8s.io/v1', 'metadata': metadata,
            'columnDefinitions': _definitions(columns),
            'rows': [_row(columns, o, include) for o in objects]}


# ---- batch/v1 (pkg/printers/internalversion/printers.go: printJob, printCronJob) ----------------------
def _parse_time(stamp):
    return datetime.datetime.strptime(stamp, '%Y-%m-%dT%H:%M:%SZ').replace(tzinfo=datetime.timezone.utc)


def _job_condition(obj, kind):
    return any(c.get('type') == kind and c.get('status') == 'True'
               for c in _status(obj).get('conditions') or [])


def _job_status(obj):
    for kind in ('Complete', 'Failed'):
        if _job_condition(obj, kind):
            return kind
    if (obj.get('metadata') or {}).get('deletionTimestamp'):
        return 'Terminating'
    for kind in ('Suspended', 'FailureTarget', 'SuccessCriteriaMet'):
        if _job_condition(obj, kind):
            return kind
    return 'Running'


def _job_completions(obj):
    succeeded = _status(obj).get('succeeded') or 0
    completions = _spec(obj).get('completions')
    if completions is not None:
        return f'{succeeded}/{completions}'
    parallelism = _spec(obj).get('parallelism') or 0
    return f'{succeeded}/1 of {parallelism}' if parallelism > 1 else f'{succeeded}/1'


def _job_duration(obj, now=None):
    started, finished = _status(obj).get('startTime'), _status(obj).get('completionTime')
    if not started:
        return ''
    end = _parse_time(finished) if finished else (now or datetime.datetime.now(datetime.timezone.utc))
    return human_duration((end - _parse_time(started)).total_seconds())


def _job_template_pod_spec(obj):
    job_spec = (_spec(obj).get('jobTemplate') or {}).get('spec') or {}
    return (job_spec.get('template') or {}).get('spec') or {}


def _bool_pointer(value):
    """printBoolPtr: True, False, or <unset> for nil."""
    return {True: 'True', False: 'False'}.get(value, '<unset>')


def _cronjob_last_schedule(obj, now=None):
    stamp = _status(obj).get('lastScheduleTime')
    if not stamp:
        return '<none>'
    now = now or datetime.datetime.now(datetime.timezone.utc)
    return human_duration((now - _parse_time(stamp)).total_seconds())


JOB = [_NAME, ('Status', 'string', 0, _job_status), ('Completions', 'string', 0, _job_completions),
       ('Duration', 'string', 0, _job_duration), _AGE, _CONTAINERS, _IMAGES, _SELECTOR]
CRON_JOB = [
    _NAME, ('Schedule', 'string', 0, lambda o: _spec(o).get('schedule', '')),
    ('Timezone', 'string', 0, lambda o: _spec(o).get('timeZone') or '<none>'),
    ('Suspend', 'boolean', 0, lambda o: _bool_pointer(_spec(o).get('suspend'))),
    ('Active', 'integer', 0, lambda o: len(_status(o).get('active') or [])),
    ('Last Schedule', 'string', 0, _cronjob_last_schedule), _AGE,
    ('Containers', 'string', 1, lambda o: ','.join(c.get('name', '') for c in
                                                    _job_template_pod_spec(o).get('containers') or [])),
    ('Images', 'string', 1, lambda o: ','.join(c.get('image', '') for c in
                                                _job_template_pod_spec(o).get('containers') or [])),
    ('Selector', 'string', 1, lambda o: _selector({'spec': (_spec(o).get('jobTemplate') or {}).get('spec')
                                                            or {}})),
]


# ---- rbac.authorization.k8s.io (printers.go printRole, printRoleBinding; SubjectsStrings) ------
def _created_at(obj):
    return (obj.get('metadata') or {}).get('creationTimestamp') or ''


def _role_ref(binding):
    ref = binding.get('roleRef') or {}
    return f'{ref.get("kind", "")}/{ref.get("name", "")}'


def _subjects(kind):
    def cell(binding):
        names = []
        for subject in binding.get('subjects') or []:
            if subject.get('kind') != kind:
                continue
            if kind == 'ServiceAccount':
                names.append(f'{subject.get("namespace", "")}/{subject.get("name", "")}')
            else:
                names.append(subject.get('name', ''))
        return ', '.join(names)
    return cell


ROLE = [_NAME, ('Created At', 'date', 0, _created_at)]
ROLE_BINDING = [_NAME, ('Role', 'string', 0, _role_ref), _AGE, ('Users', 'string', 1, _subjects('User')),
                ('Groups', 'string', 1, _subjects('Group')),
                ('ServiceAccounts', 'string', 1, _subjects('ServiceAccount'))]


# ---- volumes and APIServices (pkg/printers/internalversion/printers.go: printPersistentVolumeClaim,
# printPersistentVolume, printStorageClass; kube-aggregator's APIService ConvertToTable) ------------
def _access_modes(modes):
    """GetAccessModesAsString: RWO, ROX, RWX, RWOP in that order."""
    short = (('ReadWriteOnce', 'RWO'), ('ReadOnlyMany', 'ROX'), ('ReadWriteMany', 'RWX'),
             ('ReadWriteOncePod', 'RWOP'))
    return ','.join(s for mode, s in short if mode in (modes or []))


def _terminating_or(obj, phase):
    return 'Terminating' if (obj.get('metadata') or {}).get('deletionTimestamp') else phase


def _claim_class(obj):
    annotations = (obj.get('metadata') or {}).get('annotations') or {}
    return annotations.get('volume.beta.kubernetes.io/storage-class',
                           _spec(obj).get('storageClassName') or '')


def _claim_capacity(obj):
    return (_status(obj).get('capacity') or {}).get('storage', '') if _spec(obj).get('volumeName') else ''


PERSISTENT_VOLUME_CLAIM = [
    _NAME, ('Status', 'string', 0, lambda o: _terminating_or(o, _status(o).get('phase', ''))),
    ('Volume', 'string', 0, lambda o: _spec(o).get('volumeName', '')),
    ('Capacity', 'string', 0, _claim_capacity),
    ('Access Modes', 'string', 0,
     lambda o: _access_modes(_status(o).get('accessModes')) if _spec(o).get('volumeName') else ''),
    ('StorageClass', 'string', 0, _claim_class),
    ('VolumeAttributesClass', 'string', 0, lambda o: _spec(o).get('volumeAttributesClassName', '<unset>')),
    _AGE, ('VolumeMode', 'string', 1, lambda o: _spec(o).get('volumeMode') or '<unset>')]


def _claim_ref(obj):
    ref = _spec(obj).get('claimRef')
    return f'{ref.get("namespace", "")}/{ref.get("name", "")}' if ref else ''


PERSISTENT_VOLUME = [
    _NAME, ('Capacity', 'string', 0, lambda o: (_spec(o).get('capacity') or {}).get('storage', '0')),
    ('Access Modes', 'string', 0, lambda o: _access_modes(_spec(o).get('accessModes'))),
    ('Reclaim Policy', 'string', 0, lambda o: _spec(o).get('persistentVolumeReclaimPolicy', '')),
    ('Status', 'string', 0, lambda o: _terminating_or(o, _status(o).get('phase', ''))),
    ('Claim', 'string', 0, _claim_ref),
    ('StorageClass', 'string', 0, _claim_class),
    ('VolumeAttributesClass', 'string', 0, lambda o: _spec(o).get('volumeAttributesClassName', '<unset>')),
    ('Reason', 'string', 0, lambda o: _status(o).get('reason', '')), _AGE,
    ('VolumeMode', 'string', 1, lambda o: _spec(o).get('volumeMode') or '<unset>')]


def _storage_class_name(obj):
    annotations = obj['metadata'].get('annotations') or {}
    default = 'true' in (annotations.get('storageclass.kubernetes.io/is-default-class'),
                         annotations.get('storageclass.beta.kubernetes.io/is-default-class'))
    return obj['metadata']['name'] + (' (default)' if default else '')


STORAGE_CLASS = [
    ('Name', 'string', 0, _storage_class_name),
    ('Provisioner', 'string', 0, lambda o: o.get('provisioner', '')),
    ('ReclaimPolicy', 'string', 0, lambda o: o.get('reclaimPolicy') or 'Delete'),
    ('VolumeBindingMode', 'string', 0, lambda o: o.get('volumeBindingMode') or 'Immediate'),
    ('AllowVolumeExpansion', 'string', 0, lambda o: bool(o.get('allowVolumeExpansion'))), _AGE]


def _apiservice_available(obj):
    condition = next((c for c in _status(obj).get('conditions') or [] if c.get('type') == 'Available'), None)
    if condition is None:
        return 'Unknown'
    if condition.get('status') != 'True' and condition.get('reason'):
        return f'{condition.get("status")} ({condition["reason"]})'
    return condition.get('status', '')


def _apiservice_service(obj):
    service = _spec(obj).get('service')
    return f'{service.get("namespace", "")}/{service.get("name", "")}' if service else 'Local'


API_SERVICE = [_NAME, ('Service', 'string', 0, _apiservice_service),
               ('Available', 'string', 0, _apiservice_available), _AGE]
_DESCRIPTIONS.update({'Service': 'The reference to the service that hosts this API endpoint.',
                      'Available': 'Whether this service is available.'})

"""The operations compared, and how each tool expresses them.

One row per verb: this collection's task, the `kubectl` command line (run directly, or through
`ansible.builtin.command`), and kubernetes.core's nearest equivalent. ``step`` numbers repeated runs,
so that every repetition of a write is a real change (a new image tag each time); undo alternates
between the last two revisions and pause/resume are always measured in pairs.
"""


from .fixtures import CONTAINER, CORE_NAMESPACE, IMAGE, KUBECTL_NAMES, NAMESPACE

KINDS = ('Deployment', 'StatefulSet', 'DaemonSet')
# Read-only verbs first: the writes leave rollouts in progress, which `status` would then wait for.
VERBS = ('history', 'status', 'pause', 'resume', 'restart', 'image', 'undo')
TOOL_LABELS = {'kubeops': 'kubeops.rollout', 'controller': 'kubeops.rollout, controller path',
               'module': 'kubeops.rollout, module path', 'command': 'command: kubectl',
               'kubernetes.core': 'kubernetes.core', 'ping': 'ping (floor)', 'debug': 'debug'}
# A task on localhost runs this collection's module in the controller process (the controller
# path); this task variable makes it run as a normal module (AnsiballZ, new Python process).
MODULE_PATH_VARS = {'vars': {'kubeops_rollout_module_path': True}}

# The revisions each kind keeps, for kubernetes.core's k8s_info "history".
_REVISION_KIND = {'Deployment': 'ReplicaSet', 'StatefulSet': 'ControllerRevision',
                  'DaemonSet': 'ControllerRevision'}


def applies(verb, kind):
    """Whether kubectl (and so this comparison) supports the verb for the kind."""
    return kind == 'Deployment' if verb in ('pause', 'resume') else kind in KINDS


def image_for(step):
    return IMAGE.format(f'b{step}')


def restart_stamp():
    # Templated by Ansible at run time, as a user of kubernetes.core would write it.
    return "{{ now(utc=true).strftime('%Y-%m-%dT%H:%M:%SZ') }}"


def kubeops_task(verb, kind, name, kubeconfig, step=0, ns=NAMESPACE):
    """This collection's module call for one verb."""
    common = {'kind': kind, 'name': name, 'namespace': ns, 'kubeconfig': kubeconfig}
    if verb == 'history':
        return {'kubeops.rollout.rollout_history': common}
    if verb == 'status':
        return {'kubeops.rollout.rollout_status': common}
    if verb in ('pause', 'resume'):
        return {'kubeops.rollout.rollout_pause': {
            **common, 'state': 'paused' if verb == 'pause' else 'resumed'}}
    if verb == 'restart':
        return {'kubeops.rollout.rollout_restart': common}
    if verb == 'undo':
        return {'kubeops.rollout.rollout_undo': common}
    if verb == 'image':
        return {'kubeops.rollout.rollout_image': {**common, 'images': {CONTAINER: image_for(step)}}}
    raise ValueError(verb)


def kubectl_args(verb, kind, name, step=0, ns=NAMESPACE):
    """The kubectl command line for one verb (without global flags)."""
    ref = f'{KUBECTL_NAMES[kind]}/{name}'
    if verb == 'image':
        return ['set', 'image', ref, f'{CONTAINER}={image_for(step)}', '-n', ns]
    return ['rollout', verb, ref, '-n', ns]


def core_task(verb, kind, name, kubeconfig, step=0, ns=CORE_NAMESPACE):
    """kubernetes.core's nearest equivalent, or None where it has none."""
    target = {'api_version': 'apps/v1', 'kind': kind, 'name': name, 'namespace': ns,
              'kubeconfig': kubeconfig}
    if verb == 'history':
        # No history module: list the revisions the way the workload selects them.
        return {'kubernetes.core.k8s_info': {
            'api_version': 'apps/v1', 'kind': _REVISION_KIND[kind], 'namespace': ns,
            'label_selectors': [f'app={name}'], 'kubeconfig': kubeconfig}}
    if verb == 'status':
        return {'kubernetes.core.k8s_info': {**target, 'wait': True, 'wait_timeout': 120}}
    if verb == 'undo':
        if kind == 'StatefulSet':
            return None  # k8s_rollback refuses StatefulSets
        return {'kubernetes.core.k8s_rollback': dict(target)}
    if verb in ('pause', 'resume'):
        spec = {'paused': verb == 'pause'}
    elif verb == 'restart':
        spec = {'template': {'metadata': {'annotations': {
            'kubectl.kubernetes.io/restartedAt': restart_stamp()}}}}
    elif verb == 'image':
        spec = {'template': {'spec': {'containers': [{'name': CONTAINER, 'image': image_for(step)}]}}}
    else:
        raise ValueError(verb)
    return {'kubernetes.core.k8s': {
        'state': 'patched', 'kubeconfig': kubeconfig,
        'definition': {'apiVersion': 'apps/v1', 'kind': kind,
                       'metadata': {'name': name, 'namespace': ns}, 'spec': spec}}}


def command_task(verb, kind, name, kubectl, kubeconfig, cache_dir, step=0, ns=NAMESPACE):
    argv = [kubectl, '--kubeconfig', kubeconfig, '--cache-dir', cache_dir,
            *kubectl_args(verb, kind, name, step, ns)]
    return {'ansible.builtin.command': {'argv': argv}}


PING_TASK = {'ansible.builtin.ping': {}}
DEBUG_TASK = {'ansible.builtin.debug': {'msg': 'bench'}}

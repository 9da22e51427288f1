"""Shared test data for the rolling update of ReplicationControllers (module_utils/rc)."""

from ansible_collections.kubeops.rollout.plugins.modules.rolling_update_rc import ARGUMENT_SPEC
from ansible_collections.kubeops.rollout.plugins.module_utils.rc import objects
from ansible_collections.kubeops.rollout.plugins.module_utils.rc import state as rc_state
from ansible_collections.kubeops.rollout.plugins.module_utils.rc import steps as step_math

DEFAULTS = {name: spec.get('default') for name, spec in ARGUMENT_SPEC.items()}
KEY = DEFAULTS['deployment_label_key']
NEXT, ORIGINAL = objects.NEXT_CONTROLLER_ANNOTATION, objects.ORIGINAL_REPLICAS_ANNOTATION
SOURCE, DESIRED = objects.SOURCE_ID_ANNOTATION, objects.DESIRED_REPLICAS_ANNOTATION




def rc(name='web', image='nginx:1.25', replicas=3, containers=None, selector=None, labels=None,
       annotations=None, uid='uid-1'):
    labels = dict(labels or {'app': 'web'})
    obj = {'apiVersion': 'v1', 'kind': 'ReplicationController',
           'metadata': {'name': name, 'namespace': 'default', 'uid': uid, 'resourceVersion': '10',
                        'labels': {'app': 'web'}},
           'spec': {'replicas': replicas, 'selector': dict(selector or labels),
                    'template': {'metadata': {'labels': labels},
                                 'spec': {'containers': containers or [{'name': 'app', 'image': image}]}}},
           'status': {'replicas': replicas}}
    if annotations:
        obj['metadata']['annotations'] = dict(annotations)
    return obj


def options(**kw):
    base = dict(DEFAULTS, name='web', namespace='default', image='nginx:1.26')
    base.update(kw)
    return rc_state.Options(**base)


def steps(old, new, desired, surge, unavailable, **kw):
    lim = step_math.limits(surge, unavailable, desired, old)
    return [(s.action, s.to_replicas) for s in step_math.plan_steps(old, new, lim, **kw)]


# ---- against kubesim -------------------------------------------------------------------------------

RCS = '/api/v1/namespaces/default/replicationcontrollers'


def create_ready_rc(client, name='web', image='nginx:1.25', replicas=2, **kw):
    """Create an RC (``manifests.workload``) in namespace default and wait until its pods are ready."""
    from tests.support.manifests import workload

    client.create(RCS, workload('ReplicationController', name, image, replicas, namespace='default', **kw))
    return wait_ready_rc(client, name, replicas)


def wait_ready_rc(client, name, replicas=None):
    """The RC once it has ``replicas`` (default: its spec's) ready pods."""
    from tests.support.kube import wait_until

    def check():
        rc = client.get('%s/%s' % (RCS, name))
        want = rc['spec'].get('replicas', 1) if replicas is None else replicas
        st = rc.get('status') or {}
        ok = st.get('replicas', 0) == want and st.get('readyReplicas', 0) == want \
            and st.get('observedGeneration', 0) >= rc['metadata'].get('generation', 0)
        return rc if ok else None
    return wait_until(check, 'ReplicationController %s to be ready' % name)

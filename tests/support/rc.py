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

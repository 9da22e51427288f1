"""The strategies (the resource rows' hooks, run by `resources.admit`): defaulting (idempotent,
applied to templates) and validation (422 with causes)."""

import copy

import pytest

from tests.kubesim.apiserver.strategies.podspec import image_pull_policy
from tests.kubesim.apiserver.registry.resources import admit
from tests.kubesim.machinery.errors import ApiError

from ..controllers.harness import daemonset, deployment, statefulset

pytestmark = pytest.mark.unit


def admitted(resource, obj, old=None):
    obj = copy.deepcopy(obj)
    admit(resource, obj, old)
    return obj


def rejection(resource, obj, old=None):
    with pytest.raises(ApiError) as caught:
        admit(resource, copy.deepcopy(obj), old)
    err = caught.value
    assert err.code == 422 and err.reason == 'Invalid'
    return err


def causes(err):
    return {(c['field'], c['reason']) for c in err.details['causes']}


def test_deployment_defaults():
    d = admitted('apps/deployments', deployment(replicas=None))
    spec = d['spec']
    assert spec['replicas'] is None or spec['replicas'] == 1  # an explicit null is left to the client
    d = deployment()
    del d['spec']['replicas']
    spec = admitted('apps/deployments', d)['spec']
    assert spec['replicas'] == 1
    assert spec['strategy'] == {
        'type': 'RollingUpdate',
        'rollingUpdate': {'maxUnavailable': '25%', 'maxSurge': '25%'},
    }
    assert spec['revisionHistoryLimit'] == 10 and spec['progressDeadlineSeconds'] == 600
    pod_spec = spec['template']['spec']
    assert {
        k: pod_spec[k]
        for k in (
            'restartPolicy',
            'terminationGracePeriodSeconds',
            'dnsPolicy',
            'securityContext',
            'schedulerName',
        )
    } == {
        'restartPolicy': 'Always',
        'terminationGracePeriodSeconds': 30,
        'dnsPolicy': 'ClusterFirst',
        'securityContext': {},
        'schedulerName': 'default-scheduler',
    }
    [container] = pod_spec['containers']
    assert container == {
        'name': 'app',
        'image': 'nginx:1.25',
        'imagePullPolicy': 'IfNotPresent',
        'terminationMessagePath': '/dev/termination-log',
        'terminationMessagePolicy': 'File',
        'resources': {},
    }


def test_recreate_gets_no_rolling_update_block():
    spec = admitted('apps/deployments', deployment(strategy={'type': 'Recreate'}))['spec']
    assert spec['strategy'] == {'type': 'Recreate'}


@pytest.mark.parametrize(
    'resource,factory',
    [('apps/deployments', deployment), ('apps/statefulsets', statefulset), ('apps/daemonsets', daemonset)],
)
def test_defaulting_is_idempotent(resource, factory):
    once = admitted(resource, factory())
    twice = admitted(resource, once, old=once)
    assert twice == once


@pytest.mark.parametrize(
    'image,policy',
    [
        ('nginx', 'Always'),
        ('nginx:latest', 'Always'),
        ('nginx:1.25', 'IfNotPresent'),
        ('localhost:5000/nginx', 'Always'),
        ('localhost:5000/nginx:2', 'IfNotPresent'),
        ('nginx@sha256:' + 'a' * 64, 'IfNotPresent'),
    ],
)
def test_image_pull_policy(image, policy):
    assert image_pull_policy(image) == policy


def test_an_explicit_pull_policy_is_kept():
    d = deployment(image='nginx:latest')
    d['spec']['template']['spec']['containers'][0]['imagePullPolicy'] = 'IfNotPresent'
    container = admitted('apps/deployments', d)['spec']['template']['spec']['containers'][0]
    assert container['imagePullPolicy'] == 'IfNotPresent'


def test_statefulset_and_daemonset_defaults():
    sts = statefulset()
    del sts['spec']['replicas']
    spec = admitted('apps/statefulsets', sts)['spec']
    assert spec['replicas'] == 1 and spec['podManagementPolicy'] == 'OrderedReady'
    # MaxUnavailableStatefulSet is on by default at the presented version: maxUnavailable defaults to 1.
    assert spec['updateStrategy'] == {
        'type': 'RollingUpdate', 'rollingUpdate': {'partition': 0, 'maxUnavailable': 1}}
    assert spec['revisionHistoryLimit'] == 10
    # An explicit RollingUpdate type without rollingUpdate stays bare, as SetDefaults_StatefulSet leaves it.
    bare = admitted('apps/statefulsets', statefulset(updateStrategy={'type': 'RollingUpdate'}))['spec']
    assert bare['updateStrategy'] == {'type': 'RollingUpdate'}
    on_delete = admitted('apps/statefulsets', statefulset(updateStrategy={'type': 'OnDelete'}))['spec']
    assert on_delete['updateStrategy'] == {'type': 'OnDelete'}
    ds = admitted('apps/daemonsets', daemonset())
    assert ds['spec']['updateStrategy'] == {
        'type': 'RollingUpdate',
        'rollingUpdate': {'maxUnavailable': 1, 'maxSurge': 0},
    }
    assert ds['spec']['revisionHistoryLimit'] == 10
    assert ds['metadata']['annotations']['deprecated.daemonset.template.generation'] == '1'


def test_daemonset_template_generation_counts_template_changes_only():
    first = admitted('apps/daemonsets', daemonset())
    scaled = copy.deepcopy(first)
    scaled['spec']['minReadySeconds'] = 5
    assert (
        admitted('apps/daemonsets', scaled, old=first)['metadata']['annotations'][
            'deprecated.daemonset.template.generation'
        ]
        == '1'
    )
    changed = copy.deepcopy(first)
    changed['spec']['template']['spec']['containers'][0]['image'] = 'fluentd:2'
    changed['metadata']['annotations'] = {}  # a client dropping the annotation gets it back
    assert (
        admitted('apps/daemonsets', changed, old=first)['metadata']['annotations'][
            'deprecated.daemonset.template.generation'
        ]
        == '2'
    )


def test_rc_selector_and_labels_default_from_the_template():
    rc = {
        'apiVersion': 'v1',
        'kind': 'ReplicationController',
        'metadata': {'name': 'r'},
        'spec': {
            'template': {
                'metadata': {'labels': {'app': 'r'}},
                'spec': {'containers': [{'name': 'c', 'image': 'i'}]},
            }
        },
    }
    out = admitted('/replicationcontrollers', rc)
    assert out['spec']['selector'] == {'app': 'r'} and out['metadata']['labels'] == {'app': 'r'}
    assert out['spec']['replicas'] == 1


def test_pod_defaults_and_initial_status():
    pod = {
        'apiVersion': 'v1',
        'kind': 'Pod',
        'metadata': {'name': 'p'},
        'spec': {'containers': [{'name': 'c', 'image': 'i', 'ports': [{'containerPort': 80}]}]},
    }
    out = admitted('/pods', pod)
    assert out['status'] == {'phase': 'Pending', 'qosClass': 'BestEffort'}
    assert out['spec']['enableServiceLinks'] is True
    assert out['spec']['containers'][0]['ports'] == [{'containerPort': 80, 'protocol': 'TCP'}]


def test_deployment_generation_counts_every_annotation_change_written_to_the_main_resource():
    # Even the revision annotation: the controller writes that one through /status, which admission
    # (and the generation) never sees.
    stored = admitted('apps/deployments', deployment())
    stored['metadata']['generation'] = 3
    for annotations in ({'deployment.kubernetes.io/revision': '2'}, {'kubernetes.io/change-cause': 'why'}):
        changed = copy.deepcopy(stored)
        changed['metadata']['annotations'] = annotations
        assert admitted('apps/deployments', changed, old=stored)['metadata']['generation'] == 4
    assert admitted('apps/deployments', copy.deepcopy(stored), old=stored)['metadata']['generation'] == 3


# ---- validation ------------------------------------------------------------------------------------
def test_container_without_name_or_image():
    d = deployment()
    d['spec']['template']['spec']['containers'] = [{'image': 'nginx'}, {'name': 'b'}]
    err = rejection('apps/deployments', d)
    assert causes(err) == {
        ('spec.template.spec.containers[0].name', 'FieldValueRequired'),
        ('spec.template.spec.containers[1].image', 'FieldValueRequired'),
    }
    assert err.message.startswith('Deployment.apps "web" is invalid: ')
    assert 'spec.template.spec.containers[0].name: Required value' in err.message


def test_no_containers():
    d = deployment()
    d['spec']['template']['spec']['containers'] = []
    assert causes(rejection('apps/deployments', d)) == {
        ('spec.template.spec.containers', 'FieldValueRequired')
    }


def test_duplicate_container_names():
    d = deployment()
    d['spec']['template']['spec']['containers'] *= 2
    err = rejection('apps/deployments', d)
    assert causes(err) == {('spec.template.spec.containers[1].name', 'FieldValueDuplicate')}


@pytest.mark.parametrize(
    'resource,factory,kind',
    [
        ('apps/deployments', deployment, 'Deployment.apps'),
        ('apps/statefulsets', statefulset, 'StatefulSet.apps'),
        ('apps/daemonsets', daemonset, 'DaemonSet.apps'),
    ],
)
def test_selector_must_match_the_template(resource, factory, kind):
    obj = factory()
    obj['spec']['selector'] = {'matchLabels': {'app': 'other'}}
    err = rejection(resource, obj)
    assert causes(err) == {('spec.template.metadata.labels', 'FieldValueInvalid')}
    assert (
        'spec.template.metadata.labels: Invalid value: map[string]string{"app":"' in err.message
        and '`selector` does not match template `labels`' in err.message
    )
    assert err.message.startswith(f'{kind} "')


@pytest.mark.parametrize(
    'resource,factory',
    [
        ('apps/deployments', deployment),
        ('apps/statefulsets', statefulset),
        ('apps/daemonsets', daemonset),
        ('apps/replicasets', deployment),
    ],
)
def test_apps_v1_requires_a_selector(resource, factory):
    obj = factory()
    del obj['spec']['selector']
    assert ('spec.selector', 'FieldValueRequired') in causes(rejection(resource, obj))


def test_max_surge_and_max_unavailable_both_zero():
    d = deployment(
        strategy={'type': 'RollingUpdate', 'rollingUpdate': {'maxSurge': 0, 'maxUnavailable': '0%'}}
    )
    err = rejection('apps/deployments', d)
    assert causes(err) == {('spec.strategy.rollingUpdate.maxUnavailable', 'FieldValueInvalid')}
    assert 'may not be 0 when `maxSurge` is 0' in err.message
    ds = daemonset(
        updateStrategy={'type': 'RollingUpdate', 'rollingUpdate': {'maxSurge': 0, 'maxUnavailable': 0}}
    )
    err = rejection('apps/daemonsets', ds)
    # DaemonSets word it as a required value (ValidateRollingUpdateDaemonSet), Deployments as invalid.
    assert causes(err) == {('spec.updateStrategy.rollingUpdate.maxUnavailable', 'FieldValueRequired')}
    assert 'Required value: cannot be 0 when maxSurge is 0' in err.message


def test_daemonset_max_surge_with_non_zero_max_unavailable():
    ds = daemonset(updateStrategy={'type': 'RollingUpdate', 'rollingUpdate': {'maxSurge': 1}})
    err = rejection('apps/daemonsets', ds)
    assert causes(err) == {('spec.updateStrategy.rollingUpdate.maxSurge', 'FieldValueInvalid')}
    assert 'maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero' in err.message


@pytest.mark.parametrize(
    'rolling,field',
    [
        ({'maxSurge': '150%'}, None),  # a Deployment may surge beyond 100%
        ({'maxUnavailable': '101%'}, 'spec.strategy.rollingUpdate.maxUnavailable'),
        ({'maxSurge': -1}, 'spec.strategy.rollingUpdate.maxSurge'),
        ({'maxSurge': 'lots'}, 'spec.strategy.rollingUpdate.maxSurge'),
    ],
)
def test_int_or_percent_validation(rolling, field):
    d = deployment(strategy={'type': 'RollingUpdate', 'rollingUpdate': rolling})
    if field is None:
        assert admitted('apps/deployments', d)['spec']['strategy']['rollingUpdate']['maxSurge'] == '150%'
    else:
        assert (field, 'FieldValueInvalid') in causes(rejection('apps/deployments', d))


def test_recreate_with_rolling_update_parameters_is_forbidden():
    d = deployment(strategy={'type': 'Recreate', 'rollingUpdate': {'maxSurge': 1}})
    assert causes(rejection('apps/deployments', d)) == {
        ('spec.strategy.rollingUpdate', 'FieldValueForbidden')
    }


def test_negative_replicas_and_bad_restart_policy():
    d = deployment(replicas=-1)
    d['spec']['template']['spec']['restartPolicy'] = 'Never'
    err = rejection('apps/deployments', d)
    assert causes(err) == {
        ('spec.replicas', 'FieldValueInvalid'),
        ('spec.template.spec.restartPolicy', 'FieldValueNotSupported'),
    }
    assert 'spec.replicas: Invalid value: -1: must be greater than or equal to 0' in err.message


def test_progress_deadline_must_exceed_min_ready_seconds():
    d = deployment(minReadySeconds=30, progressDeadlineSeconds=30)
    assert causes(rejection('apps/deployments', d)) == {('spec.progressDeadlineSeconds', 'FieldValueInvalid')}


def test_selector_is_immutable():
    old = admitted('apps/deployments', deployment())
    new = copy.deepcopy(old)
    new['spec']['selector']['matchLabels']['tier'] = 'x'
    new['spec']['template']['metadata']['labels']['tier'] = 'x'
    err = rejection('apps/deployments', new, old)
    assert causes(err) == {('spec.selector', 'FieldValueInvalid')} and 'field is immutable' in err.message


def test_statefulset_forbids_changing_other_spec_fields():
    old = admitted('apps/statefulsets', statefulset())
    new = copy.deepcopy(old)
    new['spec']['serviceName'] = 'elsewhere'
    assert causes(rejection('apps/statefulsets', new, old)) == {('spec', 'FieldValueForbidden')}
    allowed = copy.deepcopy(old)
    allowed['spec']['replicas'] = 7
    allowed['spec']['updateStrategy']['rollingUpdate']['partition'] = 2
    assert admitted('apps/statefulsets', allowed, old)['spec']['replicas'] == 7


def test_on_delete_statefulset_may_not_carry_rolling_update():
    sts = statefulset(updateStrategy={'type': 'OnDelete', 'rollingUpdate': {'partition': 1}})
    assert causes(rejection('apps/statefulsets', sts)) == {
        ('spec.updateStrategy.rollingUpdate', 'FieldValueInvalid')
    }


def test_rc_selector_must_match_template_labels():
    rc = {
        'apiVersion': 'v1',
        'kind': 'ReplicationController',
        'metadata': {'name': 'r'},
        'spec': {
            'selector': {'app': 'x'},
            'template': {
                'metadata': {'labels': {'app': 'r'}},
                'spec': {'containers': [{'name': 'c', 'image': 'i'}]},
            },
        },
    }
    err = rejection('/replicationcontrollers', rc)
    assert causes(err) == {('spec.template.metadata.labels', 'FieldValueInvalid')}
    assert err.message.startswith('ReplicationController "r" is invalid')


@pytest.mark.parametrize('name', ['Web', 'web_1', '-web', 'a' * 254])
def test_object_names_must_be_dns_subdomains(name):
    d = deployment()
    d['metadata']['name'] = name
    assert ('metadata.name', 'FieldValueInvalid') in causes(rejection('apps/deployments', d))


def test_label_values_are_validated():
    d = deployment()
    d['metadata']['labels'] = {'ok': 'fine', 'bad': 'has space'}
    assert causes(rejection('apps/deployments', d)) == {('metadata.labels', 'FieldValueInvalid')}


def test_other_resources_pass_through_untouched():
    cm = {'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': 'Not_Valid'}, 'data': {'a': 'b'}}
    assert admitted('/configmaps', cm) == cm

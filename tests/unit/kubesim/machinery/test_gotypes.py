"""The Go-type round trip (gotypes.py), the protobuf codec (protobuf.py, protowire.py), what container
commands do (kubelet/programs.py) and the HPA conversion (apiserver/strategies/autoscaling.py): pure
functions."""

import pytest

from tests.kubesim.machinery import gotypes, protobuf, protowire
from tests.kubesim.apiserver.strategies import autoscaling
from tests.kubesim.kubelet.programs import Program, program

pytestmark = pytest.mark.kubesim


def test_fields_without_omitempty_are_printed_with_their_zero_value():
    out, unknown = gotypes.decode('apps.v1.StatefulSet', {'metadata': {'name': 'db'}, 'status': {}})
    assert out['status'] == {'replicas': 0, 'availableReplicas': 0}
    assert out['spec'] == {'selector': None, 'template': {'metadata': {}, 'spec': {'containers': None}},
                           'serviceName': '', 'updateStrategy': {}}
    assert unknown == []


def test_omitempty_drops_empty_values_but_never_structs_or_set_pointers():
    out, _ = gotypes.decode('apps.v1.Deployment', {'spec': {
        'paused': False, 'minReadySeconds': 0, 'replicas': 0, 'template': {'spec': {
            'nodeSelector': {}, 'securityContext': {}, 'containers': [{'name': 'a'}]}}}})
    spec = out['spec']
    assert 'paused' not in spec and 'minReadySeconds' not in spec
    assert spec['replicas'] == 0, 'a set *int32 is printed even when 0'
    pod_spec = spec['template']['spec']
    assert pod_spec['securityContext'] == {} and 'nodeSelector' not in pod_spec
    assert spec['template']['spec']['containers'] == [{'name': 'a', 'resources': {}}]


def test_times_are_printed_in_utc_seconds_and_unset_ones_as_null():
    out, _ = gotypes.decode('core.v1.Pod', {'status': {'conditions': [
        {'type': 'Ready', 'status': 'True', 'lastTransitionTime': '2024-01-01T10:00:00.5+02:00'}]}})
    condition = out['status']['conditions'][0]
    assert condition['lastTransitionTime'] == '2024-01-01T08:00:00Z' and condition['lastProbeTime'] is None


def test_quantities_are_stored_as_the_api_server_prints_them():
    out, _ = gotypes.decode('apps.v1.Deployment', {'spec': {'template': {'spec': {
        'containers': [{'name': 'a', 'resources': {'limits': {'cpu': '0.5', 'memory': '1.5Gi'},
                                                   'requests': {'cpu': '1n', 'memory': 1}}}],
        'volumes': [{'name': 'v', 'emptyDir': {'sizeLimit': '1n'}}]}}}})
    spec = out['spec']['template']['spec']
    # a ResourceList is rounded up to milli units; other quantities are not; both print canonically
    assert spec['containers'][0]['resources'] == {'limits': {'cpu': '500m', 'memory': '1536Mi'},
                                                  'requests': {'cpu': '1m', 'memory': '1'}}
    assert spec['volumes'][0]['emptyDir']['sizeLimit'] == '1n'
    # a text already in canonical form (or kept as Go keeps it) is unchanged
    out, _ = gotypes.decode('core.v1.ResourceQuota', {'spec': {'hard': {'cpu': '100m', 'pods': '+10'}}})
    assert out['spec']['hard'] == {'cpu': '100m', 'pods': '+10'}


@pytest.mark.parametrize('body, message', [
    ({'spec': {'replicas': 2 ** 31}}, 'json: cannot unmarshal number 2147483648 into Go struct field '
                                      'DeploymentSpec.spec.replicas of type int32'),
    ({'spec': {'replicas': '3'}}, 'json: cannot unmarshal string into Go struct field '
                                  'DeploymentSpec.spec.replicas of type int32'),
    ({'spec': {'template': {'spec': {'containers': [{'ports': [{'containerPort': 1.5}]}]}}}},
     'json: cannot unmarshal number 1.5 into Go struct field ContainerPort.spec.template.spec.'
     'containers.ports.containerPort of type int32'),
    ({'spec': []}, 'json: cannot unmarshal array into Go struct field Deployment.spec of type '
                   'v1.DeploymentSpec'),
])
def test_values_the_go_decoder_refuses(body, message):
    with pytest.raises(gotypes.DecodeError) as err:
        gotypes.decode('apps.v1.Deployment', body)
    assert str(err.value) == message


def test_unknown_fields_are_dropped_and_reported_with_their_path():
    body = {'spec': {'bogus': 1, 'containers': [{'name': 'a', 'x': 2}]}}
    out, unknown = gotypes.decode('core.v1.Pod', body)
    assert unknown == ['spec.bogus', 'spec.containers[0].x']
    assert 'bogus' not in out['spec'] and 'x' not in out['spec']['containers'][0]


def test_the_unstructured_converter_wraps_integers_around():
    out, _ = gotypes.convert('apps.v1.Deployment', {'spec': {'replicas': 3000000000}})
    assert out['spec']['replicas'] == -1294967296
    with pytest.raises(gotypes.DecodeError, match='cannot convert float64 to int32'):
        gotypes.convert('apps.v1.Deployment', {'spec': {'replicas': 1.5}})


@pytest.mark.parametrize('text, offset', [('YWJj', None), ('YQ==', None), ('abc', 0), ('abcde', 4),
                                          ('a===', 1), ('YQ=', 3), ('YQ==x', 4), ('ab!d', 2)])
def test_base64_errors_name_the_offset_go_names(text, offset):
    assert gotypes.go_base64_error(text) == offset


def test_go_map_text():
    assert gotypes.go_map_text({'spec': {'replicas': 3, 'b': [1, 'x'], 'a': None}}) == \
        'map[spec:map[a:<nil> b:[1 x] replicas:3]]'


# ---- protobuf ----------------------------------------------------------------------------------------
def test_varints_and_negative_int32():
    assert protowire.varint(300) == b'\xac\x02'
    assert len(protowire.varint(-1)) == 10, 'negative values are 64-bit two\'s complement, as Go writes them'
    value, _ = protowire.read_varint(protowire.varint(-5), 0)
    assert protowire.signed(value) == -5
    assert protowire.packed_varints(b'\x01\x96\x01') == [1, 150]


def test_objects_round_trip_through_protobuf():
    deployment, _ = gotypes.decode('apps.v1.Deployment', {
        'apiVersion': 'apps/v1', 'kind': 'Deployment',
        'metadata': {'name': 'web', 'labels': {'b': '2', 'a': '1'},
                     'creationTimestamp': '2026-01-02T03:04:05Z'},
        'spec': {'replicas': 2, 'selector': {'matchLabels': {'app': 'web'}},
                 'strategy': {'rollingUpdate': {'maxSurge': '25%', 'maxUnavailable': 1}},
                 'template': {'metadata': {'labels': {'app': 'web'}}, 'spec': {
                     'containers': [{'name': 'app', 'image': 'nginx', 'resources': {'limits': {'cpu': '1'}}}],
                     'volumes': [{'name': 'v', 'emptyDir': {}}]}}}})
    blob = protobuf.encode(deployment)
    assert blob.startswith(b'k8s\x00')
    assert protobuf.unwrap(blob)[:2] == ('apps/v1', 'Deployment')
    back, _ = gotypes.decode('apps.v1.Deployment', protobuf.decode(blob))
    assert back == deployment


def test_a_status_in_protobuf():
    status = {'kind': 'Status', 'apiVersion': 'v1', 'metadata': {}, 'status': 'Failure', 'message': 'gone',
              'reason': 'NotFound', 'details': {'name': 'a', 'kind': 'pods'}, 'code': 404}
    assert protobuf.decode(protobuf.encode(status)) == status


# ---- container commands --------------------------------------------------------------------------
@pytest.mark.parametrize('container, expected', [
    ({'command': ['sh', '-c', 'exit 1']}, Program(0.0, 1)),
    ({'command': ['/bin/sh', '-c', 'echo hi; sleep 5; exit 3']}, Program(5.0, 3)),
    ({'command': ['bash', '-c', 'false || exit 0']}, Program(0.0, 0)),
    ({'command': ['sh', '-c', 'false && sleep 9']}, Program(0.0, 1)),
    ({'command': ['sleep', '2m']}, Program(120.0, 0)),
    ({'args': ['sh', '-c', 'true']}, Program(0.0, 0)),
    ({'command': ['sleep', 'infinity']}, None),
    ({'command': ['sh', '-c', 'while true; do sleep 1; done']}, None),
    ({'command': ['nginx', '-g', 'daemon off;']}, None),
    ({}, None),
])
def test_what_a_command_does(container, expected):
    assert program(container) == expected


# ---- HPA conversion --------------------------------------------------------------------------------
def test_hpa_v2_to_v1_and_back_keeps_what_v1_cannot_hold():
    v2 = {'apiVersion': 'autoscaling/v2', 'kind': 'HorizontalPodAutoscaler', 'metadata': {'name': 'web'},
          'spec': {'scaleTargetRef': {'kind': 'Deployment', 'name': 'web'}, 'minReplicas': 1,
                   'maxReplicas': 4,
                   'metrics': [{'type': 'Resource', 'resource': {'name': 'cpu', 'target': {
                       'type': 'Utilization', 'averageUtilization': 70}}},
                       {'type': 'Resource', 'resource': {'name': 'memory', 'target': {
                           'type': 'AverageValue', 'averageValue': '1Gi'}}}],
                   'behavior': {'scaleDown': {'stabilizationWindowSeconds': 30}}},
          'status': {'currentReplicas': 2, 'desiredReplicas': 3, 'currentMetrics': [
              {'type': 'Resource', 'resource': {'name': 'cpu', 'current': {'averageUtilization': 90}}}],
              'conditions': [{'type': 'AbleToScale', 'status': 'True'}]}}
    v1 = autoscaling.to_v1(v2)
    assert v1['spec']['targetCPUUtilizationPercentage'] == 70
    assert v1['status']['currentCPUUtilizationPercentage'] == 90
    assert set(v1['metadata']['annotations']) == {autoscaling.METRICS, autoscaling.BEHAVIOR,
                                                  autoscaling.CONDITIONS}
    back = autoscaling.to_v2(v1)
    assert back['spec'] == v2['spec'] and back['status'] == v2['status']
    assert 'annotations' not in back['metadata']


@pytest.mark.parametrize('body, message', [
    ({'metadata': {'labels': 'x'}}, 'cannot restore map from string'),
    ({'metadata': {'labels': ['x']}}, 'cannot restore map from slice'),
    ({'spec': {'containers': {'a': 1}}}, 'cannot restore slice from map'),
    ({'spec': 'x'}, 'cannot restore struct from: string'),
    ({'spec': {'nodeName': 3}}, 'cannot convert int64 to string'),
    ({'spec': {'nodeName': 1.5}}, 'unrecognized type: string'),
    ({'spec': {'nodeName': True}}, 'unrecognized type: string'),
    ({'spec': {'priority': '3'}}, 'unrecognized type: int32'),
    ({'spec': {'hostNetwork': 1}}, 'unrecognized type: bool'),
])
def test_the_unstructured_converters_errors(body, message):
    with pytest.raises(gotypes.DecodeError) as err:
        gotypes.convert('core.v1.Pod', body)
    assert str(err.value) == message

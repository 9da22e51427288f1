"""kubesim behaves as the one Kubernetes version it presents: /version, validation, selectors,
ControllerRevision names and DaemonSet pods, checked over the socket with raw HTTP."""

import json
import subprocess
import time
import urllib.parse

import pytest

from tests.conftest import KUBECTL

from .conftest import wait_for
from tests.support import manifests

DS = '/apis/apps/v1/namespaces/default/daemonsets'
STS = '/apis/apps/v1/namespaces/default/statefulsets'
PODS = '/api/v1/namespaces/default/pods'
SAFE = 'bcdfghjklmnpqrstvwxz2456789'


def workload(kind, name, **spec):
    spec.setdefault('replicas', None)  # the API server's default unless given
    return manifests.workload(kind, name, service_name=False, **spec)


def test_version_is_the_venv_kubectls(http, kubesim):
    client = json.loads(subprocess.run([str(KUBECTL), 'version', '--client', '-o', 'json'], check=True,
                                       capture_output=True, text=True).stdout)['clientVersion']
    status, _, version = http.get('/version')
    assert status == 200
    assert (version['major'], version['minor']) == (client['major'], client['minor'])
    assert version['gitVersion'] == f'v1.{client["minor"]}.0'
    assert (version['emulationMajor'], version['emulationMinor']) == (version['major'], version['minor'])
    _, _, nodes = http.get('/api/v1/nodes')
    assert {n['status']['nodeInfo']['kubeletVersion'] for n in nodes['items']} == {version['gitVersion']}


def test_daemonset_max_surge_needs_zero_max_unavailable(http):
    ds = workload('DaemonSet', 'agent',
                  updateStrategy={'type': 'RollingUpdate', 'rollingUpdate': {'maxSurge': 1}})
    status, _, body = http.post(DS, ds)
    assert status == 422, body
    assert body['message'] == ('DaemonSet.apps "agent" is invalid: '
                               'spec.updateStrategy.rollingUpdate.maxSurge: '
                               'Invalid value: 1: may not be set when maxUnavailable is non-zero')
    assert body['details']['causes'] == [{'reason': 'FieldValueInvalid',
                                          'message': 'Invalid value: 1: may not be set when maxUnavailable '
                                                     'is non-zero',
                                          'field': 'spec.updateStrategy.rollingUpdate.maxSurge'}]
    both_zero = workload('DaemonSet', 'agent', updateStrategy={
        'type': 'RollingUpdate', 'rollingUpdate': {'maxSurge': 0, 'maxUnavailable': 0}})
    status, _, body = http.post(DS, both_zero)
    assert status == 422
    assert body['message'] == ('DaemonSet.apps "agent" is invalid: spec.updateStrategy.rollingUpdate.'
                               'maxUnavailable: Required value: cannot be 0 when maxSurge is 0')
    surge_only = workload('DaemonSet', 'agent', updateStrategy={
        'type': 'RollingUpdate', 'rollingUpdate': {'maxSurge': 1, 'maxUnavailable': 0}})
    assert http.post(DS, surge_only)[0] == 201


def test_statefulset_name_is_a_dns_label(http):
    status, _, body = http.post(STS, workload('StatefulSet', 'db.primary', serviceName='db'))
    assert status == 422
    assert body['details']['causes'][0]['field'] == 'metadata.name'
    assert body['message'].startswith('StatefulSet.apps "db.primary" is invalid: metadata.name: '
                                      'Invalid value: "db.primary": a lowercase RFC 1123 label must '
                                      'consist of')


def test_statefulset_defaults_and_revision_history(http):
    bare = workload('StatefulSet', 'bare', serviceName='bare', updateStrategy={'type': 'RollingUpdate'},
                    revisionHistoryLimit=-1)
    status, _, body = http.post(STS, bare)
    assert status == 201, body
    # An explicit type leaves rollingUpdate unset; a negative revisionHistoryLimit is not validated.
    assert body['spec']['updateStrategy'] == {'type': 'RollingUpdate'}
    assert body['spec']['revisionHistoryLimit'] == -1
    status, _, body = http.post(STS, workload('StatefulSet', 'dflt', serviceName='dflt'))
    assert status == 201
    # MaxUnavailableStatefulSet is on by default at 1.37: the field is kept and defaulted.
    assert body['spec']['updateStrategy'] == {'type': 'RollingUpdate',
                                              'rollingUpdate': {'partition': 0, 'maxUnavailable': 1}}
    status, _, body = http.post(STS, workload('StatefulSet', 'zero', serviceName='zero', updateStrategy={
        'type': 'RollingUpdate', 'rollingUpdate': {'maxUnavailable': 0}}))
    assert status == 422
    assert body['details']['causes'][0]['message'] == 'Invalid value: 0: cannot be 0'


def _fnv1_32(data):
    h = 0x811C9DC5
    for byte in data:
        h = (h * 0x01000193) % 2**32 ^ byte
    return h


def test_statefulset_revision_name_is_the_controllers_hash(http):
    assert http.post(STS, workload('StatefulSet', 'db', serviceName='db', replicas=1))[0] == 201
    path = '/apis/apps/v1/namespaces/default/controllerrevisions?labelSelector=app%3Ddb'
    crs = wait_for(lambda: http.get(path)[2]['items'], 'the revision')
    [cr] = crs
    raw = json.dumps(cr['data'], sort_keys=True, separators=(',', ':')).encode() + b'0'
    expected = ''.join(SAFE[ord(c) % len(SAFE)] for c in str(_fnv1_32(raw)))
    assert cr['metadata']['name'] == f'db-{expected}'
    assert cr['metadata']['labels']['controller.kubernetes.io/hash'] == expected


def test_daemonset_pods_are_pinned_by_affinity_and_bound_by_the_scheduler(http):
    assert http.post(DS, workload('DaemonSet', 'agent'))[0] == 201

    def bound_pods():
        items = http.get(f'{PODS}?labelSelector=app%3Dagent')[2]['items']
        return len(items) == 3 and all(p['spec'].get('nodeName') for p in items) and items

    pins = {}
    for pod in wait_for(bound_pods, 'three bound daemon pods'):
        spec = pod['spec']
        [term] = spec['affinity']['nodeAffinity']['requiredDuringSchedulingIgnoredDuringExecution'][
            'nodeSelectorTerms']
        [field] = term.pop('matchFields')
        assert term == {}
        assert (field['key'], field['operator'], len(field['values'])) == ('metadata.name', 'In', 1)
        pins[field['values'][0]] = spec['nodeName']
        assert spec['tolerations'] == [
            {'key': f'node.kubernetes.io/{key}', 'operator': 'Exists', 'effect': effect}
            for key, effect in (('not-ready', 'NoExecute'), ('unreachable', 'NoExecute'),
                                ('disk-pressure', 'NoSchedule'), ('memory-pressure', 'NoSchedule'),
                                ('pid-pressure', 'NoSchedule'), ('unschedulable', 'NoSchedule'))]
    # Each pod was bound (by the scheduler) to the node its affinity names.
    assert pins == {n: n for n in ('node-1', 'node-2', 'node-3')}


def _list(http, path, selector, field=False):
    key = 'fieldSelector' if field else 'labelSelector'
    return http.get(f'{path}?{urllib.parse.urlencode({key: selector})}')


@pytest.mark.parametrize('selector, message', [
    ('app===x', "unable to parse requirement: found '=', expected: identifier"),
    ('a=b,,c=d', "found ',', expected: identifier after ','"),
    ('-bad=1', 'unable to parse requirement: <nil>: Invalid value: "-bad": name part must consist of '
               "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
               "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
               "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
    ('app=my app', "found 'app', expected: ',' or 'end of string'"),
])
def test_label_selector_syntax_errors_are_400(http, selector, message):
    status, _, body = _list(http, PODS, selector)
    assert status == 400
    assert (body['reason'], body['message']) == ('BadRequest', message)


def test_greater_and_less_than_select_on_integer_labels(http):
    for name, tier in (('cm-1', '1'), ('cm-5', '5'), ('cm-x', 'x')):
        body = {'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': name, 'labels': {'tier': tier}}}
        assert http.post('/api/v1/namespaces/default/configmaps', body)[0] == 201

    def names(selector):
        status, _, body = _list(http, '/api/v1/namespaces/default/configmaps', selector)
        assert status == 200, body
        return sorted(i['metadata']['name'] for i in body['items'])

    assert names('tier>2') == ['cm-5']
    assert names('tier<2') == ['cm-1']
    assert names('tier>0,tier<9') == ['cm-1', 'cm-5']
    status, _, body = _list(http, '/api/v1/namespaces/default/configmaps', 'tier>x')
    assert status == 400
    assert body['message'] == ('unable to parse requirement: values[0]: Invalid value: "x": '
                               "for 'Gt', 'Lt' operators, the value must be an integer")


@pytest.mark.parametrize('path, selector, message', [
    (PODS, 'spec.replicas=1', 'field label not supported: spec.replicas'),
    ('/apis/apps/v1/namespaces/default/deployments', 'spec.replicas=1',
     '"spec.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"'),
    ('/api/v1/namespaces/default/configmaps', 'status.phase=Running',
     '"status.phase" is not a known field selector: only "metadata.name", "metadata.namespace"'),
])
def test_unsupported_field_selectors_are_400(http, path, selector, message):
    status, _, body = _list(http, path, selector, field=True)
    assert status == 400
    assert body['message'] == message
    assert _list(http, path, 'metadata.name=x', field=True)[0] == 200


# ---- the typed round-trip ------------------------------------------------------------------------
DEPLOY = '/apis/apps/v1/namespaces/default/deployments'


def test_templates_read_back_as_decoded_and_encoded(http):
    with_nulls = workload('Deployment', 'nulls')
    with_nulls['spec']['template']['metadata']['labels']['app'] = 'same'
    with_nulls['spec']['selector']['matchLabels']['app'] = 'same'
    with_nulls['metadata']['creationTimestamp'] = None
    with_nulls['spec']['template']['metadata']['creationTimestamp'] = None
    with_nulls['spec']['template']['spec'].update(nodeSelector={}, tolerations=[], affinity=None)
    status, _, body = http.post(DEPLOY, with_nulls)
    assert status == 201, body
    plain = workload('Deployment', 'plain')
    plain['spec']['template']['metadata']['labels']['app'] = 'same'
    plain['spec']['selector']['matchLabels']['app'] = 'same'
    _, _, plain = http.post(DEPLOY, plain)
    assert body['spec']['template'] == plain['spec']['template']
    assert 'creationTimestamp' not in body['spec']['template']['metadata']
    assert 'nodeSelector' not in body['spec']['template']['spec']


def test_a_no_op_write_changes_nothing(http):
    assert http.post(DEPLOY, workload('Deployment', 'web', replicas=0))[0] == 201

    def settled():
        first = http.get(f'{DEPLOY}/web')[2]
        time.sleep(0.3)
        second = http.get(f'{DEPLOY}/web')[2]
        return first == second and second

    created = wait_for(settled, 'the controller to settle')
    meta = created['metadata']
    for patch in ({'spec': {'template': {'spec': {'nodeSelector': {}}}}},
                  {'spec': {'template': {'metadata': {'creationTimestamp': None}}}},
                  {'spec': {'paused': None, 'template': {'spec': {'tolerations': []}}}}):
        status, _, body = http.patch(f'{DEPLOY}/web', patch)
        assert status == 200, body
        assert (body['metadata']['generation'], body['metadata']['resourceVersion']) == (
            meta['generation'], meta['resourceVersion']), patch
    status, _, body = http.put(f'{DEPLOY}/web', {**created, 'status': None})
    assert status == 200
    assert body['metadata']['resourceVersion'] == meta['resourceVersion']


def test_unknown_fields_follow_field_validation(http):
    body = workload('Deployment', 'web')
    body['spec']['bogus'] = 1
    body['spec']['template']['spec']['containers'][0]['extra'] = {'a': 1}
    status, _, answer = http.post(f'{DEPLOY}?fieldValidation=Strict', body)
    assert status == 400
    # In the order the decoder meets them in the body.
    assert answer['message'] == ('Deployment in version "v1" cannot be handled as a Deployment: strict '
                                 'decoding error: unknown field "spec.template.spec.containers[0].extra", '
                                 'unknown field "spec.bogus"')
    del body['spec']['bogus']
    status, headers, created = http.post(DEPLOY, body)  # no fieldValidation: Warn
    assert status == 201
    assert headers['Warning'] == '299 - "unknown field \\"spec.template.spec.containers[0].extra\\""'
    assert 'extra' not in created['spec']['template']['spec']['containers'][0]
    status, headers, patched = http.patch(f'{DEPLOY}/web?fieldValidation=Ignore', {'spec': {'bogus': 2}})
    assert status == 200 and 'Warning' not in headers and 'bogus' not in patched['spec']
    status, _, answer = http.patch(f'{DEPLOY}/web?fieldValidation=Strict', {'spec': {'bogus': 2}})
    # The patch handler's answer (apiserver endpoints/handlers/patch.go): Invalid, no kind or name,
    # the field `patch` holding the patch as Go prints the map.
    assert status == 422
    assert answer['message'] == (' "" is invalid: patch: Invalid value: "map[spec:map[bogus:2]]": strict '
                                 'decoding error: unknown field "spec.bogus"')
    assert answer['details'] == {'causes': [{
        'reason': 'FieldValueInvalid', 'field': 'patch',
        'message': 'Invalid value: "map[spec:map[bogus:2]]": strict decoding error: unknown field '
                   '"spec.bogus"'}]}

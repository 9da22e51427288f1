"""kubectl against what the API server and the controllers decide at the version the cluster
presents: admission of DaemonSets and StatefulSets, selector parsing, ControllerRevision names and
how DaemonSet pods are placed. Meaningful against a real cluster too."""

import json

import pytest

from .conftest import is_kubesim, workload

pytestmark = pytest.mark.conformance

SAFE = 'bcdfghjklmnpqrstvwxz2456789'


def failure(proc):
    return proc.stderr.strip()


def test_server_version_is_the_one_kubesim_presents(kube, cluster):
    versions = json.loads(kube('version', '-o', 'json').stdout)
    server, client = versions['serverVersion'], versions['clientVersion']
    # kubectl warns beyond one minor version of skew; every kubectl the suite runs is within it.
    assert abs(int(server['minor']) - int(client['minor'])) <= 1
    assert 'WARNING' not in kube('version').stderr
    if is_kubesim(cluster):
        from tests.kubesim.apiserver.discovery import KUBERNETES_MINOR

        assert server['gitVersion'] == f'v1.{KUBERNETES_MINOR}.0'


def test_daemonset_surge_with_unavailable_is_rejected(kube):
    ds = workload('DaemonSet', 'agent', 'fluentd:1.0',
                  updateStrategy={'type': 'RollingUpdate', 'rollingUpdate': {'maxSurge': 1}})
    proc = kube('apply', '-f', '-', input=json.dumps(ds), ok=False)
    assert ('The DaemonSet "agent" is invalid: spec.updateStrategy.rollingUpdate.maxSurge: '
            'Invalid value: 1: may not be set when maxUnavailable is non-zero') in failure(proc)
    ds['spec']['updateStrategy']['rollingUpdate'] = {'maxSurge': 0, 'maxUnavailable': 0}
    proc = kube('apply', '-f', '-', input=json.dumps(ds), ok=False)
    assert ('spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: '
            'cannot be 0 when maxSurge is 0') in failure(proc)


def test_statefulset_name_must_be_a_dns_label(kube):
    sts = workload('StatefulSet', 'db.main', 'nginx:1.25')
    proc = kube('apply', '-f', '-', input=json.dumps(sts), ok=False)
    assert ('The StatefulSet "db.main" is invalid: metadata.name: Invalid value: "db.main": '
            'a lowercase RFC 1123 label must consist of') in failure(proc)


def test_statefulset_update_strategy_defaults(kube):
    kube.apply(workload('StatefulSet', 'plain', 'nginx:1.25', replicas=1))
    kube.apply(workload('StatefulSet', 'typed', 'nginx:1.25', replicas=1,
                        updateStrategy={'type': 'RollingUpdate'}, revisionHistoryLimit=-1))
    plain = kube.json('sts/plain')['spec']
    typed = kube.json('sts/typed')['spec']
    assert plain['updateStrategy'] == {'type': 'RollingUpdate',
                                       'rollingUpdate': {'partition': 0, 'maxUnavailable': 1}}
    assert typed['updateStrategy'] == {'type': 'RollingUpdate'}
    assert typed['revisionHistoryLimit'] == -1


@pytest.mark.parametrize('selector, message', [
    ('app===x', "unable to parse requirement: found '=', expected: identifier"),
    ('a=b,,c=d', "found ',', expected: identifier after ','"),
    ('-bad=1', 'unable to parse requirement: <nil>: Invalid value: "-bad": name part must consist of'),
    ('app=my app', "found 'app', expected: ',' or 'end of string'"),
])
def test_bad_label_selectors(kube, selector, message):
    proc = kube('get', 'pods', '-l', selector, ok=False)
    assert message in failure(proc)


def test_greater_than_selects_integer_labels(kube):
    for name, rank in (('low', '1'), ('high', '7')):
        kube.apply({'apiVersion': 'v1', 'kind': 'ConfigMap',
                    'metadata': {'name': name, 'labels': {'rank': rank}}})
    assert kube('get', 'cm', '-l', 'rank>3', '-o', 'name').stdout == 'configmap/high\n'
    assert kube('get', 'cm', '-l', 'rank<3', '-o', 'name').stdout == 'configmap/low\n'


def test_unsupported_field_selectors(kube):
    proc = kube('get', 'pods', '--field-selector', 'spec.replicas=1', ok=False)
    assert 'field label not supported: spec.replicas' in failure(proc)
    proc = kube('get', 'deployments', '--field-selector', 'spec.replicas=1', ok=False)
    assert ('"spec.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"'
            in failure(proc))


def _fnv1_32(data):
    h = 0x811C9DC5
    for byte in data:
        h = (h * 0x01000193) % 2**32 ^ byte
    return h


def test_statefulset_revision_names_hash_the_raw_data(kube):
    kube.apply(workload('StatefulSet', 'db', 'nginx:1.25', replicas=1))
    kube.status('sts/db')
    kube('set', 'image', 'sts/db', 'app=nginx:1.26')
    kube.status('sts/db')
    crs = kube.items('controllerrevisions', '-l', 'app=db')
    assert len(crs) == 2
    for cr in crs:
        # The raw data is Go's encoding of a map: sorted keys, compact; then the collision count.
        raw = json.dumps(cr['data'], sort_keys=True, separators=(',', ':')).encode() + b'0'
        digest = ''.join(SAFE[ord(c) % len(SAFE)] for c in str(_fnv1_32(raw)))
        assert cr['metadata']['name'] == f'db-{digest}'


def test_pod_template_hashes_are_the_controllers(kube):
    # The pod-template-hash of a Deployment's ReplicaSet and the hash in a DaemonSet's revision
    # name are controller.ComputeHash of the template the API server stored, printed as its Go
    # value (tests/kubesim/machinery/spew.py; tests/unit/kubesim/machinery/test_spew.py checks it
    # against hashes Go computed). The Go structs are those of one minor version: another prints
    # other fields.
    from tests.kubesim.controllers.common import compute_hash
    from tests.kubesim.apiserver.discovery import KUBERNETES_MINOR

    server = json.loads(kube('version', '-o', 'json').stdout)['serverVersion']
    if int(server['minor'].rstrip('+')) != KUBERNETES_MINOR:
        pytest.skip(f'the Go types printed are those of 1.{KUBERNETES_MINOR}, '
                    f'the server is {server["gitVersion"]}')
    kube('create', 'deployment', 'web', '--image=nginx:1.25', '--replicas=1')
    kube.status('deploy/web')
    kube('set', 'resources', 'deploy/web', '--limits=cpu=0.5,memory=1.5Gi', '--requests=cpu=1n')
    kube.status('deploy/web')
    deploy = kube.json('deploy/web')
    pod_hash = compute_hash(deploy['spec']['template'], deploy['status'].get('collisionCount'))
    current = [rs for rs in kube.items('rs', '-l', 'app=web')
               if rs['metadata']['annotations']['deployment.kubernetes.io/revision'] == '2']
    assert [rs['metadata']['name'] for rs in current] == [f'web-{pod_hash}']
    assert current[0]['metadata']['labels']['pod-template-hash'] == pod_hash
    # the hash Go computes for the template `kubectl create deployment web --image=nginx:1.25`
    # leaves, then `set resources` (both in tests/unit/kubesim/machinery/template_hashes.json)
    first = [rs for rs in kube.items('rs', '-l', 'app=web') if rs['metadata']['name'] != f'web-{pod_hash}']
    assert [rs['metadata']['name'] for rs in first] == ['web-7bfb4bc78d']

    agent = workload('DaemonSet', 'agent', 'fluentd:1.0')
    agent['spec']['template']['spec']['volumes'] = [{'name': 'logs', 'hostPath': {'path': '/var/log'}},
                                                    {'name': 'scratch'}]
    kube.apply(agent)
    kube.status('ds/agent')
    ds = kube.json('ds/agent')
    rev_hash = compute_hash(ds['spec']['template'], ds['status'].get('collisionCount'))
    [revision] = kube.items('controllerrevisions', '-l', 'app=agent')
    assert revision['metadata']['name'] == f'agent-{rev_hash}'
    assert {p['metadata']['labels']['controller-revision-hash']
            for p in kube.items('pods', '-l', 'app=agent')} == {rev_hash}


def test_daemonset_pods_carry_node_affinity_and_tolerations(kube):
    kube.apply(workload('DaemonSet', 'agent', 'fluentd:1.0'))
    kube.status('ds/agent')
    pods = kube.items('pods', '-l', 'app=agent')
    assert pods
    for pod in pods:
        terms = pod['spec']['affinity']['nodeAffinity']['requiredDuringSchedulingIgnoredDuringExecution'][
            'nodeSelectorTerms']
        assert terms == [{'matchFields': [{'key': 'metadata.name', 'operator': 'In',
                                           'values': [pod['spec']['nodeName']]}]}]
        tolerations = {(t['key'], t['operator'], t['effect']) for t in pod['spec']['tolerations']}
        assert {(f'node.kubernetes.io/{key}', 'Exists', effect) for key, effect in (
            ('not-ready', 'NoExecute'), ('unreachable', 'NoExecute'), ('disk-pressure', 'NoSchedule'),
            ('memory-pressure', 'NoSchedule'), ('pid-pressure', 'NoSchedule'),
            ('unschedulable', 'NoSchedule'))} <= tolerations


def test_unknown_fields_are_refused_by_strict_kubectl(kube):
    deploy = workload('Deployment', 'web', 'nginx:1.25', replicas=1)
    deploy['spec']['bogus'] = True
    proc = kube('apply', '-f', '-', input=json.dumps(deploy), ok=False)
    assert 'strict decoding error: unknown field "spec.bogus"' in failure(proc)
    # --validate=false sends fieldValidation=Ignore: the server drops the field silently.
    proc = kube('apply', '--validate=false', '-f', '-', input=json.dumps(deploy))
    assert 'bogus' not in kube.json('deploy/web')['spec']


def test_a_patch_equal_after_decoding_is_no_change(kube):
    kube.apply(workload('Deployment', 'web', 'nginx:1.25', replicas=1))
    kube.status('deploy/web')
    before = kube.json('deploy/web')['metadata']
    out = kube('patch', 'deploy/web', '-p', '{"spec":{"template":{"spec":{"nodeSelector":{}}}}}').stdout
    assert out == 'deployment.apps/web patched (no change)\n'
    after = kube.json('deploy/web')['metadata']
    assert after['generation'] == before['generation']
    assert after['resourceVersion'] == before['resourceVersion']

"""kubectl against volumes, APIServices and the pod subresources that need a container runtime:
claims provisioned and bound by the default StorageClass, a StatefulSet's volumeClaimTemplates and
their retention policy, `kubectl get apiservices`, and what `kubectl logs`/`exec` say."""

import pytest

from .conftest import eventually, is_kubesim, workload

pytestmark = pytest.mark.conformance

CLAIM = """
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
"""


def columns(out):
    return [line.split() for line in out.splitlines()]


def phase(kube, name):
    return kube.json('pvc', name).get('status', {}).get('phase')


def test_apply_a_claim_binds_it_to_a_provisioned_volume(kube, cluster):
    assert kube.apply(CLAIM) == 'persistentvolumeclaim/data created\n'
    eventually(lambda: phase(kube, 'data') == 'Bound', 'the claim to be bound')
    claim = kube.json('pvc', 'data')
    header, row = columns(kube('get', 'pvc').stdout)
    assert header == ['NAME', 'STATUS', 'VOLUME', 'CAPACITY', 'ACCESS', 'MODES', 'STORAGECLASS',
                      'VOLUMEATTRIBUTESCLASS', 'AGE']
    assert row[:7] == ['data', 'Bound', claim['spec']['volumeName'], '1Gi', 'RWO', 'standard', '<unset>']
    if not is_kubesim(cluster):
        return
    assert claim['spec']['volumeName'] == f'pvc-{claim["metadata"]["uid"]}'
    assert claim['metadata']['finalizers'] == ['kubernetes.io/pvc-protection']
    annotations = claim['metadata']['annotations']
    assert annotations['pv.kubernetes.io/bind-completed'] == 'yes'
    assert annotations['volume.kubernetes.io/storage-provisioner'] == 'kubesim.io/hostpath'
    pv = kube.json('pv', claim['spec']['volumeName'])
    assert pv['spec']['claimRef']['name'] == 'data'
    assert pv['spec']['persistentVolumeReclaimPolicy'] == 'Delete'
    assert pv['metadata']['annotations']['pv.kubernetes.io/provisioned-by'] == 'kubesim.io/hostpath'
    header, *rows = columns(kube('get', 'pv', claim['spec']['volumeName']).stdout)
    assert header[:6] == ['NAME', 'CAPACITY', 'ACCESS', 'MODES', 'RECLAIM', 'POLICY']
    assert rows[0][:6] == [claim['spec']['volumeName'], '1Gi', 'RWO', 'Delete', 'Bound',
                           f'{kube.namespace}/data']
    # Deleting the claim releases the volume, and the Delete reclaim policy removes it.
    kube('delete', 'pvc', 'data')
    eventually(lambda: kube('get', 'pv', claim['spec']['volumeName'], ok=None).returncode != 0,
               'the released volume to be deleted')


def test_the_default_storage_class(kube, cluster):
    if not is_kubesim(cluster):
        pytest.skip('the default StorageClass is kubesim\'s')
    out = kube('get', 'sc', 'standard').stdout
    assert columns(out)[0] == ['NAME', 'PROVISIONER', 'RECLAIMPOLICY', 'VOLUMEBINDINGMODE',
                               'ALLOWVOLUMEEXPANSION', 'AGE']
    assert columns(out)[1][:6] == ['standard', '(default)', 'kubesim.io/hostpath', 'Delete', 'Immediate',
                                   'false']


def test_claim_validation_and_immutability(kube):
    out = kube('apply', '-f', '-', ok=False,
               input='apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: bad}\nspec: {}\n').stderr
    assert 'spec.accessModes: Required value: at least 1 access mode is required' in out
    assert 'spec.resources[storage]: Required value' in out
    kube.apply(CLAIM)
    eventually(lambda: phase(kube, 'data') == 'Bound', 'the claim to be bound')
    out = kube('patch', 'pvc', 'data', '-p', '{"spec":{"accessModes":["ReadWriteMany"]}}', ok=False).stderr
    assert 'spec: Forbidden: spec is immutable after creation except resources.requests and ' \
           'volumeAttributesClassName for bound claims' in out


def test_claim_in_use_stays_terminating_until_its_pod_is_gone(kube):
    kube.apply(CLAIM)
    kube('run', 'user', '--image=nginx:1.25',
         '--overrides={"spec":{"volumes":[{"name":"d","persistentVolumeClaim":{"claimName":"data"}}]}}')
    eventually(lambda: kube.json('pod', 'user').get('status', {}).get('phase') == 'Running', 'the pod to run')
    kube('delete', 'pvc', 'data', '--wait=false')
    assert columns(kube('get', 'pvc', 'data').stdout)[1][1] == 'Terminating'
    kube('delete', 'pod', 'user')
    eventually(lambda: kube('get', 'pvc', 'data', ok=None).returncode != 0, 'the claim to go')


def test_a_pod_with_a_missing_claim_stays_pending(kube, cluster):
    kube('run', 'lost', '--image=nginx:1.25',
         '--overrides={"spec":{"volumes":[{"name":"d","persistentVolumeClaim":{"claimName":"nope"}}]}}')

    def message():
        conditions = kube.json('pod', 'lost').get('status', {}).get('conditions') or []
        return next((c.get('message', '') for c in conditions if c['type'] == 'PodScheduled'), '')

    eventually(lambda: 'persistentvolumeclaim "nope" not found' in message(), 'the scheduler\'s verdict')
    assert kube.json('pod', 'lost')['status']['phase'] == 'Pending'


def claims(kube):
    return sorted(c['metadata']['name'] for c in kube.items('pvc')
                  if not c['metadata'].get('deletionTimestamp'))


def test_statefulset_claims_follow_the_retention_policy(kube):
    sts = workload('StatefulSet', 'db', 'redis:7.0', replicas=3,
                   persistentVolumeClaimRetentionPolicy={'whenDeleted': 'Delete', 'whenScaled': 'Delete'},
                   volumeClaimTemplates=[{'metadata': {'name': 'data'},
                                          'spec': {'accessModes': ['ReadWriteOnce'],
                                                   'resources': {'requests': {'storage': '1Gi'}}}}])
    kube.apply(sts)
    kube.status('sts/db')
    assert claims(kube) == ['data-db-0', 'data-db-1', 'data-db-2']
    uids = {c['metadata']['name']: c['metadata']['uid'] for c in kube.items('pvc')}
    pod = kube.json('pod', 'db-0')
    assert {'name': 'data', 'persistentVolumeClaim': {'claimName': 'data-db-0'}} in pod['spec']['volumes']
    assert kube.json('pvc', 'data-db-0')['metadata']['labels'] == {'app': 'db'}
    # A rolling update keeps the claims.
    kube('set', 'image', 'sts/db', 'app=redis:7.2')
    kube.status('sts/db')
    assert {c['metadata']['name']: c['metadata']['uid'] for c in kube.items('pvc')} == uids
    kube('scale', 'sts/db', '--replicas=1')
    eventually(lambda: claims(kube) == ['data-db-0'], 'the scaled-away claims to go')
    kube('delete', 'sts', 'db')
    eventually(lambda: claims(kube) == [], 'the claims to go with the set')


def test_statefulset_claims_retained_by_default(kube):
    sts = workload('StatefulSet', 'db', 'redis:7.0', replicas=2,
                   volumeClaimTemplates=[{'metadata': {'name': 'data'},
                                          'spec': {'accessModes': ['ReadWriteOnce'],
                                                   'resources': {'requests': {'storage': '1Gi'}}}}])
    kube.apply(sts)
    kube.status('sts/db')
    kube('scale', 'sts/db', '--replicas=1')
    eventually(lambda: len(kube.live_pods()) == 1, 'the scale-down')
    kube('delete', 'sts', 'db')
    eventually(lambda: kube.live_pods() == [], 'the pods to go')
    assert claims(kube) == ['data-db-0', 'data-db-1']


def test_get_apiservices(kube, cluster):
    out = kube('get', 'apiservices').stdout
    rows = columns(out)
    assert rows[0] == ['NAME', 'SERVICE', 'AVAILABLE', 'AGE']
    names = [r[0] for r in rows[1:]]
    for name in ('v1.', 'v1.apps', 'v1.batch', 'v2.autoscaling', 'v1.storage.k8s.io'):
        assert name in names
    assert all(r[1:3] == ['Local', 'True'] for r in rows[1:] if r[0] in ('v1.', 'v1.apps'))
    spec = kube.json('apiservice', 'v1.apps')['spec']
    assert (spec['groupPriorityMinimum'], spec['versionPriority']) == (17800, 15)


def test_logs_and_exec_without_a_container_runtime(kube, cluster):
    if not is_kubesim(cluster):
        pytest.skip('a real cluster has a container runtime')
    kube('run', 'web', '--image=nginx:1.25')
    eventually(lambda: kube.json('pod', 'web').get('status', {}).get('phase') == 'Running', 'the pod to run')
    assert kube('logs', 'web').stdout == ''
    err = kube('exec', 'web', '--', 'ls', ok=False).stderr
    assert 'error dialing backend: dial tcp' in err and ':10250: connect: connection refused' in err
    err = kube('logs', 'web', '-c', 'nope', ok=False).stderr
    assert 'container nope is not valid for pod web' in err

"""kubectl logs: what a container printed, its last lines, another container's and the previous
run's log, as a real kubelet serves them."""

import pytest

from .conftest import eventually

pytestmark = pytest.mark.conformance


def test_kubectl_logs_of_a_job_pod_tail_container_and_previous(kube):
    kube.apply({'apiVersion': 'batch/v1', 'kind': 'Job', 'metadata': {'name': 'report'}, 'spec': {
        'backoffLimit': 0, 'template': {'spec': {'restartPolicy': 'Never', 'containers': [
            {'name': 'check', 'image': 'busybox', 'command': [
                'sh', '-c', 'echo checking; printf "%s\\n" "error rate 7%" "threshold 5%"; exit 1']},
            {'name': 'side', 'image': 'busybox', 'command': ['sh', '-c', 'echo side done']}]}}}})
    kube('wait', '--for=condition=Failed', 'job/report', '--timeout=60s')
    assert kube('logs', 'job/report', '-c', 'check').stdout == 'checking\nerror rate 7%\nthreshold 5%\n'
    assert kube('logs', 'job/report', '-c', 'check', '--tail=1').stdout == 'threshold 5%\n'
    assert kube('logs', 'job/report', '-c', 'side').stdout == 'side done\n'
    proc = kube('logs', 'job/report', '-c', 'check', '--previous', ok=False)
    assert 'previous terminated container "check" in pod' in proc.stderr

    kube('run', 'again', '--image=busybox', '--restart=Always', '--command', '--',
         'sh', '-c', 'echo round; exit 2')
    eventually(lambda: ((kube.json('pod', 'again')['status'].get('containerStatuses') or [{}])[0]
                        .get('restartCount')),
               'a restart')
    assert kube('logs', 'again', '--previous').stdout == 'round\n'

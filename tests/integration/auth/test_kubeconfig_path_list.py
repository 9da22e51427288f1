"""A kubeconfig path list (``a:b``, as KUBECONFIG takes) in K8S_AUTH_KUBECONFIG or the kubeconfig
option, merged as kubectl merges KUBECONFIG: the same context, namespace and server as kubectl."""

import os
import subprocess

import pytest
import yaml

from ..conftest import ROOT, Kube, entry, task, workload

pytestmark = pytest.mark.integration


def test_a_kubeconfig_path_list_is_merged_as_kubectl_merges_kubeconfig(kubesim_factory, play, kubectl,
                                                                       tmp_path):
    sim = kubesim_factory(nodes=1)
    kube = Kube(sim.kubeconfig)
    kube.request('POST', '/api/v1/namespaces', {'apiVersion': 'v1', 'kind': 'Namespace',
                                                 'metadata': {'name': 'shop'}})
    kube.create_rolled_out([workload('Deployment', 'web', ns='shop', replicas=1),
                            workload('Deployment', 'elsewhere', replicas=1)])
    # The first file names only a context (and wins current-context); the second, the simulator's
    # own kubeconfig, holds the cluster and user that context uses.
    contexts = tmp_path / 'contexts.yaml'
    contexts.write_text(yaml.safe_dump({
        'apiVersion': 'v1', 'kind': 'Config', 'current-context': 'shop',
        'contexts': [{'name': 'shop',
                      'context': {'cluster': 'kubesim', 'user': 'kubesim', 'namespace': 'shop'}}],
    }))
    path_list = os.pathsep.join([str(contexts), str(tmp_path / 'missing.yaml'), str(sim.kubeconfig)])

    env = {k: v for k, v in os.environ.items() if not k.startswith('K8S_AUTH_')}
    env['KUBECONFIG'] = path_list
    by_kubectl = subprocess.run([str(kubectl.binary), 'get', 'deployments', '-o', 'name'], env=env, cwd=ROOT,
                                capture_output=True, text=True, timeout=60)
    assert by_kubectl.returncode == 0, by_kubectl.stderr
    assert by_kubectl.stdout.split() == ['deployment.apps/web']  # the namespace of the first file's context

    selected = {'kind': 'Deployment', 'label_selectors': ['app in (web,elsewhere)']}
    by_env = play(None, [task('env', 'rollout_history', **selected)],
                  extra_env={'K8S_AUTH_KUBECONFIG': path_list})
    missing = str(tmp_path / 'missing.yaml')
    by_option = play(None, [
        task('option', 'rollout_history', kubeconfig=path_list, **selected),
        task('as a list', 'rollout_history', kubeconfig=path_list.split(os.pathsep), **selected),
        task('one missing file', 'rollout_history', kubeconfig=missing, **selected),
    ])
    for result in (by_env.ok('env'), by_option.ok('option'), by_option.ok('as a list')):
        assert (entry(result)['namespace'], entry(result)['name']) == ('shop', 'web')
    assert 'missing.yaml does not exist' in by_option.failed('one missing file')['msg']

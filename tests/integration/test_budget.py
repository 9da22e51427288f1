"""API requests per operation: the minimum each verb needs (no discovery, no polling)."""

import pytest

from .conftest import Kube, task, workload

pytestmark = [pytest.mark.integration, pytest.mark.budget]


def shape(requests):
    """[(method, resource path tail)] e.g. ('GET', 'deployments/web'), ('LIST', 'replicasets')."""
    out = []
    for r in requests:
        parts = r['path'].split('/')
        tail = parts[-1] if parts[-2] == 'default' else '/'.join(parts[-2:])
        method = r['method']
        if method == 'GET' and tail.split('/')[-1] in ('replicasets', 'controllerrevisions', 'deployments',
                                                     'statefulsets', 'daemonsets'):
            method = 'WATCH' if 'watch=true' in r['query'] else 'LIST'
        out.append((method, tail))
    return out


def test_request_budget(kubesim_factory, play, tmp_path):
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(request_log=log)
    kube = Kube(sim.kubeconfig)
    kube.create(workload('Deployment', 'web', image='app:1'))
    kube.create(workload('StatefulSet', 'db', image='app:1'))
    for kind, name in (('Deployment', 'web'), ('StatefulSet', 'db')):
        kube.rolled_out(kind, name)
    D = {'kind': 'Deployment', 'name': 'web'}
    S = {'kind': 'StatefulSet', 'name': 'db'}
    tasks = [
        task('history', 'rollout_history', **D),
        task('image', 'rollout_image', **D, images={'app': 'app:2'}),
        task('image unchanged', 'rollout_image', **D, images={'app': 'app:2'}),
        task('undo', 'rollout_undo', **D),
        task('restart', 'rollout_restart', **D),
        task('pause', 'rollout_pause', **D),
        task('status', 'rollout_status', **D, wait=False),
        task('sts image', 'rollout_image', **S, images={'app': 'app:2'}),
        task('sts history', 'rollout_history', **S),
        task('sts undo', 'rollout_undo', **S, to_revision=1),
        task('selector history', 'rollout_history', kind='Deployment', label_selectors=['app=web']),
    ]
    res = play(sim, tasks, extra_env={'KUBEOPS_REQUEST_LOG': str(log)})
    expected = {
        'history': [('GET', 'deployments/web'), ('LIST', 'replicasets')],
        'image': [('GET', 'deployments/web'), ('PATCH', 'deployments/web')],
        'image unchanged': [('GET', 'deployments/web')],
        'undo': [('GET', 'deployments/web'), ('LIST', 'replicasets'), ('PATCH', 'deployments/web')],
        'restart': [('GET', 'deployments/web'), ('PATCH', 'deployments/web')],
        'pause': [('GET', 'deployments/web'), ('PATCH', 'deployments/web')],
        'status': [('GET', 'deployments/web')],
        'sts image': [('GET', 'statefulsets/db'), ('PATCH', 'statefulsets/db')],
        'sts history': [('GET', 'statefulsets/db'), ('LIST', 'controllerrevisions')],
        'sts undo': [('GET', 'statefulsets/db'), ('LIST', 'controllerrevisions'),
                     ('PATCH', 'statefulsets/db')],
        'selector history': [('LIST', 'deployments'), ('LIST', 'replicasets')],
    }
    for name, want in expected.items():
        assert shape(res.ok(name)['_requests']) == want, name

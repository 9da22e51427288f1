"""The modules and the real kubectl, applied to two identical workloads, leave identical objects.

Each workload exists twice, in namespace ``mod`` (driven by the modules) and ``kctl`` (driven by
kubectl 1.37). After every step both are read and their pod templates, annotations and
``spec.paused`` compared (the restartedAt timestamps aside).
"""

import copy

import pytest

from ..conftest import Kube, task, workload

pytestmark = pytest.mark.integration

KINDS = {'Deployment': 'web', 'StatefulSet': 'db', 'DaemonSet': 'agent'}
RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt'


def steps(kind):
    """(label, module, module args, kubectl args) for one kind, in order."""
    name = KINDS[kind]
    ref = f'{kind.lower()}/{name}'
    out = [
        ('image', 'rollout_image', {'images': {'app': 'app:2'}}, ['set', 'image', ref, 'app=app:2']),
        ('restart', 'rollout_restart', {}, ['rollout', 'restart', ref]),
        ('undo', 'rollout_undo', {}, ['rollout', 'undo', ref]),
        ('undo to 1', 'rollout_undo', {'to_revision': 1}, ['rollout', 'undo', ref, '--to-revision=1']),
    ]
    if kind == 'Deployment':
        out += [('pause', 'rollout_pause', {}, ['rollout', 'pause', ref]),
                ('resume', 'rollout_pause', {'state': 'resumed'}, ['rollout', 'resume', ref])]
    return out


def comparable(obj):
    template = copy.deepcopy(obj['spec']['template'])
    annotations = (template.get('metadata') or {}).get('annotations') or {}
    if RESTARTED_AT in annotations:
        annotations[RESTARTED_AT] = '<timestamp>'
    return {'template': template,
            'annotations': obj['metadata'].get('annotations') or {},
            'paused': obj['spec'].get('paused')}


def test_modules_match_kubectl(kubesim_factory, play, kubectl):
    sim = kubesim_factory(nodes=1)  # one pod per workload keeps the rollouts short
    kube = Kube(sim.kubeconfig)
    run = kubectl.using(sim)
    for ns in ('mod', 'kctl'):
        kube.request('POST', '/api/v1/namespaces', {'apiVersion': 'v1', 'kind': 'Namespace',
                                                     'metadata': {'name': ns}})
        for kind, name in KINDS.items():
            kube.create(workload(kind, name, image='app:1', ns=ns, replicas=1))
    for ns in ('mod', 'kctl'):
        for kind, name in KINDS.items():
            kube.rolled_out(kind, name, ns=ns)

    # kubectl side: one step at a time, letting the controller settle in between
    by_kubectl = {}
    for kind, name in KINDS.items():
        for label, _module, _args, argv in steps(kind):
            run(*argv, '-n', 'kctl', check=True)
            if label != 'pause':
                kube.rolled_out(kind, name, ns='kctl', timeout=60)
            by_kubectl[kind, label] = comparable(kube.get(kind, name, ns='kctl'))

    # module side: the same steps in one playbook, each followed by a plain read of the object
    tasks = []
    for kind, name in KINDS.items():
        path = kube.path(kind, name, ns='mod')
        for label, module, args, _argv in steps(kind):
            tasks.append(task(f'{kind} {label}', module, kind=kind, name=name, namespace='mod',
                              wait=label != 'pause', wait_timeout=60, **args))
            tasks.append({'name': f'{kind} {label} read',
                          'ansible.builtin.uri': {'url': sim.url + path, 'return_content': True}})
    res = play(sim, tasks)

    for kind in KINDS:  # the steps did change what they should
        assert by_kubectl[kind, 'image']['template']['spec']['containers'][0]['image'] == 'app:2'
        assert RESTARTED_AT in by_kubectl[kind, 'restart']['template']['metadata']['annotations']
        assert by_kubectl[kind, 'undo to 1']['template']['spec']['containers'][0]['image'] == 'app:1'
    assert by_kubectl['Deployment', 'pause']['paused'] is True
    for kind in KINDS:
        for label, *_ in steps(kind):
            assert res.ok(f'{kind} {label}')['changed'] is True, (kind, label)
            mine = comparable(res.ok(f'{kind} {label} read')['json'])
            assert mine == by_kubectl[kind, label], f'{kind} after {label} differs from kubectl'

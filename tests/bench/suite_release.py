"""Measurement 4: a release of three Deployments, the upgrade role against kubectl.

The same change both ways, on a kubesim of its own whose pods are Ready 0.2 s after creation (TLS
and a bearer token, as the other suites): three Deployments of 2 replicas each get a new image.

- the role: one `ansible-playbook` run of `kubeops.rollout.rollout_upgrade` with the three
  workloads (`rollout_upgrade_soak_seconds: 0`, since kubectl has no soak); its time is the role's
  tasks from the bench_timer callback (the interpreter's start and the play's set-up are not part
  of a release), and the playbook's whole wall time is reported beside it. The tasks the role ran
  (not skipped) are counted.
- kubectl: `kubectl set image` for each of the three, then `kubectl rollout status` for each, in
  sequence: six processes, timed from the first start to the last exit.

The two take turns, repetition by repetition, each on its own three Deployments.
"""

import os
import secrets
import time

from . import fixtures as fx
from .kube import KubeSim

READY = 0.2
COUNT = 3
ROLE = 'kubeops.rollout.rollout_upgrade'


def _names(tool):
    return [f'rel-{tool}-{i}' for i in range(1, COUNT + 1)]


def _role_play(sim, names, image):
    workloads = [
        {'kind': 'Deployment', 'name': n, 'namespace': fx.NAMESPACE, 'images': {fx.CONTAINER: image}}
        for n in names
    ]
    include = {
        'name': 'release',
        'ansible.builtin.include_role': {'name': ROLE},
        'vars': {
            'rollout_upgrade_workloads': workloads,
            'rollout_upgrade_soak_seconds': 0,
            'rollout_upgrade_timeout': 120,
        },
    }
    return [
        {
            'block': [include],
            'module_defaults': {'group/kubeops.rollout.rollout': {'kubeconfig': sim.kubeconfig}},
        }
    ]


def _kubectl_sequence(ctx, sim, names, image, cache_dir):
    """kubectl set image for each, then rollout status for each: (seconds, all ok, errors)."""
    commands = [['set', 'image', f'deployment/{n}', f'{fx.CONTAINER}={image}'] for n in names]
    commands += [['rollout', 'status', f'deployment/{n}', '--timeout=120s'] for n in names]
    t0 = time.monotonic()
    runs = [ctx.kubectl(['-n', fx.NAMESPACE, *c], cache_dir, sim=sim) for c in commands]
    seconds = time.monotonic() - t0
    return (
        seconds,
        all(r.returncode == 0 for r in runs),
        '; '.join(r.stderr for r in runs if r.returncode)[:300],
    )


def run(ctx, reps):
    sim = KubeSim(
        os.path.join(ctx.workdir, 'kubesim-release'),
        ready_delay=READY,
        extra_args=['--tls', '--token', secrets.token_hex(16)],
    ).start()
    try:
        fx.namespace(sim.client, fx.NAMESPACE)
        for tool in ('role', 'kubectl'):
            for n in _names(tool):
                fx.create(sim.client, fx.workload('Deployment', n, replicas=2))
        fx.wait_complete(
            sim.client, [('Deployment', n) for tool in ('role', 'kubectl') for n in _names(tool)]
        )
        cache_dir = ctx.fresh_dir('kubectl-cache', 'release')
        # Untimed: kubectl's discovery cache filled, as on an operator's machine.
        ctx.kubectl(['-n', fx.NAMESPACE, 'get', 'deployments'], cache_dir, sim=sim)
        samples = {'role': [], 'kubectl': []}
        for r in range(reps):
            image = fx.IMAGE.format(r + 2)
            order = ('role', 'kubectl') if r % 2 == 0 else ('kubectl', 'role')
            for tool in order:
                names = _names(tool)
                if tool == 'kubectl':
                    seconds, ok, msg = _kubectl_sequence(ctx, sim, names, image, cache_dir)
                    samples['kubectl'].append(
                        {'seconds': seconds, 'ok': ok, 'msg': msg, 'processes': 2 * COUNT}
                    )
                    continue
                run_ = ctx.playbook(_role_play(sim, names, image), f'release-{r}')
                # The include and every task of the role; the ones it ran (not skipped) are counted.
                ran = [t for t in run_.tasks if ' : ' in t.name and t.status not in ('skipped', 'missing')]
                samples['role'].append(
                    {
                        'seconds': sum(t.seconds for t in run_.tasks),
                        'wall': run_.wall,
                        'ok': run_.returncode == 0 and not run_.failures(),
                        'msg': '; '.join(t.msg for t in run_.failures())[:300],
                        'tasks': len(ran),
                        'task_names': [t.name for t in ran],
                        # Every task's share, the include and skipped tasks too (what the sum is made of).
                        'task_seconds': [[t.name, t.seconds, t.status] for t in run_.tasks],
                    }
                )
            ctx.log(f'release: repetition {r + 1}/{reps} done')
        return {'reps': reps, 'ready_delay': READY, 'workloads': COUNT, 'samples': samples}
    finally:
        sim.stop()

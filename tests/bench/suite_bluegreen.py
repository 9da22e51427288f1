"""Measurement 6: a blue/green switch and its way back, rollout_bluegreen against kubectl.

On a kubesim of its own (TLS and a bearer token, pods Ready 0.2 s after creation, EndpointSlices
written ``LAG`` seconds after what they reflect: ``--endpoint-lag``), two apps of two colors each
(2 replicas per color, both colors up: "the preview is ready"), one per tool:

- ours: one `ansible-playbook` run of `kubeops.rollout.rollout_bluegreen` with `state: switched`
  (the checks, the guarded switch, the wait on the EndpointSlices), then one with `state:
  rolled_back` (the way back while the old color is up);
- kubectl: `kubectl patch service` with the new selector, then `kubectl get endpointslices -o json`
  polled by this script until they route to exactly the new color's pods; the way back the same.

What is timed, for both alike, by a watcher in this process polling every 10 ms (its own
connection): from the moment the live Service's selector names the new color to the moment its
EndpointSlices route to exactly the new color's Ready pods ("switch"); and each task's time (the
bench_timer callback) or the kubectl sequence's wall time (patch + polls until exact).
"""

import json
import os
import secrets
import subprocess
import threading
import time

from . import fixtures as fx
from .kube import ApiClient, KubeSim

READY = 0.2
LAG = 0.3
LABEL = 'kubeops.rollout/color'
SLICES = '/apis/discovery.k8s.io/v1/namespaces/%s/endpointslices' % fx.NAMESPACE
SERVICES = '/api/v1/namespaces/%s/services' % fx.NAMESPACE


def _deployment(app, color, image):
    obj = fx.workload('Deployment', '%s-%s' % (app, color), replicas=2, image=image, labels={LABEL: color})
    labels = {'app': app, LABEL: color}
    obj['spec']['selector'] = {'matchLabels': dict(labels)}
    obj['spec']['template']['metadata']['labels'] = dict(labels)
    return obj


def _service(app, color):
    return {
        'apiVersion': 'v1',
        'kind': 'Service',
        'metadata': {'name': app, 'namespace': fx.NAMESPACE},
        'spec': {'selector': {'app': app, LABEL: color}, 'ports': [{'name': 'http', 'port': 80}]},
    }


def _routes(api, app):
    ready = set()
    for s in api.get(SLICES, labelSelector='kubernetes.io/service-name=' + app).get('items') or []:
        for e in s.get('endpoints') or []:
            if (e.get('conditions') or {}).get('ready') is not False:
                ready.add((e.get('targetRef') or {}).get('name'))
    return ready


def _pods(api, app, color):
    items = (
        api.get(fx.collection('Pod'), labelSelector='app=%s,%s=%s' % (app, LABEL, color)).get('items') or []
    )
    return {p['metadata']['name'] for p in items if not p['metadata'].get('deletionTimestamp')}


class Watch:
    """From the live selector naming ``color`` to its EndpointSlices routing to exactly its pods."""

    def __init__(self, kubeconfig, app, color):
        self.api = ApiClient(kubeconfig)
        self.app, self.color = app, color
        self.selected = self.exact = None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._stop = threading.Event()
        self.pods = _pods(self.api, app, color)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(10)
        self.api.close()

    def _run(self):
        while not self._stop.is_set() and self.exact is None:
            now = time.monotonic()
            if self.selected is None:
                svc = self.api.get(SERVICES + '/' + self.app)
                if svc['spec']['selector'].get(LABEL) == self.color:
                    self.selected = now
            if self.selected is not None and _routes(self.api, self.app) == self.pods:
                self.exact = time.monotonic()
            self._stop.wait(0.01)

    def seconds(self):
        return None if self.selected is None or self.exact is None else self.exact - self.selected


def _play(sim, app, state):
    entry = {'service': app, 'deployments': {'blue': app + '-blue', 'green': app + '-green'}}
    if state != 'rolled_back':
        entry['images'] = {fx.CONTAINER: fx.IMAGE.format(2)}
    task = {
        'name': state,
        'kubeops.rollout.rollout_bluegreen': {
            'state': state,
            'namespace': fx.NAMESPACE,
            'apps': [entry],
            'timeout': 60,
            'fail_fast_seconds': 10,
        },
    }
    return [
        {
            'block': [task],
            'module_defaults': {'group/kubeops.rollout.rollout': {'kubeconfig': sim.kubeconfig}},
        }
    ]


def _kubectl(ctx, sim, cache_dir, *args):
    return subprocess.run(
        [
            ctx.kubectl_path,
            '--kubeconfig',
            sim.kubeconfig,
            '--cache-dir',
            cache_dir,
            '-n',
            fx.NAMESPACE,
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )


def _kubectl_switch(ctx, sim, app, color, cache_dir):
    """kubectl patch service, then kubectl get endpointslices until exact: (seconds, ok, polls)."""
    pods = _pods(sim.client, app, color)
    patch = json.dumps({'spec': {'selector': {'app': app, LABEL: color}}})
    t0 = time.monotonic()
    if _kubectl(ctx, sim, cache_dir, 'patch', 'service', app, '-p', patch).returncode != 0:
        return time.monotonic() - t0, False, 0
    polls = 0
    while time.monotonic() - t0 < 60:
        got = _kubectl(
            ctx,
            sim,
            cache_dir,
            'get',
            'endpointslices',
            '-l',
            'kubernetes.io/service-name=' + app,
            '-o',
            'json',
        )
        polls += 1
        ready = set()
        for s in (json.loads(got.stdout).get('items') or []) if got.returncode == 0 else []:
            for e in s.get('endpoints') or []:
                if (e.get('conditions') or {}).get('ready') is not False:
                    ready.add((e.get('targetRef') or {}).get('name'))
        if ready == pods:
            return time.monotonic() - t0, True, polls
    return time.monotonic() - t0, False, polls


def run(ctx, reps):
    sim = KubeSim(
        os.path.join(ctx.workdir, 'kubesim-bluegreen'),
        ready_delay=READY,
        extra_args=['--tls', '--token', secrets.token_hex(16), '--endpoint-lag', str(LAG)],
    ).start()
    try:
        fx.namespace(sim.client, fx.NAMESPACE)
        apps = {'ours': 'bg-ours', 'kubectl': 'bg-kubectl'}
        for app in apps.values():
            fx.create(sim.client, _deployment(app, 'blue', fx.IMAGE.format(1)))
            fx.create(sim.client, _deployment(app, 'green', fx.IMAGE.format(2)))
            sim.client.create(SERVICES, _service(app, 'blue'))
        fx.wait_complete(
            sim.client, [('Deployment', '%s-%s' % (a, c)) for a in apps.values() for c in ('blue', 'green')]
        )
        cache_dir = ctx.fresh_dir('kubectl-cache', 'bluegreen')
        ctx.kubectl(['-n', fx.NAMESPACE, 'get', 'services'], cache_dir, sim=sim)  # discovery cached, untimed
        ctx.playbook(_play(sim, apps['ours'], 'prepared'), 'bluegreen-prepare')  # untimed: the preview ready
        samples = {k: [] for k in ('ours|switch', 'ours|back', 'kubectl|switch', 'kubectl|back')}
        for r in range(reps):
            for step, color, state in (('switch', 'green', 'switched'), ('back', 'blue', 'rolled_back')):
                with Watch(sim.kubeconfig, apps['ours'], color) as watch:
                    run_ = ctx.playbook(_play(sim, apps['ours'], state), 'bluegreen-%s-%d' % (step, r))
                    deadline = time.monotonic() + 10
                    while watch.exact is None and time.monotonic() < deadline:
                        time.sleep(0.01)
                samples['ours|' + step].append(
                    {
                        'task': sum(t.seconds for t in run_.tasks),
                        'wall': run_.wall,
                        'switch': watch.seconds(),
                        'ok': run_.returncode == 0 and not run_.failures(),
                        'msg': '; '.join(t.msg for t in run_.failures())[:300],
                    }
                )
                with Watch(sim.kubeconfig, apps['kubectl'], color) as watch:
                    seconds, ok, polls = _kubectl_switch(ctx, sim, apps['kubectl'], color, cache_dir)
                samples['kubectl|' + step].append(
                    {'task': seconds, 'switch': watch.seconds(), 'ok': ok, 'polls': polls}
                )
            ctx.log('bluegreen: repetition %d/%d done' % (r + 1, reps))
        return {'reps': reps, 'ready_delay': READY, 'endpoint_lag': LAG, 'samples': samples}
    finally:
        sim.stop()

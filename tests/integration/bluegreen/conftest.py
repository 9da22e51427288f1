"""Blue/green apps on kubesim for real ansible-playbook runs of rollout_bluegreen: two Deployments per
app (one per color), a live and a preview Service, and an independent look at what the live
Service's EndpointSlices route to (the tests' own HTTP client, never the code under test)."""

import json
import time

from ..conftest import Kube, task

LABEL = 'kubeops.rollout/color'
RECORD = 'kubeops.rollout/bluegreen'
OLD, NEW = 'nginx:1.25', 'nginx:1.26'

SERVICES = '/api/v1/namespaces/{ns}/services'
SLICES = '/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices'
HPAS = '/apis/autoscaling/v2/namespaces/{ns}/horizontalpodautoscalers'


def app(name='web', hpa=None, images=None, preview=True):
    entry = {'service': name, 'deployments': {'blue': name + '-blue', 'green': name + '-green'}}
    if preview:
        entry['preview_service'] = name + '-preview'
    if images is not False:
        entry['images'] = images or {'app': NEW}
    if hpa:
        entry['hpa'] = hpa
    return entry


def bluegreen(state, *apps, title=None, **options):
    """A rollout_bluegreen task named ``title`` (default: the state)."""
    options.setdefault('timeout', 30)
    options.setdefault('fail_fast_seconds', 5)
    return task(title or state, 'rollout_bluegreen', state=state, apps=list(apps or [app()]), **options)


def service(name, selector, ns='default'):
    return {
        'apiVersion': 'v1',
        'kind': 'Service',
        'metadata': {'name': name, 'namespace': ns},
        'spec': {'selector': selector, 'ports': [{'name': 'http', 'port': 80, 'targetPort': 'http'}]},
    }


def colored(name, color, replicas, image=OLD, ns='default'):
    """The ``color`` Deployment of app ``name``: pods labelled app=<name> and the color, port ``http``."""
    labels = {'app': name, LABEL: color}
    return {
        'apiVersion': 'apps/v1',
        'kind': 'Deployment',
        'metadata': {'name': '%s-%s' % (name, color), 'namespace': ns},
        'spec': {
            'replicas': replicas,
            'selector': {'matchLabels': dict(labels)},
            'template': {
                'metadata': {'labels': dict(labels)},
                'spec': {
                    'containers': [
                        {'name': 'app', 'image': image, 'ports': [{'name': 'http', 'containerPort': 80}]}
                    ]
                },
            },
        },
    }


class Apps(Kube):
    """The test's client, with the objects of blue/green apps."""

    def create_app(self, name='web', replicas=2, ns='default', hpa=False, wait=True):
        self.create_rolled_out([colored(name, 'blue', replicas, ns=ns), colored(name, 'green', 0, ns=ns)])
        for svc, color in ((name, 'blue'), (name + '-preview', 'green')):
            self.request('POST', SERVICES.format(ns=ns), service(svc, {'app': name, LABEL: color}, ns))
        if wait:
            self.wait_routed(name, ns)
        if hpa:
            self.request(
                'POST',
                HPAS.format(ns=ns),
                {
                    'apiVersion': 'autoscaling/v2',
                    'kind': 'HorizontalPodAutoscaler',
                    'metadata': {'name': name, 'namespace': ns},
                    'spec': {
                        'scaleTargetRef': {
                            'apiVersion': 'apps/v1',
                            'kind': 'Deployment',
                            'name': name + '-blue',
                        },
                        'minReplicas': replicas,
                        'maxReplicas': 10,
                    },
                },
            )

    def wait_routed(self, name, ns='default'):
        """Until the Service routes somewhere (its first EndpointSlice comes after the lag)."""
        deadline = time.monotonic() + 30
        while not self.routes(name, ns)[0]:
            assert time.monotonic() < deadline, 'the Service %s never got ready endpoints' % name
            time.sleep(0.05)

    def service(self, name, ns='default'):
        return self.request('GET', SERVICES.format(ns=ns) + '/' + name)

    def color(self, name, ns='default'):
        return self.service(name, ns)['spec']['selector'].get(LABEL)

    def record(self, name, ns='default'):
        text = (self.service(name, ns)['metadata'].get('annotations') or {}).get(RECORD)
        return json.loads(text) if text else None

    def hpa(self, name, ns='default'):
        return self.request('GET', HPAS.format(ns=ns) + '/' + name)

    def routes(self, name, ns='default'):
        """(ready endpoint pod names, not-ready ones) of the Service's EndpointSlices."""
        items = self.request(
            'GET', SLICES.format(ns=ns) + '?labelSelector=kubernetes.io/service-name%3D' + name
        )
        ready, other = set(), set()
        for s in items['items']:
            for e in s.get('endpoints') or []:
                pod = (e.get('targetRef') or {}).get('name')
                cond = e.get('conditions') or {}
                (ready if cond.get('ready') is not False and not cond.get('terminating') else other).add(pod)
        return ready, other

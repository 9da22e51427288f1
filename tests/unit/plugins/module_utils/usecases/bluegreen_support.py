"""A blue/green app on a kubesim (the ``bluegreen_sim`` fixture of conftest.py) for the unit tests
of usecases/bluegreen*.py: two Deployments (one per color, pods labelled with it), a live and a
preview Service, the collection's client."""

from ansible_collections.kubeops.rollout.plugins.module_utils.gates.wait_options import GateOptions
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen.apps import (
    BlueGreenOptions,
    build_apps,
    read_app,
)
from tests.support.kube import api_client, create_settled

LABEL = 'kubeops.rollout/color'
SERVICES = '/api/v1/namespaces/default/services'
DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments'


def colored(color, replicas, image='nginx:1'):
    labels = {'app': 'web', LABEL: color}
    return {'apiVersion': 'apps/v1', 'kind': 'Deployment', 'metadata': {'name': 'web-' + color},
            'spec': {'replicas': replicas, 'selector': {'matchLabels': dict(labels)},
                     'template': {'metadata': {'labels': dict(labels)},
                                  'spec': {'containers': [{'name': 'app', 'image': image}]}}}}


def service(name, selector, annotations=None):
    meta = {'name': name}
    if annotations:
        meta['annotations'] = annotations
    return {'apiVersion': 'v1', 'kind': 'Service', 'metadata': meta,
            'spec': {'selector': selector, 'ports': [{'name': 'http', 'port': 80}]}}


def make_sim(kubesim_factory):
    sim = kubesim_factory(ready_delay=0.02, fail_image=r'^registry\.invalid/')
    sim.client = api_client(sim)
    create_settled(sim.client, colored('blue', 2))
    create_settled(sim.client, colored('green', 0))
    sim.client.create(SERVICES, service('web', {'app': 'web', LABEL: 'blue'}))
    sim.client.create(SERVICES, service('web-preview', {'app': 'web', LABEL: 'green'}))
    return sim


def app(client, state='switched', images=None, **options):
    entry = {'service': 'web', 'preview_service': 'web-preview',
             'deployments': {'blue': 'web-blue', 'green': 'web-green'},
             'images': images or {'app': 'nginx:2'}}
    (a,) = build_apps([entry], 'default', state)
    assert read_app(client, a, LABEL) == []
    return a, BlueGreenOptions(state, gates=GateOptions(fail_fast_seconds=5), **options)

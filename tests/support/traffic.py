"""A traffic canary's objects, as plain manifests: a Deployment on a track, its Services, a Gateway
of the class kubesim and an HTTPRoute whose first rule holds both Services beside a backend the
canary does not own, and a second rule of its own."""

GW = '/apis/gateway.networking.k8s.io/v1/namespaces/{ns}'
NS = 'default'
OLD, NEW = 'nginx:1.25', 'nginx:1.26'
TRACK = 'track'


def deployment(name, track, replicas, image=OLD, ns=NS, app='web', container='app'):
    labels = {'app': app, TRACK: track}
    return {
        'apiVersion': 'apps/v1', 'kind': 'Deployment', 'metadata': {'name': name, 'namespace': ns},
        'spec': {'replicas': replicas, 'selector': {'matchLabels': dict(labels)},
                 'template': {'metadata': {'labels': dict(labels)}, 'spec': {'containers': [
                     {'name': container, 'image': image,
                      'ports': [{'name': 'http', 'containerPort': 80}]}]}}},
    }


def service(name, selector, ns=NS):
    return {'apiVersion': 'v1', 'kind': 'Service', 'metadata': {'name': name, 'namespace': ns},
            'spec': {'selector': selector, 'ports': [{'name': 'http', 'port': 80, 'targetPort': 'http'}]}}


def gateway(ns=NS):
    return {
        'apiVersion': 'gateway.networking.k8s.io/v1', 'kind': 'Gateway',
        'metadata': {'name': 'public', 'namespace': ns},
        'spec': {'gatewayClassName': 'kubesim',
                 'listeners': [{'name': 'http', 'port': 80, 'protocol': 'HTTP'}]},
    }


def route(app='web', ns=NS):
    """The route of ``app``: a first rule with its two Services and a backend the canary does not own, a
    second rule of its own."""
    return {
        'apiVersion': 'gateway.networking.k8s.io/v1', 'kind': 'HTTPRoute',
        'metadata': {'name': app, 'namespace': ns},
        'spec': {'parentRefs': [{'name': 'public'}], 'rules': [
            {'name': 'main', 'backendRefs': [{'name': app + '-stable', 'port': 80, 'weight': 100},
                                             {'name': app + '-canary', 'port': 80, 'weight': 0},
                                             {'name': app + '-legacy', 'port': 80, 'weight': 0}]},
            {'name': 'static', 'matches': [{'path': {'type': 'PathPrefix', 'value': '/static'}}],
             'backendRefs': [{'name': app + '-stable', 'port': 80}]},
        ]},
    }

"""Recorded-shape API objects for unit tests (as the API server returns them)."""

import copy

DEPLOY_UID = 'd-uid-1'
STS_UID = 's-uid-1'


def template(image='nginx:1.25', labels=None, annotations=None, init_image=None, extra_spec=None):
    t = {'metadata': {'labels': dict(labels or {'app': 'web'}), 'creationTimestamp': None},
         'spec': {'containers': [{'name': 'web', 'image': image, 'resources': {}}],
                  'restartPolicy': 'Always'}}
    if annotations:
        t['metadata']['annotations'] = dict(annotations)
    if init_image:
        t['spec']['initContainers'] = [{'name': 'migrate', 'image': init_image}]
    if extra_spec:
        t['spec'].update(extra_spec)
    return t


def deployment(image='nginx:1.25', annotations=None, paused=False, rv='100', replicas=3, **kw):
    d = {'apiVersion': 'apps/v1', 'kind': 'Deployment',
         'metadata': {'name': 'web', 'namespace': 'default', 'uid': DEPLOY_UID, 'resourceVersion': rv,
                      'generation': 4,
                      'annotations': dict(annotations if annotations is not None
                                          else {'deployment.kubernetes.io/revision': '4'})},
         'spec': {'replicas': replicas, 'selector': {'matchLabels': {'app': 'web'}},
                  'template': template(image, **kw)},
         'status': {'observedGeneration': 4}}
    if paused:
        d['spec']['paused'] = True
    return d


def replica_set(revision, image, owner_uid=DEPLOY_UID, controller=True, annotations=None, name=None,
                replicas=0, **kw):
    h = 'h%s' % revision
    t = template(image, labels={'app': 'web', 'pod-template-hash': h}, **kw)
    ann = {'deployment.kubernetes.io/revision': str(revision)}
    ann.update(annotations or {})
    return {'metadata': {'name': name or 'web-%s' % h, 'namespace': 'default',
                         'creationTimestamp': '2026-01-0%dT00:00:00Z' % revision,
                         'labels': {'app': 'web', 'pod-template-hash': h}, 'annotations': ann,
                         'ownerReferences': [{'apiVersion': 'apps/v1', 'kind': 'Deployment', 'name': 'web',
                                              'uid': owner_uid, 'controller': controller}]},
            'spec': {'replicas': replicas,
                     'selector': {'matchLabels': {'app': 'web', 'pod-template-hash': h}},
                     'template': t}}


def statefulset(image='redis:7', rv='200', **kw):
    return {'apiVersion': 'apps/v1', 'kind': 'StatefulSet',
            'metadata': {'name': 'db', 'namespace': 'default', 'uid': STS_UID, 'resourceVersion': rv,
                         'generation': 2},
            'spec': {'replicas': 2, 'selector': {'matchLabels': {'app': 'db'}},
                     'template': template(image, labels={'app': 'db'}, **kw),
                     'updateStrategy': {'type': 'RollingUpdate', 'rollingUpdate': {'partition': 0}}},
            'status': {'observedGeneration': 2}}


def controller_revision(revision, image, owner_uid=STS_UID, labels=None, **kw):
    t = copy.deepcopy(template(image, labels=labels or {'app': 'db'}, **kw))
    t['$patch'] = 'replace'
    return {'metadata': {'name': 'db-r%s' % revision, 'namespace': 'default',
                         'creationTimestamp': '2026-02-0%dT00:00:00Z' % revision,
                         'labels': {'app': 'db', 'controller-revision-hash': 'r%s' % revision},
                         'ownerReferences': [{'apiVersion': 'apps/v1', 'kind': 'StatefulSet', 'name': 'db',
                                              'uid': owner_uid, 'controller': True}]},
            'data': {'spec': {'template': t}},
            'revision': revision}

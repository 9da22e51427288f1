# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Services, their EndpointSlices and HorizontalPodAutoscalers as blue/green reads and writes them:
paths, the color of a selector, the guarded patches (a Service's selector with its record, an
HPA's scale target, a Deployment's replicas) and what a Service's EndpointSlices route to.

Pure: no request is made here. EndpointSlices are read as the EndpointSlice controller writes them
(``pkg/controller/endpointslice``, ``staging/src/k8s.io/endpointslice``): labelled
``kubernetes.io/service-name``, one endpoint per pod with ``targetRef``, ``conditions.ready``
(serving and not terminating; an absent value means ready), ``conditions.serving`` and
``conditions.terminating``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import math

from ansible_collections.kubeops.rollout.plugins.module_utils.api.client import path_quote
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import patches
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.pods import pod_ready
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workload import ObjectFields

# The label the EndpointSlice controller puts on each slice of a Service.
SERVICE_NAME_LABEL = 'kubernetes.io/service-name'
ENDPOINTSLICES = '/apis/discovery.k8s.io/v1/namespaces/%s/endpointslices'
PODS = '/api/v1/namespaces/%s/pods'
COLORS = ('blue', 'green')


def other_color(color):
    return COLORS[1] if color == COLORS[0] else COLORS[0]


class _Object(ObjectFields):
    """A namespaced object (raw JSON) with the accessors messages and records need."""

    kind = None
    collection = None  # '<prefix>/namespaces/%s/<plural>'

    def __init__(self, obj):
        self.obj = obj

    @classmethod
    def object_path(cls, namespace, name):
        return '%s/%s' % (cls.collection % path_quote(namespace), path_quote(name))

    @property
    def path(self):
        return self.object_path(self.namespace, self.name)

    def label(self):
        return '%s %s/%s' % (self.kind, self.namespace, self.name)


class Service(_Object):
    kind = 'Service'
    collection = '/api/v1/namespaces/%s/services'

    @property
    def selector(self):
        return dict(self.spec.get('selector') or {})

    def color(self, label):
        """The color the selector names with ``label``, or None."""
        return self.selector.get(label)

    @property
    def ports(self):
        """The Service's ports as (name, port) pairs."""
        return [(p.get('name') or '', p.get('port')) for p in self.spec.get('ports') or []]

    def selector_patch(self, selector, annotation, text):
        """JSON patch giving the Service ``selector`` and the annotation ``annotation`` = ``text``,
        guarded by the selector as read and by the annotation as read (its text; without it, the
        annotations as read), so a repeat after a lost answer or a change by anyone since fails."""
        meta = self.metadata
        tests = [{'op': 'test', 'path': '/spec/selector', 'value': self.spec.get('selector')}]
        have = self.annotations.get(annotation)
        pointer = patches.json_pointer('metadata', 'annotations', annotation)
        if have is not None:
            tests.append({'op': 'test', 'path': pointer, 'value': have})
        else:
            tests.append(patches.annotations_guard(meta))
        changes = [
            {
                'op': 'replace' if self.spec.get('selector') is not None else 'add',
                'path': '/spec/selector',
                'value': selector,
            }
        ]
        if meta.get('annotations') is None:
            changes.append({'op': 'add', 'path': '/metadata/annotations', 'value': {annotation: text}})
        else:
            changes.append({'op': 'replace' if have is not None else 'add', 'path': pointer, 'value': text})
        return tests + changes

    def annotation_patch(self, annotation, text):
        """JSON patch replacing the annotation's text, guarded by its text as read."""
        have = self.annotations.get(annotation)
        pointer = patches.json_pointer('metadata', 'annotations', annotation)
        return [
            {'op': 'test', 'path': pointer, 'value': have},
            {'op': 'replace', 'path': pointer, 'value': text},
        ]


class HorizontalPodAutoscaler(_Object):
    kind = 'HorizontalPodAutoscaler'
    collection = '/apis/autoscaling/v2/namespaces/%s/horizontalpodautoscalers'

    @property
    def target(self):
        """The name of the workload it scales (``spec.scaleTargetRef.name``)."""
        return (self.spec.get('scaleTargetRef') or {}).get('name')

    @property
    def target_kind(self):
        return (self.spec.get('scaleTargetRef') or {}).get('kind')

    def retarget_patch(self, name):
        """JSON patch pointing the HPA at the Deployment ``name``, guarded by its target as read."""
        return [
            {'op': 'test', 'path': '/spec/scaleTargetRef/name', 'value': self.target},
            {'op': 'replace', 'path': '/spec/scaleTargetRef/name', 'value': name},
        ]

    def describe(self):
        return {
            'name': self.name,
            'target': self.target,
            'minReplicas': self.spec.get('minReplicas'),
            'maxReplicas': self.spec.get('maxReplicas'),
            'currentReplicas': (self.obj.get('status') or {}).get('currentReplicas'),
        }


def colored_selector(selector, label, color):
    return dict(selector or {}, **{label: color})


def colored_template(template, label, color, images=None):
    """``template`` with the pod label ``label`` = ``color`` (and ``images``, if given)."""
    out = copy.deepcopy(template or {})
    meta = out.setdefault('metadata', {})
    meta['labels'] = dict(meta.get('labels') or {}, **{label: color})
    return patches.imaged_template(out, images) if images else out


def replicas_patch(obj, replicas):
    """JSON patch setting ``spec.replicas``, guarded by the generation as read (a spec change by
    anyone since fails it)."""
    return [
        patches.spec_guard(obj.get('metadata') or {}),
        {'op': 'replace', 'path': '/spec/replicas', 'value': replicas},
    ]


def deployment_complete(obj, at_least=0):
    """Why the Deployment ``obj`` is not a complete rollout of at least ``at_least`` pods, or None:
    the controller observed its spec, and updated = available = ready = replicas >= ``at_least``."""
    spec, status, meta = obj.get('spec') or {}, obj.get('status') or {}, obj.get('metadata') or {}
    replicas = spec.get('replicas', 1)
    if (status.get('observedGeneration') or 0) < (meta.get('generation') or 0):
        return 'the controller has not observed its spec yet'
    counts = [status.get(k) or 0 for k in ('updatedReplicas', 'availableReplicas', 'readyReplicas')]
    if counts != [replicas] * 3 or (status.get('replicas') or 0) != replicas:
        return '%d of %d pods updated, %d available, %d ready' % (counts[0], replicas, counts[1], counts[2])
    if replicas < at_least:
        return '%d replicas, fewer than the %d the live color runs' % (replicas, at_least)
    return None


def _labels_match(labels, selector):
    return all((labels or {}).get(k) == v for k, v in (selector or {}).items())


# -- EndpointSlices (``pkg/controller/endpointslice``): one home for what an endpoint is
READY, NOT_READY, TERMINATING = 'ready', 'not ready', 'terminating'
SERVICES = '/api/v1/namespaces/%s/services'


def endpoint_state(endpoint):
    """Whether an EndpointSlice endpoint takes traffic: TERMINATING (its pod is being deleted,
    whatever its readiness says: a gateway drains it), NOT_READY (``conditions.ready`` false), or
    READY (ready true or unset, as the API defines an unset ready)."""
    conditions = endpoint.get('conditions') or {}
    if conditions.get('terminating'):
        return TERMINATING
    if conditions.get('ready') is False:
        return NOT_READY
    return READY


def endpoint_name(endpoint):
    """The pod an endpoint stands for (its targetRef), else its addresses."""
    return (endpoint.get('targetRef') or {}).get('name') or ','.join(endpoint.get('addresses') or [])


def slices_path(namespace):
    return ENDPOINTSLICES % path_quote(namespace)


def pods_path(namespace):
    return PODS % path_quote(namespace)


def service_path(namespace, name):
    return '%s/%s' % (SERVICES % path_quote(namespace), path_quote(name))


def selector_of(service):
    """The label selector of the EndpointSlices of the Service named ``service``."""
    return '%s=%s' % (SERVICE_NAME_LABEL, service)


def ready_endpoints(slices, pods=None):
    """How many ready endpoints a Service's ``slices`` (a LIST's items) hold: each pod (or address)
    once; a terminating endpoint is never one. With ``pods`` (a set of pod names), only the endpoints
    of those pods (a subset of the Service's pods, chosen by labels)."""
    return len({endpoint_name(e) for s in slices for e in s.get('endpoints') or []
                if endpoint_state(e) == READY
                and (pods is None or ((e.get('targetRef') or {}).get('name') in pods))})


def needed_endpoints(percent, other_ready):
    """The ready endpoints a backend needs before it takes ``percent`` of the requests from a
    backend with ``other_ready`` ready endpoints: as many pods as that share of its capacity
    (ceil(percent x other_ready / 100), Argo Rollouts' canary replica rule), and at least one."""
    if percent <= 0:
        return 0
    return max(1, int(math.ceil(percent * other_ready / 100.0)))


def selects(selector, labels):
    """Whether a Service ``selector`` (a map) selects pods with ``labels``."""
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def routed(slices, pods, selector, service):
    """What the EndpointSlices ``slices`` of ``service`` (a Service) route to, judged against the
    ``pods`` of the namespace and the ``selector`` the traffic should go to:

    ``ready``, ``not_ready``, ``terminating``: the pod names of the endpoints in each condition;
    ``unexpected``: ready endpoints whose pod does not match ``selector`` or is not Ready;
    ``expected``: the Ready, not terminating pods that match ``selector``; ``missing``: those without
    a ready endpoint; ``ports``: the Service ports (by name) no slice serves."""
    by_name = {(p.get('metadata') or {}).get('name'): p for p in pods}
    ready, not_ready, terminating, served = set(), set(), set(), set()
    for piece in slices:
        names = [p.get('name') or '' for p in piece.get('ports') or []]
        for endpoint in piece.get('endpoints') or []:
            state = endpoint_state(endpoint)
            name = endpoint_name(endpoint)
            if state == TERMINATING:
                terminating.add(name)
            elif state == NOT_READY:
                not_ready.add(name)
            else:
                ready.add(name)
                served.update(names)
    expected = {
        name
        for name, pod in by_name.items()
        if _labels_match((pod.get('metadata') or {}).get('labels'), selector)
        and pod_ready(pod)
        and not (pod.get('metadata') or {}).get('deletionTimestamp')
    }
    unexpected = {n for n in ready if n not in expected}
    missing_ports = sorted(name for name, _port in service.ports if name not in served) if ready else []
    return {
        'ready': sorted(ready),
        'not_ready': sorted(not_ready),
        'terminating': sorted(terminating),
        'unexpected': sorted(unexpected),
        'expected': sorted(expected),
        'missing': sorted(expected - ready),
        'missing_ports': missing_ports,
    }


def routes_exactly(seen, at_least):
    """Whether ``seen`` (``routed``) is the selected pods exactly: every expected pod has a ready
    endpoint, no ready endpoint is another pod, at least ``at_least`` of them."""
    return (
        not seen['unexpected']
        and not seen['missing']
        and len(seen['ready']) >= max(1, at_least)
        and not seen['missing_ports']
    )

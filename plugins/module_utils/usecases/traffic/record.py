# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A traffic canary's canary Deployment and the record it carries (pure: no request here).

The canary is a second Deployment, ``<stable>-canary``: the stable Deployment's pod template with
the new images, its selector and pod labels with the track label set to ``canary``, so that the
canary Service (which selects that label) reaches only its pods and the stable Service, which must
select the stable track, none of them. Its replicas follow the steps: ceil(weight x stable replicas /
100) before each weight, as Argo Rollouts sizes a canary (``rollout/trafficrouting.go``).

The record (annotation ``kubeops.rollout/traffic-canary`` on the canary Deployment) is written in
the same request as each change of the canary: the release ``id``, the ``images``, the ``step``
being taken (an index into the steps, or ``promote``), whether that step ``passed`` its analysis,
the ``route``, the ``runner`` and when it ``started``. It goes in the request that scales the canary
to 0 at the end (promotion or rollback). It is sealed (engine/records.py) on the traffic canary's
Lease, ``kubeops-traffic-<id without r->`` in the canary's namespace, which stays (with no holder)
while the record does: a step is resumed only from a record whose seal is there. A re-run of the
same task finds it and resumes the step it names; ``recover: rollback`` rolls it back; ``kubectl
annotate deployment <stable>-canary -n <ns> kubeops.rollout/traffic-canary-`` removes it by hand.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import json
import math

from ansible_collections.kubeops.rollout.plugins.module_utils.engine import lease as lease_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.engine import records
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import patches
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release.record import (
    TRAFFIC_ANNOTATION,
)

CANARY_SUFFIX = '-canary'
PROMOTE = 'promote'
# What a Deployment's spec keeps from the stable one, beside the template, selector and replicas.
COPIED_SPEC = ('strategy', 'minReadySeconds', 'progressDeadlineSeconds', 'revisionHistoryLimit')


def canary_name(stable):
    return stable + CANARY_SUFFIX


def replicas_for(weight, replicas):
    """The canary's replicas for ``weight`` percent of a Deployment of ``replicas``."""
    if weight <= 0:
        return 0
    return max(1, int(math.ceil(weight * replicas / 100.0)))


def canary_selector(selector, track_label):
    out = copy.deepcopy(selector or {})
    out.setdefault('matchLabels', {})[track_label] = 'canary'
    return out


def canary_template(template, images, track_label):
    out = patches.imaged_template(template, images)
    meta = out.setdefault('metadata', {})
    meta['labels'] = dict(meta.get('labels') or {}, **{track_label: 'canary'})
    return out


def step_text(step):
    """A record's ``step`` as the messages count steps (from 1), or ``promotion``."""
    return 'the promotion' if step == PROMOTE else 'step %d' % (step + 1)


def record_text(release, images, step, route, runner, started, passed=False):
    return records.encode({'id': release, 'images': dict(sorted(images.items())), 'step': step,
                           'passed': passed, 'route': route, 'runner': runner, 'started': started,
                           'launcher': lease_mod.launcher()})


def parse(obj):
    """(record, problem) of a canary Deployment ``obj``: (None, None) without a record. Bounded
    (engine/records.py); a record is a hint: its step is acted on only once its seal is verified."""
    text = ((obj.get('metadata') or {}).get('annotations') or {}).get(TRAFFIC_ANNOTATION)
    if text is None:
        return None, None
    try:
        record = records.decode(text)
    except records.Malformed as e:
        return None, str(e)
    if not isinstance(record.get('id'), str) or not isinstance(record.get('images'), dict):
        return None, 'it lacks the release id or the images'
    step = record.get('step')
    if not (step == PROMOTE or (isinstance(step, int) and not isinstance(step, bool) and step >= 0)):
        return None, 'its step is neither a step index nor %s' % PROMOTE
    return record, None


def canary_body(stable, namespace, replicas, images, track_label, record):
    """The canary Deployment created beside ``stable`` (a Deployment as read)."""
    spec = stable.get('spec') or {}
    labels = dict((stable.get('metadata') or {}).get('labels') or {}, **{track_label: 'canary'})
    body = {
        'apiVersion': 'apps/v1', 'kind': 'Deployment',
        'metadata': {'name': canary_name(stable['metadata']['name']), 'namespace': namespace,
                     'labels': labels, 'annotations': {TRAFFIC_ANNOTATION: record}},
        'spec': {'replicas': replicas, 'selector': canary_selector(spec.get('selector'), track_label),
                 'template': canary_template(spec.get('template') or {}, images, track_label)},
    }
    for key in COPIED_SPEC:
        if key in spec:
            body['spec'][key] = copy.deepcopy(spec[key])
    return body


def canary_patch(canary, template, replicas, record):
    """JSON patch of an existing canary Deployment (as read): its template, replicas and record,
    guarded by its generation (and the record's text when it has one); [] when all are in place."""
    meta = canary.get('metadata') or {}
    spec = canary.get('spec') or {}
    annotations = meta.get('annotations') or {}
    ops = []
    if spec.get('template') != template:
        ops.append({'op': 'replace', 'path': '/spec/template', 'value': template})
    if spec.get('replicas') != replicas:
        ops.append({'op': 'replace', 'path': '/spec/replicas', 'value': replicas})
    if record is not None and _same_record(annotations.get(TRAFFIC_ANNOTATION), record) and not ops:
        return []
    if record is None and TRAFFIC_ANNOTATION not in annotations and not ops:
        return []
    pointer = patches.json_pointer('metadata', 'annotations', TRAFFIC_ANNOTATION)
    tests = [patches.spec_guard(meta)]
    if TRAFFIC_ANNOTATION in annotations:
        tests.append({'op': 'test', 'path': pointer, 'value': annotations[TRAFFIC_ANNOTATION]})
        ops.append({'op': 'remove', 'path': pointer} if record is None
                   else {'op': 'replace', 'path': pointer, 'value': record})
    elif record is not None:
        if 'annotations' in meta:
            ops.append({'op': 'add', 'path': pointer, 'value': record})
        else:
            ops.append({'op': 'add', 'path': '/metadata/annotations', 'value': {TRAFFIC_ANNOTATION: record}})
    return tests + ops


def _same_record(text, record):
    """Records equal but for who wrote them and when."""
    try:
        a, b = json.loads(text or 'null'), json.loads(record)
    except ValueError:
        return False
    if not isinstance(a, dict):
        return False
    return all(a.get(k) == b.get(k) for k in ('id', 'images', 'step', 'passed', 'route'))

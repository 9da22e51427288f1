# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""``state: adopted``, the one-time step that makes an app with one Deployment a blue/green app,
each step skipped when done already, never a moment without ready endpoints:

1. the existing Deployment (the color ``deployments`` names it as) gets the color label on its pod
   template (its selector is immutable and stays as it is): a rollout, waited for, during which the
   Service, still without the color in its selector, routes to old and new pods alike (a run
   stopped during it leaves the label written: the next run waits for that rollout);
2. the other color's Deployment is created from it: the same spec, the other color in its template
   and selector, 0 replicas;
3. once every pod of the first color carries the label, the live Service's selector gets the color
   (one guarded JSON patch with the record, phase ``adopted``) and the wait until its EndpointSlices
   route to exactly those pods.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

from ansible_collections.kubeops.rollout.plugins.module_utils.common.vocabulary import setting
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError, KubeError
from ansible_collections.kubeops.rollout.plugins.module_utils.engine.rollouts import Rollout
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import patches
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import status as status_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.services import (
    COLORS,
    colored_selector,
    colored_template,
    deployment_complete,
    other_color,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workloads import Deployment
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen import record as record_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen.apps import (
    ADOPTED,
    REFUSED,
    UNCHANGED,
    words,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen.switch import (
    ChangedElsewhere,
)


def adopt(run, a):
    """Adopt ``a`` (an App, as read) within ``run`` (a bluegreen.BlueGreen)."""
    label, check = run.label, run.options.check_mode
    existing = [c for c in COLORS if a.deployment(c) is not None]
    if a.active is not None and len(existing) == 2:
        a.outcome = UNCHANGED
        return
    if not existing:
        raise ChangedElsewhere(
            'neither %s nor %s exists: adoption starts from the one Deployment the app has'
            % (a.names['blue'], a.names['green'])
        )
    color = a.active or existing[0]
    d = a.deployment(color)
    if d.paused:
        raise ChangedElsewhere('%s is paused: resume it first (rollout_pause with %s)'
                               % (d.label(), setting('state', 'resumed', module='rollout_pause')))
    # 1. the color label on its pods
    labels = (d.template.get('metadata') or {}).get('labels') or {}
    if labels.get(label) != color:
        body = [
            patches.spec_guard(d.metadata),
            {'op': 'replace', 'path': '/spec/template', 'value': colored_template(d.template, label, color)},
        ]
        written = run.client.patch(d.path, body, patches.JSON_PATCH, dry_run=check, retry=True)
        a.changed = True
        a.step('%s: pod template labelled %s=%s (a rollout)' % (d.label(), label, color))
        a.diffs.append(('template labels %s' % d.name, labels, dict(labels, **{label: color})))
        rollout = Rollout(Deployment(written), written,
                          status_mod.after_change(d.rollout_status, d.obj, written), label=d.label())
    else:  # labelled by an earlier run, perhaps stopped before its rollout completed: waited for too
        written, rollout = d.obj, Rollout(d, label=d.label())
    if not check and (rollout.obj is not d.obj or deployment_complete(d.obj)):
        result = run.engine.wait_one(rollout, run.options.timeout)
        if not result.done:
            raise ChangedElsewhere(
                '%s did not roll out with the color label: %s' % (d.label(), result.message))
    a.deployments[color] = Deployment(written)
    # 2. the other color, from it
    other = other_color(color)
    if a.deployment(other) is None:
        body = second_color(a.deployment(color).obj, a.names[other], label, other)
        try:
            created = run.client.create(
                Deployment.collection_path(a.namespace), body, dry_run=check, retry=True
            )
        except ApiError as e:
            if e.status != 409:
                raise
            created = run.client.get(Deployment.object_path(a.namespace, a.names[other]))  # a lost answer's
        a.deployments[other] = Deployment(created)
        a.changed = True
        a.step(
            'Deployment %s/%s created from %s (%s, 0 replicas)' % (a.namespace, a.names[other], d.name, other)
        )
    # 3. the Service selects the color
    if a.active is None:
        if not check:
            live = Deployment(run.client.get(d.path))
            why = deployment_complete(live.obj)
            if why:
                raise ChangedElsewhere(
                    '%s is not complete (%s): the Service keeps its selector' % (live.label(), why)
                )
        run.traffic.switch(
            a, color, record_mod.ADOPTED, selector=colored_selector(a.service.selector, label, color)
        )
        a.active = color
        if not check:
            seen, why = run.traffic.await_routes(a, color, 1, run.options.timeout)
            a.endpoints = seen
            if why:
                raise ChangedElsewhere('its selector has the color, but %s' % why)
    a.outcome = ADOPTED if a.changed else UNCHANGED


def second_color(obj, name, label, color):
    """The Deployment of the second color, made from ``obj`` (the first's, as read): its spec with
    ``color`` in the template and the selector, 0 replicas, no status, no change-cause."""
    spec = copy.deepcopy(obj.get('spec') or {})
    spec.pop('paused', None)
    spec['replicas'] = 0
    selector = spec.get('selector') or {}
    spec['selector'] = dict(selector, matchLabels=colored_selector(selector.get('matchLabels'), label, color))
    spec['template'] = colored_template(spec.get('template'), label, color)
    meta = obj.get('metadata') or {}
    return {
        'apiVersion': 'apps/v1',
        'kind': 'Deployment',
        'metadata': {
            'name': name,
            'namespace': meta.get('namespace'),
            'labels': dict(meta.get('labels') or {}),
        },
        'spec': spec,
    }


def adopt_all(run):
    """``state: adopted`` for every app of ``run`` (a bluegreen.BlueGreen), in order; the first
    that fails stops the others (not reached)."""
    for a in run.apps:
        try:
            adopt(run, a)
        except (KubeError, ChangedElsewhere) as e:
            a.outcome, a.cause = REFUSED, words(e)
            run.not_reached('not adopted: %s failed first' % a.label())
            return

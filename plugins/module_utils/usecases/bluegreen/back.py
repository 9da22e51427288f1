# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The way back of a blue/green switch: ``state: rolled_back`` (and the put-back of a failed or
abandoned switch) points each app's Service at the color its record says it left, scaling that color
up first when it has too few Ready pods, the HPA with it, verified on the EndpointSlices. It goes back
only to the images that were live before the switch (the sealed record's ``fromImages``): a color
prepared since with other images is refused, never sent live traffic."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.kubeops.rollout.plugins.module_utils.common.vocabulary import setting
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import KubeError
from ansible_collections.kubeops.rollout.plugins.module_utils.engine.rollouts import Rollout
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workloads import Deployment
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen import record as record_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen.apps import (
    REFUSED,
    ROLLBACK_FAILED,
    ROLLED_BACK,
    UNCHANGED,
    images_text,
    words,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen.switch import (
    ChangedElsewhere,
    Stop,
)


def switch_back(run, apps, cause):
    """Switch ``apps`` back to the color they left (in reverse order), the HPA too."""
    for a in reversed(apps):
        back = a.active_before if not a.resumed else a.record['from']
        try:
            instant = back_one(run, a, back)
        except (KubeError, ChangedElsewhere) as e:
            a.outcome = ROLLBACK_FAILED
            a.cause = ('%s; not switched back: %s. Switch it by hand (%s) or run %s again'
                       % (a.cause or cause, words(e), record_mod.clear(a.service),
                          setting('state', 'rolled_back')))
            continue
        a.outcome = ROLLED_BACK if a.outcome != ROLLBACK_FAILED else a.outcome
        a.instant = instant
        a.cause = a.cause or (None if cause.startswith('put back as asked') else cause)


def back_one(run, a, back):
    """``a``'s Service back to ``back``; whether that was instant (the color had enough Ready pods)."""
    current = a.service.color(run.label)
    needed = (a.deployment(current).replicas or 0) if a.deployment(current) is not None else 1
    old = Deployment(run.client.get(a.deployment(back).path))
    a.deployments[back] = old
    live_before = (a.record or {}).get('fromImages') if a.resumed else None
    if live_before and a.images_of(back) != live_before:
        raise ChangedElsewhere(
            '%s no longer runs the images that were live before the switch (%s; now %s): switching '
            'back would send live traffic to images that were never live. Put them back on %s first, '
            'or release the images you want (%s)' % (
                old.label(), ', '.join('%s=%s' % kv for kv in sorted(live_before.items())), images_text(old),
                old.label(), setting('state', 'switched')))
    instant = ((old.obj.get('status') or {}).get('availableReplicas') or 0) >= max(1, needed)
    check = run.options.check_mode
    if not instant:
        run.note('%s: %s has too few Ready pods: %s it to %d before switching back' % (
            a.label(), old.label(), 'would scale' if check else 'scaling', max(1, needed)))
        run.traffic.scale(a, back, max(old.replicas or 0, needed, 1))
        if not run.options.check_mode:
            result = run.engine.wait_one(Rollout(a.deployment(back), label=old.label()), run.options.timeout)
            if not result.done:
                raise ChangedElsewhere('%s did not come up: %s' % (old.label(), result.message))
    hpa = run.hpa_record(a, back)
    run.traffic.switch(a, back, record_mod.ROLLED_BACK, hpa=hpa)
    a.active = back
    a.scale_down_at = record_mod.parse(a.service.annotations[record_mod.ANNOTATION])[0]['scaleDownAt']
    if a.hpa is not None and a.hpa.target != a.names[back]:
        run.traffic.retarget(a, a.hpa.target, a.names[back])
    if not run.options.check_mode:
        seen, why = run.traffic.await_routes(a, back, 1, run.options.timeout)
        a.endpoints = seen
        if why:
            raise ChangedElsewhere('switched back, but %s' % why)
    run.note('%s: %s %s%s' % (a.label(), 'would switch back to' if check else 'back on', back,
                              '' if instant else ' (not instant: scaled up first)'))
    return instant


def rolled_back(run):
    chosen = []
    for a in run.apps:
        r = a.record
        if r is None or r['phase'] == record_mod.ADOPTED:
            a.outcome = REFUSED
            a.cause = ('no switch is recorded on it (no %s record): nothing to switch back to'
                       % record_mod.ANNOTATION)
        elif r['phase'] == record_mod.ROLLED_BACK:
            a.outcome = UNCHANGED
            a.scale_down_at = r['scaleDownAt']
        else:
            a.active_before = a.active
            chosen.append(a)
    if any(a.outcome == REFUSED for a in run.apps):
        run.not_reached('not switched back: another app was refused')
        raise Stop()
    run.take_lease()
    for a in chosen:
        a.resumed = True  # back to the record's "from"
    switch_back(run, chosen, 'switched back as asked')
    for a in chosen:
        if a.outcome == ROLLED_BACK:
            a.cause = None


def not_released(a, check_mode):
    """What a switch back as asked (``recover: rollback``) of ``a`` means: the images of the switch
    it undid were NOT released, and what live traffic is on again."""
    record = a.record or {}
    left = record.get('to')
    text = ('the images of release %s (%s on %s) %s NOT released: live traffic %s back on %s (%s)'
            % (record.get('release', '?'), _images(a.images_of(left)), left,
               'would be' if check_mode else 'were', 'would be' if check_mode else 'is', a.active,
               _images(a.images_of(a.active))))
    if a.images and not a.runs_images(left):
        text += ('; the images of this task (%s) were not released either: run it again without recover '
                 'to release them' % _images(a.images))
    return text


def _images(images):
    return ', '.join('%s=%s' % kv for kv in sorted((images or {}).items())) or '?'


def way_back_refusal(a):
    """Why ``a``'s idle color must not be prepared (it is the way back of a live switch: the
    record names it as the color left and it still runs pods), or None."""
    r = a.record
    if r is None or r['phase'] not in (record_mod.SWITCHED, record_mod.SWITCHING) or r['from'] != a.idle:
        return None
    d = a.deployment(a.idle)
    if d is None or not (d.replicas or 0):
        return None
    return ('%s: %s is the way back of the switch of release %s (from %s at %s, %d pods up): preparing '
            'the next version there would destroy it. Run %s first (it scales %s down from %s), or %s to '
            'go back to it'
            % (a.label(), d.label(), r['release'], r['from'], r['switchedAt'], d.replicas,
               setting('state', 'finished'), d.label(), r['scaleDownAt'], setting('state', 'rolled_back')))

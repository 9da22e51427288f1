# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Why one pod is not Ready, and which Warning events speak of a workload: the pure, per-pod and
per-event classification behind ``diagnosis.py`` (no I/O, no grouping, no redaction).

``pod_causes`` turns one pod into a list of cause dicts (``category``, ``reason``, ``message`` and,
for containers, ``container``, ``image``, ``restarts``, ``last_termination``); ``relevant_events``
and ``event_time`` pick and order the Warning events; ``_creation_failure`` finds why pods were not
created at all.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime

from ansible_collections.kubeops.rollout.plugins.module_utils.common.times import parse_datetime
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.pods import pod_ready, ready_condition

# Waiting reasons that only say "not started yet": reported when a pod shows nothing better.
TRANSIENT_WAITING = frozenset(['ContainerCreating', 'PodInitializing'])
FAILED_CREATE = 'FailedCreate'
REPLICA_FAILURE = 'ReplicaFailure'
NOT_READY = 'NotReady'
CRASH_LOOP = 'CrashLoopBackOff'
UNSCHEDULABLE = 'Unschedulable'


# ---- small helpers ---------------------------------------------------------------------------

def _meta(obj):
    return (obj or {}).get('metadata') or {}


def _conditions(obj):
    return ((obj or {}).get('status') or {}).get('conditions') or []


def _condition(obj, type_):
    for c in _conditions(obj):
        if c.get('type') == type_:
            return c
    return None


# ---- one pod -> its causes -------------------------------------------------------------------

def _container_causes(pod, statuses, init):
    out = []
    for cs in statuses:
        state = cs.get('state') or {}
        name = ('init:' if init else '') + (cs.get('name') or '?')
        restarts = int(cs.get('restartCount') or 0)
        last = (cs.get('lastState') or {}).get('terminated') or None
        base = {'category': 'container', 'container': name, 'image': cs.get('image'), 'restarts': restarts}
        if last:
            base['last_termination'] = {'reason': last.get('reason'), 'exit_code': last.get('exitCode')}
        waiting = state.get('waiting')
        terminated = state.get('terminated')
        if waiting and waiting.get('reason'):
            reason = waiting['reason']
            if reason == 'ErrImagePull':  # the same failure before the kubelet's back-off starts
                reason = 'ImagePullBackOff'
            out.append(dict(base, reason=reason, message=waiting.get('message')))
        elif terminated and not (init and terminated.get('exitCode') == 0):
            # Between two restarts a crashing container shows "terminated"; it is the same crash loop.
            reason = CRASH_LOOP if restarts else (terminated.get('reason') or 'Terminated')
            out.append(dict(base, reason=reason,
                            message=terminated.get('message'),
                            last_termination={'reason': terminated.get('reason'),
                                              'exit_code': terminated.get('exitCode')}))
    return out


RECENT_CRASH_SECONDS = 300
RESIZABLE = ('cpu', 'memory')


def _resource_view(resources):
    """A container's cpu and memory requests and limits, requests defaulted from limits as the API
    server defaults a pod's (and not a pod template's)."""
    resources = resources or {}
    limits = {k: v for k, v in (resources.get('limits') or {}).items() if k in RESIZABLE}
    requests = dict(limits)
    requests.update((k, v) for k, v in (resources.get('requests') or {}).items() if k in RESIZABLE)
    return {'limits': limits, 'requests': requests}


def resized_containers(pod, template):
    """The names of the containers of ``pod`` whose cpu or memory differ from the pod template it was
    made from (``template``: the workload's ``spec.template``): resized in place (the ``resize``
    subresource, Kubernetes 1.33+), which changes the pod and not the template. Empty without a
    template."""
    if not template:
        return frozenset()
    containers = (template.get('spec') or {}).get('containers') or []
    wanted = {c.get('name'): _resource_view(c.get('resources')) for c in containers}
    return frozenset(
        c.get('name') for c in (pod.get('spec') or {}).get('containers') or []
        if c.get('name') in wanted and _resource_view(c.get('resources')) != wanted[c.get('name')]
    )


def _recent_crashes(statuses, now, resized=frozenset()):
    out = []
    for cs in statuses:
        if cs.get('name') in resized:
            # A container resized in place restarts when its resize policy says so: not a crash.
            continue
        last = (cs.get('lastState') or {}).get('terminated') or {}
        finished = parse_datetime(last.get('finishedAt'))
        if not (cs.get('restartCount') and last.get('exitCode') and finished and now):
            continue
        if (now - finished).total_seconds() <= RECENT_CRASH_SECONDS:
            out.append({'category': 'container', 'container': cs.get('name') or '?',
                        'image': cs.get('image'), 'restarts': int(cs['restartCount']),
                        'reason': CRASH_LOOP, 'message': None,
                        'last_termination': {'reason': last.get('reason'),
                                             'exit_code': last.get('exitCode')}})
    return out


def pod_causes(pod, now, template=None):
    """Why one pod is not Ready: a list of cause dicts (not yet grouped), empty when it is Ready.
    ``template``: the pod template the pod was made from, which tells an in-place resize's restart
    from a crash."""
    status = pod.get('status') or {}
    if pod_ready(pod):
        # Ready this instant, but a container that just crashed and restarted is a crash loop caught
        # between two crashes: that is why the rollout did not finish. A container resized in place
        # restarted because of its resize policy instead.
        return _recent_crashes(status.get('containerStatuses') or [], now, resized_containers(pod, template))
    phase = status.get('phase')
    if phase == 'Failed':
        return [{'category': 'pod', 'reason': status.get('reason') or 'Failed',
                 'message': status.get('message')}]
    scheduled = _condition(pod, 'PodScheduled')
    if scheduled and scheduled.get('status') == 'False':
        return [{'category': 'scheduling', 'reason': scheduled.get('reason') or UNSCHEDULABLE,
                 'message': scheduled.get('message')}]
    causes = (_container_causes(pod, status.get('initContainerStatuses') or [], True)
              + _container_causes(pod, status.get('containerStatuses') or [], False))
    specific = [c for c in causes if c['reason'] not in TRANSIENT_WAITING]
    if specific:
        return specific
    if phase == 'Running':
        cause = {'category': 'readiness', 'reason': NOT_READY, 'message': None}
        since = parse_datetime((ready_condition(pod) or {}).get('lastTransitionTime'))
        if since is not None and now is not None:
            cause['not_ready_seconds'] = max(0, int((now - since).total_seconds()))
        return [cause]
    if causes:
        return causes
    return [{'category': 'pod', 'reason': phase or 'Pending', 'message': status.get('message')}]


# ---- events ----------------------------------------------------------------------------------

def event_time(event):
    series = event.get('series') or {}
    for value in (event.get('lastTimestamp'), series.get('lastObservedTime'), event.get('eventTime'),
                  event.get('firstTimestamp'), _meta(event).get('creationTimestamp')):
        t = parse_datetime(value)
        if t is not None:
            return t
    return None


def _event_count(event):
    return int(event.get('count') or (event.get('series') or {}).get('count') or 1)


def relevant_events(events, objects):
    """Warning events whose involvedObject is one of ``objects`` ({(kind, name)}), newest first."""
    def involved(e):
        ref = e.get('involvedObject') or {}
        return ref.get('kind'), ref.get('name')

    out = [e for e in events or [] if e.get('type', 'Warning') == 'Warning' and involved(e) in objects]
    epoch = datetime.datetime.min.replace(tzinfo=datetime.timezone.utc)
    return sorted(out, key=lambda e: event_time(e) or epoch, reverse=True)


CREATOR_KINDS = ('ReplicaSet', 'StatefulSet', 'DaemonSet', 'ReplicationController')


def _creation_failure(workload, revision, events):
    """The newest ReplicaFailure condition / FailedCreate event message of the pods' creator."""
    creators = [workload]
    if revision and revision.get('object') is not None and revision['object'] is not workload:
        creators.insert(0, revision['object'])
    for obj in creators:
        c = _condition(obj, REPLICA_FAILURE)
        if c and c.get('status') == 'True' and c.get('message'):
            return c.get('reason') or FAILED_CREATE, c['message']
    for e in events:
        ref = e.get('involvedObject') or {}
        if e.get('reason') == FAILED_CREATE and ref.get('kind') in CREATOR_KINDS:
            return FAILED_CREATE, e.get('message')
    return None

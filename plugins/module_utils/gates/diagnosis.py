# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Why a rollout is not progressing: the causes behind the pods of the revision being rolled out.

Two parts, as everywhere in the core: ``diagnose`` computes (no I/O: the workload, the object of
the revision being rolled out, its pods and the namespace's Warning events in; a diagnosis out),
and ``read_diagnosis`` does a fixed, small number of reads and calls it. It runs only when a wait
ends without success, so a successful run pays nothing. What one pod or one event says is classified
in ``causes.py``; here the causes are grouped, redacted and put into lines.

The revision being rolled out, per kind:

=====================  ===================================  ========================================
kind                   revision object                      its pods
=====================  ===================================  ========================================
Deployment             the new ReplicaSet (template equal   selector + ``pod-template-hash=<hash>``
                       to the Deployment's)
StatefulSet            ``status.updateRevision`` (a         selector + ``controller-revision-hash=
                       ControllerRevision name)             <updateRevision>``
DaemonSet              the ControllerRevision with the      selector + ``controller-revision-hash=
                       highest ``.revision``                <its controller-revision-hash label>``
ReplicationController  the RC itself (rolling_update_rc's   the RC's selector
                       new controller)
=====================  ===================================  ========================================

Reads of ``read_diagnosis`` per workload (never one per pod):

- Deployment: LIST ReplicaSets by the Deployment's selector (skipped when the caller passes the
  ReplicaSets it already read), LIST pods, LIST events: at most 3.
- DaemonSet: LIST ControllerRevisions (skipped likewise), LIST pods, LIST events: at most 3.
- StatefulSet and ReplicationController: LIST pods, LIST events: 2.

Events are read with ONE LIST of the namespace's ``type=Warning`` events, filtered here to the
workload, its ReplicaSets / the revision object and the pods read. A field selector on
``involvedObject.name`` would need one LIST per object (a read per pod), and field selectors cannot
say "any of these names". The Warning filter keeps the answer small (Normal events such as
Scheduled, Pulled, Created and Started are most of a namespace's events). An image pull's reason
("not found", "unauthorized") is only in the kubelet's Warning ``Failed`` event, not in the pod's
status, so the events are read even when the pods explain the rest.

A read that fails does not hide the failure being diagnosed: the diagnosis says what it could not
read (``errors``) and reports what the other reads showed.

The structured result (``diagnosis`` in a module's result), a dict:

``kind``, ``namespace``, ``name``
    The workload.
``revision``
    The revision being rolled out: ``{"kind": "ReplicaSet"|"ControllerRevision"|
    "ReplicationController", "name": str, "hash": str|None}``, or None when it could not be found
    (e.g. the new ReplicaSet was never created).
``desired``
    Pods wanted at that revision now (the new ReplicaSet's ``spec.replicas``; a StatefulSet's
    replicas above its partition; a DaemonSet's ``desiredNumberScheduled``; an RC's replicas), or
    None when unknown.
``pods``
    Pods of that revision found (terminating pods are not counted).
``ready``
    Of those, how many are Ready.
``causes``
    A list, most pods first, one entry per distinct cause; each a dict with
    ``reason`` (e.g. ``ImagePullBackOff``, ``CrashLoopBackOff``, ``CreateContainerConfigError``,
    ``Unschedulable``, ``NotReady``, ``FailedCreate``), ``category`` (``container``,
    ``scheduling``, ``readiness``, ``pod``, ``creation``), ``count`` (pods affected; for
    ``creation``, pods missing), ``pods`` (up to 5 names), ``message`` (redacted, truncated) and,
    when known, ``container``, ``image``, ``restarts`` (highest restart count),
    ``last_termination`` (``{"reason": str, "exit_code": int}``), ``not_ready_seconds`` (longest).
``events``
    The last few (at most 5) Warning events of the workload, its ReplicaSets and those pods, newest
    first: ``{"object": "Pod/web-1", "reason": str, "message": str, "count": int,
    "last_seen": str}``.
``lines``
    One readable line per cause (at most 8), e.g. ``Deployment shop/web: 3/3 new pods not ready:
    ImagePullBackOff (registry.example.com/shop/web:2.0-brokn: not found)``.
``errors``
    What could not be read, e.g. ``could not list pods: ...``; empty when every read succeeded.
    Each also ends ``lines`` as ``<Kind> <ns>/<name>: diagnosis incomplete: <error>``.

Every message passes through the collection's ``redact`` before it is cut to length, so a secret
is never half-shown.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.kubeops.rollout.plugins.module_utils.gates.causes import (
    CRASH_LOOP,
    NOT_READY,
    _creation_failure,
    _event_count,
    _meta,
    event_time,
    pod_causes,
    relevant_events,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.api.client import path_quote
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import (
    KubeError,
    forbidden_text,
    missing_permission,
    redact,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.common import times

MAX_MESSAGE = 240  # characters of one message
MAX_LINES = 8
MAX_EVENTS = 5
MAX_POD_NAMES = 5

IMAGE_PULL_REASONS = frozenset(['ImagePullBackOff', 'ErrImagePull', 'ErrImageNeverPull', 'InvalidImageName'])

# "Error creating: " (ReplicaSet, RC and DaemonSet controllers), "create Pod db-0 in StatefulSet db
# failed error: " (StatefulSet controller).
CREATE_PREFIX = re.compile(r'^(Error creating: |create Pod \S+ in StatefulSet \S+ failed error: )')

_CATEGORY_ORDER = {'creation': 0, 'scheduling': 1, 'container': 2, 'pod': 3, 'readiness': 4}


class _Text:
    """Redaction, then truncation: every text a diagnosis shows goes through ``clean``."""

    def __init__(self, secrets):
        self.secrets = [s for s in (secrets or ()) if s]

    def clean(self, text, limit=MAX_MESSAGE):
        if text is None:
            return None
        text = ' '.join(redact(text, self.secrets).split())
        return truncate(text, limit)


def truncate(text, limit=MAX_MESSAGE):
    if len(text) <= limit:
        return text
    return text[:max(0, limit - 3)].rstrip() + '...'


# ---- the revision being rolled out -----------------------------------------------------------

# ---- grouping and lines ----------------------------------------------------------------------

def _group_key(cause):
    # Pods failing the same way share a group even when their messages name the pod.
    if cause['category'] in ('container',):
        return (cause['category'], cause['reason'], cause.get('container'), cause.get('image'))
    if cause['category'] == 'scheduling':
        return (cause['category'], cause['reason'], cause.get('message'))
    return (cause['category'], cause['reason'])


def _merge(group, cause, pod_name):
    group['count'] += 1
    if len(group['pods']) < MAX_POD_NAMES:
        group['pods'].append(pod_name)
    for key in ('restarts', 'not_ready_seconds'):
        if cause.get(key) is not None:
            group[key] = max(group.get(key) or 0, cause[key])
    if cause.get('last_termination') and not group.get('last_termination'):
        group['last_termination'] = cause['last_termination']
    if cause.get('message') and not group.get('message'):
        group['message'] = cause['message']


def _pull_detail(message, image):
    """The part of a kubelet pull error a person acts on: what follows the last quoted reference
    (``...: registry.example.com/shop/web:2.0-brokn: not found``)."""
    if not message:
        return None
    tail = message.rsplit('": ', 1)[-1].strip()
    if image and image not in tail and tail != message:
        tail = '%s: %s' % (image, tail)
    return tail


def _pod_event_message(events, pod_names, match):
    for e in events:
        ref = e.get('involvedObject') or {}
        if ref.get('kind') == 'Pod' and ref.get('name') in pod_names and match(e):
            return e.get('message')
    return None


def _enrich(cause, events):
    """Add what only the kubelet's events tell: the pull error, the failing probe."""
    names = set(cause['pods'])
    if cause['reason'] in IMAGE_PULL_REASONS:
        pull = _pod_event_message(events, names,
                                  lambda e: (e.get('message') or '').startswith('Failed to pull image'))
        detail = _pull_detail(pull, cause.get('image'))
        if detail:
            cause['pull_message'] = pull
            cause['detail'] = detail
    elif cause['reason'] == NOT_READY:
        probe = _pod_event_message(events, names, lambda e: e.get('reason') == 'Unhealthy')
        if probe:
            cause['message'] = probe


def _detail(cause):
    reason = cause['reason']
    if reason in IMAGE_PULL_REASONS:
        return cause.get('detail') or cause.get('image') or cause.get('message')
    if reason == CRASH_LOOP or cause.get('last_termination'):
        parts = ['container %s' % cause['container']] if cause.get('container') else []
        parts.append('%d restarts' % (cause.get('restarts') or 0))
        last = cause.get('last_termination') or {}
        if last:
            parts.append(('last exit %s %s' % (last.get('exit_code'), last.get('reason') or '')).strip())
        return ', '.join(parts)
    if reason == NOT_READY:
        text = 'Running but not Ready'
        if cause.get('not_ready_seconds') is not None:
            text += ' for %ds' % cause['not_ready_seconds']
        return text + (': %s' % cause['message'] if cause.get('message') else '')
    if cause['category'] == 'creation' and cause.get('message'):
        # The controllers' event prefixes say nothing the line does not.
        return CREATE_PREFIX.sub('', cause['message'])
    if cause.get('container') and cause.get('message'):
        return 'container %s: %s' % (cause['container'], cause['message'])
    return cause.get('message') or cause.get('container')


def _line(subject, cause, pods):
    detail = _detail(cause)
    tail = '%s (%s)' % (cause['reason'], detail) if detail else cause['reason']
    if cause['category'] == 'creation':
        wanted = cause.get('desired')
        return '%s: %s new pods not created: %s' % (
            subject, '%d/%d' % (cause['count'], wanted) if wanted else cause['count'], tail)
    return '%s: %d/%d new pods not ready: %s' % (subject, cause['count'], pods, tail)


def diagnose(workload, revision, pods, events, now=None, secrets=(), errors=()):
    """The diagnosis of one workload (see the module docstring for its shape).

    ``workload``: the Workload (kinds/workloads.py);
    ``revision``: what the kind's ``rolled_out_revision`` returns (or
    None); ``pods``: the pods of that revision; ``events``: Warning events of the namespace
    (filtered here); ``now``: a datetime or RFC 3339 string (default: the current time);
    ``secrets``: values to redact (the connection's); ``errors``: reads that failed, as messages.
    """
    text = _Text(secrets)
    now = times.as_datetime(now)
    kind, namespace, name = workload.kind, workload.namespace, workload.name
    subject = '%s %s/%s' % (kind, namespace, name) if namespace else '%s %s' % (kind, name)

    live = [p for p in pods or [] if not _meta(p).get('deletionTimestamp')]
    pod_names = {_meta(p).get('name') for p in live}
    objects = {(kind, name)}
    objects.update(('Pod', n) for n in pod_names)
    if revision and revision.get('kind') in ('ReplicaSet', 'ReplicationController'):
        objects.add((revision['kind'], revision['name']))
    # A Deployment's revision names all its ReplicaSets: their events count too.
    objects.update(('ReplicaSet', n) for n in (revision or {}).get('replica_sets') or ())
    warnings = relevant_events(events, objects)

    groups = {}
    ready = 0
    for pod in sorted(live, key=lambda p: _meta(p).get('name') or ''):
        causes = pod_causes(pod, now, workload.spec.get('template'))
        if not causes:
            ready += 1
            continue
        seen = set()
        for cause in causes:
            key = _group_key(cause)
            if key in seen:
                continue
            seen.add(key)
            group = groups.get(key)
            if group is None:
                group = groups[key] = {k: v for k, v in cause.items()
                                       if k not in ('restarts', 'not_ready_seconds', 'message')}
                group.update(count=0, pods=[], message=None)
            _merge(group, cause, _meta(pod).get('name'))

    causes = list(groups.values())
    desired = workload.desired_at(revision)
    missing = max(0, desired - len(live)) if desired is not None else 0
    failure = _creation_failure(workload.obj, revision, warnings) if missing else None
    if failure:
        causes.append({'category': 'creation', 'reason': failure[0], 'count': missing, 'pods': [],
                       'message': failure[1], 'desired': desired})

    for cause in causes:
        _enrich(cause, warnings)
    causes.sort(key=lambda c: (-c['count'], _CATEGORY_ORDER.get(c['category'], 9), c['reason']))
    lines = []
    for cause in causes:
        for key in ('message', 'pull_message', 'detail'):
            if cause.get(key):
                cause[key] = text.clean(cause[key])
        if cause.get('image'):
            cause['image'] = text.clean(cause['image'])
        lines.append(text.clean(_line(subject, cause, len(live)), 2 * MAX_MESSAGE))
    errors = [text.clean(e) for e in errors]
    lines.extend('%s: diagnosis incomplete: %s' % (subject, e) for e in errors)
    if len(lines) > MAX_LINES:
        more = len(lines) - MAX_LINES + 1
        lines = lines[:MAX_LINES - 1] + ['%s: %d more causes (see diagnosis.causes)' % (subject, more)]
    for cause in causes:
        cause.pop('detail', None)
        cause.pop('desired', None)

    shown = []
    for e in warnings[:MAX_EVENTS]:
        ref = e.get('involvedObject') or {}
        shown.append({'object': '%s/%s' % (ref.get('kind'), ref.get('name')), 'reason': e.get('reason'),
                      'message': text.clean(e.get('message')), 'count': _event_count(e),
                      'last_seen': times.format_utc(event_time(e))})

    return {
        'kind': kind, 'namespace': namespace, 'name': name,
        'revision': ({k: revision.get(k) for k in ('kind', 'name', 'hash')} if revision else None),
        'desired': desired, 'pods': len(live), 'ready': ready,
        'causes': causes, 'events': shown, 'lines': lines,
        'errors': errors,
    }


# ---- reading ---------------------------------------------------------------------------------

PODS_PATH = '/api/v1/namespaces/%s/pods'
EVENTS_PATH = '/api/v1/namespaces/%s/events'
WARNING_EVENTS = 'type=Warning'


def _error_text(exc):
    if getattr(exc, 'status', None) == 403 and missing_permission(getattr(exc, 'message', '')):
        return forbidden_text(exc.message)  # names the rule to add
    return getattr(exc, 'message', None) or str(exc) or type(exc).__name__


def read_diagnosis(client, workload, history_items=None, now=None):
    """Read what ``diagnose`` needs for ``workload`` (a Workload, as read) and diagnose it.

    ``history_items``: the Deployment's ReplicaSets / the DaemonSet's ControllerRevisions when the
    caller has them (saves a LIST). Never raises for a failed read: ``errors`` says what was missed.
    """
    w = workload
    namespace = w.namespace or 'default'
    ns = path_quote(namespace)
    errors = []

    def read(what, path, **selectors):
        try:
            return client.list(path, **selectors).get('items') or []
        except KubeError as e:
            errors.append('could not list %s: %s' % (what, _error_text(e)))
        return None

    if history_items is None and w.revision_needs_history:
        history_items = read(w.history_kind + 's', w.history_path(namespace), label_selector=w.selector)
    revision = w.rolled_out_revision(history_items)

    pods = []
    selector = w.revision_pod_selector(revision)
    if selector:
        pods = read('pods', PODS_PATH % ns, label_selector=selector) or []
    elif revision is None and w.history_kind and (
            history_items is not None or not w.revision_needs_history):
        errors.append('the revision being rolled out was not found (no %s for the current template yet)'
                      % w.history_kind)
    events = read('events', EVENTS_PATH % ns, field_selector=WARNING_EVENTS) or []
    secrets = client.connection.secrets() if getattr(client, 'connection', None) is not None else ()
    return diagnose(workload, revision, pods, events, now=now, secrets=secrets, errors=errors)

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Pods as the rollout code reads them: a label selector's query string, readiness, back-off, a
StatefulSet pod's ordinal, and the pods a forced rollback replaces."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import revisions


def selector_string(selector):
    """A LabelSelector object ({matchLabels, matchExpressions}) or a plain map -> query string."""
    if not selector:
        return ''
    if 'matchLabels' not in selector and 'matchExpressions' not in selector:
        selector = {'matchLabels': selector}  # ReplicationController: a plain map
    parts = ['%s=%s' % (k, v) for k, v in sorted((selector.get('matchLabels') or {}).items())]
    for expr in selector.get('matchExpressions') or []:
        key, op, values = expr.get('key'), expr.get('operator'), sorted(expr.get('values') or [])
        if op == 'In':
            parts.append('%s in (%s)' % (key, ','.join(values)))
        elif op == 'NotIn':
            parts.append('%s notin (%s)' % (key, ','.join(values)))
        elif op == 'Exists':
            parts.append(key)
        elif op == 'DoesNotExist':
            parts.append('!' + key)
    return ','.join(parts)


# ---- pods (a StatefulSet's forced rollback) ----------------------------------------------------

# The label a StatefulSet (and DaemonSet) controller puts on each pod: the hash of the
# ControllerRevision the pod was created from (defined with the revisions).
POD_REVISION_LABEL = revisions.CONTROLLER_REVISION_HASH_LABEL
# Container waiting reasons of a pod that will not start without being replaced.
BACK_OFF_REASONS = frozenset(['ImagePullBackOff', 'ErrImagePull', 'InvalidImageName', 'CrashLoopBackOff',
                              'CreateContainerConfigError', 'CreateContainerError', 'RunContainerError'])


def ready_condition(pod):
    """The pod's ``Ready`` condition (a dict), or None."""
    for cond in (pod.get('status') or {}).get('conditions') or []:
        if cond.get('type') == 'Ready':
            return cond
    return None


def pod_ready(pod):
    return (ready_condition(pod) or {}).get('status') == 'True'


def pod_backing_off(pod):
    """The waiting reason of the first container in a back-off (or a config error), else None."""
    status = pod.get('status') or {}
    for c in (status.get('initContainerStatuses') or []) + (status.get('containerStatuses') or []):
        reason = ((c.get('state') or {}).get('waiting') or {}).get('reason')
        if reason in BACK_OFF_REASONS:
            return reason
    return None


def pod_ordinal(pod, set_name):
    """The ordinal of a StatefulSet pod ``<set>-<ordinal>``, else None."""
    name = (pod.get('metadata') or {}).get('name') or ''
    prefix = set_name + '-'
    if name.startswith(prefix) and name[len(prefix):].isdigit():
        return int(name[len(prefix):])
    return None


def stuck_pods(pods, owner_uid, set_name, revision_name):
    """The pods a forced rollback replaces, lowest ordinal first (the order in which an OrderedReady
    StatefulSet creates pods, so each replacement can start): controlled by the set, not being
    deleted, from a revision other than ``revision_name``, and not Ready or in a back-off. A pod of
    ``revision_name`` is never one of them, Ready or not."""
    out = []
    for pod in pods:
        meta = pod.get('metadata') or {}
        if meta.get('deletionTimestamp') or not revisions.controlled_by(pod, owner_uid):
            continue
        if (meta.get('labels') or {}).get(POD_REVISION_LABEL) == revision_name:
            continue
        if pod_ready(pod) and not pod_backing_off(pod):
            continue
        ordinal = pod_ordinal(pod, set_name)
        if ordinal is not None:
            out.append((ordinal, pod))
    return [pod for _ordinal, pod in sorted(out, key=lambda item: item[0])]

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Reading where each cluster of a fleet stands, without a write: each workload's release record
(acted on only as the release acts on it: it belongs to the workload as it is, and its seal is on
its release's Lease), whether a run holds that Lease now, the fleet's released mark on it, and
whether the workload would change. ``read_fleet`` reads every cluster at once (one thread each).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError, error_text
from ansible_collections.kubeops.rollout.plugins.module_utils.engine import records
from ansible_collections.kubeops.rollout.plugins.module_utils.engine.rollouts import fan_out
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.patches import UnknownContainer
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import fleet as release_fleet
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import record as release_record
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import (
    targets as release_targets,
)


def _workload(client, t, obj, lease_namespace):
    entry = {'workload': t.label(), 'record': None, 'problem': None, 'live': None, 'released': None,
             'passed': None, 'would_change': False}
    if isinstance(obj, ApiError):
        entry['problem'] = 'not found' if obj.status == 404 else 'cannot be read: %s' % error_text(obj)
        return entry
    w = t.kind(obj)
    try:
        entry['would_change'] = w.image_patch(t.images) is not None
    except UnknownContainer as e:
        entry['problem'] = str(e)
    record, problem = release_record.check(w)
    if problem:
        entry['problem'] = ('carries a %s record that is not acted on: %s; check the workload, then remove '
                            'it: %s' % (release_record.RECORD_ANNOTATION, problem,
                                        release_record.clear_command(w)))
        return entry
    if record is None:
        return entry
    lease = release_record.read_lease(client, lease_namespace, record['id'])
    unsealed = records.unsealed(lease, w.obj, release_record.RECORD_ANNOTATION, release_record.text_of(w.obj))
    if unsealed:
        entry['problem'] = ('carries a record of release %s that is not acted on: %s; check the workload, '
                            'then remove it: %s' % (record['id'], unsealed, release_record.clear_command(w)))
        return entry
    entry['record'] = {k: record.get(k) for k in ('id', 'fleet', 'wave', 'started')}
    entry['live'] = release_record.live_holder(client, lease_namespace, record['id'],
                                               release_record.LEASE_SECONDS)
    entry['released'] = release_fleet.released_mark(lease)
    entry['passed'] = release_fleet.passed_mark(lease)
    return entry


def read_cluster(client, cluster, namespace='default'):
    """The reading of one ``cluster`` ({name, workloads}) through ``client``: {name, error,
    lease_namespace, workloads: [{workload, record, problem, live, released, passed, would_change}]}."""
    try:
        targets = release_targets.build_targets(cluster.get('workloads') or [], namespace)
    except release_targets.PreflightFailed as e:
        return {'name': cluster['name'], 'error': None,
                'workloads': [{'workload': 'workloads', 'problem': p, 'record': None} for p in e.args[0]]}
    read = release_targets.read_targets(client, targets)
    lease_namespace = targets[0].namespace if targets else namespace
    return {'name': cluster['name'], 'error': None, 'lease_namespace': lease_namespace,
            'workloads': [_workload(client, t, read[id(t)], lease_namespace) for t in targets]}


def read_fleet(clusters, client_of, namespace='default'):
    """The readings of every cluster of ``clusters`` at once; ``client_of(cluster)`` builds its client
    (any exception, there or while reading: the cluster is unreachable, with the reason)."""
    def one(cluster):
        return read_cluster(client_of(cluster), cluster, cluster.get('namespace') or namespace)

    results = fan_out([lambda c=c: one(c) for c in clusters], on_error=lambda e: e)
    return [r if isinstance(r, dict) else {'name': c['name'], 'error': error_text(r), 'workloads': []}
            for c, r in zip(clusters, results)]

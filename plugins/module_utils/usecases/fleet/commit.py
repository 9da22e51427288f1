# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The commit point of a fleet release: once every wave passed, and before the finish removes any
record, the Lease of every release of the fleet on every cluster of the run is marked
``kubeops.rollout/fleet-passed`` (``commit_fleet``, one thread per cluster). A fleet stopped after
that point (a controller killed during the finish) is finished by the next run, never put back:
the clusters already finished hold no record to put back from, and putting back only the others
would leave the fleet split between two releases.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

from ansible_collections.kubeops.rollout.plugins.module_utils.common import times
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError, error_text
from ansible_collections.kubeops.rollout.plugins.module_utils.engine import records
from ansible_collections.kubeops.rollout.plugins.module_utils.engine.rollouts import fan_out
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.fleet import read as fleet_read
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import fleet as release_fleet
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import record as release_record

LEASES_PATH = '/apis/coordination.k8s.io/v1/namespaces/%s/leases/%s'
ATTEMPTS = 5


def passed_text(fleet, at):
    """The passed mark of ``fleet`` (its id), made at ``at``."""
    return records.encode({'fleet': fleet, 'at': at})


def releases_of(reading, fleet):
    """The ids of the releases of ``fleet`` whose records ``reading`` (read.py) found, sorted."""
    return sorted({w['record']['id'] for w in reading.get('workloads') or []
                   if w.get('record') and w['record'].get('fleet') == fleet})


def _mark(client, namespace, release, text):
    """Mark the Lease of ``release`` (a replace guarded by its resourceVersion, read again on a
    conflict); True when written, False when already marked or gone."""
    name = records.lease_name(release)
    for _attempt in range(ATTEMPTS):
        lease = release_record.read_lease(client, namespace, release)
        if lease is None or release_fleet.passed_mark(lease):
            return False
        body = copy.deepcopy(lease)
        annotations = dict(body.setdefault('metadata', {}).get('annotations') or {})
        annotations[release_fleet.PASSED_ANNOTATION] = text
        body['metadata']['annotations'] = annotations
        try:
            client.replace(LEASES_PATH % (namespace, name), body)
            return True
        except ApiError as e:
            if not e.is_conflict:
                raise
    raise ApiError(409, 'Conflict', 'Lease %s/%s changed %d times while it was being marked passed'
                   % (namespace, name, ATTEMPTS))


def commit_cluster(client, cluster, fleet, at=None, check_mode=False):
    """Mark every release Lease of ``fleet`` on ``cluster`` passed: {name, error, marked: [release
    ids written], releases: [release ids of the fleet found]}."""
    reading = fleet_read.read_cluster(client, cluster)
    found = releases_of(reading, fleet)
    out = {'name': cluster['name'], 'error': None, 'releases': found, 'marked': []}
    if check_mode:
        return out
    text = passed_text(fleet, at or times.rfc3339_now())
    for release in found:
        if _mark(client, reading['lease_namespace'], release, text):
            out['marked'].append(release)
    return out


def commit_fleet(clusters, client_of, fleet, check_mode=False):
    """``commit_cluster`` on every cluster at once; a cluster that fails says why (``error``)."""
    at = times.rfc3339_now()
    results = fan_out([lambda c=c: commit_cluster(client_of(c), c, fleet, at, check_mode) for c in clusters],
                      on_error=lambda e: e)
    return [r if isinstance(r, dict) else {'name': c['name'], 'error': error_text(r), 'releases': [],
                                           'marked': []}
            for c, r in zip(clusters, results)]


def outcome(results, fleet):
    """(failed, message) of the commit: it failed when a cluster could not be marked (the finish
    must not start then: the fleet can still be put back as a whole)."""
    failed = [r for r in results if r['error']]
    if failed:
        why = '; '.join('%s: %s' % (r['name'], r['error']) for r in failed)
        return True, ('fleet release %s: every wave passed, but %s could not be marked passed (%s); nothing '
                      'was finished: run the fleet again (it goes on from here) or put it back with '
                      'fleet_recover=rollback' % (fleet, ', '.join(r['name'] for r in failed), why))
    marked = sum(len(r['marked']) for r in results)
    return False, 'fleet release %s passed every wave: %d release Lease(s) marked passed on %d cluster(s)' % (
        fleet, marked, len(results))

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A cluster's release as part of a fleet release (the ``fleet`` option: ``{id, wave, keep_records,
finish}``): the plain release, whose records also carry the fleet's ``id`` and the ``wave``.

- ``keep_records``: a release that passed every gate keeps its records (sealed) and marks its Lease
  ``kubeops.rollout/fleet-released`` (the fleet, the wave, the time): the cluster is released,
  waiting for the fleet. ``recover: rollback`` of the same task puts it back from them (the plain
  release's ``put_back`` from the verified records); nothing else changes them.
- ``finish``: no images are written; every record of this fleet on the workloads is removed (guarded
  by its exact text) and its seal dropped, the Lease with the last one: the fleet has passed.

A record of another fleet (or of no fleet) on a workload is refused unless ``recover`` says what to
do with it, as a record of another release is.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.kubeops.rollout.plugins.module_utils.common import times
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import KubeError, error_text
from ansible_collections.kubeops.rollout.plugins.module_utils.common.vocabulary import setting
from ansible_collections.kubeops.rollout.plugins.module_utils.engine import records
from ansible_collections.kubeops.rollout.plugins.module_utils.engine.rollouts import fan_out
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import predict
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import record as release_record
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release.release import Release
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release.targets import (
    UNCHANGED,
    UPGRADED,
)

# On the release's Lease (beside the seals, where the app's editors cannot write): the cluster's
# release passed and waits for its fleet. Not on the records: a Deployment counts any change of its
# annotations as a new generation, which would part a record from the workload it describes.
RELEASED_ANNOTATION = 'kubeops.rollout/fleet-released'
# On the same Lease, written by the fleet (usecases/fleet/commit.py) on every cluster of the run
# before the finish removes any record: the fleet passed every wave (its commit point). A fleet
# stopped after it is finished, never put back: some clusters may have no record left to put back from.
PASSED_ANNOTATION = 'kubeops.rollout/fleet-passed'


def fleet_fields(fleet):
    """The fields a fleet adds to every record: its id and the wave (None when not given)."""
    return {'fleet': fleet['id'], 'wave': fleet.get('wave')}


def released_text(fleet, release, at):
    """The mark a kept release leaves on its Lease."""
    return records.encode({'fleet': fleet['id'], 'wave': fleet.get('wave'), 'release': release, 'at': at})


def released_mark(lease):
    """The released mark on ``lease`` (as read) as a dict, or None (absent, or not a mark)."""
    text = (((lease or {}).get('metadata') or {}).get('annotations') or {}).get(RELEASED_ANNOTATION)
    if text is None:
        return None
    try:
        mark = records.decode(text)
    except records.Malformed:
        return None
    return mark if isinstance(mark.get('fleet'), str) else None


def passed_mark(lease):
    """The fleet's passed mark on ``lease`` (as read) as a dict, or None."""
    text = (((lease or {}).get('metadata') or {}).get('annotations') or {}).get(PASSED_ANNOTATION)
    if text is None:
        return None
    try:
        mark = records.decode(text)
    except records.Malformed:
        return None
    return mark if isinstance(mark.get('fleet'), str) else None


class FleetRelease(Release):
    """The plain release with the fleet option (see the module docstring)."""

    def __init__(self, client, targets, options, **kwargs):
        super(FleetRelease, self).__init__(client, targets, options, **kwargs)
        self.fleet = dict(options.fleet)
        self.record_fields = fleet_fields(self.fleet)
        self.kept = []  # the targets whose records stay, marked released
        self.dropped_lease = False  # the finish removed (check mode: would remove) a Lease left behind

    @property
    def finishing(self):
        return bool(self.fleet.get('finish'))

    def refusal(self, t):
        problem = super(FleetRelease, self).refusal(t)
        if problem or not t.resumed or self.options.recover is not None:
            return problem
        other = t.record.get('fleet')
        if other != self.fleet['id']:
            self.suggest(setting('recover', 'rollback'))
            what = 'fleet release %s' % other if other else 'a release outside any fleet'
            return ('%s carries the record of release %s, of %s (started %s), not of fleet release %s: '
                    'finish that one first (its own fleet run with fleet_recover), or put it back here (%s)'
                    % (t.label(), t.record['id'], what, t.record.get('started'), self.fleet['id'],
                       setting('recover', 'rollback')))
        return None

    def patch_of(self, t):
        if self.finishing:
            return None  # the end of the fleet writes no images: it only removes the records
        return super(FleetRelease, self).patch_of(t)

    def finish(self):
        """After the cluster passed every gate: its records go (the plain release), or with
        ``keep_records`` they stay and the release's Lease is marked released."""
        if not self.fleet.get('keep_records'):
            return super(FleetRelease, self).finish()
        self.kept = [t for t in self.targets if t.written is not None or t.resumed]
        if not self.kept or self.lease is None:
            return None
        try:
            self.lease.annotate(RELEASED_ANNOTATION, released_text(self.fleet, self.id, times.rfc3339_now()))
        except KubeError as e:
            self.warnings.append('release %s passed, but its Lease could not be marked released (%s): the '
                                 'fleet takes this cluster for one whose release was interrupted; '
                                 'fleet_recover decides' % (self.id, error_text(e)))
        return None

    def words(self):
        words = super(FleetRelease, self).words()
        if self.finishing:
            words[UPGRADED] = 'Would finish' if self.options.check_mode else 'Finished (record removed)'
            words[UNCHANGED] = 'No record of the fleet'
        elif self.fleet.get('keep_records') and self.options.recover is None:
            words[UPGRADED] = words[UPGRADED] + ' (kept for the fleet)'
        return words

    def _summary(self, interrupted=False):
        result = super(FleetRelease, self)._summary(interrupted)
        return result._replace(wrote=True) if self.dropped_lease else result

    def _drop_left_lease(self):
        """A finish stopped between the removal of this cluster's records and that of their Lease
        leaves the Lease (marked for this fleet) with no record left to vouch for: it goes now, unless
        a live run holds it."""
        namespace = self._lease_namespace()
        try:
            lease = release_record.read_lease(self.client, namespace, self.id)
            mark = released_mark(lease) or passed_mark(lease)
            if lease is None or not mark or mark['fleet'] != self.fleet['id']:
                return
            if release_record.live_holder(self.client, namespace, self.id, release_record.LEASE_SECONDS):
                return
            meta = lease['metadata']
            if not self.options.check_mode:
                self.client.delete(
                    '/apis/coordination.k8s.io/v1/namespaces/%s/leases/%s' % (namespace, meta['name']),
                    body={'kind': 'DeleteOptions', 'apiVersion': 'v1', 'preconditions': {
                        'uid': meta.get('uid'), 'resourceVersion': meta.get('resourceVersion')}})
            self.dropped_lease = True
            done = 'would be removed' if self.options.check_mode else 'removed'
            self.warnings.append('Lease %s/%s of release %s %s: a finish of fleet release %s that stopped '
                                 'left it, with no record left to vouch for'
                                 % (namespace, meta['name'], self.id, done, self.fleet['id']))
        except KubeError as e:
            self.warnings.append('the Lease of release %s, left by a finish of fleet release %s that '
                                 'stopped, could not be removed (%s): delete it (kubectl delete lease '
                                 '-n %s %s)'
                                 % (self.id, self.fleet['id'], error_text(e), namespace,
                                    records.lease_name(self.id)))

    def _run(self):
        if not self.finishing:
            return super(FleetRelease, self)._run()
        problems = self.preflight()
        if problems:
            return self._refused(problems)
        ours = [t for t in self.targets if t.resumed]
        for t in self.targets:
            t.outcome = UPGRADED if t in ours else UNCHANGED
        for t in ours:  # the record's removal is this run's write
            t.would_change, t.write_sent = self.options.check_mode, not self.options.check_mode
        if not ours:
            self._drop_left_lease()
        if self.options.check_mode or not ours:
            if self.options.check_mode:
                problem = predict.lease_problem(self)
                if problem:
                    return self._refused([problem])
            return self._summary()
        problem = self._acquire()
        if problem:
            return self._refused([problem])
        fan_out([lambda t=t: self._remove_record(t) for t in ours], on_error=lambda e: None)
        return self._summary()

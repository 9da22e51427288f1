# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The lease of a rolling update: a ``coordination.k8s.io/v1`` Lease named after the RC, which lets
one run at a time drive its update (engine/lease.py), with the rolling update's own messages."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.kubeops.rollout.plugins.module_utils.common.vocabulary import setting
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import UpdateError
from ansible_collections.kubeops.rollout.plugins.module_utils.engine import lease as base

LEASE_PREFIX = 'rolling-update-rc-'


def lease_name(rc_name):
    """The Lease that guards updates of RC ``rc_name`` (a DNS subdomain of at most 253 chars)."""
    return base.lease_name(LEASE_PREFIX, rc_name)


class UpdateLease(base.Lease):
    """The Lease of RC ``rc_name``'s update; refusals and a lost lease are ``UpdateError``s."""

    def __init__(self, api, namespace, rc_name, duration, clock=time.time, sleep=time.sleep, identity=None):
        super(UpdateLease, self).__init__(api, namespace, lease_name(rc_name),
                                          'the update of ReplicationController "%s"' % rc_name, duration,
                                          clock=clock, sleep=sleep, identity=identity)
        self.rc_name = rc_name

    def held_message(self, lease):
        return ('another run is updating ReplicationController "%s": %s. Wait for it to finish (or set '
                '%s), or for its lease to expire if it died'
                % (self.rc_name, self.describe(lease), setting('wait_for_lease', True)))

    def gave_up_message(self, lease, timeout):
        return ('gave up after %ss waiting for another run updating ReplicationController "%s": %s. Run the '
                'task again later' % (timeout, self.rc_name, self.describe(lease)))

    def acquire(self, wait, timeout):
        try:
            return super(UpdateLease, self).acquire(wait, timeout)
        except base.LeaseHeld as e:
            raise UpdateError(str(e), next_step='wait')

    def check(self):
        try:
            super(UpdateLease, self).check()
        except base.LeaseLost as e:
            raise UpdateError(str(e))

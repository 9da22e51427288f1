# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""``ControllerWatch``: the ReplicationControllers of one namespace, kept current by one watch."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError
from ansible_collections.kubeops.rollout.plugins.module_utils.engine.watch import WATCH_CHUNK_SECONDS
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.objects import name_of


class ControllerWatch:
    """The RCs of one namespace, kept current by a single WATCH (re-opened when the server ends it,
    listed again after 410 Gone), so waits for replicas and pods cost no polling."""

    def __init__(self, api, path, clock=time.time):
        self.api = api
        self.path = path
        self.clock = clock
        self.objs = {}
        self.rv = None
        self.events = None

    def start(self):
        listed = self.api.list(self.path)
        self.objs = {name_of(rc): rc for rc in listed.get('items') or []}
        self.rv = (listed.get('metadata') or {}).get('resourceVersion')
        self.events = None
        return self

    def get(self, name):
        return self.objs.get(name)

    def offer(self, obj):
        """A write's answer: keep it unless the watch already showed something newer."""
        name = name_of(obj)
        known = self.objs.get(name)
        if known is None or _newer_or_same(obj, known):
            self.objs[name] = obj

    def wait(self, done, deadline):
        """Apply events until ``done()`` or ``deadline`` (local clock). Returns ``done()``."""
        while not done():
            remaining = deadline - self.clock()
            if remaining <= 0:
                return False
            if self.events is None:
                self.events = iter(self.api.watch(self.path, resource_version=self.rv,
                                                  timeout_seconds=min(WATCH_CHUNK_SECONDS,
                                                                      int(remaining + 0.999))))
            try:
                event_type, obj = next(self.events)
            except StopIteration:
                self.events = None
                continue
            except ApiError as e:
                if e.status != 410:
                    raise
                self.start()
                continue
            self.rv = (obj.get('metadata') or {}).get('resourceVersion') or self.rv
            if event_type == 'DELETED':
                self.objs.pop(name_of(obj), None)
            elif event_type in ('ADDED', 'MODIFIED'):
                self.offer(obj)
        return True


def _newer_or_same(obj, known):
    try:
        return int(obj['metadata']['resourceVersion']) >= int(known['metadata']['resourceVersion'])
    except (KeyError, TypeError, ValueError):
        return True

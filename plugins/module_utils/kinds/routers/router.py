# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The traffic router interface: what a traffic step (usecases/traffic/step.py) and a traffic canary ask
of the object that splits the requests between the stable and the canary Service. One router, one
file in this folder, one line in ``table.ROUTERS``; the step's logic (the endpoints a share needs, the
guarded write decided again after a conflict, the read back, the wait for the router's verdict by
watch, check mode's dry run and diff) is written once, over this interface.

Pure: no request is made by a router; the step reads and writes.

A router answers, for a route object as read (raw JSON):

- ``path`` / ``collection`` / ``label``: where the object is, and how messages name it;
- ``managed(route, ...)``: what it manages in it (for an HTTPRoute, the rules holding both
  Services, or the rule named), or RouteProblem naming what to add or change;
- ``weights(managed)``: the (stable, canary) weights each managed part holds now;
- ``plan(route, managed, ...)``: the JSON patch that sets the canary's share (and the header route),
  guarded by what was read: the object's resourceVersion and each managed part's identity, so that a
  concurrent edit fails the patch (a conflict, decided again from a fresh read) and is never written
  over; [] when it is as asked;
- ``written(route, managed, ...)``: why the object (the write's answer, or read back) does not carry
  what was asked, or None;
- ``header_present(route, header_route)``: whether the header route is there;
- ``verdicts(route)``: per parent (gateway, router), None when it accepted the object at its
  generation, 'pending' while it has not judged it, else the problem it reports;
- ``view(route, managed, ...)``: what diff mode shows;
- ``shares(route, managed, ..., percent)``: per managed part, the canary's weight and the total weight
  once the pair carries ``percent`` (other backends of a part take their share too).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class RouteProblem(Exception):
    """The route cannot take the change asked (a message naming the route and what to do)."""


class Router:
    """The interface (see the module's text); every method is a router's own."""

    kind = None

    def path(self, namespace, name):
        raise NotImplementedError

    def collection(self, namespace):
        raise NotImplementedError

    def label(self, namespace, name):
        return '%s %s/%s' % (self.kind, namespace, name)

    def managed(self, route, rule, stable, canary, header_route=None):
        raise NotImplementedError

    def weights(self, route, part, stable, canary):
        raise NotImplementedError

    def plan(self, route, managed, stable, canary, percent, header_route=None, header_present=False):
        raise NotImplementedError

    def written(self, route, managed, stable, canary, percent):
        raise NotImplementedError

    def header_present(self, route, header_route):
        raise NotImplementedError

    def verdicts(self, route):
        raise NotImplementedError

    def view(self, route, managed, stable, canary):
        raise NotImplementedError

    def shares(self, route, managed, stable, canary, percent):
        """Per managed part, (the canary's weight, the total weight) once the pair carries ``percent``."""
        raise NotImplementedError

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

Where the ``...`` above is the pair ``stable, canary``: the keys ``pair(options)`` gives (the two
Services' names for every router but a subset-level VirtualService, whose keys name its subsets).

And, for the task's options (``options``: the traffic option's keys ``route``, ``rule``,
``stable_service``, ``canary_service``, ``header_route``, ``destination_rule``; absent ones None):

- ``settle_seconds``: the seconds a step waits after an accepted write, where the router's data plane
  applies a change later than its API says (an OpenShift router's reload);
- ``name``: the option's value (``traffic.router``), ``judge``: what judges the route in messages
  ("gateway", "mesh", "router"), ``verdict_required``: whether a route without any verdict is one no
  judge serves (False: nothing to wait for, as for a VirtualService, which has no acceptance
  condition by default);
- ``check(options)``: the problems of the router's own options, before any request;
- ``related(namespace, options)``: [(path, label)] of the other objects a step reads (a DestinationRule);
- ``tracks(namespace, options, related)``: per track (``stable``, ``canary``), the Service and the
  extra pod labels (None: all its pods) whose ready endpoints carry it: the preflight checks each
  selects its track's pods only, the step counts their ready endpoints before and after a write.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class RouteProblem(Exception):
    """The route cannot take the change asked (a message naming the route and what to do)."""


class Track:
    """Where a track's requests go: the Service ``service`` and, within it, the pods carrying
    ``labels`` (None: all its pods); ``option`` names the option that chose them."""

    def __init__(self, service, labels=None, option=None):
        self.service = service
        self.labels = labels
        self.option = option

    def __eq__(self, other):
        return isinstance(other, Track) and (self.service, self.labels, self.option) == (
            other.service, other.labels, other.option)

    def __repr__(self):
        return 'Track(%r, %r, %r)' % (self.service, self.labels, self.option)

    def text(self, namespace):
        where = 'Service %s/%s' % (namespace, self.service)
        if self.labels:
            where += ' (pods %s)' % ','.join('%s=%s' % kv for kv in sorted(self.labels.items()))
        return where


# The options only some routers take: option -> the routers taking it.
OWN_OPTIONS = {'destination_rule': ('virtualservice',)}


class Router:
    """The interface (see the module's text); every method is a router's own."""

    kind = None
    name = None
    judge = 'gateway'
    verdict_required = True
    accepted_text = 'accepted'  # what a judge's acceptance of a generation is called
    # Seconds the judge's data plane may take to serve a change it accepted, which the API does not
    # show: a step waits them after its write before it counts as taken (the traffic option's
    # settle_seconds overrides it).
    settle_seconds = 0
    # What to do when the route is not found.
    create_hint = ('create the route (with the canary Service as a backendRef of weight 0) before shifting '
                   'traffic')

    def check(self, options):
        """Problems with the options as this router reads them (none by default but the options only
        other routers take, and a canary Service that must be given)."""
        problems = ['traffic option %s is for the router %s, not %s' % (option, ' or '.join(names), self.name)
                    for option, names in sorted(OWN_OPTIONS.items())
                    if options.get(option) is not None and self.name not in names]
        if not options.get('canary_service'):
            problems.append('canary_service is required with the router %s' % self.name)
        elif options.get('canary_service') == options.get('stable_service'):
            problems.append('stable_service and canary_service name the same Service (%s): give two Services'
                            % options['stable_service'])
        return problems

    def pair(self, options):
        """The keys of the two destinations in this router's methods: the Services' names."""
        return options['stable_service'], options['canary_service']

    def related(self, namespace, options):
        return []

    def tracks(self, namespace, options, related):
        return {'stable': Track(options['stable_service'], None, 'stable_service'),
                'canary': Track(options['canary_service'], None, 'canary_service')}

    def no_verdict_text(self, label):
        """Why a route without any verdict cannot take a step (``verdict_required``)."""
        return '%s has no parentRefs: no %s serves it' % (label, self.judge)

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

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The writes and reads of a blue/green switch: a Service's selector with its record (one guarded
JSON patch), what its EndpointSlices route to and the wait until they route to exactly the chosen
color's Ready pods, an HPA's scale target, a color's replicas. Every write is guarded by what was
read before it, safe to repeat (a lost answer is recognised by its record), and sent with
``dryRun=All`` in check mode."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.kubeops.rollout.plugins.module_utils.api.client import retry_on_conflict
from ansible_collections.kubeops.rollout.plugins.module_utils.api.shared_lists import SharedLists
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError, KubeError
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import patches
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.pods import selector_string
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.services import (
    ENDPOINTSLICES,
    PODS,
    SERVICE_NAME_LABEL,
    HorizontalPodAutoscaler,
    Service,
    colored_selector,
    replicas_patch,
    routed,
    routes_exactly,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workloads import Deployment
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen import record as record_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.bluegreen import apps as apps_mod


class ChangedElsewhere(Exception):
    """An object was changed by someone else since it was read: not written over."""


class Stop(Exception):
    """The run stops here: the apps carry their outcome and cause."""


class Traffic:
    """The switch's requests for one run (``runner``, release ``release``) with ``options``."""

    def __init__(
        self,
        client,
        options,
        release,
        runner,
        seal,
        clock=time.monotonic,
        sleep=time.sleep,
        now=time.time,
        stopped=None,
        note=None,
    ):
        self.client = client
        self.options = options
        self.release = release
        self.runner = runner
        self.seal = seal  # seal(obj, annotation, *texts): before a record is written (engine/records.py)
        self.clock = clock
        self.sleep = sleep
        self.now = now
        self.stopped = stopped or (lambda: False)
        self.note = note or (lambda line: None)

    @property
    def label(self):
        return self.options.color_label

    def _patch(self, path, body):
        return self.client.patch(path, body, patches.JSON_PATCH, dry_run=self.options.check_mode, retry=True)

    # -- the Service
    def switch(self, app, to_color, phase, hpa=None, selector=None):
        """Point ``app``'s live Service at ``to_color`` (or at ``selector``) with a record in
        ``phase``, in one guarded JSON patch. A lost answer or a conflict is read again: the Service
        carrying this run's record is the write applied; one changed otherwise is ChangedElsewhere."""
        read = app.service
        wanted = selector or colored_selector(read.selector, self.label, to_color)
        text = record_mod.record_text(
            self.release,
            read.color(self.label) or to_color,
            to_color,
            read.selector,
            phase,
            self.options.scale_down_delay,
            self.runner,
            hpa,
            now=self.now(),
            from_images=app.images_of(read.color(self.label)) if read.color(self.label) != to_color else None,
        )
        # Sealed with the record it becomes once verified (the same, marked switched): one write.
        after = [record_mod.with_phase(text, record_mod.SWITCHED)] if phase == record_mod.SWITCHING else []
        self.seal(read.obj, record_mod.ANNOTATION, *(after + [text]))

        def attempt(conflicted):
            current = Service(self.client.get(read.path)) if conflicted else read
            if conflicted and self._ours(current, to_color, phase):
                return current.obj
            if current.selector != read.selector or current.annotations.get(
                record_mod.ANNOTATION
            ) != read.annotations.get(record_mod.ANNOTATION):
                raise ChangedElsewhere(
                    '%s was changed by someone else since it was read (selector %s, now %s): '
                    'not switched over that change; run the task again to decide from what '
                    'it is now' % (app.label(), _text(read.selector), _text(current.selector))
                )
            return self._patch(read.path, current.selector_patch(wanted, record_mod.ANNOTATION, text))

        written = retry_on_conflict(attempt)
        app.diffs.append(('selector', read.selector, wanted))
        app.step('%s selector %s -> %s' % (app.label(), _text(read.selector), _text(wanted)))
        app.changed = True
        app.service = Service(written)
        return written

    def _ours(self, service, to_color, phase):
        record, _problem = record_mod.check(service, self.label)
        return (
            record is not None
            and record.get('runner') == self.runner
            and record['to'] == to_color
            and record['phase'] == phase
        )

    def mark(self, app, phase):
        """The record of ``app``'s switch in ``phase`` (guarded by its text as written)."""
        service = app.service
        text = service.annotations.get(record_mod.ANNOTATION)
        new = record_mod.with_phase(text, phase)
        self.seal(service.obj, record_mod.ANNOTATION, new)

        def attempt(conflicted):
            current = Service(self.client.get(service.path)) if conflicted else service
            if current.annotations.get(record_mod.ANNOTATION) == new:
                return current.obj
            return self._patch(service.path, current.annotation_patch(record_mod.ANNOTATION, new))

        app.service = Service(retry_on_conflict(attempt))

    # -- the preview Service
    def select_preview(self, app, wanted):
        """``app``'s preview Service selecting ``wanted`` (a JSON patch guarded by its selector as read;
        a lost answer is recognised by the selector in place); its selector before."""
        read = app.preview

        def attempt(conflicted):
            current = Service(self.client.get(read.path)) if conflicted else read
            if conflicted and current.selector == wanted:
                return current.obj
            if current.selector != read.selector:
                raise ChangedElsewhere('%s was changed by someone else since it was read (selector %s, now '
                                       '%s)' % (read.label(), _text(read.selector), _text(current.selector)))
            body = [{'op': 'test', 'path': '/spec/selector', 'value': current.spec.get('selector')},
                    {'op': 'add', 'path': '/spec/selector', 'value': wanted}]
            return self._patch(read.path, body)

        app.preview = Service(retry_on_conflict(attempt))
        app.changed = True
        app.diffs.append(('preview selector', read.selector, wanted))
        app.step('%s selector %s -> %s' % (read.label(), _text(read.selector), _text(wanted)))
        return read.selector

    def put_back_preview(self, app, warnings):
        """After its preview was put back: ``app``'s preview Service selects what it did before the run
        (unless someone changed it since: then left, with a warning in ``warnings``)."""
        try:
            self.select_preview(app, app.preview_before)
        except (ApiError, ChangedElsewhere) as e:
            warnings.append('%s was not put back to select %s: %s' % (
                app.preview.label(), _text(app.preview_before), e))

    # -- what it routes to
    def routes(self, service, color, at_least=0, reader=None):
        """What ``service``'s EndpointSlices route to, judged against ``color``'s pods (read through
        ``reader``, a SharedLists kept current by watches, when given)."""
        client = reader or self.client
        selector = colored_selector(service.selector, self.label, color)
        try:
            slices = client.list(
                ENDPOINTSLICES % service.namespace,
                label_selector='%s=%s' % (SERVICE_NAME_LABEL, service.name),
            )
        except ApiError as e:
            if e.status != 404:
                raise
            raise ChangedElsewhere(
                'the API server does not serve discovery.k8s.io/v1 EndpointSlices (Kubernetes '
                '1.21 and later do): the switch cannot be verified, nothing is switched'
            )
        slices = slices.get('items') or []
        pods = client.list(PODS % service.namespace, label_selector=selector_string(selector))
        pods = pods.get('items') or []
        seen = routed(slices, pods, selector, service)
        seen['exact'] = routes_exactly(seen, at_least)
        by_name = {(p.get('metadata') or {}).get('name'): p for p in pods}
        seen['images'] = {name: {c.get('name'): c.get('image') for c in (by_name[name].get('spec') or {})
                                 .get('containers') or []} for name in seen['ready'] if name in by_name}
        return seen

    def await_routes(self, app, color, at_least, timeout, service=None):
        """Wait until the live Service's (or ``service``'s) EndpointSlices route to exactly
        ``color``'s Ready pods, at least ``at_least`` of them. Returns (routes seen last, None) or
        (routes, why not): the timeout, or ``fail_fast_seconds`` with fewer Ready pods than needed
        (they are not coming). The namespace's EndpointSlices and pods are LISTed once and kept
        current by a WATCH each: a wait costs the same few requests however long it lasts."""
        start = self.clock()
        fail_fast = self.options.gates.fail_fast_seconds
        short_since = None
        reader = SharedLists.waiting(self.client, clock=self.clock)
        try:
            while True:
                seen = self.routes(service or app.service, color, at_least, reader=reader)
                if seen['exact']:
                    seen['seconds'] = round(self.clock() - start, 3)
                    return seen, None
                now = self.clock()
                # Too few Ready pods, or pods without a port the Service names (a named targetPort
                # they lack): neither comes by waiting.
                short = len(seen['expected']) < at_least or seen['missing_ports']
                short_since = (now if short_since is None else short_since) if short else None
                if fail_fast and short_since is not None and now - short_since >= fail_fast:
                    if seen['missing_ports']:
                        return seen, ('its %s pods do not serve the Service\'s port %s (a named targetPort '
                                      'their containers lack) for %d s (fail_fast_seconds)'
                                      % (color, ', '.join(seen['missing_ports']), fail_fast))
                    return seen, ('%d Ready %s pods, %d needed, for %d s (fail_fast_seconds)'
                                  % (len(seen['expected']), color, at_least, fail_fast))
                if now - start >= timeout:
                    return seen, ('its EndpointSlices did not route to exactly the %s pods within %d s (%s)'
                                  % (color, timeout, describe_routes(seen)))
                if self.stopped():
                    return seen, 'stopped'
                due = start + timeout
                if fail_fast and short_since is not None:
                    due = min(due, short_since + fail_fast)
                reader.wait_until(due)
        finally:
            reader.close()

    # -- the HPA
    def retarget(self, app, from_name, to_name):
        """Point ``app``'s HPA at ``to_name`` (guarded by its target as read); its result."""
        path = HorizontalPodAutoscaler.object_path(app.namespace, app.hpa_name)

        def attempt(conflicted):
            hpa = HorizontalPodAutoscaler(self.client.get(path)) if conflicted else app.hpa
            if hpa.target == to_name:
                return hpa.obj
            if hpa.target != from_name:
                raise ChangedElsewhere(
                    'HPA %s/%s scales %s, not %s: someone else retargeted it; not changed'
                    % (app.namespace, app.hpa_name, hpa.target, from_name)
                )
            return self._patch(path, hpa.retarget_patch(to_name))

        before = app.hpa.target
        app.hpa = HorizontalPodAutoscaler(retry_on_conflict(attempt))
        if before != to_name:
            app.changed = True
            app.diffs.append(('hpa', {'scaleTargetRef': before}, {'scaleTargetRef': to_name}))
            app.step('HPA %s/%s scaleTargetRef %s -> %s' % (app.namespace, app.hpa_name, before, to_name))
        app.hpa_result = dict(app.hpa.describe(), target_before=before)

    # -- replicas
    def scale(self, app, color, replicas):
        """``color``'s Deployment scaled to ``replicas`` (guarded by its generation as read)."""
        deployment = app.deployment(color)

        def attempt(conflicted):
            current = Deployment(self.client.get(deployment.path)) if conflicted else deployment
            if current.replicas == replicas:
                return current.obj
            if conflicted and current.metadata.get('generation') != deployment.metadata.get('generation'):
                raise ChangedElsewhere(
                    '%s was changed by someone else since it was read: not scaled' % deployment.label()
                )
            return self._patch(current.path, replicas_patch(current.obj, replicas))

        written = retry_on_conflict(attempt)
        if deployment.replicas != replicas:
            app.changed = True
            app.diffs.append(
                ('replicas %s' % color, {deployment.name: deployment.replicas}, {deployment.name: replicas})
            )
            app.step('%s replicas %s -> %s' % (deployment.label(), deployment.replicas, replicas))
        app.deployments[color] = Deployment(written)
        return written


def check_switch(run, a):
    """Check mode's switch of ``a`` (``run``: the BlueGreen): "is it safe to switch now?" answered as
    the real run answers it before its switch. What no wait changes (a new color whose pods cannot get
    past a crash loop or an image pull, ...) refuses it as the real run refuses it; what only the real
    run's wait can tell (pods still starting, endpoints to come) is a warning. Else the switch's
    writes are sent as dry runs."""
    reasons = []
    if getattr(a, 'preview_written', False) or a.changed:
        reasons.append('the preview is not prepared yet: a real run prepares it first, then checks again')
        a.waiting.append(reasons[-1])
    else:
        try:
            reasons.extend(run.unsafe(a, a.idle))
        except (KubeError, ChangedElsewhere) as e:
            reasons.append(apps_mod.words(e))
    a.safe = {'safe': not reasons, 'reasons': reasons}
    final = [r for r in reasons if r not in a.waiting]
    if final:
        a.outcome, a.cause = apps_mod.REFUSED, 'not switched: ' + '; '.join(final)
        return
    if not a.changed and reasons:
        run.warnings.append('%s: a real run would switch only once %s; it waits up to %d s for that, then '
                            'refuses the switch' % (a.label(), '; '.join(reasons), run.options.timeout))
    new = a.idle
    run.traffic.switch(a, new, record_mod.SWITCHING, hpa=run.hpa_record(a, new))
    if a.hpa is not None:
        run.traffic.retarget(a, a.hpa.target, a.names[new])
    a.active, a.outcome = new, apps_mod.SWITCHED


def describe_routes(seen):
    """The routes of a Service in a few words."""
    parts = ['%d ready' % len(seen['ready'])]
    for key, words in (
        ('missing', 'Ready pods without an endpoint'),
        ('unexpected', 'other pods routed'),
        ('not_ready', 'not ready'),
        ('terminating', 'terminating'),
        ('missing_ports', 'ports not served'),
    ):
        if seen.get(key):
            parts.append(
                '%s: %s' % (words, ', '.join(seen[key][:5]) + (' ...' if len(seen[key]) > 5 else ''))
            )
    return '; '.join(parts)


def _text(selector):
    return ','.join('%s=%s' % kv for kv in sorted((selector or {}).items())) or '{}'

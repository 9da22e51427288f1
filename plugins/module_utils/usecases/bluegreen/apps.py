# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What a blue/green task is about: its apps (read from the module's ``apps`` entries, then from the
cluster: the live and preview Services, the two Deployments, the HPA), its options, the outcome
words and the result each app returns."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.kubeops.rollout.plugins.module_utils.common.vocabulary import setting
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import (
    ApiError,
    KubeError,
    error_text,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.common.fields import REQUIRED, Fields
from ansible_collections.kubeops.rollout.plugins.module_utils.common.validation import (
    image_problems,
    listed_twice,
    subdomain_problem,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.wait_options import (
    DEFAULT_TIMEOUT,
    GateOptions,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import revisions
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.services import (
    COLORS,
    HorizontalPodAutoscaler,
    Service,
    other_color,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workloads import Deployment

STATES = ('prepared', 'switched', 'finished', 'rolled_back', 'adopted')
DEFAULT_COLOR_LABEL = 'kubeops.rollout/color'

# Outcomes, one per app.
PREPARED, SWITCHED, SCALED_DOWN, ADOPTED = 'prepared', 'switched', 'scaled_down', 'adopted'
UNCHANGED, ROLLED_BACK, ROLLBACK_FAILED, REFUSED = 'unchanged', 'rolled_back', 'rollback_failed', 'refused'
OUTCOMES = (PREPARED, SWITCHED, SCALED_DOWN, ADOPTED, UNCHANGED, ROLLED_BACK, ROLLBACK_FAILED, REFUSED)


class BlueGreenOptions(Fields):
    FIELDS = (
        ('state', REQUIRED),
        ('color_label', DEFAULT_COLOR_LABEL),
        ('preview_replicas', None),
        ('scale_down_delay', None),  # None: record.DEFAULT_SCALE_DOWN_DELAY at a switch
        ('atomic', True),
        ('timeout', DEFAULT_TIMEOUT),
        ('gates', None),  # GateOptions (None: the defaults)
        ('check_mode', False),
        ('release_id', None),
        ('recover', None),
        ('change_cause', None),
        ('lease_seconds', None),
    )

    def __init__(self, *args, **kwargs):
        super(BlueGreenOptions, self).__init__(*args, **kwargs)
        self.gates = self.gates or GateOptions()


class BadApps(Exception):
    """The ``apps`` entries cannot be read (args[0]: the problems, each naming its entry)."""


class App:
    """One app: what was asked, what was read, what was done and how it ended."""

    def __init__(self, namespace, service_name, preview_name, deployments, images, hpa_name):
        self.namespace = namespace
        self.service_name = service_name
        self.preview_name = preview_name
        self.names = dict(deployments)  # color -> Deployment name
        self.images = dict(images or {})
        self.hpa_name = hpa_name
        # As read.
        self.service = None  # services.Service (the live one)
        self.preview = None  # services.Service, or None
        self.deployments = {}  # color -> kinds.workloads.Deployment (a missing one is absent)
        self.hpa = None  # services.HorizontalPodAutoscaler, or None
        self.record = None  # the blue/green record on the live Service (bluegreen/record.py)
        self.preview_before = None  # the preview Service's selector before this run changed it
        self.active_before = None
        self.active = None
        # What was done.
        self.outcome = None
        self.cause = None
        self.changed = False
        self.switched = False  # this run switched its live Service
        self.resumed = False  # this run verifies a switch an earlier run made
        self.endpoints = None
        self.scale_down_at = None
        self.instant = None
        self.safe = None  # check mode: {safe, reasons}
        self.waiting = []  # the reasons not to switch now that a real run's wait may clear
        self.detail = None  # what an outcome without a cause means (the images a switch back left out)
        self.hpa_result = None
        self.analysis = None  # the analysis as it stood when the last gate that judged the app ended
        self.steps = []  # what was (or, in check mode, would be) written, in order
        self.diffs = []  # (header, before, after) for --diff

    def label(self):
        return 'Service %s/%s' % (self.namespace, self.service_name)

    @property
    def idle(self):
        return other_color(self.active) if self.active else None

    def deployment(self, color):
        return self.deployments.get(color)

    def images_of(self, color):
        """The ``color`` Deployment's images by container ({} when it is not read)."""
        d = self.deployment(color)
        return dict(revisions.container_images(d.template)[0]) if d is not None else {}

    def runs_images(self, color):
        """Whether the ``color`` Deployment's template runs every image asked."""
        d = self.deployment(color)
        if d is None or not self.images:
            return False
        have = revisions.container_images(d.template)[0]
        if '*' in self.images:
            return all(v == self.images['*'] for v in have.values())
        return all(have.get(k) == v for k, v in self.images.items())

    def step(self, text):
        self.steps.append(text)

    def entry(self):
        out = {
            'service': self.service_name,
            'preview_service': self.preview_name,
            'namespace': self.namespace,
            'outcome': self.outcome,
            'cause': self.cause,
            'changed': self.changed,
            'active_before': self.active_before,
            'active': self.active,
            'selector_diff': None,
            'endpoints': self.endpoints,
            'scale_down_at': self.scale_down_at,
            'hpa': self.hpa_result,
            'steps': list(self.steps),
            'deployments': {c: self.names.get(c) for c in COLORS},
        }
        if self.instant is not None:
            out['instant'] = self.instant
        if self.safe is not None:
            out['safe_to_switch'] = self.safe
        if self.analysis is not None:
            out['analysis'] = self.analysis
        for header, before, after in self.diffs:
            if header == 'selector':
                out['selector_diff'] = {'before': before, 'after': after}
        return out


def build_apps(entries, namespace, state):
    """Apps from the module's ``apps`` entries; raises BadApps listing every entry that cannot be
    read (a name the API server would refuse, the two colors with one Deployment, images missing)."""
    apps, problems = [], []
    for i, entry in enumerate(entries):
        where = 'apps[%d] (%s)' % (i, entry.get('service') or '?')
        deployments = entry.get('deployments') or {}
        wrong = []
        for key in ('service', 'preview_service', 'hpa'):
            value = entry.get(key)
            if value is not None and subdomain_problem(value):
                wrong.append('%s %s' % (key, subdomain_problem(value)))
        if sorted(deployments) != sorted(COLORS) or not all(deployments.values()):
            wrong.append('deployments must name both colors: {blue: NAME, green: NAME}')
        elif deployments['blue'] == deployments['green']:
            wrong.append('deployments.blue and deployments.green name the same Deployment')
        else:
            wrong.extend(
                'deployments.%s %s' % (c, subdomain_problem(deployments[c]))
                for c in COLORS
                if subdomain_problem(deployments[c])
            )
        images = entry.get('images') or {}
        if state in ('prepared', 'switched') and not images:
            wrong.append('images is empty: state=%s needs the new image of each container' % state)
        wrong.extend(image_problems(images))
        if entry.get('preview_service') and entry.get('preview_service') == entry.get('service'):
            wrong.append('preview_service is the live Service: the preview needs a Service of its own')
        if wrong:
            problems.append('%s: %s' % (where, '; '.join(wrong)))
            continue
        apps.append(
            App(
                namespace,
                entry['service'],
                entry.get('preview_service'),
                deployments,
                images,
                entry.get('hpa'),
            )
        )
    problems.extend(listed_twice(apps))
    if problems:
        raise BadApps(problems)
    return apps


def read_app(client, app, label, adopting=False):
    """Read ``app``'s objects; a list of problems (empty: it can be acted on)."""
    problems = []

    def get(path, what, required=True):
        try:
            return client.get(path)
        except ApiError as e:
            if e.status == 404:
                if required:
                    problems.append('%s: %s not found' % (app.label(), what))
                return None
            problems.append('%s: %s could not be read: %s' % (app.label(), what, error_text(e)))
            return None

    obj = get(Service.object_path(app.namespace, app.service_name), 'the Service')
    app.service = Service(obj) if obj else None
    if app.preview_name:
        obj = get(
            Service.object_path(app.namespace, app.preview_name), 'the preview Service %s' % app.preview_name
        )
        app.preview = Service(obj) if obj else None
    for color in COLORS:
        obj = get(
            Deployment.object_path(app.namespace, app.names[color]),
            'Deployment %s (deployments.%s)' % (app.names[color], color),
            required=not adopting,
        )
        if obj is not None:
            app.deployments[color] = Deployment(obj)
    if app.hpa_name:
        obj = get(HorizontalPodAutoscaler.object_path(app.namespace, app.hpa_name), 'HPA %s' % app.hpa_name)
        app.hpa = HorizontalPodAutoscaler(obj) if obj else None
    if app.service is not None:
        app.active_before = app.active = app.service.color(label)
    for color, d in app.deployments.items():
        labels = (d.template.get('metadata') or {}).get('labels') or {}
        if labels.get(label) not in (None, color):
            problems.append(
                '%s: deployments.%s names %s, whose pods are labelled %s=%s: the colors are swapped '
                'or the Deployment belongs to another app'
                % (app.label(), color, d.label(), label, labels.get(label))
            )
    if app.hpa is not None and app.hpa.target not in [app.names[c] for c in COLORS]:
        problems.append(
            '%s: HPA %s scales %s %s, neither of the app\'s Deployments'
            % (app.label(), app.hpa_name, app.hpa.target_kind, app.hpa.target)
        )
    return problems


def judged(apps, analysis, gate):
    """After a gate (``gate``: ``preview`` or ``live``) over ``apps``: each app's ``analysis`` is what the
    checks (``analysis``, an AnalysisGate or None) measured so far, with the gate."""
    if analysis is None or not analysis.measurements:
        return
    for a in apps:
        a.analysis = dict(analysis.result(), gate=gate)


def result_fields(apps, lines):
    """The module's result: one entry per app, the summary lines, the services by outcome."""
    out = {'apps': [a.entry() for a in apps], 'summary': list(lines)}
    for outcome in OUTCOMES:
        out[outcome] = [a.label() for a in apps if a.outcome == outcome]
    return out


WORDS = {
    PREPARED: 'Preview ready',
    SWITCHED: 'Switched',
    SCALED_DOWN: 'Old color scaled down',
    ADOPTED: 'Adopted',
    UNCHANGED: 'Unchanged',
    ROLLED_BACK: 'Switched back',
    ROLLBACK_FAILED: 'SWITCH BACK FAILED',
    REFUSED: 'Refused',
}
CHECK_WORDS = dict(
    WORDS,
    **{
        PREPARED: 'Would prepare',
        SWITCHED: 'Would switch',
        SCALED_DOWN: 'Would scale down',
        ADOPTED: 'Would adopt',
        ROLLED_BACK: 'Would switch back',
    },
)


class BlueGreenResult:
    """How a blue/green run ended: its apps, whether it failed, the message and lines, the warnings;
    ``changed``: something was written (or, in check mode, would be)."""

    def __init__(self, run):
        self.apps = run.apps
        self.warnings = run.warnings
        self.check_mode = run.options.check_mode
        self.interrupted = run.interrupted
        if self.interrupted:
            for a in self.apps:
                if a.outcome is None:
                    a.outcome, a.cause = (
                        (SWITCHED if a.switched else UNCHANGED),
                        'interrupted before it was judged',
                    )
        self.failed = self.interrupted or any(a.cause for a in self.apps)
        self.changed = any(a.changed for a in self.apps)
        # The one step a refusal or an interruption names (usecases/release/targets.py: RERUN, ...).
        self.next_step = run.next_step if self.failed else None
        words = CHECK_WORDS if self.check_mode else WORDS
        if run.options.state == 'prepared' and not self.check_mode:
            words = dict(words, **{ROLLED_BACK: 'Preview not ready (put back)'})  # nothing was switched
        lines = []
        for a in self.apps:
            moved = (
                ' (%s -> %s)' % (a.active_before, a.active)
                if a.active != a.active_before
                else (' (live: %s)' % a.active if a.active else '')
            )
            said = a.cause or a.detail
            lines.append('%s: %s%s%s' % (words.get(a.outcome, a.outcome), a.label(), moved,
                                         ' - %s' % said if said else ''))
        self.lines = lines + list(run.lines)
        if getattr(run, 'refusal', None):
            self.message = run.refusal
        elif self.interrupted:
            switched = [a.label() for a in self.apps if a.switched]
            self.message = (
                'blue/green release %s interrupted; switched so far: %s. The Services keep their %s '
                'record: run the same task again to resume (verify the switch, keep it or switch back), '
                'or %s to switch back'
                % (run.id, ', '.join(switched) or 'nothing', 'kubeops.rollout/bluegreen',
                   setting('state', 'rolled_back'))
            )
        elif self.failed:
            self.message = 'blue/green failed: ' + '; '.join(
                '%s: %s' % (a.label(), a.cause) if not a.cause.startswith(a.label()) else a.cause
                for a in self.apps
                if a.cause
            )
        else:
            self.message = '; '.join(self.lines)


def images_text(d):
    """A Deployment's images, ``container=image, ...``."""
    return ', '.join('%s=%s' % kv for kv in sorted(revisions.container_images(d.template)[0].items()))


def words(e):
    """What an exception of a blue/green step says."""
    return error_text(e) if isinstance(e, KubeError) else str(e)

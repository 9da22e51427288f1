# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What a release is about, before and after it runs: its targets (read from the module's
``workloads`` entries), its options, its result, the outcome words, who else manages a workload,
and the result and diff a module returns."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
from collections import namedtuple

from ansible_collections.kubeops.rollout.plugins.module_utils.common.vocabulary import setting
from ansible_collections.kubeops.rollout.plugins.module_utils.common.validation import (
    label_problem,
    listed_twice,
    subdomain_problem,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.wait_options import (
    DEFAULT_TIMEOUT,
    GateOptions,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError, KubeError
from ansible_collections.kubeops.rollout.plugins.module_utils.common.fields import Fields
from ansible_collections.kubeops.rollout.plugins.module_utils.engine.rollouts import SHARED_READS_FROM
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import patches, revisions
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.patches import CHANGE_CAUSE_ANNOTATION
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workloads import UnknownKind, rollout_kind
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import record as release_record

# Outcomes, one per workload.
UPGRADED = 'upgraded'
UNCHANGED = 'unchanged'
ROLLED_BACK = 'rolled_back'
ROLLBACK_FAILED = 'rollback_failed'
UNTOUCHED = 'untouched'
OUTCOMES = (UPGRADED, UNCHANGED, ROLLED_BACK, ROLLBACK_FAILED, UNTOUCHED)

HELM_MANAGED_BY = ('app.kubernetes.io/managed-by', 'Helm')
HELM_RELEASE_ANNOTATION = 'meta.helm.sh/release-name'
ARGO_TRACKING_ANNOTATION = 'argocd.argoproj.io/tracking-id'
ARGO_INSTANCE_LABEL = 'argocd.argoproj.io/instance'


class Target:
    """One workload of the release: what was asked, what was read and written, how it ended."""

    def __init__(self, kind, name, namespace, images, change_cause):
        self.kind = kind  # the Workload class
        self.name = name
        self.namespace = namespace
        self.images = images
        self.change_cause = change_cause
        self.workload = None  # as read in the preflight
        self.patch = None  # (content type, body), or None when nothing changes
        self.dry_run = None  # the dry run's answer
        self.written = None  # the write's answer
        self.write_sent = False  # a write was sent (its answer may have been lost)
        self.put_back_sent = False  # its put-back was sent (the record goes with it)
        self.would_change = False  # check mode: a write would be sent
        self.status = None  # RolloutStatus of the wait, soak or put-back
        self.outcome = None
        self.cause = None
        self.deleted_pods = []
        self.rollback = None  # what the put-back did
        # What a put-back restores: the template and change-cause as read in the preflight (or as a
        # record on the workload says it had them).
        self.original_template = None
        self.original_cause = None
        self.record = None  # the release record it carries (release/record.py), when it is acted on
        self.resumed = False  # this run judges (and finishes or puts back) a release written before
        self.seal_key = None  # the key of its record's seal on the release's Lease (engine/records.py)
        self.record_gone = False  # this run removed its record (its seal goes from the Lease)

    def label(self):
        return '%s %s/%s' % (self.kind.kind, self.namespace, self.name)

    def read(self, workload):
        """The workload as the preflight read it; a put-back restores what it had then."""
        self.workload = workload
        self.original_template = workload.template
        self.original_cause = workload.annotations.get(CHANGE_CAUSE_ANNOTATION)

    def entry(self):
        images_before = revisions.container_images(self.workload.template)[0] if self.workload else None
        after = self.written or self.dry_run
        images_after = (
            revisions.container_images((after.get('spec') or {}).get('template') or {})[0]
            if after
            else images_before
        )
        out = {
            'kind': self.kind.kind,
            'name': self.name,
            'namespace': self.namespace,
            'outcome': self.outcome,
            'cause': self.cause,
            'changed': bool(self.write_sent or self.deleted_pods or self.would_change),
            'images_before': images_before,
            'images': images_after,
        }
        if self.status is not None:
            out['status'] = self.status.as_dict()
            if self.status.diagnosis is not None:
                out['diagnosis'] = self.status.diagnosis
        if self.deleted_pods:
            out['deleted_pods'] = list(self.deleted_pods)
        if self.rollback is not None:
            out['rollback'] = self.rollback
        return out


class ReleaseOptions(Fields):
    FIELDS = (
        ('atomic', True),
        ('timeout', DEFAULT_TIMEOUT),
        ('rollback_timeout', None),  # None: the timeout
        ('gates', None),  # GateOptions (None: the defaults)
        ('check_mode', False),
        ('rollback', True),
        ('canary', None),  # None, or the phase of a canary (canary.py)
        ('canary_ordinals', 1),
        ('release_id', None),  # the user's name for the release (else derived: release/record.py)
        ('recover', None),  # None, or what to do with another release's record: resume | rollback
        ('lease_seconds', None),  # the Lease's duration (None: release_record.LEASE_SECONDS)
        ('traffic', None),  # None, or the traffic canary's option (traffic/canary.py)
        ('fleet', None),  # None, or the fleet release this one is part of (fleet.py)
    )

    def __init__(self, *args, **kwargs):
        super(ReleaseOptions, self).__init__(*args, **kwargs)
        self.rollback_timeout = self.rollback_timeout or self.timeout
        self.gates = self.gates or GateOptions()


_RESULT_FIELDS = 'targets failed message lines warnings check_mode interrupted wrote fields'


class ReleaseResult(namedtuple('ReleaseResult', _RESULT_FIELDS)):
    """How a release ended: its targets, whether it failed, the summary message and lines, the
    warnings, whether a signal stopped it; ``wrote``: the strategy wrote (or would write) other
    objects than its targets (a traffic canary's route and canary Deployment); ``fields``: more
    result fields of the strategy (a traffic canary's ``traffic``); ``changed``: something was
    written (or, in check mode, would be)."""

    __slots__ = ()

    def __new__(cls, targets, failed, message, lines, warnings, check_mode, interrupted, wrote=False,
                fields=None):
        return super(ReleaseResult, cls).__new__(cls, targets, failed, message, lines, warnings, check_mode,
                                                 interrupted, wrote, fields or {})

    @property
    def changed(self):
        if self.wrote:
            return True
        if self.check_mode:
            return any(t.would_change for t in self.targets)
        return any(t.write_sent or t.deleted_pods for t in self.targets)


class PreflightFailed(Exception):
    pass


def build_targets(entries, namespace, default_cause=None):
    """Targets from the module's ``workloads`` entries; raises PreflightFailed for entries that cannot
    be read as workloads (unknown kind, empty name or images)."""
    targets, problems = [], []
    for i, entry in enumerate(entries):
        where = 'workloads[%d]' % i
        name = (entry.get('name') or '').strip()
        try:
            kind = rollout_kind(entry.get('kind'))
        except UnknownKind as e:
            problems.append('%s (%s): %s' % (where, name or '?', e))
            continue
        if not name:
            problems.append('%s: name is empty' % where)
            continue
        bad_name = subdomain_problem(entry.get('name'))
        bad_namespace = label_problem(entry.get('namespace') or namespace)
        if bad_name or bad_namespace:
            problems.append('%s: %s' % (where, '; '.join(
                p for p in ('name ' + bad_name if bad_name else None,
                            'namespace ' + bad_namespace if bad_namespace else None) if p)))
            continue
        images = entry.get('images') or {}
        bad = sorted(k for k, v in images.items() if v is None or not str(v).strip())
        if not images or bad:
            problems.append(
                '%s %s/%s: %s'
                % (
                    kind.kind,
                    entry.get('namespace') or namespace,
                    name,
                    'images is empty' if not images else 'no image given for container %s' % ', '.join(bad),
                )
            )
            continue
        cause = entry.get('change_cause') or default_cause or default_change_cause(images)
        targets.append(Target(kind, name, entry.get('namespace') or namespace, dict(images), cause))
    problems.extend(listed_twice(targets))
    if problems:
        raise PreflightFailed(problems)
    return targets


def default_change_cause(images):
    return 'rollout_release: ' + ', '.join('%s=%s' % (k, images[k]) for k in sorted(images))


def managers(obj):
    """Who else owns this object: ``Helm release x``, ``Argo CD``, from labels, annotations and
    managedFields."""
    meta = obj.get('metadata') or {}
    labels, annotations = meta.get('labels') or {}, meta.get('annotations') or {}
    found = []
    field_managers = {(m.get('manager') or '').lower() for m in meta.get('managedFields') or []}
    if (
        labels.get(HELM_MANAGED_BY[0]) == HELM_MANAGED_BY[1]
        or HELM_RELEASE_ANNOTATION in annotations
        or 'helm' in field_managers
    ):
        release = annotations.get(HELM_RELEASE_ANNOTATION)
        found.append('Helm (release %s)' % release if release else 'Helm')
    if (
        ARGO_TRACKING_ANNOTATION in annotations
        or ARGO_INSTANCE_LABEL in labels
        or any('argocd' in m for m in field_managers)
    ):
        app = annotations.get(ARGO_TRACKING_ANNOTATION, '').split(':', 1)[0] or labels.get(
            ARGO_INSTANCE_LABEL
        )
        found.append('Argo CD (application %s)' % app if app else 'Argo CD')
    return found


def diff_of(t, hidden=()):
    """before/after of a target's change (diff mode): the part of the object a release may change;
    the annotations named in ``hidden`` (a release's own record) are left out of both."""
    after = t.dry_run or t.written

    def shown(annotations):
        return {k: v for k, v in (annotations or {}).items() if k not in hidden}

    before = patches.template_view(t.workload.template, shown(t.workload.annotations))
    if after is None:
        local = patches.imaged_template(t.workload.template, t.images)
        annotations = dict(t.workload.annotations, **{CHANGE_CAUSE_ANNOTATION: t.change_cause})
        if isinstance(t.patch[1], dict):  # a strategic merge patch (a canary's) says what it writes
            annotations = patches.annotated(t.workload.annotations, t.patch[1])
        return before, patches.template_view(local, shown(annotations))
    return before, patches.template_view(
        copy.deepcopy((after.get('spec') or {}).get('template') or {}),
        shown((after.get('metadata') or {}).get('annotations')),
    )


def put_back_diff(t, hidden=()):
    """before/after of a release put back as asked (``recover: rollback``): ``t`` as read, and the
    template and change-cause its release record says it had."""
    def shown(annotations):
        return {k: v for k, v in (annotations or {}).items() if k not in hidden}

    annotations = dict(t.workload.annotations, **{CHANGE_CAUSE_ANNOTATION: t.original_cause})
    if t.original_cause is None:
        annotations.pop(CHANGE_CAUSE_ANNOTATION)
    return (patches.template_view(t.workload.template, shown(t.workload.annotations)),
            patches.template_view(copy.deepcopy(t.original_template), shown(annotations)))


def result_fields(entries, summary):
    """The release's result (the module's, which the roles register as their result fact): the
    entries, each with its label C(workload) (``Kind namespace/name``), the summary lines, and the
    labels grouped by outcome (``upgraded``: written and kept)."""
    out = {'workloads': [], 'summary': list(summary)}
    for outcome in OUTCOMES:
        out[outcome] = []
    for entry in entries:
        label = '%s %s/%s' % (entry['kind'], entry['namespace'], entry['name'])
        out['workloads'].append(dict(entry, workload=label))
        if entry['outcome'] == UPGRADED and not entry['changed']:
            out[UNCHANGED].append(label)  # OnDelete pods replaced only: no new template
        else:
            out[entry['outcome']].append(label)
    return out


def read_targets(client, targets):
    """id(target) -> each of ``targets``' object as read, or the ApiError of its read. Where
    ``SHARED_READS_FROM`` or more targets share a kind and a namespace, one LIST reads them all (a
    name it lacks is not found); the others are read with one GET each."""
    groups = {}
    for t in targets:
        groups.setdefault((t.kind, t.namespace), []).append(t)
    read = {}
    for (kind, namespace), group in groups.items():
        if len(group) < SHARED_READS_FROM:
            for t in group:
                try:
                    read[id(t)] = client.get(kind.object_path(namespace, t.name))
                except ApiError as e:
                    read[id(t)] = e
            continue
        try:
            answer = client.list(kind.collection_path(namespace))
        except ApiError as e:
            read.update((id(t), e) for t in group)
            continue
        version = answer.get('apiVersion')
        found = {}
        for item in answer.get('items') or []:
            # A list's items carry no kind of their own: each is given its kind, as a GET answers.
            item.setdefault('kind', kind.kind)
            item.setdefault('apiVersion', version)
            found[(item.get('metadata') or {}).get('name')] = item
        for t in group:
            read[id(t)] = found.get(t.name) or ApiError(404, 'NotFound', '%s not found' % t.label())
    return read


# Causes that follow from another workload's: a failure message names them once, by outcome.
SECONDARY_CAUSES = ('put back because the release failed',
                    'not changed: the release stopped before writing it')


def outcome_text(t, words):
    """How the summary names ``t``'s outcome (``words``: the strategy's names of the outcomes)."""
    return 'FAILED, left as it is' if t.cause and t.outcome in (UPGRADED, UNCHANGED) else words[t.outcome]


def still_to_do(t):
    """`` => how to finish`` after a failed put-back's label, else nothing."""
    return ' => %s' % t.rollback if t.rollback and t.outcome == ROLLBACK_FAILED else ''


def failure_message(targets, words):
    """A failed release's one short message: each distinct cause once (after the workloads it
    concerns, unless it names them), then the workloads by outcome (the lines of the summary name
    each workload with its cause)."""
    causes, by_outcome = {}, {}
    for t in targets:
        if t.cause and t.cause not in SECONDARY_CAUSES:
            causes.setdefault(t.cause, []).append(t.label())
        by_outcome.setdefault(outcome_text(t, words), []).append(t.label() + still_to_do(t))
    said = ['%s: %s' % (', '.join(labels), cause) if not cause.startswith(labels[0]) else cause
            for cause, labels in causes.items()]
    return 'release failed: %s. %s' % ('; '.join(said) or 'see each workload', '; '.join(
        '%s: %s' % (text, ', '.join(labels)) for text, labels in by_outcome.items()))


# What a put-back that did not succeed left (how_to_finish): a change by someone else kept, the
# previous template that does not come up either, or the new images with their release record.
CHANGED_ELSEWHERE, NOT_COMING_UP, STILL_RECORDED = 'changed elsewhere', 'not coming up', 'still recorded'


# ``next_step``, the one step a refusal or an interruption names, as data: RERUN (run the same task
# again), WAIT (another live run holds it: wait for it to end, then run it again), an option of the
# task to set and run it again with (``recover: rollback``, ``state: finished``), or a command
# (``kubectl annotate ...``, ``kubeops.rollout.rollout_undo``).
RERUN, WAIT = 'rerun', 'wait'


def finishing_step(t, left):
    """The next step after a put-back of ``t`` that did not finish, by what it ``left``."""
    if left == CHANGED_ELSEWHERE:
        return release_record.clear_command(t.workload)
    if left == NOT_COMING_UP:
        return 'kubeops.rollout.rollout_undo'
    return setting('recover', 'rollback')


def how_to_finish(t, text, left):
    """``text`` (why ``t`` was not put back) with what remains (``left``) and how to finish."""
    if left == CHANGED_ELSEWHERE:
        return ('%s. It keeps that change; check it is what you want, then remove the release record '
                '(%s) or roll it back (kubeops.rollout.rollout_undo)'
                % (text, release_record.clear_command(t.workload)))
    if left == NOT_COMING_UP:
        return ('%s. It is back on its previous template, which does not come up either: see why with '
                'kubeops.rollout.rollout_status (its diagnosis), then fix it or roll back further '
                '(kubeops.rollout.rollout_undo with to_revision)' % text)
    return ('%s. It is still on the new images with its release record: run the same task again with '
            '%s to put it back (or %s to keep the release)'
            % (text, setting('recover', 'rollback'), setting('recover', 'resume')))


def interrupted_message(release_id, targets):
    """What an interrupted release wrote, and how to go on: the workloads whose put-back was sent
    are back (their record went with it, their rollout not judged); the others keep their record."""
    written = [t.label() for t in targets if t.write_sent]
    back = [t.label() for t in targets if t.put_back_sent]
    kept = [label for label in written if label not in back]
    message = 'release %s interrupted; written so far: %s' % (release_id, ', '.join(written) or 'nothing')
    if back:
        message += ('. Put back (the template and change-cause they had, the record removed; their '
                    'rollout not judged: see kubeops.rollout.rollout_status): %s' % ', '.join(back))
    if kept:
        message += ('. %s keep%s the %s record: run the same task again to resume the release (wait, '
                    'gates, put back on failure), or with %s to put it back'
                    % (', '.join(kept), 's' if len(kept) == 1 else '', release_record.RECORD_ANNOTATION,
                       setting('recover', 'rollback')))
    return message


def changed_since_read(t, current):
    """Whether someone changed ``t``'s spec or annotations (``current``: it read again, None when
    unreadable) since the preflight read them."""
    if current is None:
        return False
    meta, read = current.get('metadata') or {}, t.workload.metadata
    return meta.get('generation') != read.get('generation') or \
        (meta.get('annotations') or {}) != (read.get('annotations') or {})


def refused_result(targets, problems, warnings, check_mode, next_step=None):
    """The result of a release refused by its preflight (``problems``): nothing was written."""
    for t in targets:
        t.outcome = UNTOUCHED
    lines = ['preflight failed, nothing was changed:'] + ['  %s' % p for p in problems]
    message = ' '.join(['release refused before any write:'] + [p + ';' for p in problems]).rstrip(';')
    return ReleaseResult(targets, True, message, lines, warnings, check_mode, False,
                         fields={'next_step': next_step})


def read_again(client, t):
    """``t``'s workload read after a write whose answer was lost or refused (None: unreadable)."""
    try:
        return client.get(t.workload.path)
    except KubeError:
        return None

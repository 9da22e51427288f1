# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The rollout modules' scaffolding: targets by name, label selectors or ``workloads`` entries, the
verb applied to each, waiting on the engine, results, diffs and the ``outcome`` summary.

A module builds a ``RolloutModule`` with its own options and calls ``run`` with a function
``(client, workload) -> verbs.Outcome``; everything else (connecting, finding the workloads,
check/diff results, waiting, turning errors into clear failures) happens here.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import traceback


from collections import namedtuple

from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import (
    ApiError,
    ConnectionFailure,
    KubeError,
    describe_error,
    redact,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.patches import UnknownContainer
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.revisions import RevisionNotFound
from ansible_collections.kubeops.rollout.plugins.module_utils.common.validation import (
    label_problem,
    subdomain_problem,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.wait_options import (
    DEFAULT_TIMEOUT,
    GATE_ARG_SPEC,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workload import NotSupported, Refused
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workloads import (
    ROLLOUT_KINDS,
    UnknownKind,
    rollout_kinds,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.adapter.module import KubeModule
from ansible_collections.kubeops.rollout.plugins.module_utils.adapter.outcome import outcome_summary


TARGET_ARG_SPEC = {
    # One kind or several (a list, or kubectl's "deploy,sts"), in any of kubectl's spellings
    # (workloads.rollout_kinds); omitted with label_selectors: every rollout kind.
    'kind': {'type': 'list', 'elements': 'str'},
    'name': {'type': 'str'},
    'label_selectors': {'type': 'list', 'elements': 'str'},
    'namespace': {'type': 'str'},
    # Before namespace: what a role passes, so that the play's module_defaults still give namespace.
    'workload_namespace': {'type': 'str'},
    'require_match': {'type': 'bool', 'default': False},
}


# The keys every entry of the ``workloads`` option takes (a module adds its own per-entry fields).
ENTRY_ARG_SPEC = {
    'kind': {'type': 'list', 'elements': 'str'},
    'name': {'type': 'str'},
    'label_selectors': {'type': 'list', 'elements': 'str'},
    'namespace': {'type': 'str'},
}


def workloads_arg_spec(entry_options=None):
    """The ``workloads`` option: several targets in one task, each by name or by label selectors,
    like ``kubectl rollout undo deploy/a sts/b``; ``entry_options`` are the module's per-entry fields."""
    options = dict(ENTRY_ARG_SPEC)
    options.update(entry_options or {})
    return {'workloads': {'type': 'list', 'elements': 'dict', 'options': options}}


class Entry(namedtuple('Entry', 'index kinds name selectors namespace fields')):
    """One entry of the ``workloads`` option, checked: ``kinds`` (Workload classes), ``name`` or
    ``selectors``, ``namespace`` (None: the task's), ``fields`` (the module's per-entry fields)."""

    __slots__ = ()

    def where(self):
        return 'workloads[%d] (%s)' % (self.index, self.name or ','.join(self.selectors or []))


def wait_arg_spec(default):
    spec = {
        'wait': {'type': 'bool', 'default': default},
        'timeout': {'type': 'int', 'default': DEFAULT_TIMEOUT, 'aliases': ['wait_timeout']},
        'wait_for_terminating': {'type': 'bool', 'default': False},
    }
    spec.update(GATE_ARG_SPEC)
    return spec


# Errors that concern one workload and are the user's to fix; reported without a stack.
USER_ERRORS = (NotSupported, Refused, RevisionNotFound, UnknownContainer)


class RolloutModule(KubeModule):
    """The rollout modules' options and behaviour: targets by name or label selectors, the verb
    applied to each, waiting, results and diffs."""

    def __init__(self, argument_spec=None, wait=None, runtime=None, entry_options=None, serial=False,
                 **kwargs):
        """``entry_options`` (a dict, possibly empty): the module takes the ``workloads`` option, with
        these per-entry fields besides kind, name, label_selectors and namespace; each defaults to the
        module option of the same name. ``serial``: the module takes the ``serial`` option."""
        spec = dict(TARGET_ARG_SPEC)
        targets = ('name', 'label_selectors')
        if entry_options is not None:
            spec.update(workloads_arg_spec(entry_options))
            targets += ('workloads',)
        if serial:
            spec['serial'] = {'type': 'bool', 'default': False}
        if wait is not None:
            spec.update(wait_arg_spec(wait))
        spec.update(argument_spec or {})
        self._entry_fields = sorted(entry_options or {})
        super(RolloutModule, self).__init__(
            spec, runtime,
            mutually_exclusive=[targets] + kwargs.pop('mutually_exclusive', []),
            required_one_of=[targets] + kwargs.pop('required_one_of', []),
            **kwargs)
        self.kinds = self._kinds()
        self.kind = self.kinds[0]  # the kind of a task by name (exactly one)
        self._status_inline = False
        self.entries = None  # the checked ``workloads`` entries, when the task gives them
        self._entry_of = {}  # uid -> the Entry a target came from
        self.missing = []  # (identity, message) of the entries naming a workload that does not exist
        self._failed = {}  # id(outcome or workload) -> failure of this task, for ``outcome``
        self._check_target()

    def _kinds(self):
        """The Workload classes of the ``kind`` option; every rollout kind when it is omitted with
        label_selectors."""
        spellings = self.params.get('kind')
        if not spellings:
            if self.params.get('name') is not None:
                self.fail('kind is required with name: give the kind of "%s" (Deployment, StatefulSet or '
                          'DaemonSet)' % self.params['name'])
            return list(ROLLOUT_KINDS.values())
        try:
            kinds = rollout_kinds(spellings)
        except UnknownKind as e:
            self.fail(str(e))
        if len(kinds) > 1 and self.params.get('name') is not None:
            self.fail('name "%s" names one workload, but kind lists %s: give one kind with name, or select '
                      'several kinds with label_selectors' % (self.params['name'], _kind_names(kinds)))
        return kinds

    def _check_target(self):
        """Refuse targets that would act on something else than meant, before any request: an empty
        selection would match every workload of the namespace."""
        if self.params.get('workloads') is not None:
            self.entries = self._check_entries(self.params['workloads'])
            return
        name, selectors = self.params.get('name'), self.params.get('label_selectors')
        if name is not None:
            if not name.strip():
                self.fail('name is empty: give the %s name, or label_selectors' % self.kind.kind)
            problem = subdomain_problem(name)
            if problem:
                self.fail('name %s' % problem)
        elif selectors is not None:
            if not selectors or not all(isinstance(s, str) and s.strip() for s in selectors):
                self.fail('label_selectors %s has an empty selector: an empty selector matches every %s '
                          'in the namespace. Give at least one non-empty selector (e.g. app=web), or name'
                          % (selectors, _kind_names(self.kinds)))

    def _check_entries(self, raw):
        """The ``workloads`` entries as ``Entry`` objects; every entry that cannot be read as a target
        fails the task before any request, all of them named in one message."""
        if not raw:
            self.fail('workloads is empty: give at least one workload (kind and name or label_selectors)')
        entries, problems = [], []
        for i, item in enumerate(raw):
            where = 'workloads[%d]' % i
            name, selectors = item.get('name'), item.get('label_selectors')
            if name is not None and selectors is not None:
                problems.append('%s (%s): give name or label_selectors, not both' % (where, name))
                continue
            if name is None and selectors is None:
                problems.append('%s: give name or label_selectors' % where)
                continue
            where = '%s (%s)' % (where, name if name is not None else ','.join(str(s) for s in selectors))
            spellings = item.get('kind') or self.params.get('kind')
            try:
                kinds = rollout_kinds(spellings) if spellings else list(ROLLOUT_KINDS.values())
            except UnknownKind as e:
                problems.append('%s: %s' % (where, e))
                continue
            if name is not None:
                if not spellings:
                    problems.append('%s: kind is required with name (Deployment, StatefulSet or DaemonSet)'
                                    % where)
                    continue
                if len(kinds) > 1:
                    problems.append('%s: name names one workload, but kind lists %s'
                                    % (where, _kind_names(kinds)))
                    continue
                problem = 'name is empty' if not name.strip() else subdomain_problem(name)
                if problem and name.strip():
                    problem = 'name ' + problem
                if problem:
                    problems.append('%s: %s' % (where, problem))
                    continue
            elif not selectors or not all(isinstance(s, str) and s.strip() for s in selectors):
                problems.append('%s: label_selectors has an empty selector, which would match every %s in '
                                'the namespace' % (where, _kind_names(kinds)))
                continue
            namespace = item.get('namespace') or None  # empty: the task's, as for the namespace option
            if namespace is not None:
                problem = label_problem(namespace)
                if problem:
                    problems.append('%s: namespace %s' % (where, problem))
                    continue
            fields = {}
            for field in self._entry_fields:
                value = item.get(field)
                fields[field] = self.params.get(field) if value is None else value
            problem = self.check_entry_fields(fields)
            if problem:
                problems.append('%s: %s' % (where, problem))
                continue
            entries.append(Entry(i, kinds, name, selectors, namespace, fields))
        if problems:
            self.fail('workloads: %s. Nothing was done.' % '; '.join(problems), changed=False, workloads=[])
        return entries

    def check_entry_fields(self, fields):
        """A problem with an entry's per-entry fields (None: none); the module's numeric bounds apply."""
        for name, value in fields.items():
            if isinstance(value, int) and not isinstance(value, bool) and value < 0:
                return '%s must be 0 or more (got %s)' % (name, value)
        return None

    def option(self, workload, name):
        """The value of a per-entry field for ``workload``: its entry's, else the module option."""
        entry = self._entry_of.get(workload.uid)
        if entry is not None and name in entry.fields:
            return entry.fields[name]
        return self.params.get(name)

    # -- targets
    def targets(self, each_alone=False):
        """The workloads named (GET) or selected (LIST); a missing name fails, an empty selection is [].

        With ``workloads`` entries, every entry is resolved before anything is changed; with
        ``each_alone`` an entry naming a missing workload is set aside in ``missing`` instead of failing
        the task. A workload listed by several entries is acted on once (entries that disagree on
        its per-entry fields fail the task)."""
        if self.entries is not None:
            return self._entry_targets(each_alone)
        kind, ns = self.kind, self.namespace
        if self.params.get('name'):
            name = self.params['name']
            try:
                return [kind(self.client.get(kind.object_path(ns, name)))]
            except ApiError as e:
                if e.status == 404:
                    self.fail('%s %s/%s not found' % (kind.kind, ns, name))
                raise _Context(e, 'reading %s %s/%s' % (kind.kind, ns, name))
        selector = ','.join(s.strip() for s in self.params['label_selectors'])
        return self._select(self.kinds, ns, selector)

    def _entry_targets(self, each_alone):
        out, seen = [], {}
        for entry in self.entries:
            ns = entry.namespace or self.namespace
            if entry.name is not None:
                kind = entry.kinds[0]
                try:
                    found = [kind(self.client.get(kind.object_path(ns, entry.name)))]
                except ApiError as e:
                    if e.status != 404:
                        raise _Context(e, 'reading %s %s/%s' % (kind.kind, ns, entry.name))
                    text = '%s %s/%s not found' % (kind.kind, ns, entry.name)
                    if not each_alone:
                        self.fail(text, changed=False, workloads=[])
                    self.missing.append(({'kind': kind.kind, 'namespace': ns, 'name': entry.name}, text))
                    continue
            else:
                found = self._select(entry.kinds, ns, ','.join(s.strip() for s in entry.selectors),
                                     '%s: ' % entry.where())
            for workload in found:
                key = (workload.kind, workload.namespace, workload.name)
                if key in seen:
                    if seen[key].fields != entry.fields:
                        self.fail('%s and %s both list %s, with different %s: list it once' % (
                            seen[key].where(), entry.where(), workload.label(),
                            ', '.join(self._entry_fields)), changed=False, workloads=[])
                    continue
                seen[key] = entry
                self._entry_of[workload.uid] = entry
                out.append(workload)
        return out

    def _select(self, kinds, ns, selector, where=''):
        """Every workload of ``kinds`` in ``ns`` matching ``selector`` (one LIST per kind)."""
        out = []
        for kind in kinds:  # one LIST per kind, in the order given
            try:
                items = self.client.list(kind.collection_path(ns), label_selector=selector).get('items') or []
            except ApiError as e:
                raise _Context(e, 'listing %ss with label selector "%s" in namespace "%s"'
                               % (kind.kind, selector, ns))
            for item in items:
                # LIST items carry no kind/apiVersion; the namespace is added so entries are complete.
                item.setdefault('metadata', {}).setdefault('namespace', ns)
            out.extend(kind(item) for item in items)
        if not out:
            text = '%slabel_selectors "%s" matched no %s in namespace "%s"' % (
                where, selector, _kind_names(kinds), ns)
            if self.params.get('require_match'):
                self.fail('%s, and require_match is true: check the labels and the namespace' % text,
                          changed=False, workloads=[])
            self.module.warn('%s: nothing was done' % text)
        return out

    # -- results
    def run(self, verb, wait_predicate=None, status_inline=False, precheck=None, each_alone=False,
            report=False, summarize=None):
        """Apply ``verb(client, workload) -> Outcome`` to every target, wait if asked, exit.

        ``precheck(workload)``: raises one of USER_ERRORS for a workload the verb would refuse, judged
        from the object already read; every target is checked before the first write, so a task that
        fails for one of several workloads changes none of them. With ``each_alone`` (kubectl's
        rollout undo), a refused workload is left out and the others are still changed; the task then
        fails listing each refusal (``failures``).

        ``wait_predicate(workload) -> predicate(obj) -> RolloutStatus``: what waiting means for this
        module (default: the kind's rollout status); a waited-for rollout that did not finish fails
        the task. ``status_inline``: put the wait's done/message/reason in the entry itself
        (rollout_status) instead of under ``status``.

        With the ``serial`` option (outside check mode), one workload at a time: the verb, then its
        wait, then the next; the first failure stops it and the rest are ``not_reached``.

        ``report``: the result has ``outcome`` (``done``, ``failed``, ``not_reached``, ``lines``);
        ``summarize(outcome, entries)`` (entries by ``Kind namespace/name``) may add to it.
        """
        self._status_inline = status_inline
        try:
            self._run(verb, wait_predicate, precheck, each_alone, report or summarize is not None, summarize)
        except _Context as c:
            self.fail(describe_error(c.error, c.action, self._connection))
        except ConnectionFailure as e:
            self.fail(e.message)
        except KubeError as e:
            self.fail(describe_error(e, 'Kubernetes API request failed', self._connection))
        except Exception as e:  # a bug: still a one-line message (the trace only at -vvv)
            secrets = self._connection.secrets() if self._connection else []
            self.module.fail_json(msg='unexpected error: %s: %s' % (type(e).__name__, redact(e, secrets)),
                                  exception=traceback.format_exc())

    def _run(self, verb, wait_predicate, precheck=None, each_alone=False, report=False, summarize=None):
        outcomes, errors = [], []
        failures = []  # the workloads left unchanged by an error, with it
        refused = []  # (identity, message) of the workloads the verb was not applied to
        workloads = self.targets(each_alone)

        steps = []  # the next steps the refusals name, as data

        def failed(identity, text, step=None):
            errors.append(text)
            failures.append(dict(identity, msg=text))
            refused.append((identity, text))
            if step:
                steps.append(step)

        for identity, text in self.missing:
            failed(identity, text)
        if precheck:
            accepted = []
            for workload in workloads:
                try:
                    precheck(workload)
                    accepted.append(workload)
                except USER_ERRORS as e:
                    failed(workload.identity(), _user_error(workload, e), getattr(e, 'next_step', None))
            if errors and not each_alone:  # nothing was changed
                extra = {'outcome': self._outcome([], [], refused, [], summarize)} if report else {}
                if steps:
                    extra['next_step'] = steps[0]
                self.fail('; '.join(errors), changed=False, workloads=[], **extra)
            workloads = accepted
        check_mode = self.module.check_mode
        serial = self.params.get('serial') and not check_mode
        entries, not_reached = [], []
        for i, workload in enumerate(workloads):
            if serial and errors:  # one at a time stops at the first failure
                not_reached = workloads[i:]
                break
            try:
                outcome = verb(self.client, workload)
            except USER_ERRORS as e:
                failed(workload.identity(), _user_error(workload, e), getattr(e, 'next_step', None))
                continue
            except ConnectionFailure:
                raise
            except KubeError as e:
                failed(workload.identity(), describe_error(e, workload.label(), self._connection))
                continue
            for warning in outcome.warnings:
                self.module.warn(warning)
            entry = outcome.entry()
            outcomes.append(outcome)
            entries.append(entry)
            if outcome.error:
                text = self._explained(outcome.error, outcome, entry, outcome.fields.get('reason'))
                errors.append(text)
                self._failed[id(outcome)] = (text, outcome.fields.get('reason'))
            elif serial and getattr(outcome, 'waits', True):
                errors.extend(self._wait([(outcome, entry)], wait_predicate))
        pending = [(o, e) for o, e in zip(outcomes, entries) if not o.error and getattr(o, 'waits', True)]
        wait = self.params.get('wait') and not check_mode
        if wait and pending and not serial:
            errors.extend(self._wait(pending, wait_predicate))
        result = {'changed': any(o.changed for o in outcomes), 'workloads': entries}
        if self.analysis_result is not None:
            result['analysis'] = self.analysis_result
        diffs = [o.diff() for o in outcomes if (o.changed or getattr(o, 'diff_unchanged', False))
                 and (o.before is not None or o.after is not None)]
        if self.module.diff and diffs:
            result['diff'] = diffs
        if each_alone and failures:
            result['failures'] = failures
        if report:
            result['outcome'] = self._outcome(outcomes, entries, refused, not_reached, summarize)
        if errors:
            if steps:
                result['next_step'] = steps[0]
            self.fail('; '.join(errors), **result)
        self.module.exit_json(**result)

    def _outcome(self, outcomes, entries, refused, not_reached, summarize):
        return outcome_summary(outcomes, entries, refused, not_reached, summarize, self._failed)

    def _wait(self, pending, wait_predicate):
        """Wait for the outcomes in ``pending`` on the rollout engine; the error of each that failed."""
        # Imported only to wait: most tasks never do.
        from ansible_collections.kubeops.rollout.plugins.module_utils.engine.rollouts import Engine, Rollout
        from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import status as status_mod
        terminating = self.params.get('wait_for_terminating') and not wait_predicate
        rollouts = []
        for o, _entry in pending:
            predicate = wait_predicate(o.workload) if wait_predicate else o.workload.rollout_status
            if o.changed and o.obj is not o.workload.obj:  # this task wrote: judge its own rollout
                predicate = status_mod.after_change(predicate, o.workload.obj, o.obj)
            if terminating:
                predicate = o.workload.terminating_wait(predicate)
            # A custom wait (a pause being observed) has no pods to look at: no gate applies to it.
            rollouts.append(Rollout(o.workload, o.obj, predicate, gated=not wait_predicate,
                                    written=o.changed))
        engine = Engine(self.client, self.gate_options(), self.module.progress, line=_progress_line,
                        note=self.module.note)
        engine.watch_all(rollouts, self.params['timeout'])
        if engine.soaked and engine.gates.analysis is not None:
            self.analysis_result = engine.gates.analysis.result()
        errors = []
        for (o, entry), rollout in zip(pending, rollouts):
            res = rollout.result
            if res.error is not None:
                label = 'waiting for %s' % o.workload.label()
                errors.append(describe_error(res.error, label, self._connection))
                self._failed[id(o)] = (errors[-1], None)
                continue
            self.record_status(entry, res)
            if res.diagnosis is not None:
                entry['diagnosis'] = res.diagnosis
            if not res.done:
                label = o.workload.label()
                error = res.message if label in res.message else '%s: %s' % (label, res.message)
                if res.reason in status_mod.UNFINISHED_REASONS and res.diagnosis is not None:
                    error = '; '.join([error] + res.diagnosis['lines'])
                errors.append(error)
                self._failed[id(o)] = (errors[-1], res.reason)
        return errors

    def _explained(self, error, outcome, entry, reason):
        """``error``, and when the rollout itself did not progress (deadline, timeout), why: the
        workload's ``diagnosis`` goes into its entry and one line per cause into the message."""
        from ansible_collections.kubeops.rollout.plugins.module_utils.engine.rollouts import Engine, Rollout
        from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.status import UNFINISHED_REASONS
        if reason not in UNFINISHED_REASONS:
            return error
        found = entry['diagnosis'] = Engine(self.client).diagnose(Rollout(outcome.workload, outcome.obj))
        return '; '.join([error] + found['lines'])

    def record_status(self, entry, result):
        if self._status_inline:
            entry.update(result.as_dict())
        else:
            entry['status'] = result.as_dict()


def _kind_names(kinds):
    """``Deployment``, ``Deployment or StatefulSet``, ``Deployment, StatefulSet or DaemonSet``."""
    names = [k.kind for k in kinds]
    return names[0] if len(names) == 1 else '%s or %s' % (', '.join(names[:-1]), names[-1])


def _progress_line(rollout, result):
    """A progress line, naming the workload if kubectl's text does not."""
    name, text = rollout.workload.name, result.message
    if '"%s"' % name not in text:
        text = '%s "%s": %s' % (rollout.workload.kind, name, text)
    return text


def _user_error(workload, err):
    text = str(err)
    if workload.label() not in text:  # say which workload, for multi-target tasks
        text = '%s: %s' % (workload.label(), text)
    return text


class _Context(Exception):
    """An API error raised with what the module was doing, for the failure message."""

    def __init__(self, error, action):
        super(_Context, self).__init__(action)
        self.error = error
        self.action = action

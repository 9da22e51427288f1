# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Every module's Ansible side: the runtime it runs in (a module process, or the controller path's
runtime in plugin_utils/controller.py) and ``KubeModule``, the connection options on it: the
connection, the client and the namespace resolved once, every number option checked, the same
messages for every module. The rollout modules build on it in ``rollout_module.py``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import math
import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kubeops.rollout.plugins.module_utils.api.client import ApiClient
from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection.options import (
    CONNECTION_ARG_SPEC,
    load_connection,
    param_secrets,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import (
    ConfigError,
    redact,
    secret_forms,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.common import vocabulary
from ansible_collections.kubeops.rollout.plugins.module_utils.common.validation import (
    INT32_MAX,
    INT64_MAX,
    MAX_SECONDS,
    label_problem,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.wait_options import (
    GateOptions,
    check_gate_params,
)

DEFAULT_NAMESPACE = 'default'
# A module process cannot print while it runs: the notes and lines it would have printed go in its
# result under this key, each as [kind, line], and its action plugin prints them once the task ends
# and drops the key (plugin_utils/controller.py), so both paths print the same at verbosity 0.
OUTPUT_KEY = '_kubeops_rollout_output'
NOTE, SHOWN = 'note', 'shown'


def _all_forms(secrets):
    out = set()
    for secret in secrets:
        out.update(secret_forms(secret))
    return out


def option_secrets(params):
    """Every form (raw, base64) of the secrets inside option values, for ``no_log_values``."""
    return _all_forms(param_secrets(params))


# Numeric options that only make sense above zero; every float option must be finite and >= 0.
POSITIVE_OPTIONS = ('timeout', 'poll_interval', 'request_timeout')
# Options counted in seconds (at most MAX_SECONDS) and integers the API server keeps as int32 (the
# others may be up to int64's maximum, a revision number's).
SECONDS_OPTIONS = frozenset(['timeout', 'poll_interval', 'request_timeout', 'update_period',
                             'lease_duration', 'fail_fast_seconds', 'soak_seconds', 'rollback_timeout'])
INT32_OPTIONS = {'partition': INT32_MAX, 'max_restarts': INT32_MAX}
# The caller's names of the options, for the messages (plugins/doc_fragments/option_names.py).
OPTION_NAMES_ARG_SPEC = {vocabulary.OPTION: {'type': 'dict', 'default': {}}}


class AnsibleRuntime(AnsibleModule):
    """Where a module's code runs, as the code sees it; this one is the module process.

    The interface (the controller path, plugin_utils/controller.py, implements the same): built as
    ``runtime(argument_spec=..., supports_check_mode=..., mutually_exclusive=..., ...)``, it offers
    ``params`` (validated), ``check_mode``, ``diff``, ``env`` (the environment to read ``K8S_AUTH_*``
    and ``KUBECONFIG`` from), ``no_log_values`` (a set: every value in it is removed from the
    result), ``warn``, ``deprecate``, ``progress`` (a live progress line, at -v), ``note`` (a line at
    every verbosity: what a long operation is doing, for AWX's default verbosity; live on the
    controller, at the task's end in a module process), ``show`` (lines of the task's output at every
    verbosity, such as a release's summary), ``alert`` (lines printed at once, even while the play is
    being interrupted), ``run_process`` (runs a kubeconfig exec credential plugin's program:
    api/connection/exec_process.py) and ``exit_json`` / ``fail_json``, which do not return. Secrets
    inside option values (an inline kubeconfig's keys
    and tokens, credentials in proxy URLs) join ``no_log_values`` as soon as the options are read,
    so no output, not even a failure of option validation, shows them.
    """

    def _load_params(self):
        super(AnsibleRuntime, self)._load_params()
        self.no_log_values.update(option_secrets(self.params))

    @property
    def diff(self):
        return self._diff

    @property
    def env(self):
        return os.environ

    def run_process(self, argv, env, timeout, max_output):
        """An exec credential plugin's program, started by ``run_command`` (exec_process.py)."""
        # Imported only for a kubeconfig with an exec plugin (most have none).
        from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection import exec_process
        return exec_process.run_with(self.run_command, argv, env, timeout, max_output)

    def progress(self, line):
        """A module process cannot print while it runs: its progress is its result."""

    def note(self, line):
        """Kept for the end of the task (``OUTPUT_KEY``): a module process cannot print while it runs."""
        self.__dict__.setdefault('_output', []).append([NOTE, line])

    def show(self, lines):
        """Kept for the end of the task, as ``note``."""
        self.__dict__.setdefault('_output', []).extend([SHOWN, line] for line in lines)

    def exit_json(self, **result):
        if self.__dict__.get('_output'):
            result[OUTPUT_KEY] = self._output
        super(AnsibleRuntime, self).exit_json(**result)

    def fail_json(self, msg, **result):
        if self.__dict__.get('_output'):
            result[OUTPUT_KEY] = self._output
        super(AnsibleRuntime, self).fail_json(msg, **result)

    def prepare_alert(self):
        """Nothing to prepare in a module process (see ``alert``)."""

    def abandon(self):
        """A module process hands its result over as usual (``fail_json``), interrupted or not."""

    def alert(self, lines):
        """Lines that must reach the user at once (an interrupted release): a module process cannot
        print, its result carries them."""


class KubeModule:
    """The collection's connection options on a runtime (AnsibleRuntime unless another is given):
    the connection, the client and the namespace, resolved once, with the same messages for every
    module."""

    def __init__(self, argument_spec, runtime=None, connection=True, analysis=None, **kwargs):
        # connection=False: a module that sends no request to Kubernetes takes no connection options.
        # analysis: given by the modules that take the ``analysis`` option, a function that returns
        # module_utils/gates/analysis.py; it is imported only for a task with checks (and only the payloads
        # of those modules hold it and what it imports).
        self._load_analysis = analysis
        self._connected = connection
        spec = dict(CONNECTION_ARG_SPEC, **OPTION_NAMES_ARG_SPEC) if connection else {}
        spec.update(argument_spec)
        self.module = (runtime or AnsibleRuntime)(argument_spec=spec, supports_check_mode=True, **kwargs)
        self.params = self.module.params
        # The names the messages give the options (common/vocabulary.py), set before any message.
        vocabulary.speak(None)
        problems = vocabulary.problems(self.params.get(vocabulary.OPTION), spec)
        if problems:
            self.fail('; '.join(problems))
        vocabulary.speak(self.params.get(vocabulary.OPTION))
        self._client = None
        self._connection = None
        self.analysis_result = None  # what the analysis checks measured, when the task has them
        self._analysis = None
        self._check_numbers(spec)
        if self.params.get('analysis'):
            self._analysis = self.analysis_gate()  # checked before any request

    def _check_numbers(self, spec):
        for name, option in spec.items():
            value = self.params.get(name)
            if value is None or option.get('type') not in ('int', 'float'):
                continue
            if not math.isfinite(value):
                self.fail('%s must be a finite number, not %s' % (name, value))
            if name in POSITIVE_OPTIONS and value <= 0:
                self.fail('%s must be greater than 0 (got %s)' % (name, value))
            if option.get('type') == 'float' and value < 0:
                self.fail('%s must not be negative (got %s)' % (name, value))
            if value < 0:
                self.fail('%s must be 0 or more (got %s)' % (name, value))
            maximum = MAX_SECONDS if name in SECONDS_OPTIONS else INT32_OPTIONS.get(name, INT64_MAX)
            if value > maximum:
                unit = ' seconds (%d days)' % (maximum // 86400) if name in SECONDS_OPTIONS else ''
                self.fail('%s must be at most %d%s (got %s)' % (
                    name, maximum, unit, value if len(str(value)) <= 40 else '%.3g' % value))
        problem = check_gate_params(self.params)
        if problem:
            self.fail(problem)

    # -- connection
    def _register_secrets(self, secrets):
        # Secrets read from a kubeconfig or an exec plugin are unknown to Ansible's no_log.
        self.module.no_log_values.update(_all_forms(secrets))

    @property
    def connection(self):
        if self._connection is None:
            self._connection = self._configure(
                lambda params: load_connection(params, self.module.env, self.module.run_process), self.params)
            self._connection.on_secrets = self._register_secrets
            self._connection.register_secrets()
            for warning in self._connection.warnings:
                self.module.warn(warning)
        return self._connection

    @property
    def client(self):
        if self._client is None:
            self._client = self._configure(ApiClient, self.connection)
        return self._client

    def _configure(self, build, source):
        try:
            return build(source)
        except ConfigError as e:
            secrets = list(self.module.no_log_values)
            if self._connection is not None:
                secrets.extend(self._connection.secrets())
            self.fail('cannot configure the Kubernetes connection: %s' % redact(e.message, secrets))

    @property
    def namespace(self):
        """The workload_namespace option (modules that take it), else the namespace option, else the
        kubeconfig context's (or service account's), else default; a name the API server would refuse
        fails the task before any request.

        workload_namespace is what the roles pass their namespace variable as: a task argument
        templated to ``omit`` removes the play's ``module_defaults`` value of that same option too
        (ansible-core merges the defaults under the task's arguments, then drops the omitted ones),
        so a role's ``namespace: "{{ x | default(omit) }}"`` would hide a group default namespace."""
        option = next((name for name in ('workload_namespace', 'namespace') if self.params.get(name)), None)
        namespace = (self.params[option] if option else self.connection.namespace) or DEFAULT_NAMESPACE
        problem = label_problem(namespace)
        if problem:
            source = option or 'the namespace of %s' % self.connection.source
            self.fail('%s: %s' % (source, problem))
        return namespace

    def fail(self, msg, **extra):
        self.module.fail_json(msg=msg, **extra)

    def renamed_value(self, option, old, new):
        """An ``option`` given its old value ``old``: a deprecation naming ``new``, which it then is."""
        if self.params.get(option) == old:
            self.module.deprecate(vocabulary.renamed_value(option, old, new),
                                  version=vocabulary.REMOVAL_VERSION, collection_name=vocabulary.COLLECTION)
            self.params[option] = new

    def run_strategy(self, strategy):
        """Run ``strategy`` (a usecases/lifecycle.py Lifecycle) with SIGINT and SIGTERM turned into its
        interruption report, which reaches the terminal first: ansible-playbook is exiting and reads
        nothing more. Returns its result."""
        from ansible_collections.kubeops.rollout.plugins.module_utils.usecases import lifecycle
        self.module.prepare_alert()
        with lifecycle.interruptible():
            result = strategy.run()
        if result.interrupted:
            self.module.alert([result.message])
            self.module.abandon()
        return result

    def gate_options(self):
        """The early stop, soak and analysis options of this task's waits (wait_options.GateOptions)."""
        return GateOptions.from_params(self.params, self.analysis_gate())

    def analysis_gate(self):
        """The analysis checks of the ``analysis`` option, or None (modules without it: None)."""
        options = self.params.get('analysis')
        if not options:
            return None
        if self._analysis is not None:
            return self._analysis
        if self._load_analysis is None:
            raise ValueError('this module takes no analysis option')
        analysis = self._load_analysis()
        # Where job checks create their Jobs: this task's client and namespace, resolved when a Job
        # is first created (a task without job checks never builds them here).
        cluster = analysis.Cluster(lambda: self.client, lambda: self.namespace,
                                   self.module.check_mode) if self._connected else None
        try:
            gate = analysis.AnalysisGate(options, cluster=cluster)
        except analysis.AnalysisError as e:
            self.fail('invalid analysis option: %s' % e)
        self._register_secrets(gate.secrets())
        return gate

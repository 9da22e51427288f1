# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Around each wave of a fleet release: the check before its first write, and the wave gate after
its clusters' releases passed their own gates.

- ``check_wave``: the wave's clusters read again (read.py) just before the wave; a cluster that can
  no longer be read, or that holds a live release or another release's record, is refused before
  any write there (``refusals``: the same rules as the inspection's), and the wave fails.
- ``gate_wave``: every workload of every cluster of the wave watched for ``soak_seconds`` (each
  cluster in its own thread, the soak of the release's health gate: every pod Ready, no restart
  over ``max_restarts``), while the wave's analysis checks are measured (one gate for the whole
  wave, every ``interval`` as rollout_analysis measures them, at least once). ``judge``: the wave
  passes only when every cluster and the analysis passed; otherwise each cluster of it fails, with
  its own cause or the analysis's.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import (
    ApiError,
    KubeError,
    error_text,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.engine.rollouts import fan_out
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.health import Soak
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.wait_options import GateOptions
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.fleet import plan as fleet_plan
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.fleet import read as fleet_read
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import (
    targets as release_targets,
)


# ---- before the wave --------------------------------------------------------------------------
def refusals(standings):
    """{cluster: why it may not be released now} for the ``standings`` (plan.standing) of a wave."""
    out = {}
    for s in standings:
        line = fleet_plan.refusal(s)
        if line:
            out[s['cluster']] = 'refused before any write in its wave: %s' % line
    return out


def check_wave(clusters, client_of, fleet):
    """The wave's ``clusters`` read again: (standings, refusals)."""
    standings = [fleet_plan.standing(r, fleet) for r in fleet_read.read_fleet(clusters, client_of)]
    return standings, refusals(standings)


# ---- after the wave -----------------------------------------------------------------------------
def to_gate(hosts, releases, failures):
    """The hosts of the wave whose release ran and passed in this run (the others were not changed
    now); None when a cluster of the wave failed already (the wave failed: no gate)."""
    out = []
    for i, host in enumerate(hosts):
        release = releases[i] if i < len(releases) else None
        failure = failures[i] if i < len(failures) else None
        ran = isinstance(release, dict) and release and not release.get('skipped')
        if failure or (ran and release.get('failed')):
            return None
        if ran:
            out.append(host)
    return out


def soak_cluster(client, cluster, soak_seconds, max_restarts=0, namespace='default', **clock):
    """Watch every workload of ``cluster`` for ``soak_seconds``: None (passed) or the cause."""
    targets = release_targets.build_targets(cluster.get('workloads') or [],
                                            cluster.get('namespace') or namespace)
    read = release_targets.read_targets(client, targets)
    workloads = []
    for t in targets:
        obj = read[id(t)]
        if isinstance(obj, ApiError):
            return '%s: cannot be read: %s' % (t.label(), error_text(obj))
        workloads.append((t.kind(obj), False))
    options = GateOptions(fail_fast_seconds=0, soak_seconds=soak_seconds, max_restarts=max_restarts)
    soak = Soak(client, options, **clock)
    try:
        results = soak.run(workloads)[0]
    except KubeError as e:
        return 'the soak could not read the cluster: %s' % error_text(e)
    failed = [r.message for r in results if r is not None]
    return '; '.join(failed) or None


def gate_wave(clusters, client_of, soak_seconds, analysis=None, max_restarts=0, **clock):
    """The wave gate over ``clusters`` (the wave's, those released now): ({cluster: cause or None},
    the analysis result or None). The soaks and the analysis run at once."""
    calls = [lambda c=c: soak_cluster(client_of(c), c, soak_seconds, max_restarts, **clock) for c in clusters]
    if analysis is not None:
        calls.append(lambda: analysis.run(soak_seconds))
    answers = fan_out(calls, on_error=lambda e: e)
    causes = {}
    for c, answer in zip(clusters, answers):
        failed = isinstance(answer, Exception)
        causes[c['name']] = 'the soak could not run: %s' % error_text(answer) if failed else answer
    result = None
    if analysis is not None:
        result = analysis.result()
        if isinstance(answers[-1], Exception):
            result['passed'] = False
            result['message'] = 'the analysis could not run: %s' % error_text(answers[-1])
    return causes, result


def skip_reason(gated, check_mode, soak_seconds, analysis):
    """Why the wave gate measures nothing (``gated``: to_gate's answer), or None: it runs."""
    if check_mode:
        return 'check mode'
    if gated is None:
        return 'a cluster of it failed'
    if not gated:
        return 'no cluster of it was released now'
    if not soak_seconds and analysis is None:
        return 'no wave soak or analysis asked for'
    return None


def judge(wave, hosts, causes, analysis_result=None, soak_seconds=0):
    """(failures {cluster: cause}, message) of wave ``wave`` (its ``hosts``; ``causes``: those gated):
    it passes only when every cluster's soak and the analysis passed; when it fails, every cluster of
    it fails (the wave is put back whole, those released in an earlier run included), each with its
    own cause, else the analysis's, else the clusters that failed the wave."""
    bad = {name: cause for name, cause in causes.items() if cause}
    analysis_failed = analysis_result is not None and not analysis_result.get('passed')
    if not bad and not analysis_failed:
        what = []
        if soak_seconds:
            what.append('every workload of %d cluster(s) stayed Ready for %ss' % (len(causes), soak_seconds))
        if analysis_result is not None:
            what.append('the analysis passed (%d measurement(s))' % analysis_result.get('measured', 0))
        return {}, 'wave %s passed its gate: %s' % (wave, ', '.join(what) or 'nothing to check')
    failures = {}
    analysis_text = (analysis_result or {}).get('message') or 'the analysis did not pass'
    for name in list(hosts) + [n for n in causes if n not in hosts]:
        if name in bad:
            failures[name] = 'wave %s gate: %s' % (wave, bad[name])
        elif analysis_failed:
            failures[name] = 'wave %s gate: %s' % (wave, analysis_text)
        else:
            failures[name] = 'wave %s gate: its wave failed (%s)' % (wave, ', '.join(sorted(bad)))
    reasons = ['%s: %s' % (n, c) for n, c in sorted(bad.items())]
    reasons += [analysis_text] if analysis_failed else []
    return failures, 'wave %s failed its gate: %s' % (wave, '; '.join(reasons))

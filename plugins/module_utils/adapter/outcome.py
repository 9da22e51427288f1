# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The ``outcome`` a rollout module returns when asked (the roles keep it): what happened to each
workload, in a few words and lines."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


def outcome_summary(outcomes, entries, refused, not_reached, summarize, failures):
    """What happened to each workload, for a caller that reports on many (the roles): ``done``,
    ``failed``, ``not_reached`` and ``lines``. ``failures``: id(outcome) -> (message, reason) of
    each outcome that failed; ``summarize(out, entries by label)`` may add to it."""
    done, failed = [], []
    for identity, text in refused:
        failed.append(_failure(identity, text))
    for o, entry in zip(outcomes, entries):
        identity = o.workload.identity()
        if id(o) in failures:
            text, reason = failures[id(o)]
            failed.append(_failure(identity, text, reason, entry))
        else:
            done.append(dict(identity, workload=o.workload.label(), changed=o.changed))
    out = {'done': done, 'failed': failed,
           'not_reached': [dict(w.identity(), workload=w.label()) for w in not_reached]}
    by_label = {o.workload.label(): e for o, e in zip(outcomes, entries)}
    out['lines'] = ['%s: %s' % (d['workload'], _what(by_label[d['workload']])) for d in done]
    if summarize is not None:
        summarize(out, by_label)
    out['lines'] += ['FAILED %s' % f['msg'] for f in failed]
    if out['not_reached']:
        out['lines'].append('Not reached (one at a time stops at the first failure): %s'
                            % ', '.join(w['workload'] for w in out['not_reached']))
    return out


def _failure(identity, text, reason=None, entry=None):
    """One failed workload of ``outcome``: ``msg`` names it, ``message`` is the same without its name."""
    label = '%s %s/%s' % (identity['kind'], identity['namespace'], identity['name'])
    message = text[len(label) + 2:] if text.startswith(label + ': ') else text
    diagnosis = (entry or {}).get('diagnosis')
    return dict(identity, workload=label, msg=text, message=message, reason=reason,
                causes=list(diagnosis.get('lines') or []) if diagnosis else [], diagnosis=diagnosis)


def _what(entry):
    """What a task did to one workload, in a few words, from its result entry."""
    status = entry.get('status') or {}
    return (entry.get('message') or status.get('message')
            or ('changed' if entry.get('changed') else 'unchanged'))

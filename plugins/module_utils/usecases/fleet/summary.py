# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The summary of a fleet release, pure: one row per cluster (``rows``) from what the run did there
(its release, its put-back, whether it passed in an earlier run), and the same as one table
(``table``).

A row's ``status``: ``upgraded`` (this run, or an earlier one of the same fleet), ``rolled back``
(put back by the fleet), ``failed`` (with its ``cause``: its release failed, or its put-back could
not finish - then ``remains`` lists what is left and ``next_step`` how to finish it) or ``not
attempted``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

UPGRADED, ROLLED_BACK, FAILED, NOT_ATTEMPTED = 'upgraded', 'rolled back', 'failed', 'not attempted'


def _ran(result):
    """A registered task result that ran (not skipped, not absent), else None."""
    return result if isinstance(result, dict) and result and not result.get('skipped') else None


def inputs(hosts, releases, put_backs, plan, paused_after=None, failures=()):
    """What ``rows`` reads, per host of ``hosts``: from the registered results of its release and its
    put-back (lists in the order of ``hosts``; missing: not run), the inspection's ``plan`` and the
    ``failures`` of the playbook's checks (in the same order; None: none)."""
    planned = (plan or {}).get('hosts') or {}
    out = []
    for i, host in enumerate(hosts):
        p = planned.get(host) or {}
        refusal = p.get('refusal')
        if not refusal and paused_after is not None and (p.get('wave') or 0) > paused_after:
            refusal = 'paused after wave %d (fleet_pause): the next run of the fleet goes on' % paused_after
        out.append({'cluster': host, 'wave': p.get('wave'), 'passed_before': bool(p.get('passed')),
                    'release': _ran(releases[i] if i < len(releases) else None),
                    'put_back': _ran(put_backs[i] if i < len(put_backs) else None), 'refusal': refusal,
                    'failure': (failures[i] if i < len(failures) else None) or None})
    return out


def _row(c, check_mode):
    release, back = _ran(c.get('release')), _ran(c.get('put_back'))
    row = {'cluster': c['cluster'], 'wave': c.get('wave'), 'status': NOT_ATTEMPTED, 'cause': '',
           'changed': [], 'rolled_back': [], 'remains': [], 'next_step': None}
    if release:
        row['changed'] = list(release.get('upgraded') or [])
        row['rolled_back'] = list(release.get('rolled_back') or [])
        if release.get('failed'):
            row.update(status=FAILED, cause=release.get('msg') or 'its release failed',
                       remains=list(release.get('rollback_failed') or []), next_step=release.get('next_step'))
        elif c.get('failure'):  # its release passed, its wave's gate did not
            row.update(status=FAILED, cause=c['failure'])
        else:
            row['status'] = UPGRADED
    elif c.get('failure'):
        row.update(status=FAILED, cause=c['failure'])
    elif c.get('passed_before'):
        row.update(status=UPGRADED, cause='released in an earlier run of this fleet release')
    if back:
        row['rolled_back'] = sorted(set(row['rolled_back']) | set(back.get('rolled_back') or []))
        if back.get('failed'):
            row.update(status=FAILED, remains=list(back.get('rollback_failed') or []),
                       next_step=back.get('next_step'),
                       cause='the put-back did not finish: %s. What remains: %s. Finish it with %s, then run '
                       'the fleet again with fleet_recover=rollback'
                       % (back.get('msg'), ', '.join(back.get('rollback_failed') or []) or 'see the message',
                          back.get('next_step') or 'the step the message names'))
        elif back.get('rolled_back') and row['status'] != FAILED:
            row['status'] = ROLLED_BACK
            row['cause'] = 'put back: %s' % (', '.join(row['rolled_back']) or 'nothing of the fleet was left')
        elif back.get('rolled_back') and release and not release.get('failed'):
            row['cause'] += '; put back: %s' % ', '.join(row['rolled_back'])
    elif c.get('refusal') and row['status'] == NOT_ATTEMPTED:
        row['cause'] = c['refusal']
    if check_mode and row['status'] == UPGRADED and release:
        row['cause'] = 'check mode: would change %s' % (', '.join(row['changed']) or 'nothing')
    return row


def rows(clusters, check_mode=False):
    """One row per cluster of ``clusters`` ([{cluster, wave, release, put_back, passed_before,
    refusal}]: ``release`` and ``put_back`` are rollout_release's registered results)."""
    return [_row(c, check_mode) for c in clusters]


def table(summary_rows):
    """The rows as one table of text lines: CLUSTER, WAVE, STATUS, DETAIL."""
    head = ('CLUSTER', 'WAVE', 'STATUS', 'DETAIL')
    body = [(r['cluster'], '' if r['wave'] is None else str(r['wave']), r['status'].upper(),
             r['cause'] or (', '.join(r['changed']) if r['changed'] else '')) for r in summary_rows]
    widths = [max(len(line[i]) for line in [head] + body) for i in range(3)]
    return ['  '.join(cell.ljust(w) for cell, w in zip(line[:3], widths)) + '  ' + line[3]
            for line in [head] + body]


def outcome(summary_rows, fleet, asked_back=False):
    """(failed, message) of the whole fleet: a cluster failed, or was put back when the put-back was
    not what the run asked (``asked_back``: fleet_recover=rollback)."""
    count = {s: [r['cluster'] for r in summary_rows if r['status'] == s]
             for s in (UPGRADED, ROLLED_BACK, FAILED, NOT_ATTEMPTED)}
    text = '; '.join('%s: %s' % (s, ', '.join(names)) for s, names in count.items() if names)
    failed = bool(count[FAILED] or (count[ROLLED_BACK] and not asked_back))
    return failed, 'fleet release %s %s - %s' % (fleet, 'FAILED' if failed else 'passed',
                                                 text or 'no cluster')

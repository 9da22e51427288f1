# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The decisions of a fleet release (``playbooks/fleet.yml`` with ``fleet_atomic``), pure: its id,
its waves, where it stands from every cluster's records, and what to do.

A cluster's reading (usecases/fleet/read.py) is classified (``standing``) as one of:
``clean`` (no record), ``fleet`` (records of this fleet, with their wave; ``released`` when the
release passed and waits for the fleet), ``other_fleet``, ``release`` (a release outside any fleet
that did not end), ``live`` (a run holds a release's Lease now), ``blocked`` (a record that is not
acted on) or ``unreachable``. ``decide`` turns the standings of EVERY cluster of the inventory (not
only those of the run) into the action: ``refuse``, ``start``, ``resume`` or ``rollback``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json

CLEAN, FLEET, OTHER_FLEET, RELEASE, LIVE, BLOCKED, UNREACHABLE = (
    'clean', 'fleet', 'other_fleet', 'release', 'live', 'blocked', 'unreachable')
REFUSE, START, RESUME, ROLLBACK = 'refuse', 'start', 'resume', 'rollback'


def fleet_id(clusters, given=None):
    """The id of the fleet release: ``given`` (the ``fleet_id`` extra var), else a hash of every
    cluster's name and its workloads with their images and change-causes."""
    if given:
        return given
    entries = sorted([c['name'], sorted(json.dumps(w, sort_keys=True) for w in c.get('workloads') or [])]
                     for c in clusters)
    text = json.dumps(entries, sort_keys=True)
    return 'f-' + hashlib.sha256(text.encode('utf-8')).hexdigest()[:12]


def _batch_size(value, total):
    """A ``serial`` entry as Ansible reads it: a number, or a percentage of ``total`` rounded down
    but at least one; 0 or less takes every host left."""
    text = str(value).strip()
    if text.endswith('%'):
        return int(float(text[:-1]) / 100.0 * total) or 1
    return int(text)


def waves(hosts, serial):
    """The waves of ``hosts`` (in inventory order) as play ``serial`` batches them: [[host, ...], ...]."""
    left, out, sizes = list(hosts), [], list(serial) if isinstance(serial, (list, tuple)) else [serial]
    sizes = sizes or [0]
    i = 0
    while left:
        size = _batch_size(sizes[min(i, len(sizes) - 1)], len(hosts))
        if size <= 0:
            out.append(left)
            break
        out.append(left[:size])
        left = left[size:]
        i += 1
    return out


def standing(reading, fleet):
    """The standing of one cluster (its ``reading``: read.py) with respect to the fleet ``fleet`` (its id)."""
    out = {'cluster': reading['name'], 'state': CLEAN, 'wave': None, 'released': False, 'passed': False,
           'detail': '',
           'would_change': [w['workload'] for w in reading.get('workloads') or [] if w.get('would_change')],
           'records': []}
    if reading.get('error'):
        out.update(state=UNREACHABLE, detail='cannot be read: %s' % reading['error'])
        return out
    found = [w for w in reading['workloads'] if w.get('record') or w.get('problem') or w.get('live')]
    out['records'] = [w['workload'] for w in found if w.get('record')]
    for w in found:  # the worst first: what refuses whatever the fleet
        if w.get('problem'):
            out.update(state=BLOCKED, detail='%s: %s' % (w['workload'], w['problem']))
            return out
    for w in found:
        if w.get('live'):
            out.update(state=LIVE, detail='%s: release %s is running now (%s): wait for it to end'
                       % (w['workload'], w['record']['id'], w['live']))
            return out
    ours = [w for w in found if w['record'].get('fleet') == fleet]
    for w in found:
        if w not in ours:
            other = w['record'].get('fleet')
            state = OTHER_FLEET if other else RELEASE
            what = 'fleet release %s (wave %s)' % (other, w['record'].get('wave')) if other else 'no fleet'
            out.update(state=state, detail='%s carries the record of release %s of %s, started %s, which '
                       'did not end' % (w['workload'], w['record']['id'], what, w['record'].get('started')))
            return out
    if ours:
        released = all((w.get('released') or {}).get('fleet') == fleet for w in ours)
        passed = any((w.get('passed') or {}).get('fleet') == fleet for w in ours)
        wave = max(w['record'].get('wave') or 0 for w in ours) or None
        if passed:
            detail = 'the fleet passed every wave; its finish did not end'
        elif released:
            detail = 'released, waiting for the fleet'
        else:
            detail = 'its release was interrupted (records of %s)' % ', '.join(w['workload'] for w in ours)
        out.update(state=FLEET, wave=wave, released=released or passed, passed=passed,
                   detail='wave %s: %s' % (wave, detail))
    return out


def refusal(s):
    """Why the cluster of standing ``s`` refuses any fleet release now, as one line naming it and
    what to do, or None."""
    if s['state'] == UNREACHABLE:
        return ('%s: %s; the fleet cannot tell where it stands: make it reachable (or take it out of the '
                'inventory), then run again' % (s['cluster'], s['detail']))
    if s['state'] in (LIVE, BLOCKED):
        return '%s: %s' % (s['cluster'], s['detail'])
    if s['state'] in (OTHER_FLEET, RELEASE):
        return ('%s: %s; a second release of these workloads waits until it ends: finish it (its own fleet '
                'run, -e fleet_id=<its id> with fleet_recover) or put it back' % (s['cluster'], s['detail']))
    return None


def describe(s):
    """One line of where a cluster stands."""
    words = {CLEAN: 'no record', FLEET: 'this fleet', OTHER_FLEET: 'another fleet release',
             RELEASE: 'a release in progress', LIVE: 'a live release', BLOCKED: 'a record not acted on',
             UNREACHABLE: 'unreachable'}
    return '%s: %s%s' % (s['cluster'], words[s['state']], ' - ' + s['detail'] if s['detail'] else '')


def decide(standings, fleet, recover, run_hosts, serial):
    """What the fleet run does: a dict with ``action`` (refuse, start, resume, rollback), ``refused``,
    ``refusals`` (one line per cluster refused, with what to do), ``standing`` (one line per
    cluster), ``message``, ``waves`` (the run's, as ``serial`` batches ``run_hosts``), ``hosts``
    ({host: {wave, release, recover, put_back, passed}}) and ``put_back_serial`` (the waves' sizes,
    last first: the put-back play's ``serial`` over the hosts in reverse order)."""
    by_name = {s['cluster']: s for s in standings}
    batches = waves(run_hosts, serial)
    plan = {'fleet_id': fleet, 'standing': [describe(s) for s in standings], 'refusals': [],
            'waves': batches, 'put_back_serial': [len(b) for b in reversed(batches)] or [1], 'hosts': {}}
    refusals = plan['refusals']
    refusals.extend(line for line in (refusal(s) for s in standings) if line)
    ours = [s for s in standings if s['state'] == FLEET]
    interrupted = [s for s in ours if not s['released']]
    committed = [s['cluster'] for s in ours if s.get('passed')]
    if not refusals and committed and recover == 'rollback':
        # Past the commit point the finish may have removed some clusters' records: a put-back of
        # the others would split the fleet between two releases.
        refusals.append('fleet release %s passed every wave (marked passed on %s) and its finish did not '
                        'end: some clusters may hold no record to put back from, so it is not put back; run '
                        'again with fleet_recover=resume (or without it) to finish it, then release the old '
                        'images as a new fleet release to go back' % (fleet, ', '.join(committed)))
    if not refusals and interrupted and recover is None:
        refusals.append('fleet release %s did not end: %s; run again with fleet_recover=resume (go on from '
                        'where it stopped) or fleet_recover=rollback (put every cluster back)'
                        % (fleet, '; '.join(describe(s) for s in ours)))
    if refusals:
        action = REFUSE
    elif recover == 'rollback':
        action = ROLLBACK
    elif ours:
        action = RESUME
    else:
        action = START
    wave_of = {h: i + 1 for i, batch in enumerate(batches) for h in batch}
    for host in run_hosts:
        s = by_name.get(host) or {'state': CLEAN, 'released': False}
        has = s['state'] == FLEET
        plan['hosts'][host] = {
            'wave': wave_of[host],
            'release': action in (START, RESUME) and not (has and s['released']) and not committed,
            'recover': 'resume' if action == RESUME and has and not s['released'] else None,
            'put_back': action == ROLLBACK and has,
            'passed': action == RESUME and ((has and s['released']) or bool(committed)),
        }
    for line in refusals:
        for host in run_hosts:
            if line.startswith(host + ': '):
                plan['hosts'][host]['refusal'] = line[len(host) + 2:]
    for host in run_hosts:
        plan['hosts'][host].setdefault('refusal', 'refused: %s' % '; '.join(refusals) if refusals else None)
    outside = [s['cluster'] for s in ours if s['cluster'] not in plan['hosts']]
    plan['wave_releases'] = [any(plan['hosts'][h]['release'] for h in batch) for batch in batches]
    plan.update(action=action, refused=action == REFUSE, outside=outside, committed=bool(committed),
                release_waves=action in (START, RESUME), put_back_all=action == ROLLBACK,
                message=_message(action, fleet, ours, refusals, outside, plan['hosts'], bool(committed)))
    return plan


def _message(action, fleet, ours, refusals, outside, hosts, committed=False):
    if action == REFUSE:
        return 'fleet release %s refused before any write: %s' % (fleet, '; '.join(refusals))
    tail = ('; %s hold records of this fleet but are not in this run (--limit): run without it to include '
            'them' % ', '.join(outside)) if outside else ''
    if action == ROLLBACK:
        back = [h for h, p in hosts.items() if p['put_back']]
        if back:
            return 'fleet release %s: putting back %s, last wave first%s' % (fleet, ', '.join(back), tail)
        return 'fleet release %s: no cluster holds a record of it, nothing to put back%s' % (fleet, tail)
    if action == RESUME and committed:
        return 'fleet release %s passed every wave before its run stopped: its finish goes on%s' % (
            fleet, tail)
    if action == RESUME:
        passed = [h for h, p in hosts.items() if p['passed']]
        return ('fleet release %s resumes: %s passed already; the other clusters are released wave by wave%s'
                % (fleet, ', '.join(passed) or 'no cluster', tail))
    return 'fleet release %s starts: %d cluster(s) in %d wave(s)%s' % (
        fleet, len(hosts), len({p['wave'] for p in hosts.values()}), tail)

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The record a release keeps on every workload it writes, so that a release outlives its runner.

The annotation ``kubeops.rollout/release`` is written in the same request as the new images and
removed when the release ends (success, or put back). It holds, as JSON: the release ``id``, the
``images`` it wrote, what the workload had before (``template``, ``changeCause``), the
``generation`` its write produced, the ``runner`` and when it ``started`` (engine/records.py encodes
it, within its bounds).

A record is acted on only when it belongs to the workload as it is now: the current template is the
recorded one with the recorded images, at the recorded generation. A record copied onto a ReplicaSet
or a ControllerRevision and brought back by an undo, a workload edited since, or a record that does
not parse, fails that check and is never acted on (``check`` says what differs). And only when it is
sealed: its digest is on the release's Lease, ``kubeops-release-<id>`` in the namespace of the
release's first workload (``verify``), where the app's editors cannot write.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json
import time

from ansible_collections.kubeops.rollout.plugins.module_utils.common.vocabulary import setting
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import KubeError, error_text
from ansible_collections.kubeops.rollout.plugins.module_utils.engine import lease as lease_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.common import times
from ansible_collections.kubeops.rollout.plugins.module_utils.engine import records
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import patches, revisions

RECORD_ANNOTATION = 'kubeops.rollout/release'
# What a put-back leaves on a workload, in its own write: which release was put back, when and why
# (a run of the same release says so before it releases it again); the release's next write removes it.
PUT_BACK_ANNOTATION = 'kubeops.rollout/put-back'
# A canary's record (usecases/release/canary.py): what the workload had before its start.
CANARY_ANNOTATION = 'kubeops.rollout/canary'
# A traffic canary's record, on its canary Deployment (usecases/traffic/record.py).
TRAFFIC_ANNOTATION = 'kubeops.rollout/traffic-canary'
# The Leases of releases: one per release, named after its id.
LEASE_PREFIX = records.LEASE_PREFIX
LEASE_SECONDS = 30
# How a refusal ends when another live run holds what it needs (its next step: wait, then run again).
WAIT_WORDS = ': wait for it to end'


def release_id(targets, change_cause=None):
    """The id of a release: what it writes (each workload's images) and its change-cause, so that
    the same task run again is the same release."""
    text = json.dumps([[t.label(), sorted(t.images.items())] for t in targets] + [change_cause or ''],
                      sort_keys=True)
    return 'r-' + hashlib.sha256(text.encode('utf-8')).hexdigest()[:12]


def record_text(release, workload, images, generation, runner, started, template=None, extra=None):
    """The record written with the images onto ``workload`` (as read before the write). ``template``:
    the template the images are set in, when it is not the workload's (a blue/green preview gets
    the live color's); ``extra``: more fields (what such a write must put back besides)."""
    record = {
        'id': release, 'images': dict(sorted(images.items())),
        'template': workload.template if template is None else template,
        'changeCause': workload.annotations.get(patches.CHANGE_CAUSE_ANNOTATION), 'generation': generation,
        'runner': runner, 'started': started, 'launcher': lease_mod.launcher(),
    }
    record.update(extra or {})
    return records.encode(record)


def text_of(obj):
    """The record annotation's text on ``obj``, or None."""
    return ((obj.get('metadata') or {}).get('annotations') or {}).get(RECORD_ANNOTATION)


def json_fields(text, fields):
    """(record, wrong, problem) of a record's ``text``: the JSON object (records.decode, bounded),
    the keys of ``fields`` ((key, type), ...) missing or of another type; or (None, None, why it is
    not acted on)."""
    try:
        record = records.decode(text)
    except records.Malformed as e:
        return None, None, str(e)
    return record, records.fields(record, fields), None


def parse(text):
    """(record, problem): the record as a dict when its shape is right, else None and what is wrong."""
    record, wrong, problem = json_fields(text, (('id', str), ('images', dict), ('template', dict),
                                                ('generation', int)))
    if problem:
        return None, problem
    if 'id' not in wrong and records.lease_name(record['id']) is None:
        wrong.append('id')
    if 'images' not in wrong and not all(isinstance(k, str) and isinstance(v, str)
                                         for k, v in record['images'].items()):
        wrong.append('images')
    if wrong:
        verb = 'is' if len(wrong) == 1 else 'are'
        return None, 'its %s %s missing or of the wrong type' % (', '.join(wrong), verb)
    return record, None


def check(workload):
    """(record, problem) of ``workload`` (as read): (None, None) without a record; a record that
    belongs to it as it is now; or None and why it is not acted on."""
    text = text_of(workload.obj)
    if text is None:
        return None, None
    record, problem = parse(text)
    if problem:
        return None, problem
    generation = workload.metadata.get('generation')
    if generation != record['generation']:
        return None, ('it was written at generation %s and the workload is at generation %s: its spec '
                      'changed since (an edit, or an undo that brought an old record back)'
                      % (record['generation'], generation))
    try:
        expected = patches.imaged_template(record['template'], record['images'])
    except (patches.UnknownContainer, AttributeError, TypeError):
        return None, 'its images name containers its template does not have'
    if not revisions.templates_equal(expected, workload.template):
        return None, 'the workload\'s template is not the recorded one with the recorded images'
    return record, None


def clear_command(workload, annotation=RECORD_ANNOTATION):
    """The kubectl command that removes the record ``annotation`` (after checking the workload is as
    wanted)."""
    return records.clear_command(workload.kind, workload.name, workload.namespace, annotation)


def read_lease(client, namespace, release):
    """The Lease of ``release`` in ``namespace`` (None: absent, or no release id of ours)."""
    name = records.lease_name(release)
    if name is None:
        return None
    return lease_mod.Lease(client, namespace, name, 'release %s' % release, LEASE_SECONDS).read()


def verify(client, namespace, workload, release, annotation=RECORD_ANNOTATION):
    """Why the record ``annotation`` on ``workload`` (as read), of ``release`` (its id, as the
    record says: a Lease it names is still only found by the id), is not sealed by that release's
    Lease in ``namespace``, or None: it may be acted on."""
    text = workload.annotations.get(annotation)
    try:
        lease = read_lease(client, namespace, release)
    except KubeError as e:
        return 'its seal could not be read from its release\'s Lease (%s)' % error_text(e)
    return records.unsealed(lease, workload.obj, annotation, text)


def drop_seal(client, namespace, release, key, warnings):
    """The seal ``key`` off the Lease of ``release`` (a record of it was replaced by another
    release's); the Lease goes when no seal is left and nobody holds it. A failure is a warning only
    (a seal left behind vouches for a record that no longer exists: harmless)."""
    name = records.lease_name(release)
    if name is None:
        return
    lease = lease_mod.Lease(client, namespace, name, 'release %s' % release, LEASE_SECONDS)
    try:
        found = lease.read()
        if found is None or key not in records.seals_of(found):
            return
        if (found.get('spec') or {}).get('holderIdentity') and not lease.expired(found, 0):
            return  # a live run of that release holds it: it keeps its own seals
        lease.obj, lease.identity = found, (found.get('spec') or {}).get('holderIdentity')
        lease.release([key])
    except KubeError as e:
        warnings.append('the seal of %s on Lease %s/%s could not be removed (%s): remove the Lease when no '
                        'record of release %s is left' % (key, namespace, name, e, release))


def seal_of(workload, annotation, text):
    """The seal update ({key: digest}) of the record ``text`` written in ``annotation`` on
    ``workload`` (as read)."""
    return {records.seal_key(workload.obj): records.digest(workload.obj, annotation, text)}


def hold_refusal(workload, label):
    """Why a plain release of ``workload`` would leave pods on two versions (a canary in progress, a
    partition above 0), or None."""
    if CANARY_ANNOTATION in workload.annotations:
        return ('%s has a canary in progress: promote it or roll it back (rollout_release with %s or %s) '
                'before a release' % (label, setting('canary', 'promote', module='rollout_release'),
                                      setting('canary', 'rollback', module='rollout_release')))
    if workload.partition:
        return ('%s has a rolling update partition of %d: a release would update only the pods above it '
                'and leave the others on the old images; set the partition to 0 first, or release it as '
                'a canary' % (label, workload.partition))
    return None


def live_holder(client, namespace, release, seconds):
    """Who holds the Lease of ``release`` in ``namespace`` (the namespace of the release's first
    workload; never a field of a record) while it is live (another run works on it), else None."""
    name = records.lease_name(release)
    if name is None:
        return None
    lease = lease_mod.Lease(client, namespace, name, 'release %s' % release, seconds, clock=time.time)
    found = lease.read()
    if found is None or lease.expired(found, time.time()):
        return None
    return lease.describe(found)


def in_flight_refusal(client, workload, verb):
    """(why ``verb`` (an undo, a restart, an image change by this collection) must not write
    ``workload`` now, its next step) or (None, None): it carries the record of a release that has not
    ended (the record belongs to the workload as it is), which the write would fight, or a record that
    is malformed (its way out named); a stale record does not refuse."""
    where = workload.label()
    text = text_of(workload.obj)
    if text is None:
        return None, None
    _record, malformed = parse(text)
    if malformed:
        how = clear_command(workload)
        return ('%s carries a %s record that is not acted on: %s. Check the workload is as you want it, '
                'then remove the record: %s' % (where, RECORD_ANNOTATION, malformed, how)), how
    record, _problem = check(workload)
    if record is None:
        return None, None  # a stale record (copied back by an undo, or edited over): it does not refuse
    try:
        holder = live_holder(client, workload.namespace, record['id'], LEASE_SECONDS)
    except KubeError:  # the Lease could not be read: the record alone decides
        holder = None
    if holder is not None:
        return ('%s is being released (release %s, started %s): %s; a %s now would fight it. Wait for '
                'that run to end' % (where, record['id'], record.get('started'), holder, verb)), 'wait'
    return ('%s carries the record of release %s (started %s by %s), which did not end; a %s now would '
            'be judged by nobody. Finish that release first: rollout_release with %s (wait and judge it) '
            'or %s (put it back)'
            % (where, record['id'], record.get('started'), lease_mod.runner_text(record), verb,
               setting('recover', 'resume', module='rollout_release'),
               setting('recover', 'rollback', module='rollout_release'))), \
        'kubeops.rollout.rollout_release %s' % setting('recover', 'rollback', module='rollout_release')


def take_lease(client, namespace, name, release, seconds, runner, seals=None):
    """(Lease, None): the Lease of ``release`` taken by ``runner`` (with ``seals``, the seals of the
    records the run is about to write) and renewed until released; or (None, problem) when another
    live run holds it or it cannot be written."""
    lease = lease_mod.Lease(client, namespace, name, 'release %s' % release,
                            seconds or LEASE_SECONDS, identity=runner, seals=seals)
    try:
        lease.acquire(wait=False, timeout=0)
    except lease_mod.LeaseHeld as e:
        return None, 'release %s is running elsewhere (%s)%s' % (release, e, WAIT_WORDS)
    except KubeError as e:
        return None, ('release %s could not take its Lease %s/%s (one run at a time): %s'
                      % (release, namespace, name, error_text(e)))
    lease.start_renewing()
    return lease, None


def held_problem(client, namespace, name, release, seconds, runner):
    """In check mode, instead of ``take_lease``: the problem it would give (another live run holds the
    Lease of ``release``), from one read; None when the Lease is free, or unreadable."""
    lease = lease_mod.Lease(client, namespace, name, 'release %s' % release, seconds or LEASE_SECONDS,
                            identity=runner)
    try:
        found = lease.read()
    except KubeError:
        return None
    holder = ((found or {}).get('spec') or {}).get('holderIdentity')
    if found is None or holder == runner or lease.expired(found, lease.clock()):
        return None
    return 'release %s is running elsewhere (%s)%s' % (release, lease.held_message(found), WAIT_WORDS)


def put_back_mark(current, release, cause):
    """The JSON patch operation that marks ``current`` (a workload as read, being put back) as put
    back from ``release`` now, because of ``cause``."""
    text = records.encode({'id': release, 'at': times.rfc3339_now(), 'cause': (cause or '')[:500]})
    pointer = patches.json_pointer('metadata', 'annotations', PUT_BACK_ANNOTATION)
    if not ((current.get('metadata') or {}).get('annotations')):
        return [{'op': 'add', 'path': '/metadata/annotations', 'value': {PUT_BACK_ANNOTATION: text}}]
    return [{'op': 'add', 'path': pointer, 'value': text}]


def put_back_before(workload, release, recover):
    """A warning when ``workload`` (as read, about to be written) was put back from ``release``: the
    same release again is a second rollout of what failed, said before it is written."""
    text = workload.annotations.get(PUT_BACK_ANNOTATION)
    if not text or recover is not None:
        return []
    try:
        mark = records.decode(text)
    except records.Malformed:
        return []
    if mark.get('id') != release:
        return []
    return ['%s: release %s was put back at %s (%s); this run releases the same images again'
            % (workload.label(), release, mark.get('at'), mark.get('cause') or 'no cause recorded')]

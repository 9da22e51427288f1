# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""One run at a time: a ``coordination.k8s.io/v1`` Lease named after what a run changes (a
release's workload, a rolling update's ReplicationController), held while the run works and renewed
by a thread, taken over only once its holder stopped renewing it."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import binascii
import copy
import hashlib
import os
import socket
import threading
import time

from ansible_collections.kubeops.rollout.plugins.module_utils.common import threads, times
from ansible_collections.kubeops.rollout.plugins.module_utils.api.client import path_quote
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import (
    ApiError,
    KubeError,
    error_text,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.engine import records

LEASES_PATH = '/apis/coordination.k8s.io/v1/namespaces/%s/leases'
LEASE_RENEWALS = 3  # renewals per lease duration (client-go renews well within the duration too)


class LeaseHeld(Exception):
    """Another live run holds the lease (``lease``: the Lease as read)."""

    def __init__(self, message, lease):
        super(LeaseHeld, self).__init__(message)
        self.lease = lease


class LeaseLost(Exception):
    """This run no longer holds its lease: it must not write again."""


def lease_name(prefix, subject_name):
    """``prefix`` + ``subject_name``, a DNS subdomain of at most 253 chars (a hash ends a long one)."""
    name = prefix + subject_name
    if len(name) > 253:
        name = name[:240] + '-' + hashlib.sha256(subject_name.encode('utf-8')).hexdigest()[:12]
    return name


def holder_identity():
    """Who runs this update: host, process id and a random part (two runs of one process differ)."""
    return '%s/%d/%s' % (socket.gethostname(), os.getpid(), binascii.hexlify(os.urandom(4)).decode('ascii'))


_LAUNCHER = []  # this process's launcher, found once (a release writes a record per workload)


def launcher(environ=None, proc='/proc'):
    """What started this run, for a record an operator reads later: the nearest ancestor process
    that is ``ansible-playbook`` (its PID: a killed controller leaves the task's worker running, in
    a session of its own) and, in an AWX (or Automation Controller) job, the job's id (AWX puts
    ``JOB_ID`` in the job's environment). Only what is known."""
    if environ is None and proc == '/proc':
        if not _LAUNCHER:
            _LAUNCHER.append(_find_launcher(os.environ, proc))
        return dict(_LAUNCHER[0])
    return _find_launcher(environ or {}, proc)


def _find_launcher(environ, proc):
    out = {}
    pid, seen = os.getppid(), set()
    while pid > 1 and pid not in seen:
        seen.add(pid)
        try:
            with open('%s/%d/cmdline' % (proc, pid), 'rb') as f:
                argv = f.read().split(b'\0')
            with open('%s/%d/stat' % (proc, pid)) as f:
                parent = int(f.read().rpartition(')')[2].split()[1])
        except (IOError, OSError, ValueError, IndexError):
            break
        if any(os.path.basename(a.decode('utf-8', 'replace')) == 'ansible-playbook' for a in argv[:2]):
            out['ansiblePlaybookPid'] = pid
            break
        pid = parent
    job = environ.get('JOB_ID')
    if job and job.isdigit():
        out['awxJobId'] = int(job)
    return out


def runner_text(record):
    """Who ran a record's release, as messages name it: its runner and what launched it."""
    launched = record.get('launcher') if isinstance(record.get('launcher'), dict) else {}
    more = ', '.join(('ansible-playbook %s' % launched['ansiblePlaybookPid']) if k == 'ansiblePlaybookPid'
                     else 'AWX job %s' % launched['awxJobId'] for k in sorted(launched)
                     if k in ('ansiblePlaybookPid', 'awxJobId'))
    return '%s%s' % (record.get('runner'), ' (%s)' % more if more else '')


def holder_gone(identity):
    """Whether ``identity`` (``holder_identity``'s host/pid/random) names a process of this host that
    no longer runs (missing, or a zombie its parent has not reaped yet): its lease is free at once
    rather than when it expires."""
    host, _sep, rest = identity.partition('/')
    pid = rest.partition('/')[0]
    if host != socket.gethostname() or not pid.isdigit() or not os.path.isdir('/proc/self'):
        return False
    try:
        with open('/proc/%s/stat' % pid) as f:
            stat = f.read()
    except (IOError, OSError):
        return True  # no such process
    # The state follows the command in parentheses: a zombie (Z) or dead (X) process runs no more.
    return stat.rpartition(')')[2].split()[:1] in (['Z'], ['X'])


class Lease:
    """A ``coordination.k8s.io/v1`` Lease: one run at a time drives what it is named after.

    ``acquire`` takes the lease (create, or update with its resourceVersion when it is free or
    expired), waiting for a live holder up to ``timeout`` when ``wait``; a thread renews it every
    third of its duration; ``check`` (before each write) stops a run that lost it or could not
    renew it within its duration; ``release`` deletes it (precondition: our resourceVersion).
    A lease is free once neither its renewTime nor what this run saw of it changed for its
    duration: a dead holder's lease expires, a live one keeps renewing.
    """

    def __init__(self, api, namespace, name, subject, duration, clock=time.time, sleep=time.sleep,
                 identity=None, seals=None):
        """``name``: the Lease's name; ``subject``: what it guards, for messages; ``seals``: the seals
        (records.with_seals updates) the Lease gets in the request that takes it."""
        self.api = api
        self.namespace = namespace
        self.name = name
        self.subject = subject
        self.duration = max(1, int(duration))
        self.clock = clock
        self.sleep = sleep
        self.identity = identity or holder_identity()
        self.obj = None
        self.renewed = None  # local time of the last renewal that the API accepted
        self.lost = None  # why this run no longer holds the lease
        self.renew_error = None  # what the last renewal that failed was answered (a KubeError)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = None
        self._seals = dict(seals or {})

    @property
    def collection(self):
        return LEASES_PATH % path_quote(self.namespace)

    @property
    def path(self):
        return '%s/%s' % (self.collection, path_quote(self.name))

    def read(self):
        try:
            return self.api.get(self.path)
        except ApiError as e:
            if e.status == 404:
                return None
            raise

    def _spec(self, now, previous=None):
        spec = dict((previous or {}).get('spec') or {})
        transitions = int(spec.get('leaseTransitions') or 0)
        if previous is not None and spec.get('holderIdentity') not in (None, '', self.identity):
            transitions += 1
        spec.update(holderIdentity=self.identity, leaseDurationSeconds=self.duration,
                    acquireTime=times.micro_time(now), renewTime=times.micro_time(now),
                    leaseTransitions=transitions)
        return spec

    def describe(self, lease):
        spec = lease.get('spec') or {}
        return ('"%s" holds Lease %s/%s (since %s, last renewed %s, duration %ss)'
                % (spec.get('holderIdentity'), self.namespace, self.name, spec.get('acquireTime') or '?',
                   spec.get('renewTime') or '?', spec.get('leaseDurationSeconds') or '?'))

    def expired(self, lease, seen_since):
        """Free: no holder, a holder that was a process of this host and is gone, or neither
        renewTime + duration nor our own sighting is recent."""
        spec = lease.get('spec') or {}
        if not spec.get('holderIdentity') or holder_gone(spec['holderIdentity']):
            return True
        duration = float(spec.get('leaseDurationSeconds') or self.duration)
        renewed = times.parse(spec.get('renewTime') or spec.get('acquireTime'))
        now = self.clock()
        return (renewed is not None and renewed + duration < now) or seen_since + duration < now

    def acquire(self, wait, timeout):
        """Take the lease. Returns the holder this run took it over from (an expired one), or None."""
        deadline = self.clock() + float(timeout)
        seen = None  # (resourceVersion, local time first seen)
        lease = None  # try to create it first: usually nobody holds it
        while True:
            if seen is not None or lease is False:
                lease = self.read()
            now = self.clock()
            if lease is None:
                body = {'apiVersion': 'coordination.k8s.io/v1', 'kind': 'Lease',
                        'metadata': {'name': self.name, 'namespace': self.namespace}, 'spec': self._spec(now)}
                self._sealed(body, self._seals)
                try:
                    # Repeated after a lost answer: the 409 then finds this run's identity in it.
                    self.obj = self.api.create(self.collection, body, retry=True)
                except ApiError as e:
                    if e.status == 409:  # another run holds it (or this one, its answer lost): read it
                        lease = False
                        continue
                    raise
                self.renewed = now
                return None
            rv = lease['metadata'].get('resourceVersion')
            if seen is None or seen[0] != rv:
                seen = (rv, now)
            holder = (lease.get('spec') or {}).get('holderIdentity')
            if holder == self.identity or self.expired(lease, seen[1]):
                body = copy.deepcopy(lease)
                body['spec'] = self._spec(now, lease)
                self._sealed(body, self._seals)
                try:
                    self.obj = self.api.replace(self.path, body)
                except ApiError as e:
                    if e.is_conflict or e.status == 404:
                        continue
                    raise
                self.renewed = now
                return holder or None
            if not wait:
                raise LeaseHeld(self.held_message(lease), lease)
            remaining = deadline - now
            if remaining <= 0:
                raise LeaseHeld(self.gave_up_message(lease, timeout), lease)
            self._wait_change(rv, min(remaining, float(self.duration)))

    def _wait_change(self, rv, seconds):
        """Until the lease changes (renewed, released, deleted) or ``seconds`` pass."""
        try:
            for event_type, _obj in self.api.watch(self.collection, resource_version=rv,
                                                   field_selector='metadata.name=%s' % self.name,
                                                   timeout_seconds=int(seconds + 0.999)):
                if event_type != 'BOOKMARK':
                    return
        except ApiError as e:
            if e.status != 410:
                raise

    # -- seals (engine/records.py): kept on the Lease as long as a record they vouch for
    @staticmethod
    def _sealed(body, updates):
        """``body`` (a Lease) with its seals updated; whether any seal is left."""
        meta = body.setdefault('metadata', {})
        annotations = dict(meta.get('annotations') or {})
        seals = records.with_seals(records.seals_of(body), updates)
        if seals:
            annotations[records.SEALS_ANNOTATION] = records.seals_text(seals)
        else:
            annotations.pop(records.SEALS_ANNOTATION, None)
        if annotations:
            meta['annotations'] = annotations
        else:
            meta.pop('annotations', None)
        return bool(seals)

    def seal(self, updates):
        """Add (or drop, with None) seals on the held Lease now, before the records they vouch for
        are written; a conflict with the renewal is read again and retried while the Lease is ours."""
        if updates:
            self._change(lambda body: self._sealed(body, updates), 'sealing its record')

    def annotate(self, key, text):
        """Set (None: remove) the annotation ``key`` of the held Lease, as ``seal`` does its seals."""
        def change(body):
            annotations = dict(body.setdefault('metadata', {}).get('annotations') or {})
            annotations[key] = text
            if text is None:
                del annotations[key]
            body['metadata']['annotations'] = annotations
        self._change(change, 'marking it')

    def _change(self, change, doing):
        self.check()
        for _attempt in range(5):
            with self._lock:
                body = copy.deepcopy(self.obj)
            change(body)
            try:
                stored = self.api.replace(self.path, body)
            except ApiError as e:
                if not e.is_conflict:
                    raise
                fresh = self.read()
                if fresh is None or (fresh.get('spec') or {}).get('holderIdentity') != self.identity:
                    raise LeaseLost('this run lost its Lease %s/%s before %s'
                                    % (self.namespace, self.name, doing))
                with self._lock:
                    self.obj = fresh
                continue
            with self._lock:
                self.obj = stored
            return
        raise LeaseLost('the Lease %s/%s kept changing while this run was %s'
                        % (self.namespace, self.name, doing))

    # -- while working
    def start_renewing(self):
        self._thread = threads.start(self._renew_loop, name='lease-renewal')

    def _renew_loop(self):
        while not self._stop.wait(float(self.duration) / LEASE_RENEWALS):
            if self.lost:
                return
            try:
                self.renew()
                self.renew_error = None
            except KubeError as e:
                # Transient, or not: check() stops the run once the lease may have expired, and says why.
                self.renew_error = e

    def renew(self):
        now = self.clock()
        with self._lock:
            body = copy.deepcopy(self.obj)
        body['spec']['renewTime'] = times.micro_time(now)
        try:
            stored = self.api.replace(self.path, body)
        except ApiError as e:
            if not (e.is_conflict or e.status == 404):
                raise
            fresh = self.read()
            if fresh is not None and (fresh.get('spec') or {}).get('holderIdentity') == self.identity:
                with self._lock:
                    self.obj = fresh
                return
            self.lost = ('its lease was taken over (%s)' % self.describe(fresh)) if fresh is not None \
                else 'its Lease %s/%s was deleted' % (self.namespace, self.name)
            return
        with self._lock:
            self.obj = stored
            self.renewed = now

    # -- messages (a subclass words them for what it guards)
    def held_message(self, lease):
        return 'another run holds %s: %s' % (self.subject, self.describe(lease))

    def gave_up_message(self, lease, timeout):
        return 'gave up after %ss waiting for another run holding %s: %s. Run the task again later' % (
            timeout, self.subject, self.describe(lease))

    def check(self):
        """Before a write: stop when this run lost the lease or could not renew it in time."""
        if self.lost:
            raise LeaseLost('this run stopped before its next write: %s. Another run drives %s now'
                            % (self.lost, self.subject))
        if self.renewed is not None and self.clock() > self.renewed + self.duration:
            cause = (' (%s)' % error_text(self.renew_error)) if self.renew_error is not None else ''
            raise LeaseLost('this run stopped before its next write: it could not renew its Lease %s/%s '
                            'for %ss%s, so another run may have taken %s over'
                            % (self.namespace, self.name, self.duration, cause, self.subject))

    def release(self, unsealed=()):
        """Stop renewing; drop the seals of the records this run removed (``unsealed``: their keys);
        delete the lease if it is still ours and no seal is left, else hand it back (no holder) so
        that it keeps vouching for the records left."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(30)
        if self.obj is None or self.lost:
            return
        body = copy.deepcopy(self.obj)
        if self._sealed(body, dict.fromkeys(unsealed)):
            body['spec'] = dict(body.get('spec') or {}, holderIdentity=None)
            for attempt in range(3):
                try:
                    self.api.replace(self.path, body)
                    return
                except ApiError as e:
                    if not e.is_conflict or attempt == 2:
                        raise
                fresh = self.read()
                if fresh is None or (fresh.get('spec') or {}).get('holderIdentity') != self.identity:
                    return
                body = fresh
                self._sealed(body, dict.fromkeys(unsealed))
                body['spec'] = dict(body.get('spec') or {}, holderIdentity=None)
        meta = self.obj['metadata']
        body = {'kind': 'DeleteOptions', 'apiVersion': 'v1',
                'preconditions': {'uid': meta.get('uid'), 'resourceVersion': meta.get('resourceVersion')}}
        try:
            self.api.delete(self.path, body=body)
        except ApiError as e:
            if e.status not in (404, 409):
                raise


def let_go(lease, what, warnings, unsealed=()):
    """Release ``lease`` (None: nothing to do), dropping the seals of ``unsealed`` (the keys of the
    records this run removed); a failure is only a warning naming ``what`` (the Lease expires by
    itself). Returns None, the holder's next value."""
    if lease is not None:
        try:
            lease.release(unsealed)
        except KubeError as e:
            warnings.append('the Lease of %s could not be deleted (%s): it expires by itself'
                            % (what, error_text(e)))
    return None

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""``JobProvider``: a check measured by a Kubernetes Job (``{name, job: <a batch/v1 JobSpec>}``).

Each measurement creates one Job from the spec (``generateName: <check name>-``, labelled
``kubeops.rollout/analysis=<check name>`` and ``kubeops.rollout/release=<release id or run id>``,
without an ownerReference, so that nothing the application's editors delete takes it along) and
follows that Job, by its uid, with watches of it and of its pods until it ends: ``Complete``
passes, ``Failed`` fails (with the last lines of its pod's log when the API server lets them be
read), a pod that cannot pull its image or a Job that never started within the check's ``timeout``
is inconclusive (with its cause), a Job deleted before it ended is inconclusive and counts as a
failure even with ``inconclusive: pass``, and one still running at the ``timeout`` is an error; a
Job that did not end is deleted. A Job anybody else created, with the same labels or not, never
counts. After each measurement the check's finished Jobs beyond the newest ``KEPT_JOBS`` are
deleted (by label). In check mode the Job is created with ``dryRun=All`` and the measurement is
``skipped`` (not measured).

``Cluster`` is where the Jobs go: the API client, built when first needed, the default namespace,
check mode and the run's label value (a release sets its id)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import queue
import re
import threading
import time
import uuid

from ansible_collections.kubeops.rollout.plugins.module_utils.common import threads
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError
from ansible_collections.kubeops.rollout.plugins.module_utils.common.validation import label_problem
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.provider import (
    ERROR,
    FAILED,
    INCONCLUSIVE,
    MAX_MESSAGE,
    PASSED,
    SKIPPED,
    AnalysisError,
    Measurement,
    Provider,
    duration,
    fmt,
    shown,
)

ANALYSIS_LABEL = 'kubeops.rollout/analysis'
RELEASE_LABEL = 'kubeops.rollout/release'
CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid'
# The finished Jobs of a check kept for the operator to read (the newest; older ones are deleted).
KEPT_JOBS = 5
# The last lines of a failed Job's pod shown in the message, and at most this much of them.
LOG_LINES = 10
LOG_BYTES = 16384
# Seconds one watch request lasts: the watches of a measurement that ended close within this.
WATCH_SECONDS = 10
# A container waiting for one of these will not start by itself.
CANNOT_START = ('ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull',
                'CreateContainerConfigError', 'CreateContainerError')
# A check's name is the prefix of its Jobs' names (<name>-<5 characters>, at most 63).
_JOB_PREFIX = re.compile(r'^[a-z0-9]([-a-z0-9]{0,55}[a-z0-9])?$')
_LABEL_VALUE = re.compile(r'[^A-Za-z0-9_.-]+')


def jobs_path(namespace):
    return '/apis/batch/v1/namespaces/%s/jobs' % namespace


def pods_path(namespace):
    return '/api/v1/namespaces/%s/pods' % namespace


def label_value(text):
    """``text`` as a label value: other characters as ``-``, at most 63, alphanumeric at both ends."""
    return _LABEL_VALUE.sub('-', str(text))[:63].strip('-_.') or 'run'


class Cluster:
    """Where a job check's Jobs run. ``client()``: the API client (called when first needed);
    ``namespace()``: the default namespace (the task's); ``check_mode``; ``run_id``: the value of
    the release label (a release sets its id; otherwise one per task)."""

    def __init__(self, client, namespace, check_mode=False, run_id=None):
        self._client = client
        self._namespace = namespace
        self.check_mode = check_mode
        self.run_id = run_id or 'run-' + uuid.uuid4().hex[:10]

    @property
    def client(self):
        return self._client()

    @property
    def namespace(self):
        return self._namespace()


def condition(job, kind):
    """The Job's ``kind`` condition when it is True, else None."""
    for cond in (job.get('status') or {}).get('conditions') or []:
        if cond.get('type') == kind and cond.get('status') == 'True':
            return cond
    return None


def _containers(pod):
    status = pod.get('status') or {}
    return (status.get('initContainerStatuses') or []) + (status.get('containerStatuses') or [])


def cannot_start(pods):
    """Why a pod of the Job cannot start (``pod <name>: container <c> <Reason>: <message>``), or None."""
    for pod in pods:
        for cs in _containers(pod):
            waiting = (cs.get('state') or {}).get('waiting') or {}
            if waiting.get('reason') in CANNOT_START:
                why = '%s: %s' % (waiting['reason'], waiting['message']) if waiting.get('message') \
                    else waiting['reason']
                return 'pod %s: container %s %s' % (pod['metadata'].get('name'), cs.get('name'), why)
    return None


def started(pods):
    """Whether a container of the Job's pods ever ran."""
    return any(set(cs.get('state') or {}) & {'running', 'terminated'} or (cs.get('lastState') or {})
               for pod in pods for cs in _containers(pod))


def never_started(job, pods):
    """Why the Job has no container that ran: its pod's scheduling or waiting reason, or no pod."""
    if condition(job, 'Suspended'):
        return 'the Job is suspended'
    for pod in pods:
        for cond in (pod.get('status') or {}).get('conditions') or []:
            if cond.get('type') == 'PodScheduled' and cond.get('status') == 'False':
                why = cond.get('message') or cond.get('reason')
                return 'pod %s is not scheduled: %s' % (pod['metadata'].get('name'), why)
        for cs in _containers(pod):
            waiting = (cs.get('state') or {}).get('waiting') or {}
            if waiting.get('reason'):
                return 'pod %s: container %s waiting (%s)' % (pod['metadata'].get('name'), cs.get('name'),
                                                              waiting['reason'])
    if pods:
        return 'pod %s is %s' % (pods[0]['metadata'].get('name'),
                                 (pods[0].get('status') or {}).get('phase') or 'Pending')
    return 'no pod was created (kubectl describe job shows why)'


def failed_container(pods):
    """(pod name, container name) whose log explains a failure: the newest pod's container that
    exited non-zero, else its first container; None without pods."""
    if not pods:
        return None
    pod = max(pods, key=lambda p: (p['metadata'].get('creationTimestamp') or '', p['metadata']['name']))
    for cs in _containers(pod):
        if ((cs.get('state') or {}).get('terminated') or {}).get('exitCode'):
            return pod['metadata']['name'], cs.get('name')
    containers = (pod.get('spec') or {}).get('containers') or [{}]
    return pod['metadata']['name'], containers[0].get('name')


def expired(jobs, keep=KEPT_JOBS):
    """The finished Jobs beyond the newest ``keep`` (oldest first), which the clean-up deletes; Jobs
    still running are never among them."""
    done = [j for j in jobs if condition(j, 'Complete') or condition(j, 'Failed')]
    done.sort(key=lambda j: (j['metadata'].get('creationTimestamp') or '', j['metadata'].get('name')))
    return done[:max(0, len(done) - keep)]


class JobProvider(Provider):
    """A check measured by one Job per measurement (see the module's text)."""

    KEY = 'job'
    DEFAULT_TIMEOUT = 300
    OPTIONS = None  # the value is a batch/v1 JobSpec, sent as given
    # Options of the check itself (beside ``name``) that this provider reads.
    CHECK_LEVEL_OPTIONS = ('namespace', 'timeout')
    # One Job at a time: the next measurement is due ``interval`` seconds after this one ended.
    INTERVAL_FROM_END = True

    def __init__(self, name, options, low=None, high=None, namespace=None, timeout=None, cluster=None):
        where = 'analysis check "%s"' % name
        if low is not None or high is not None:
            raise AnalysisError('%s: min and max do not apply to a job check (its Job passes or fails)'
                                % where)
        if not _JOB_PREFIX.match(str(name)):
            raise AnalysisError('%s: a job check\'s name names its Jobs: lowercase letters, digits and "-", '
                                'at most 57 characters, a letter or digit at both ends' % where)
        if cluster is None:
            raise AnalysisError('%s: a job check needs a Kubernetes connection, which this task has none of'
                                % where)
        template = options.get('template') if isinstance(options, dict) else None
        pod_spec = template.get('spec') if isinstance(template, dict) else None
        if not isinstance(pod_spec, dict) or not pod_spec.get('containers'):
            raise AnalysisError('%s: job must be a Job spec with template.spec.containers' % where)
        if namespace is not None:
            problem = label_problem(namespace)
            if problem:
                raise AnalysisError('%s: namespace: %s' % (where, problem))
        self.name = name
        self.min = self.max = None
        self.spec = copy.deepcopy(options)
        self.namespace_option = namespace
        self.cluster = cluster
        timeout = self.DEFAULT_TIMEOUT if timeout is None else timeout
        self.endpoint = {'timeout': duration(timeout, 'timeout of %s' % where, self.MAX_TIMEOUT,
                                             '%s: timeout' % where)}
        self.deadline = None
        self.jobs = []  # the names of the Jobs this check created, the last KEPT_JOBS

    # -- what the check is
    def secrets(self):
        return []

    @property
    def namespace(self):
        return self.namespace_option or self.cluster.namespace

    @property
    def where(self):
        return 'namespace %s' % self.namespace

    def describe(self):
        return {'name': self.name, 'type': self.KEY, 'namespace': self.namespace,
                'timeout': self.endpoint['timeout'], 'jobs': list(self.jobs)}

    def body(self):
        """The Job a measurement creates."""
        labels = {ANALYSIS_LABEL: self.name, RELEASE_LABEL: label_value(self.cluster.run_id)}
        spec = copy.deepcopy(self.spec)
        spec.setdefault('backoffLimit', 0)  # one try: a measurement, not a retry loop
        template = spec['template']
        meta = template.setdefault('metadata', {})
        meta['labels'] = dict(meta.get('labels') or {}, **labels)
        template['spec'].setdefault('restartPolicy', 'Never')  # the API server refuses Always on a Job
        return {'apiVersion': 'batch/v1', 'kind': 'Job',
                'metadata': {'generateName': self.name + '-', 'namespace': self.namespace, 'labels': labels},
                'spec': spec}

    # -- measuring
    def _said(self, outcome, text, value=None):
        return Measurement(outcome, 'check "%s": %s' % (self.name, text), value)

    def measure(self, opener=None):
        """One measurement: create the Job, follow it to its end (or the timeout), clean up."""
        self.deadline = time.monotonic() + self.endpoint['timeout']
        try:
            measurement = self._measure(opener)
        except ApiError as e:
            measurement = self._said(ERROR, 'cannot run its Job in %s: %s' % (self.where, e))
        except Exception as e:  # anything the API does is a failed measurement, never a traceback
            why = str(e) or type(e).__name__
            measurement = self._said(ERROR, 'cannot run its Job in %s: %s' % (self.where, why))
        finally:
            self.deadline = None
        measurement.message = shown(measurement.message, MAX_MESSAGE)
        return measurement

    def probe(self, opener=None):
        """For a preflight: whether the Job can be created (``dryRun=All``: its spec is valid and the
        task may create Jobs there); ``error`` when not, else ``skipped``. Creates nothing."""
        try:
            self.cluster.client.create(jobs_path(self.namespace), self.body(), dry_run=True)
        except Exception as e:
            return self._said(ERROR, 'its Job cannot be created in %s: %s' % (self.where, e))
        return self._said(SKIPPED, 'its Job can be created in %s' % self.where)

    def _measure(self, opener):
        client = self.cluster.client
        path = jobs_path(self.namespace)
        if self.cluster.check_mode:
            client.create(path, self.body(), dry_run=True)
            return self._said(SKIPPED, 'check mode: not measured (a Job would be created in %s; the API '
                                       'server accepted it with dryRun=All)' % self.where)
        job = client.create(path, self.body())
        name = job['metadata']['name']
        self.jobs = (self.jobs + [name])[-KEPT_JOBS:]
        measurement = self._follow(client, job)
        measurement.value = name
        untidy = self._clean_up(client)
        if untidy:
            measurement.message += ' (old Jobs of the check not deleted: %s)' % untidy
        return measurement

    def _follow(self, client, job):
        """The verdict on ``job`` (as created), from watches of it and of its pods."""
        meta = job['metadata']
        name, uid, ns = meta['name'], meta['uid'], self.namespace
        what = 'Job %s/%s' % (ns, name)
        events = queue.Queue()
        stop = threading.Event()
        until = self.deadline
        rv = meta.get('resourceVersion')
        own = {'field_selector': 'metadata.name=%s' % name}
        its_pods = {'label_selector': '%s=%s' % (CONTROLLER_UID_LABEL, uid)}
        threads.start(_pump, (client, jobs_path(ns), own, rv, events, stop, 'job', until),
                      name='watch job %s' % name)
        threads.start(_pump, (client, pods_path(ns), its_pods, rv, events, stop, 'pods', until),
                      name='watch pods of job %s' % name)
        pods = {}
        pods_unseen = None  # why the pods cannot be watched, when they cannot
        try:
            while True:
                verdict = self._judge(client, job, list(pods.values()), what)
                if verdict is not None:
                    return verdict
                left = self.deadline - time.monotonic()
                if left <= 0:
                    return self._timed_out(client, job, list(pods.values()), what, pods_unseen)
                try:
                    source, item = events.get(timeout=left)
                except queue.Empty:
                    continue
                if isinstance(item, Exception):
                    if source == 'pods' and isinstance(item, ApiError):
                        pods_unseen = item  # judged by the Job alone
                        continue
                    raise item
                kind, obj = item
                if source == 'job':
                    if kind == 'LIST':
                        obj = next((j for j in obj if j['metadata'].get('uid') == uid), None)
                        kind = 'DELETED' if obj is None else 'MODIFIED'
                    elif obj['metadata'].get('uid') != uid:
                        continue
                    if kind == 'DELETED':
                        gone = self._said(INCONCLUSIVE, '%s was deleted before it ended (not by this task); '
                                                        'no verdict' % what)
                        gone.always_counts = True  # never a pass, whatever inconclusive says
                        return gone
                    job = obj
                elif kind == 'LIST':
                    pods = {p['metadata']['name']: p for p in obj}
                elif kind == 'DELETED':
                    pods.pop(obj['metadata']['name'], None)
                else:
                    pods[obj['metadata']['name']] = obj
        finally:
            stop.set()

    def _judge(self, client, job, pods, what):
        """The verdict once there is one (the Job ended, or its pod cannot start), else None."""
        if condition(job, 'Complete'):
            return self._said(PASSED, '%s completed' % what)
        failed = condition(job, 'Failed')
        if failed:
            why = failed.get('reason') or 'Failed'
            if failed.get('message'):
                why += ': %s' % failed['message']
            log = self._log_of(client, job['metadata']['uid'], pods)
            return self._said(FAILED, '%s failed (%s)%s' % (what, why, log))
        blocked = cannot_start(pods)
        if blocked:
            self._delete(client, job['metadata']['name'])
            return self._said(INCONCLUSIVE, '%s cannot start: %s; the Job was deleted' % (what, blocked))
        return None

    def _timed_out(self, client, job, pods, what, pods_unseen):
        self._delete(client, job['metadata']['name'])
        seconds = fmt(self.endpoint['timeout'])
        if pods_unseen is not None:
            return self._said(ERROR, '%s did not end within %s seconds (timeout) and its pods cannot be read '
                                     '(%s); the Job was deleted' % (what, seconds, pods_unseen))
        if not started(pods):
            return self._said(INCONCLUSIVE, '%s never started within %s seconds (timeout): %s; the Job was '
                                            'deleted' % (what, seconds, never_started(job, pods)))
        return self._said(ERROR, '%s was still running after %s seconds (timeout); the Job was deleted'
                          % (what, seconds))

    def _log_of(self, client, uid, pods):
        """``; last lines of pod <p> container <c>: <text>`` for a failed Job, or why they cannot be shown."""
        try:  # the pods as they are now: their watch may not have delivered their end yet
            selector = '%s=%s' % (CONTROLLER_UID_LABEL, uid)
            listed = client.list(pods_path(self.namespace), label_selector=selector)
            pods = listed.get('items') or pods
        except ApiError:
            pass  # not allowed to list them: the watched ones tell which pod to read
        found = failed_container(pods)
        if found is None:
            return ''
        pod, container = found
        query = {'container': container, 'tailLines': LOG_LINES, 'limitBytes': LOG_BYTES}
        try:
            resp = client.request('GET', '%s/%s/log' % (pods_path(self.namespace), pod), query=query,
                                  stream=True)
        except ApiError as e:
            return '; the log of pod %s cannot be read: %s' % (pod, e)
        try:
            data = b''
            while len(data) < LOG_BYTES:
                chunk = resp.read1(LOG_BYTES)
                if not chunk:
                    break
                data += chunk
        finally:
            resp.close()
        text = data[:LOG_BYTES].decode('utf-8', 'replace').rstrip('\n')
        if not text:
            return '; pod %s container %s printed nothing' % (pod, container)
        return '; last lines of pod %s container %s: %s' % (pod, container, text)

    # -- clean-up
    def _delete(self, client, name):
        try:
            client.delete('%s/%s' % (jobs_path(self.namespace), name),
                          body={'propagationPolicy': 'Background'})
        except ApiError as e:
            if e.status != 404:
                raise

    def _clean_up(self, client):
        """Delete the check's finished Jobs beyond the newest KEPT_JOBS; why not, or None."""
        try:
            selector = '%s=%s' % (ANALYSIS_LABEL, self.name)
            listed = client.list(jobs_path(self.namespace), label_selector=selector)
            for job in expired(listed.get('items') or []):
                self._delete(client, job['metadata']['name'])
        except ApiError as e:
            return str(e)
        return None


def _pump(client, path, selectors, rv, out, stop, source, until):
    """Queue ``(source, (type, object))`` for each event of ``path`` from ``rv`` until ``stop`` is set
    or ``until`` (monotonic) passes; ``(source, ('LIST', items))`` after a 410 Gone made it LIST again,
    ``(source, error)`` when it cannot watch."""
    while not stop.is_set():
        seconds = min(WATCH_SECONDS, until - time.monotonic())
        if seconds <= 0:
            return
        try:
            for kind, obj in client.watch(path, resource_version=rv, timeout_seconds=max(1, seconds),
                                          **selectors):
                if stop.is_set():
                    return
                rv = (obj.get('metadata') or {}).get('resourceVersion') or rv
                if kind != 'BOOKMARK':
                    out.put((source, (kind, obj)))
        except ApiError as e:
            if e.status != 410:
                out.put((source, e))
                return
            try:
                listed = client.list(path, **selectors)
            except Exception as e2:
                out.put((source, e2))
                return
            rv = (listed.get('metadata') or {}).get('resourceVersion')
            out.put((source, ('LIST', listed.get('items') or [])))
        except Exception as e:
            out.put((source, e))
            return

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""``rollout_restart`` tied to configuration: restart a workload when the ConfigMaps and Secrets
its pods use have changed since the digest recorded on it (``kinds/config_digest.py`` computes the
digest; this reads the objects and writes the restart or the record)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.kubeops.rollout.plugins.module_utils.api.client import path_quote
from ansible_collections.kubeops.rollout.plugins.module_utils.common import times
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import patches
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workload import Refused
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.writes import (
    Outcome,
    annotations_of,
    decide_and_write,
    template_of,
    write,
)


# config_digest is imported by the functions below only: a task that restarts on configuration
# change is the one that needs it.


def read_configs(client, namespace, refs, cache=None):
    """{``Kind/name``: object} for the referenced objects that exist (one GET each; ``cache``, a dict
    shared by the calls of one task, reads an object used by several workloads once)."""
    from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import config_digest
    collections = {config_digest.CONFIG_MAP: 'configmaps', config_digest.SECRET: 'secrets'}
    cache = {} if cache is None else cache
    out = {}
    for ref in refs:
        key = (namespace, ref.key)
        if key not in cache:
            path = '/api/v1/namespaces/%s/%s/%s' % (path_quote(namespace), collections[ref.kind],
                                                    path_quote(ref.name))
            try:
                cache[key] = client.get(path)
            except ApiError as e:
                if e.status != 404:
                    raise
                cache[key] = None
        if cache[key] is not None:
            out[ref.key] = cache[key]
    return out


def config_references(client, workload, config_maps=(), secrets=(), from_template=False, cache=None):
    """(refs, objects) for a workload; a missing required object is refused (nothing written)."""
    from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import config_digest
    refs = config_digest.references(workload.template if from_template else None, config_maps, secrets)
    objects = read_configs(client, workload.namespace, refs, cache)
    missing = config_digest.missing_required(refs, objects)
    if missing:
        message = config_digest.missing_message(missing, workload.namespace)
        raise Refused('%s: %s' % (workload.describe(), message))
    return refs, objects


FIRST_RUN_RESTART = 'restart'
FIRST_RUN_RECORD = 'record'


def config_restart(client, workload, config_maps=(), secrets=(), from_template=False, check_mode=False,
                   cache=None, now=times.rfc3339_now, first_run=FIRST_RUN_RESTART):
    """Restart only when the digest of the configuration differs from the one recorded in the pod
    template; the digest (never the content) is recorded in the same patch as the restart stamp.

    ``first_run``: when nothing is recorded yet, ``restart`` (restart, recording the digest) or
    ``record`` (record the digest on the workload's own annotations, restarting nothing: for pods
    known to run the current configuration already)."""
    from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import config_digest
    decided = {}  # the first decision's fields (its stamp) and diff side

    def attempt(workload, conflicted):
        refs, objects = config_references(client, workload, config_maps, secrets, from_template, cache)
        digests = config_digest.digests(refs, objects)
        annotation = config_digest.format_annotation(digests)
        previous = config_digest.recorded(workload.template)
        if previous is None:
            previous = config_digest.recorded_on_workload(workload.obj)
        change_list = config_digest.changes(config_digest.parse_annotation(previous), digests)
        fields = {'config_digest': annotation, 'config_objects': sorted(digests),
                  'config_changes': change_list, 'restarted_at': None, 'restart_reason': None,
                  'recorded_only': False}
        if (previous or '') == annotation:
            if 'fields' in decided:  # the write decided first is in place (its answer lost)
                return Outcome(workload, True, dict(decided['fields']), decided['before'],
                               patches.template_view(workload.template, workload.annotations))
            return Outcome(workload, conflicted, fields)
        if previous is None and first_run == FIRST_RUN_RECORD:
            return _record_digest(client, workload, annotation, fields, check_mode)
        workload.check_restartable()  # a paused Deployment is refused only when it needs a restart
        stamp = decided['fields']['restarted_at'] if 'fields' in decided else now()
        fields['restarted_at'] = stamp
        fields['restart_reason'] = config_digest.describe_changes(previous, change_list)
        # Guarded by the generation: a template changed since it was read is decided again from a
        # fresh read.
        body = config_digest.restart_patch(workload.obj, stamp, annotation, patches.RESTARTED_AT_ANNOTATION)
        local = {'metadata': workload.metadata, 'spec': {'template': config_digest.restarted_template(
            workload.template, stamp, annotation, patches.RESTARTED_AT_ANNOTATION)}}
        before = patches.template_view(workload.template, workload.annotations)
        if 'fields' not in decided:
            decided.update(fields=dict(fields), before=before)
        warnings = []
        obj = write(client, workload, patches.JSON_PATCH, body, check_mode, lambda: local, warnings)
        after = patches.template_view(template_of(obj), annotations_of(obj))
        return Outcome(workload, True, fields, before, after, workload.obj if check_mode else obj,
                       warnings=warnings)

    return decide_and_write(client, workload, attempt)


def _record_digest(client, workload, annotation, fields, check_mode):
    """The first run with ``first_run=record``: the digest on the workload, no restart."""
    from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import config_digest
    fields['recorded_only'] = True
    after_annotations = config_digest.recorded_annotations(workload.annotations, annotation)
    warnings = []
    obj = write(client, workload, patches.JSON_PATCH, config_digest.record_patch(workload.obj, annotation),
                check_mode, lambda: {'metadata': dict(workload.metadata, annotations=after_annotations),
                                     'spec': workload.spec}, warnings)
    before = patches.template_view(workload.template, workload.annotations)
    after = patches.template_view(template_of(obj), annotations_of(obj))
    return Outcome(workload, True, fields, before, after, workload.obj if check_mode else obj,
                   warnings=warnings)

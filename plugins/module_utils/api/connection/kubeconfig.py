# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Kubeconfig files: reading and merging them as kubectl does (``read_kubeconfig``) and the
``Connection`` of one context (``load_kubeconfig``), its fields type-checked; the user's
credentials are read by ``tokens.py``, ``certificates.py``, ``auth_providers.py`` or
``exec_plugin.py``.

PyYAML is imported only when a kubeconfig file is read.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection import certificates, tokens
from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection.settings import Connection
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ConfigError

DEFAULT_KUBECONFIG = '~/.kube/config'


# Kubeconfig fields that are strings (or absent), per section; a number or a list there is an error
# naming the field, never a TypeError later.
_STRING_FIELDS = {
    'context': ('cluster', 'user', 'namespace'),
    'cluster': ('server', 'certificate-authority', 'certificate-authority-data', 'tls-server-name',
                'proxy-url'),
    'user': ('token', 'tokenFile', 'client-certificate', 'client-certificate-data', 'client-key',
             'client-key-data', 'username', 'password', 'as', 'as-uid'),
}


def _check_types(section, name, entry, description):
    for key in _STRING_FIELDS[section]:
        value = entry.get(key)
        if value is not None and not isinstance(value, str):
            # The type only: the value may be a credential.
            raise ConfigError('kubeconfig field %s of %s "%s" in %s must be a string, not %s'
                              % (key, section, name, description, _type_name(value)))
    if section == 'user':
        groups = entry.get('as-groups')
        if groups is not None and not (isinstance(groups, list) and all(isinstance(g, str) for g in groups)):
            raise ConfigError('kubeconfig field as-groups of user "%s" in %s must be a list of strings'
                              % (name, description))
        for key in ('exec', 'auth-provider'):
            if entry.get(key) is not None and not isinstance(entry[key], dict):
                raise ConfigError('kubeconfig field %s of user "%s" in %s must be a mapping, not %s'
                                  % (key, name, description, _type_name(entry[key])))


def _type_name(value):
    if isinstance(value, bool):
        return 'a boolean'
    if isinstance(value, (int, float)):
        return 'a number'
    if isinstance(value, list):
        return 'a list'
    if isinstance(value, dict):
        return 'a mapping'
    return 'a %s' % type(value).__name__


def _kubeconfig_bool(entry, key, what):
    """A kubeconfig boolean as kubectl reads it: YAML true/false; anything else is an error."""
    value = entry.get(key)
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    raise ConfigError('kubeconfig field %s of %s must be true or false (a YAML boolean), not %s %s; '
                      'remove the quotes' % (key, what, type(value).__name__, _shown(value)))


def _shown(value):
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + '...'


def kubeconfig_paths(source):
    """The files of a kubeconfig option: one path, a path list (``a:b``, as ``KUBECONFIG`` takes), or
    a list of paths. (paths, explicit): one file named alone must exist; in a list, as kubectl does
    with ``KUBECONFIG``, a missing file is skipped."""
    if isinstance(source, (list, tuple)):
        items = source
    else:
        items = str(source).split(os.pathsep)
    paths = []
    for item in items:
        if not isinstance(item, str):
            raise ConfigError('kubeconfig must be a path, a list of paths or a kubeconfig mapping, not a '
                              'list holding %s' % type(item).__name__)
        if item.strip():
            paths.append(os.path.expanduser(item.strip()))
    if not paths:
        raise ConfigError('kubeconfig names no file: give a path, or a list of paths ("a%sb")' % os.pathsep)
    return paths, len(paths) == 1 and not isinstance(source, (list, tuple))


def default_kubeconfig_paths(env):
    value = env.get('KUBECONFIG')
    if value:
        return [os.path.expanduser(p) for p in value.split(os.pathsep) if p]
    return [os.path.expanduser(DEFAULT_KUBECONFIG)]


def _absolutize(entry, base_dir, keys):
    for key in keys:
        value = entry.get(key)
        if value and isinstance(value, str) and not os.path.isabs(os.path.expanduser(value)):
            entry[key] = os.path.join(base_dir, value)
        elif value and isinstance(value, str):
            entry[key] = os.path.expanduser(value)


def _yaml():
    try:
        import yaml
    except ImportError:
        raise ConfigError('reading a kubeconfig file needs the Python library PyYAML on the managed '
                          'node (pip install PyYAML); host with api_key (or K8S_AUTH_HOST and '
                          'K8S_AUTH_API_KEY) needs no kubeconfig')
    return yaml


def read_kubeconfig(source, env=None):
    """Load and merge kubeconfig(s) into one dict with absolute file paths.

    ``source``: a path, a path list (``a:b`` or a list), a dict (inline kubeconfig) or None
    (KUBECONFIG, else ~/.kube/config). Merging follows kubectl: for clusters, users and contexts the
    first file naming an entry wins, and so does the first ``current-context``; in a list, a file
    that does not exist is skipped.
    Returns (config, description).
    """
    env = os.environ if env is None else env
    if isinstance(source, dict):
        docs = [(source, os.getcwd())]
        description = 'the kubeconfig option (inline)'
    else:
        paths, explicit = kubeconfig_paths(source) if source else (default_kubeconfig_paths(env), False)
        docs = []
        for path in paths:
            if not os.path.exists(path):
                if explicit:
                    raise ConfigError('kubeconfig file %s does not exist' % path)
                continue
            yaml = _yaml()
            try:
                with open(path) as f:
                    # libyaml's parser where PyYAML has it: the same safe constructor, ten times faster.
                    data = yaml.load(f, Loader=getattr(yaml, 'CSafeLoader', yaml.SafeLoader)) or {}
            except yaml.YAMLError as e:
                # Only where: the parser's message quotes the offending line, which may hold a secret.
                mark = getattr(e, 'problem_mark', None)
                where = (' (line %d, column %d)' % (mark.line + 1, mark.column + 1)) if mark else ''
                raise ConfigError('kubeconfig file %s is not valid YAML%s' % (path, where))
            except (IOError, OSError) as e:
                raise ConfigError('cannot read kubeconfig file %s: %s' % (path, e.strerror or e))
            if not isinstance(data, dict):
                raise ConfigError('kubeconfig file %s is not a kubeconfig (expected a mapping)' % path)
            docs.append((data, os.path.dirname(os.path.abspath(path))))
        if not docs:
            raise ConfigError('no kubeconfig found at %s' % ', '.join(paths))
        description = 'kubeconfig ' + ', '.join(paths)

    # user-dirs: the directory of the file that defined each user (exec commands are relative to it).
    merged = {'clusters': {}, 'users': {}, 'contexts': {}, 'current-context': None, 'user-dirs': {}}
    for data, base in docs:
        for section, inner, path_keys in (
                ('clusters', 'cluster', ('certificate-authority',)),
                ('users', 'user', ('client-certificate', 'client-key', 'tokenFile')),
                ('contexts', 'context', ())):
            for item in data.get(section) or []:
                if not isinstance(item, dict) or 'name' not in item or item['name'] in merged[section]:
                    continue
                entry = item.get(inner) or {}
                if not isinstance(entry, dict):
                    raise ConfigError('%s entry "%s" in %s is not a mapping'
                                      % (section, item['name'], description))
                entry = dict(entry)
                _absolutize(entry, base, path_keys)
                merged[section][item['name']] = entry
                if section == 'users':
                    merged['user-dirs'][item['name']] = base
        if not merged['current-context'] and data.get('current-context'):
            merged['current-context'] = data['current-context']
    return merged, description


# Static credentials of a kubeconfig user; with any of them an exec plugin is not run (as kubectl).
_STATIC_AUTH_FIELDS = ('token', 'tokenFile', 'client-certificate', 'client-certificate-data',
                       'client-key', 'client-key-data', 'username', 'password')


def load_kubeconfig(source, context=None, env=None, runner=None):
    """A ``Connection`` from a kubeconfig (path, inline dict or the default location); ``runner``
    runs an exec plugin's program (``exec_process.py``)."""
    config, description = read_kubeconfig(source, env)
    name = context or config['current-context']
    if not name:
        raise ConfigError('%s has no current-context: set the context option (contexts: %s)'
                          % (description, ', '.join(sorted(config['contexts'])) or 'none'))
    ctx = config['contexts'].get(name)
    if ctx is None:
        raise ConfigError('context "%s" not found in %s (contexts: %s)'
                          % (name, description, ', '.join(sorted(config['contexts'])) or 'none'))
    cluster = config['clusters'].get(ctx.get('cluster'))
    if cluster is None:
        raise ConfigError('cluster "%s" of context "%s" not found in %s'
                          % (ctx.get('cluster'), name, description))
    user = config['users'].get(ctx.get('user')) or {}

    _check_types('context', name, ctx, description)
    _check_types('cluster', ctx.get('cluster'), cluster, description)
    _check_types('user', ctx.get('user'), user, description)

    conn = Connection()
    conn.source = '%s (context "%s")' % (description, name)
    conn.namespace = ctx.get('namespace') or None
    conn.server = (cluster.get('server') or '').rstrip('/') or None
    conn.proxy = cluster.get('proxy-url') or None
    insecure = _kubeconfig_bool(cluster, 'insecure-skip-tls-verify', 'cluster "%s"' % ctx.get('cluster'))
    certificates.from_cluster(conn, cluster, insecure,
                              'cluster "%s" in %s' % (ctx.get('cluster'), description))

    static = any(user.get(field) for field in _STATIC_AUTH_FIELDS)
    if user.get('auth-provider') and not static:
        # Imported only for an auth-provider entry (most kubeconfigs have none).
        from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection import auth_providers
        auth_providers.load(conn, config, name, ctx.get('user'))
    elif user.get('exec') and not static:
        # Imported only for an exec plugin (most kubeconfigs have none).
        from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection.exec_plugin import (
            ExecCredentialProvider,
        )
        conn.exec_provider = ExecCredentialProvider(
            user['exec'], cluster=cluster, base_dir=config['user-dirs'].get(ctx.get('user')),
            user=ctx.get('user'), environ=env, runner=runner)
    else:
        tokens.from_user(conn, user)
        certificates.from_user(conn, user)
    conn.impersonate_user = user.get('as') or None
    conn.impersonate_groups = list(user.get('as-groups') or []) or None
    conn.impersonate_uid = user.get('as-uid') or None
    extra = user.get('as-user-extra') or {}
    if not isinstance(extra, dict):
        raise ConfigError('kubeconfig field as-user-extra of user "%s" must be a mapping of lists'
                          % ctx.get('user'))
    conn.impersonate_extra = {str(k): [str(v) for v in (vals if isinstance(vals, list) else [vals])]
                              for k, vals in extra.items()} or None
    return conn

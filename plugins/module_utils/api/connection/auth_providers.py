# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Kubeconfig ``auth-provider`` entries: ``oidc`` (its id-token, refreshed through the
``kubernetes`` library, imported only then: the import alone costs about half a second), and the
``gcp`` and ``azure`` providers client-go removed, refused with the exec plugin that replaced them."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ConfigError, redact

# The auth-providers client-go removed (1.26) and the exec credential plugins that replaced them.
REMOVED_AUTH_PROVIDERS = {
    'gcp': ('gke-gcloud-auth-plugin', 'install it (gcloud components install gke-gcloud-auth-plugin) and '
            'run gcloud container clusters get-credentials again'),
    'azure': ('kubelogin (github.com/Azure/kubelogin)', 'install it and run kubelogin convert-kubeconfig'),
}


def load(conn, config, context, user_name):
    """Fill ``conn``'s token (and its refresh) from the auth-provider of ``user_name``, the user of
    ``context`` in the merged kubeconfig ``config``."""
    check(config['users'][user_name]['auth-provider'], user_name)
    _load_with_kubernetes_library(conn, config, context, ['auth-provider'])
    if not conn.token:
        raise ConfigError(
            'the oidc auth-provider of kubeconfig user "%s" gave no token: its id-token is missing, '
            'not a JWT (three base64url parts) or expired without a refresh (check idp-issuer-url, '
            'client-id and refresh-token). Log in again to get a new id-token, or use an exec '
            'credential plugin such as kubelogin (int128/kubelogin) instead' % user_name)


def check(provider, user):
    """Refuse an auth-provider that cannot authenticate: only ``oidc`` still exists."""
    if not isinstance(provider, dict) or not isinstance(provider.get('name'), str):
        raise ConfigError('kubeconfig field auth-provider of user "%s" must be a mapping with a name'
                          % user)
    name = provider['name']
    if name in REMOVED_AUTH_PROVIDERS:
        plugin, how = REMOVED_AUTH_PROVIDERS[name]
        raise ConfigError(
            'kubeconfig user "%s" uses the %s auth-provider, which Kubernetes clients no longer '
            'support: it was replaced by the exec credential plugin %s; %s, so that the user has an '
            'exec section instead' % (user, name, plugin, how))
    if name != 'oidc':
        raise ConfigError('kubeconfig user "%s" uses the auth-provider "%s", which is not supported (only '
                          'oidc is); use an exec credential plugin instead' % (user, name))
    config = provider.get('config')
    if not isinstance(config, dict) or not isinstance(config.get('id-token'), str) \
            or not config.get('id-token'):
        raise ConfigError('the oidc auth-provider of kubeconfig user "%s" has no id-token (config.id-token): '
                          'log in again to get one' % user)


def _load_with_kubernetes_library(conn, config, context, fields):
    """Authenticate through the kubernetes library (it refreshes oidc tokens)."""
    try:
        import kubernetes.client
        import kubernetes.config
    except ImportError:
        raise ConfigError(
            'the kubeconfig user of context "%s" authenticates with %s, which needs the Python '
            'library "kubernetes" on the managed node (pip install kubernetes)'
            % (context, ', '.join(fields)))
    raw = {
        'apiVersion': 'v1', 'kind': 'Config', 'current-context': context,
        'clusters': [{'name': k, 'cluster': v} for k, v in config['clusters'].items()],
        'users': [{'name': k, 'user': v} for k, v in config['users'].items()],
        'contexts': [{'name': k, 'context': v} for k, v in config['contexts'].items()],
    }
    cfg = kubernetes.client.Configuration()
    try:
        kubernetes.config.load_kube_config_from_dict(raw, context=context, client_configuration=cfg)
    except Exception as e:  # the library raises many types; all mean "cannot authenticate"
        raise ConfigError('cannot load credentials of context "%s" (%s): %s'
                          % (context, ', '.join(fields), redact(e, [])))

    def token_of(configuration):
        # The library keeps the token under "BearerToken" (older versions: "authorization").
        keys = configuration.api_key or {}
        value = keys.get('BearerToken') or keys.get('authorization') or ''
        if not isinstance(value, str):
            return None
        return value[len('Bearer '):] if value.startswith('Bearer ') else (value or None)

    conn.token = token_of(cfg)
    if cfg.cert_file:
        conn.cert_file = cfg.cert_file
    if cfg.key_file:
        conn.key_file = cfg.key_file
    if cfg.ssl_ca_cert and not (conn.ca_file or conn.ca_data):
        conn.ca_file = cfg.ssl_ca_cert

    def refresh():
        hook = getattr(cfg, 'refresh_api_key_hook', None)
        if hook:
            hook(cfg)
        return token_of(cfg)

    conn.refresh = refresh

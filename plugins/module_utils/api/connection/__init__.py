# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Where the API is and how to authenticate, resolved into one ``Connection``. One module per part:

- ``settings.py``: the ``Connection`` itself (what every other part fills in or reads) and the
  secrets it knows, for redaction.
- ``options.py``: the connection options of every module (``CONNECTION_ARG_SPEC``), their
  ``K8S_AUTH_*`` environment variables, and ``load_connection``: options, else a kubeconfig, else
  the in-cluster service account, with explicit options overriding what was loaded.
- ``kubeconfig.py``: kubeconfig files read and merged as kubectl does, one context selected.
- ``certificates.py``: CAs, client certificates and the TLS context; credentials never in the clear.
- ``tokens.py``: bearer tokens (inline, token files, the in-cluster service account's), basic auth
  and the request headers that carry them.
- ``auth_providers.py``: kubeconfig ``auth-provider`` entries (oidc; the removed gcp and azure).
- ``exec_plugin.py``: exec credential plugins, run natively.
- ``exec_process.py``: how an exec plugin's program runs (the module path through run_command), with
  the same time and output limits on both execution paths.
"""

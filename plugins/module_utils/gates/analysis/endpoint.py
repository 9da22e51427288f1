# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""``open_endpoint``: one request of a check, through ansible's ``open_url`` (the providers'
opener unless a test gives another)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.provider import Provider

# A body longer than this is not read further (an HTTP check's regex runs on this much).
MAX_BODY = 1024 * 1024


def open_endpoint(
    url,
    method='GET',
    headers=None,
    timeout=Provider.DEFAULT_TIMEOUT,
    validate_certs=True,
    ca_path=None,
    client_cert=None,
    client_key=None,
):
    """(status, body) of one request; any status is an answer (only a lost connection raises)."""
    # Imported only when a check runs: it brings in cryptography, a tenth of a task's start.
    from ansible.module_utils.urls import open_url

    try:
        response = open_url(
            url,
            method=method,
            headers=headers,
            timeout=timeout,
            validate_certs=validate_certs,
            ca_path=ca_path,
            client_cert=client_cert,
            client_key=client_key,
            follow_redirects='none',
            use_proxy=True,
        )
    except Exception as e:
        code = getattr(e, 'code', None)
        if isinstance(code, int) and hasattr(e, 'read'):
            try:
                body = e.read(MAX_BODY)
            except Exception:
                body = b''
            return code, body
        raise
    try:
        return response.getcode(), response.read(MAX_BODY)
    finally:
        response.close()

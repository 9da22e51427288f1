# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    # Connection options: the names, types and K8S_AUTH_* variables of kubernetes.core.
    DOCUMENTATION = r'''
options:
  kubeconfig:
    description:
      - Path to a kubeconfig file, or the kubeconfig itself as a dictionary.
      - Several files, as a path list like C(KUBECONFIG) takes (V(~/.kube/config:~/.kube/staging),
        separated by C(:), C(;) on Windows) or a list of paths, are merged as kubectl merges
        C(KUBECONFIG) - for each cluster, user and context the first file that names it wins, and so
        does the first C(current-context); a file of the list that does not exist is skipped. A single
        path must exist.
      - If not given (and no I(host) with credentials is), the in-cluster service account is used when
        running in a pod, else C(KUBECONFIG) or C(~/.kube/config).
      - Can also be set with the E(K8S_AUTH_KUBECONFIG) environment variable.
    type: raw
  context:
    description:
      - The kubeconfig context to use instead of its C(current-context).
      - Can also be set with the E(K8S_AUTH_CONTEXT) environment variable.
    type: str
  host:
    description:
      - URL of the Kubernetes API server, for example V(https://k8s.example.com:6443).
      - Overrides the kubeconfig cluster's server. With I(api_key) (or I(username) and I(password)) no
        kubeconfig is read at all.
      - Can also be set with the E(K8S_AUTH_HOST) environment variable.
    type: str
  api_key:
    description:
      - Bearer token used to authenticate with the API server.
      - Can also be set with the E(K8S_AUTH_API_KEY) environment variable.
    type: str
  username:
    description:
      - Username for HTTP basic authentication (only for API servers configured for it).
      - Can also be set with the E(K8S_AUTH_USERNAME) environment variable.
    type: str
  password:
    description:
      - Password for HTTP basic authentication.
      - Can also be set with the E(K8S_AUTH_PASSWORD) environment variable.
    type: str
  validate_certs:
    description:
      - Whether to verify the API server's TLS certificate.
      - When not set, certificates are verified unless the kubeconfig cluster sets
        C(insecure-skip-tls-verify).
      - Can also be set with the E(K8S_AUTH_VERIFY_SSL) environment variable.
    type: bool
    aliases: [ verify_ssl ]
  ca_cert:
    description:
      - Path to the CA certificate (bundle) that signed the API server's certificate.
      - Can also be set with the E(K8S_AUTH_SSL_CA_CERT) environment variable.
    type: path
    aliases: [ ssl_ca_cert ]
  client_cert:
    description:
      - Path to a client certificate used to authenticate with the API server.
      - Can also be set with the E(K8S_AUTH_CERT_FILE) environment variable.
    type: path
    aliases: [ cert_file ]
  client_key:
    description:
      - Path to the key of I(client_cert).
      - Can also be set with the E(K8S_AUTH_KEY_FILE) environment variable.
    type: path
    aliases: [ key_file ]
  proxy:
    description:
      - URL of an HTTP proxy to reach the API server through (the kubeconfig C(proxy-url) otherwise).
      - Environment variables such as C(HTTPS_PROXY) are not used.
      - Can also be set with the E(K8S_AUTH_PROXY) environment variable.
    type: str
  no_proxy:
    description:
      - Comma-separated hosts, domains and CIDRs to reach without I(proxy).
      - Can also be set with the E(K8S_AUTH_NO_PROXY) environment variable.
    type: str
  proxy_headers:
    description:
      - Headers for the HTTP proxy.
    type: dict
    suboptions:
      proxy_basic_auth:
        description:
          - C(username:password) for proxy basic authentication.
          - Can also be set with the E(K8S_AUTH_PROXY_HEADERS_PROXY_BASIC_AUTH) environment variable.
        type: str
      basic_auth:
        description:
          - C(username:password) for basic authentication.
          - Can also be set with the E(K8S_AUTH_PROXY_HEADERS_BASIC_AUTH) environment variable.
        type: str
      user_agent:
        description:
          - User agent string, for example C(foo/1.0).
          - Can also be set with the E(K8S_AUTH_PROXY_HEADERS_USER_AGENT) environment variable.
        type: str
  impersonate_user:
    description:
      - Username to impersonate (the C(Impersonate-User) header; the kubeconfig user's C(as) otherwise).
      - Can also be set with the E(K8S_AUTH_IMPERSONATE_USER) environment variable.
    type: str
  impersonate_groups:
    description:
      - Groups to impersonate (C(Impersonate-Group) headers).
      - Can also be set with the E(K8S_AUTH_IMPERSONATE_GROUPS) environment variable (comma-separated).
    type: list
    elements: str
  allow_insecure_credentials:
    description:
      - Send a bearer token, password or exec plugin credential to an API server addressed with
        C(http://) (no TLS). Without it such a connection fails before any request, since anyone on
        the network path could read the credential.
      - Meant for local test clusters only; a warning is shown on every run that uses it.
      - Can also be set with the E(K8S_AUTH_ALLOW_INSECURE_CREDENTIALS) environment variable.
      - When not set, V(false).
    type: bool
  request_timeout:
    description:
      - Seconds one API request may take in all (connecting, the answer's headers and its whole
        body). A request that takes longer fails and is not retried.
      - Must be greater than 0. Waiting for a rollout is bounded by I(timeout) instead.
      - Can also be set with the E(K8S_AUTH_REQUEST_TIMEOUT) environment variable.
      - When not set, V(60).
    type: float
requirements:
  - python >= 3.8
  - PyYAML (only to read a kubeconfig file; I(host) with I(api_key) needs none)
  - kubernetes (only for kubeconfig users that authenticate with an C(auth-provider) such as oidc)
notes:
  - Every kubeconfig authentication method is handled without the C(kubernetes) library (token,
    token file, client certificate and key as files or data, basic auth, exec credential plugins
    C(client.authentication.k8s.io/v1) and C(v1beta1) with token or client-certificate results,
    CA file or data, C(insecure-skip-tls-verify), C(proxy-url) with credentials,
    C(tls-server-name), impersonation of user, groups, uid and extra, in-cluster service account),
    except C(auth-provider) users (oidc, and the retired gcp and azure ones), which use it.
  - Exec plugins run without a terminal (C(interactiveMode=Always) fails; log in beforehand), at
    most 60 seconds per run; their credential is cached until it expires and renewed once when the
    API server answers 401. A user with a token, password or client certificate never runs its
    exec plugin, as with kubectl.
  - Kubeconfig booleans such as C(insecure-skip-tls-verify) must be YAML booleans; a quoted
    V("false") is an error, never silently true.
  - A warning is shown whenever TLS certificate verification is off.
  - Secrets (tokens, passwords, client keys, proxy credentials, exec plugin results, also
    base64-encoded) never appear in module output, at any verbosity.
  - I(no_proxy) follows Go's C(NO_PROXY) rules (C(*), IPs and CIDRs, C(example.com) with its
    subdomains, C(.example.com) and C(*.example.com) for subdomains only, a C(:port) suffix).
  - Transient API errors (429 with C(Retry-After), 5xx, dropped connections) are retried with a
    bounded backoff for requests that are safe to repeat.
  - To avoid certificate validation errors when I(validate_certs=true), the full certificate chain
    of the API server must be provided through I(ca_cert) or the kubeconfig.
'''

"""Real local servers for the providers' requests (tests/hostile/endpoints.py):

- ``endpoint``: an HTTP server that answers what a test sets, hostile answers included
  (``endpoint.answer(path, status=200, body=b'', delay=0, headers=None, trickle=0, raw=None)``;
  ``endpoint.url``, ``endpoint.requests``);
- ``tls_endpoint``: the same over TLS, with ``tls_endpoint.ca_file`` (the CA that signed it);
- ``proxy``: a forward proxy recording every request that reaches it (``proxy.url``,
  ``proxy.requests``).

Proxy variables are unset, so requests reach the servers directly unless a test sets them."""

import pytest

from tests.hostile.endpoints import Endpoint, RecordingProxy
from tests.kubesim.apiserver.tls import Certificates

PROXY_VARIABLES = ('http_proxy', 'https_proxy', 'all_proxy', 'no_proxy',
                   'HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'NO_PROXY')


@pytest.fixture
def no_proxy_variables(monkeypatch):
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def endpoint(no_proxy_variables):
    server = Endpoint()
    yield server
    server.stop()


@pytest.fixture
def tls_endpoint(no_proxy_variables, tmp_path):
    certificates = Certificates()
    server = Endpoint(tls=certificates)
    server.ca_file = tmp_path / 'ca.pem'
    server.ca_file.write_bytes(certificates.ca_pem)
    yield server
    server.stop()


@pytest.fixture
def proxy(no_proxy_variables):
    server = RecordingProxy()
    yield server
    server.stop()

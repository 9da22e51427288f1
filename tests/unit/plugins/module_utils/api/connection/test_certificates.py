"""TLS (api/connection/certificates.py): the CA of a kubeconfig cluster (data or file, or none: then
insecure, never both), client certificates, the ssl context built from them, used against kubesim
serving HTTPS, and the rule that credentials never travel in the clear."""

import base64
import os
import ssl
import tempfile

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.api.client import ApiClient
from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection import certificates
from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection.options import load_connection
from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection.settings import Connection
from ansible_collections.kubeops.rollout.plugins.module_utils.api.transport import Transport
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import (
    ConfigError,
    ConnectionFailure,
)

from tests.support.kube import read_log, write_kubeconfig

pytestmark = pytest.mark.unit

PEM = '-----BEGIN CERTIFICATE-----\nQ0EgUEVN\n-----END CERTIFICATE-----\n'


def b64(data):
    return base64.b64encode(data if isinstance(data, bytes) else data.encode()).decode()


# ---- a kubeconfig cluster's CA --------------------------------------------------------------------

@pytest.mark.parametrize('cluster, words', [
    ({'certificate-authority-data': ''}, 'certificate-authority-data of cluster "c1" in kubeconfig'),
    ({'certificate-authority-data': '  '}, 'is empty'),
    ({'certificate-authority-data': 'not base64!'}, 'is not valid base64'),
    ({'certificate-authority-data': b64(b'just text')}, 'holds no PEM certificate'),
    ({'certificate-authority-data': b64(PEM), 'insecure-skip-tls-verify': True},
     'insecure-skip-tls-verify: true, which kubectl refuses too'),
    ({'certificate-authority': 'ca.crt', 'insecure-skip-tls-verify': True}, 'kubectl refuses too'),
])
def test_kubeconfig_ca_problems_are_errors(tmp_path, cluster, words):
    kc = write_kubeconfig(tmp_path / 'config', clusters=[{'name': 'c1', 'cluster': dict(
        {'server': 'https://k:6443'}, **cluster)}])
    with pytest.raises(ConfigError) as err:
        load_connection({'kubeconfig': kc}, env={})
    assert words in str(err.value)


def test_ca_data_may_be_wrapped_over_lines():
    wrapped = '\n'.join(b64(PEM)[i:i + 16] for i in range(0, len(b64(PEM)), 16))
    assert certificates.ca_data(wrapped, 'cluster "c1"') == PEM


def test_a_cluster_has_a_ca_file_or_data_or_is_insecure():
    conn = Connection()
    certificates.from_cluster(conn, {'certificate-authority': '/etc/ca.crt', 'tls-server-name': 'k'}, False,
                              'c')
    assert (conn.verify, conn.ca_file, conn.ca_data, conn.tls_server_name) == (True, '/etc/ca.crt', None, 'k')
    conn = Connection()
    certificates.from_cluster(conn, {'certificate-authority-data': b64(PEM), 'certificate-authority': '/x'},
                              False, 'c')
    assert (conn.ca_data, conn.ca_file) == (PEM, None)  # the data wins, as kubectl's
    conn = Connection()
    certificates.from_cluster(conn, {'tls-server-name': ''}, True, 'c')
    assert (conn.verify, conn.ca_file, conn.ca_data, conn.tls_server_name) == (False, None, None, None)


def test_a_users_client_certificate_as_data_or_files():
    conn = Connection()
    certificates.from_user(conn, {'client-certificate-data': b64('CERT'), 'client-certificate': '/c',
                                  'client-key': '/k'})
    assert (conn.cert_data, conn.cert_file, conn.key_data, conn.key_file) == (b'CERT', None, None, '/k')
    with pytest.raises(ConfigError, match='^kubeconfig field client-key-data is not valid base64$'):
        certificates.from_user(Connection(), {'client-key-data': 'sekret!!'})


# ---- credentials in the clear ---------------------------------------------------------------------

def connection(server, verify=True, allow=False, **credentials):
    conn = Connection()
    conn.server, conn.verify, conn.allow_insecure_credentials = server, verify, allow
    for name, value in credentials.items():
        setattr(conn, name, value)
    return conn


@pytest.mark.parametrize('credential', [{'token': 't'}, {'password': 'p'}, {'refresh': lambda: 't'},
                                        {'exec_provider': object()}])
def test_no_credential_over_plain_http_unless_allowed(credential):
    with pytest.raises(ConfigError, match=r'refusing to send credentials .* to http://api:8080 over plain'):
        certificates.check_transport_security(connection('http://api:8080', **credential))
    allowed = connection('http://user:pw@api:8080', allow=True, **credential)
    certificates.check_transport_security(allowed)
    assert allowed.warnings == ['sending credentials to http://********@api:8080 over plain http '
                                '(allow_insecure_credentials is set): anyone on the path can read them']


def test_plain_http_without_credentials_and_https_without_verification():
    quiet = connection('http://api:8080')
    certificates.check_transport_security(quiet)
    assert quiet.warnings == []
    unverified = connection('https://api:6443', verify=False, token='t')
    certificates.check_transport_security(unverified)
    assert len(unverified.warnings) == 1 and 'verification of the Kubernetes API at https://api:6443 is off' \
        in unverified.warnings[0]


# ---- the ssl context, against kubesim serving HTTPS -----------------------------------------------

@pytest.fixture
def https_sim(kubesim_factory, tmp_path):
    return kubesim_factory(tls=True, client_certs=True, request_log=tmp_path / 'requests.log')


def https_connection(sim, **fields):
    conn = Connection()
    conn.server = sim.url
    for name, value in fields.items():
        setattr(conn, name, value)
    return conn


def test_the_servers_ca_as_data_or_file_verifies_it(https_sim, tmp_path):
    by_data = ApiClient(https_connection(https_sim, ca_data=https_sim.ca_pem.decode()))
    assert by_data.get('/version')['gitVersion'].startswith('v1.')
    ca_file = https_sim.certificates.write_ca(str(tmp_path / 'ca.crt'))
    assert ApiClient(https_connection(https_sim, ca_file=ca_file)).get('/version')


def test_the_systems_cas_do_not_know_kubesims(https_sim):
    with pytest.raises(ConnectionFailure) as err:
        ApiClient(https_connection(https_sim)).get('/version')
    assert err.value.tls and 'certificate verify failed' in err.value.message


def test_no_verification_connects_to_any_server(https_sim):
    conn = https_connection(https_sim, verify=False)
    ctx = certificates.ssl_context(conn)
    assert ctx.verify_mode == ssl.CERT_NONE and not ctx.check_hostname
    assert ApiClient(conn).get('/version')


def test_a_client_certificate_authenticates_as_its_common_name(https_sim, tmp_path, monkeypatch):
    cert, key = https_sim.certificates.client('carol', ['ops'])
    scratch = tmp_path / 'scratch'
    scratch.mkdir()
    monkeypatch.setattr(tempfile, 'tempdir', str(scratch))
    conn = https_connection(https_sim, ca_data=https_sim.ca_pem.decode(), cert_data=cert, key_data=key)
    client = ApiClient(conn)
    assert os.listdir(scratch) == []  # the key written for ssl is gone once loaded
    client.get('/api/v1/namespaces/default')
    entry = read_log(tmp_path / 'requests.log')[-1]
    assert (entry['status'], entry['auth'], entry['user']) == (200, 'x509', 'carol')
    # The same from files.
    (tmp_path / 'c.crt').write_bytes(cert)
    (tmp_path / 'c.key').write_bytes(key)
    from_files = https_connection(https_sim, ca_data=https_sim.ca_pem.decode(),
                                  cert_file=str(tmp_path / 'c.crt'), key_file=str(tmp_path / 'c.key'))
    ApiClient(from_files).get('/api')
    assert read_log(tmp_path / 'requests.log')[-1]['user'] == 'carol'


def test_client_cert_data_is_written_privately_and_removed(tmp_path, monkeypatch):
    loaded = {}

    def fake_load_cert_chain(self, cert, key):
        with open(cert, 'rb') as f:
            loaded['cert'] = f.read()
        loaded['mode'] = os.stat(key).st_mode & 0o777
        loaded['dir'] = os.path.dirname(cert)

    monkeypatch.setattr(ssl.SSLContext, 'load_cert_chain', fake_load_cert_chain)
    monkeypatch.setattr(tempfile, 'tempdir', str(tmp_path))
    conn = Connection()
    conn.server = 'https://api:6443'
    conn.cert_data, conn.key_data = b'CERT-PEM', b'KEY-PEM'
    client = ApiClient(conn)
    assert isinstance(client._transport, Transport) and client._transport.ssl_context is not None
    assert loaded['cert'] == b'CERT-PEM' and loaded['mode'] == 0o600
    assert not os.path.exists(loaded['dir'])


def test_what_cannot_be_loaded_is_named(tmp_path):
    with pytest.raises(ConfigError, match=r'cannot load the CA certificate .*/missing.crt: No such file'):
        certificates.ssl_context(https_connection_of(ca_file=str(tmp_path / 'missing.crt')))
    with pytest.raises(ConfigError, match=r'cannot load the CA certificate \(certificate-authority-data\)'):
        certificates.ssl_context(https_connection_of(ca_data=PEM))  # not a real certificate
    with pytest.raises(ConfigError, match='a client certificate needs a client key'):
        certificates.ssl_context(https_connection_of(verify=False, cert_file=str(tmp_path / 'c.crt')))
    (tmp_path / 'c.crt').write_text('not a certificate')
    (tmp_path / 'c.key').write_text('not a key')
    with pytest.raises(ConfigError, match=r'cannot load the client certificate/key \(.*c.crt, .*c.key\)'):
        certificates.ssl_context(https_connection_of(verify=False, cert_file=str(tmp_path / 'c.crt'),
                                                     key_file=str(tmp_path / 'c.key')))


def https_connection_of(**fields):
    conn = Connection()
    conn.server = 'https://api:6443'
    for name, value in fields.items():
        setattr(conn, name, value)
    return conn

"""A throwaway certificate authority and serving certificate, made at startup.

EC P-256 keys: generating them takes milliseconds, where RSA would cost a noticeable part of the
one-second startup budget.
"""

import datetime
import ipaddress
import os
import ssl
import tempfile

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


def _name(common_name):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _pem_key(key):
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


class Certificates:
    """``ca_pem`` for clients; ``server_context()`` for the listener."""

    def __init__(self, hosts=('127.0.0.1', 'localhost')):
        now = datetime.datetime.now(datetime.timezone.utc)
        start, end = now - datetime.timedelta(minutes=5), now + datetime.timedelta(days=2)

        ca_key = ec.generate_private_key(ec.SECP256R1())
        ca_name = _name('kubesim-ca')
        ca = (x509.CertificateBuilder()
              .subject_name(ca_name).issuer_name(ca_name)
              .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
              .not_valid_before(start).not_valid_after(end)
              .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
              .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                           content_commitment=False, key_encipherment=False,
                                           data_encipherment=False, key_agreement=False,
                                           encipher_only=False, decipher_only=False), critical=True)
              .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()),
                             critical=False)
              .sign(ca_key, hashes.SHA256()))

        key = ec.generate_private_key(ec.SECP256R1())
        names = []
        for host in hosts:
            try:
                names.append(x509.IPAddress(ipaddress.ip_address(host)))
            except ValueError:
                names.append(x509.DNSName(host))
        cert = (x509.CertificateBuilder()
                .subject_name(_name('kubesim')).issuer_name(ca_name)
                .public_key(key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(start).not_valid_after(end)
                .add_extension(x509.SubjectAlternativeName(names), critical=False)
                .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
                .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
                               critical=False)
                .sign(ca_key, hashes.SHA256()))

        self._ca_key, self._ca_name, self._validity = ca_key, ca_name, (start, end)
        self.ca_pem = ca.public_bytes(serialization.Encoding.PEM)
        self.cert_pem = cert.public_bytes(serialization.Encoding.PEM)
        self.key_pem = _pem_key(key)

    def client(self, user, groups=()):
        """A client certificate signed by this CA, as the API server's x509 authenticator reads one:
        the subject's CN is the user name, each O a group. Returns (cert_pem, key_pem)."""
        start, end = self._validity
        key = ec.generate_private_key(ec.SECP256R1())
        subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, user)]
                            + [x509.NameAttribute(NameOID.ORGANIZATION_NAME, g) for g in groups])
        cert = (x509.CertificateBuilder()
                .subject_name(subject).issuer_name(self._ca_name)
                .public_key(key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(start).not_valid_after(end)
                .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
                .sign(self._ca_key, hashes.SHA256()))
        return cert.public_bytes(serialization.Encoding.PEM), _pem_key(key)

    def write_ca(self, path):
        with open(path, 'wb') as f:
            f.write(self.ca_pem)
        return path

    def server_context(self, client_certs=False):
        """The listener's context. ``client_certs``: ask for a client certificate and verify one that
        is given against this CA (a certificate from elsewhere fails the handshake); a client
        without one still connects, as with the API server's --client-ca-file."""
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        if client_certs:
            ctx.load_verify_locations(cadata=self.ca_pem.decode())
            ctx.verify_mode = ssl.CERT_OPTIONAL
        # ssl loads a chain only from files: write them to a private temp dir, gone right after.
        with tempfile.TemporaryDirectory(prefix='kubesim-tls-') as tmp:
            cert_file, key_file = os.path.join(tmp, 'tls.crt'), os.path.join(tmp, 'tls.key')
            with open(cert_file, 'wb') as f:
                f.write(self.cert_pem)
            fd = os.open(key_file, os.O_WRONLY | os.O_CREAT, 0o600)
            with os.fdopen(fd, 'wb') as f:
                f.write(self.key_pem)
            ctx.load_cert_chain(cert_file, key_file)
        return ctx
